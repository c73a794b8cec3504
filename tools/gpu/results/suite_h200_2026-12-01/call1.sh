#!/bin/bash
# Call 1: the whole suite's sections but kernels (arch verify shim e2e) beside test_cuda (full).
set -u
cd "$(dirname "$0")/.."
[ -d gpu_bundle/bin ] || tar -xJf gpu_dev_pack/bundle.tar.xz
mkdir -p $OUT/k
( t0=$(date +%s); timeout --kill-after=5 575 gpu_bundle/bin/test_cuda > $OUT/k/test_cuda_full.log 2>&1; echo "test_cuda full rc=$? $(( $(date +%s)-t0 ))s" > $OUT/k/rc.txt ) &
E2E_MODE=quick BENCH_MODE=skip SUITE_BUDGET=575 bash tools/gpu/run_suite.sh arch verify shim e2e > $OUT/suite_console.log 2>&1
wait
gzip -f $OUT/k/test_cuda_full.log
cat $OUT/k/rc.txt
zcat $OUT/k/test_cuda_full.log.gz | grep -E "failed|FAIL|OK" | tail -8
tail -30 $OUT/suite_console.log
