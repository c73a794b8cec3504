#!/bin/bash
# The backward of few narrow rows: the persistent backward (AUTO's pick below 5 rows an SM, select.c
# FN_AUTO_PACKED_BWD_ROWS_PER_SM) against the row-packed one, both forced in one run (bench_modes
# --bwd, cold, 30 iterations), bf16 and f32, plain and fused, 66-660 rows x 37-256 columns (odd
# widths: head-split rows; 64, 128, 256: aligned). The build: main b9247ef's kernels (gpu_dev/sd:
# fe56678 + the split-row dw stores), sm_90a, in gpu_dev_pack/bm.
#   R=1 MODES=persistent,row_packed bash run1.sh          (16:56:32 UTC)
#   R=2 bash run1.sh; R=3 bash run1.sh                    (16:56:45, 16:56:48 UTC, one call)
set -u
D=/tmp/devbuilds_bm; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/bm/builds.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
S=""
for m in 66 132 230 400 660; do for n in 37 59 64 99 127 128 153 201 255 256; do S="$S${S:+,}${m}x$n"; done; done
for cfg in "bf16:--dtype=bf16" "bf16fused:--dtype=bf16 --fused" "f32:--dtype=f32" "f32fused:--dtype=f32 --fused"; do
  IFS=: read -r tag flags <<< "$cfg"
  echo "### $tag"
  timeout 60 $D/sd/bench_modes $flags --bwd --modes=${MODES:-auto,persistent,row_packed} --iters=30 --shapes=$S 2>&1
done > $OUT/grid$R.log
date -u +%T
gzip -f $OUT/grid$R.log
