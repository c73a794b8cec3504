#!/bin/bash
# GPU suite section: the replay harness (verify/) on CUDA with the embedded sample capture.
#   libraries          the replay binary finds its shared libraries here (libmpi, libhdf5_serial)
#   replay cuda        data/sample_capture.h5 through the CUDA backend, mode auto: exit 0 = every
#                      record within the accuracy rules, bitwise deterministic run to run
#   replay cuda MODE   the same with each forced kernel mode (shapes a mode cannot run: skipped)
#   mpirun -np 2       two ranks (GPU local_rank % count: both GPUs when 2 are present, else the
#                      two ranks share one); its per-record results must equal the 1-rank run's
# Artifact: $SUITE_OUT/verify_cuda.json (the 1-rank report).
. "$(dirname "$0")/common.sh"
REPLAY="$BUNDLE/bin/replay"
SAMPLE="$BUNDLE/../data/sample_capture.h5" # the working tree's (tracked; the bundle lies in the repo root)
suite_require "$REPLAY" "$SAMPLE" || exit 0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
ngpu="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')"

missing="$(ldd "$REPLAY" 2>&1 | grep 'not found' | tr -s ' \t' ' ' | paste -sd ';')"
if [ -n "$missing" ]; then
  suite_row "libraries" FAIL "replay: $missing"
  exit 0
fi
suite_row "libraries" PASS "$(ldd "$REPLAY" | grep -oE 'lib(mpi|hdf5[a-z_]*)\.so[.0-9]*' | sort -u | paste -sd ' ')"

work="$(mktemp -d)"
suite_check "replay cuda" --timeout 180 --detail '^# (OK|FAILED)' -- \
  "$REPLAY" --device cuda --report "$SUITE_OUT/verify_cuda.json" "$SAMPLE"
for mode in persistent multi_wave_reload multi_wave_cached row_packed wide; do
  suite_check "replay cuda --mode $mode" --timeout 120 --detail '^# (OK|FAILED)' -- \
    "$REPLAY" --device cuda --mode "$mode" --quiet "$SAMPLE"
done
suite_check "mpirun -np 2 replay cuda ($ngpu GPU)" --timeout 180 --detail '^# (OK|FAILED)' -- \
  mpirun -np 2 --oversubscribe --bind-to none -x OMP_NUM_THREADS \
  "$REPLAY" --device cuda --quiet --report "$work/np2.json" "$SAMPLE"
if [ -f "$SUITE_OUT/verify_cuda.json" ] && [ -f "$work/np2.json" ]; then
  suite_check "np 2 == np 1 (per record)" --timeout 60 -- python3 - "$SUITE_OUT/verify_cuda.json" "$work/np2.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
diff = [x["name"] for x, y in zip(a["records"], b["records"])
        if {k: v for k, v in x.items() if k != "dw_allreduce"} != {k: v for k, v in y.items() if k != "dw_allreduce"}]
assert len(a["records"]) == len(b["records"]) and not diff, f"differ: {diff[:5]}"
print(f"{len(a['records'])} records identical at 1 and 2 ranks; verdict {b['verdict']}")
PY
fi
rm -rf "$work"
