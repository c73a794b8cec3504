#!/bin/bash
# GPU call 4: test_cuda --quick of `p80`, the final tree built for compute_80 only (PTX,
# JIT-compiled by the driver on the H200; balance compression). gpu_dev_pack/c4.
set -u
D=/tmp/devbuilds; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/c4/builds.tar.xz || exit 1
date -u +%T
s=$(date +%s); timeout 500 $D/p80/test_cuda --quick > $OUT/test_p80_quick.txt 2>&1; rc=$?
echo "test_cuda p80 --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_p80_quick.txt)"
grep -h "FAIL" $OUT/test_p80_quick.txt | cut -c1-200 | head -8
grep -h "dw in the kernel" $OUT/test_p80_quick.txt | grep bwd_split | cut -c1-200
date -u +%T
gzip -f $OUT/test_p80_quick.txt
