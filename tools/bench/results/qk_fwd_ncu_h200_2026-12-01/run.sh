#!/bin/bash
# Nsight Compute: the narrow (q/k-norm) forward, fusednorm AUTO (rms_norm_fwd_lanes) against
# torch.compile's Triton kernel, one launch each after warm-up, caches flushed (ncu's default).
set -u
[ -d gpu_bundle/bin ] || tar -xJf gpu_bundle_pack/bundle.tar.xz
export PYTHONPATH=$PWD/gpu_bundle/python PYTHONUNBUFFERED=1 FUSEDNORM_LIBRARY=$PWD/gpu_bundle/lib/libfusednorm_ops.so
D=tools/bench/results/qk_fwd_ncu_h200_2026-12-01
date -u +%T
i=0
for c in "bf16 65536x128 fwd" "bf16 1048576x128 fwd" "bf16 131072x512 fwd"; do for pv in fusednorm compile; do i=$((i+1))
timeout 120 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,smsp__inst_executed.sum,gpu__time_duration.sum \
  -k "regex:rms_norm|triton" --launch-skip 6 --launch-count 1 python3 $D/one.py "$c" $pv > $OUT/ncu_$i.txt 2>&1; echo "$c $pv rc=$?"
done; done
cd $OUT && cat ncu_*.txt > ncu_all.txt && rm ncu_?.txt && gzip -k ncu_all.txt
grep -E "^  [a-z_].*\(|Duration|DRAM Throughput|Memory Throughput|dram__bytes|lts__t_sectors|inst_executed|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Size|Grid Size|Warp Cycles Per Issued|L2 Hit" ncu_all.txt | sed 's/  */ /g' | head -120
