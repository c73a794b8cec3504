set -u
W=/tmp/r20; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u +%T
pip install --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl > /dev/null 2>&1; echo "liger rc=$?"
S="python3 tools/bench/bench.py --sweep 200 --seed 20261126 --sweep-max-elems 268435456 --inputs cold --providers fusednorm:auto --time-budget 60"
i=0; for v in g90v w91; do i=$((i+1)); FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so timeout 90 $S --out $W/s_${v}_$i > $W/s_${v}_$i.log 2>&1; echo "sweep $v rc=$? $(date -u +%T)"; done
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site FUSEDNORM_LIBRARY=$PWD/gpu_dev/w91/lib/libfusednorm_ops.so
P="python3 tools/bench/bench.py --inputs cold --seed 21 --providers fusednorm:auto,torch,compile,liger --time-budget 50"
timeout 60 $P --dtypes fp16 --ops fwd --shapes 58551x295,8x301,11x52 --out $W/p_fp16 > $W/p_fp16.log 2>&1; echo "peers fp16 rc=$? $(date -u +%T)"
timeout 60 $P --dtypes bf16 --ops fwd --shapes 5265x142,767x198,38x365,5x114 --out $W/p_bf16 > $W/p_bf16.log 2>&1; echo "peers bf16 rc=$? $(date -u +%T)"
timeout 40 $P --dtypes bf16 --ops add_fwd --shapes 157x52 --out $W/p_bf16a > $W/p_bf16a.log 2>&1; echo "peers bf16 add rc=$? $(date -u +%T)"
timeout 50 $P --dtypes fp32 --ops fwd --shapes 157281x190,20750x89 --out $W/p_fp32 > $W/p_fp32.log 2>&1; echo "peers fp32 rc=$? $(date -u +%T)"
for d in $W/s_* $W/p_*; do [ -d $d ] && gzip -c $d/bench.json > $d.json.gz; done
cd /tmp && tar czf $OUT/r20.tgz r20/*.json.gz r20/*.log
grep -h -E "^\| (fp16|bf16|fp32) " $W/p_*/bench.md 2>/dev/null | head -40
