#!/bin/bash
# The warp backward from compute_80 PTX: test_cuda --quick of a --define=cuda_archs=compute_80
# build of the committed tree (gpu_dev_pack/p80.tar.xz: test_cuda and libfusednorm.so, PTX only):
# the driver JIT-compiles the sm_80 code path for the H200 and the plan is made at cc 8.0.
set -u
mkdir -p /tmp/p80 && tar -C /tmp/p80 -xJf gpu_dev_pack/p80.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
s=$(date +%s); timeout 400 /tmp/p80/test_cuda --quick > $OUT/test_p80_quick.txt 2>&1; rc=$?
echo "test_cuda (compute_80) --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_p80_quick.txt)"
grep -i "fail" $OUT/test_p80_quick.txt | grep -v " 0 failed\|: 0 failures\|0 of " | cut -c1-220 | head
grep "plan device\|warp-bwd\]" $OUT/test_p80_quick.txt | grep "plan device\|cases\|ran"
gzip -f $OUT/test_p80_quick.txt
