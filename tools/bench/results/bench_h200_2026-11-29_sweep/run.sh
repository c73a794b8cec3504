#!/bin/bash
# the 200-case sweep, cold, AUTO (main c215541 kernels) against torch, torch.compile, Liger and Quack in one run
set -u
QP=$(bash tools/bench/quack_on_gpu.sh) || exit 1
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl 2>/dev/null
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site:$QP FUSEDNORM_LIBRARY=$PWD/gpu_dev/fin/lib/libfusednorm_ops.so PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 540 python3 tools/bench/bench.py --sweep 200 --seed 20261126 --sweep-max-elems 268435456 --inputs cold \
  --providers fusednorm:auto,torch,compile,liger,quack --time-budget 480 --out /tmp/fin > /tmp/fin.log 2>&1
echo "rc=$? $(date -u +%T)"; tail -4 /tmp/fin.log
tar czf $OUT/fin.tgz -C /tmp fin fin.log
