#!/bin/bash
# inc2 = inc with four-slot CTAs (f32 256 x 1048576) issuing their copies as main does: main
# (base_bm) / inc (inc_bm) / inc2 at the four-slot shapes and two two-slot ones, then inc2's
# test_cuda --quick --mode=wide. Device tool: carry=["gpu_dev/base_bm", "gpu_dev/inc_bm", "gpu_dev/inc2"].
O=${OUT:-/tmp}; W=/tmp/r10; rm -rf $W; mkdir -p $W
date -u
{
  for b in base_bm inc_bm inc2 inc2 inc_bm base_bm; do
    echo "### $b f32"; gpu_dev/$b/bench_modes --dtype=f32 --bwd --modes=auto --shapes=256x1048576,1844x69916 --iters=20
    echo "### $b f32 --fused"; gpu_dev/$b/bench_modes --dtype=f32 --fused --bwd --modes=auto --shapes=256x1048576 --iters=20
    echo "### $b bf16"; gpu_dev/$b/bench_modes --dtype=bf16 --bwd --modes=auto --shapes=1024x65536 --iters=20
  done
} > $W/modes.log 2>&1
timeout 100 gpu_dev/inc2/test_cuda --quick --mode=wide > $W/tc_wide_quick.log 2>&1; echo "inc2 wide quick rc=$?: $(grep -h 'runs failed' $W/tc_wide_quick.log)"
tar czf $O/run2.tgz -C $W .
python3 - $W/modes.log <<'PY'
import sys,collections
t=collections.defaultdict(lambda: collections.defaultdict(list)); sec=None
for line in open(sys.argv[1]):
    if line.startswith('###'):
        w=line.split(); sec=(w[1], w[2], '--fused' in line); continue
    f=line.split()
    if len(f)>5 and f[2]=='auto': t[(sec[1],sec[2],f[0])][sec[0]].append(float(f[3]))
for k,v in t.items():
    m={b:sum(x)/len(x) for b,x in v.items()}
    print(f"{k[0]:5} {'fused' if k[1] else 'plain':5} {k[2]:>12} base {m['base_bm']:7.1f} inc {m['inc_bm']:7.1f} inc2 {m['inc2']:7.1f} x{m['base_bm']/m['inc2']:.3f}")
PY
date -u
