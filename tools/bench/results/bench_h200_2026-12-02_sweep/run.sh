#!/bin/bash
# The 200-case sweep (seed 20261126, as every sweep since 2026-11-28), hot and cold inputs, AUTO
# (the kernels of this folder's commit, sm_90a) against torch, torch.compile, Liger and Quack in one process per
# range: run.sh A:B (two calls: 0:70, 70:200), merged with bench.py --merge. Quack already unpacked
# on the warm machine by the suite's call; LIBPACK=/tmp/lib.tar.xz (the suite's), carry=[".whl"] (and, for SYNC=1,
# gpu_dev/h86pack: after the sweep, compute-sanitizer synccheck of test_cuda --wide-fwd --quick
# with CUDA_LAUNCH_BLOCKING=1 and device backtraces, the fault kernels/RESULTS.md "Known gaps" names).
set -u
R=${1:?range A:B}
QP=$(bash tools/bench/quack_on_gpu.sh) || exit 1
mkdir -p gpu_dev/r33 && tar -C gpu_dev/r33 -xJf ${LIBPACK:-gpu_dev/r33pack/lib.tar.xz} || exit 1
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl 2>/dev/null
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site:$QP FUSEDNORM_LIBRARY=$PWD/gpu_dev/r33/lib/libfusednorm_ops.so PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tag=both_${R/:/_}
timeout 480 python3 tools/bench/bench.py --sweep 200 --sweep-range $R --seed 20261126 --sweep-max-elems 268435456 \
  --inputs both --providers fusednorm:auto,torch,compile,liger,quack --time-budget 440 --out /tmp/$tag > /tmp/$tag.log 2>&1
echo "rc=$? $(date -u +%T)"; tail -4 /tmp/$tag.log
tar czf $OUT/$tag.tgz -C /tmp $tag $tag.log
if [ "${SYNC:-0}" = 1 ]; then
  xz -dc gpu_dev/h86pack/test_cuda.xz > /tmp/test_cuda && chmod +x /tmp/test_cuda
  CUDA_LAUNCH_BLOCKING=1 timeout 200 compute-sanitizer --tool synccheck --show-backtrace device --error-exitcode 3 \
    /tmp/test_cuda --wide-fwd --quick > /tmp/sync.log 2>&1
  echo "synccheck rc=$? $(date -u +%T)"; grep -E "FAIL|ERROR SUMMARY|cases,|Invalid|illegal|=========" /tmp/sync.log | head -40
  gzip -c /tmp/sync.log > $OUT/synccheck_widefwd_quick.log.gz
fi
