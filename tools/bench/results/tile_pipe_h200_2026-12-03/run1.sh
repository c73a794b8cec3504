#!/bin/bash
# The flat-tile forward with the next tile in flight (cp.async into a second buffer, a grid of the
# resident CTAs walking the tiles) against 498f32c: tools/kerneldev builds, sm_90a, xz-packed in
# gpu_dev_pack/tp/builds.tar.xz (bench_modes of `b0` = 498f32c, `tp` = this tree, `tp4` = tp
# with --define=kerneldev_set=FN_FWD_TILE_SLOTS=4, tiles of 16 KB). AUTO's forward (bench_modes
# --fwd-only, cold, 30 iterations) in the order b0 tp tp4 tp4 tp b0 on shapes the plan gives the
# flat tiles. (tp's test_cuda: run2.sh.)
set -u
D=/tmp/devbuilds_tp; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/tp/builds.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
for v in b0 tp tp4 tp4 tp b0; do
  for cfg in "f32:--dtype=f32:274156x39,12790x19,100000x7,500000x13,1000000x30,9859x6" \
             "f32fused:--dtype=f32 --fused:274156x39,12790x19,4356x53" \
             "bf16:--dtype=bf16:200000x13,1000000x5,300000x30,100000x60,50000x10,2000000x12,366740x15" \
             "bf16fused:--dtype=bf16 --fused:300000x30,1000000x5" \
             "f16:--dtype=f16:539974x12,1000000x20,162158x81,395x7" \
             "f16fused:--dtype=f16 --fused:539974x12,247656x26"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 100 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/paired.log
date -u +%T
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base b0 --modes auto > $OUT/pair_table.txt
gzip -f $OUT/paired.log
cat $OUT/pair_table.txt
