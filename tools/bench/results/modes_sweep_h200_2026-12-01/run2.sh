#!/bin/bash
# Call 2 (H200, the same bundle, machine still warm): AUTO against every forced mode on sweep
# cases 100-199 cold, then all 200 hot.
set -u
[ -d gpu_bundle/bin ] || tar -xJf gpu_bundle_pack/bundle.tar.xz
date -u
export PYTHONPATH=$PWD/gpu_bundle/python PYTHONUNBUFFERED=1 FUSEDNORM_LIBRARY=$PWD/gpu_bundle/lib/libfusednorm_ops.so
timeout 250 python3 tools/bench/bench.py --inputs cold --sweep 200 --sweep-range 100:200 \
    --seed 20261126 --sweep-max-elems 268435456 --providers fusednorm --time-budget 230 --check-elems 100000 \
    --out $OUT/m1 > $OUT/m1.log 2>&1 || echo "modes rc $?"
date -u
timeout 300 python3 tools/bench/bench.py --inputs hot --sweep 200 \
    --seed 20261126 --sweep-max-elems 268435456 --providers fusednorm --time-budget 280 --check-elems 100000 \
    --out $OUT/h > $OUT/h.log 2>&1 || echo "hot rc $?"
date -u
tar -C $OUT -czf $OUT/m1h.tgz m1 h && rm -rf $OUT/m1 $OUT/h
tail -1 $OUT/m1.log; tail -1 $OUT/h.log
