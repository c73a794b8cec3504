set -u
bash tools/bench/quack_on_gpu.sh --stage
W=/tmp/wc; rm -rf $W; mkdir -p $W; date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $W/gpu.txt
( gpu_dev/fin/bin/test_cuda --quick > $W/tq.log 2>&1; echo "sm_90a test_cuda --quick rc=$? $(tail -1 $W/tq.log)" ) > $W/c1.txt 2>&1 &
( gpu_dev/c80/bin/test_cuda --quick > $W/t80.log 2>&1; echo "compute_80 PTX test_cuda --quick rc=$? $(tail -1 $W/t80.log)" ) > $W/c2.txt 2>&1 &
( timeout 280 compute-sanitizer --tool memcheck gpu_dev/fin/bin/test_cuda --quick --mode=multi_wave_cached > $W/mc.log 2>&1; echo "memcheck --quick --mode=multi_wave_cached rc=$? $(grep 'ERROR SUMMARY' $W/mc.log | tail -1)" ) > $W/c3.txt 2>&1 &
( for m in m1 m2; do gpu_dev/$m/bin/test_cuda --quick > $W/$m.log 2>&1; echo "mutant $m rc=$? $(tail -1 $W/$m.log) $(grep -c '^FAIL' $W/$m.log) FAIL lines"; done ) > $W/c4.txt 2>&1 &
wait
date -u +%T; cat $W/c1.txt $W/c2.txt $W/c3.txt $W/c4.txt
grep -m3 "^FAIL" $W/m1.log $W/m2.log | cut -c1-200
tar czf $OUT/chk.tgz -C $W gpu.txt c1.txt c2.txt c3.txt c4.txt m1.log m2.log
