#!/bin/bash
# The final rule (ws5) against the build before the staged weight (nw0), AUTO forwards, B A per
# dtype and op; then test_cuda --wide-fwd --quick, test_select and test_cuda --quick.
S=1024x65536,2048x65536,512x262144,300x160000,200x98312,133x90000,264x131072,1500x40000,700x57344,8192x24576,256x1048576,1x262144,16x215344,45x109347
for d in bf16 f32; do
  for f in "" --fused; do
    for b in nw0 ws5; do
      echo "### $b $d $f"; gpu_dev/$b/bench_modes --dtype=$d $f --fwd-only --modes=auto --shapes=$S --iters=20
    done
  done
done > $OUT/run5.log 2>&1
gpu_dev/ws5/test_cuda --wide-fwd --quick > $OUT/ws5_wide_quick.log 2>&1; echo "wide-fwd quick rc=$?" >> $OUT/rc.txt; gpu_dev/ws5/test_select > $OUT/ws5_test_select.log 2>&1; echo "test_select rc=$?" >> $OUT/rc.txt
gpu_dev/ws5/test_cuda --quick > $OUT/ws5_quick.log 2>&1; echo "quick rc=$?" >> $OUT/rc.txt
