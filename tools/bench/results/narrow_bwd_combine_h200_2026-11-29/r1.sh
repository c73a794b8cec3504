#!/bin/bash
# test_cuda --quick on the new build, then paired AUTO runs base/new/new/base on narrow shapes, then peers.
set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl && export PYTHONPATH=$PYTHONPATH:/tmp/bench_site
NEW=${NEW:-n1}
date -u
[ -n "${SKIP_TEST:-}" ] || timeout 240 gpu_dev/$NEW/bin/test_cuda --quick > $OUT/test_cuda_quick.txt 2>&1; echo "test_cuda rc $?"; tail -4 $OUT/test_cuda_quick.txt
SH=16384x128,65536x128,262144x128,1048576x128,65536x64,262144x64,65536x256,262144x256,4096x128,20000x96,300000x32
i=0
for b in base $NEW $NEW base; do
  i=$((i+1))
  FUSEDNORM_LIBRARY=$PWD/gpu_dev/$b/lib/libfusednorm_ops.so timeout 150 python3 tools/bench/bench.py --inputs cold --seed 1129 \
    --providers fusednorm:auto --dtypes bf16,fp32 --ops fwd,bwd,add_fwd,add_bwd --shapes $SH --time-budget 100 \
    --check-elems 200000 --out $OUT/p${i}_$b > $OUT/p${i}_$b.log 2>&1 || echo "bench $b rc $?"
done
date -u
FUSEDNORM_LIBRARY=$PWD/gpu_dev/$NEW/lib/libfusednorm_ops.so timeout 200 python3 tools/bench/bench.py --inputs cold --seed 1130 \
  --providers fusednorm:auto,compile,liger --dtypes bf16 --ops fwd,bwd,add_fwd,add_bwd --shapes $SH --time-budget 170 \
  --check-elems 200000 --out $OUT/peers > $OUT/peers.log 2>&1 || echo "peers rc $?"
date -u
cd $OUT && tar czf runs.tgz p*_* peers *.log 2>/dev/null; rm -rf p1_* p2_* p3_* p4_* peers; ls $OUT
