#!/bin/bash
# GPU call 3 of 3 (see run1.sh): AUTO (dw in the split-row kernel) against forced WIDE (the same
# kernel and grid, dw_reduce's second launch) with bench_modes --bwd (cold, 30 iterations), two
# passes; then bench.py on the few-row wide backwards beside torch eager, torch.compile and Liger
# 0.8.5, both input modes, every output checked. gpu_dev_pack/c3: `new`'s bench_modes and the op
# library (sm_90a) with the kernels' library beside it; .whl: the Liger wheel.
set -u
D=/tmp/devbuilds; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/c3/builds.tar.xz || exit 1
date -u +%T
for pass in 1 2; do
  for cfg in "bf16fused:--dtype=bf16 --fused:1x353166,2x260444,8x20000,16x30000,1x40000,1x1000000" \
             "bf16:--dtype=bf16:1x100000,1x353166,4x32768,12x40000,2x1048576,1x24000" \
             "f16:--dtype=f16:1x1000000,3x131072,1x65536" \
             "f32:--dtype=f32:1x70000,1x262144,4x65536,8x40000" \
             "f32fused:--dtype=f32 --fused:1x100000,2x200000,6x50000"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### new $tag pass$pass"
    timeout 120 $D/new/bench_modes $flags --bwd --modes=auto,wide --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/modes.log
date -u +%T
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl 2>/dev/null
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site FUSEDNORM_LIBRARY=$D/lib/libfusednorm_ops.so PYTHONUNBUFFERED=1
timeout 330 python3 tools/bench/bench.py --inputs both --providers fusednorm:auto,fusednorm:wide,torch,compile,liger \
  --dtypes bf16,fp16,fp32 --shapes 1x353166,2x260444,1x100000,4x32768,16x30000,1x1000000 --ops bwd,add_bwd \
  --seed 20261202 --time-budget 300 --out /tmp/fewrows > /tmp/fewrows.log 2>&1
echo "bench rc=$? $(date -u +%T)"; tail -30 /tmp/fewrows.log
tar czf $OUT/fewrows.tgz -C /tmp fewrows fewrows.log
gzip -f $OUT/modes.log
