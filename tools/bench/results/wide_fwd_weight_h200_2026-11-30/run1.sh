#!/bin/bash
# With and without a weight: what the weight's loads cost the wide forward of many rows (AUTO).
B=gpu_dev/nw0/bench_modes
S=1024x65536,512x262144,256x1048576,4096x32768,2048x32768,201x34306,4096x16384
for d in bf16 f32; do
  for f in "" --fused; do
    for w in "" --no-weight; do
      echo "### $d $f $w"; $B --dtype=$d $f $w --fwd-only --modes=auto,wide --shapes=$S --iters=30
    done
  done
done 2>&1 | tee $OUT/run1.log
BUILD=nw0 bash tools/kerneldev/ncu_fwd.sh "w:--modes=auto --shapes=1024x65536" "nw:--modes=auto --shapes=1024x65536 --no-weight" 2>&1 | tee $OUT/ncu1.log
