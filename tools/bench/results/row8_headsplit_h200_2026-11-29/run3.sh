#!/bin/bash
# x1 = HEAD + the lean backward at S = 8 (AUTO takes it at any row count: the experiment) + the
# head-split lean forward at the aligned bounds (16-bit plain S = 4 at 1024 threads).
# (A) test_cuda --quick on x1; (B) AUTO old (fin) / new (x1), paired old/new/new/old; forced wide beside new
set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 200 gpu_dev/x1/bin/test_cuda --quick > $OUT/x1_quick.txt 2>&1; echo "x1 test_cuda rc $?: $(tail -1 $OUT/x1_quick.txt)"
grep -E "row8|eight slots|^FAIL" $OUT/x1_quick.txt | head -20
date -u
SB=""; SB16=""; SF=""
for m in 8 66 132 400 1000 4096; do for n in 8200 12288 16384; do SB="$SB,${m}x$n"; done; for n in 16400 24576 32768; do SB16="$SB16,${m}x$n"; done; done
for m in 288 1000 2000; do for n in 16390 24583 32390; do SF="$SF,${m}x$n"; done; done
SF="$SF,8x16411,18x25734,45x25734,65x25734,90x20001,140x24583"
i=0
for b in fin x1 x1 fin; do
  i=$((i+1))
  P=fusednorm:auto; [ $i = 2 ] && P=fusednorm:auto,fusednorm:wide
  export FUSEDNORM_LIBRARY=$PWD/gpu_dev/$b/lib/libfusednorm_ops.so
  timeout 100 python3 tools/bench/bench.py --inputs cold --seed 1205 --providers fusednorm:auto --dtypes fp32 --ops bwd \
    --shapes ${SB#,} --time-budget 90 --check-elems 100000 --out $OUT/p${i}_${b}_b32 > $OUT/p${i}_${b}_b32.log 2>&1 || echo "b32 $b rc $?"
  timeout 100 python3 tools/bench/bench.py --inputs cold --seed 1206 --providers fusednorm:auto --dtypes bf16 --ops bwd \
    --shapes ${SB16#,} --time-budget 90 --check-elems 100000 --out $OUT/p${i}_${b}_b16 > $OUT/p${i}_${b}_b16.log 2>&1 || echo "b16 $b rc $?"
  timeout 100 python3 tools/bench/bench.py --inputs cold --seed 1207 --providers $P --dtypes fp16 --ops fwd \
    --shapes ${SF#,} --time-budget 90 --check-elems 20000 --out $OUT/p${i}_${b}_f16 > $OUT/p${i}_${b}_f16.log 2>&1 || echo "f16 $b rc $?"
  date -u
done
cd $OUT && tar czf runs.tgz p?_* x1_quick.txt && rm -rf p?_*; ls $OUT
