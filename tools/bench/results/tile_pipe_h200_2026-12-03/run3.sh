#!/bin/bash
# Where the flat-tile forward's time goes: Nsight Compute on b0 (498f32c) and tp (the next tile in
# flight), gpu_dev_pack/tp/builds.tar.xz as in run1.sh: kernel duration, instructions, DRAM
# throughput, shared-memory wavefronts and the warps' stall reasons (per issue), one launch after
# two, a few shapes of run1.sh.
set -u
D=/tmp/devbuilds_tp; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/tp/builds.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
L=$OUT/logs; mkdir -p $L
M=gpu__time_duration.sum,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers
while read -r label flags; do
  for b in b0 tp; do
    timeout 120 ncu --kernel-name regex:rms_norm_fwd_tile --launch-skip 2 --launch-count 1 --csv --metrics $M \
      $D/$b/bench_modes --fwd-only --iters=3 --modes=auto $flags > "$L/ncu_${b}_$label.csv" 2> "$L/ncu_${b}_$label.err" || echo "$b $label rc=$?"
  done
done <<'LIST'
f16f_539974x12 --dtype=f16 --fused --shapes=539974x12
f16_539974x12 --dtype=f16 --shapes=539974x12
f32_274156x39 --dtype=f32 --shapes=274156x39
f32f_274156x39 --dtype=f32 --fused --shapes=274156x39
LIST
date -u +%T
python3 - "$L" <<'PY'
import csv, glob, os, sys
L = sys.argv[1]
rows = {}
for f in sorted(glob.glob(os.path.join(L, "ncu_*.csv"))):
    b, label = os.path.basename(f)[4:-4].split("_", 1)
    text = open(f).read()
    i = text.find('"ID"')
    if i < 0:
        print(f, "no data"); continue
    for r in csv.DictReader(text[i:].splitlines()):
        rows.setdefault(label, {}).setdefault(b, {})[r["Metric Name"]] = r["Metric Value"]
short = lambda m: m.replace("smsp__average_warps_issue_stalled_", "stall_").replace("_per_issue_active.ratio", "").replace(".sum", "").replace(".avg.pct_of_peak_sustained_elapsed", "%").replace(".avg.pct_of_peak_sustained_active", "%")
for label, bs in rows.items():
    print("##", label)
    ms = list(next(iter(bs.values())).keys())
    for m in ms:
        print("%-48s %s" % (short(m), "  ".join("%s=%s" % (b, bs[b].get(m, "?")) for b in bs)))
PY
