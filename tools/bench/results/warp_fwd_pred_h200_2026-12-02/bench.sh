#!/bin/bash
# bench.py, AUTO beside the peers (torch, torch.compile, Liger, Quack), both input modes, on the
# cases the predicated warp forward and its wider AUTO domain move: the op library of the bundle
# build (sm_90a, compute_80; gpu_dev/libpack), Quack staged by tools/bench/quack_on_gpu.sh, Liger
# from .whl/ (tools/bench/README.md "Quack on the GPU machine").
set -u
QP=$(bash tools/bench/quack_on_gpu.sh) || exit 1
mkdir -p gpu_dev/lib && tar -C gpu_dev -xJf gpu_dev/libpack/lib.tar.xz
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site:$QP FUSEDNORM_LIBRARY=$PWD/gpu_dev/lib/libfusednorm_ops.so PYTHONUNBUFFERED=1
P=fusednorm:auto,torch,compile,liger,quack
date -u +%T
python3 tools/bench/bench.py --dtypes fp16,bf16 --shapes 58551x295,200000x365,300000x289,33793x321,20000x295,1000x295,767x198,38x365 \
  --ops fwd --providers $P --inputs both --seed 20261202 --time-budget 250 --out $OUT/b16 > $OUT/b16.log 2>&1; echo "b16 rc $?"
python3 tools/bench/bench.py --dtypes fp16,bf16 --shapes 58551x295,300000x301,5000x299 \
  --ops add_fwd --providers $P --inputs both --seed 20261202 --time-budget 120 --out $OUT/fused > $OUT/fused.log 2>&1; echo "fused rc $?"
python3 tools/bench/bench.py --dtypes fp32 --shapes 157281x190,20750x89,50000x333,4000x129 \
  --ops fwd --providers $P --inputs both --seed 20261202 --time-budget 100 --out $OUT/f32 > $OUT/f32.log 2>&1; echo "f32 rc $?"
date -u +%T
# the device tool brings back a few files: one tarball
cd $OUT && tar -czf bench_out.tgz b16 fused f32 b16.log fused.log f32.log && rm -rf b16 fused f32 *.log
tar -tzf bench_out.tgz | head -20
