#!/bin/bash
# AUTO's forward, `base` (the kernels and rules of 973c408) against `new` (the warp forward's
# predicated loads and its wider AUTO domain), bench_modes (cold, 30 iterations) in the order
# base new new base: the shapes of the 2026-12-01 runs (pair.sh, cut.sh, pins.sh of
# ../narrow_fwd_ncu_h200_2026-12-01/), whose logs were lost, and the sweep's warp-forward cases.
set -u
D=/tmp/devbuilds; [ -x $D/new/bench_modes ] || { mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz; }
date -u +%T
for v in base new new base; do
  for cfg in "f16:--dtype=f16:58551x295,20000x295,1000x295,30000x301,767x198,8x301,38x365,5601x92,11x52,33793x321,8448x321,300000x289,58551x401,58551x511,20000x401,4000x449" \
             "bf16:--dtype=bf16:58551x295,20000x295,30000x301,5x114,38x365,767x198,5265x142,200000x365,200000x333,131072x500,33793x324,131072x384,20000x401,4000x449" \
             "f32:--dtype=f32:20750x89,157281x190,50000x333,4000x129,58551x401,200000x511,4000x449" \
             "bf16off1:--dtype=bf16 --offset=1:131072x512,131072x320" \
             "bf16fused:--dtype=bf16 --fused:157x52,5000x299,30000x255,2000x77,100000x255,58551x295,20000x401,200000x477,131072x500,2113x511,8448x300" \
             "bf16fusedoff1:--dtype=bf16 --fused --offset=1:131072x512" \
             "f16fused:--dtype=f16 --fused:300000x301,4000x449,33792x321,1000x300" \
             "f32fused:--dtype=f32 --fused:20000x190,4000x129"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 100 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/paired.log
date -u +%T
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base base --modes auto > $OUT/pair_table.txt
gzip -k $OUT/paired.log; rm $OUT/paired.log
cat $OUT/pair_table.txt | tail -80
