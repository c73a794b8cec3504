#!/bin/bash
# verify/fuzz/run_fuzz.sh — fuzzes the capture reader (verify/h5io.c + verify/record.c) with
# libFuzzer (clang from Debian), in two parts, each run by WORKERS processes side by side:
#   fast  the reader without sanitizers (libcapture_reader.so): the bulk of the executions;
#   asan  the reader under ASan + UBSan (libcapture_reader_asan.so), LeakSanitizer per input.
# Seeds: small captures, the smallest records of data/sample_capture.h5 and the malformed-file
# corpus (make_seeds.py). Inputs run in a forked child that serves many inputs (fuzz_guard.c): a
# crash, hang (CPU-time limit) or sanitizer report in the reader ends the run as a failure; one
# inside libhdf5 (HDF5 1.10 crashes or loops on many corrupt files) is counted, its input saved,
# and fuzzing goes on; afterwards (triage) the real replay must refuse each saved input with exit 2
# and a reason, or accept it (0/1): the replay cannot fix HDF5, but it must not crash or hang.
#
#   bash verify/fuzz/run_fuzz.sh [--runs N] [--asan-runs N] [--workers N] [--max-seconds S]
#                                [--work DIR] [--replay PATH] [--bin DIR] [--seeds DIR]
#   bash verify/fuzz/run_fuzz.sh --build-only DIR      (binaries and seeds into DIR; collect.sh)
#   bash verify/fuzz/run_fuzz.sh --judge FILE [--saved DIR] [--bin DIR]
#                    judges one fault of the fast part (FILE: its input, e.g. a crash-* that a run
#                    left in artifacts/; DIR: that run's fast/saved/, whose history-<pid>/ folders
#                    hold the inputs each child served) with the triage's rules (hdf5_fault below),
#                    prints what each replay showed; exit 0 shown HDF5's, 1 not shown, 2 setup error
#
#   --runs N         executions of the fast part, in all (default 100000)
#   --asan-runs N    executions of the ASan + UBSan part, in all (default 10000)
#   --workers N      processes per part (default: nproc)
#   --max-seconds S  wall-clock bound on the fuzzing (the fast part gets 5/6, the ASan part what is
#                    left); fewer executions than asked by then FAILS the run (default 0: none)
#   --work DIR       work directory (default: $TEST_TMPDIR/fuzz or a new temp dir)
#   --replay PATH    the replay binary for the triage (default bazel-bin/verify/replay)
#   --bin DIR        prebuilt binaries (capture_fuzz, capture_fuzz_asan and their libraries, from
#                    --build-only): no clang needed (the GPU bundle's gpu_bundle/fuzz)
#   --seeds DIR      prebuilt seeds (default: DIR/seeds of --bin when present, else make_seeds.py)
# Environment: FUZZ_TRIAGE_MAX (default 40) caps how many saved inputs the replay checks.
# Exit 0: every execution asked for ran, none failed in our code, every triaged input refused by
# the replay with exit 2 and a reason (or accepted). Exit 1: a failure; 2: a setup error.
set -uo pipefail
if [ -n "${TEST_SRCDIR:-}" ] && [ -n "${TEST_WORKSPACE:-}" ]; then
  # Under bazel test $0 is the test's own name (verify/fuzz_capture_test), not this file's path.
  ROOT="${FUZZ_SOURCE_ROOT:-$TEST_SRCDIR/$TEST_WORKSPACE}"
  HERE="$ROOT/verify/fuzz"
else
  HERE="$(cd "$(dirname "$0")" && pwd)"
  ROOT="${FUZZ_SOURCE_ROOT:-$(cd "$HERE/../.." && pwd)}"
fi
RUNS=100000 ARUNS=10000 WORKERS=$(nproc) MAXS=0 WORK="" REPLAY="$ROOT/bazel-bin/verify/replay"
BINDIR="" SEEDS="" BUILD_ONLY="" JUDGE="" JSAVED=""
die() { echo "run_fuzz: $*" >&2; exit 2; }
num() { [[ "$2" =~ ^[0-9]+$ ]] || die "$1 wants a non-negative integer, got '$2'"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --runs|--asan-runs|--workers|--max-seconds|--work|--replay|--bin|--seeds|--build-only|--judge|--saved)
      [ $# -ge 2 ] || die "$1 needs a value"
      case "$1" in
        --runs) num "$1" "$2"; RUNS=$2 ;;
        --asan-runs) num "$1" "$2"; ARUNS=$2 ;;
        --workers) num "$1" "$2"; WORKERS=$2 ;;
        --max-seconds) num "$1" "$2"; MAXS=$2 ;;
        --work) WORK=$2 ;;
        --replay) REPLAY=$2 ;;
        --bin) BINDIR=$2 ;;
        --seeds) SEEDS=$2 ;;
        --build-only) BUILD_ONLY=$2 ;;
        --judge) JUDGE=$2 ;;
        --saved) JSAVED=$2 ;;
      esac
      shift 2 ;;
    *) die "unknown argument '$1' (see the header of $HERE/run_fuzz.sh)" ;;
  esac
done
[ "$WORKERS" -ge 1 ] || die "--workers must be at least 1"
if [ -n "$JUDGE" ]; then
  [ -f "$JUDGE" ] || die "--judge: '$JUDGE' is not a file"
  [ -z "$JSAVED" ] || [ -d "$JSAVED" ] || die "--saved: '$JSAVED' is not a directory"
elif [ -n "$JSAVED" ]; then
  die "--saved goes with --judge"
fi
PY="${PYTHON:-python3}"

# ---- build (clang, outside Bazel) -------------------------------------------------------------
# The reader is a shared library of its own: the guard judges a fault by the shared object of its
# innermost frame (ours or libhdf5's). RUNPATH $ORIGIN: the binaries run from any directory that
# holds them with their libraries (the GPU bundle). libFuzzer and the sanitizer runtimes are linked
# statically into the binaries; the rest is libc, libstdc++, libm and libhdf5_serial.so.103.
build() {  # DIR
  local out="$1" log="$1/build.log"
  command -v clang >/dev/null || die "clang not found (apt install clang libclang-rt-14-dev)"
  mkdir -p "$out"
  local h5inc h5lib src
  h5inc=$(pkg-config --cflags hdf5-serial 2>/dev/null || echo -I/usr/include/hdf5/serial)
  h5lib=$(pkg-config --libs hdf5-serial 2>/dev/null || echo "-L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5")
  src="$HERE/capture_fuzz.c $ROOT/verify/h5io.c $ROOT/verify/record.c $ROOT/kernels/src/common.c"
  local san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
  {
    clang -O2 -fPIC -c "$HERE/reader_counters.c" -o "$out/reader_counters.o" &&
    clang -g -O2 -fPIC -shared -fsanitize=fuzzer-no-link -I"$ROOT" $h5inc $src \
      "$out/reader_counters.o" $h5lib -lm -o "$out/libcapture_reader.so" &&
    clang -g -O1 -fPIC -shared -fsanitize=fuzzer-no-link $san -I"$ROOT" $h5inc $src \
      "$out/reader_counters.o" $h5lib -lm -o "$out/libcapture_reader_asan.so" &&
    clang -g -O2 -Wall -Wextra -Werror -fsanitize=fuzzer "$HERE/fuzz_guard.c" -L"$out" -lcapture_reader \
      -Wl,-rpath,'$ORIGIN' -o "$out/capture_fuzz" &&
    clang -g -O1 -Wall -Wextra -Werror -fsanitize=fuzzer $san "$HERE/fuzz_guard.c" -L"$out" \
      -lcapture_reader_asan -Wl,-rpath,'$ORIGIN' -o "$out/capture_fuzz_asan"
  } > "$log" 2>&1 || { cat "$log" >&2; die "build failed"; }
  rm -f "$out/reader_counters.o" "$log"
}
seeds() {  # DIR
  "$PY" "$HERE/make_seeds.py" "$1" > "$1.log" 2>&1 || { cat "$1.log" >&2; die "seed generation failed"; }
  rm -f "$1.log"
}
if [ -n "$BUILD_ONLY" ]; then
  build "$BUILD_ONLY"
  seeds "$BUILD_ONLY/seeds"
  echo "run_fuzz: built $(ls "$BUILD_ONLY" | grep -v seeds | paste -sd' ') and $(ls "$BUILD_ONLY/seeds" | wc -l) seeds into $BUILD_ONLY"
  exit 0
fi

[ -n "$WORK" ] || WORK="${TEST_TMPDIR:-$(mktemp -d)}/fuzz"
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
if [ -z "$JUDGE" ]; then
  [ -x "$REPLAY" ] || die "replay binary '$REPLAY' missing (bazel build //verify:replay)"
  REPLAY="$(cd "$(dirname "$REPLAY")" && pwd)/$(basename "$REPLAY")"
fi
if [ -z "$BINDIR" ]; then
  BINDIR="$WORK/bin"
  build "$BINDIR"
fi
BINDIR="$(cd "$BINDIR" && pwd)"
for b in capture_fuzz capture_fuzz_asan; do [ -x "$BINDIR/$b" ] || die "$BINDIR/$b missing"; done
# Electric Fence (Debian's electric-fence; the GPU bundle carries its copy): the triage's allocator
# with a guard page after every block, which catches HDF5's overruns where they happen.
EFENCE=""
for e in "$BINDIR/libefence.so.0" /usr/lib/libefence.so.0 /usr/lib/x86_64-linux-gnu/libefence.so.0; do
  [ -f "$e" ] && { EFENCE="$e"; break; }
done
[ -n "$EFENCE" ] || echo "run_fuzz: no libefence.so.0 (apt install electric-fence): the triage's Electric Fence rule is off"
[ -z "$SEEDS" ] && [ -d "$BINDIR/seeds" ] && SEEDS="$BINDIR/seeds"
if [ -z "$SEEDS" ] && [ -z "$JUDGE" ]; then
  SEEDS="$WORK/seeds"
  [ -d "$SEEDS" ] || seeds "$SEEDS"
fi

# Known HDF5 failures (regressions/) are not seeds (each would only cost a child): the replay must
# refuse each with exit 2 (also checked at np 1/2/3 by verify/tests/malformed_test.py).
for f in "$HERE"/regressions/*.h5; do
  [ -f "$f" ] && [ -z "$JUDGE" ] || continue
  out=$(FUSEDNORM_REPLAY_HDF5_CPU_LIMIT=3 timeout 120 "$REPLAY" "$f" --device cpu 2>&1)
  [ $? -eq 2 ] || { echo "run_fuzz: regression input $f: replay did not exit 2:"; echo "$out" | tail -n 5; exit 1; }
done

# HDF5's own leaks (on some error paths) are not ours to free; a leak with no libhdf5 frame in its
# allocation stack still fails. Allocations above 1 GiB return NULL (HDF5 asks for terabytes from
# corrupt size fields; the reader must handle NULL too) instead of ending the child.
printf 'leak:libhdf5_serial.so\nleak:libhdf5.so\n' > "$WORK/lsan.supp"
export LSAN_OPTIONS="suppressions=$WORK/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=1024:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export FUZZ_GUARD_SAVE_MAX=50

t_start=$SECONDS
fail=0 summary=""
# serve BUILD SAVE FILE...: the guard of capture_fuzz[_asan] serves FILE... in order (one child as in
# the fuzzing, a fresh one after each death), HDF5's failures saved under SAVE; prints its output.
serve() {
  local bin="$1" save="$2" f
  shift 2
  [ $# -gt 0 ] || { echo "run_fuzz: serve: no input given" >&2; return 1; } # libFuzzer would fuzz
  local -a files=()
  for f in "$@"; do files+=("$(realpath -- "$f")") || return 1; done
  # The fuzzing's own flags: without -rss_limit_mb=0, libFuzzer's RSS thread, copied into the
  # guard's child, keeps LeakSanitizer from suspending it ("false leaks are possible"), and a false
  # leak report judges the reader.
  (cd "$save" && FUZZ_GUARD_SAVE="$save" FUZZ_GUARD_SAVE_MAX=100000 timeout 600 "$bin" \
     -rss_limit_mb=0 -malloc_limit_mb=4096 -timeout=300 "${files[@]}" 2>&1)
}
# Exit 0 when the output of `serve` shows a fault the guard judged ours.
ours_in() { grep -qE "^fuzz_guard: (fault in the reader|child )" <<< "$1"; }
# saved_crash SAVE INPUT: exit 0 when a `serve` saved INPUT under SAVE as an HDF5 crash.
saved_crash() {
  local g
  for g in "$1"/hdf5-crash-*; do
    [ -f "$g" ] && cmp -s "$g" "$2" && return 0
  done
  return 1
}
# faulted_on OUT SAVE INPUT: exit 0 when a `serve` (output OUT, saves in SAVE) faulted on INPUT: a
# fault the guard judged ours, or INPUT saved as an HDF5 crash.
faulted_on() { ours_in "$1" || saved_crash "$2" "$3"; }
# Exit 0 when it shows HDF5 crashing (N >= 1) and nothing in the reader.
hdf5_only_in() {
  grep -qE "^fuzz_guard: [0-9]+ inputs in [0-9]+ children; inside HDF5: [1-9][0-9]* crashes, .*; 0 in the reader$" <<< "$1"
}

# any_file PATH...: exit 0 when one of PATH (globs expanded by the caller) is a file. (`ls A B`
# fails when any one is missing, so it cannot ask whether any one is there.)
any_file() {
  local f
  for f in "$@"; do [ -f "$f" ] && return 0; done
  return 1
}
# history_of INPUT DIR: the guard's history-<pid>/ folders under DIR whose last input is INPUT,
# one a line (none: no output).
history_of() {
  local h last
  for h in "$2"/history-*; do
    [ -d "$h" ] || continue
    last=$(ls "$h" | sort | tail -n 1)
    [ -n "$last" ] && cmp -s "$h/$last" "$1" && echo "$h"
  done
  return 0
}

# The triage's trace: each replay's verdict lines (the guard's summary and verdicts, the first
# sanitizer or Electric Fence report, timeout's exit status) appended to $TRACE when it is set, so
# that a fault left unexplained comes back with the evidence each rule saw.
trace() {
  [ -n "${TRACE:-}" ] || return 0
  local what="$1" rc="$2" out="$3"
  {
    echo "== $what (exit $rc)"
    grep -E "^fuzz_guard: (.*verdict|inside HDF5: crash)|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|ElectricFence (Aborting|Exiting)|Sanitizer has encountered|DEADLYSIGNAL|CHECK failed|(free|malloc|realloc)\(\)|corrupted|Killed" <<< "$out" | head -n 10
    grep -E "^fuzz_guard: [0-9]+ inputs" <<< "$out" | tail -n 1
  } >> "$TRACE"
}

# hdf5_fault INPUT DIR: 0 when a fault of the fast part on INPUT is shown to be HDF5's. Without
# sanitizers HDF5 can overrun one of its own heap blocks silently (a corrupt global heap read into a
# variable-length string), and glibc's heap check aborts later in the reader's malloc or free:
#   - on the same input: the ASan build served INPUT alone reports an overrun inside libhdf5 first
#     (and nothing else). ASan stops at the first bad access, so up to HDF5's overrun the reader's
#     work on INPUT was clean, and from it on the heap is damaged: whatever faults after it is no
#     evidence against the reader. Where the damage surfaces (or whether it does) depends on the
#     heap's layout, so the fast build need not fault again here. If the guard kept the inputs the
#     child served before INPUT (history-<pid>/ under DIR, INPUT last), the ASan build served that
#     sequence must report overruns inside libhdf5 only: nothing of ours on the earlier inputs;
#   - HDF5 overruns with plain stores too, which ASan cannot see (libhdf5 is not instrumented). So
#     with Electric Fence (every heap block followed by a guard page): HDF5's if the fast build
#     under it, served the child's history (or INPUT alone), crashes inside libhdf5 (more often
#     than Electric Fence ran out of mappings, which ends a child as a crash where it allocates)
#     and nothing in the reader, and the ASan build served the same reports nothing of ours: HDF5
#     wrote past a block of its own in that child, at or before INPUT;
#   - on a later input of the same child: the guard's history-<pid>/ under DIR holds the inputs
#     that child served (INPUT last). HDF5's if the fast build served that sequence faults again on
#     INPUT (judged ours, or inside HDF5: where damage to the heap surfaces depends on the layout),
#     the ASan build served it reports overruns inside libhdf5 only, and the fast build served the
#     sequence without those inputs does not fault on INPUT at all: the overrun caused it.
# Anything else (no overrun on INPUT and no history, a fault that does not come back, one that
# stays without the overruns) is not shown to be HDF5's: ours.
hdf5_fault() {
  local h out tmp f
  tmp=$(mktemp -d)
  out=$(serve "$BINDIR/capture_fuzz_asan" "$tmp" "$1")
  trace "same input: ASan, INPUT alone" $? "$out"
  if hdf5_only_in "$out" && saved_crash "$tmp" "$1"; then
    rm -rf "$tmp"
    h=$(history_of "$1" "$2" | head -n 1)
    [ -n "$h" ] || return 0
    local -a seq=()
    mapfile -t seq < <(ls -d "$h"/* | sort)
    tmp=$(mktemp -d)
    out=$(serve "$BINDIR/capture_fuzz_asan" "$tmp" "${seq[@]}")
    trace "same input: ASan, $h (${#seq[@]} inputs)" $? "$out"
    rm -rf "$tmp"
    hdf5_only_in "$out" && return 0
    return 1
  fi
  rm -rf "$tmp"
  if [ -n "$EFENCE" ]; then
    local -a efseq=("$1")
    h=$(history_of "$1" "$2" | head -n 1)
    [ -n "$h" ] && mapfile -t efseq < <(ls -d "$h"/* | sort)
    tmp=$(mktemp -d)
    # Electric Fence makes every allocation a system call: a hang needs far more CPU time here.
    # Only crashes inside libhdf5 count (the guard's verbose lines), less one for each child where
    # Electric Fence itself gave up (out of mappings: its own exit, not an overrun).
    out=$(LD_PRELOAD="$EFENCE" EF_DISABLE_BANNER=1 FUZZ_GUARD_HANG_MS=20000 FUZZ_GUARD_VERBOSE=1 \
          serve "$BINDIR/capture_fuzz" "$tmp" "${efseq[@]}")
    trace "Electric Fence: fast build, ${#efseq[@]} inputs" $? "$out"
    rm -rf "$tmp"
    local crashes exits
    # (Not anchored: Electric Fence's exit message ends without a newline, so the guard's verdict
    # on that child shares its line.)
    crashes=$(grep -c "fuzz_guard: inside HDF5: crash at libhdf5" <<< "$out")
    exits=$(grep -o "ElectricFence Exiting" <<< "$out" | wc -l)
    if hdf5_only_in "$out" && [ "$crashes" -gt "$exits" ]; then
      tmp=$(mktemp -d)
      out=$(serve "$BINDIR/capture_fuzz_asan" "$tmp" "${efseq[@]}")
      trace "Electric Fence: ASan, ${#efseq[@]} inputs" $? "$out"
      rm -rf "$tmp"
      ours_in "$out" || return 0
    fi
  fi
  local -a hists=()
  mapfile -t hists < <(history_of "$1" "$2")
  for h in "${hists[@]}"; do
    local -a seq=() rest=()
    mapfile -t seq < <(ls -d "$h"/* | sort)
    tmp=$(mktemp -d)
    out=$(serve "$BINDIR/capture_fuzz" "$tmp" "${seq[@]}")
    trace "causal: fast build, $h (${#seq[@]} inputs)" $? "$out"
    if ! faulted_on "$out" "$tmp" "$1"; then rm -rf "$tmp"; continue; fi
    rm -rf "$tmp"
    tmp=$(mktemp -d)
    out=$(serve "$BINDIR/capture_fuzz_asan" "$tmp" "${seq[@]}")
    trace "causal: ASan, $h (${#seq[@]} inputs)" $? "$out"
    if ! hdf5_only_in "$out"; then rm -rf "$tmp"; continue; fi
    for f in "${seq[@]}"; do
      saved_crash "$tmp" "$f" || rest+=("$f")
    done
    rm -rf "$tmp"
    [ "${#rest[@]}" -lt "${#seq[@]}" ] || continue
    # every input of the sequence (INPUT too) overran inside HDF5: nothing of ours is left to serve
    [ "${#rest[@]}" -gt 0 ] || return 0
    tmp=$(mktemp -d)
    out=$(serve "$BINDIR/capture_fuzz" "$tmp" "${rest[@]}")
    trace "causal: fast build without the overrun inputs (${#rest[@]} inputs)" $? "$out"
    if faulted_on "$out" "$tmp" "$1"; then rm -rf "$tmp"; continue; fi
    rm -rf "$tmp"
    return 0
  done
  return 1
}

if [ -n "$JUDGE" ]; then
  jt=$(mktemp)
  TRACE="$jt" hdf5_fault "$(realpath -- "$JUDGE")" "${JSAVED:-$WORK/none}"
  rc=$?
  cat "$jt"
  rm -f "$jt"
  if [ "$rc" -eq 0 ]; then echo "run_fuzz: judge: $JUDGE: shown HDF5's"; exit 0; fi
  echo "run_fuzz: judge: $JUDGE: not shown HDF5's (a fault of ours until shown otherwise)"
  exit 1
fi

# The triage checks itself before any fuzzing: each known HDF5 heap fault in triage_cases/ (an
# input on which the fast build faulted in the reader after HDF5 had damaged the heap, with the
# inputs its child served) must be shown HDF5's, where this machine's HDF5 still fails on it or on
# the inputs before it; an input that nothing faults on (the sample capture) must not be. The
# cases: h5hg_read_overlap (HDF5 fails on the input itself); ef_exit_line (HDF5 fails only on an
# earlier input, and Electric Fence runs out of mappings in one child, whose exit message shares a
# line with the guard's verdict).
ncase=0 nfound=0
for c in "$HERE"/triage_cases/*/; do
  [ -f "$c/input" ] || continue
  nfound=$((nfound + 1))
  t=$(mktemp -d)
  h=$(history_of "$c/input" "$c/saved" | head -n 1)
  if [ -n "$h" ]; then
    serve "$BINDIR/capture_fuzz" "$t" "$h"/* > /dev/null
  else
    serve "$BINDIR/capture_fuzz" "$t" "$c/input" > /dev/null
  fi
  if ! any_file "$t"/hdf5-crash-*; then
    rm -rf "$t"
    echo "run_fuzz: triage check: $(basename "$c"): this HDF5 does not fail on it or the inputs before it, not checked"
    continue
  fi
  rm -rf "$t"
  jt=$(mktemp)
  if ! TRACE="$jt" hdf5_fault "$c/input" "$c/saved"; then
    echo "run_fuzz: triage check: the rules do not show the known HDF5 fault $(basename "$c") HDF5's here:"
    cat "$jt"
    exit 1
  fi
  rm -f "$jt"
  ncase=$((ncase + 1))
done
[ "$nfound" -gt 0 ] || die "no known HDF5 fault under $HERE/triage_cases/ to check the triage with"
if hdf5_fault "$ROOT/data/sample_capture.h5" "$WORK/none"; then
  echo "run_fuzz: triage check: the rules show HDF5's a fault on the sample capture, which nothing faults on"
  exit 1
fi
echo "run_fuzz: triage check: $ncase known HDF5 fault(s) shown HDF5's, the sample capture not"

# part NAME BINARY RUNS SECONDS: WORKERS jobs of RUNS/WORKERS executions each, in WORK/NAME. In the
# fast part, a fault shown to be caused by HDF5's overruns (hdf5_fault) is HDF5's: its input is
# saved for the triage as hdf5-heap-*, and fuzzing resumes for the executions left (the corpus
# carries over); any other fault ends the part as a failure.
part() {
  local name="$1" bin="$2" runs="$3" secs="$4" dir="$WORK/$1"
  rm -rf "$dir/logs" "$dir/saved"
  mkdir -p "$dir/corpus" "$dir/saved" "$dir/logs" "$dir/artifacts"
  local t0=$SECONDS total=0 attempt=0 rc=0 heap=0 n l a
  [ "$runs" -gt 0 ] || return 0
  while [ "$total" -lt "$runs" ]; do
    local left=$((runs - total)) tl=0
    if [ "$secs" -gt 0 ]; then tl=$((secs - (SECONDS - t0))); [ "$tl" -ge 1 ] || break; fi
    # The fast part runs 8 jobs per worker, WORKERS at a time: a job that ends on an HDF5 fault
    # (one every ~10^5 executions on a grown corpus) frees its core for the next job instead of
    # leaving it idle until the others finish. Each job gets its share of the time bound, so the
    # waves of jobs end within it.
    local jobs=$WORKERS
    [ "$name" = fast ] && jobs=$((WORKERS * 8))
    local per=$(( (left + jobs - 1) / jobs )) jt=0
    if [ "$tl" -gt 0 ]; then jt=$((tl * WORKERS / jobs)); [ "$jt" -ge 1 ] || jt=1; fi
    attempt=$((attempt + 1))
    local ld="$dir/logs/$attempt"
    mkdir -p "$ld"
    # Each job: its own process and log (fuzz-K.log); they share the corpus (reloaded as it grows).
    # -timeout=300: above the guard's own 120-s backstop for a child that blocks (fuzz_guard.c).
    # -rss_limit_mb=0: no RSS thread in the fuzzer's process, whose copy in the child would keep
    # LeakSanitizer from suspending it ("false leaks are possible"); the child's memory is bounded
    # by RLIMIT_AS or ASan's max_allocation_size_mb instead.
    (cd "$ld" && FUZZ_GUARD_SAVE="$dir/saved" "$bin" -jobs="$jobs" -workers="$WORKERS" \
       -runs="$per" -max_total_time="$jt" -max_len=200000 -timeout=300 -rss_limit_mb=0 \
       -malloc_limit_mb=4096 -artifact_prefix="$dir/artifacts/" -print_final_stats=1 \
       "$dir/corpus" "$SEEDS" > "$ld/main.log" 2>&1)
    rc=$?
    for l in "$ld"/fuzz-*.log; do
      n=$(grep -oE "^Done [0-9]+ runs" "$l" | grep -oE "[0-9]+" | tail -n 1)
      [ -n "$n" ] || n=$(grep -oE "^#[0-9]+" "$l" | tail -n 1 | tr -d '#')
      total=$((total + ${n:-0}))
    done
    [ "$name" = fast ] || break
    local all_hdf5=1 any=0 k=0 shown="$dir/shown-$attempt"
    local -a arts=()
    for a in "$dir"/artifacts/crash-*; do [ -f "$a" ] && [ "${a%.triage}" = "$a" ] && arts+=("$a"); done
    [ "${#arts[@]}" -gt 0 ] && any=1
    # The faults are judged side by side, WORKERS at a time (each replays its own child's history):
    # one by one, a run's ~80 took longer than its fuzzing.
    mkdir -p "$shown"
    if [ "$attempt" -lt 100 ]; then
      for a in "${arts[@]}"; do
        (TRACE="$a.triage" hdf5_fault "$a" "$dir/saved" && touch "$shown/$(basename "$a")") &
        k=$((k + 1))
        [ $((k % WORKERS)) -ne 0 ] || wait
      done
      wait
      # A fault the side-by-side pass left unexplained is judged again alone, by the same rules:
      # on a loaded many-core machine side-by-side replays have left faults unexplained that the
      # rules show HDF5's alone, for a cause not yet proven (verify/RESULTS.md, runs L and M).
      # Each fault's trace keeps both passes' evidence.
      for a in "${arts[@]}"; do
        [ -f "$shown/$(basename "$a")" ] && continue
        echo "==== judged alone" >> "$a.triage"
        TRACE="$a.triage" hdf5_fault "$a" "$dir/saved" && touch "$shown/$(basename "$a")" &&
          echo "run_fuzz: $name: $(basename "$a"): shown HDF5's only when judged alone (trace: $a.triage)"
      done
    fi
    for a in "${arts[@]}"; do
      if [ -f "$shown/$(basename "$a")" ]; then
        rm -f "$dir/corpus/$(basename "$a" | sed 's/^crash-//')"
        mv "$a" "$dir/saved/hdf5-heap-$(basename "$a")"
        mv "$a.triage" "$dir/saved/triage-$(basename "$a").txt" 2>/dev/null
        heap=$((heap + 1))
      else
        all_hdf5=0
      fi
    done
    rm -rf "$shown"
    # resume only past faults that were all HDF5's (and nothing else went wrong in this attempt)
    if [ "$any" -eq 1 ] && [ "$all_hdf5" -eq 1 ] &&
       ! any_file "$dir"/artifacts/timeout-* "$dir"/artifacts/oom-* "$dir"/artifacts/leak-*; then
      mv "$ld" "$dir/logs/hdf5-$attempt" # its faults explained: out of the failure check below
      rc=0 # (libFuzzer's exit 1 on them too, also when no attempt follows)
      continue
    fi
    break
  done
  local guard
  guard=$(grep -h "^fuzz_guard: [0-9]* inputs" "$dir"/logs/*/fuzz-*.log |
          awk '{c+=$9; h+=$11; s+=$13} END {printf "inside HDF5: %d crashes, %d hangs, %d files it could not close", c, h, s}' FS='[ ,]+')
  local dt=$((SECONDS - t0)) cov
  cov=$(grep -h -oE "cov: [0-9]+" "$dir"/logs/*/fuzz-*.log | sort -t' ' -k2 -n | tail -n 1)
  echo "run_fuzz: $name: $total executions in ${dt} s with $WORKERS workers ($((total / (dt > 0 ? dt : 1)))/s), $cov; $guard; $heap heap overruns inside HDF5 (ASan), $attempt run(s)"
  summary+="$name $total/$runs in ${dt} s; "
  if any_file "$dir"/artifacts/crash-* "$dir"/artifacts/timeout-* "$dir"/artifacts/oom-* "$dir"/artifacts/leak-* ||
     grep -l -E "^fuzz_guard: (fault in the reader|child )|ERROR: libFuzzer" "$dir"/logs/[0-9]*/fuzz-*.log >/dev/null 2>&1; then
    # (Sanitizer reports inside libhdf5 are in the logs too: the guard judged them HDF5's.)
    echo "run_fuzz: $name: FAILURE in our code (inputs under $dir/artifacts):"
    for t in "$dir"/artifacts/*.triage; do
      [ -f "$t" ] || continue
      echo "run_fuzz: $name: what the triage's replays of $(basename "${t%.triage}") showed:"
      head -n 80 "$t"
    done
    grep -h -B40 -A12 -E "^fuzz_guard: (fault in the reader|child )" "$dir"/logs/[0-9]*/fuzz-*.log | head -n 80
    fail=1
  elif [ "$rc" -ne 0 ]; then
    echo "run_fuzz: $name: libFuzzer exited $rc:"; tail -n 20 "$dir/logs/$attempt/main.log"
    fail=1
  fi
  if [ "$total" -lt "$runs" ]; then
    echo "run_fuzz: $name: only $total of $runs executions ran (--max-seconds $MAXS)"
    fail=1
  fi
}
fast_s=0 asan_s=0
if [ "$MAXS" -gt 0 ]; then fast_s=$((MAXS * 5 / 6)); fi
part fast "$BINDIR/capture_fuzz" "$RUNS" "$fast_s"
if [ "$MAXS" -gt 0 ]; then asan_s=$((MAXS - (SECONDS - t_start))); [ "$asan_s" -ge 1 ] || asan_s=1; fi
# The ASan part starts from the corpus the fast part found.
mkdir -p "$WORK/asan/corpus"
cp -n "$WORK"/fast/corpus/* "$WORK/asan/corpus/" 2>/dev/null
part asan "$BINDIR/capture_fuzz_asan" "$ARUNS" "$asan_s"

# Triage: the replay on saved inputs (files HDF5 cannot close first, then crashes, then hangs):
# exit 2 with a reason (the usual answer: its metadata guard runs HDF5 in a child), or 0/1 (the
# input happened to read fine in the replay's order of reads). A crash, hang or exit 2 with no
# reason fails.
ntri=0 nsaved=0 bad=0
saved=$(ls -d "$WORK"/fast/saved/hdf5-heap-* "$WORK"/fast/saved/hdf5-stuck-* "$WORK"/asan/saved/hdf5-stuck-* \
          "$WORK"/fast/saved/hdf5-crash-* "$WORK"/asan/saved/hdf5-crash-* "$WORK"/fast/saved/hdf5-hang-* \
          "$WORK"/asan/saved/hdf5-hang-* 2>/dev/null)
for art in $saved; do
  nsaved=$((nsaved + 1))
  [ "$ntri" -lt "${FUZZ_TRIAGE_MAX:-40}" ] || continue
  ntri=$((ntri + 1))
  out=$(FUSEDNORM_REPLAY_HDF5_CPU_LIMIT=3 timeout 120 "$REPLAY" "$art" --device cpu 2>&1)
  rrc=$?
  if [ "$rrc" -gt 2 ] || { [ "$rrc" -eq 2 ] && ! grep -q "error:" <<< "$out"; }; then
    bad=$((bad + 1))
    echo "run_fuzz: replay on $art: exit $rrc (expected 2 with a reason, or 0/1):"
    echo "$out" | tail -n 5
  fi
done
echo "run_fuzz: triage: $nsaved inputs saved on which HDF5 failed, $ntri checked with the replay, $bad not refused cleanly"
[ "$bad" -eq 0 ] || fail=1
echo "run_fuzz: summary: ${summary}HDF5 failed on $nsaved saved inputs, $ntri checked with the replay, $bad not refused cleanly; $((SECONDS - t_start)) s in all"
[ "$fail" -eq 0 ] || { echo FAILED; exit 1; }
echo PASS
