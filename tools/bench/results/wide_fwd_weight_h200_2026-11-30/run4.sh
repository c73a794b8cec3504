#!/bin/bash
# The shipped rule (ws3: the weight staged, a CTA's copy kept over its rows) against the build
# before the staged weight (nw0), AUTO forwards, B A per dtype and op, shapes beyond run3's; then
# test_cuda: the wide section in full, --quick, and a memcheck of the wide section's quick run.
S=1024x65536,2048x65536,512x262144,300x160000,200x98312,133x90000,264x131072,1500x40000,700x57344,8192x24576,256x1048576,1x262144,16x215344,45x109347
for d in bf16 f32; do
  for f in "" --fused; do
    for b in nw0 ws3; do
      echo "### $b $d $f"; gpu_dev/$b/bench_modes --dtype=$d $f --fwd-only --modes=auto --shapes=$S --iters=20
    done
  done
done > $OUT/run4.log 2>&1
gpu_dev/ws3/test_cuda --wide-fwd > $OUT/ws3_wide_full.log 2>&1; echo "wide-fwd full rc=$?" >> $OUT/rc.txt
gpu_dev/ws3/test_cuda --quick > $OUT/ws3_quick.log 2>&1; echo "quick rc=$?" >> $OUT/rc.txt
compute-sanitizer --tool memcheck gpu_dev/ws3/test_cuda --wide-fwd --quick > $OUT/ws3_memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/rc.txt
