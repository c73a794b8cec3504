#!/bin/bash
# dw summed in the split-row backward of one row a row group (select.c dw_in_kernel for BWD_SPLIT),
# GPU call 1 of 3. Builds (tools/kerneldev, sm_90a, xz-packed in gpu_dev_pack/c1/builds.tar.xz):
# `new` = the change (the default fatbin compression, balance); `mut` = new with two mutants (the
# one-row path skips each chunk's last column; the last CTA sums one partial row short), built
# with --define=cuda_compress=size: test_cuda --quick of new, test_cuda --bitwise of mut (it must
# fail). run2.sh: p80 and the paired modes; run3.sh: bench.py beside the peers.
set -u
D=/tmp/devbuilds; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/c1/builds.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
( s=$(date +%s); timeout 400 $D/new/test_cuda --quick > $OUT/test_new_quick.txt 2>&1; rc=$?
  echo "test_cuda new --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_new_quick.txt)" > /tmp/rc_new.txt ) &
( s=$(date +%s); timeout 400 $D/mut/test_cuda --bitwise > $OUT/test_mut_bitwise.txt 2>&1; rc=$?
  echo "test_cuda mut --bitwise: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_mut_bitwise.txt)" > /tmp/rc_mut.txt ) &
wait
cat /tmp/rc_new.txt /tmp/rc_mut.txt
echo "-- mut failures:"; grep -h "FAIL" $OUT/test_mut_bitwise.txt | cut -c1-170 | head -8
echo "-- new failures:"; grep -h "FAIL" $OUT/test_new_quick.txt | cut -c1-200 | head -8
grep -h "dw in the kernel\|dw-in-kernel" $OUT/test_new_quick.txt | cut -c1-200 | head -20
date -u +%T
(cd $OUT && gzip -f test_*.txt)
