#!/bin/bash
# wr5 (the wide forward's staged slots by 32-bit shared addresses computed once) against wr4,
# AUTO forward, paired wr4 wr5 wr5 wr4; then test_cuda --wide-fwd --quick of wr5.
set -u
D=$(mktemp -d); tar -C $D -xJf gpu_dev_pack/builds.tar.xz || exit 1
date -u
for b in wr4 wr5 wr5 wr4; do
  B=$D/$b/bench_modes
  echo "### $b bf16";  $B --dtype=bf16 --fwd-only --modes=auto --iters=20 --shapes=256x1048576,64x1048576,100x1048576,300x700000,17x262144,8x1048576,1024x300000
  echo "### $b f16";   $B --dtype=f16 --fwd-only --modes=auto --iters=20 --shapes=256x1048576,512x400000
  echo "### $b f32";   $B --dtype=f32 --fwd-only --modes=auto --iters=20 --shapes=128x524288,256x500000,512x524288,1x1048576,1024x200000
  echo "### $b bf16f"; $B --dtype=bf16 --fused --fwd-only --modes=auto --iters=20 --shapes=1024x65536,512x262144,4096x32768,256x1048576,17x262144
  echo "### $b f32f";  $B --dtype=f32 --fused --fwd-only --modes=auto --iters=20 --shapes=512x131072,300x160000
done > $OUT/paired.log 2>&1
date -u
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base wr4 > $OUT/pair_table.txt 2>&1
timeout 150 $D/wr5/test_cuda --wide-fwd --quick > $OUT/test_wide_quick_wr5.log 2>&1; echo "wr5 --wide-fwd --quick rc=$?"; tail -1 $OUT/test_wide_quick_wr5.log
cd $OUT && gzip -9 paired.log test_*.log; cat pair_table.txt
