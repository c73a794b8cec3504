#!/bin/bash
# A probe: the fused add's forward at 8 slots a thread (r8f: the residual two slots at a time,
# 64 registers with 68-100 bytes of spills) forced (multi_wave_cached) against AUTO (wide or
# generic) and the forced wide and reload forwards, bench_modes cold. Tarred to $OUT.
# Device tool: carry=["gpu_dev/r8f/bench_modes"].
O=${OUT:-/tmp}; W=/tmp/r5; rm -rf $W; mkdir -p $W; IT=${IT:-20}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
M="--modes=auto,multi_wave_cached,wide,multi_wave_reload"
timeout 150 gpu_dev/r8f/bench_modes --dtype=bf16 --fused --fwd-only $M --iters=$IT --shapes=264x20480,1056x20480,4096x20480,1056x24576,4096x24576,1056x32768,4096x32768,8192x28672 > $W/bf16.log 2>&1 || echo "bf16 rc=$?"
timeout 150 gpu_dev/r8f/bench_modes --dtype=f32 --fused --fwd-only $M --iters=$IT --shapes=264x10240,1056x10240,4096x12288,8192x10240,4096x16384 > $W/f32.log 2>&1 || echo "f32 rc=$?"
date -u
tar czf $O/run5.tgz -C $W .
grep -v unsupported $W/bf16.log $W/f32.log | grep -E "x[0-9]+ " | awk '{print $1, $2, $3, $4, $5, $6}' | sed 's/.*log://'
