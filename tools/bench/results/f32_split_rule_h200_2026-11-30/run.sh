#!/bin/bash
# AUTO of main (m0: f32 many rows of 2049-7168 slots on the persistent generic kernel; ds out of the
# split-row ring only from 512 threads) against AUTO of the new rules (new: the split-row kernel
# there, FN_AUTO_BWD_F32_SPLIT_*; ds out of the ring at <= 2 slots a thread too,
# FN_SPLIT_DS_DIRECT_MAX_SPT), paired (m0 new new m0): the measured shapes of
# ../f32_many_rows_h200_2026-11-30 and held-out ones, f32 plain and fused, and bf16 fused rows whose
# split-row CTAs have fewer than 512 threads; then test_cuda of new (--mode=wide, --quick) and a
# memcheck of its forced-wide fused cases. Device tool, carry=["gpu_dev_pack"] (pack.sh m0 new+test).
set -u
D=/tmp/d; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
P=600x20408,1279x20408,2400x26720,700x18000,3000x24000,800x28000,5000x17000
F=9384x11020,600x11020,4096x16400,700x9000,3000x13000,1500x15000,5000x24000,800x28672
B=300x36000,1000x36000,4000x36000,2000x50000
for v in m0 new new m0; do
  echo "### $v f32"; timeout 60 $D/$v/bench_modes --dtype=f32 --bwd --modes=auto --iters=15 --shapes=$P
  echo "### $v f32fused"; timeout 60 $D/$v/bench_modes --dtype=f32 --fused --bwd --modes=auto --iters=15 --shapes=$F
  echo "### $v bf16fused"; timeout 60 $D/$v/bench_modes --dtype=bf16 --fused --bwd --modes=auto --iters=15 --shapes=$B
done > $OUT/modes.log 2>&1
date -u
timeout 120 $D/new/test_cuda --mode=wide > $OUT/wide_new.log 2>&1; echo "test_cuda --mode=wide new rc=$?"; grep "ds out of" $OUT/wide_new.log | head -2; tail -1 $OUT/wide_new.log
timeout 150 $D/new/test_cuda --quick > $OUT/quick_new.log 2>&1; echo "test_cuda --quick new rc=$?"; tail -1 $OUT/quick_new.log
timeout 90 compute-sanitizer --tool memcheck $D/new/test_cuda --quick --mode=wide > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?"; tail -2 $OUT/memcheck.log
date -u
python3 tools/kerneldev/pair_table.py $OUT/modes.log | tee $OUT/table.txt
