#!/bin/bash
# Call 8 (carry=["gpu_dev_pack"]): the few-row wide forwards (one wave, 10-40 us) where call 7 put
# pp4b 2-11% behind base: base, rx (the relaxed start barrier only) and pp4b, paired, more runs.
set -u
DEV_TAR=gpu_dev_pack/builds.tar.xz VARIANTS='base rx pp4b' PAIRED=1 TEST=0 MODES=auto ARGS=--fwd-only ITERS=40 \
  SHAPES=24x65536,48x65536,64x196608,32x524288,8x1048576,17x262144,16x131072 \
  F32_SHAPES=64x262144,24x65536,32x131072 bash tools/kerneldev/compare.sh > $OUT/compare.txt 2>&1
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base base > $OUT/pair_table.txt 2>&1
cd $OUT && tar czf logs.tgz *.log && rm -f *.log; cat pair_table.txt
