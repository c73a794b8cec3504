#!/bin/bash
# AUTO for 16-bit rows of 3073-4096 slots from two rows an SM (w16b) against AUTO before (w16, the
# split-row, cluster or generic kernel), at 3073-3616 slots (the fp32 weight stage) and 3648-4096
# (the raw 16-bit stage); then w16b's quick forced-persistent test_cuda (its row8 section requires
# raw-16-bit launches) and AUTO's quick pass of the backward sections. Tarred to $OUT.
# Device tool: carry=["gpu_dev/w16", "gpu_dev/w16b"].
O=${OUT:-/tmp}; W=/tmp/r5; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S=264x24584,400x26624,1000x28672,2000x24584,4096x26624,264x28672,132x26624,1000x32768,4096x30720
{
  for d in bf16 f16; do for f in "" --fused; do
    echo "### before $d $f"; gpu_dev/w16/bench_modes --dtype=$d $f --bwd --modes=auto --shapes=$S --iters=30
    echo "### after $d $f"; gpu_dev/w16b/bench_modes --dtype=$d $f --bwd --modes=auto --shapes=$S --iters=30
    echo "### before $d $f (again)"; gpu_dev/w16/bench_modes --dtype=$d $f --bwd --modes=auto --shapes=$S --iters=30
  done; done
} > $W/modes.log 2>&1; echo "modes rc=$?"
date -u
timeout 120 gpu_dev/w16b/test_cuda --quick --mode=persistent > $W/tc_persistent_quick.log 2>&1; echo "persistent quick rc=$?"
grep -hE "runs failed|eight slots" $W/tc_persistent_quick.log
timeout 300 gpu_dev/w16b/test_cuda --quick > $W/tc_quick.log 2>&1; echo "quick rc=$?"
grep -hE "runs failed|FAIL" $W/tc_quick.log | head
date -u
tar czf $O/run2.tgz -C $W .
python3 - $W/modes.log <<'PY'
import sys,collections
t=collections.defaultdict(list); sec=None
for line in open(sys.argv[1]):
    if line.startswith('###'):
        w=line.split(); sec=(w[1], w[2], '--fused' in line); continue
    f=line.split()
    if len(f)>5 and f[2]=='auto': t[(sec[1],sec[2],f[0])].append((sec[0],float(f[3]),f[5]))
for k,v in t.items():
    b=[x[1] for x in v if x[0]=='before']; a=[x[1] for x in v if x[0]=='after']
    kb=[x[2] for x in v if x[0]=='before'][0]; ka=[x[2] for x in v if x[0]=='after'][0]
    print(f"{k[0]:5} {'fused' if k[1] else 'plain':5} {k[2]:>11} before {min(b):7.1f} {kb:12} after {a[0]:7.1f} {ka:12} x{min(b)/a[0]:.3f}")
PY
