set -u
W=$OUT/r7; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $W/gpu.txt
S=1x32768,2x32768,4x32768,8x32768,16x32768,33x32768,66x32768,1x65536,2x65536,4x65536,8x65536,16x65536,33x65536,66x65536,1x262144,2x262144,4x262144,8x262144,16x262144,33x262144,66x262144,1x736015,2x736015,4x736015,8x736015,16x736015,33x736015,1x1048576,2x1048576,4x1048576,8x1048576,16x1048576,33x1048576,16x215342,20x1025354
B="python3 tools/bench/bench.py --dtypes bf16,fp32 --ops fwd,add_fwd --inputs cold --seed 7 --shapes $S"
FUSEDNORM_LIBRARY=$PWD/gpu_dev/n90b/lib/libfusednorm_ops.so timeout 170 $B --providers fusednorm:auto --time-budget 150 --out $W/c90 > $W/c90.log 2>&1; echo "c90 rc=$? $(date -u +%T)"
FUSEDNORM_LIBRARY=$PWD/gpu_dev/h80/lib/libfusednorm_ops.so timeout 170 $B --providers fusednorm:wide --time-budget 150 --out $W/g80 > $W/g80.log 2>&1; echo "g80 rc=$? $(date -u +%T)"
tail -2 $W/c90.log $W/g80.log
cd $W && tar czf json.tgz */bench.json && rm -rf */; ls
