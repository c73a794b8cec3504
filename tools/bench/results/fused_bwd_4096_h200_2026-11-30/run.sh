#!/bin/bash
# One device call (nvidia-h200, carry gpu_dev/h86bm: bench_modes of 86ee46f, sm_90a, xz): the
# backward of bf16 rows of 20480-32768 columns, plain and fused add (ds read), every mode that
# runs them (bench_modes; AUTO takes the lean 8-slot kernel, one CTA an SM, at 4096 slots), and
# Nsight Compute's DRAM bytes of AUTO's fused-add backward of 4096 x 32768 against the byte
# formula (4MN: s, dy, ds read, dx written; Quack moves it at 3102 GB/s in the suite of 23:30, ours
# at 2572).
set -u
B=/tmp/bench_modes; xz -dc gpu_dev/h86bm/bench_modes.xz > $B && chmod +x $B || exit 1
O="${OUT:-/tmp/out}"; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="4096x32768,2048x32768,1024x32768,4096x28672,8192x24576,16384x20480"
M="auto,wide,multi_wave_reload,multi_wave_cached,persistent"
for f in "--fused" ""; do
  echo "### bwd $f"; timeout 150 $B --dtype=bf16 $f --bwd --modes=$M --iters=10 --shapes=$S 2>&1
done | tee $O/modes.log
date -u
timeout 120 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed \
  --launch-skip 6 --launch-count 4 $B --dtype=bf16 --fused --bwd --modes=auto --iters=2 --shapes=4096x32768 > $O/ncu_add_bwd.txt 2>&1
echo "ncu rc=$?"; grep -E "rms_norm|dw_|gpu__time|dram__bytes|lts__t_bytes|warps_active|dram__throughput" $O/ncu_add_bwd.txt | sed 's/  */ /g' | head -40
