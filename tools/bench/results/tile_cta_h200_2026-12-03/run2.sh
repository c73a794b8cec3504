#!/bin/bash
# The 128-thread choice against 256 again, on run.sh's shapes and 14 more (mid-size problems where
# the smaller tiles double the waves among them), three runs each in the order b256 w128 w128 b256
# b256 w128; then w128's test_cuda --quick and its full tile sections (--filter=tile).
# gpu_dev_pack/tc2/builds.tar.xz: bench_modes of b256 and w128, w128's test_cuda; sm_90a.
set -u
D=/tmp/devbuilds_tc2; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/tc2/builds.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
for v in b256 w128 w128 b256 b256 w128; do
  for cfg in "f32:--dtype=f32:274156x39,500000x13,1000000x30,1000000x7,200000x19,70000x19,400000x21" \
             "f32fused:--dtype=f32 --fused:274156x39,600000x39,150000x25,30000x45" \
             "bf16:--dtype=bf16:200000x13,300000x30,100000x60,2000000x12,366740x15,1000000x5,120000x27,3000000x7,50000x10" \
             "bf16fused:--dtype=bf16 --fused:300000x30,1000000x5,366740x15,150000x100,90000x50,800000x17" \
             "f16:--dtype=f16:539974x12,1000000x20,400000x7,700000x9,250000x37" \
             "f16fused:--dtype=f16 --fused:539974x12,247656x26,1000000x20,80000x113,60000x45,300000x11,1500000x10"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 100 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/paired2.log
date -u +%T
python3 tools/kerneldev/pair_table.py $OUT/paired2.log --base b256 --modes auto > $OUT/pair_table2.txt
gzip -f $OUT/paired2.log
s=$(date +%s); timeout 200 $D/w128/test_cuda --quick > $OUT/test_w128_quick.txt 2>&1; rc=$?
echo "test_cuda w128 --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_w128_quick.txt)"
s=$(date +%s); timeout 200 $D/w128/test_cuda --filter=tile > $OUT/test_w128_tile.txt 2>&1; rc=$?
echo "test_cuda w128 --filter=tile: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_w128_tile.txt)"
grep -h -m6 "FAIL" $OUT/test_w128_quick.txt $OUT/test_w128_tile.txt | cut -c1-200
gzip -f $OUT/test_w128_quick.txt $OUT/test_w128_tile.txt
cat $OUT/pair_table2.txt
