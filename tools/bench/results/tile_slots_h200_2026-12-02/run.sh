#!/bin/bash
# The flat-tile forward at four vectors a thread (tiles of 16 KB, 64 registers, four CTAs an SM)
# against two (8 KB, 48 registers, five): tools/kerneldev builds xz-packed in
# gpu_dev_pack/c4/builds.tar.xz, sm_90a: `base` = 186c3cd, `t4` = the same with
# --define=kerneldev_set=FN_FWD_TILE_SLOTS=4,FN_FWD_TILE_MIN_CTAS=4. AUTO's forward (bench_modes
# --fwd-only, cold, 30 iterations) in the order base t4 t4 base on shapes the plan gives the flat tiles,
# then test_cuda --quick of t4.
set -u
D=/tmp/devbuilds4; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/c4/builds.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
for v in base t4 t4 base; do
  for cfg in "f32:--dtype=f32:274156x39,12790x19,100000x7,500000x13,1000000x30" \
             "f32fused:--dtype=f32 --fused:274156x39,12790x19,4356x53" \
             "bf16:--dtype=bf16:200000x13,1000000x5,300000x30,100000x60,50000x10,2000000x12" \
             "bf16fused:--dtype=bf16 --fused:300000x30,1000000x5" \
             "f16:--dtype=f16:539974x12,1000000x20,162158x81" \
             "f16fused:--dtype=f16 --fused:539974x12,247656x26"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 100 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/paired.log
date -u +%T
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base base --modes auto > $OUT/pair_table.txt
gzip -f $OUT/paired.log
cat $OUT/pair_table.txt
s=$(date +%s); timeout 150 $D/t4/test_cuda --quick > $OUT/test_t4_quick.txt 2>&1; rc=$?
echo "test_cuda t4 --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_t4_quick.txt)"
grep -m6 "FAIL" $OUT/test_t4_quick.txt | cut -c1-200; gzip -f $OUT/test_t4_quick.txt
