set -u
W=$OUT/r6; mkdir -p $W
pip install --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl > /dev/null 2>&1
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site PYTHONUNBUFFERED=1
date -u +%T
for s in "fp32 285x48879 fwd" "bf16 140x369199 add_fwd"; do set -- $s
FUSEDNORM_LIBRARY=$PWD/gpu_dev/o90/lib/libfusednorm_ops.so timeout 60 python3 tools/bench/bench.py --dtypes $1 --ops $3 --inputs cold --seed 20261126 --shapes $2 --providers fusednorm:auto --time-budget 40 --out $W/old_$1 > $W/old_$1.log 2>&1; echo "old $s rc=$?"
FUSEDNORM_LIBRARY=$PWD/gpu_dev/n90b/lib/libfusednorm_ops.so timeout 150 python3 tools/bench/bench.py --dtypes $1 --ops $3 --inputs cold --seed 20261126 --shapes $2 --providers fusednorm:auto,torch,compile,liger --time-budget 120 --out $W/new_$1 > $W/new_$1.log 2>&1; echo "new $s rc=$?"
grep "fastest" $W/old_$1.log $W/new_$1.log | cut -c1-300
done
cd $W && tar czf json.tgz */bench.json && rm -rf */
