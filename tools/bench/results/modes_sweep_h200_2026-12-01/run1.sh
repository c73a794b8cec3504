#!/bin/bash
# Call 1 (H200): the bundle of HEAD (bf90641's kernels + 795cad1) — test_cuda --quick and
# --wide-fwd (full: the head-split rule's build had run only its 200-row subset), then AUTO
# against every forced mode on sweep cases 0-99 (seed 20261126, cold).
set -u
[ -d gpu_bundle/bin ] || tar -xJf gpu_bundle_pack/bundle.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
export PYTHONPATH=$PWD/gpu_bundle/python PYTHONUNBUFFERED=1 FUSEDNORM_LIBRARY=$PWD/gpu_bundle/lib/libfusednorm_ops.so
( timeout 200 gpu_bundle/bin/test_cuda --quick > $OUT/quick.txt 2>&1; echo "quick rc $?" ) ; date -u
( timeout 200 gpu_bundle/bin/test_cuda --wide-fwd > $OUT/widefwd.txt 2>&1; echo "wide-fwd rc $?" ) ; date -u
tail -2 $OUT/quick.txt; tail -3 $OUT/widefwd.txt
timeout 280 python3 tools/bench/bench.py --inputs cold --sweep 200 --sweep-range 0:100 \
    --seed 20261126 --sweep-max-elems 268435456 --providers fusednorm --time-budget 250 --check-elems 100000 \
    --out $OUT/m0 > $OUT/m0.log 2>&1 || echo "modes rc $?"
date -u
tar -C $OUT -czf $OUT/m0.tgz m0 && rm -rf $OUT/m0
tail -3 $OUT/m0.log
