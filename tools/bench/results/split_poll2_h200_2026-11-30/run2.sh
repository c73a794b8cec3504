#!/bin/bash
# The split-row backward's poll of the partial dots: base_bm (w16b's bench_modes: one row ahead, the loop one row a step),
# sp2r (two rows ahead, what was unpublished at the first poll polled again a row later), sp1u
# (one row ahead, the loop unrolled by two). bench_modes AUTO, runs base_bm sp2r sp1u sp1u sp2r base_bm;
# each build's bench_modes alone in gpu_dev/NAME_bm (the call's 64 MiB). Tarred to $OUT.
# Device tool: carry=["gpu_dev/base_bm", "gpu_dev/sp2r_bm", "gpu_dev/sp1u_bm"].
O=${OUT:-/tmp}; W=/tmp/r7; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
run() { gpu_dev/$1/bench_modes --dtype=$2 $3 --bwd --modes=auto --shapes=$4 --iters=30; }
B16=1024x65536,256x1048576,2048x65536,1450x40836,105x221953
F32=1024x65536,1844x69916,256x1048576,4096x32768,529x201775
{
  for b in base_bm sp2r_bm sp1u_bm sp1u_bm sp2r_bm base_bm; do
    echo "### $b bf16"; run $b bf16 "" $B16
    echo "### $b bf16 --fused"; run $b bf16 --fused $B16
    echo "### $b f32"; run $b f32 "" $F32
    echo "### $b f32 --fused"; run $b f32 --fused $F32
  done
} > $W/modes.log 2>&1; echo "modes rc=$?"
date -u
tar czf $O/run2.tgz -C $W .
python3 - $W/modes.log <<'PY'
import sys,collections
t=collections.defaultdict(lambda: collections.defaultdict(list)); sec=None
for line in open(sys.argv[1]):
    if line.startswith('###'):
        w=line.split(); sec=(w[1], w[2], '--fused' in line); continue
    f=line.split()
    if len(f)>5 and f[2]=='auto': t[(sec[1],sec[2],f[0])][sec[0]].append(float(f[3]))
print("dtype op shape base sp2r sp1u (us, mean of two) sp2r/base sp1u/base speedup")
for k,v in t.items():
    m={b:sum(x)/len(x) for b,x in v.items()}
    print(f"{k[0]:5} {'fused' if k[1] else 'plain':5} {k[2]:>12} {m['base_bm']:7.1f} {m['sp2r_bm']:7.1f} {m['sp1u_bm']:7.1f} x{m['base_bm']/m['sp2r_bm']:.3f} x{m['base_bm']/m['sp1u_bm']:.3f}")
PY
