set -u
W=/tmp/r26; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpu.txt
SF=3000x77,6000x150,12000x333,20000x97,50000x181,90000x260,250000x140,500000x200,5601x92,5265x142,58551x295,30000x450,70000x400,9000x500,3000x40,6000x59,25000x75,40000x110,7000x49,100000x59,300000x71,600000x93,1500x200,20750x89,40000x200,150000x170,400000x300,10000x70,18000x120,2500x100,200000x55,12000x40,250000x90
BF="python3 tools/bench/bench.py --inputs cold --seed 41 --providers fusednorm:auto --time-budget 75 --dtypes bf16,fp16,fp32 --ops fwd,add_fwd --shapes $SF"
i=0; for v in w91 w93 w93 w91; do i=$((i+1)); FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so timeout 110 $BF --out $W/f_${v}_$i > $W/f_${v}_$i.log 2>&1; echo "fwd $v $i rc=$? $(date -u +%T)"; done
t0=$(date +%s); timeout 200 gpu_dev/w93/bin/test_cuda --quick > $W/q93.log 2>&1; echo "quick rc=$? $(tail -1 $W/q93.log) $(( $(date +%s)-t0 ))s"; grep -E "^FAIL" $W/q93.log | head -3; grep -E "ran fwd_warp|two rows a warp" $W/q93.log
for d in $W/f_*; do [ -d $d ] && gzip -c $d/bench.json > $d.json.gz; done
cd /tmp && tar czf $OUT/r26.tgz r26/*.json.gz r26/*.log r26/gpu.txt
