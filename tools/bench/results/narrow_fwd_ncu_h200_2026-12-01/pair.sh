#!/bin/bash
# The warp forward with predicated loads at constant offsets (`wp`, tools/kerneldev build, sm_90a)
# against the bundle of HEAD (`base`): test_cuda --quick and --plan-sections of wp, then AUTO
# timed base wp wp base (bench_modes, cold, 30 iterations) on shapes AUTO runs on the warp forward.
set -u
# (base: the bundle's bin/bench_modes and lib/libfusednorm.so, packed as gpu_dev_pack/base.tar.xz)
D=$(mktemp -d); tar -C $D -xJf gpu_dev_pack/builds.tar.xz && tar -C $D -xJf gpu_dev_pack/base.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
( timeout 150 $D/wp/test_cuda --quick > $OUT/t_quick.txt 2>&1; echo "quick rc $?"; tail -1 $OUT/t_quick.txt )
( timeout 150 $D/wp/test_cuda --plan-sections > $OUT/t_plan.txt 2>&1; echo "plan rc $?"; tail -1 $OUT/t_plan.txt )
date -u
H16=58551x295,20000x295,1000x295,30000x301,767x198,8x301,38x365
F32=20750x89,157281x190,50000x333,4000x129
for v in base wp wp base; do
  for cfg in "f16:--dtype=f16:$H16" "bf16:--dtype=bf16:$H16" "f32:--dtype=f32:$F32" \
             "bf16fused:--dtype=bf16 --fused:5000x299,30000x255,2000x77" "f32fused:--dtype=f32 --fused:20000x190,4000x129"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 100 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/paired.log
date -u
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base base --modes auto | tail -40
