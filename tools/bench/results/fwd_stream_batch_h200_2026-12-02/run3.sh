#!/bin/bash
# Call 3 (see run.sh): the kept form, sa3 = the batches in the CACHE 2 instance on rows that are not
# head-split (sum 4 slots, y 2), against s71 = before; order s71 sa3 sa3 s71; then test_cuda --quick.

set -u
run() { # build label flags... (gpu_dev/BUILD: DEV_TAR unpacked there)
  local b=$1 l=$2; shift 2
  echo "### $b $l"; gpu_dev/$b/bench_modes --fwd-only --modes=auto,multi_wave_reload "$@"
}
[ -n "${DEV_TAR:-}" ] && { mkdir -p gpu_dev && tar -C gpu_dev -xJf "$DEV_TAR" || exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
for b in s71 sa3 sa3 s71; do
  run $b "f32" --dtype=f32 --shapes=256x1048576,512x524288,2048x131072,4096x20000,16384x8193
  run $b "f32 --fused" --dtype=f32 --fused --shapes=180x577174,1024x65536
  run $b "bf16" --dtype=bf16 --shapes=256x1048576,4096x32768,4000x33001,16384x8192
  run $b "f16 --fused" --dtype=f16 --fused --shapes=4000x50001
done > $OUT/modes.log 2>&1
date -u +%T
python3 tools/kerneldev/pair_table.py $OUT/modes.log --base s71
timeout 300 gpu_dev/sa3/test_cuda --quick > $OUT/test_quick.txt 2>&1; echo "test_cuda --quick rc $?: $(tail -1 $OUT/test_quick.txt)"
grep -h FAIL $OUT/test_quick.txt | head -5; date -u +%T
