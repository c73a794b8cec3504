#!/bin/bash
# The lean tiny backward, the second and third calls: `run2.sh m1 m2` (gpu_dev_pack/c2: the mutants of
# run1.sh's header, their test_cuda --quick at once), then `STAGE=1 run2.sh p80` (gpu_dev/c3: the
# lean backward's tree built for compute_80 only, the driver JIT-compiling it), which also staged
# Quack's part aa for the suite (tools/bench/results/bench_h200_2026-12-02_suite).
set -u
[ $# -ge 1 ] || { echo "usage: run2.sh BUILD..." >&2; exit 2; }
[ "${STAGE:-0}" = 1 ] && { bash tools/bench/quack_on_gpu.sh --stage || exit 1; }
D=/tmp/devbuilds; mkdir -p $D; for f in gpu_dev_pack/c[23]/builds.tar.xz; do tar -C $D -xJf $f || exit 1; done
date -u +%T
for t in "$@"; do
  ( s=$(date +%s); timeout 240 $D/$t/test_cuda --quick > $OUT/test_${t}_quick.txt 2>&1; rc=$?
    echo "test_cuda $t --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_${t}_quick.txt)" > /tmp/rc_$t.txt ) &
done
wait
for t in "$@"; do
  cat /tmp/rc_$t.txt; grep -m8 "FAIL" $OUT/test_${t}_quick.txt | cut -c1-200; gzip -f $OUT/test_${t}_quick.txt
done
