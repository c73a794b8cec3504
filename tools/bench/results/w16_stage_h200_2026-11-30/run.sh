#!/bin/bash
# The raw-16-bit weight stage as separate instances (branch w16-stage): forced-persistent test_cuda
# (quick, then every case at n 32768, where only that stage fits), a memcheck at 32768, and
# bench_modes AUTO / persistent at 16-bit widths of 3617-4096 slots (where AUTO does not take it)
# for the AUTO rule. Tarred to $OUT. Device tool: carry=["gpu_dev/w16"].
O=${OUT:-/tmp}; W=/tmp/r4; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 90 gpu_dev/w16/test_cuda --quick --mode=persistent > $W/tc_persistent_quick.log 2>&1; echo "persistent quick rc=$?"
timeout 60 gpu_dev/w16/test_cuda --mode=persistent "--filter=N=32768 " > $W/tc_persistent_32768.log 2>&1; echo "persistent N=32768 rc=$?"
grep -hE "runs failed|eight slots|raw" $W/tc_*.log
timeout 60 compute-sanitizer --tool memcheck gpu_dev/w16/test_cuda --mode=persistent "--filter=M=7 N=32768" > $W/memcheck_32768.log 2>&1
echo "memcheck rc=$?: $(grep 'ERROR SUMMARY' $W/memcheck_32768.log | tail -1)"
date -u
{
  for d in bf16 f16; do for f in "" --fused; do
    echo "### $d $f"; gpu_dev/w16/bench_modes --dtype=$d $f --bwd --modes=auto,persistent --shapes=132x29184,264x29184,400x30720,1000x30720,2000x32768,4096x32768,1000x32768,264x32768 --iters=30
  done; done
} > $W/modes.log 2>&1; echo "modes rc=$?"
date -u
tar czf $O/run.tgz -C $W .
grep -v "^device\|^copy" $W/modes.log | awk '{print $1,$2,$3,$4,$5,$6,$7}' | head -60
