#!/bin/bash
# Call 7: the head-split rule's build (wrhs): test_cuda --wide-fwd on its 200-row shapes (AUTO
# congruent 200 x 32776: the rule's plan), then AUTO paired against HEAD's bundle, base new new base.
set -u
cd "$(dirname "$0")/.."
[ -d gpu_bundle/bin ] || tar -xJf gpu_dev_pack/base.tar.xz
D=$(mktemp -d); tar -C $D -xJf gpu_dev_pack/builds.tar.xz
timeout 90 $D/wrhs/test_cuda --wide-fwd --filter="M=200 " > $OUT/widefwd_m200.log 2>&1; echo "wide-fwd M=200 rc=$?"
grep -E "cases|FAIL" $OUT/widefwd_m200.log | tail -8
run() {
  local bm=$D/$1/bench_modes; [ "$1" = base ] && bm=gpu_bundle/bin/bench_modes
  echo "### $1 bf16"; $bm --dtype=bf16 --fwd-only --modes=auto --iters=30 --shapes=201x34306,776x33001,2048x40001,200x32776
  echo "### $1 bf16 fused"; $bm --dtype=bf16 --fused --fwd-only --modes=auto --iters=30 --shapes=776x18494,4096x24001,300x32001
  echo "### $1 f16"; $bm --dtype=f16 --fwd-only --modes=auto --iters=30 --shapes=288x40003,288x32390
  echo "### $1 f32 fused"; $bm --dtype=f32 --fused --fwd-only --modes=auto --iters=30 --shapes=528x12001
}
{ run base; run wrhs; run wrhs; run base; } > $OUT/paired.log 2>&1
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base base
gzip -f $OUT/*.log
