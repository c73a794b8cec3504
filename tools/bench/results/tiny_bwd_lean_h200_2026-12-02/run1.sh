#!/bin/bash
# The lean tiny backward, first GPU call (tools/kerneldev builds, sm_90a unless named, xz-packed in
# gpu_dev_pack/c1/builds.tar.xz: base, new; m1 and m2 (c2) and p80 (c3) went with the next calls, run2.sh): `base` = the tree before it (7d2415c), `new` = with it, `m1` / `m2` =
# new with a mutant in the lean kernel (the dot's xor tree one level short; the dw butterfly over
# the teams of a warp one level short: test_cuda must fail), `p80` = new built for compute_80 only
# (PTX, JIT-compiled by the driver). test_cuda --quick of new, then AUTO's backward (bench_modes --bwd, cold, 30 iterations) of base and new in the order base
# new new base on the sweep's tiny backward shapes and a few more.
set -u
D=/tmp/devbuilds; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/c1/builds.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
for t in new; do
  ( s=$(date +%s); timeout 240 $D/$t/test_cuda --quick > $OUT/test_${t}_quick.txt 2>&1; rc=$?
    echo "test_cuda $t --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_${t}_quick.txt)" > $OUT/rc_$t.txt ) &
done
wait
for t in new; do
  cat $OUT/rc_$t.txt; grep -m6 "FAIL" $OUT/test_${t}_quick.txt | cut -c1-200
done
grep "layout" $OUT/test_new_quick.txt | head -3
date -u +%T
for v in base new new base; do
  for cfg in "bf16:--dtype=bf16:19x28,36x3,37x18,91x8,1x255,2x186,22x1,300x8,8x256,16x256,1x6732" \
             "bf16fused:--dtype=bf16 --fused:29x1,15x188,1x223,42x93,5x64" \
             "f16:--dtype=f16:1x255,2x186,3x8,3x98,22x6,8x200,43x1750" \
             "f16fused:--dtype=f16 --fused:2x1,11x9,15x188,6x128" \
             "f32:--dtype=f32:1x1,1x183,165x4,508x2,13x16,32x100" \
             "f32fused:--dtype=f32 --fused:3x77,4x104,33x3,42x93,68x1,74x21,96x25,159x3"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 100 $D/$v/bench_modes $flags --bwd --modes=auto --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/paired.log
date -u +%T
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base base --modes auto > $OUT/pair_table.txt
gzip -f $OUT/paired.log; (cd $OUT && gzip -f test_*.txt && rm -f rc_*.txt)
tail -60 $OUT/pair_table.txt
