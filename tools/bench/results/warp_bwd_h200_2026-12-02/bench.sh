#!/bin/bash
# bench.py, AUTO beside the peers (torch, torch.compile, Liger, Quack), both input modes, on the
# backward cases the warp backward moves: the op library of a --define=cuda_archs=sm_90a build of
# the committed tree (gpu_dev/libpack2: libfusednorm_ops.so and libfusednorm.so), Quack staged by tools/bench/quack_on_gpu.sh (three calls
# before this one; the third kept the op library pack in /tmp: LIBPACK=/tmp/lib.tar.xz), Liger from .whl/ (tools/bench/README.md "Quack on the GPU machine").
set -u
QP=$(bash tools/bench/quack_on_gpu.sh) || exit 1
mkdir -p gpu_dev/lib && tar -C gpu_dev -xJf ${LIBPACK:-gpu_dev/libpack2/lib.tar.xz}
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site:$QP FUSEDNORM_LIBRARY=$PWD/gpu_dev/lib/libfusednorm_ops.so PYTHONUNBUFFERED=1
P=fusednorm:auto,torch,compile,liger,quack
date -u +%T
python3 tools/bench/bench.py --dtypes fp32 --shapes 643392x139,200000x255,100000x97 \
  --ops bwd --providers $P --inputs both --seed 20261202 --time-budget 110 --out $OUT/f32 > $OUT/f32.log 2>&1; echo "f32 rc $?"
python3 tools/bench/bench.py --dtypes fp32 --shapes 26793x82,643392x139 \
  --ops add_bwd --providers $P --inputs both --seed 20261202 --time-budget 80 --out $OUT/f32a > $OUT/f32a.log 2>&1; echo "f32a rc $?"
python3 tools/bench/bench.py --dtypes fp16,bf16 --shapes 300000x77,200000x139,65536x255 \
  --ops bwd --providers $P --inputs both --seed 20261202 --time-budget 150 --out $OUT/b16 > $OUT/b16.log 2>&1; echo "b16 rc $?"
python3 tools/bench/bench.py --dtypes fp16,bf16 --shapes 21511x212,53766x85 \
  --ops add_bwd --providers $P --inputs both --seed 20261202 --time-budget 110 --out $OUT/b16a > $OUT/b16a.log 2>&1; echo "b16a rc $?"
date -u +%T
for t in f32 f32a b16 b16a; do grep -E "^\| [0-9]+ \|" $OUT/$t/bench.md | head -20; done
cd $OUT && tar -czf bench_out.tgz f32 f32a b16 b16a f32.log f32a.log b16.log b16a.log && rm -rf f32 f32a b16 b16a *.log
