#!/bin/bash
# Call 1 (device tool, carry=["gpu_dev_pack"]: builds `base`, HEAD's kernels, and `t256`,
# FN_FWD_WIDE_MAX_THREADS=256 FN_FWD_WIDE_MIN_CTAS=4: the wide forward's CTAs of 256 threads, four
# an SM): Nsight Compute of AUTO's wide and hidden-size forwards (base), then AUTO of base against
# t256, paired.
set -u
D=$(mktemp -d); tar -C $D -xJf gpu_dev_pack/builds.tar.xz || exit 1
mkdir -p gpu_dev && ln -sfn $D/base gpu_dev/base
BUILD=base bash tools/kerneldev/ncu_fwd.sh "w65k:--shapes=1024x65536 --modes=auto" \
  "w262k:--shapes=512x262144 --modes=auto" "w1m:--shapes=256x1048576 --modes=auto" \
  "add32k:--shapes=4096x32768 --fused --modes=auto" "h8k:--shapes=16384x8192 --modes=auto" \
  "f32w65k:--dtype=f32 --shapes=1024x65536 --modes=auto" > $OUT/ncu_summary.txt 2>&1
DEV_TAR=gpu_dev_pack/builds.tar.xz VARIANTS='base t256' PAIRED=1 TEST=0 MODES=auto ARGS=--fwd-only \
  SHAPES=1024x65536,2048x65536,512x262144,256x1048576,64x1048576,300x100000,4096x32768 \
  F32_SHAPES=1024x65536,256x500000,2048x32768 bash tools/kerneldev/compare.sh > $OUT/compare.txt 2>&1
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base base > $OUT/pair_table.txt 2>&1
cd $OUT && tar czf logs.tgz *.log ncu_*.txt && rm -f *.log ncu_w* ncu_add* ncu_h* ncu_f32*
grep -E "^==|Duration|DRAM Throughput|Achieved Occupancy|Registers Per" ncu_summary.txt | head -40; cat pair_table.txt
