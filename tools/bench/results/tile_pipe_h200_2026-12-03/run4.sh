#!/bin/bash
# The flat-tile and thread forwards' global stores as one 16-byte instruction each (stg16,
# rmsnorm_common.cuh; nvcc 13.0 had split them into four 4-byte stores), against 498f32c:
# gpu_dev_pack/sg/builds.tar.xz (bench_modes of `b0` = 498f32c and `sg`, sg's test_cuda, sm_90a).
# AUTO's forward (bench_modes --fwd-only, cold, 30 iterations) in the order b0 sg sg b0 on run1.sh's
# tile shapes and thread shapes, then test_cuda --quick of sg.
set -u
D=/tmp/devbuilds_sg; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/sg/builds.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
for v in b0 sg sg b0; do
  for cfg in "f32:--dtype=f32:274156x39,12790x19,100000x7,500000x13,1000000x30,9859x6,1000000x3,116265x1" \
             "f32fused:--dtype=f32 --fused:274156x39,12790x19,4356x53,1000000x1" \
             "bf16:--dtype=bf16:200000x13,1000000x5,300000x30,100000x60,50000x10,2000000x12,366740x15,209133x1,486416x3" \
             "bf16fused:--dtype=bf16 --fused:300000x30,1000000x5,366740x15" \
             "f16:--dtype=f16:539974x12,1000000x20,162158x81,395x7,400000x6" \
             "f16fused:--dtype=f16 --fused:539974x12,247656x26,1025612x1"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 100 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/paired4.log
date -u +%T
python3 tools/kerneldev/pair_table.py $OUT/paired4.log --base b0 --modes auto > $OUT/pair_table4.txt
gzip -f $OUT/paired4.log
s=$(date +%s); timeout 240 $D/sg/test_cuda --quick > $OUT/test_sg_quick.txt 2>&1; rc=$?
echo "test_cuda sg --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_sg_quick.txt)"
grep -m6 "FAIL" $OUT/test_sg_quick.txt | cut -c1-200; gzip -f $OUT/test_sg_quick.txt
cat $OUT/pair_table4.txt
