set -u
W=/tmp/r27; mkdir -p $W
date -u +%T
pip install --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl > /dev/null 2>&1; echo "liger rc=$?"
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site PYTHONUNBUFFERED=1 FUSEDNORM_LIBRARY=$PWD/gpu_dev/w93/lib/libfusednorm_ops.so
P="python3 tools/bench/bench.py --inputs cold --seed 42 --providers fusednorm:auto,torch,compile,liger --time-budget 60"
timeout 100 $P --dtypes fp16 --ops fwd --shapes 58551x295,5601x92,250000x140,10000x70,400000x300,150000x170 --out $W/p_fp16 > $W/p_fp16.log 2>&1; echo "peers fp16 rc=$? $(date -u +%T)"
timeout 60 $P --dtypes fp32 --ops fwd --shapes 300000x71,7000x49 --out $W/p_fp32 > $W/p_fp32.log 2>&1; echo "peers fp32 rc=$? $(date -u +%T)"
for d in $W/p_*; do [ -d $d ] && gzip -c $d/bench.json > $d.json.gz; done
cd /tmp && tar czf $OUT/r27.tgz r27/*.json.gz r27/*.log
grep -h -E "^\| (fp16|bf16|fp32) " $W/p_*/bench.md 2>/dev/null | head -20
