#!/bin/bash
# The lean backward's grid by its own registers (rowregs) against HEAD 4b140a1 (base0): bench_modes
# AUTO backward, paired (base0 rowregs rowregs base0), bf16 / fp16 / f32, plain and fused add.
# run(carry=["gpu_dev_pack"], command="bash tools/bench/results/bwd_row_grid_h200_2026-12-01/run.sh")
D=/tmp/gd; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz || exit 2
O=${OUT:-/tmp}; L=$O/paired.log; : > $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
H16=4096x576,65536x576,4096x768,65536x768,16384x1000,4096x1024,65536x1024,262144x384,131072x512,16384x1536,65536x2048,32768x2880,1000x1024
F32=4096x256,65536x256,65536x384,131072x512,4096x768,65536x768,4096x1024,65536x1024,16384x2048,32768x2048,16384x2880,8192x4096,32768x4096
for b in base0 rowregs rowregs base0; do
  for cfg in "bf16::$H16" "bf16:--fused:$H16" "f16::$H16" "f16:--fused:$H16" "f32::$F32" "f32:--fused:$F32"; do
    IFS=: read -r dt fl sh <<< "$cfg"
    echo "### $b $dt${fl:+fused}" >> $L
    timeout 150 $D/$b/bench_modes --dtype=$dt $fl --bwd --modes=auto --iters=20 --shapes=$sh >> $L 2>&1 || echo "$b $dt $fl rc=$?"
  done
done
date -u
timeout 200 $D/rowregs/test_cuda --quick > $O/test_cuda_quick.log 2>&1; echo "test_cuda --quick rc=$?"; tail -1 $O/test_cuda_quick.log
python3 tools/kerneldev/pair_table.py $L --base base0 --modes auto
