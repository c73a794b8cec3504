#!/bin/bash
# The shapes test_select pins near the widened warp-forward domain: `base` (HEAD's bundle) against
# `cut` (the widened domain), AUTO timed base cut cut base (bench_modes, cold, 30 iterations).
set -u
D=$(mktemp -d); tar -C $D -xJf gpu_dev_pack/builds.tar.xz && tar -C $D -xJf gpu_dev_pack/base.tar.xz
date -u
for v in base cut cut base; do
  for cfg in "bf16:--dtype=bf16:200000x365,131072x500,33793x324,131072x384" "bf16fused:--dtype=bf16 --fused:200000x477,131072x500,2113x511,8448x300" \
             "bf16off1:--dtype=bf16 --offset=1:131072x512,131072x320" "bf16fusedoff1:--dtype=bf16 --fused --offset=1:131072x512" \
             "f16:--dtype=f16:33793x321,8448x321,300000x289" "f16fused:--dtype=f16 --fused:33792x321,1000x300"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 100 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/pins.log
date -u
python3 tools/kerneldev/pair_table.py $OUT/pins.log --base base --modes auto | tail -30
