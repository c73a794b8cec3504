#!/bin/bash
# wr4 (the every-slot-staged wide forward with hoisted shared addresses and an unguarded instance
# for whole chunks) against h0 (b35e460's kernels), AUTO forward, paired h0 wr4 wr4 h0; then
# test_cuda --wide-fwd (full) and --quick of wr4.
set -u
D=$(mktemp -d); tar -C $D -xJf gpu_dev_pack/builds.tar.xz || exit 1
S16=1024x65536,2048x65536,512x262144,140x65536,33x262144,4096x49152,1024x98304,700x98304,140x49152,64x131072
S32=1024x65536,512x131072,2048x32768,200x98312,140x49152,64x65536
date -u
for b in h0 wr4 wr4 h0; do
  B=$D/$b/bench_modes
  echo "### $b bf16";  $B --dtype=bf16 --fwd-only --modes=auto --iters=30 --shapes=$S16
  echo "### $b f16";   $B --dtype=f16 --fwd-only --modes=auto --iters=30 --shapes=1024x65536,512x262144,4096x49152
  echo "### $b f32";   $B --dtype=f32 --fwd-only --modes=auto --iters=30 --shapes=$S32
  echo "### $b nw";    $B --dtype=bf16 --no-weight --fwd-only --modes=auto --iters=30 --shapes=1024x65536,512x262144
  echo "### $b ctl";   $B --dtype=bf16 --fused --fwd-only --modes=auto --iters=30 --shapes=1024x65536,16384x8192
done > $OUT/paired.log 2>&1
date -u
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base h0 > $OUT/pair_table.txt 2>&1
/usr/bin/time -f "%e s" timeout 200 $D/wr4/test_cuda --wide-fwd > $OUT/test_wide_wr4.log 2>&1; echo "wr4 --wide-fwd rc=$?"
grep -E "every slot staged|weight staged|runs failed|FAIL" $OUT/test_wide_wr4.log | head -8; tail -2 $OUT/test_wide_wr4.log
timeout 200 $D/wr4/test_cuda --quick > $OUT/test_quick_wr4.log 2>&1; echo "wr4 --quick rc=$?"; tail -2 $OUT/test_quick_wr4.log
cd $OUT && gzip -9 paired.log test_*.log; cat pair_table.txt
