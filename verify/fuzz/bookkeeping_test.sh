#!/bin/bash
# verify/fuzz/bookkeeping_test.sh — run_fuzz.sh's verdict on a whole run, with mock fuzzers (shell
# scripts standing in for capture_fuzz[_asan] and the replay; no clang, no HDF5): a run whose every
# fault the triage shows HDF5's passes, also when the last attempt ends on such a fault after the
# executions asked for (libFuzzer then exits 1); a fault not shown HDF5's fails.
set -uo pipefail
if [ -n "${TEST_SRCDIR:-}" ] && [ -n "${TEST_WORKSPACE:-}" ]; then
  HERE="$TEST_SRCDIR/$TEST_WORKSPACE/verify/fuzz"
else
  HERE="$(cd "$(dirname "$0")" && pwd)"
fi
W="$(mktemp -d "${TEST_TMPDIR:-/tmp}/bookkeeping_test.XXXXXX")"
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/bin/seeds"
printf 'seed' > "$W/bin/seeds/s0"
# The mock fuzzer. Fuzzing (-jobs=J -runs=R): logs "Done J*R runs" in fuzz-0.log; attempt k (its
# count kept in $MOCK_STATE) leaves the artifact crash-mock<k> holding the k-th word of
# $MOCK_FAULTS ("hdf5": a fault the triage will show HDF5's, "ours": one it will not, "-": none)
# and exits 1 on it, as libFuzzer does ("hdf5+timeout": also a timeout-mock<k> artifact). Serving files (the triage's replays): each file holding
# "hdf5" is an HDF5 crash (saved under $FUZZ_GUARD_SAVE), printed in the guard's summary line.
cat > "$W/bin/capture_fuzz" <<'MOCK'
#!/bin/bash
jobs="" runs=0 art=""
for a in "$@"; do
  case "$a" in -jobs=*) jobs=${a#-jobs=} ;; -runs=*) runs=${a#-runs=} ;; -artifact_prefix=*) art=${a#-artifact_prefix=} ;; esac
done
if [ -n "$jobs" ]; then
  k=$(( $(cat "$MOCK_STATE" 2>/dev/null || echo 0) + 1 )); echo "$k" > "$MOCK_STATE"
  echo "Done $((jobs * runs)) runs in 1 second(s)" > fuzz-0.log
  read -r -a f <<< "$MOCK_FAULTS"
  w="${f[$((k - 1))]:--}"
  [ "$w" = - ] && exit 0
  printf '%s %s' "${w%+timeout}" "$k" > "${art}crash-mock$k"
  [ "${w%+timeout}" = "$w" ] || printf 'slow %s' "$k" > "${art}timeout-mock$k"
  exit 1
fi
n=0 c=0
for a in "$@"; do
  case "$a" in -*) continue ;; esac
  n=$((n + 1))
  if grep -q hdf5 "$a" 2>/dev/null; then c=$((c + 1)); cp "$a" "$FUZZ_GUARD_SAVE/hdf5-crash-$c"; fi
done
echo "fuzz_guard: $n inputs in 1 children; inside HDF5: $c crashes, 0 hangs, 0 files it could not close ($c saved); 0 in the reader"
MOCK
cp "$W/bin/capture_fuzz" "$W/bin/capture_fuzz_asan"
printf '#!/bin/bash\necho "replay: error: HDF5 cannot read it" >&2\nexit 2\n' > "$W/bin/replay"
chmod +x "$W/bin/capture_fuzz" "$W/bin/capture_fuzz_asan" "$W/bin/replay"
fail=0
check() {  # NAME MOCK_FAULTS EXPECTED-EXIT REGEX
  local out rc
  rm -f "$W/state"
  out="$(MOCK_STATE="$W/state" MOCK_FAULTS="$2" FUZZ_TRIAGE_MAX=2 timeout 300 bash "$HERE/run_fuzz.sh" \
         --bin "$W/bin" --replay "$W/bin/replay" --work "$W/work-$1" --runs 1000 --asan-runs 100 --workers 1 2>&1)"
  rc=$?
  if [ "$rc" -eq "$3" ] && grep -Eq "$4" <<< "$out"; then
    echo "bookkeeping_test: $1: OK (exit $rc)"
  else
    echo "bookkeeping_test: $1: FAILED (exit $rc, expected $3 and /$4/):"
    echo "$out" | tail -n 15
    fail=1
  fi
}
# Every attempt of the mock runs all the executions asked for: an HDF5 fault in attempt 1 leaves
# nothing to resume, and libFuzzer's exit 1 on it is explained.
check hdf5_last "hdf5" 0 "^PASS$"
check clean "-" 0 "^PASS$"
check ours "ours" 1 "FAILURE in our code"
# A timeout artifact beside an HDF5 fault is not explained by it.
check hdf5_and_timeout "hdf5+timeout" 1 "FAILURE in our code"
[ "$fail" -eq 0 ] && echo "bookkeeping_test: OK" || { echo "bookkeeping_test: FAILED"; exit 1; }
