#!/bin/bash
# 16-bit rows with a 16-bit weight stage the weight's raw 16 bits (w16 build): forced persistent
# test_cuda (quick, then every case at n 28928 and 32768, where only that staging fits), a memcheck
# at 32768, and bench_modes: the 8-slot kernel before (fr8b) and after (w16) at widths both run,
# and w16's AUTO / persistent / wide at 28672-32768. Tarred to $OUT.
# Device tool: carry=["gpu_dev/w16", "gpu_dev/fr8b/bench_modes"].
O=${OUT:-/tmp}; W=/tmp/r3; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 60 gpu_dev/w16/test_cuda --quick --mode=persistent > $W/tc_persistent_quick.log 2>&1; echo "persistent quick rc=$?"
for n in 28928 32768; do
  timeout 40 gpu_dev/w16/test_cuda --mode=persistent "--filter=N=$n " > $W/tc_persistent_$n.log 2>&1; echo "persistent N=$n rc=$?"
done
grep -hE "runs failed|eight slots" $W/tc_*.log
timeout 40 compute-sanitizer --tool memcheck gpu_dev/w16/test_cuda --mode=persistent "--filter=M=7 N=32768" > $W/memcheck_32768.log 2>&1
echo "memcheck rc=$?: $(grep 'ERROR SUMMARY' $W/memcheck_32768.log | tail -1)"
date -u
{
  for b in fr8b w16 fr8b; do
    echo "### $b bf16 fused"; gpu_dev/$b/bench_modes --dtype=bf16 --fused --bwd --modes=persistent --shapes=400x16400,1000x20480,4096x24576 --iters=30
  done
  echo "### w16 bf16 fused wide rows"; gpu_dev/w16/bench_modes --dtype=bf16 --fused --bwd --modes=auto,persistent,wide --shapes=132x32768,400x32768,1000x32768,4096x32768,2000x28672 --iters=30
  echo "### w16 bf16 plain wide rows"; gpu_dev/w16/bench_modes --dtype=bf16 --bwd --modes=auto,persistent,wide --shapes=132x32768,400x32768,1000x32768,4096x32768,2000x28672 --iters=30
} > $W/modes.log 2>&1; echo "modes rc=$?"
date -u
tar czf $O/run3.tgz -C $W .
grep -v "^device\|^copy\|^shape" $W/modes.log | awk '{print $1,$2,$3,$4,$5,$6}' | head -60
