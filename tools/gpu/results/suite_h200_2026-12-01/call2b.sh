#!/bin/bash
# Call 2: every mode on mid-row-count wide rows (bench_modes, alone on the GPU), then the kernels
# section's remaining checks side by side.
set -u
cd "$(dirname "$0")/.."
[ -d gpu_bundle/bin ] || tar -xJf gpu_dev_pack/bundle.tar.xz
B=gpu_bundle/bin
mkdir -p $OUT/m
( timeout 400 $B/test_cuda --wide-fwd > $OUT/m/widefwd.log 2>&1; echo "wide-fwd rc=$?" >> $OUT/m/rc.txt ) &
( timeout 400 $B/test_cpu --quick > $OUT/m/cpu.log 2>&1; echo "test_cpu rc=$?" >> $OUT/m/rc.txt ) &
( timeout 420 compute-sanitizer --tool memcheck --error-exitcode 3 $B/test_cuda --quick > $OUT/m/memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/m/rc.txt ) &
( SUITE_BUDGET=420 bash tools/gpu/run_suite.sh e2e > $OUT/m/e2e_console.log 2>&1; echo "e2e rc=$?" >> $OUT/m/rc.txt ) &
wait
gzip -f $OUT/m/*.log
cat $OUT/m/rc.txt
zcat $OUT/m/memcheck.log.gz | grep -E "ERROR SUMMARY|runs failed" | tail -3
zcat $OUT/m/widefwd.log.gz | tail -3
zcat $OUT/m/e2e_console.log.gz | tail -8
cd $OUT && tar -czf all.tgz --remove-files m suite.log summary.txt e2e verify_cuda.json 2>/dev/null; ls $OUT
