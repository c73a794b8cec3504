#!/bin/bash
# u4 (fba0b60's plans) against c3 (the plans as committed: clusters counted as the driver says,
# rows spread only within two CTAs an SM), forward, AUTO, cold, u4 c3 c3 u4, over the 16-, 32- and
# 64-row shapes whose plans changed (plan_of over a grid of rows x widths, H200 figures).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="16x98304,16x196608,16x353166,16x524288,16x1048576,32x65539,32x98304,32x215344,32x524288,64x49152,64x98304,64x215342,64x262144,24x65536,16x65536"
i=0
for v in u4 c3 c3 u4; do i=$((i+1))
  b=gpu_dev/$v/bench_modes; [ -x $b ] || b=gpu_dev/$v/bin/bench_modes
  for dt in bf16 f32; do timeout 100 $b --dtype=$dt --fwd-only --modes=auto --iters=50 --shapes=$S > $OUT/$v.$dt.$i.log 2>&1 || echo "$v $dt rc=$?"; done
  timeout 100 $b --dtype=bf16 --fused --fwd-only --modes=auto --iters=50 --shapes=$S > $OUT/$v.fused.$i.log 2>&1 || echo "$v fused rc=$?"
done
date -u
cd $OUT && tar czf logs3.tgz *.log && rm *.log && cd - > /dev/null
