#!/bin/bash
# The weight staged with x (ws1) against the build before it (nw0): AUTO forwards, paired
# (base, new, new, base per dtype and op); then test_cuda's wide section, full, and its memcheck.
S=1024x65536,2048x65536,512x262144,400x262144,256x1048576,200x98312,133x90000,64x131072,45x109347,17x262144,16x215344,8x131072,1x262144,4096x32768,201x34306
for d in bf16 f32; do
  for f in "" --fused; do
    for b in nw0 ws1 ws1 nw0; do
      echo "### $b $d $f"; gpu_dev/$b/bench_modes --dtype=$d $f --fwd-only --modes=auto --shapes=$S --iters=30
    done
  done
done > $OUT/run2.log 2>&1
gpu_dev/ws1/test_cuda --wide-fwd > $OUT/wide_fwd_full.log 2>&1; echo "wide-fwd full rc=$?" >> $OUT/rc.txt
compute-sanitizer --tool memcheck gpu_dev/ws1/test_cuda --wide-fwd --quick > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/rc.txt
