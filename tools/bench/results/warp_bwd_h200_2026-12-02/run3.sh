#!/bin/bash
# The warp backward, third GPU call: test_cuda --quick of the committed tree (a
# --define=cuda_archs=sm_90a build, gpu_dev_pack/test_cuda.xz) while the call stages the first
# part of Quack (tools/bench/quack_on_gpu.sh --stage) for bench.sh.
set -u
bash tools/bench/quack_on_gpu.sh --stage
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
xz -dc gpu_dev_pack/test_cuda.xz > /tmp/test_cuda && chmod +x /tmp/test_cuda
s=$(date +%s); timeout 200 /tmp/test_cuda --quick > $OUT/test_final_quick.txt 2>&1; rc=$?
echo "test_cuda --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_final_quick.txt)"
grep -i "fail" $OUT/test_final_quick.txt | grep -v " 0 failed\|: 0 failures\|0 of " | cut -c1-220 | head
grep "warp-bwd\]" $OUT/test_final_quick.txt | grep "cases\|ran"
gzip -f $OUT/test_final_quick.txt
