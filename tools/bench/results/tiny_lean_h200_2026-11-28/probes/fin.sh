set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
W=/tmp/w; rm -rf $W; mkdir -p $W; date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl 2>/dev/null
( gpu_dev/new/bin/test_cuda --quick > $W/tq.log 2>&1; echo "sm_90a test_cuda --quick rc=$? $(tail -1 $W/tq.log)"
  gpu_dev/new/bin/test_cuda --bitwise > $W/tb.log 2>&1; echo "bitwise rc=$? $(tail -1 $W/tb.log)" ) > $W/checks1.txt 2>&1 &
P1=$!
( gpu_dev/c80n/bin/test_cuda --quick > $W/tq80.log 2>&1; echo "compute_80 PTX test_cuda --quick rc=$? $(tail -1 $W/tq80.log)"
  timeout 300 compute-sanitizer --tool memcheck gpu_dev/new/bin/test_cuda --quick --mode=row_packed > $W/mc.log 2>&1; echo "memcheck row_packed tiny rc=$? $(grep -E 'ERROR SUMMARY' $W/mc.log | tail -1)" ) > $W/checks2.txt 2>&1 &
P2=$!
( for m in m1 m2; do ( gpu_dev/mut/$m/bin/test_cuda --quick > $W/$m.log 2>&1; echo "mutant $m rc=$? $(tail -1 $W/$m.log) $(grep -c '^FAIL' $W/$m.log) FAIL lines" ) & done; wait ) > $W/mutants.txt 2>&1 &
P3=$!
SH="11x11,13x16,15x2,16x2,1x12,1x2,1x7,22x1,24x1,24x14,251x7,269x7,30x23,36x2,36x5,3x13,5x7,68x27,699x1,70x3,9x21"
run() { PYTHONPATH=$PYTHONPATH:/tmp/bench_site FUSEDNORM_LIBRARY=$PWD/gpu_dev/$2/lib/libfusednorm_ops.so python3 tools/bench/bench.py --dtypes bf16,fp16,fp32 --ops fwd,add_fwd --inputs cold --seed 7 --providers $3 --shapes $SH --out $W/$1 > $W/$1.log 2>&1; echo "$1 rc=$? $(date -u +%T) $(grep -E 'measurements|FAIL' $W/$1.log | head -2)"; }
run new1 new fusednorm:auto,compile,liger,torch
run old1 cur fusednorm:auto
run new2 new fusednorm:auto
run old2 cur fusednorm:auto
wait $P1 $P2 $P3
cat $W/checks1.txt $W/checks2.txt $W/mutants.txt
cd $W && python3 $OLDPWD/tools/bench/compare.py old1/bench.json,old2/bench.json new1/bench.json,new2/bench.json --labels old,new --out paired.md | tail -3
tar czf $OUT/fin.tgz -C $W .
