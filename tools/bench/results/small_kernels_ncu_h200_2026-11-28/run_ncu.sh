set -u
W=$OUT/r10; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1 FUSEDNORM_LIBRARY=$PWD/gpu_dev/g90/lib/libfusednorm_ops.so
date -u +%T
i=0
for c in "fp16 1x255 bwd" "bf16 1x6732 bwd" "bf16 34x153 add_bwd"; do for pv in fusednorm compile; do i=$((i+1))
timeout 150 ncu --section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy --metrics smsp__inst_executed.sum,sm__cycles_active.max,gpu__time_duration.sum,smsp__cycles_active.max -k "regex:bwd|backward|dw_reduce" --launch-skip 4 --launch-count 2 python3 gpu_dev/one.py "$c" $pv > $W/ncu_$i.txt 2>&1; echo "$c $pv rc=$?"
done; done
cd $W && cat ncu_*.txt > ncu_all.txt && rm ncu_?.txt; grep -A40 "Section: Warp State" ncu_all.txt | grep -E "Stall|rms_norm|triton|Warp Cycles" | head -60 > stalls.txt && grep -E "Duration|Elapsed Cycles|SM Active Cycles|inst_executed|Registers Per|Block Size|Grid Size|Stall|Warp Cycles Per Issued|Static Shared|Dynamic Shared|gpu__time|cycles_active|==PROF==|Kernel|triton_|rms_norm" ncu_all.txt | head -120
