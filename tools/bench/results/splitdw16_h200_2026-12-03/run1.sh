#!/bin/bash
# The split-row backward's fp32 partial-dw rows as 16-byte stores (merged as b9247ef), one device call:
# gpu_dev_pack/sd/builds.tar.xz = bench_modes of `hf` (main fe56678's kernels, sm_90a) and `sd` (main +
# the change), sd's test_cuda, and `p80`'s test_cuda (main + the change built for compute_80 only: PTX
# that the driver JIT-compiles on the H200, the plan at cc 8.0). test_cuda --quick of sd and of p80,
# then AUTO's backward (bench_modes --bwd, cold, 30 iterations) in the order hf sd sd hf
# (tools/kerneldev/compare.sh PAIRED=1) on shapes the plan gives the split-row kernel.
set -u
D=/tmp/devbuilds_sd; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/sd/builds.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
for t in sd p80; do
  s=$(date +%s); timeout 230 $D/$t/test_cuda --quick > $OUT/test_${t}_quick.txt 2>&1; rc=$?
  echo "test_cuda $t --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_${t}_quick.txt)"
  grep -m6 "FAIL" $OUT/test_${t}_quick.txt | cut -c1-200; gzip -f $OUT/test_${t}_quick.txt
done
date -u +%T
DEV_DIR=$D VARIANTS="hf sd" PAIRED=1 TEST=0 TAR_LOGS=1 MODES=auto ITERS=30 ARGS=--bwd \
  SHAPES=16x215342,2x260444,16x30000,64x131072,1024x65536,4096x32768,512x262144,1x353166 \
  F32_SHAPES=1279x20408,9384x11020,180x577174,16x98304 F32_FUSED_SHAPES=9384x11020,180x577174,16x98304 \
  bash tools/kerneldev/compare.sh > $OUT/compare.txt 2>&1
date -u +%T
tail -40 $OUT/compare.txt
