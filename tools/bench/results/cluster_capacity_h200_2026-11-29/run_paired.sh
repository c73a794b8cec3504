#!/bin/bash
# u4 (HEAD fba0b60's kernels: clusters counted as sm_count x CTAs/SM) against c1 (the plan counts
# the clusters the driver says are resident: fusednorm_device_info.max_clusters), forward and
# backward, AUTO, cold, u4 c1 c1 u4; then test_cuda --quick of c1 (sm_90a).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S16="16x215342,16x215344,45x215342,8x109347,8x109344,1x353166,2x736015,4x262147,4x262144,64x131073,64x131072,17x262144,32x131072,24x65536,100x49152,90x65539,201x34306,18x25734,132x32768,16x65536"
S32="2x736015,8x215342,8x215344,16x131072,32x65536,90x65539,100x49152"
SF="16x215344,64x131072,17x262144,100x49152,32x65536,8x109344"
SB="16x215344,64x131072,17x262144,100x49152,32x65536,1024x65536,4x262144"
i=0
for v in u4 c1 c1 u4; do i=$((i+1))
  for dt in bf16 f16; do timeout 100 gpu_dev/$v/bench_modes --dtype=$dt --fwd-only --modes=auto --iters=50 --shapes=$S16 > $OUT/$v.$dt.$i.log 2>&1 || echo "$v $dt rc=$?"; done
  timeout 100 gpu_dev/$v/bench_modes --dtype=f32 --fwd-only --modes=auto --iters=50 --shapes=$S32 > $OUT/$v.f32.$i.log 2>&1 || echo "$v f32 rc=$?"
  timeout 100 gpu_dev/$v/bench_modes --dtype=bf16 --fused --fwd-only --modes=auto --iters=50 --shapes=$SF > $OUT/$v.fused.$i.log 2>&1 || echo "$v fused rc=$?"
  timeout 100 gpu_dev/$v/bench_modes --dtype=bf16 --bwd --modes=auto --iters=30 --shapes=$SB > $OUT/$v.bwd.$i.log 2>&1 || echo "$v bwd rc=$?"
done
date -u
s=$(date +%s); timeout 300 gpu_dev/c1/test_cuda --quick > $OUT/c1_test_cuda_quick_sm90a.txt 2>&1; echo "c1 test_cuda rc=$? $(( $(date +%s) - s )) s: $(tail -1 $OUT/c1_test_cuda_quick_sm90a.txt)"
grep -E "FAIL|clusters resident" $OUT/c1_test_cuda_quick_sm90a.txt | head -8
cd $OUT && tar czf logs.tgz *.log && rm *.log && cd - > /dev/null
