set -u
W=/tmp/r1; rm -rf $W; mkdir -p $W
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl 2>/dev/null
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $W/gpu.txt
t0=$(date +%s); gpu_dev/new/bin/test_cuda --quick > $W/tq.log 2>&1; echo "test_cuda --quick rc=$? $(tail -1 $W/tq.log) $(( $(date +%s)-t0 ))s" | tee $W/tq.txt
grep -E "^FAIL|launches ran fwd_thread" $W/tq.log | head -20
S=1025612x1,209133x1,86289x1,108860x2,486416x3,33545x5,12785x7,395x7,4096x3,65536x6,1048576x7,116265x1,300x5
B="python3 tools/bench/bench.py --dtypes bf16,fp16,fp32 --ops fwd,add_fwd --inputs cold --seed 7 --shapes $S"
for v in old new; do FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so $B --providers fusednorm:auto --time-budget 100 --out $W/${v}1 > $W/${v}1.log 2>&1; echo "$v rc=$? $(date -u +%T)"; done
for v in new old; do FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so $B --providers fusednorm:auto --time-budget 100 --out $W/${v}2 > $W/${v}2.log 2>&1; echo "$v rc=$? $(date -u +%T)"; done
FUSEDNORM_LIBRARY=$PWD/gpu_dev/new/lib/libfusednorm_ops.so $B --providers compile,liger,torch --time-budget 200 --out $W/peers > $W/peers.log 2>&1; echo "peers rc=$? $(date -u +%T)"
tar czf $OUT/r1.tgz -C /tmp r1
python3 tools/bench/compare.py $W/old1,$W/old2 $W/new1,$W/new2 --labels old,new 2>&1 | tail -40
