#!/bin/bash
# Kernel durations under Nsight Compute (clocks locked, caches flushed before each launch: ncu's
# defaults) of AUTO's forward, base against new, on the small and f32 cases whose bench_modes
# times (events, launch included) scatter by +-10% (pair.sh, small.sh): 8 launches each, after 10.
set -u
D=/tmp/devbuilds
date -u +%T
for cfg in "f16::1000x295 767x198 5601x92 11x52 58551x295" "bf16::5x114 38x365 767x198" \
           "f32::4000x129 4000x449 20750x89 157281x190" "bf16:--fused:157x52 5000x299 2000x77 2113x511" \
           "f32:--fused:4000x129 20000x190"; do
  IFS=: read -r dt fl shapes <<< "$cfg"
  for s in $shapes; do for v in base new; do
    echo "### $v $dt$fl $s"
    timeout 60 ncu --print-units base --metrics gpu__time_duration.sum -k regex:rms_norm_fwd --launch-skip 10 --launch-count 8 \
      $D/$v/bench_modes --dtype=$dt $fl --fwd-only --modes=auto --iters=30 --shapes=$s > /tmp/ncu_one.txt 2>&1
    grep -m1 -E "^  [a-z].*rms_norm_fwd" /tmp/ncu_one.txt | sed 's/^ *//' | cut -c1-90
    grep "gpu__time_duration" /tmp/ncu_one.txt | awk "{print \$NF}" | tr -d , | paste -sd' '
  done; done
done > $OUT/ncu_small.log 2>&1
date -u +%T
python3 - "$OUT/ncu_small.log" <<'PY'
import sys, statistics as st
cur=None; rows={}
for line in open(sys.argv[1]):
    if line.startswith("### "):
        _, v, cfg, s = line.split(); cur=(cfg, s, v); continue
    f=line.split()
    if cur and f and all(x.replace('.','',1).isdigit() for x in f):
        rows[cur]=[float(x)/1000 for x in f]  # ns -> us
keys=sorted({(c,s) for c,s,v in rows}, key=lambda k: list(rows).index(k+('base',)) if k+('base',) in rows else 0)
print(f"{'case':28s} {'base us':>8s} {'new us':>8s} {'base/new':>8s}")
for c,s in keys:
    b=rows.get((c,s,'base')); n=rows.get((c,s,'new'))
    if b and n: print(f"{c+' '+s:28s} {st.median(b):8.2f} {st.median(n):8.2f} {st.median(b)/st.median(n):8.3f}")
PY
