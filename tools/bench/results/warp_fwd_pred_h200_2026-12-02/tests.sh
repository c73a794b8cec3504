#!/bin/bash
# The GPU checks of the predicated warp forward (tools/kerneldev builds, gpu_dev_pack/builds.tar.xz,
# unpacked once into /tmp/devbuilds): by default test_cuda --quick and --plan-sections of `new`
# (sm_90a) and --quick of `mut` (a mutant: the row loads predicated by column <= n, one element
# past the row read into its sum; it must fail). TESTS="NAME FLAG;NAME FLAG" picks others, e.g.
# "p80 --quick" (the same sources built for compute_80 only: the driver JIT-compiles the PTX and
# the plan is made at cc 8.0).
set -u
D=/tmp/devbuilds; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
IFS=';' read -ra T <<< "${TESTS:-new --quick;new --plan-sections;mut --quick}"
for t in "${T[@]}"; do
  set -- $t; log=$OUT/test_${1}_${2#--}.txt
  s=$(date +%s); timeout 200 $D/$1/test_cuda $2 > $log 2>&1; rc=$?
  echo "test_cuda $t: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $log)"
  grep -m3 -i "fail" $log | cut -c1-220
done
cd $OUT && gzip -f test_*.txt; date -u +%T
