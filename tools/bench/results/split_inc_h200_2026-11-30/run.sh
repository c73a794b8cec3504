#!/bin/bash
# The split-row backward with fewer instructions a row (inc: ring stages by counters instead of a
# 64-bit j % D three times a row; the row's tensor bases once a row, the tensors' loop unrolled)
# against main (base_bm), bench_modes AUTO paired base / inc / inc / base; then inc's test_cuda
# --quick --mode=wide, a memcheck of its 7-row cases, and test_cuda --quick.
# Device tool: carry=["gpu_dev/base_bm", "gpu_dev/inc"].
O=${OUT:-/tmp}; W=/tmp/r9; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
run() { gpu_dev/$1/bench_modes --dtype=$2 $3 --bwd --modes=auto --shapes=$4 --iters=30; }
B16=1024x65536,256x1048576,2048x65536,1450x40836,105x221953,36x296932
F32=1024x65536,1844x69916,256x1048576,4096x32768,529x201775
{
  for b in base_bm inc inc base_bm; do
    echo "### $b bf16"; run $b bf16 "" $B16
    echo "### $b bf16 --fused"; run $b bf16 --fused $B16
    echo "### $b f32"; run $b f32 "" $F32
    echo "### $b f32 --fused"; run $b f32 --fused $F32
  done
} > $W/modes.log 2>&1; echo "modes rc=$?"
date -u
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
    print(f"{k[0]:5} {'fused' if k[1] else 'plain':5} {k[2]:>12} base {m['base_bm']:7.1f} inc {m['inc']:7.1f} x{m['base_bm']/m['inc']:.3f} ({' '.join('%.1f'%x for x in v['base_bm'])} / {' '.join('%.1f'%x for x in v['inc'])})")
PY
timeout 120 gpu_dev/inc/test_cuda --quick --mode=wide > $W/tc_wide_quick.log 2>&1; echo "wide quick rc=$?"
grep -hE "runs failed" $W/tc_wide_quick.log
timeout 90 compute-sanitizer --tool memcheck gpu_dev/inc/test_cuda --quick --mode=wide "--filter=M=7 " > $W/memcheck_wide.log 2>&1
echo "memcheck rc=$?: $(grep 'ERROR SUMMARY' $W/memcheck_wide.log | tail -1)"
timeout 200 gpu_dev/inc/test_cuda --quick > $W/tc_quick.log 2>&1; echo "quick rc=$?"
grep -hE "runs failed|^FAIL" $W/tc_quick.log | head
date -u
tar czf $O/run.tgz -C $W .
