#!/bin/bash
# The lean backward's two-slot 16-bit instance bounded to 16 CTAs of 64 threads an SM (n2: 64
# registers; FN_AUTO_BWD_ROW_NARROW2_ROWS_PER_SM 0) against the 12-CTA grid of 53c00b3 (fin),
# bench_modes AUTO backward, paired (fin n2 n2 fin); then n2's test_cuda --quick.
# run(carry=["gpu_dev_pack"], command="bash tools/bench/results/bwd_row_narrow2_h200_2026-12-01/run.sh")
D=/tmp/gd; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz || exit 2
O=${OUT:-/tmp}; L=$O/paired.log; : > $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
SH=4096x576,65536x576,16384x768,65536x768,131072x640,4096x1024,65536x1024,1000x1024,132x1024
for b in fin n2 n2 fin; do
  for cfg in "bf16::$SH" "bf16:--fused:$SH" "f16::$SH" "f16:--fused:$SH"; do
    IFS=: read -r dt fl sh <<< "$cfg"
    echo "### $b $dt${fl:+fused}" >> $L
    timeout 150 $D/$b/bench_modes --dtype=$dt $fl --bwd --modes=auto --iters=20 --shapes=$sh >> $L 2>&1 || echo "$b $dt $fl rc=$?"
  done
done
date -u
timeout 200 $D/n2/test_cuda --quick > $O/test_cuda_n2_quick.log 2>&1; echo "n2 --quick rc=$?"; tail -1 $O/test_cuda_n2_quick.log
python3 tools/kerneldev/pair_table.py $L --base fin --modes auto
