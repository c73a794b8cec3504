#!/bin/bash
# Call 6 (carry=["gpu_dev_pack"]): AUTO, paired, of four builds on the wide forward's shapes:
#   base  HEAD's kernels
#   rx    the cluster's start barrier relaxed (barrier.cluster.arrive.relaxed after
#         fence.mbarrier_init), nothing else
#   pp4   rx + the staged slots' weight pieces loaded one batch ahead (the 4-slot instance only)
#   pall  rx + the register slots' weight pieces loaded before the stores + the batch-ahead pieces
#         in every instance without a staged weight or a head-split
set -u
DEV_TAR=gpu_dev_pack/builds.tar.xz VARIANTS='base rx pp4 pall' PAIRED=1 TEST=0 MODES=auto ARGS=--fwd-only ITERS=10 \
  SHAPES=256x1048576,64x1048576,100x1048576,8x1048576,32x524288,300x700000,17x262144,64x196608,24x65536,1024x65536,512x262144 \
  F32_SHAPES=128x524288,256x500000,64x262144,1024x65536 bash tools/kerneldev/compare.sh > $OUT/compare.txt 2>&1
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base base > $OUT/pair_table.txt 2>&1
cd $OUT && gzip -9 paired.log && tar czf logs.tgz *.log && rm -f *.log; cat pair_table.txt
