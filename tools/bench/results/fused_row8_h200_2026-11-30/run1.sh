#!/bin/bash
# The lean backward at 8 slots a thread with the fused add (dw in shared memory) against the
# kernels AUTO ran before (f32: the persistent generic kernel, multi_wave_reload; 16-bit: the
# split-row or cluster kernel, wide), forced modes in one bench_modes process, cold; the plain
# 16-bit instance with dw in shared memory (variant dw16) against dw in registers (fr8); then
# fr8's test_cuda --quick. Tarred to $OUT.
# Device tool: carry=["gpu_dev/fr8", "gpu_dev/dw16/bench_modes"].
O=${OUT:-/tmp}; W=/tmp/r1; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
F32=8x11020,66x11020,132x8200,132x11020,132x16384,264x11020,400x12288,1000x8200,1000x16384,4096x11020,4096x16384,9384x11020,9384x8200
B16=66x16400,132x16400,132x24576,264x20480,400x16400,400x24576,1000x20480,1000x24576,4096x16400,4096x24576,2000x18432
{
  echo "### fr8 f32 fused"; gpu_dev/fr8/bench_modes --dtype=f32 --fused --bwd --modes=auto,persistent,multi_wave_reload,wide --shapes=$F32 --iters=30
  for d in bf16 f16; do
    echo "### fr8 $d fused"; gpu_dev/fr8/bench_modes --dtype=$d --fused --bwd --modes=auto,persistent,wide --shapes=$B16 --iters=30
  done
} > $W/fused.log 2>&1; echo "fused rc=$?"
date -u
P16=132x16400,264x20480,400x16400,400x24576,1000x20480,1000x24576,4096x16400,4096x24576
{
  for b in fr8 dw16 fr8; do
    echo "### $b bf16 plain"; gpu_dev/$b/bench_modes --dtype=bf16 --bwd --modes=auto,persistent --shapes=$P16 --iters=30
  done
} > $W/plain16.log 2>&1; echo "plain16 rc=$?"
date -u
timeout 220 gpu_dev/fr8/test_cuda --quick > $W/test_cuda_quick.log 2>&1; echo "test_cuda quick rc=$?"
grep -E "FAIL|runs failed|eight slots" $W/test_cuda_quick.log | head -12
tar czf $O/run1.tgz -C $W .
