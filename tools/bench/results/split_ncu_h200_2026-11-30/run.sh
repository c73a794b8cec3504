#!/bin/bash
# Nsight Compute on the split-row backward (rms_norm_bwd_split) of main's kernels (w16b's
# bench_modes): speed of light, warp stall reasons, memory, one launch each of bf16 and f32 1024 x
# 65536 and f32 fused 1024 x 65536. Full reports in $OUT; key lines on stdout.
# Device tool: carry=["gpu_dev/base_bm"].
O=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for c in "bf16:--dtype=bf16" "f32:--dtype=f32" "f32_fused:--dtype=f32 --fused"; do
  label="${c%%:*}"; flags="${c#*:}"
  timeout 150 ncu -k regex:rms_norm_bwd_split --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats \
    --section LaunchStats --section Occupancy --section SourceCounters \
    gpu_dev/base_bm/bench_modes $flags --bwd --modes=auto --shapes=1024x65536 --iters=3 > "$O/ncu_$label.txt" 2>&1 || echo "$label rc=$?"
  echo "== $label"
  grep -E "Duration|DRAM Throughput|Memory Throughput|Warp Cycles Per Issued|Issued Warp|Stall|No Eligible|Active Warps Per|Eligible Warps|Registers Per|smsp__pcsamp|barrier|long_scoreboard|membar|Warning" "$O/ncu_$label.txt" | sed 's/  */ /g' | head -45
done
date -u
