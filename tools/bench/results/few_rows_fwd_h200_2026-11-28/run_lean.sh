set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
W=/tmp/w; rm -rf $W; mkdir -p $W; date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl 2>/dev/null
( gpu_dev/row1/bin/test_cuda --quick > $W/tq.log 2>&1; echo "test_cuda --quick rc=$? $(tail -1 $W/tq.log)" ) > $W/checks.txt 2>&1 &
P1=$!
LAT="10x5340,11x52,13x2557,14x2393,157x52,15x3818,188x4017,1x223,1x6108,1x918,2612x397,264x1214,277x29,38x365,3x6431,43x7921,53x1916,53x4591,5x114,767x198,7x2004,87x2006,8x301,9x4279,8x8192,14x2400,1x4096,64x2048,120x8192"
BW="102609x1358,3043x16190,47150x1425,7010x3114,1976x3226,3179x12873,8278x633,32768x2880,16384x8192,32768x4096"
run() { PYTHONPATH=$PYTHONPATH:/tmp/bench_site FUSEDNORM_LIBRARY=$PWD/gpu_dev/$2/lib/libfusednorm_ops.so python3 tools/bench/bench.py --dtypes $4 --ops fwd,add_fwd --inputs cold --seed 7 --providers $3 --shapes $5 --out $W/$1 > $W/$1.log 2>&1; echo "$1 rc=$? $(date -u +%T) $(grep -E 'measurements|FAIL' $W/$1.log | head -2)"; }
run lnew1 row1 fusednorm:auto bf16,fp16,fp32 $LAT
run lold1 new fusednorm:auto bf16,fp16,fp32 $LAT
run lnew2 row1 fusednorm:auto bf16,fp16,fp32 $LAT
run lold2 new fusednorm:auto bf16,fp16,fp32 $LAT
run bnew1 row1 fusednorm:auto bf16,fp32 $BW
run bold1 new fusednorm:auto bf16,fp32 $BW
run bnew2 row1 fusednorm:auto bf16,fp32 $BW
run bold2 new fusednorm:auto bf16,fp32 $BW
wait $P1
cat $W/checks.txt
cd $W && python3 $OLDPWD/tools/bench/compare.py lold1/bench.json,lold2/bench.json lnew1/bench.json,lnew2/bench.json --labels old,new --out lpaired.md | tail -3
python3 $OLDPWD/tools/bench/compare.py bold1/bench.json,bold2/bench.json bnew1/bench.json,bnew2/bench.json --labels old,new --out bpaired.md | tail -3
cd $OLDPWD
pr() { PYTHONPATH=$PYTHONPATH:/tmp/bench_site FUSEDNORM_LIBRARY=$PWD/gpu_dev/row1/lib/libfusednorm_ops.so python3 tools/bench/bench.py --dtypes $1 --ops $2 --inputs cold --seed 7 --providers fusednorm:auto,compile,liger,torch --shapes $3 --out $W/p_$1_$2 > $W/p_$1_$2.log 2>&1; echo "peers $1 $2 rc=$? $(date -u +%T)"; }
pr fp16 fwd 11x52,264x1214,8x301,277x29,87x2006,9x4279
pr bf16 fwd 767x198,38x365,5x114,7x2004
pr fp16 add_fwd 1x918,53x1916,14x2393,53x4591
pr bf16 add_fwd 157x52,1x223,1x6108,188x4017,13x2557,3x6431,10x5340
pr fp32 fwd 2612x397,15x3818,1976x3226
pr fp32 add_fwd 8278x633,43x7921
tar czf $OUT/row1.tgz -C $W .
