#!/bin/bash
# kernel mutants under test_cuda --quick (each must fail), then the 200-case sweep, AUTO only, paired base/new/new/base
set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
NEW=${NEW:-n1}
date -u
for m in ${MUTANTS:-m1 m2 m3}; do
  s=$(date +%s)
  timeout 200 gpu_dev/$m/bin/test_cuda --quick > $OUT/mut_$m.txt 2>&1; rc=$?
  echo "mutant $m rc $rc ($(( $(date +%s) - s )) s): $(grep -c FAIL $OUT/mut_$m.txt) FAIL lines; $(tail -1 $OUT/mut_$m.txt)"
done
i=0
for b in base $NEW $NEW base; do
  i=$((i+1))
  FUSEDNORM_LIBRARY=$PWD/gpu_dev/$b/lib/libfusednorm_ops.so timeout 170 python3 tools/bench/bench.py --inputs cold --sweep 200 \
    --seed 20261126 --sweep-max-elems 268435456 --providers fusednorm:auto --time-budget 150 --check-elems 100000 \
    --out $OUT/s${i}_$b > $OUT/s${i}_$b.log 2>&1 || echo "sweep $b rc $?"
  date -u
done
cd $OUT && tar czf runs.tgz s*_* mut_*.txt 2>/dev/null; rm -rf s1_* s2_* s3_* s4_* mut_*.txt; ls $OUT
