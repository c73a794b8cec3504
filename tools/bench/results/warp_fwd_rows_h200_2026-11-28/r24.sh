set -u
W=/tmp/r24; mkdir -p $W
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpu.txt
t0=$(date +%s)
timeout 280 gpu_dev/w92/bin/test_cuda --quick > $W/q90.log 2>&1 &
timeout 280 gpu_dev/w82/bin/test_cuda --quick > $W/q80.log 2>&1 &
wait
echo "quick both $(( $(date +%s)-t0 ))s"
for f in q90 q80; do echo "$f: $(tail -1 $W/$f.log)"; grep -E "^FAIL" $W/$f.log | head -3; grep -E "ran fwd_warp|two rows a warp" $W/$f.log; done
t0=$(date +%s); timeout 100 gpu_dev/w92/bin/test_cuda --unaligned --quick > $W/unal.log 2>&1; echo "unaligned quick rc=$? $(tail -1 $W/unal.log) $(( $(date +%s)-t0 ))s"
t0=$(date +%s); timeout 60 gpu_dev/w92/bin/test_cuda --bitwise > $W/bit.log 2>&1; echo "bitwise rc=$? $(tail -1 $W/bit.log) $(( $(date +%s)-t0 ))s"
t0=$(date +%s); timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 gpu_dev/w92/bin/test_cuda --quick --mode=auto --filter="N=295 " > $W/memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $W/memcheck.log | tail -1) $(( $(date +%s)-t0 ))s"
t0=$(date +%s); timeout 120 gpu_dev/wm3/bin/test_cuda --quick --mode=auto > $W/wm3.log 2>&1; echo "mutant wm3 rc=$? $(tail -1 $W/wm3.log) failing lines $(grep -c "^FAIL" $W/wm3.log) $(( $(date +%s)-t0 ))s"; grep -m2 "^FAIL" $W/wm3.log | cut -c1-200
cd /tmp && tar czf $OUT/r24.tgz r24
