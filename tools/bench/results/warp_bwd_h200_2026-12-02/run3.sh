#!/bin/bash
# The warp backward, third GPU call (Quack's parts aa and ab staged by two calls before it, `bash
# tools/bench/quack_on_gpu.sh --stage`, each carrying one part): stage part ad, keep the op
# library pack (gpu_dev/libpack2: libfusednorm_ops.so and libfusednorm.so of a
# --define=cuda_archs=sm_90a build of the committed tree) in /tmp for bench.sh, and run that
# build's test_cuda --quick (gpu_dev_pack/test_cuda.xz, beside the pack's libfusednorm.so).
set -u
bash tools/bench/quack_on_gpu.sh --stage
cp gpu_dev/libpack2/lib.tar.xz /tmp/lib.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
mkdir -p /tmp/tc && tar -C /tmp/tc -xJf /tmp/lib.tar.xz && xz -dc gpu_dev_pack/test_cuda.xz > /tmp/tc/lib/test_cuda && chmod +x /tmp/tc/lib/test_cuda
s=$(date +%s); timeout 200 /tmp/tc/lib/test_cuda --quick > $OUT/test_final_quick.txt 2>&1; rc=$?
echo "test_cuda --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_final_quick.txt)"
grep -i "fail" $OUT/test_final_quick.txt | grep -v " 0 failed\|: 0 failures\|0 of " | cut -c1-220 | head
grep "warp-bwd\]" $OUT/test_final_quick.txt | grep "cases\|ran"
gzip -f $OUT/test_final_quick.txt
