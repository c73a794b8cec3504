#!/bin/bash
# Call 7 (carry=["gpu_dev_pack"]): `pp4b` (the kept change: the relaxed start barrier and the
# 4-slot instance's staged-slot weight pieces a batch ahead) against `base`, AUTO, paired; then
# test_cuda --wide-fwd of pp4b, and of `mut` (pp4b with each batch's slots given the other slot's
# weight piece: a mutant the section must fail).
set -u
DEV_TAR=gpu_dev_pack/builds.tar.xz VARIANTS='base pp4b' PAIRED=1 TEST=0 MODES=auto ARGS=--fwd-only ITERS=10 \
  SHAPES=256x1048576,64x1048576,100x1048576,8x1048576,32x524288,300x700000,17x262144,64x196608,24x65536,1024x65536,512x262144 \
  F32_SHAPES=128x524288,256x500000,64x262144,1024x65536 bash tools/kerneldev/compare.sh > $OUT/compare.txt 2>&1
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base base > $OUT/pair_table.txt 2>&1
D=$(mktemp -d); tar -C $D -xJf gpu_dev_pack/builds.tar.xz
/usr/bin/time -f "%e s" timeout 250 $D/pp4b/test_cuda --wide-fwd > $OUT/test_wide_pp4b.log 2>&1; echo "pp4b test_cuda --wide-fwd rc=$?"
timeout 150 $D/mut/test_cuda --wide-fwd > $OUT/test_wide_mut.log 2>&1; echo "mut test_cuda --wide-fwd rc=$? FAIL lines $(grep -c FAIL $OUT/test_wide_mut.log)"
grep -E "seed|runs failed|failed|graph" $OUT/test_wide_pp4b.log | tail -8; tail -2 $OUT/test_wide_pp4b.log
grep FAIL $OUT/test_wide_mut.log | head -3 | cut -c1-220
cd $OUT && gzip -9 paired.log test_wide_*.log; cat pair_table.txt
