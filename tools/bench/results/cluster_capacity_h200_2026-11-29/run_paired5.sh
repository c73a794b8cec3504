#!/bin/bash
# u4 (fba0b60's plans) against c5 (509ee2c, the plans as committed), forward, AUTO, cold,
# u4 c5 c5 u4, over changed plans not measured before (plan_of over rows 1-1024 x widths
# 16384-1048576, H200 figures: 155 of 3876 plans changed, all 16-64-row forwards).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
SB="16x131073,16x262144,16x524288,32x131073,32x196608,32x215342,32x65539,64x49152,64x65536,64x65539,17x736015"
S32="16x65539,17x524288,32x49152,64x24576,64x32768,16x196608,17x1048576"
SA="16x131072,32x49152,64x24576,64x32768,32x262144,16x736015,64x65539"
i=0
for v in u4 c5 c5 u4; do i=$((i+1))
  b=gpu_dev/$v/bench_modes; [ -x $b ] || b=gpu_dev/$v/bin/bench_modes
  timeout 100 $b --dtype=bf16 --fwd-only --modes=auto --iters=50 --shapes=$SB > $OUT/$v.bf16.$i.log 2>&1 || echo "$v bf16 rc=$?"
  timeout 100 $b --dtype=f32 --fwd-only --modes=auto --iters=50 --shapes=$S32 > $OUT/$v.f32.$i.log 2>&1 || echo "$v f32 rc=$?"
  timeout 100 $b --dtype=bf16 --fused --fwd-only --modes=auto --iters=50 --shapes=$SA > $OUT/$v.fused.$i.log 2>&1 || echo "$v fused rc=$?"
  timeout 100 $b --dtype=f32 --fused --fwd-only --modes=auto --iters=50 --shapes=64x16384,32x24576,16x49152 > $OUT/$v.f32fused.$i.log 2>&1 || echo "$v f32fused rc=$?"
done
date -u
cd $OUT && tar czf logs5.tgz *.log && rm *.log && cd - > /dev/null
