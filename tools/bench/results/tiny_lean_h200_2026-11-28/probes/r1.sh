set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
W=/tmp/w; rm -rf $W; mkdir -p $W; date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( gpu_dev/new/bin/test_cuda --quick > $W/tq.log 2>&1; echo "test_cuda --quick rc=$? $(tail -1 $W/tq.log)" ) &
TQ=$!
gpu_dev/lat/tiny_l 2>&1 | tee $W/tiny_l.txt
SH="22x1,3x8,16x2,13x16,1x31,70x3,269x7,1x12,699x1,9x21,36x5,63x32,5x7,251x7,24x1"
run() { FUSEDNORM_LIBRARY=$PWD/gpu_dev/$2/lib/libfusednorm_ops.so python3 tools/bench/bench.py --dtypes bf16,fp16,fp32 --ops fwd,add_fwd --inputs cold --seed 7 --providers $3 --shapes $SH --out $W/$1 > $W/$1.log 2>&1; echo "$1 rc=$? $(date -u +%T) $(grep -E 'measurements|FAIL' $W/$1.log | head -2)"; }
run new1 new fusednorm:auto,compile
run old1 cur fusednorm:auto
run new2 new fusednorm:auto
run old2 cur fusednorm:auto
wait $TQ
cd $W && python3 $OLDPWD/tools/bench/compare.py old1/bench.json,old2/bench.json new1/bench.json,new2/bench.json --labels old,new --out paired.md | tail -4
tar czf $OUT/r1.tgz -C $W .
