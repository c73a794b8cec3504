#!/bin/bash
# u4 (HEAD fba0b60's kernels and plans) against c2 (the plans count the resident clusters, each
# cluster size at its own CTA's residency: select.c fwd_wide_resident), forward, AUTO, cold,
# u4 c2 c2 u4.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S16="16x215342,16x215344,45x215342,8x109347,8x109344,1x353166,4x262144,64x131073,64x131072,17x262144,32x131072,24x65536,16x65536,16x32768,8x65536,100x49152,201x34306"
S32="2x736015,8x215344,16x131072,32x65536,16x65536,100x49152"
SF="16x215344,64x131072,17x262144,32x65536,16x65536,8x109344"
i=0
for v in u4 c2 c2 u4; do i=$((i+1))
  b=gpu_dev/$v/bench_modes; [ -x $b ] || b=gpu_dev/$v/bin/bench_modes
  for dt in bf16 f16; do timeout 100 $b --dtype=$dt --fwd-only --modes=auto --iters=50 --shapes=$S16 > $OUT/$v.$dt.$i.log 2>&1 || echo "$v $dt rc=$?"; done
  timeout 100 $b --dtype=f32 --fwd-only --modes=auto --iters=50 --shapes=$S32 > $OUT/$v.f32.$i.log 2>&1 || echo "$v f32 rc=$?"
  timeout 100 $b --dtype=bf16 --fused --fwd-only --modes=auto --iters=50 --shapes=$SF > $OUT/$v.fused.$i.log 2>&1 || echo "$v fused rc=$?"
done
date -u
cd $OUT && tar czf logs2.tgz *.log && rm *.log && cd - > /dev/null
