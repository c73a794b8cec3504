#!/bin/bash
# Call 9 (carry=["gpu_dev_pack"]): the full test_cuda of pp4b (the kept kernels, bf8c2ca's code).
set -u
D=$(mktemp -d); tar -C $D -xJf gpu_dev_pack/builds.tar.xz || exit 1
/usr/bin/time -f "%e s wall, %U s user" timeout 420 $D/pp4b/test_cuda > $OUT/test_cuda_full.log 2>&1; echo "test_cuda rc=$?"
grep -cE "^\[.*\] [0-9]+ cases, 0 failed" $OUT/test_cuda_full.log; grep -E "FAIL|runs failed|failed: FAILED" $OUT/test_cuda_full.log | head -10; tail -3 $OUT/test_cuda_full.log
gzip -9 $OUT/test_cuda_full.log
