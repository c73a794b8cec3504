#!/bin/bash
# c5 (509ee2c) against c6 (the 8-slot wide forward instance: 256 threads, 2 CTAs an SM, the chunk
# in registers, where the 4-slot plan stages or streams), forward, AUTO, cold, c5 c6 c6 c5; then
# test_cuda --quick of c6 (sm_90a).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="16x215344,64x131072,32x131072,17x262144,16x196608,64x98304,32x524288,8x215344,64x49152,16x65536,1024x65536,512x131072,256x262144"
S32="16x131072,32x65536,64x49152,8x215344,16x262144,512x65536"
i=0
for v in c5 c6 c6 c5; do i=$((i+1))
  b=gpu_dev/$v/bin/bench_modes
  for dt in bf16 f16; do timeout 100 $b --dtype=$dt --fwd-only --modes=auto --iters=50 --shapes=$S > $OUT/$v.$dt.$i.log 2>&1 || echo "$v $dt rc=$?"; done
  timeout 100 $b --dtype=f32 --fwd-only --modes=auto --iters=50 --shapes=$S32 > $OUT/$v.f32.$i.log 2>&1 || echo "$v f32 rc=$?"
done
date -u
cd $OUT && tar czf logs_w8.tgz *.log && rm *.log && cd - > /dev/null
s=$(date +%s); timeout 250 gpu_dev/c6/bin/test_cuda --quick > $OUT/c6_test_cuda_quick_sm90a.txt 2>&1; echo "c6 test_cuda rc=$? $(( $(date +%s) - s )) s: $(tail -1 $OUT/c6_test_cuda_quick_sm90a.txt)"
grep -E "FAIL" $OUT/c6_test_cuda_quick_sm90a.txt | head -8; gzip -9 $OUT/*.txt
