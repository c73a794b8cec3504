set -u
W=/tmp/r14; mkdir -p $W
date -u +%T
t0=$(date +%s); timeout 150 gpu_dev/c80u/bin/test_cuda --unaligned --quick > $W/unal80.log 2>&1; echo "compute_80 unaligned quick rc=$? $(tail -1 $W/unal80.log) $(( $(date +%s)-t0 ))s"; grep -E "^FAIL" $W/unal80.log | head -3
t0=$(date +%s); timeout 60 gpu_dev/c80u/bin/test_cuda --bitwise > $W/bit80.log 2>&1; echo "compute_80 bitwise rc=$? $(tail -1 $W/bit80.log) $(( $(date +%s)-t0 ))s"
cd /tmp && tar czf $OUT/r14.tgz r14
