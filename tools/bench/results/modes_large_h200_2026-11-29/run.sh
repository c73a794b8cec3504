#!/bin/bash
# AUTO against every forced mode on the suite's and sweep's large cases that trail the peers
# (bench_h200_2026-11-29_suite, _both_sweep): which family is fastest now, before any kernel change.
# Device tool: carry=["gpu_dev/head"]; logs to $OUT.
B=${B:-gpu_dev/head/bench_modes}; O=${OUT:-/tmp}; IT=${IT:-20}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
run() { local tag=$1; shift; timeout 150 $B --iters=$IT "$@" > "$O/$tag.log" 2>&1 || echo "$tag rc=$?"; }
run bf16_fwd --dtype=bf16 --fwd-only --shapes=131072x512,65536x512,262144x512,4096x32768,2048x32768,8192x24576,65536x128,262144x128,4096x128
run bf16_fused_fwd --dtype=bf16 --fused --fwd-only --shapes=4096x32768,2048x32768,8192x24576,131072x512,65536x128
run bf16_bwd --dtype=bf16 --bwd --shapes=4096x32768,2048x32768,131072x512
run bf16_fused_bwd --dtype=bf16 --fused --bwd --shapes=4096x32768,2048x32768,8192x24576
run f32_fused_bwd --dtype=f32 --fused --bwd --shapes=9384x11020,4096x12288,2000x16384
run f32_bwd --dtype=f32 --bwd --shapes=1279x20408,643392x139,1024x65536,4096x24576
run f32_fwd --dtype=f32 --fwd-only --shapes=274156x39,285x48879,4096x32768,65536x128
date -u
