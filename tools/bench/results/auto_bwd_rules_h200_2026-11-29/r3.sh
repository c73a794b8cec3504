#!/bin/bash
# t1 = main without the early trigger. (A) test_cuda --quick; (B) row-packed vs persistent crossover
# (forced modes and AUTO, two runs); (C) dw in the kernel on/off (t2, FN_NO_DWK), paired on/off/off/on
set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u
timeout 170 gpu_dev/t1/bin/test_cuda --quick > $OUT/t1_quick.txt 2>&1; echo "t1 test_cuda rc $?: $(tail -1 $OUT/t1_quick.txt)"
date -u
SH=""
for m in 64 128 256 512 1024 2048 4096; do for n in 8 24 44 64 100 128 200 256; do SH="$SH,${m}x$n"; done; done
SH=${SH#,}
for i in 1 2; do
  FUSEDNORM_LIBRARY=$PWD/gpu_dev/t1/lib/libfusednorm_ops.so timeout 200 python3 tools/bench/bench.py --inputs cold --seed 113$i \
    --providers fusednorm:auto,fusednorm:persistent,fusednorm:row_packed --dtypes bf16,fp32 --ops bwd,add_bwd --shapes $SH --time-budget 180 \
    --check-elems 20000 --out $OUT/x$i > $OUT/x$i.log 2>&1 || echo "cross $i rc $?"
  date -u
done
SH2=1x1024,2x630,4x2048,6x467,8x4096,16x4096,32x8192,1x16384,3x9000,12x1536,24x3000,32x2048,20x700,8x12288,2x32768,30x5000
i=0
for v in on off off on; do
  i=$((i+1))
  if [ $v = off ]; then export FN_NO_DWK=1; else unset FN_NO_DWK; fi
  FUSEDNORM_LIBRARY=$PWD/gpu_dev/t2/lib/libfusednorm_ops.so timeout 100 python3 tools/bench/bench.py --inputs cold --seed 1140 \
    --providers fusednorm:auto --dtypes bf16,fp32 --ops bwd,add_bwd --shapes $SH2 --time-budget 80 \
    --check-elems 100000 --out $OUT/d${i}_$v > $OUT/d${i}_$v.log 2>&1 || echo "dwk $v rc $?"
done
unset FN_NO_DWK
date -u
cd $OUT && tar czf runs.tgz x? x?.log d?_* t1_quick.txt 2>/dev/null; rm -rf x? x?.log d?_* t1_quick.txt; ls $OUT
