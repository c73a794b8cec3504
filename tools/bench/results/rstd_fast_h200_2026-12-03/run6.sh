#!/bin/bash
# bench.py beside the peers on the thread forward's shapes (the 7 fwd_thread shapes of the 200-case
# sweep and f32 199463 x 4, each dtype, plain and fused), both input modes: the op library of the change (new)
# with torch, torch.compile and Liger, then the op library of main before it (base) alone, in
# one call. Libraries: bazel build --define=cuda_archs=sm_90a //shim:libfusednorm_ops.so of each
# tree, the op library and the kernels' library beside it, xz-packed as libs.tar.xz
# (new/lib, base/lib). Carry: gpu_dev_libs (libs.tar.xz), .whl (Liger).
# BUILDS (default "new base") and PEERS (the new build's providers) trim it to the device time left.
set -u
mkdir -p gpu_dev/libs && tar -C gpu_dev/libs -xJf gpu_dev_libs/libs.tar.xz || exit 1
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl 2>/dev/null
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=2216x1,86289x1,116265x1,209133x1,1025612x1,108860x2,486416x3,199463x4
for b in ${BUILDS:-new base}; do
  prov=fusednorm:auto; [ $b = new ] && prov=${PEERS:-fusednorm:auto,torch,compile,liger}
  PYTHONPATH=$PWD/shim/python:/tmp/bench_site FUSEDNORM_LIBRARY=$PWD/gpu_dev/libs/$b/lib/libfusednorm_ops.so \
    PYTHONUNBUFFERED=1 timeout 280 python3 tools/bench/bench.py --inputs both --providers $prov \
    --dtypes bf16,fp16,fp32 --ops fwd,add_fwd --shapes $S --seed 20261203 --time-budget ${BUDGET:-240} \
    --out $OUT/bench_$b > $OUT/bench_$b.log 2>&1
  echo "$b rc=$? $(date -u +%T)"; tail -3 $OUT/bench_$b.log
done
