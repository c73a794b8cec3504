set -u
W=/tmp/r29; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpu.txt
t0=$(date +%s); timeout 130 gpu_dev/w94/bin/test_cuda --quick > $W/q94.log 2>&1; echo "quick rc=$? $(tail -1 $W/q94.log) $(( $(date +%s)-t0 ))s"; grep -E "^FAIL" $W/q94.log | head -3 | cut -c1-250; grep -E "ran fwd_warp|two rows a warp|sub-vector" $W/q94.log
SF=120000x140,60000x212,30000x318,9000x100,250000x86,3000x196,80000x270,500000x68,40000x110,58551x294
BF="python3 tools/bench/bench.py --inputs cold --seed 51 --providers fusednorm:auto --time-budget 25 --dtypes bf16,fp16 --ops fwd --shapes $SF"
i=0; for v in w93 w94 w94 w93; do i=$((i+1)); FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so timeout 35 $BF --out $W/f_${v}_$i > $W/f_${v}_$i.log 2>&1; echo "fwd $v $i rc=$? $(date -u +%T)"; done
for d in $W/f_*; do [ -d $d ] && gzip -c $d/bench.json > $d.json.gz; done
cd /tmp && tar czf $OUT/r29.tgz r29/*.json.gz r29/*.log r29/gpu.txt
