#!/bin/bash
# The warp backward, second GPU call: `bwnew` = the committed sources (AUTO's rule select.c
# FN_AUTO_BWD_WARP_*, drawn from run1's pair_table), `bwbase` as in run1. test_cuda --quick and
# --plan-sections of bwnew, compute-sanitizer memcheck and racecheck of its cases of 20001 rows
# (the warp-bwd sections' row loops), then AUTO's backward of both builds in the order base new new
# base on the rule's edges: row counts around FN_AUTO_BWD_WARP_ROWS_PER_SM, 16-bit rows of 45-64
# columns, f32 whole aligned rows of 128-256 columns, and the 200-case sweep's backward cases of
# 33-256 columns.
set -u
D=/tmp/devbuilds; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
for t in "--quick" "--plan-sections"; do
  log=$OUT/test_bwnew_${t#--}.txt
  s=$(date +%s); timeout 200 $D/bwnew/test_cuda $t > $log 2>&1; rc=$?
  echo "test_cuda bwnew $t: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $log)"
  grep -m4 -i "fail" $log | grep -v "0 failed\|0 failures" | cut -c1-220
  grep "warp-bwd\] .* launches ran\|layout" $log | head -4
done
for tool in memcheck racecheck; do
  s=$(date +%s)
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 3 $D/bwnew/test_cuda --quick --filter="M=20001 " > $OUT/san_$tool.txt 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s )) s: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" $OUT/san_$tool.txt | head -2 | tr '\n' ' ')"
  grep "warp-bwd\] .* launches ran" $OUT/san_$tool.txt | head -2
done
date -u +%T
for v in bwbase bwnew bwnew bwbase; do
  for cfg in "f32:--dtype=f32:6000x139,8448x139,12671x139,12672x139,16000x139,100000x128,100000x132,100000x160,100000x192,100000x252,20000x136,643392x139" \
             "bf16:--dtype=bf16:6000x77,8448x77,12672x77,16000x77,6000x139,12672x139,300000x50,300000x57,300000x63,300000x65,100000x64,50000x33" \
             "bf16off1:--dtype=bf16 --offset=1:300000x64,200000x48,12672x128" \
             "f16:--dtype=f16:200000x70,300000x45,43x1750" \
             "bf16fused:--dtype=bf16 --fused:53766x85,18523x104,12672x139,300000x63" \
             "f16fused:--dtype=f16 --fused:21511x212,14542x36" \
             "f32fused:--dtype=f32 --fused:26793x82,12672x139,100000x192"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 100 $D/$v/bench_modes $flags --bwd --modes=auto --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/paired2.log
date -u +%T
python3 tools/kerneldev/pair_table.py $OUT/paired2.log --base bwbase --modes auto > $OUT/pair_table2.txt
gzip -k $OUT/paired2.log; rm $OUT/paired2.log
cd $OUT && gzip -f test_*.txt san_*.txt
tail -45 $OUT/pair_table2.txt
