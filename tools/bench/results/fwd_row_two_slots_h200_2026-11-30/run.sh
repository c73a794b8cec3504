#!/bin/bash
# (carry=["gpu_dev_pack"]): AUTO, paired, `head` (dcbacf4's kernels) against `tc2`
# (FN_TARGET_CACHE=2: the one-row-a-CTA forward `fwd_row` at two slots a thread, twice the
# threads, as torch.compile's kernel runs hidden sizes: 512 threads at 8192 bf16 columns).
set -u
DEV_TAR=gpu_dev_pack/builds.tar.xz VARIANTS='head tc2' PAIRED=1 TEST=0 MODES=auto ARGS=--fwd-only ITERS=20 \
  SHAPES=16384x8192,16384x7168,16384x5120,16384x4096,32768x4096,32768x2880,8192x8192,4096x4096,4096x16384,65536x1024 \
  F32_SHAPES=16384x4096,8192x8192,4096x4096 bash tools/kerneldev/compare.sh > $OUT/compare.txt 2>&1
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base head > $OUT/pair_table.txt 2>&1
cd $OUT && tar czf logs.tgz *.log && rm -f *.log; cat pair_table.txt
