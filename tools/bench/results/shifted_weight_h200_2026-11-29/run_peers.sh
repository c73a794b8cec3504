#!/bin/bash
# The head-split forwards whose weight now comes as shifted blocks, against every peer, cold and hot
# (bench.py), the library of HEAD (gpu_dev/q1/lib); Quack staged by quack_on_gpu.sh.
set -u
export PYTHONPATH="$(bash tools/bench/quack_on_gpu.sh):$PWD/shim/python:${PYTHONPATH:-}" || exit 1
export PYTHONUNBUFFERED=1
pip install --no-deps --no-index --quiet --target /tmp/liger .whl/liger_kernel-*.whl 2>/dev/null && export PYTHONPATH=/tmp/liger:$PYTHONPATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
FUSEDNORM_LIBRARY=$PWD/gpu_dev/q1/lib/libfusednorm_ops.so timeout 400 python3 tools/bench/bench.py --inputs both \
  --dtypes bf16,fp16 --ops fwd --shapes 16x215342,201x34306,288x32390,18x25734,64x131073,45x215342,8x109347 \
  --providers fusednorm:auto,torch,compile,liger,quack --seed 20261129 --time-budget 380 --out $OUT/peers > $OUT/peers.log 2>&1 || echo "bench rc $?"
date -u
tail -40 $OUT/peers/bench.md
