#!/bin/bash
# Nsight Compute of a peer's forward (tools/kerneldev/peer_launch.py: warm, then one profiled
# launch) for each "label:provider dtype MxN op" argument; sections as ncu_fwd.sh's. Quack needs
# PYTHONPATH from tools/bench/quack_on_gpu.sh.
O="${OUT:-/tmp}"
for c in "$@"; do
  label="${c%%:*}"; a="${c#*:}"
  timeout 200 ncu --profile-from-start off --launch-count 1 --section SpeedOfLight --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    python3 tools/kerneldev/peer_launch.py $a > "$O/ncu_$label.txt" 2>&1 || echo "$label rc=$?"
  echo "== $label ($a)"
  grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Stall|Warp Cycles Per Issued|L2 Hit|L1/TEX Hit|Issued Warp|Block Limit|Grid Size|Block Size|Shared Memory Config|Dynamic Shared|Cluster" "$O/ncu_$label.txt" | sed 's/  */ /g' | head -45
done
