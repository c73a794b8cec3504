set -u
W=/tmp/wc; rm -rf $W; mkdir -p $W; date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $W/gpu.txt
( gpu_dev/fin/bin/test_cuda --quick > $W/tq.log 2>&1; echo "sm_90a test_cuda --quick rc=$? $(tail -1 $W/tq.log)" ) > $W/c1.txt 2>&1 &
( gpu_dev/c80/bin/test_cuda --quick > $W/t80.log 2>&1; echo "compute_80 PTX test_cuda --quick rc=$? $(tail -1 $W/t80.log)" ) > $W/c2.txt 2>&1 &
( for m in m1 m4 m5; do gpu_dev/$m/bin/test_cuda --quick > $W/$m.log 2>&1; echo "mutant $m rc=$? $(tail -1 $W/$m.log) $(grep -c '^FAIL' $W/$m.log) FAIL lines"; done ) > $W/c4.txt 2>&1 &
wait
( timeout 200 compute-sanitizer --tool racecheck gpu_dev/fin/bin/test_cuda --quick --filter="N=7 x=bf16" > $W/rc.log 2>&1; echo "racecheck (N=7 bf16) rc=$? $(grep 'RACECHECK SUMMARY' $W/rc.log | tail -1) $(tail -1 $W/rc.log)" ) > $W/c3.txt 2>&1
date -u +%T; cat $W/c1.txt $W/c2.txt $W/c3.txt $W/c4.txt
grep -E "launches ran fwd_thread" $W/tq.log $W/t80.log
grep -m3 "^FAIL" $W/m1.log $W/m4.log $W/m5.log | cut -c1-220
tar czf $OUT/chk.tgz -C $W .
