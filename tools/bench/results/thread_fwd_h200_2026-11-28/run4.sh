set -u
W=/tmp/r4; rm -rf $W; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $W/gpu.txt
t0=$(date +%s); gpu_dev/fin/bin/test_cuda --quick > $W/tq.log 2>&1; echo "test_cuda --quick rc=$? $(tail -1 $W/tq.log) $(( $(date +%s)-t0 ))s" | tee $W/tq.txt
grep -E "^FAIL|launches ran fwd_thread" $W/tq.log | head -12
S=405489x7,700000x7,450000x5,900000x5,250000x6,600000x6
B="python3 tools/bench/bench.py --dtypes bf16,fp16 --ops fwd,add_fwd --inputs cold --seed 7 --shapes $S --providers fusednorm:auto --time-budget 60"
for v in old fin fin old; do k=$([ -d $W/${v}1 ] && echo 2 || echo 1); FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so $B --out $W/${v}$k > $W/${v}$k.log 2>&1; echo "$v$k rc=$? $(date -u +%T)"; done
tar czf $OUT/r4.tgz -C /tmp r4
