#!/bin/bash
# Where the wide forward's instructions go: the SASS of its instances (cuobjdump) and Nsight
# Compute's per-instruction execution counts (SourceCounters, source page as SASS) of one launch
# of bf16 64 x 131072 AUTO (the wide forward, 2 CTAs a row, 4 slots a thread, 12 staged).
# Usage: sass_ncu.sh BUILD (gpu_dev/BUILD/{bin/bench_modes,lib/libfusednorm.so})
set -u
V=${1:-c5}
B=gpu_dev/$V/bin/bench_modes
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
cuobjdump -sass gpu_dev/$V/lib/libfusednorm.so | awk '/Function :/{p = ($0 ~ /fwd_wide/)} p' > $OUT/sass_fwd_wide_$V.txt
grep -c "Function :" $OUT/sass_fwd_wide_$V.txt
for s in "bf16 64x131072" "bf16 16x215344"; do
  set -- $s; tag=$1_$2_$V
  timeout 200 ncu --section SourceCounters --section WarpStateStats --section LaunchStats -k regex:fwd_wide --launch-skip 2 --launch-count 1 \
    -o $OUT/$tag $B --dtype=$1 --fwd-only --modes=auto --iters=5 --shapes=$2 > $OUT/ncu_$tag.log 2>&1; echo "$tag rc=$?"
  ncu -i $OUT/$tag.ncu-rep --page source --print-source sass --csv > $OUT/src_$tag.csv 2> $OUT/src_$tag.err; echo "src rc=$? $(wc -l < $OUT/src_$tag.csv)"
  ncu -i $OUT/$tag.ncu-rep --page details > $OUT/det_$tag.txt 2>&1
done
date -u
gzip -9 $OUT/*.txt $OUT/*.csv
