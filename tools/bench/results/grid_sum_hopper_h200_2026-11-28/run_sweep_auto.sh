set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > /tmp/gpu.txt
for v in g90 n90b; do
FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so timeout 250 python3 tools/bench/bench.py --sweep 200 --seed 20261126 --sweep-max-elems 268435456 --inputs cold --providers fusednorm:auto --time-budget 220 --out /tmp/sw_$v > /tmp/sw_$v.log 2>&1
echo "$v rc=$? $(date -u +%T)"; tail -2 /tmp/sw_$v.log
done
cd /tmp && tar czf $OUT/sw.tgz gpu.txt sw_g90/bench.json sw_n90b/bench.json sw_g90.log sw_n90b.log; ls -la $OUT
