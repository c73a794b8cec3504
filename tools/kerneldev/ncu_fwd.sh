#!/bin/bash
# tools/kerneldev/ncu_fwd.sh — Nsight Compute sections (speed of light, warp stalls, memory,
# occupancy) of single forward launches of gpu_dev/${BUILD:-new}/bench_modes, one per mode/config
# given as "label:bench_modes flags". Text reports in $OUT/ncu_<label>.txt and a summary of the key
# lines on stdout.
#   DIR=--bwd       the backward instead (the kernel profiled: the first launch matching KERNEL,
#                   default every launch, after SKIP (default 3) of them)
#   SOURCE=1        also the SourceCounters and InstructionStats sections, and
#                   $OUT/sass_<label>.csv.gz (per-instruction stall samples; ncu_sass_stalls.py's
#                   top 12 printed)
cd "$(dirname "$0")/../.."
O="${OUT:-/tmp}"; B="gpu_dev/${BUILD:-new}/bench_modes"
for c in "$@"; do
  label="${c%%:*}"; flags="${c#*:}"
  src=(); [ "${SOURCE:-0}" = 1 ] && src=(--section SourceCounters --section InstructionStats --export "$O/rep_$label" -f)
  timeout 120 ncu --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis \
    --section Occupancy --section LaunchStats ${KERNEL:+--kernel-name regex:$KERNEL} \
    --launch-skip "${SKIP:-3}" --launch-count 1 "${src[@]}" \
    $B ${DIR:---fwd-only} --iters=2 $flags > "$O/ncu_$label.txt" 2>&1 || echo "$label rc=$?"
  # (with --export ncu prints no sections: they come from the report)
  [ "${SOURCE:-0}" = 1 ] && ncu --import "$O/rep_$label.ncu-rep" >> "$O/ncu_$label.txt" 2>&1
  echo "== $label ($flags)"
  grep -E "Executed Instructions|Issue Slots Busy|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Stall|Warp Cycles Per Issued|L2 Hit|L1/TEX Hit|Issued Warp|Block Limit" "$O/ncu_$label.txt" | sed 's/  */ /g' | head -40
  if [ "${SOURCE:-0}" = 1 ]; then
    ncu --import "$O/rep_$label.ncu-rep" --page source --csv --print-source sass > "$O/sass_$label.csv" 2>/dev/null
    python3 tools/kerneldev/ncu_sass_stalls.py "$O/sass_$label.csv" --top 12 2>&1 | head -40
    gzip -f "$O/sass_$label.csv"; rm -f "$O/rep_$label.ncu-rep"
  fi
done
