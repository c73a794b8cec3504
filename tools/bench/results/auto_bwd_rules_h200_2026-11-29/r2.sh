#!/bin/bash
# the PDL early trigger on the narrow/hidden backwards and on the sweep: pdl2 (trigger on entry) / pdl1 (none), paired
set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u
SH=16384x128,65536x128,262144x128,65536x64,65536x256,4096x128,20000x96,300000x32,4096x4096,16384x4096,643392x139
i=0
for b in pdl2 pdl1 pdl1 pdl2; do
  i=$((i+1))
  FUSEDNORM_LIBRARY=$PWD/gpu_dev/$b/lib/libfusednorm_ops.so timeout 100 python3 tools/bench/bench.py --inputs cold --seed 1131 \
    --providers fusednorm:auto --dtypes bf16,fp32 --ops bwd,add_bwd --shapes $SH --time-budget 80 \
    --check-elems 100000 --out $OUT/q${i}_$b > $OUT/q${i}_$b.log 2>&1 || echo "bench $b rc $?"
done
date -u
i=0
for b in pdl2 pdl1 pdl1 pdl2; do
  i=$((i+1))
  FUSEDNORM_LIBRARY=$PWD/gpu_dev/$b/lib/libfusednorm_ops.so timeout 100 python3 tools/bench/bench.py --inputs cold --sweep 200 \
    --seed 20261126 --sweep-max-elems 268435456 --providers fusednorm:auto --time-budget 80 --check-elems 100000 \
    --out $OUT/s${i}_$b > $OUT/s${i}_$b.log 2>&1 || echo "sweep $b rc $?"
done
date -u
cd $OUT && tar czf runs.tgz q?_* s?_* 2>/dev/null; rm -rf q?_* s?_*; ls $OUT
