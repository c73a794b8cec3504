set -u
W=/tmp/r19; mkdir -p $W
date -u +%T
t0=$(date +%s); timeout 150 gpu_dev/w91/bin/test_cuda --quick > $W/q90.log 2>&1; echo "sm_90a quick rc=$? $(tail -1 $W/q90.log) $(( $(date +%s)-t0 ))s"; grep -E "^FAIL" $W/q90.log | head -3; grep "ran fwd_warp" $W/q90.log
t0=$(date +%s); timeout 170 gpu_dev/w80/bin/test_cuda --quick > $W/q80.log 2>&1; echo "compute_80 quick rc=$? $(tail -1 $W/q80.log) $(( $(date +%s)-t0 ))s"; grep -E "^FAIL" $W/q80.log | head -3; grep "ran fwd_warp" $W/q80.log
t0=$(date +%s); timeout 100 gpu_dev/w91/bin/test_cuda --unaligned --quick > $W/unal.log 2>&1; echo "unaligned quick rc=$? $(tail -1 $W/unal.log) $(( $(date +%s)-t0 ))s"
t0=$(date +%s); timeout 60 gpu_dev/w91/bin/test_cuda --bitwise > $W/bit.log 2>&1; echo "bitwise rc=$? $(tail -1 $W/bit.log) $(( $(date +%s)-t0 ))s"
for m in wm1 wm2; do t0=$(date +%s); timeout 100 gpu_dev/$m/bin/test_cuda --quick --mode=auto > $W/$m.log 2>&1; echo "mutant $m rc=$? $(tail -1 $W/$m.log) failing lines $(grep -c '^FAIL' $W/$m.log) $(( $(date +%s)-t0 ))s"; grep -m2 "^FAIL" $W/$m.log | cut -c1-200; done
cd /tmp && tar czf $OUT/r19.tgz r19
