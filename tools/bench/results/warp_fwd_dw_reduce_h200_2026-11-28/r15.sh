set -u
W=/tmp/r15; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1 FUSEDNORM_LIBRARY=$PWD/gpu_dev/g90v/lib/libfusednorm_ops.so
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 100 gpu_dev/dwr/dwr 4242 > $W/dwr.txt 2>&1; echo "dwr rc=$?"
i=0
for c in "fp16 58551x295 fwd:fusednorm" "fp16 58551x295 fwd:compile" "fp32 157281x190 fwd:fusednorm" "bf16 5265x142 fwd:fusednorm" "bf16 5265x142 fwd:compile" "fp32 274156x39 fwd:fusednorm"; do i=$((i+1))
cs=${c%%:*}; pv=${c##*:}
timeout 100 ncu --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats --metrics smsp__inst_executed.sum,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum -k "regex:fwd|triton|forward" --launch-skip 4 --launch-count 1 python3 gpu_dev/one.py "$cs" $pv > $W/ncu_$i.txt 2>&1; echo "$c rc=$?"
done
cd /tmp && tar czf $OUT/r15.tgz r15
cat $W/dwr.txt
for f in $W/ncu_*.txt; do grep -E "Duration|Registers Per|Block Size|Grid Size|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|DRAM Throughput|Warp Cycles Per Issued|inst_executed|dram__bytes|  [a-z_]+.*\(\d|rms_norm|triton_" $f | head -16; echo; done
