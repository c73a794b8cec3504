#!/bin/bash
# Nsight Compute: narrow forwards that trail (the flat-tile, warp and thread forwards), fusednorm
# AUTO against torch.compile's Triton kernel, one launch each after warm-up, caches flushed.
set -u
[ -d gpu_bundle/bin ] || tar -xJf gpu_bundle_pack/bundle.tar.xz
export PYTHONPATH=$PWD/gpu_bundle/python PYTHONUNBUFFERED=1 FUSEDNORM_LIBRARY=$PWD/gpu_bundle/lib/libfusednorm_ops.so
D=tools/bench/results/qk_fwd_ncu_h200_2026-12-01
date -u +%T
i=0
for c in "fp32 274156x39 fwd" "fp16 539974x12 add_fwd" "fp16 58551x295 fwd" "fp16 1025612x1 add_fwd"; do for pv in fusednorm compile; do i=$((i+1))
timeout 100 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy \
  --metrics dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,gpu__time_duration.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio \
  -k "regex:rms_norm|triton" --launch-skip 6 --launch-count 1 python3 $D/one.py "$c" $pv > $OUT/ncu_$i.txt 2>&1; echo "$c $pv rc=$?"
done; done
cd $OUT && cat ncu_*.txt > ncu_all.txt && rm ncu_?.txt && gzip -k ncu_all.txt
grep -E "^  [a-z_].*\(|Duration|DRAM Throughput|dram__bytes|inst_executed|stalled|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Size|Grid Size|Warp Cycles Per Issued|Dynamic Shared" ncu_all.txt | sed 's/  */ /g' | head -150
