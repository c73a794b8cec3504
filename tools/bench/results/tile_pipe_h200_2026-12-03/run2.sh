#!/bin/bash
# test_cuda of run1.sh's `tp` build (gpu_dev_pack/tpt/test.tar.xz): --quick and --plan-sections.
set -u
D=/tmp/devbuilds_tpt; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/tpt/test.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
for sec in --quick --plan-sections; do
  s=$(date +%s); timeout 240 $D/tp/test_cuda $sec > $OUT/test_tp$sec.txt 2>&1; rc=$?
  echo "test_cuda tp $sec: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_tp$sec.txt)"
  grep -m6 "FAIL" $OUT/test_tp$sec.txt | cut -c1-200; gzip -f $OUT/test_tp$sec.txt
done
