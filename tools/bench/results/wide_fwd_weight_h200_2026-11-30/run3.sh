#!/bin/bash
# The staged weight loaded once per CTA over a persistent grid of clusters (wsp) against one
# cluster a row (ws2) and the build before the staged weight (nw0), many rows; paired per config.
S=1024x65536,2048x65536,512x262144,400x262144,200x98312,300x160000,4096x32768
for d in bf16 f32; do
  for f in "" --fused; do
    for b in nw0 ws2 wsp wsp ws2 nw0; do
      echo "### $b $d $f"; gpu_dev/$b/bench_modes --dtype=$d $f --fwd-only --modes=auto --shapes=$S --iters=30
    done
  done
done > $OUT/run3.log 2>&1
gpu_dev/wsp/test_cuda --wide-fwd --quick > $OUT/wsp_wide_quick.log 2>&1; echo "wsp wide quick rc=$?" >> $OUT/rc.txt
