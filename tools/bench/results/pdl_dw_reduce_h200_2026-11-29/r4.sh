#!/bin/bash
# PDL variants against the n1 build: test_cuda --quick (pdl2), paired AUTO runs on narrow backwards and the sweep
set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u
timeout 130 gpu_dev/pdl2/bin/test_cuda --quick > $OUT/pdl2_quick.txt 2>&1; echo "pdl2 test_cuda rc $?: $(tail -1 $OUT/pdl2_quick.txt)"
SH=16384x128,65536x128,262144x128,65536x64,65536x256,4096x128,20000x96,300000x32,4096x4096,16384x4096,1000x2048
i=0
for b in n1 pdl2 pdl2 n1; do
  i=$((i+1))
  FUSEDNORM_LIBRARY=$PWD/gpu_dev/$b/lib/libfusednorm_ops.so timeout 100 python3 tools/bench/bench.py --inputs cold --seed 1129 \
    --providers fusednorm:auto --dtypes bf16,fp32 --ops bwd,add_bwd --shapes $SH --time-budget 80 \
    --check-elems 100000 --out $OUT/p${i}_$b > $OUT/p${i}_$b.log 2>&1 || echo "bench $b rc $?"
done
date -u
i=0
for b in n1 pdl2 pdl2 n1; do
  i=$((i+1))
  FUSEDNORM_LIBRARY=$PWD/gpu_dev/$b/lib/libfusednorm_ops.so timeout 100 python3 tools/bench/bench.py --inputs cold --sweep 200 \
    --seed 20261126 --sweep-max-elems 268435456 --providers fusednorm:auto --time-budget 80 --check-elems 100000 \
    --out $OUT/s${i}_$b > $OUT/s${i}_$b.log 2>&1 || echo "sweep $b rc $?"
done
date -u
cd $OUT && tar czf runs.tgz p*_* s*_* *.txt 2>/dev/null; rm -rf p1_* p2_* p3_* p4_* p5_* p6_* s1_* s2_* s3_* s4_* *.txt; ls $OUT
