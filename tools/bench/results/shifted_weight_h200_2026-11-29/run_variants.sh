#!/bin/bash
# b0 (HEAD 5cb96b2) against u2 (shifted weight blocks; the wide forward's cached slots preloaded
# element-wise) and u3 (shifted blocks, no preload in the plain head-split wide forward),
# forward, AUTO, cold, order b0 u2 u3 u3 u2 b0.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S16="16x215342,45x215342,8x109347,1x353166,2x736015,90x65539,4x262147,64x131073,18x25734,4000x2881,32768x2881,16384x4097,65536x1023,288x32390,2000x16390,8x12289,64x6001,201x34306,1000x34306,16x215344,4000x2880,16384x4096"
S32="2x736015,8x215342,16384x2049,1000x11001,4000x1441,64x8193,90x65539"
SO="16384x4096,8192x8192,4000x2880,1024x65536,132x32768,16x262144,8x12288,64x4096"
i=0
for v in b0 u2 u3 u3 u2 b0; do i=$((i+1))
  for dt in bf16 f16; do timeout 100 gpu_dev/$v/bench_modes --dtype=$dt --fwd-only --modes=auto --iters=50 --shapes=$S16 > $OUT/$v.$dt.$i.log 2>&1 || echo "$v $dt rc=$?"; done
  timeout 100 gpu_dev/$v/bench_modes --dtype=f32 --fwd-only --modes=auto --iters=50 --shapes=$S32 > $OUT/$v.f32.$i.log 2>&1 || echo "$v f32 rc=$?"
  timeout 100 gpu_dev/$v/bench_modes --dtype=bf16 --fwd-only --modes=auto --iters=50 --offset=3 --shapes=$SO > $OUT/$v.off3.$i.log 2>&1 || echo "$v off3 rc=$?"
done
date -u
cd $OUT && tar czf logs.tgz *.log && rm *.log && cd - > /dev/null
python3 gpu_dev/s5/table.py $OUT
