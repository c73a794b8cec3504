#!/bin/bash
# ncu of bf16 64 x 131072 forward: fusednorm AUTO (c5: the wide forward, 2 CTAs a row, 512 threads,
# 4 slots a thread and 96 KB staged) against Quack; one launch each (the 7th of its process).
set -u
export PYTHONPATH="$(bash tools/bench/quack_on_gpu.sh):$PWD/shim/python:${PYTHONPATH:-}" || exit 1
export FUSEDNORM_LIBRARY=$PWD/gpu_dev/c2/lib/libfusednorm_ops.so
D=tools/bench/results/cluster_capacity_h200_2026-11-29/ncu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for c in "fusednorm bf16 64x131072" "quack bf16 64x131072"; do
  set -- $c; tag=$1_$3
  timeout 200 ncu --section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section SchedulerStats \
    --metrics smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__cycles_active.avg,smsp__warps_issue_stalled_long_scoreboard.avg,smsp__warps_issue_stalled_barrier.avg \
    --nvtx --nvtx-include "steps/" --launch-skip 6 --launch-count 1 python3 tools/bench/results/shifted_weight_h200_2026-11-29/ncu/ncu_one.py $1 $2 $3 > $OUT/ncu_$tag.txt 2>&1; echo "$tag rc=$?"
  grep -E "^  [a-zA-Z_].*\(|Duration|Elapsed Cycles|SM Active|Registers Per|Block Size|Grid Size|Cluster Size|Max Active Clusters|Achieved Occupancy|Theoretical Occupancy|DRAM Throughput|inst_executed|dram__bytes|Warp Cycles Per Issued|Dynamic Shared|stalled" $OUT/ncu_$tag.txt | sed 's/  */ /g' | head -30
done
gzip -9 $OUT/*.txt
