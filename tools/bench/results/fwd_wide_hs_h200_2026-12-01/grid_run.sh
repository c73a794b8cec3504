#!/bin/bash
# Call 6: AUTO against forced wide on rows that are not whole aligned vectors (odd widths: the
# head-split instances), the fused add of 12001-47999 columns and the plain forward of 4097-5999
# slots, 140-4096 rows; two passes. The HEAD bundle's bench_modes (its AUTO there is HEAD's).
set -u
cd "$(dirname "$0")/.."
[ -d gpu_bundle/bin ] || tar -xJf gpu_dev_pack/base.tar.xz
B=gpu_bundle/bin
sh() { local o=""; for m in $1; do for n in $2; do o="$o,${m}x${n}"; done; done; echo "${o#,}"; }
R="140 200 300 528 776 1056 2048 4096"
for pass in 1 2; do
  echo "### pass $pass"
  $B/bench_modes --dtype=bf16 --fused --fwd-only --shapes=$(sh "$R" "12001 16001 18495 24001 32001 40001 47999") --modes=auto,wide --iters=30
  $B/bench_modes --dtype=f32 --fused --fwd-only --shapes=$(sh "$R" "6001 8001 12001 16001 24001") --modes=auto,wide --iters=30
  $B/bench_modes --dtype=bf16 --fwd-only --shapes=$(sh "$R" "33001 40001 47001") --modes=auto,wide --iters=30
done > $OUT/grid_u.log 2>&1
gzip -f $OUT/grid_u.log
zcat $OUT/grid_u.log.gz | grep -c " fwd "
