#!/bin/bash
# The 200-case sweep, hot and cold inputs, AUTO (main 2d27291's kernels, sm_90a) against torch,
# torch.compile, Liger and Quack in one process per range: run.sh A:B (three calls: 0:70, 70:140,
# 140:200), merged here with bench.py --merge.
set -u
R=${1:?range A:B}
QP=$(bash tools/bench/quack_on_gpu.sh) || exit 1
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl 2>/dev/null
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site:$QP FUSEDNORM_LIBRARY=$PWD/gpu_dev/h29/lib/libfusednorm_ops.so PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tag=both_${R/:/_}
timeout 575 python3 tools/bench/bench.py --sweep 200 --sweep-range $R --seed 20261126 --sweep-max-elems 268435456 \
  --inputs both --providers fusednorm:auto,torch,compile,liger,quack --time-budget 530 --out /tmp/$tag > /tmp/$tag.log 2>&1
echo "rc=$? $(date -u +%T)"; tail -4 /tmp/$tag.log
tar czf $OUT/$tag.tgz -C /tmp $tag $tag.log
