#!/bin/bash
# verify/fuzz/guard_test.sh — fuzz_guard.c's verdicts on inputs whose fault is known (guard_mock.c):
# a loop or a crash in the reader fails the run, a loop or a crash in HDF5 is counted and fuzzing
# goes on (also a call through a corrupt function pointer, judged by its caller), and a slow finite input whose CPU budget runs out inside the reader's own stretch is
# not called a hang of ours (the guard samples a hang before judging it). Needs clang with
# libFuzzer (as run_fuzz.sh).
set -uo pipefail
if [ -n "${TEST_SRCDIR:-}" ] && [ -n "${TEST_WORKSPACE:-}" ]; then
  HERE="$TEST_SRCDIR/$TEST_WORKSPACE/verify/fuzz" # under bazel test, $0 is the target's name
else
  HERE="$(cd "$(dirname "$0")" && pwd)"
fi
command -v clang >/dev/null || { echo "guard_test: clang not found (apt install clang libclang-rt-14-dev)"; exit 1; }
W="$(mktemp -d "${TEST_TMPDIR:-/tmp}/guard_test.XXXXXX")"
trap 'rm -rf "$W"' EXIT
clang -O1 -fPIC -shared -DMOCK_HDF5 "$HERE/guard_mock.c" -o "$W/libhdf5_guardmock.so" &&
  clang -O1 -fPIC -shared "$HERE/guard_mock.c" -L"$W" -lhdf5_guardmock -Wl,-rpath,'$ORIGIN' \
    -o "$W/libcapture_reader_guardmock.so" &&
  clang -g -O2 -Wall -Wextra -Werror -fsanitize=fuzzer "$HERE/fuzz_guard.c" -L"$W" \
    -lcapture_reader_guardmock -Wl,-rpath,'$ORIGIN' -o "$W/guard" ||
  { echo "guard_test: build failed"; exit 1; }
for c in R H S T C K P D Q N; do printf '%s' "$c" > "$W/$c"; done
export FUZZ_GUARD_HANG_MS=40
fail=0
check() {  # NAME EXPECTED-EXIT(0|nonzero) REGEX FILE...
  local name="$1" want="$2" re="$3"; shift 3
  local out rc
  out="$(cd "$W" && timeout 60 ./guard "$@" 2>&1)"; rc=$?
  local got=0; [ "$rc" -ne 0 ] && got=nonzero
  if [ "$got" = "$want" ] && grep -Eq "$re" <<<"$out"; then
    echo "guard_test: PASS $name"
  else
    echo "guard_test: FAIL $name (exit $rc; want exit $want and /$re/):"; tail -n 15 <<<"$out" | sed 's/^/  | /'
    fail=1
  fi
}
# HDF5's faults and the slow input: one run, counted, no abort. The slow input three times, as the
# timer's tick could otherwise land by luck.
check "HDF5 loop + HDF5 crash + slow input: counted as HDF5's, nothing ours" 0 \
  'inside HDF5: 3 crashes, 1 hangs, 0 files' H K P D S S S
# A slow input of ours (12 budgets in the reader) is given re-armed budgets of
# $FUZZ_GUARD_RESAMPLE_MS: at 4 budgets each it ends before the majority could be had; at one budget
# each (never less than the first) its 9 samples all land in the reader.
FUZZ_GUARD_RESAMPLE_MS=160 check "a slow input of ours under longer re-armed budgets: not a hang" 0 \
  'inside HDF5: 0 crashes, 0 hangs, 0 files' T
FUZZ_GUARD_RESAMPLE_MS=1 check "the same input with re-armed budgets of one budget: ours" nonzero \
  '9 of 9 CPU-time samples in the reader' T
check "loop in the reader: ours" nonzero 'the reader loops; stack|verdict: fault in the reader, signal Profiling timer expired at .*guardmock.*9 of 9 CPU-time samples in the reader' R
check "crash in the reader: ours" nonzero 'verdict: fault in the reader, signal Segmentation fault at libcapture_reader_guardmock' C
check "call through a corrupt pointer in the reader: ours" nonzero 'verdict: fault in the reader, signal Segmentation fault at pc 0x[0-9a-f]+, not code, called from libcapture_reader_guardmock' Q
# A child serves at most 256 inputs, so the history written at a fault covers all the child served:
# 300 harmless inputs take two children, and a crash after them leaves a history of the 45 inputs
# the second child served (none dropped).
many=(); for i in $(seq 300); do many+=(N); done
check "a child serves at most 256 inputs" 0 'fuzz_guard: 300 inputs in 2 children' "${many[@]}"
mkdir -p "$W/save"
FUZZ_GUARD_SAVE="$W/save" check "the history at a fault covers the whole child" nonzero \
  'the 45 input\(s\) this child served are in ' "${many[@]}" C
[ "$(ls "$W"/save/history-*/ 2>/dev/null | wc -l)" = 45 ] || { echo "guard_test: FAIL the history holds $(ls "$W"/save/history-*/ 2>/dev/null | wc -l) inputs, not 45"; fail=1; }
exit "$fail"
