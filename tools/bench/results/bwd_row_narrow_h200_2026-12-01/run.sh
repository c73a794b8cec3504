#!/bin/bash
# The lean backward's one-slot 16-bit instance bounded to 20 / 24 / 32 CTAs of 64 threads an SM
# (FN_BWD_ROW_NARROW_MIN_CTAS; 48 / 40 / 32 registers) against the 64-register instance at 16 (head1),
# bench_modes AUTO backward, paired (head1 nX... nX... head1); then head1's test_cuda --plan-sections
# (full: the fused 16-bit split section) and n24's --quick.
# run(carry=["gpu_dev_pack"], command="bash tools/bench/results/bwd_row_narrow_h200_2026-12-01/run.sh")
D=/tmp/gd; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz || exit 2
O=${OUT:-/tmp}; L=$O/paired.log; : > $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
SH=4096x512,16384x384,65536x320,65536x512,131072x512,262144x384,200000x264,58000x500,1000x512,132x512
for b in head1 n20 n24 n32 n32 n24 n20 head1; do
  for cfg in "bf16::$SH" "bf16:--fused:$SH" "f16::$SH" "f16:--fused:$SH"; do
    IFS=: read -r dt fl sh <<< "$cfg"
    echo "### $b $dt${fl:+fused}" >> $L
    timeout 150 $D/$b/bench_modes --dtype=$dt $fl --bwd --modes=auto --iters=20 --shapes=$sh >> $L 2>&1 || echo "$b $dt $fl rc=$?"
  done
done
date -u
timeout 240 $D/head1/test_cuda --plan-sections > $O/test_cuda_head1_plans.log 2>&1; echo "head1 --plan-sections rc=$?"; tail -1 $O/test_cuda_head1_plans.log
timeout 200 $D/n24/test_cuda --quick > $O/test_cuda_n24_quick.log 2>&1; echo "n24 --quick rc=$?"; tail -1 $O/test_cuda_n24_quick.log
python3 tools/kerneldev/pair_table.py $L --base head1 --modes auto
