# usage: bash gpu_dev/sw.sh A:B NAME BUDGET_S
set -u
QP=$(bash tools/bench/quack_on_gpu.sh) || exit 1
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl 2>/dev/null
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site:$QP FUSEDNORM_LIBRARY=$PWD/gpu_dev/fin/lib/libfusednorm_ops.so PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 tools/bench/bench.py --sweep 200 --seed 20261126 --sweep-max-elems 268435456 --sweep-range $1 --inputs cold --providers fusednorm:auto,torch,compile,liger,quack --time-budget $3 --out /tmp/$2 > /tmp/$2.log 2>&1
echo "rc=$? $(date -u +%T)"; tail -4 /tmp/$2.log
tar czf $OUT/$2.tgz -C /tmp $2 $2.log
