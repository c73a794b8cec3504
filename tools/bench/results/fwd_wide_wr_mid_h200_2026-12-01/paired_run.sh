#!/bin/bash
# Call 4: AUTO paired, HEAD (gpu_bundle's bench_modes, sm_90a SASS of the same kernel sources) /
# the every-slot-staged rule below the many-rows cut (wrmid), base new new base; then wrmid's tests.
set -u
cd "$(dirname "$0")/.."
[ -d gpu_bundle/bin ] || tar -xJf gpu_dev_pack/base.tar.xz
D=$(mktemp -d); tar -C $D -xJf gpu_dev_pack/builds.tar.xz
run() { # BUILD
  local bm=$D/$1/bench_modes; [ "$1" = base ] && bm=gpu_bundle/bin/bench_modes
  echo "### $1 bf16"; $bm --dtype=bf16 --fwd-only --modes=auto --iters=40 --shapes=140x40960,400x40960,2048x40960,200x32776,400x32768,776x32768,528x24576,776x20480,396x20480,1000x40960,264x32768,1056x32768,4096x32768,776x16384,1024x65536,201x34304
  echo "### $1 f32"; $bm --dtype=f32 --fwd-only --modes=auto --iters=40 --shapes=2048x20480,400x16384,528x10240,776x12288,140x20480,264x12288,2048x16384
  echo "### $1 f16"; $bm --dtype=f16 --fwd-only --modes=auto --iters=40 --shapes=776x24576,400x20480,264x32768,288x32392
  echo "### $1 bf16 fused"; $bm --dtype=bf16 --fused --fwd-only --modes=auto --iters=40 --shapes=400x32768,776x20480
}
{ run base; run wrmid; run wrmid; run base; } > $OUT/paired.log 2>&1
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base base > $OUT/paired_table.txt 2>&1
( timeout 300 $D/wrmid/test_cuda --wide-fwd > $OUT/widefwd.log 2>&1; echo "wide-fwd rc=$?" >> $OUT/rc.txt ) &
( timeout 300 $D/wrmid/test_cuda --quick > $OUT/quick.log 2>&1; echo "quick rc=$?" >> $OUT/rc.txt ) &
wait
gzip -f $OUT/paired.log $OUT/widefwd.log $OUT/quick.log
cat $OUT/rc.txt; zcat $OUT/widefwd.log.gz | grep -E "every slot|AUTO|FAIL|OK" | tail -8; zcat $OUT/quick.log.gz | tail -2
cat $OUT/paired_table.txt
