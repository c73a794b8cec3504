#!/bin/bash
# The shipped rules (r8c: S = 8 from 8 rows an SM and 2560 slots; the fused add's aligned rows wide
# from 24576 columns) against HEAD (head), paired head / r8c / r8c / head, bench_modes AUTO, cold;
# test_cuda --quick of r8c; compute-sanitizer memcheck over its 1100-row cases. Tarred to $OUT.
# Device tool: carry=["gpu_dev/head", "gpu_dev/r8c"].
O=${OUT:-/tmp}; W=/tmp/r3; rm -rf $W; mkdir -p $W; IT=${IT:-20}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for i in 1 2; do
  for v in head r8c; do
    [ $i = 2 ] && v=$([ $v = head ] && echo r8c || echo head)
    timeout 120 gpu_dev/$v/bench_modes --dtype=bf16 --fwd-only --modes=auto --iters=$IT --shapes=132x32768,264x32768,1056x20480,1056x32768,4096x20480,4096x24576,4096x32768,8192x28672,1000x16384 > $W/$v.bf16.$i.log 2>&1 || echo "$v bf16 $i rc=$?"
    timeout 120 gpu_dev/$v/bench_modes --dtype=f32 --fwd-only --modes=auto --iters=$IT --shapes=1056x12288,4096x12288,4096x16384,8192x10240,4096x8196 > $W/$v.f32.$i.log 2>&1 || echo "$v f32 $i rc=$?"
    timeout 120 gpu_dev/$v/bench_modes --dtype=bf16 --fused --fwd-only --modes=auto --iters=$IT --shapes=264x24576,1056x32768,4096x32768,4096x40000,2048x16384 > $W/$v.fused.$i.log 2>&1 || echo "$v fused $i rc=$?"
    timeout 120 gpu_dev/$v/bench_modes --dtype=f32 --fused --fwd-only --modes=auto --iters=$IT --shapes=264x24576,1056x24576,4096x24576,1056x16384 > $W/$v.f32fused.$i.log 2>&1 || echo "$v f32fused $i rc=$?"
  done
done
date -u
timeout 240 gpu_dev/r8c/test_cuda --quick > $W/test_cuda_quick.r8c.log 2>&1; echo "test_cuda r8c rc=$?"
grep -E "FAIL|runs failed|eight slots" $W/test_cuda_quick.r8c.log | head -20
date -u
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 gpu_dev/r8c/test_cuda --quick "--filter=M=1100 " > $W/memcheck.r8c.log 2>&1; echo "memcheck rc=$?"
grep -E "ERROR SUMMARY|runs failed|eight slots" $W/memcheck.r8c.log | head
date -u
tar czf $O/run3.tgz -C $W .
