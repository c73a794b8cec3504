#!/bin/bash
# The DRAM bytes, L2 hit rate and busy-ness of one 256 x 1048576 forward launch per kernel
# (run on the device from the repository root with gpu_dev/s71 carried; output: ncu.txt).
B=gpu_dev/s71/bench_modes; M="dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed"; for c in "f32 multi_wave_reload" "f32 wide" "bf16 wide" "bf16 multi_wave_reload"; do set -- $c; echo "== $1 256x1048576 $2"; timeout 150 ncu --metrics $M --launch-skip 3 --launch-count 1 $B --fwd-only --iters=2 --dtype=$1 --shapes=256x1048576 --modes=$2 2>&1 | grep -E "dram__|lts__|gpu__time|sm__warps|rms_norm" | sed 's/  */ /g'; done; date -u
