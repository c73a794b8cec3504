#!/bin/bash
# Narrow rows the flat tiles keep: `new` (09bb09d) against `w2` (the same kernels, AUTO giving the
# warp forward the plain 16-bit rows of 33-128 columns at any count two rows a warp, f32 33-64
# columns two rows a warp at any count, and the fused add's 16-bit 33-128 and f32 33-64 columns one
# row a warp at any count), AUTO timed new w2 w2 new twice (bench_modes, cold, 100 iterations);
# then Nsight Compute kernel durations of the same (median of 5 launches after 10). HELD=1: the
# held-out shapes of the rules drawn from the first run (w2b.* outputs, new w2 w2 new, 50 iterations);
# HELD=2: the chosen rule's edges and a sweep case it moves (w2c.*).
set -u
D=/tmp/devbuilds; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz
date -u +%T
CFGS=("bf16::162158x81,300000x101,200000x33,20000x47" "f16::100000x65,50000x45,500000x127,8000x99" \
      "f32::274156x39,100000x47,20000x35,5000x41" "bf16:--fused:100000x77,50000x45,20000x127,5000x99" \
      "f16:--fused:300000x101,100000x33" "f32:--fused:100000x39,50000x50,8000x61")
ORDER="new w2 w2 new new w2 w2 new"; IT=100; TAG=w2
if [ "${HELD:-0}" = 1 ]; then
  CFGS=("bf16::1000000x65,700000x97" "f16::40000x67,25000x119" "f16:--fused:30000x113,33000x99" "bf16:--fused:10000x105" \
        "f32:--fused:500000x55,150000x63,20000x49" "f32::120000x41,60000x37,30000x45,200000x47")
  ORDER="new w2 w2 new"; IT=50; TAG=w2b
fi
if [ "${HELD:-0}" = 2 ]; then  # the rule's edges and the sweep case it moves that was not measured
  CFGS=("f32:--fused:4356x53,1000000x49" "bf16:--fused:33792x97" "f32::1000000x45" "bf16::21121x65")
  ORDER="new w2 w2 new"; IT=50; TAG=w2c
fi
for v in $ORDER; do
  for cfg in "${CFGS[@]}"; do
    IFS=: read -r dt fl shapes <<< "$cfg"
    echo "### $v $dt$fl"
    timeout 100 $D/$v/bench_modes --dtype=$dt $fl --fwd-only --modes=auto --iters=$IT --shapes=$shapes 2>&1
  done
done > $OUT/$TAG.log
date -u +%T
python3 tools/kerneldev/pair_table.py $OUT/$TAG.log --base new --modes auto > $OUT/${TAG}_table.txt
gzip -f $OUT/$TAG.log
for cfg in "${CFGS[@]}"; do
  IFS=: read -r dt fl shapes <<< "$cfg"
  for s in ${shapes//,/ }; do for v in new w2; do
    echo "### $v $dt$fl $s"
    timeout 60 ncu --print-units base --metrics gpu__time_duration.sum -k regex:rms_norm_fwd --launch-skip 10 --launch-count 5 \
      $D/$v/bench_modes --dtype=$dt $fl --fwd-only --modes=auto --iters=30 --shapes=$s > /tmp/ncu_one.txt 2>&1
    grep -m1 -E "^  [a-z].*rms_norm_fwd" /tmp/ncu_one.txt | sed 's/^ *//' | cut -c1-70
    grep "gpu__time_duration" /tmp/ncu_one.txt | awk "{print \$NF}" | tr -d , | paste -sd' '
  done; done
done > $OUT/${TAG}_ncu.log 2>&1
date -u +%T
cat $OUT/${TAG}_table.txt
python3 - "$OUT/${TAG}_ncu.log" <<'PY'
import sys, statistics as st
cur=None; rows={}; order=[]
for line in open(sys.argv[1]):
    if line.startswith("### "):
        _, v, cfg, s = line.split(); cur=(cfg, s, v); continue
    f=line.split()
    if cur and f and all(x.isdigit() for x in f):
        rows[cur]=[float(x)/1000 for x in f]  # ns -> us
        if (cur[0],cur[1]) not in order: order.append((cur[0],cur[1]))
print(f"{'ncu case':28s} {'new us':>8s} {'w2 us':>8s} {'new/w2':>8s}")
for c,s in order:
    b=rows.get((c,s,'new')); n=rows.get((c,s,'w2'))
    if b and n: print(f"{c+' '+s:28s} {st.median(b):8.2f} {st.median(n):8.2f} {st.median(b)/st.median(n):8.3f}")
PY
