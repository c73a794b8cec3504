#!/bin/bash
# AUTO against every forced mode (bench.py --providers fusednorm) on the 200-case sweep (seed 20261126):
#   LIBPACK=/tmp/lib.tar.xz bash run.sh INPUTS A:B     (INPUTS cold or hot)
# The op library of the suite's call (tools/bench/results/bench_h200_2026-12-03_suite), already in /tmp
# on the warm machine. Outputs: $OUT/modes_INPUTS_A_B.tgz (bench.json, bench.md, the log).
set -u
IN=${1:?cold or hot}; R=${2:?range A:B}
mkdir -p gpu_dev/r33 && tar -C gpu_dev/r33 -xJf ${LIBPACK:-gpu_dev/r33pack/lib.tar.xz} || exit 1
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1 FUSEDNORM_LIBRARY=$PWD/gpu_dev/r33/lib/libfusednorm_ops.so
tag=modes_${IN}_${R/:/_}
date -u +%T
timeout ${TMO:-280} python3 tools/bench/bench.py --inputs $IN --sweep 200 --sweep-range $R \
    --seed 20261126 --sweep-max-elems 268435456 --providers fusednorm --time-budget $(( ${TMO:-280} - 20 )) \
    --check-elems 100000 --out /tmp/$tag > /tmp/$tag.log 2>&1
echo "$tag rc=$? $(date -u +%T)"; tail -2 /tmp/$tag.log
tar czf $OUT/$tag.tgz -C /tmp $tag $tag.log
