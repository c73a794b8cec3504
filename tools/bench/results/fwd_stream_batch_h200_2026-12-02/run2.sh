#!/bin/bash
# Call 2 (see run.sh): which half of the change pays. sy1 = the change with pass 2 one slot at a
# time (--define=kerneldev_set=FN_FWD_STREAM_BATCH_Y=1: only the sum's loads batched); sb4 = both;
# s71 = before. Order s71 sy1 sb4 sb4 sy1 s71.
set -u
run() { # build label flags... (gpu_dev/BUILD: DEV_TAR unpacked there)
  local b=$1 l=$2; shift 2
  echo "### $b $l"; gpu_dev/$b/bench_modes --fwd-only --modes=auto,multi_wave_reload "$@"
}
[ -n "${DEV_TAR:-}" ] && { mkdir -p gpu_dev && tar -C gpu_dev -xJf "$DEV_TAR" || exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
for b in s71 sy1 sb4 sb4 sy1 s71; do
  run $b "f32" --dtype=f32 --shapes=256x1048576,512x524288,4096x20000,16384x8193
  run $b "bf16" --dtype=bf16 --shapes=256x1048576,4096x32768,4000x33001,16384x8192
  run $b "f16 --fused" --dtype=f16 --fused --shapes=4000x50001
done > $OUT/modes.log 2>&1
date -u +%T
python3 tools/kerneldev/pair_table.py $OUT/modes.log --base s71
