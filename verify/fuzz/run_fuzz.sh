#!/bin/bash
# verify/fuzz/run_fuzz.sh — builds capture_fuzz (libFuzzer + ASan + UBSan, clang from Debian, outside
# Bazel) and runs at least RUNS executions on the capture reader, seeded with small captures, the
# smallest records of data/sample_capture.h5 and the malformed-file corpus (make_seeds.py).
#
#   bash verify/fuzz/run_fuzz.sh RUNS [WORKDIR] [REPLAY]
#
# The run is cut into segments of SEGMENT executions (the corpus carries over). A segment that
# ends on a sanitizer report, a crash, or a leak outside HDF5 fails the run. A segment that ends
# on a timeout (an input on which the reader does not return within 10 s) is a hang: the input is
# replayed by the real replay (REPLAY, default bazel-bin/verify/replay) with a 3 s CPU watchdog,
# which must refuse it with exit 2 and its message (HDF5 1.10 itself loops forever on some corrupt
# files; the replay cannot fix HDF5, but it must not hang). Hangs are counted and kept in
# WORKDIR/hangs; a timeout the replay does not refuse fails the run.
# LeakSanitizer: allocations made inside libhdf5 are not ours to free (HDF5 1.10 leaks on some
# error paths); lsan.supp suppresses exactly those (a leak with any of our frames on top still
# fails). The reader itself must also close every HDF5 handle (capture_fuzz.c aborts otherwise).
# Exit 0: at least RUNS executions, no crash or sanitizer report in our code, and every input on
# which HDF5 itself hangs or makes a memory error refused by replay with exit 2.
set -uo pipefail
RUNS="${1:?usage: run_fuzz.sh RUNS [WORKDIR] [REPLAY]}"
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="${FUZZ_SOURCE_ROOT:-$(cd "$HERE/../.." && pwd)}"
WORK="${2:-${TEST_TMPDIR:-$(mktemp -d)}/fuzz}"
REPLAY="${3:-$ROOT/bazel-bin/verify/replay}"
PY="${PYTHON:-python3}"
SEGMENT="${FUZZ_SEGMENT:-50000}"
mkdir -p "$WORK/corpus" "$WORK/hangs" "$WORK/artifacts"
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

total=0 seg=0 hangs=0 hdf5_bugs=0 t0=$SECONDS
while [ "$total" -lt "$RUNS" ]; do
  seg=$((seg + 1))
  left=$((RUNS - total))
  n=$(( left < SEGMENT ? left : SEGMENT ))
  log="$WORK/segment_$seg.log"
  seeds="$WORK/seeds"
  "$BIN" -runs="$n" -max_len=200000 -timeout=10 -rss_limit_mb=2048 -seed="$seg" \
      -artifact_prefix="$WORK/artifacts/" "$WORK/corpus" $seeds > "$log" 2>&1
  rc=$?
  done_n=$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')
  done_n=${done_n:-0}
  [ "$rc" -eq 0 ] && done_n=$(( done_n > n ? done_n : n ))
  total=$((total + done_n))
  if [ "$rc" -ne 0 ]; then
    if grep -q "ERROR: libFuzzer: timeout" "$log"; then
      art=$(grep -oE "Test unit written to .*timeout-[0-9a-f]+" "$log" | sed 's/Test unit written to //' | tail -n 1)
      hangs=$((hangs + 1))
      cp "$art" "$WORK/hangs/"
      out=$(FUSEDNORM_REPLAY_HDF5_CPU_LIMIT=3 timeout 120 "$REPLAY" "$art" 2>&1)
      rrc=$?
      if [ "$rrc" -ne 2 ] || ! grep -q "error:" <<< "$out"; then
        echo "run_fuzz: hang input $art: replay exit $rrc (expected 2 with a reason)"; echo "$out" | tail -n 5
        grep -B5 -A30 "timeout" "$log" | head -n 60
        exit 1
      fi
      echo "segment $seg: hang (reader did not return in 10 s) on $(basename "$art"): replay refuses it: $(grep -o 'error: .*' <<< "$out" | head -c 200)"
      # The hanging input must not stay in the corpus of later segments.
      rm -f "$WORK/corpus/$(basename "$art" | sed 's/^timeout-//')"
      continue
    fi
    # A memory error or an allocation beyond the limit whose innermost frame is inside libhdf5 (the
    # first frame that is not the sanitizer's or libFuzzer's) is HDF5's own doing: the replay must refuse that input with exit 2 (its metadata
    # guard runs HDF5 in a child first). Anything with our code on top fails the run.
    top=$(grep -m1 -A40 -E "ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer: (deadly|out-of-memory))" "$log" |
          grep -E "^ +#[0-9]+ " | grep -v -E " in (__|fuzzer::|malloc|calloc|realloc|free)" | head -n 1)
    art=$(grep -oE "Test unit written to .*(crash|leak|oom)-[0-9a-f]+" "$log" | sed 's/Test unit written to //' | tail -n 1)
    if [ -n "$art" ] && grep -q "libhdf5" <<< "$top"; then
      cp "$art" "$WORK/hangs/"
      out=$(FUSEDNORM_REPLAY_HDF5_CPU_LIMIT=3 timeout 120 "$REPLAY" "$art" 2>&1)
      rrc=$?
      if [ "$rrc" -ne 2 ] || ! grep -q "error:" <<< "$out"; then
        echo "run_fuzz: HDF5 memory error on $art: replay exit $rrc (expected 2 with a reason)"; echo "$out" | tail -n 5
        exit 1
      fi
      hdf5_bugs=$((hdf5_bugs + 1))
      echo "segment $seg: inside HDF5: $(grep -m1 -oE '(AddressSanitizer|libFuzzer): [a-z-]+( \(malloc\([0-9]+\)\))?' "$log") at$(sed 's/(.*//' <<< "$top"): replay refuses it: $(grep -o 'error: .*' <<< "$out" | head -c 160)"
      rm -f "$WORK/corpus/$(basename "$art" | sed -E 's/^(crash|leak|oom)-//')"
      continue
    fi
    echo "run_fuzz: segment $seg failed (exit $rc) after $done_n executions:"
    grep -E "ERROR|SUMMARY|runtime error|deadly|left open" "$log" | head -n 20
    tail -n 40 "$log"
    exit 1
  fi
  echo "segment $seg: $done_n executions, $(grep -oE 'cov: [0-9]+' "$log" | tail -n 1), $(grep -oE 'exec/s: [0-9]+' "$log" | tail -n 1)"
done
echo "capture_fuzz: $total executions in $((SECONDS - t0)) s: 0 crashes or sanitizer reports in our code; inside HDF5: $hangs hang(s), $hdf5_bugs memory error(s), each input refused by replay with exit 2 (inputs in $WORK/hangs)"
