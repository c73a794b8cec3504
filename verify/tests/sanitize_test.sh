#!/bin/bash
# verify/tests/sanitize_test.sh — AddressSanitizer + UndefinedBehaviorSanitizer builds (gcc, outside
# Bazel) of the replay harness and of the CPU backend, run on real inputs:
#   1. kernels: the CPU backend's own test (kernels/tests/test_cpu.c, --quick matrix + thread-count
#      invariance) with the CPU backend, mode heuristic, float64 reference and check engine built
#      with -fsanitize=address,undefined;
#   2. replay: every verify/*.c file and the same kernel sources, run on the sample capture
#      (mpirun -np 1 and 2) and the fuzz seed corpus (small captures + the malformed-file corpus,
#      verify/fuzz/make_seeds.py).
# The CUDA half of the library (nvcc-built launchers) is replaced by sanitize_cuda_stub.c, which
# reports no device: host sanitizers cannot see into GPU kernels anyway. Any sanitizer report fails
# the test (halt_on_error; UBSan without recovery). LeakSanitizer runs on the CPU backend's test
# (the replay's runs start MPI, whose plugins' allocations it cannot attribute).
#
#   bash verify/tests/sanitize_test.sh [PYTHON]        (from the repository root, or under Bazel)
set -uo pipefail
PY="${1:-python3}"
if [ -n "${TEST_SRCDIR:-}" ]; then
  ROOT="$TEST_SRCDIR/${TEST_WORKSPACE:-fusednorm}"
  WORK="$TEST_TMPDIR/sanitize"
else
  ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
export HOME="$WORK/home" OMP_NUM_THREADS=2
mkdir -p "$HOME"
CUDA="${CUDA_HOME:-/usr/local/cuda}"
H5INC=$(pkg-config --cflags hdf5-serial 2>/dev/null || echo -I/usr/include/hdf5/serial)
H5LIB=$(pkg-config --libs hdf5-serial 2>/dev/null || echo "-L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5")
MPIFLAGS=$(mpicc --showme:compile 2>/dev/null)
MPILIBS=$(mpicc --showme:link 2>/dev/null)
SAN=(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1)
CF=(-std=c11 -Wall -I"$ROOT" -I"$CUDA/include" -fopenmp "${SAN[@]}")
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$WORK/lsan.supp:print_suppressions=0"
# Allocations made inside these libraries at exit or on their error paths are not ours.
printf 'leak:libhdf5_serial.so\nleak:libhdf5.so\nleak:libgomp.so\n' > "$WORK/lsan.supp"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
san_report() { grep -E "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" "$1"; }

KSRC=("$ROOT/kernels/src/common.c" "$ROOT/kernels/src/cpu.c" "$ROOT/kernels/src/select.c"
      "$ROOT/kernels/ref/fusednorm_ref.c" "$ROOT/verify/tests/sanitize_cuda_stub.c")

# ---- 1. the CPU backend's test ----
if ! gcc "${CF[@]}" "${KSRC[@]}" "$ROOT/kernels/tests/engine.c" "$ROOT/kernels/tests/test_cpu.c" \
     -lm -o "$WORK/test_cpu" 2> "$WORK/build_kernels.log"; then
  cat "$WORK/build_kernels.log"; echo "sanitize_test: kernel build failed"; exit 1
fi
t0=$SECONDS
"$WORK/test_cpu" --quick > "$WORK/test_cpu.log" 2>&1
rc=$?
tail -n 2 "$WORK/test_cpu.log"
{ [ $rc -eq 0 ] && ! san_report "$WORK/test_cpu.log"; } ||
  { san_report "$WORK/test_cpu.log" | head; tail -n 20 "$WORK/test_cpu.log"; fail "test_cpu (ASan+UBSan) exit $rc"; }
echo "  CPU backend test under ASan+UBSan: exit $rc in $((SECONDS - t0)) s"

# ---- 2. the replay ----
VSRC=("$ROOT"/verify/{replay,mpi_split,device,report,score,h5io,record}.c)
if ! gcc "${CF[@]}" $H5INC $MPIFLAGS "${VSRC[@]}" "${KSRC[@]}" $H5LIB $MPILIBS "$CUDA/lib64/libcudart_static.a" -ldl -lrt -lpthread -lm \
     -o "$WORK/replay" 2> "$WORK/build_replay.log"; then
  cat "$WORK/build_replay.log"; echo "sanitize_test: replay build failed"; exit 1
fi
# The replay always starts MPI, whose plugins (dlopen'ed, then closed) leave allocations LSan cannot
# attribute ("<unknown module>"): leak checking is off for the replay runs. The reader's leaks are
# checked by the fuzz target (verify/fuzz), the CPU backend's by test_cpu above.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=0"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
SAMPLE="$ROOT/data/sample_capture.h5"
t0=$SECONDS
"$WORK/replay" "$SAMPLE" --quiet --report "$WORK/r1.json" > "$WORK/sample1.log" 2>&1
rc=$?
{ [ $rc -eq 0 ] && ! san_report "$WORK/sample1.log"; } ||
  { san_report "$WORK/sample1.log" | head; tail -n 20 "$WORK/sample1.log"; fail "replay sample (np 1) exit $rc"; }
echo "  replay of the sample under ASan+UBSan (np 1): exit $rc in $((SECONDS - t0)) s"
t0=$SECONDS
mpirun -np 2 --oversubscribe --bind-to none \
  -x ASAN_OPTIONS -x UBSAN_OPTIONS "$WORK/replay" "$SAMPLE" --quiet > "$WORK/sample2.log" 2>&1
rc=$?
{ [ $rc -eq 0 ] && ! san_report "$WORK/sample2.log"; } ||
  { san_report "$WORK/sample2.log" | head; tail -n 20 "$WORK/sample2.log"; fail "replay sample (np 2) exit $rc"; }
echo "  replay of the sample under ASan+UBSan (mpirun -np 2): exit $rc in $((SECONDS - t0)) s"

"$PY" "$ROOT/verify/fuzz/make_seeds.py" "$WORK/corpus" > "$WORK/seeds.log" 2>&1 ||
  { cat "$WORK/seeds.log"; fail "seed corpus generation"; }
n=0 t0=$SECONDS
# verify/fuzz/regressions/ is left out: those inputs corrupt memory inside HDF5 itself, which ASan
# (intercepting HDF5's memcpy) reports before the replay's guard can see the crash; the production
# build's answer to them (exit 2) is checked by malformed_test.
for f in "$WORK"/corpus/*; do
  [ -f "$f" ] || continue
  FUSEDNORM_REPLAY_HDF5_CPU_LIMIT=5 timeout 120 "$WORK/replay" "$f" --device cpu > "$WORK/one.log" 2>&1
  rc=$?
  # 0/1: a valid capture replayed; 2: refused with a reason. Anything else (a crash, a sanitizer
  # abort, the timeout) fails.
  if [ $rc -gt 2 ] || san_report "$WORK/one.log" >/dev/null || { [ $rc -eq 2 ] && ! grep -q "error:" "$WORK/one.log"; }; then
    san_report "$WORK/one.log" | head; tail -n 15 "$WORK/one.log"; fail "replay $(basename "$f"): exit $rc"
  fi
  n=$((n + 1))
done
echo "  replay of $n corpus files (valid and malformed) under ASan+UBSan: no report, $((SECONDS - t0)) s"

if [ $fails -ne 0 ]; then echo "sanitize_test: $fails failure(s)"; exit 1; fi
echo "PASS"
