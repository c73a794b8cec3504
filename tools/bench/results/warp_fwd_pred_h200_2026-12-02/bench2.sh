#!/bin/bash
# bench.py, AUTO beside torch and torch.compile (no Quack: its staging takes four calls), both
# input modes, on the two sweep cases the dense narrow-row rule moves: the op library of 037fe19
# (sm_90a, compute_80; gpu_dev/libpack).
set -u
mkdir -p gpu_dev/lib && tar -C gpu_dev -xJf gpu_dev/libpack/lib.tar.xz
export PYTHONPATH=$PWD/shim/python FUSEDNORM_LIBRARY=$PWD/gpu_dev/lib/libfusednorm_ops.so PYTHONUNBUFFERED=1
date -u +%T
python3 tools/bench/bench.py --dtypes bf16 --shapes 162158x81 --ops fwd --providers fusednorm:auto,torch,compile \
  --inputs both --seed 20261202 --time-budget 60 --out $OUT/d16 > $OUT/d16.log 2>&1; echo "d16 rc $?"
python3 tools/bench/bench.py --dtypes fp32 --shapes 4356x53 --ops add_fwd --providers fusednorm:auto,torch,compile \
  --inputs both --seed 20261202 --time-budget 60 --out $OUT/d32 > $OUT/d32.log 2>&1; echo "d32 rc $?"
date -u +%T
grep -hE '^\| (bf16|fp32) ' $OUT/d16/bench.md $OUT/d32/bench.md | cut -d'|' -f2-8,12-14
cd $OUT && rm -f d16/bench.png d32/bench.png && tar -czf bench2_out.tgz d16 d32 d16.log d32.log && rm -rf d16 d32 *.log
