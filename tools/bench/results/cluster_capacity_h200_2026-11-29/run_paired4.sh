#!/bin/bash
# u4 (fba0b60's plans), c3 (narrowed to one wave even where the chunk is then streamed) and c4 (plain
# rows narrowed only while the chunk is held), forward, AUTO, cold, u4 c3 c4 c4 c3 u4, over the
# plain rows where c3 streamed.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="17x1048576,17x736015,16x1048576,16x736015,32x524288,32x353166,64x215342,64x262144,64x131073,64x196608,17x262144"
i=0
for v in u4 c3 c4 c4 c3 u4; do i=$((i+1))
  b=gpu_dev/$v/bench_modes; [ -x $b ] || b=gpu_dev/$v/bin/bench_modes
  for dt in bf16 f16; do timeout 100 $b --dtype=$dt --fwd-only --modes=auto --iters=50 --shapes=$S > $OUT/$v.$dt.$i.log 2>&1 || echo "$v $dt rc=$?"; done
done
date -u
cd $OUT && tar czf logs4.tgz *.log && rm *.log && cd - > /dev/null
