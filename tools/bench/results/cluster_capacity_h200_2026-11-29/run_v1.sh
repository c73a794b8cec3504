#!/bin/bash
# c5 (509ee2c) against v1 (the same sources, the wide forward at 256 threads and 4 CTAs an SM:
# --define=kerneldev_set=FN_FWD_WIDE_MAX_THREADS=256,FN_FWD_WIDE_MIN_CTAS=4), forward, AUTO,
# cold, c5 v1 v1 c5.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="16x215342,16x215344,64x131072,32x131072,64x131073,8x109344,1x353166,2x736015,4x262144,17x262144,24x65536,16x65536,64x49152,1024x65536,512x131072"
i=0
for v in c5 v1 v1 c5; do i=$((i+1))
  b=gpu_dev/$v/bench_modes; [ -x $b ] || b=gpu_dev/$v/bin/bench_modes
  for dt in bf16 f32; do timeout 100 $b --dtype=$dt --fwd-only --modes=auto --iters=50 --shapes=$S > $OUT/$v.$dt.$i.log 2>&1 || echo "$v $dt rc=$?"; done
  timeout 100 $b --dtype=bf16 --fused --fwd-only --modes=auto --iters=50 --shapes=$S > $OUT/$v.fused.$i.log 2>&1 || echo "$v fused rc=$?"
done
date -u
cd $OUT && tar czf logs_v1.tgz *.log && rm *.log && cd - > /dev/null
