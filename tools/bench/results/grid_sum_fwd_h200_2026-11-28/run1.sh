set -u
W=$OUT/r1; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $W/gpu.txt
t0=$(date +%s); timeout 200 gpu_dev/n80/bin/test_cuda --wide-fwd --quick > $W/w80q.log 2>&1; echo "n80 wide-fwd quick rc=$? $(tail -1 $W/w80q.log) $(( $(date +%s)-t0 ))s"
grep -E "^FAIL|grid sum|fallback" $W/w80q.log | head -8
t0=$(date +%s); timeout 100 gpu_dev/n90/bin/test_cuda --wide-fwd --quick > $W/w90q.log 2>&1; echo "n90 wide-fwd quick rc=$? $(tail -1 $W/w90q.log) $(( $(date +%s)-t0 ))s"
grep -E "^FAIL" $W/w90q.log | head -5
S=1x8192,4x8192,17x8192,40x8192,66x8192,100x8192,1x16384,4x16384,17x16384,40x16384,66x16384,100x16384,1x32768,4x32768,17x32768,40x32768,66x32768,100x32768,1x65536,4x65536,17x65536,40x65536,66x65536,100x65536,1x262144,4x262144,17x262144,40x262144,66x262144,100x262144,1x1048576,4x1048576,17x1048576,40x1048576
B="python3 tools/bench/bench.py --dtypes bf16,fp32 --ops fwd,add_fwd --inputs cold --seed 7 --shapes $S"
FUSEDNORM_LIBRARY=$PWD/gpu_dev/o80/lib/libfusednorm_ops.so timeout 110 $B --providers fusednorm:auto --time-budget 90 --out $W/o80 > $W/o80.log 2>&1; echo "o80 rc=$? $(date -u +%T)"
FUSEDNORM_LIBRARY=$PWD/gpu_dev/n80/lib/libfusednorm_ops.so timeout 200 $B --providers fusednorm:wide,fusednorm:multi_wave_reload,fusednorm:persistent --time-budget 180 --out $W/n80 > $W/n80.log 2>&1; echo "n80 rc=$? $(date -u +%T)"
tail -3 $W/n80.log
