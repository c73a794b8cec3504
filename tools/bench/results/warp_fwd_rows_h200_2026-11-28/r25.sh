set -u
W=/tmp/r25; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpu.txt
SF=3000x77,6000x150,12000x333,20000x97,50000x181,90000x260,250000x140,500000x200,5601x92,5265x142,58551x295,30000x450,70000x400,9000x500,3000x40,6000x59,25000x75,40000x110,7000x49,100000x59,300000x71,600000x93,1500x200,20750x89
BF="python3 tools/bench/bench.py --inputs cold --seed 31 --providers fusednorm:auto --time-budget 75 --dtypes bf16,fp16,fp32 --ops fwd,add_fwd --shapes $SF"
i=0; for v in w91 w92 w92 w91; do i=$((i+1)); FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so timeout 100 $BF --out $W/f_${v}_$i > $W/f_${v}_$i.log 2>&1; echo "fwd $v $i rc=$? $(date -u +%T)"; done
pip install --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl > /dev/null 2>&1; echo "liger rc=$?"
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site FUSEDNORM_LIBRARY=$PWD/gpu_dev/w92/lib/libfusednorm_ops.so
P="python3 tools/bench/bench.py --inputs cold --seed 32 --providers fusednorm:auto,torch,compile,liger --time-budget 60"
timeout 90 $P --dtypes fp16 --ops fwd --shapes 58551x295,5601x92,131072x81,32768x223 --out $W/p_fp16 > $W/p_fp16.log 2>&1; echo "peers fp16 rc=$? $(date -u +%T)"
timeout 60 $P --dtypes bf16 --ops fwd --shapes 5265x142,250000x140 --out $W/p_bf16 > $W/p_bf16.log 2>&1; echo "peers bf16 rc=$? $(date -u +%T)"
timeout 60 $P --dtypes fp32 --ops fwd --shapes 20750x89,300000x71 --out $W/p_fp32 > $W/p_fp32.log 2>&1; echo "peers fp32 rc=$? $(date -u +%T)"
for d in $W/f_* $W/p_*; do [ -d $d ] && gzip -c $d/bench.json > $d.json.gz; done
cd /tmp && tar czf $OUT/r25.tgz r25/*.json.gz r25/*.log r25/gpu.txt
grep -h -E "^\| (fp16|bf16|fp32) " $W/p_*/bench.md 2>/dev/null | head -20
