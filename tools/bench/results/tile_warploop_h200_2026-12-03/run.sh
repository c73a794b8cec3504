#!/bin/bash
# The flat-tile forward's row loop bounded per warp (a warp stops once its first team is past the
# tile's rows) against main (hf: the build of 4f88405's kernels and plans): gpu_dev_pack/wl/
# builds.tar.xz holds bench_modes of hf and wl and wl's test_cuda; sm_90a. test_cuda --quick of
# wl, then AUTO's forward (bench_modes --fwd-only, cold, 30 iterations) in the order hf wl wl hf.
set -u
D=/tmp/devbuilds_wl; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/wl/builds.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
s=$(date +%s); timeout 150 $D/wl/test_cuda --quick > $OUT/test_wl_quick.txt 2>&1; rc=$?
echo "test_cuda wl --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_wl_quick.txt)"
grep -m6 "FAIL" $OUT/test_wl_quick.txt | cut -c1-200; gzip -f $OUT/test_wl_quick.txt
for v in hf wl wl hf; do
  for cfg in "f32:--dtype=f32:274156x39,500000x13,200000x19" "f32fused:--dtype=f32 --fused:274156x39" \
             "bf16:--dtype=bf16:366740x15,120000x27,100000x60" "bf16fused:--dtype=bf16 --fused:366740x15,300000x30" \
             "f16:--dtype=f16:539974x12,1000000x20" "f16fused:--dtype=f16 --fused:539974x12,247656x26,60000x45"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 60 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/paired.log
date -u +%T
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base hf --modes auto > $OUT/pair_table.txt
gzip -f $OUT/paired.log; cat $OUT/pair_table.txt
