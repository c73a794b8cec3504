#!/bin/bash
# Call 4 (see run.sh): test_cuda --quick of a mutant (mut: the batched sum drops the last slot of
# every batch of 4) - it must fail - and of the committed tree from compute_80 PTX only (p80,
# JIT-compiled on the H200, the plan at cc 8.0 where the generic forward takes every wide row).
set -u
[ -n "${DEV_TAR:-}" ] && { mkdir -p gpu_dev && tar -C gpu_dev -xJf "$DEV_TAR" || exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
( timeout 500 gpu_dev/mut/test_cuda --quick > $OUT/test_mut_quick.txt 2>&1; echo "mut rc $?: $(tail -1 $OUT/test_mut_quick.txt)" > /tmp/rc_mut.txt ) &
( timeout 500 gpu_dev/p80/test_cuda --quick > $OUT/test_p80_quick.txt 2>&1; echo "p80 rc $?: $(tail -1 $OUT/test_p80_quick.txt)" > /tmp/rc_p80.txt ) &
wait; cat /tmp/rc_mut.txt /tmp/rc_p80.txt
echo "-- mut failures:"; grep -h "FAIL" $OUT/test_mut_quick.txt | cut -c1-200 | head -6
echo "-- p80 failures:"; grep -h "FAIL" $OUT/test_p80_quick.txt | cut -c1-200 | head -6
date -u +%T; (cd $OUT && gzip -f test_*.txt)
