#!/bin/bash
# 1) the PDL early trigger: pdl2 (trigger on entry) / pdl1 (no trigger) / n1 (no PDL), paired
# 2) AUTO against every forced mode on the 200-case sweep (pdl2 = main 95d5f4e)
set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
SH=1000x2048,500x2048,1056x2048,2000x2048,264x2048,1000x1024,1000x4096,1000x3072,4096x2048
i=0
for b in pdl2 pdl1 n1 n1 pdl1 pdl2; do
  i=$((i+1))
  FUSEDNORM_LIBRARY=$PWD/gpu_dev/$b/lib/libfusednorm_ops.so timeout 100 python3 tools/bench/bench.py --inputs cold --seed 1130 \
    --providers fusednorm:auto --dtypes bf16,fp32 --ops bwd,add_bwd --shapes $SH --time-budget 80 \
    --check-elems 100000 --out $OUT/p${i}_$b > $OUT/p${i}_$b.log 2>&1 || echo "bench $b rc $?"
done
date -u
FUSEDNORM_LIBRARY=$PWD/gpu_dev/pdl2/lib/libfusednorm_ops.so timeout 420 python3 tools/bench/bench.py --inputs cold --sweep 200 \
    --seed 20261126 --sweep-max-elems 268435456 --providers fusednorm --time-budget 400 --check-elems 100000 \
    --out $OUT/modes > $OUT/modes.log 2>&1 || echo "modes rc $?"
date -u
cd $OUT && tar czf runs.tgz p*_* modes* 2>/dev/null; rm -rf p?_* modes modes.log; ls $OUT
