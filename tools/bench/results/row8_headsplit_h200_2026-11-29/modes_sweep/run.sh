#!/bin/bash
# AUTO against every forced mode on the 200-case sweep, f1 (the kernels and rules of a8d5723)
set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
FUSEDNORM_LIBRARY=$PWD/gpu_dev/f1/lib/libfusednorm_ops.so timeout 520 python3 tools/bench/bench.py --inputs cold --sweep 200 \
    --seed 20261126 --sweep-max-elems 268435456 --providers fusednorm --time-budget 500 --check-elems 100000 \
    --out $OUT/modes > $OUT/modes.log 2>&1 || echo "modes rc $?"
date -u
tail -5 $OUT/modes/bench.md
