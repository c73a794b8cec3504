#!/bin/bash
# Run on the H200 2026-12-03 18:26 UTC (README.md "run2"):
# run1.sh's grid through bench.py, the harness AUTO's rules are set with (GPU time only: the GPU is
# parked on a spin while the CPU enqueues), cold and hot, AUTO beside both forced modes.
#   LIBPACK=/tmp/lib.tar.xz bash run2.sh      (an op library packed as in tools/bench/README.md)
set -u
mkdir -p gpu_dev/r33 && tar -C gpu_dev/r33 -xJf ${LIBPACK:-gpu_dev/libpack/lib.tar.xz} || exit 1
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1 FUSEDNORM_LIBRARY=$PWD/gpu_dev/r33/lib/libfusednorm_ops.so
S=""
for m in 66 132 230 256 400 528 660; do for n in 37 59 64 99 100 127 128 153 201 255 256; do S="$S${S:+,}${m}x$n"; done; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
timeout 500 python3 tools/bench/bench.py --inputs both --dtypes bf16,fp16,fp32 --ops bwd,add_bwd --shapes $S \
  --providers fusednorm:auto,fusednorm:persistent,fusednorm:row_packed --seed 20261203 --time-budget 470 \
  --out /tmp/cut > /tmp/cut.log 2>&1
echo "rc=$? $(date -u +%T)"; tail -3 /tmp/cut.log
tar czf $OUT/cut.tgz -C /tmp cut cut.log
