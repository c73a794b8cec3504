#!/bin/bash
# The cases of pair.sh that came out below 0.97x (small problems, f32, the fused add of few rows)
# again, with more iterations (300) and more alternations (base new new base, twice; bench_modes'
# cold inputs).
set -u
D=/tmp/devbuilds
date -u +%T
for v in base new new base base new new base; do
  for cfg in "f16:--dtype=f16:1000x295,767x198,5601x92,11x52,4000x449" \
             "bf16:--dtype=bf16:5x114,38x365,767x198" \
             "f32:--dtype=f32:20750x89,157281x190,4000x129,58551x401,4000x449" \
             "bf16fused:--dtype=bf16 --fused:157x52,5000x299,2000x77,2113x511,30000x255" \
             "f32fused:--dtype=f32 --fused:20000x190,4000x129"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 100 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=300 --shapes=$shapes 2>&1
  done
done > $OUT/small.log
date -u +%T
python3 tools/kerneldev/pair_table.py $OUT/small.log --base base --modes auto > $OUT/small_table.txt
gzip -k $OUT/small.log; rm $OUT/small.log
cat $OUT/small_table.txt | tail -40
