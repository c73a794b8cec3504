#!/bin/bash
# The split-row backward at 1024 threads a CTA (t1024: FN_SPLIT_THREADS=1024, one slot a thread for
# chunks of up to 1024 slots) against 512 (base_bm = main), bench_modes AUTO, paired base / new /
# new / base; then t1024's test_cuda --quick --mode=wide. Device tool: carry=["gpu_dev/base_bm", "gpu_dev/t1024"].
O=${OUT:-/tmp}; W=/tmp/r8; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
run() { gpu_dev/$1/bench_modes --dtype=$2 $3 --bwd --modes=auto --shapes=$4 --iters=30; }
B16=1024x65536,256x1048576,2048x65536,1450x40836,105x221953,36x296932
F32=1024x65536,1844x69916,256x1048576,4096x32768,529x201775
{
  for b in base_bm t1024 t1024 base_bm; do
    echo "### $b bf16"; run $b bf16 "" $B16
    echo "### $b bf16 --fused"; run $b bf16 --fused $B16
    echo "### $b f32"; run $b f32 "" $F32
    echo "### $b f32 --fused"; run $b f32 --fused $F32
  done
} > $W/modes.log 2>&1; echo "modes rc=$?"
date -u
timeout 120 gpu_dev/t1024/test_cuda --quick --mode=wide > $W/tc_wide_quick.log 2>&1; echo "wide quick rc=$?"
grep -hE "runs failed" $W/tc_wide_quick.log
date -u
tar czf $O/run3.tgz -C $W .
python3 - $W/modes.log <<'PY'
import sys,collections
t=collections.defaultdict(lambda: collections.defaultdict(list)); cfg={}; sec=None
for line in open(sys.argv[1]):
    if line.startswith('###'):
        w=line.split(); sec=(w[1], w[2], '--fused' in line); continue
    f=line.split()
    if len(f)>5 and f[2]=='auto':
        t[(sec[1],sec[2],f[0])][sec[0]].append(float(f[3])); cfg[(sec[1],sec[2],f[0],sec[0])]=' '.join(f[5:8])
for k,v in t.items():
    m={b:sum(x)/len(x) for b,x in v.items()}
    print(f"{k[0]:5} {'fused' if k[1] else 'plain':5} {k[2]:>12} {m['base_bm']:7.1f} {m['t1024']:7.1f} x{m['base_bm']/m['t1024']:.3f}  {cfg[k+('t1024',)]}")
PY
