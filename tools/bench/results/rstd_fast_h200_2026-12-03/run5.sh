#!/bin/bash
# Fifth run, the shipped build (new = the batched fast path for a thread's several rows only; one
# row a thread keeps nvcc's code, after run4): test_rstd from sm_90a and from compute_80 PTX, the
# mutants of mutants.sh (--quick), test_cuda --quick, then run4's Nsight Compute table (kernel
# duration with clocks locked and caches flushed, instructions, registers: three launches a shape
# and build, the median), thread, tile and lanes forwards. BUILDS=new: the shipped build alone (its thread and lanes
# forwards are run4's new build's code, its one-row forwards the base's: their instruction counts
# compared with run4's columns).
set -u
[ -n "${DEV_TAR:-}" ] && { mkdir -p gpu_dev && tar -C gpu_dev -xJf "$DEV_TAR" || exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
L=$OUT/logs; mkdir -p $L; T=gpu_dev/rt
for t in test_rstd test_rstd_ptx80; do
  s=$(date +%s); $T/$t > $L/$t.txt 2>&1; echo "$t rc $? in $(( $(date +%s) - s )) s"; cat $L/$t.txt
done
for m in sqrt_nocorr div_nocorr rcp_nonewton range_wide slow_noeps div_nmax zero_ok neg_zero alias; do
  $T/test_rstd_$m --quick > $L/mutant_$m.txt 2>&1; echo "mutant $m rc $?: $(grep -v ' 0 mismatches' $L/mutant_$m.txt | grep -m1 -E 'mismatch|FN_RSTD' | cut -c1-150)"
done
timeout 300 gpu_dev/new/test_cuda --quick > $L/test_quick.txt 2>&1; echo "test_cuda --quick rc $?: $(tail -1 $L/test_quick.txt)"
grep -h FAIL $L/test_quick.txt | head -5
date -u +%T
prof() { # build label flags...
  local b=$1 l=$2; shift 2
  timeout 120 ncu --kernel-name regex:rms_norm_fwd --launch-skip 2 --launch-count 3 --csv \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,launch__grid_size,launch__block_size \
    gpu_dev/$b/bench_modes --fwd-only --iters=3 --modes=auto "$@" > "$L/ncu_${b}_$l.csv" 2> "$L/ncu_${b}_$l.err" || echo "$b $l rc=$?"
}
while read -r label flags; do
  for b in ${BUILDS:-base new}; do prof $b "$label" $flags; done
done <<'LIST'
f16f_1025612x1 --dtype=f16 --fused --shapes=1025612x1
bf16_209133x1 --dtype=bf16 --shapes=209133x1
f16_100000x3 --dtype=f16 --shapes=100000x3
f32_1000000x3 --dtype=f32 --shapes=1000000x3
f16f_539974x12 --dtype=f16 --fused --shapes=539974x12
bf16_65536x128 --dtype=bf16 --shapes=65536x128
f16f_65536x128 --dtype=f16 --fused --shapes=65536x128
bf16_200000x2 --dtype=bf16 --shapes=200000x2
f16_400000x6 --dtype=f16 --shapes=400000x6
f32f_1000000x1 --dtype=f32 --fused --shapes=1000000x1
LIST
date -u +%T
python3 - "$L" <<'PY' | tee $L/ncu_table.md
import csv, glob, os, sys, collections
L = sys.argv[1]
rows = collections.defaultdict(lambda: collections.defaultdict(list))
kern = {}
for f in sorted(glob.glob(os.path.join(L, "ncu_*.csv"))):
    b, label = os.path.basename(f)[4:-4].split("_", 1)
    lines = [l for l in open(f) if l.startswith('"')]
    for r in csv.DictReader(lines):
        try:
            v = float(r["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            continue
        rows[label][(b, r["Metric Name"])].append(v)
        kern[label] = r["Kernel Name"][:60]
print("| shape | kernel | base us | new us | base/new | base inst | new inst | regs base/new |")
print("|---|---|---:|---:|---:|---:|---:|---|")
for label, d in rows.items():
    med = lambda k: sorted(d[k])[len(d[k]) // 2] if d.get(k) else float("nan")
    tb, tn = med(("base", "gpu__time_duration.sum")), med(("new", "gpu__time_duration.sum"))
    tb = tb if tb == tb else tn  # no base build in this run: its columns repeat new's
    ib, inn = med(("base", "smsp__inst_executed.sum")), med(("new", "smsp__inst_executed.sum"))
    rb, rn = med(("base", "launch__registers_per_thread")), med(("new", "launch__registers_per_thread"))
    scale = 1e-3 if tb > 1000 else 1.0  # ns -> us when ncu reports nanoseconds
    print(f"| {label} | {kern.get(label, '?')} | {tb*scale:.2f} | {tn*scale:.2f} | {tb/tn:.3f} | {ib:.0f} | {inn:.0f} | {rb:.0f}/{rn:.0f} |")
PY
tar -C $OUT -czf $OUT/logs.tgz logs && rm -rf $L
date -u +%T
