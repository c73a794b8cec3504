set -u
W=/tmp/r5; rm -rf $W; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $W/gpu.txt
S=395x7,12785x7,33545x5,65536x6,300007x7,1048576x7,366740x15,5601x92,247656x26
B="python3 tools/bench/bench.py --dtypes bf16,fp16 --ops fwd,add_fwd --inputs cold --seed 7 --shapes $S --providers fusednorm:auto --time-budget 40"
for v in old fin; do FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so $B --out $W/${v}1 > $W/${v}1.log 2>&1; echo "$v rc=$? $(date -u +%T)"; done
tar czf $OUT/r5.tgz -C /tmp r5
t0=$(date +%s); timeout 100 gpu_dev/fin/bin/test_cuda --quick > $W/tq.log 2>&1; echo "test_cuda --quick rc=$? $(tail -1 $W/tq.log) $(( $(date +%s)-t0 ))s" | tee $W/tq.txt
grep -E "^FAIL|launches ran fwd_thread" $W/tq.log | head -12
tar czf $OUT/r5.tgz -C /tmp r5
