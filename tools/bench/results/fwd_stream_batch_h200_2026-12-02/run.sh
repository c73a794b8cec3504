#!/bin/bash
# The generic forward's streamed slots loaded four at a time (pass 1) and two with their weight
# (pass 2) against the kernels before (rmsnorm_fwd.cu FN_FWD_STREAM_BATCH). Builds (tools/kerneldev,
# sm_90a, size-compressed): base = HEAD before the change (gpu_dev/s71), new = the change
# (gpu_dev/sb4). AUTO where the plan takes the generic forward (f32 rows past a cluster's storage),
# and forced multi_wave_reload (the generic forward: what GPUs without clusters, sm_80/86/89,
# run for wide rows of many rows); paired order base new new base. Then test_cuda --quick of new.
set -u
run() { # build label flags... (gpu_dev/BUILD: DEV_TAR unpacked there)
  local b=$1 l=$2; shift 2
  echo "### $b $l"; gpu_dev/$b/bench_modes --fwd-only --modes=auto,multi_wave_reload "$@"
}
[ -n "${DEV_TAR:-}" ] && { mkdir -p gpu_dev && tar -C gpu_dev -xJf "$DEV_TAR" || exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
for b in s71 sb4 sb4 s71; do
  run $b "f32" --dtype=f32 --shapes=256x1048576,512x524288,2048x131072,4096x20000,16384x8193
  run $b "f32 --fused" --dtype=f32 --fused --shapes=180x577174,1024x65536
  run $b "bf16" --dtype=bf16 --shapes=256x1048576,1024x65536,4096x32768,4000x33001,16384x8192
  run $b "f16 --fused" --dtype=f16 --fused --shapes=512x262144,4000x50001
done > $OUT/modes.log 2>&1
date -u +%T
timeout 300 gpu_dev/sb4/test_cuda --quick > $OUT/test_quick.txt 2>&1; echo "test_cuda --quick rc $?: $(tail -1 $OUT/test_quick.txt)"
grep -h FAIL $OUT/test_quick.txt | head -5
python3 tools/kerneldev/pair_table.py $OUT/modes.log --base s71
date -u +%T
