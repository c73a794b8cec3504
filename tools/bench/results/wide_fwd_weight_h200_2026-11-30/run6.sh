#!/bin/bash
# The committed build (ws7: the 300 x 65536 shape in the wide section, the never-planned
# instances dropped): test_cuda --wide-fwd --quick, --quick, a memcheck of the staged-weight case,
# and two staged cases against nw0.
gpu_dev/ws7/test_cuda --wide-fwd --quick > $OUT/ws7_wide_quick.log 2>&1; echo "wide-fwd quick rc=$?" >> $OUT/rc.txt
gpu_dev/ws7/test_cuda --quick > $OUT/ws7_quick.log 2>&1; echo "quick rc=$?" >> $OUT/rc.txt
timeout 150 compute-sanitizer --tool memcheck gpu_dev/ws7/test_cuda --wide-fwd --quick "--filter=M=300 " > $OUT/ws7_memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/rc.txt
for b in nw0 ws7; do echo "### $b bf16"; gpu_dev/$b/bench_modes --dtype=bf16 --fwd-only --modes=auto --shapes=512x262144,1024x65536 --iters=20; done > $OUT/run6.log 2>&1
