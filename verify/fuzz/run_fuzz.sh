#!/bin/bash
# verify/fuzz/run_fuzz.sh — builds capture_fuzz (libFuzzer + ASan + UBSan, clang from Debian, outside
# Bazel) and runs at least RUNS executions on the capture reader, seeded with small captures, the
# smallest records of data/sample_capture.h5 and the malformed-file corpus (make_seeds.py).
#
#   bash verify/fuzz/run_fuzz.sh RUNS [WORKDIR] [REPLAY]
#
# Every input that crashed, hung (no return within 10 s) or exceeded the memory limit is triaged
# afterwards (below): one with our code as the innermost frame fails the run; one inside libhdf5
# (HDF5 1.10 has such bugs on corrupt files) must be refused by the real replay (REPLAY, default
# bazel-bin/verify/replay) with exit 2 and a reason: the replay cannot fix HDF5, but it must not
# crash or hang.
# LeakSanitizer: allocations made inside libhdf5 are not ours to free (HDF5 1.10 leaks on some
# error paths); lsan.supp suppresses exactly those (a leak with any of our frames on top still
# fails). The reader itself must also close every HDF5 handle (capture_fuzz.c aborts otherwise).
# Exit 0: at least RUNS executions, no crash, hang or sanitizer report in our code, and every
# input on which HDF5 itself fails refused by replay with exit 2.
set -uo pipefail
RUNS="${1:?usage: run_fuzz.sh RUNS [WORKDIR] [REPLAY]}"
if [ -n "${TEST_SRCDIR:-}" ] && [ -n "${TEST_WORKSPACE:-}" ]; then
  # Under bazel test $0 is the test's own name (verify/fuzz_capture_test), not this file's path.
  ROOT="${FUZZ_SOURCE_ROOT:-$TEST_SRCDIR/$TEST_WORKSPACE}"
  HERE="$ROOT/verify/fuzz"
else
  HERE="$(cd "$(dirname "$0")" && pwd)"
  ROOT="${FUZZ_SOURCE_ROOT:-$(cd "$HERE/../.." && pwd)}"
fi
WORK="${2:--}"  # "-": the default (Bazel drops an empty argument, so "" cannot hold the place)
[ "$WORK" = "-" ] && WORK="${TEST_TMPDIR:-$(mktemp -d)}/fuzz"
REPLAY="${3:-$ROOT/bazel-bin/verify/replay}"
PY="${PYTHON:-python3}"
mkdir -p "$WORK/corpus" "$WORK/artifacts"
command -v clang >/dev/null || { echo "run_fuzz: clang not found (apt install clang libclang-rt-14-dev)" >&2; exit 2; }
[ -x "$REPLAY" ] || { echo "run_fuzz: replay binary '$REPLAY' missing (bazel build //verify:replay)" >&2; exit 2; }

H5INC=$(pkg-config --cflags hdf5-serial 2>/dev/null || echo -I/usr/include/hdf5/serial)
H5LIB=$(pkg-config --libs hdf5-serial 2>/dev/null || echo "-L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5")
BIN="$WORK/capture_fuzz"
if ! clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$ROOT" $H5INC "$HERE/capture_fuzz.c" "$ROOT/verify/h5io.c" "$ROOT/verify/record.c" \
    "$ROOT/kernels/src/common.c" $H5LIB -lm -o "$BIN" 2> "$WORK/build.log"; then
  cat "$WORK/build.log" >&2
  echo "run_fuzz: build failed" >&2
  exit 2
fi
if [ ! -d "$WORK/seeds" ]; then
  "$PY" "$HERE/make_seeds.py" "$WORK/seeds" > "$WORK/seeds.log" 2>&1 ||
    { cat "$WORK/seeds.log" >&2; echo "run_fuzz: seed generation failed" >&2; exit 2; }
fi
# Known hang inputs (regressions/) are not seeds: each would end a segment at once. The replay's
# answer to them is checked below and by verify/tests/malformed_test.py.
for f in "$HERE"/regressions/*.h5; do
  [ -f "$f" ] || continue
  out=$(FUSEDNORM_REPLAY_HDF5_CPU_LIMIT=3 timeout 120 "$REPLAY" "$f" 2>&1)
  [ $? -eq 2 ] || { echo "run_fuzz: regression input $f: replay did not exit 2:"; echo "$out" | tail -n 5; exit 1; }
done
printf 'leak:libhdf5_serial.so\nleak:libhdf5.so\n' > "$WORK/lsan.supp"
export LSAN_OPTIONS="suppressions=$WORK/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# libFuzzer's fork mode: a child that crashes, hangs or runs out of memory is recorded (its input
# saved under artifacts/) and fuzzing goes on from the merged corpus. HDF5 1.10 itself crashes or
# loops on many corrupt files, which would otherwise end the run every few hundred inputs.
t0=$SECONDS
# FUZZ_MAX_TIME (seconds) stops a long run early; the executions that ran are reported and the
# saved inputs triaged all the same (the run then exits 1: fewer than RUNS executions).
# FUZZ_TRIAGE_ONLY=1: no fuzzing, triage what an earlier run in WORKDIR saved.
[ "${FUZZ_TRIAGE_ONLY:-0}" = 1 ] || "$BIN" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -runs="$RUNS" -max_len=200000 \
    -max_total_time="${FUZZ_MAX_TIME:-0}" \
    -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$WORK/artifacts/" "$WORK/corpus" "$WORK/seeds" \
    > "$WORK/fuzz.log" 2>&1
rc=$?
total=$(grep -oE "fuzzed for [0-9]+ iterations" "$WORK/fuzz.log" | grep -oE "[0-9]+" | tail -n 1)
[ -n "$total" ] || total=$(grep -oE '^#[0-9]+' "$WORK/fuzz.log" | tail -n 1 | tr -d '#')
total=${total:-0}
last=$(grep -E '^#[0-9]+:' "$WORK/fuzz.log" | tail -n 1)
echo "fuzzing: $total executions in $((SECONDS - t0)) s (exit $rc); last status: $last"
short=0
if [ "$total" -lt "$RUNS" ]; then
  tail -n 5 "$WORK/fuzz.log"
  echo "run_fuzz: only $total of $RUNS executions ran"
  short=1
fi

# Triage: every saved input is run again alone; the innermost frame that is neither the
# sanitizer's nor libFuzzer's says whose fault it is. In our code: the run fails. Inside libhdf5:
# HDF5's own bug (a crash, an endless loop, a size field that asks for terabytes), and the replay
# must refuse that input with exit 2 and a reason (its metadata guard runs HDF5 in a child).
# FUZZ_TRIAGE_MAX caps how many saved inputs are triaged (crashes and leaks first, then hangs and
# allocations; the CI run sets it to bound its time; the count left over is printed).
ours=0 hdf5=0 gone=0 seen=0
declare -A kinds=()
arts=$(ls "$WORK"/artifacts/crash-* "$WORK"/artifacts/leak-* "$WORK"/artifacts/timeout-* \
          "$WORK"/artifacts/oom-* 2>/dev/null)
nart=$(wc -w <<< "$arts")
for art in $arts; do
  [ -f "$art" ] || continue
  if [ -n "${FUZZ_TRIAGE_MAX:-}" ] && [ "$seen" -ge "$FUZZ_TRIAGE_MAX" ]; then break; fi
  seen=$((seen + 1))
  # HDF5's endless loops do not end in 3 s either; ours would show the same way.
  "$BIN" -timeout=3 -rss_limit_mb=2048 "$art" > "$WORK/triage.log" 2>&1
  trc=$?
  kind=$(grep -m1 -oE "ERROR: (AddressSanitizer: [a-z-]+|LeakSanitizer: [a-z ]+|libFuzzer: [a-z-]+)|runtime error: .{0,60}" "$WORK/triage.log")
  # Skipped frames: the sanitizer runtime's and libFuzzer's (in the fuzz binary without a source
  # line: interceptors such as malloc, strdup, memcpy) and libc's (the signal frame of a timeout).
  # Our code's frames carry a source file and line; HDF5's are in libhdf5.
  top=$(grep -m1 -A60 -E "ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:" "$WORK/triage.log" |
        grep -E "^ +#[0-9]+ " | grep -v -E " in (__|fuzzer::)|capture_fuzz\+0x|/libc\.so" |
        head -n 1)
  if [ "$trc" -eq 0 ]; then
    gone=$((gone + 1))  # did not reproduce alone (e.g. memory left over from earlier inputs)
  elif grep -q "runtime error:" "$WORK/triage.log" || ! grep -q "libhdf5" <<< "$top"; then
    ours=$((ours + 1))
    echo "run_fuzz: $(basename "$art"): $kind in our code:"
    grep -A25 -E "ERROR|runtime error" "$WORK/triage.log" | head -n 30
    continue
  else
    hdf5=$((hdf5 + 1))
    k="$kind @ $(grep -oE ' in [A-Za-z0-9_]+' <<< "$top" | head -n 1 | sed 's/ in //')"
    kinds[$k]=$(( ${kinds[$k]:-0} + 1 ))
  fi
  out=$(FUSEDNORM_REPLAY_HDF5_CPU_LIMIT=3 timeout 120 "$REPLAY" "$art" --device cpu 2>&1)
  rrc=$?
  if [ "$rrc" -gt 2 ] || { [ "$rrc" -eq 2 ] && ! grep -q "error:" <<< "$out"; }; then
    ours=$((ours + 1))
    echo "run_fuzz: replay on $(basename "$art") exit $rrc (expected 0, 1 or 2 with a reason):"
    echo "$out" | tail -n 5
  fi
done
for k in "${!kinds[@]}"; do echo "  inside HDF5: ${kinds[$k]} x $k"; done | sort
echo "capture_fuzz: $total executions in $((SECONDS - t0)) s; $nart saved inputs, $seen triaged: $hdf5 HDF5-internal (each refused by replay), $gone not reproducible alone, $ours in our code$([ "$seen" -lt "$nart" ] && echo "; $((nart - seen)) not triaged (FUZZ_TRIAGE_MAX)")"
[ "$ours" -eq 0 ] && [ "$short" -eq 0 ] || exit 1
echo PASS
