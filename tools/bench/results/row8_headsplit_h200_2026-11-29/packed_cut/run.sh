#!/bin/bash
# c4 = f1 with FN_AUTO_PACKED_BWD_ROWS_PER_SM 4 (was 8): AUTO f1 / c4 / c4 / f1 on narrow backwards of 300-942 rows
set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
SH=""
for m in 300 400 528 700 942; do for n in 8 29 44 64 100 128 200 250; do SH="$SH,${m}x$n"; done; done
i=0
for b in f1 c4 c4 f1; do
  i=$((i+1))
  FUSEDNORM_LIBRARY=$PWD/gpu_dev/$b/lib/libfusednorm_ops.so timeout 120 python3 tools/bench/bench.py --inputs cold --seed 1208 \
    --providers fusednorm:auto --dtypes bf16,fp32 --ops bwd,add_bwd --shapes ${SH#,} --time-budget 110 \
    --check-elems 100000 --out $OUT/p${i}_${b}_nb > $OUT/p${i}_${b}_nb.log 2>&1 || echo "run $i $b rc $?"
  date -u
done
cd $OUT && tar czf runs.tgz p?_* && rm -rf p?_*; ls $OUT
