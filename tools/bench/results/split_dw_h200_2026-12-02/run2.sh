#!/bin/bash
# GPU call 2 (see run1.sh; after run3.sh): the final tree (dw in the kernel for one row group only;
# the several-group path of call 1 and 3 removed): test_cuda --quick of `new` (sm_90a, balance
# compression) with the graph-node count of the split-row path corrected (its partial-dot reset is
# a memset node: run1's only failures in `new`), then AUTO against forced WIDE with its
# bench_modes on the one-row shapes and the suite's 256 x 1048576 (one row group of 256 rows: P1),
# two passes. gpu_dev_pack/c2; p80 (compute_80 PTX) goes with call 4 (run4.sh).
set -u
D=/tmp/devbuilds; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/c2/builds.tar.xz || exit 1
date -u +%T
( s=$(date +%s); timeout 300 $D/new/test_cuda --quick > $OUT/test_new_quick2.txt 2>&1; rc=$?
  echo "test_cuda new --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_new_quick2.txt)" > /tmp/rc_new.txt )
cat /tmp/rc_new.txt
grep -h "FAIL" $OUT/test_new_quick2.txt | cut -c1-200 | head -8
grep -h "dw in the kernel" $OUT/test_new_quick2.txt | grep bwd_split | cut -c1-200
date -u +%T
for pass in 1 2; do
  for cfg in "bf16fused:--dtype=bf16 --fused:1x353166,1x1000000,256x1048576,2x260444" \
             "bf16:--dtype=bf16:1x100000,1x353166,256x1048576,1x24000" \
             "f16:--dtype=f16:1x1000000,256x1048576" \
             "f32:--dtype=f32:1x70000,1x262144,256x524288"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### new $tag pass$pass"
    timeout 150 $D/new/bench_modes $flags --bwd --modes=auto,wide --iters=20 --shapes=$shapes 2>&1
  done
done > $OUT/modes2.log
date -u +%T
grep -E "^###|auto|wide" $OUT/modes2.log | grep -v "^device" | cut -c1-70
(cd $OUT && gzip -f test_*.txt modes2.log)
