#!/bin/bash
# t3 = t1 + AUTO's row-packed backward from 8 rows an SM and dw in the kernel for one CTA only (cc >= 9)
# (A) test_cuda --quick: t3 (sm_90a), w3 (compute_80 PTX); (B) held-out shapes t1/t3/t3/t1; (C) the sweep t1/t3/t3/t1
set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u
timeout 150 gpu_dev/t3/bin/test_cuda --quick > $OUT/t3_quick.txt 2>&1; echo "t3 test_cuda rc $?: $(tail -1 $OUT/t3_quick.txt)"
date -u
SH=1100x16,1100x77,1100x130,1100x250,1500x33,1500x96,1500x200,2300x12,2300x64,2300x128,2300x255,1400x50,2x3000,5x1500,9x777,16x2222,28x640,12x4100
i=0
for b in t1 t3 t3 t1; do
  i=$((i+1))
  FUSEDNORM_LIBRARY=$PWD/gpu_dev/$b/lib/libfusednorm_ops.so timeout 100 python3 tools/bench/bench.py --inputs cold --seed 1150 \
    --providers fusednorm:auto --dtypes bf16,fp32 --ops bwd,add_bwd --shapes $SH --time-budget 80 \
    --check-elems 100000 --out $OUT/h${i}_$b > $OUT/h${i}_$b.log 2>&1 || echo "held $b rc $?"
done
date -u
i=0
for b in t1 t3 t3 t1; do
  i=$((i+1))
  FUSEDNORM_LIBRARY=$PWD/gpu_dev/$b/lib/libfusednorm_ops.so timeout 100 python3 tools/bench/bench.py --inputs cold --sweep 200 \
    --seed 20261126 --sweep-max-elems 268435456 --providers fusednorm:auto --time-budget 80 --check-elems 100000 \
    --out $OUT/s${i}_$b > $OUT/s${i}_$b.log 2>&1 || echo "sweep $b rc $?"
done
date -u
timeout 220 gpu_dev/w3/bin/test_cuda --quick > $OUT/w3_quick.txt 2>&1; echo "w3 (compute_80) test_cuda rc $?: $(tail -1 $OUT/w3_quick.txt)"
date -u
cd $OUT && tar czf runs.tgz h?_* s?_* *_quick.txt 2>/dev/null; rm -rf h?_* s?_*; ls $OUT
