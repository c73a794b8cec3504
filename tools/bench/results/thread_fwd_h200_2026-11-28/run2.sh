set -u
W=/tmp/r2; rm -rf $W; mkdir -p $W
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl 2>/dev/null
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $W/gpu.txt
t0=$(date +%s); gpu_dev/st/bin/test_cuda --quick > $W/tq.log 2>&1; echo "test_cuda --quick rc=$? $(tail -1 $W/tq.log) $(( $(date +%s)-t0 ))s" | tee $W/tq.txt
grep -E "^FAIL|launches ran fwd_thread" $W/tq.log | head -20
S=1025612x1,209133x1,86289x1,108860x2,486416x3,33545x5,12785x7,395x7,4096x3,65536x6,1048576x7,116265x1,300x5
B="python3 tools/bench/bench.py --dtypes bf16,fp16,fp32 --ops fwd,add_fwd --inputs cold --seed 7 --shapes $S"
for v in old st; do FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so $B --providers fusednorm:auto --time-budget 100 --out $W/${v}1 > $W/${v}1.log 2>&1; echo "$v rc=$? $(date -u +%T)"; done
for v in st old; do FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so $B --providers fusednorm:auto --time-budget 100 --out $W/${v}2 > $W/${v}2.log 2>&1; echo "$v rc=$? $(date -u +%T)"; done



( timeout 150 compute-sanitizer --tool racecheck gpu_dev/st/bin/test_cuda --quick --filter="M=2049 " > $W/rc.log 2>&1; echo "racecheck rc=$? $(grep 'RACECHECK SUMMARY\|ERROR SUMMARY' $W/rc.log | tail -1) $(tail -1 $W/rc.log)" )
( timeout 150 compute-sanitizer --tool memcheck gpu_dev/st/bin/test_cuda --quick --filter="M=2049 " > $W/mc.log 2>&1; echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $W/mc.log | tail -1) $(tail -1 $W/mc.log)" )
tar czf $OUT/r2.tgz -C /tmp r2
