#!/bin/bash
# The lean forward at 8 slots a thread (r8a: AUTO takes it at every row count) against HEAD's
# S = 4 at up to 1024 threads, paired head / r8a / r8a / head, bench_modes AUTO, cold; then forced
# wide against AUTO on the fused add's forward below its wide cut; then test_cuda --quick of r8a.
# Device tool: carry=["gpu_dev/head", "gpu_dev/r8a"]; logs to $OUT.
O=${OUT:-/tmp}; IT=${IT:-20}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
R="66 132 264 528 1056 4096"
shp() { local s=""; for m in $R; do for n in $1; do s="$s,${m}x$n"; done; done; echo "${s#,}"; }
B16=$(shp "16392 20480 24576 28672 32768"); F32=$(shp "8196 12288 16384"); H16=$(shp "16392 32768")
for i in 1 2; do
  for v in head r8a; do
    [ $i = 2 ] && v=$([ $v = head ] && echo r8a || echo head)
    timeout 120 gpu_dev/$v/bench_modes --dtype=bf16 --fwd-only --modes=auto --iters=$IT --shapes=$B16 > $O/$v.bf16.$i.log 2>&1 || echo "$v bf16 $i rc=$?"
    timeout 120 gpu_dev/$v/bench_modes --dtype=f16 --fwd-only --modes=auto --iters=$IT --shapes=$H16 > $O/$v.f16.$i.log 2>&1 || echo "$v f16 $i rc=$?"
    timeout 120 gpu_dev/$v/bench_modes --dtype=f32 --fwd-only --modes=auto --iters=$IT --shapes=$F32 > $O/$v.f32.$i.log 2>&1 || echo "$v f32 $i rc=$?"
  done
done
date -u
R="132 264 1056 4096"
timeout 150 gpu_dev/head/bench_modes --dtype=bf16 --fused --fwd-only --modes=auto,wide --iters=$IT --shapes=$(shp "12288 16384 24576 32768 40000") > $O/wide_fused.bf16.log 2>&1 || echo "wide bf16 rc=$?"
timeout 150 gpu_dev/head/bench_modes --dtype=f32 --fused --fwd-only --modes=auto,wide --iters=$IT --shapes=$(shp "8192 12288 16384 24576") > $O/wide_fused.f32.log 2>&1 || echo "wide f32 rc=$?"
date -u
timeout 240 gpu_dev/r8a/test_cuda --quick > $O/test_cuda_quick.r8a.log 2>&1; echo "test_cuda r8a rc=$?"
grep -E "FAIL|runs failed" $O/test_cuda_quick.r8a.log | head -20
date -u
