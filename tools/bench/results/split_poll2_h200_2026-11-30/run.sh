#!/bin/bash
# The split-row backward with warp 0 polling a row group's partial dots two rows ahead (split2)
# against one row ahead (w16b, the same tree otherwise): bench_modes AUTO on rows AUTO gives the
# split-row kernel, paired base / new / new / base; then split2's test_cuda --quick --mode=wide,
# its memcheck, and test_cuda --quick. Tarred to $OUT. Device tool: carry=["gpu_dev/w16b", "gpu_dev/split2"].
O=${OUT:-/tmp}; W=/tmp/r6; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
run() { # build dtype flags shapes
  gpu_dev/$1/bench_modes --dtype=$2 $3 --bwd --modes=auto --shapes=$4 --iters=30
}
B16=1024x65536,512x262144,256x1048576,2048x65536,36x296932,105x221953,1450x40836,1024x65537
F32=1024x65536,1844x69916,256x1048576,529x201775,4096x32768,2048x20480,1024x32769
{
  for b in w16b split2 split2 w16b; do
    echo "### $b bf16"; run $b bf16 "" $B16
    echo "### $b bf16 --fused"; run $b bf16 --fused $B16
    echo "### $b f32"; run $b f32 "" $F32
    echo "### $b f32 --fused"; run $b f32 --fused $F32
  done
} > $W/modes.log 2>&1; echo "modes rc=$?"
date -u
timeout 120 gpu_dev/split2/test_cuda --quick --mode=wide > $W/tc_wide_quick.log 2>&1; echo "wide quick rc=$?"
grep -hE "runs failed" $W/tc_wide_quick.log
timeout 150 compute-sanitizer --tool memcheck gpu_dev/split2/test_cuda --quick --mode=wide "--filter=M=7 " > $W/memcheck_wide.log 2>&1
echo "memcheck rc=$?: $(grep 'ERROR SUMMARY' $W/memcheck_wide.log | tail -1)"
timeout 240 gpu_dev/split2/test_cuda --quick > $W/tc_quick.log 2>&1; echo "quick rc=$?"
grep -hE "runs failed|^FAIL" $W/tc_quick.log | head
date -u
tar czf $O/run.tgz -C $W .
python3 - $W/modes.log <<'PY'
import sys,collections
t=collections.defaultdict(list); sec=None
for line in open(sys.argv[1]):
    if line.startswith('###'):
        w=line.split(); sec=(w[1], w[2], '--fused' in line); continue
    f=line.split()
    if len(f)>5 and f[2]=='auto': t[(sec[1],sec[2],f[0])].append((sec[0],float(f[3]),f[4],f[5]))
for k,v in t.items():
    b=[x[1] for x in v if x[0]=='w16b']; a=[x[1] for x in v if x[0]=='split2']
    kk=[x[3] for x in v][0]
    print(f"{k[0]:5} {'fused' if k[1] else 'plain':5} {k[2]:>12} {kk:12} base {b[0]:7.1f} {b[1]:7.1f} new {a[0]:7.1f} {a[1]:7.1f} x{(sum(b)/2)/(sum(a)/2):.3f}")
PY
