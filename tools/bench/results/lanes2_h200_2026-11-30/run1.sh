#!/bin/bash
# The lanes forward at two vectors a lane (plain rows of 33-64 whole aligned vectors, many rows)
# against the build before it (base: the row-pipelined row-packed kernel there): AUTO, forced
# row_packed and the lean kernel (multi_wave_cached), cold, bench_modes, base / new / base; then
# bench.py (fusednorm:auto, torch, torch.compile; hot and cold) on six of the shapes, and the new
# build's test_cuda --quick. Tarred to $OUT.
# Device tool: carry=["gpu_dev/base/bench_modes", "gpu_dev/lanes2"].
O=${OUT:-/tmp}; W=/tmp/r1; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B16=9000x264,9000x512,16384x320,16384x512,65536x264,65536x384,65536x448,65536x512,131072x320,131072x512,262144x264,262144x384,262144x512,300000x288
F32=9000x132,9000x256,16384x160,65536x132,65536x200,65536x256,131072x176,131072x256,262144x132,262144x256
for d in bf16 f16 f32; do
  S=$B16; [ $d = f32 ] && S=$F32
  for b in base lanes2 base; do
    echo "### $b $d"; gpu_dev/$b/bench_modes --dtype=$d --fwd-only --modes=auto,row_packed,multi_wave_cached --shapes=$S --iters=30
  done
done > $W/modes.log 2>&1; echo "modes rc=$?"
date -u
timeout 200 gpu_dev/lanes2/test_cuda --quick > $W/test_cuda_quick.log 2>&1; echo "test_cuda quick rc=$?"
grep -E "FAIL|runs failed|two vectors" $W/test_cuda_quick.log | head -12
export PYTHONPATH=$PWD/shim/python FUSEDNORM_LIBRARY=$PWD/gpu_dev/lanes2/lib/libfusednorm_ops.so PYTHONUNBUFFERED=1
timeout 280 python3 tools/bench/bench.py --shapes 131072x512,262144x384,65536x448,300000x288,65536x264 --dtypes bf16,fp16 \
  --ops fwd --inputs both --providers fusednorm:auto,torch,compile --out $W/bench_b16 > $W/bench_b16.log 2>&1; echo "bench b16 rc=$?"
timeout 150 python3 tools/bench/bench.py --shapes 131072x256,65536x200,262144x132 --dtypes fp32 \
  --ops fwd --inputs both --providers fusednorm:auto,torch,compile --out $W/bench_f32 > $W/bench_f32.log 2>&1; echo "bench f32 rc=$?"
date -u
tar czf $O/run1.tgz -C $W .
