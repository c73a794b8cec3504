#!/bin/bash
# The kept form (fp16 only: add2_rn_f16; bf16 back on the fp32 sum), build hf of the tree to be
# committed: test_rstd, its mutation (add.rn.ftz.f16x2: subnormal sums flushed; must fail),
# test_cuda --quick, and AUTO's fused forward against h0 (main 34a2664) in the order h0 hf hf h0.
# gpu_dev_pack/hf/builds.tar.xz; sm_90a.
set -u
D=/tmp/devbuilds_hf; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/hf/builds.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
timeout 100 $D/hf/test_rstd > $OUT/test_rstd_hf.txt 2>&1; echo "test_rstd: rc $?"; grep -E "add|OK|FAIL" $OUT/test_rstd_hf.txt
timeout 100 $D/hf/test_rstd_mut > $OUT/test_rstd_hf_mut.txt 2>&1; echo "test_rstd_mut: rc $? (1 wanted)"; grep -E "add|OK|FAIL" $OUT/test_rstd_hf_mut.txt | cut -c1-200
s=$(date +%s); timeout 200 $D/hf/test_cuda --quick > $OUT/test_hf_quick.txt 2>&1; rc=$?
echo "test_cuda hf --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_hf_quick.txt)"
grep -m6 "FAIL" $OUT/test_hf_quick.txt | cut -c1-200; gzip -f $OUT/test_hf_quick.txt
for v in h0 hf hf h0; do
  for cfg in "f16fused:--dtype=f16 --fused:539974x12,247656x26,1025612x1" "bf16fused:--dtype=bf16 --fused:300000x30,209133x1,2x4096"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 100 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/paired3.log
python3 tools/kerneldev/pair_table.py $OUT/paired3.log --base h0 --modes auto > $OUT/pair_table3.txt
gzip -f $OUT/paired3.log; cat $OUT/pair_table3.txt
