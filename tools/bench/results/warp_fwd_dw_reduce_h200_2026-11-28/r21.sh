set -u
W=/tmp/r21; mkdir -p $W
date -u +%T
t0=$(date +%s); timeout 170 compute-sanitizer --tool memcheck --error-exitcode 9 gpu_dev/w91/bin/test_cuda --quick --mode=auto --filter="N=295 " > $W/memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|test_cuda:' $W/memcheck.log | tail -2 | tr '\n' ' ') $(( $(date +%s)-t0 ))s"
grep -c "^\[" $W/memcheck.log
cd /tmp && tar czf $OUT/r21.tgz r21
