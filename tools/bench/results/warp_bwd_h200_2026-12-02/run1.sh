#!/bin/bash
# The warp backward, first GPU call (tools/kerneldev builds in gpu_dev_pack/builds.tar.xz, sm_90a):
# `bwbase` = this tree with AUTO's warp-backward rule off (FN_AUTO_BWD_WARP_MAX_N 0: the plans of
# e9c5982), `bwall` = the same sources with AUTO taking the warp backward for every row of 33-256
# columns past the tiny backward (--define=kerneldev_set=FN_AUTO_BWD_WARP_MAX_N=256,
# FN_AUTO_BWD_WARP_ALIGNED_MAX_N=256), `bwmut` = bwall with the row's last column left out of the
# dot (a mutant: test_cuda must fail). test_cuda --quick of bwall and bwmut, then AUTO's backward
# (bench_modes --bwd, cold, 30 iterations) of bwbase and bwall in the order base all all base.
set -u
D=/tmp/devbuilds; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
for t in bwall bwmut; do
  s=$(date +%s); timeout 200 $D/$t/test_cuda --quick > $OUT/test_${t}_quick.txt 2>&1; rc=$?
  echo "test_cuda $t --quick: rc $rc, $(( $(date +%s) - s )) s: $(tail -1 $OUT/test_${t}_quick.txt)"
  grep -m4 -i "fail" $OUT/test_${t}_quick.txt | cut -c1-220
  grep "warp-bwd\] .* launches ran" $OUT/test_${t}_quick.txt
done
date -u +%T
for v in bwbase bwall bwall bwbase; do
  for cfg in "f32:--dtype=f32:643392x139,262144x139,65536x139,16384x178,4096x139,1000x139,100000x45,100000x63,100000x97,26793x82,200000x255,262144x136,65536x200,200000x128,65536x256" \
             "bf16:--dtype=bf16:100000x99,200000x139,65536x255,20000x201,4096x77,300000x45,884287x96,1048576x128,65536x128,262144x256,46667x200,131072x64" \
             "bf16off1:--dtype=bf16 --offset=1:65536x128,262144x256,100000x64" \
             "f16:--dtype=f16:21511x212,300000x77,65536x161" \
             "bf16fused:--dtype=bf16 --fused:53766x85,18523x104,100000x139,65536x128,262144x256,884287x96" \
             "f16fused:--dtype=f16 --fused:21511x212,65536x255" \
             "f32fused:--dtype=f32 --fused:26793x82,643392x139,65536x139,100000x45,200000x128"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 100 $D/$v/bench_modes $flags --bwd --modes=auto --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/paired.log
date -u +%T
python3 tools/kerneldev/pair_table.py $OUT/paired.log --base bwbase --modes auto > $OUT/pair_table.txt
gzip -k $OUT/paired.log; rm $OUT/paired.log
cd $OUT && gzip -f test_*.txt
tail -70 $OUT/pair_table.txt
