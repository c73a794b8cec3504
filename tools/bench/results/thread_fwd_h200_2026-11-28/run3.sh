set -u
W=/tmp/r3; rm -rf $W; mkdir -p $W
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl 2>/dev/null
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $W/gpu.txt
S=1025612x1,209133x1,86289x1,108860x2,486416x3,33545x5,12785x7,395x7,65536x6,1048576x7,300007x7,4096x1,2500x2,65536x4,1048576x4,2000000x3
B="python3 tools/bench/bench.py --dtypes bf16,fp16,fp32 --ops fwd,add_fwd --inputs cold --seed 7 --shapes $S"
for v in old fin; do FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so $B --providers fusednorm:auto --time-budget 100 --out $W/${v}1 > $W/${v}1.log 2>&1; echo "$v rc=$? $(date -u +%T)"; done
for v in fin old; do FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so $B --providers fusednorm:auto --time-budget 100 --out $W/${v}2 > $W/${v}2.log 2>&1; echo "$v rc=$? $(date -u +%T)"; done
FUSEDNORM_LIBRARY=$PWD/gpu_dev/fin/lib/libfusednorm_ops.so $B --providers compile,liger,torch --time-budget 200 --out $W/peers > $W/peers.log 2>&1; echo "peers rc=$? $(date -u +%T)"
( timeout 150 compute-sanitizer --tool racecheck gpu_dev/fin/bin/test_cuda --quick --filter="N=7 x=bf16" > $W/rc.log 2>&1; echo "racecheck (N=7 bf16) rc=$? $(grep 'RACECHECK SUMMARY' $W/rc.log | tail -1) $(tail -1 $W/rc.log)" )
( timeout 100 gpu_dev/fin/bin/test_cuda --quick --filter="N=7 " > $W/t7.log 2>&1; echo "test_cuda --quick N=7 rc=$? $(tail -1 $W/t7.log)" )
tar czf $OUT/r3.tgz -C /tmp r3
