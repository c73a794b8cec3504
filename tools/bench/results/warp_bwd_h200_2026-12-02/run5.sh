#!/bin/bash
# test_cuda (full lists, not --quick) over the cases of 30001 rows only (--filter): the warp
# forward's section at 30001 rows (the dense 16-bit rule of two rows a warp past 160 rows an SM)
# and every other section's cases of that count; a --define=cuda_archs=sm_90a build of the
# committed tree (gpu_dev_pack/tc.tar.xz: test_cuda and libfusednorm.so).
set -u
mkdir -p /tmp/tc5 && tar -C /tmp/tc5 -xJf gpu_dev_pack/tc.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
s=$(date +%s); timeout 500 /tmp/tc5/test_cuda --filter="M=30001 " > $OUT/test_m30001.txt 2>&1; rc=$?
echo "test_cuda --filter='M=30001 ': rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_m30001.txt)"
grep -E "cases, [1-9][0-9]* failed|^FAIL" $OUT/test_m30001.txt | cut -c1-220 | head
grep -E "\[cuda/auto/warp\] [0-9]+ cases" $OUT/test_m30001.txt
gzip -f $OUT/test_m30001.txt
