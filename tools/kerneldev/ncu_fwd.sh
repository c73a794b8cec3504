#!/bin/bash
# tools/kerneldev/ncu_fwd.sh — Nsight Compute sections (speed of light, warp stalls, memory,
# occupancy) of single forward launches of gpu_dev/${BUILD:-new}/bench_modes, one per mode/config
# given as "label:bench_modes flags". Text reports in $OUT/ncu_<label>.txt and a summary of the key
# lines on stdout.
cd "$(dirname "$0")/../.."
O="${OUT:-/tmp}"; B="gpu_dev/${BUILD:-new}/bench_modes"
for c in "$@"; do
  label="${c%%:*}"; flags="${c#*:}"
  timeout 120 ncu --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis \
    --section Occupancy --section LaunchStats --launch-skip 3 --launch-count 1 \
    $B --fwd-only --iters=2 $flags > "$O/ncu_$label.txt" 2>&1 || echo "$label rc=$?"
  echo "== $label ($flags)"
  grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Stall|Warp Cycles Per Issued|L2 Hit|L1/TEX Hit|Issued Warp|Block Limit" "$O/ncu_$label.txt" | sed 's/  */ /g' | head -40
done
