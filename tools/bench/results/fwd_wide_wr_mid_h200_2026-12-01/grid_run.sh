#!/bin/bash
# Call 3: AUTO against forced wide (the every-slot-staged instance where it applies) on aligned
# plain rows of 1536-5120 slots and 140-2048 rows; two passes.
set -u
cd "$(dirname "$0")/.."
[ -d gpu_bundle/bin ] || tar -xJf gpu_dev_pack/bundle.tar.xz
B=gpu_bundle/bin
sh() { local o=""; for m in $1; do for n in $2; do o="$o,${m}x${n}"; done; done; echo "${o#,}"; }
R="140 200 264 400 528 776 1056 1500 2048"
for pass in 1 2; do
  echo "### pass $pass"
  $B/bench_modes --dtype=bf16 --fwd-only --shapes=$(sh "$R" "12288 16384 20480 24576 28672 32768 40960") --modes=auto,wide --iters=40
  $B/bench_modes --dtype=f32 --fwd-only --shapes=$(sh "$R" "6144 8192 10240 12288 16384 20480") --modes=auto,wide --iters=40
  $B/bench_modes --dtype=f16 --fwd-only --shapes=$(sh "264 776 2048" "16384 24576 32768") --modes=auto,wide --iters=40
  $B/bench_modes --dtype=bf16 --fwd-only --no-weight --shapes=$(sh "264 776" "16384 32768") --modes=auto,wide --iters=40
done > $OUT/grid.log 2>&1
gzip -f $OUT/grid.log
zcat $OUT/grid.log.gz | grep -c " fwd "
