#!/bin/bash
# Third run: run2's paired timings scattered by up to 20% between two runs of one build on the
# 7-25 us cases, so the narrow forwards again with --iters=200 (median) and three rounds of the
# order base new new base (12 runs a build). Logs packed into $OUT/logs.tgz.
set -u
[ -n "${DEV_TAR:-}" ] && { mkdir -p gpu_dev && tar -C gpu_dev -xJf "$DEV_TAR" || exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
L=$OUT/logs; mkdir -p $L
run() { # build label flags...
  local b=$1 l=$2; shift 2
  echo "### $b $l"; gpu_dev/$b/bench_modes --fwd-only --iters=200 "$@"
}
for round in 1 2 3; do
for b in base new new base; do
  run $b "bf16" --modes=auto --dtype=bf16 --shapes=209133x1,86289x1,22x1,366740x15,4096x128,65536x128,58551x295
  run $b "f16 --fused" --modes=auto --dtype=f16 --fused --shapes=1025612x1,539974x12,247656x26,60407x40,65536x128,7042x280
  run $b "f16" --modes=auto --dtype=f16 --shapes=100000x3,100000x6,395x7,277x29,5601x92,65536x128
  run $b "f32" --modes=auto --dtype=f32 --shapes=1000000x3,9859x6,274156x39,65536x128,157281x190
  run $b "f32 --fused" --modes=auto --dtype=f32 --fused --shapes=12790x19,53x88,65536x128
  run $b "f32 --offset=1" --modes=auto,row_packed --dtype=f32 --offset=1 --shapes=65536x64,200000x100
done
done > $L/modes.log 2>&1
date -u +%T
python3 tools/kerneldev/pair_table.py $L/modes.log --base base | tee $L/pair.txt
tar -C $OUT -czf $OUT/logs.tgz logs && rm -rf $L
date -u +%T
