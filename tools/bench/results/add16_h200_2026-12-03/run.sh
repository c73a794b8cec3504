#!/bin/bash
# The fused add's 16-bit sums as one packed instruction (add2_rn, rmsnorm_common.cuh) against the
# fp32 sum rounded to T: gpu_dev_pack/ha/builds.tar.xz holds bench_modes of h0 (main 34a2664) and
# ha (the change), ha's test_cuda, and test_rstd built for sm_90a and for compute_80 PTX only
# (JIT-compiled here); sm_90a. test_rstd (its check 4: every pair of fp16 and bf16 operands),
# test_cuda --quick, then AUTO's fused forward (bench_modes --fwd-only, cold, 30 iterations) over
# every family's fused shapes in the order h0 ha ha h0 (two plain shapes as a control).
set -u
D=/tmp/devbuilds_ha; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/ha/builds.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
for t in test_rstd test_rstd_c80; do
  s=$(date +%s); timeout 200 $D/ha/$t > $OUT/$t.txt 2>&1; rc=$?
  echo "$t: rc $rc, $(( $(date +%s) - s )) s"; grep -E "add|OK|FAIL" $OUT/$t.txt | cut -c1-200
done
s=$(date +%s); timeout 200 $D/ha/test_cuda --quick > $OUT/test_ha_quick.txt 2>&1; rc=$?
echo "test_cuda ha --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_ha_quick.txt)"
grep -m6 "FAIL" $OUT/test_ha_quick.txt | cut -c1-200; gzip -f $OUT/test_ha_quick.txt
for v in h0 ha ha h0; do
  for cfg in "f16fused:--dtype=f16 --fused:539974x12,247656x26,1000000x20,60000x45,1025612x1,400000x2,265x48540,4096x4096,8192x2048,65536x128,1024x65536,277x29,1x918" \
             "bf16fused:--dtype=bf16 --fused:366740x15,300000x30,1000000x5,209133x1,4096x8192,16384x1024,16x215342,776x18494,29565x120,2x4096" \
             "bf16:--dtype=bf16:366740x15,4096x4096"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 100 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/paired.log
date -u +%T
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base h0 --modes auto > $OUT/pair_table.txt
gzip -f $OUT/paired.log
cat $OUT/pair_table.txt
