set -u
W=$OUT/r4; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u +%T
S=$(for m in 140 200 288 400 530; do for n in 8195 12288 16195 16390 24576 32390 49000 65536; do printf "%sx%s," $m $n; done; done); S=${S%,}
FUSEDNORM_LIBRARY=$PWD/gpu_dev/n90/lib/libfusednorm_ops.so timeout 280 python3 tools/bench/bench.py --dtypes fp16,fp32 --ops fwd,add_fwd --inputs cold --seed 7 --shapes $S --providers fusednorm:auto,fusednorm:wide --time-budget 250 --out $W/a > $W/a.log 2>&1; echo "rc=$? $(date -u +%T)"
tail -2 $W/a.log; cd $W && tar czf a.tgz a/bench.json && rm -rf a
