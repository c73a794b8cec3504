set -u
W=/tmp/r18; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpu.txt
t0=$(date +%s); timeout 200 gpu_dev/w90/bin/test_cuda --quick > $W/q.log 2>&1; echo "quick rc=$? $(tail -1 $W/q.log) $(( $(date +%s)-t0 ))s"; grep -E "^FAIL" $W/q.log | head -5; grep -E "launches ran fwd_warp" $W/q.log
SF=1x53,5x114,8x191,64x223,157x52,767x198,2111x295,4096x139,4096x191,4096x223,4096x89,5265x142,5601x92,20750x89,32768x295,32768x139,58551x295,157281x190,200000x223,274156x39,162158x81,1x255
SB=34x153,51x871,43x1750,171x69,902x29,1230x17,67x109,230x59,303x297,405x1363,617x178,942x44,24056x420,58478x576,2993x3332,606x2459,64x4096,8108x1041,1x6732
BF="python3 tools/bench/bench.py --inputs cold --seed 11 --providers fusednorm:auto --time-budget 70 --dtypes bf16,fp16,fp32 --ops fwd,add_fwd --shapes $SF"
BB="python3 tools/bench/bench.py --inputs cold --seed 12 --providers fusednorm:auto --time-budget 70 --dtypes bf16,fp16,fp32 --ops bwd,add_bwd --shapes $SB"
i=0; for v in g90v w90 w90 g90v; do i=$((i+1)); FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so timeout 90 $BF --out $W/f_${v}_$i > $W/f_${v}_$i.log 2>&1; echo "fwd $v $i rc=$? $(date -u +%T)"; done
i=0; for v in g90v w90 w90 g90v; do i=$((i+1)); FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so timeout 90 $BB --out $W/b_${v}_$i > $W/b_${v}_$i.log 2>&1; echo "bwd $v $i rc=$? $(date -u +%T)"; done
for d in $W/f_* $W/b_*; do [ -d $d ] && gzip -c $d/bench.json > $d.json.gz; done
cd /tmp && tar czf $OUT/r18.tgz r18/*.json.gz r18/*.log r18/gpu.txt
