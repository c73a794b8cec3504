#!/bin/bash
# The shipped build (fin: the narrow instance at 20 CTAs an SM from 100 rows an SM, 16-bit lean grids
# by own registers) against 4b140a1 (base0), bench_modes AUTO backward, paired (base0 fin fin base0);
# then fin's test_cuda --plan-sections (full: the narrow section) and --quick.
# run(carry=["gpu_dev_pack"], command="bash tools/bench/results/bwd_row_narrow_h200_2026-12-01/run_final.sh")
D=/tmp/gd; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz || exit 2
O=${OUT:-/tmp}; L=$O/paired_final.log; : > $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
SH=131072x512,262144x384,65536x320,16384x384,4096x512,65536x1024,65536x768,32768x2880,65536x2048
F32=65536x512,65536x1024,32768x4096
for b in base0 fin fin base0; do
  for cfg in "bf16::$SH" "bf16:--fused:$SH" "f16::$SH" "f16:--fused:$SH" "f32::$F32" "f32:--fused:$F32"; do
    IFS=: read -r dt fl sh <<< "$cfg"
    echo "### $b $dt${fl:+fused}" >> $L
    timeout 150 $D/$b/bench_modes --dtype=$dt $fl --bwd --modes=auto --iters=20 --shapes=$sh >> $L 2>&1 || echo "$b $dt $fl rc=$?"
  done
done
date -u
timeout 240 $D/fin/test_cuda --plan-sections > $O/test_cuda_fin_plans.log 2>&1; echo "fin --plan-sections rc=$?"; grep -E "narrow|runs failed" $O/test_cuda_fin_plans.log
timeout 200 $D/fin/test_cuda --quick > $O/test_cuda_fin_quick.log 2>&1; echo "fin --quick rc=$?"; tail -1 $O/test_cuda_fin_quick.log
python3 tools/kerneldev/pair_table.py $L --base base0 --modes auto
