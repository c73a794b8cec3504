#!/bin/bash
# Call 5 (carry=["gpu_dev_pack"]: build `base`): per-instruction warp-stall sampling (ncu
# SourceCounters) of AUTO's wide forward, bf16 256 x 1048576 with and without a weight and
# 1024 x 65536; reports exported as the SASS source page (CSV) and the raw stall-reason metrics.
set -u
D=$(mktemp -d); tar -C $D -xJf gpu_dev_pack/builds.tar.xz || exit 1
B=$D/base/bench_modes
for c in "w1m:--shapes=256x1048576" "w1m_nw:--shapes=256x1048576 --no-weight" "w65k:--shapes=1024x65536"; do
  l="${c%%:*}"; f="${c#*:}"
  timeout 150 ncu --section SourceCounters --section WarpStateStats --section InstructionStats --metrics group:smsp__pcsamp_warp_stall_reasons \
    --launch-skip 3 --launch-count 1 -o /tmp/rep_$l $B --fwd-only --iters=2 --modes=auto $f > /tmp/ncu_$l.log 2>&1 || echo "$l rc=$?"
  ncu --import /tmp/rep_$l.ncu-rep --page source --csv --print-source sass > $OUT/sass_$l.csv 2> /tmp/src_$l.err || { echo "$l source page rc=$?"; head -5 /tmp/src_$l.err; }
  ncu --import /tmp/rep_$l.ncu-rep --page raw --csv > $OUT/raw_$l.csv 2>&1
  ncu --import /tmp/rep_$l.ncu-rep --page details > $OUT/details_$l.txt 2>&1
  echo "== $l: $(wc -l < $OUT/sass_$l.csv) sass lines"; head -3 $OUT/sass_$l.csv | cut -c1-400
done
cd $OUT && gzip -9 *.csv *.txt; ls -la
