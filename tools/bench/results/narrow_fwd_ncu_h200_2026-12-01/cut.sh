#!/bin/bash
# `wp2` (the shipped warp forward: wp plus the weight pointer's stand-in) and `cut` (wp2 with
# the warp forward's AUTO domain widened: FN_AUTO_FWD_WARP_B16_ROWS_PER_SM=1000000,
# FN_AUTO_FWD_WARP_B16_MAX_N=512, FN_AUTO_FWD_WARP_F32_MAX_N=512) against the bundle of HEAD
# (`base`), AUTO timed base wp2 cut cut wp2 base (bench_modes, cold, 30 iterations); then
# test_cuda --quick of wp2.
set -u
D=$(mktemp -d); tar -C $D -xJf gpu_dev_pack/builds.tar.xz && tar -C $D -xJf gpu_dev_pack/base.tar.xz
date -u
for v in base wp2 cut cut wp2 base; do
  for cfg in "f16:--dtype=f16:58551x295,58551x401,58551x511,20000x401,4000x449" "bf16:--dtype=bf16:20000x401,4000x449,200000x333" \
             "f32:--dtype=f32:58551x401,200000x511,4000x449" \
             "bf16fused:--dtype=bf16 --fused:100000x255,58551x295,20000x401" "f16fused:--dtype=f16 --fused:300000x301,4000x449"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 100 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/cut.log
date -u
( timeout 150 $D/wp2/test_cuda --quick > $OUT/t_quick_wp2.txt 2>&1; echo "quick rc $?"; tail -1 $OUT/t_quick_wp2.txt )
grep -h "fwd  *auto" $OUT/cut.log | head -0
python3 tools/kerneldev/pair_table.py $OUT/cut.log --base base --modes auto | tail -30
grep -A3 "^### cut" $OUT/cut.log | grep -E "fwd" | awk '{print $1, $NF}' | sort -u | head -20
