#!/bin/bash
# f32 backward of rows of 2049-7168 vector slots (8K-28K columns) at 4+ rows an SM: AUTO (the
# persistent generic kernel) against forced `wide` (the split-row kernel), plain and fused, builds
# m0 (main) and dd (FN_SPLIT_DS_DIRECT_MIN_THREADS=256: the fused add's ds out of the ring in CTAs
# of fewer threads too), paired order; then test_cuda --mode=wide of m0 (its ds_direct coverage
# check) and --quick --mode=wide of dd. Device tool, carry=["gpu_dev_pack"] (pack.sh m0+test dd+test).
set -u
D=/tmp/d; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
P=600x20408,1279x20408,2400x26720,600x26720,1000x28672,2000x16400,4096x20480
F=9384x11020,2000x11020,600x11020,600x20408,1279x20408,2400x26720,4096x16400
for v in m0 dd dd m0; do
  echo "### $v f32"; timeout 60 $D/$v/bench_modes --dtype=f32 --bwd --modes=auto,wide --iters=15 --shapes=$P
  echo "### $v f32fused"; timeout 60 $D/$v/bench_modes --dtype=f32 --fused --bwd --modes=auto,wide --iters=15 --shapes=$F
done > $OUT/modes.log 2>&1
date -u
timeout 150 $D/m0/test_cuda --mode=wide > $OUT/wide_m0.log 2>&1; echo "test_cuda --mode=wide m0 rc=$?"; tail -2 $OUT/wide_m0.log
timeout 60 $D/dd/test_cuda --quick --mode=wide > $OUT/wide_q_dd.log 2>&1; echo "test_cuda --quick --mode=wide dd rc=$?"; tail -1 $OUT/wide_q_dd.log
date -u
python3 tools/kerneldev/pair_table.py $OUT/modes.log | tee $OUT/table.txt
