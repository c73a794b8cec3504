#!/bin/bash
# ncu of bf16 16 x 215342 forward: fusednorm AUTO (the head-split wide forward) against Quack and torch.compile.
set -u
export PYTHONPATH="$(bash tools/bench/quack_on_gpu.sh):$PWD/shim/python:${PYTHONPATH:-}" || exit 1
export FUSEDNORM_LIBRARY=$PWD/gpu_dev/q1/lib/libfusednorm_ops.so
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for c in "fusednorm bf16 16x215342" "quack bf16 16x215342" "fusednorm bf16 16x215344"; do
  set -- $c; tag=$1_$3
  timeout 150 ncu --section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
    --metrics smsp__inst_executed.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_lg_cmd_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum \
    --nvtx --nvtx-include "steps/" --launch-skip 6 --launch-count 1 python3 gpu_dev/q1/ncu_one.py $1 $2 $3 > $OUT/ncu_$tag.txt 2>&1; echo "$tag rc=$?"
  grep -E "^  [a-zA-Z_].*\(|Duration|Registers Per|Block Size|Grid Size|Cluster Size|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|DRAM Throughput|inst_executed|wavefronts|requests|sectors|dram__bytes|Warp Cycles Per Issued|Issue Slots Busy|Stall Long|L1/TEX Hit|L2 Hit|Dynamic Shared|Static Shared" $OUT/ncu_$tag.txt | sed 's/  */ /g' | head -32
done
gzip -9 $OUT/*.txt
