#!/bin/bash
# Full waves of flat tiles in smaller CTAs (select.c fwd_tile, FN_FWD_TILE_WAVE_THREADS), the same
# kernel: gpu_dev_pack/tc/builds.tar.xz holds bench_modes of b256 (FN_FWD_TILE_WAVE_THREADS=256:
# the plans of before), w64 (64, the new default) and w128 (128), and w64's test_cuda; sm_90a.
# AUTO's forward (bench_modes --fwd-only, cold, 30 iterations) in the order b256 w64 w128 w128
# w64 b256, then test_cuda --quick of w64.
set -u
D=/tmp/devbuilds_tc; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/tc/builds.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
for v in b256 w64 w128 w128 w64 b256; do
  for cfg in "f32:--dtype=f32:274156x39,500000x13,1000000x30,1000000x7,200000x19,9859x6" \
             "f32fused:--dtype=f32 --fused:274156x39,12790x19,600000x39" \
             "bf16:--dtype=bf16:200000x13,300000x30,100000x60,2000000x12,366740x15,1000000x5" \
             "bf16fused:--dtype=bf16 --fused:300000x30,1000000x5,366740x15,150000x100" \
             "f16:--dtype=f16:539974x12,1000000x20,162158x81,400000x7" \
             "f16fused:--dtype=f16 --fused:539974x12,247656x26,1000000x20,80000x113,60000x45"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 100 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/paired.log
date -u +%T
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base b256 --modes auto > $OUT/pair_table.txt
gzip -f $OUT/paired.log
s=$(date +%s); timeout 300 $D/w64/test_cuda --quick > $OUT/test_w64_quick.txt 2>&1; rc=$?
echo "test_cuda w64 --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_w64_quick.txt)"
grep -m6 "FAIL" $OUT/test_w64_quick.txt | cut -c1-200; grep -m3 "tile/waves" $OUT/test_w64_quick.txt | cut -c1-200
gzip -f $OUT/test_w64_quick.txt
cat $OUT/pair_table.txt
