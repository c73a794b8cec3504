set -u
D=$(mktemp -d); tar -C $D -xJf gpu_dev_pack/builds.tar.xz || exit 1
B=$D/h0/bench_modes
for c in "w65k:--shapes=1024x65536" "w262k:--shapes=512x262144"; do
  l="${c%%:*}"; f="${c#*:}"
  timeout 150 ncu --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section SourceCounters --section InstructionStats --metrics group:smsp__pcsamp_warp_stall_reasons \
    --launch-skip 3 --launch-count 1 -o /tmp/rep_$l $B --fwd-only --iters=2 --modes=auto $f > /tmp/ncu_$l.log 2>&1 || echo "$l rc=$?"
  ncu --import /tmp/rep_$l.ncu-rep --page source --csv --print-source sass > $OUT/sass_$l.csv 2> /tmp/src_$l.err || echo "$l source rc=$?"
  ncu --import /tmp/rep_$l.ncu-rep --page details > $OUT/details_$l.txt 2>&1
  echo "== $l"; grep -E "Duration|DRAM Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Warp Cycles Per Issued|Executed Ipc|Issued Warp|Block Limit|L2 Hit|Executed Instructions  " $OUT/details_$l.txt | sed 's/  */ /g' | head -30
done
cd $OUT && gzip -9 *.csv *.txt; ls -la
