set -u
W=/tmp/r22; mkdir -p $W
export PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export LD_LIBRARY_PATH=$PWD/gpu_dev/w91/lib
t0=$(date +%s); timeout 400 gpu_dev/fwr/fwr 77 > $W/fwr.txt 2>&1; echo "fwr rc=$? $(( $(date +%s)-t0 ))s"
pip install --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl > /dev/null 2>&1; echo "liger rc=$?"
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site FUSEDNORM_LIBRARY=$PWD/gpu_dev/w91/lib/libfusednorm_ops.so
P="python3 tools/bench/bench.py --inputs cold --seed 22 --providers fusednorm:auto,torch,compile,liger --time-budget 80"
timeout 150 $P --dtypes fp16 --ops fwd,add_fwd --shapes 58551x295,131072x81,32768x223,5601x92 --out $W/p16 > $W/p16.log 2>&1; echo "peers 16 rc=$? $(date -u +%T)"
for d in $W/p*; do [ -d $d ] && gzip -c $d/bench.json > $d.json.gz; done
cd /tmp && tar czf $OUT/r22.tgz r22/*.json.gz r22/*.log r22/fwr.txt
awk -F'|' '{print $1"|"$3"|"$5"|"$8}' $W/fwr.txt | head -150
grep -h -E "^\| (fp16|bf16|fp32) " $W/p16/bench.md 2>/dev/null | head -40
