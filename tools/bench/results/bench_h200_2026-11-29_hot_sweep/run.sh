#!/bin/bash
# the 200-case sweep, hot inputs, AUTO (c4: main 315e840 with the row-packed cut at 4 rows an SM, the same plans as 5 on these 200 cases) against torch, torch.compile, Liger and Quack in one run
set -u
QP=$(bash tools/bench/quack_on_gpu.sh) || exit 1
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl 2>/dev/null
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site:$QP FUSEDNORM_LIBRARY=$PWD/gpu_dev/h1/lib/libfusednorm_ops.so PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 500 python3 tools/bench/bench.py --sweep 200 --seed 20261126 --sweep-max-elems 268435456 --inputs hot \
  --providers fusednorm:auto,torch,compile,liger,quack --time-budget 440 --out /tmp/hot > /tmp/hot.log 2>&1
echo "rc=$? $(date -u +%T)"; tail -4 /tmp/hot.log
tar czf $OUT/hot.tgz -C /tmp hot hot.log
