#!/bin/bash
# The suite (bench.py's default shapes: bf16 17, fp16 and fp32 8 each, 4 ops), hot and cold inputs,
# AUTO (the kernels of this folder's commit, sm_90a) against torch, torch.compile, Liger and Quack in one run.
# Device tool: the op library and the kernels' library beside it, xz-packed (gpu_dev/r33pack), copied
# to /tmp by the call before (tools/bench/results/tiny_bwd_lean_h200_2026-12-02/run1.sh); .quack parts
# aa, ab and ac staged by three calls (tools/bench/README.md "Quack"), each
#   run(command="bash tools/bench/quack_on_gpu.sh --stage", carry=[".quack/quack_site.tar.xz.part-aX", ".quack/SHA256SUMS"])
# then this: LIBPACK=/tmp/lib.tar.xz, carry=[".quack/quack_site.tar.xz.part-ad", ".quack/SHA256SUMS", ".whl"].
set -u
QP=$(bash tools/bench/quack_on_gpu.sh) || exit 1
mkdir -p gpu_dev/r33 && tar -C gpu_dev/r33 -xJf ${LIBPACK:-gpu_dev/r33pack/lib.tar.xz} || exit 1
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl 2>/dev/null
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site:$QP FUSEDNORM_LIBRARY=$PWD/gpu_dev/r33/lib/libfusednorm_ops.so PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 500 python3 tools/bench/bench.py --inputs both --providers fusednorm:auto,torch,compile,liger,quack \
  --seed 20261129 --time-budget 440 --out /tmp/suite > /tmp/suite.log 2>&1
echo "rc=$? $(date -u +%T)"; tail -12 /tmp/suite.log
tar czf $OUT/suite.tgz -C /tmp suite suite.log
