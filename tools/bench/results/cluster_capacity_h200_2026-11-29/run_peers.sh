#!/bin/bash
# The few-wide-row forwards whose plans count the resident clusters, against every peer, cold and
# hot (bench.py), the library of this change (gpu_dev/c2/lib, sm_90a); Quack staged by
# quack_on_gpu.sh.
set -u
export PYTHONPATH="$(bash tools/bench/quack_on_gpu.sh):$PWD/shim/python:${PYTHONPATH:-}" || exit 1
export PYTHONUNBUFFERED=1
pip install --no-deps --no-index --quiet --target /tmp/liger .whl/liger_kernel-*.whl 2>/dev/null && export PYTHONPATH=/tmp/liger:$PYTHONPATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
FUSEDNORM_LIBRARY=$PWD/gpu_dev/c2/lib/libfusednorm_ops.so timeout 420 python3 tools/bench/bench.py --inputs both \
  --dtypes bf16,fp16 --ops fwd --shapes 16x215342,16x215344,64x131072,32x131072,64x131073 \
  --providers fusednorm:auto,torch,compile,liger,quack --seed 20261129 --time-budget 400 --out $OUT/peers > $OUT/peers.log 2>&1 || echo "bench rc $?"
date -u
tail -30 $OUT/peers/bench.md
