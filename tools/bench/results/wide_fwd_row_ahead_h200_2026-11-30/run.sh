#!/bin/bash
# (carry=["gpu_dev_pack"]): `xp` (the staged-weight wide forward copies the next row's staged
# slots during this row's y) against `head` (2528f56's kernels), AUTO, paired; then
# test_cuda --wide-fwd of xp (its many-rows shape takes the staged-weight plan).
set -u
DEV_TAR=gpu_dev_pack/builds.tar.xz VARIANTS='head xp' PAIRED=1 TEST=0 MODES=auto ARGS=--fwd-only ITERS=12 \
  SHAPES=1024x65536,2048x65536,512x262144,300x65536,1000x100000 \
  F32_SHAPES=1024x65536,2048x32768 bash tools/kerneldev/compare.sh > $OUT/compare.txt 2>&1
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base head > $OUT/pair_table.txt 2>&1
D=$(mktemp -d); tar -C $D -xJf gpu_dev_pack/builds.tar.xz
/usr/bin/time -f "%e s" timeout 150 $D/xp/test_cuda --wide-fwd > $OUT/test_wide_xp.log 2>&1; echo "xp test_cuda --wide-fwd rc=$?"
grep -E "cases|graph|FAIL" $OUT/test_wide_xp.log | cut -c1-200 | tail -12
cd $OUT && tar czf logs.tgz *.log && rm -f *.log; cat pair_table.txt
