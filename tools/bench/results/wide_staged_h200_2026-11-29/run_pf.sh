#!/bin/bash
# The wide forward's weights brought into L1 before the row's sum is exchanged (FN_FWD_WIDE_WPF:
# pf0 none, pf1 the cached slots', pf2 the staged slots' too), forward, AUTO, cold, interleaved
# pf0 pf2 pf1 pf1 pf2 pf0; then test_cuda --quick of pf2.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
SB="16x215344,16x215342,16x131072,32x131072,64x131072,8x262144,4x524288,2x262144,1x1048576,64x65536,512x65536,256x98304,17x736015,32x262144,100x49152"
SF="16x98304,64x32768,100x49152,4x262144,16x65539"
SA="16x215344,32x131072,64x65536,16x131073"
i=0
for v in pf0 pf2 pf1 pf1 pf2 pf0; do i=$((i+1))
  b=gpu_dev/$v/bench_modes
  timeout 100 $b --dtype=bf16 --fwd-only --modes=auto --iters=50 --shapes=$SB > $OUT/$v.bf16.$i.log 2>&1 || echo "$v bf16 rc=$?"
  timeout 100 $b --dtype=bf16 --offset=3 --fwd-only --modes=auto --iters=50 --shapes=16x215344,64x131072,8x262144 > $OUT/$v.bf16o3.$i.log 2>&1 || echo "$v bf16o3 rc=$?"
  timeout 100 $b --dtype=f32 --fwd-only --modes=auto --iters=50 --shapes=$SF > $OUT/$v.f32.$i.log 2>&1 || echo "$v f32 rc=$?"
  timeout 100 $b --dtype=bf16 --fused --fwd-only --modes=auto --iters=50 --shapes=$SA > $OUT/$v.fused.$i.log 2>&1 || echo "$v fused rc=$?"
done
date -u
cd $OUT && tar czf logs_pf.tgz *.log && rm *.log && cd - > /dev/null
timeout 300 gpu_dev/pf2/test_cuda --quick > $OUT/pf2_test_cuda_quick.txt 2>&1; echo "test_cuda pf2 rc=$?"; tail -3 $OUT/pf2_test_cuda_quick.txt
date -u
