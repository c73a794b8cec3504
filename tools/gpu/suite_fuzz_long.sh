#!/bin/bash
# suite: opt-in (run only when named: bash tools/gpu/run_suite.sh fuzz_long)
# GPU-suite section (CPU only, the GPU is not used): the long fuzzing run of the capture reader,
# verify/fuzz/run_fuzz.sh from the bundle's prebuilt binaries (gpu_bundle/fuzz, built by
# tools/gpu/collect.sh with clang here; this machine needs no clang).
#   libraries   the fuzz binaries find their libraries (libhdf5_serial.so.103, libstdc++)
#   fuzz        10^7 executions of the reader without sanitizers and 10^5 under ASan + UBSan, one
#               worker per core, bounded by FUZZ_SECONDS (default 450) of fuzzing: fewer
#               executions by then FAIL; any fault in our code FAILS; every saved input HDF5 failed
#               on (up to 40) must be refused by bin/replay with exit 2 and a reason.
# Environment: FUZZ_RUNS, FUZZ_ASAN_RUNS, FUZZ_SECONDS, FUZZ_WORKERS override the defaults.
# FUZZ_HDF5=build fuzzes against the build machine's libhdf5_serial.so.103 (gpu_bundle/fuzz/
# hdf5-build: the release the reader is compiled against and CI fuzzes with) instead of this
# machine's; the libraries row names the HDF5 release either way.
. "$(dirname "$0")/common.sh"
F="$BUNDLE/fuzz"
if [ ! -d "$F" ]; then
  suite_row "bundle" FAIL "$F missing: collect with COLLECT_FUZZ=1 (the fuzzers are not bundled by default)"
  exit 0
fi
suite_require "$F/capture_fuzz" "$F/capture_fuzz_asan" "$F/run_fuzz.sh" "$BUNDLE/bin/replay" || exit 0
case "${FUZZ_HDF5:-system}" in
  system) ;;
  build)
    suite_require "$F/hdf5-build/libhdf5_serial.so.103" || exit 0
    export LD_LIBRARY_PATH="$F/hdf5-build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
  *) suite_row "settings" FAIL "FUZZ_HDF5='$FUZZ_HDF5': system or build expected"; exit 0 ;;
esac
missing="$(ldd "$F/capture_fuzz" "$F/capture_fuzz_asan" 2>&1 | grep 'not found' | tr -s ' \t' ' ' | sort -u | paste -sd ';')"
if [ -n "$missing" ]; then
  suite_row "libraries" FAIL "$missing"
  exit 0
fi
h5="$(ldd "$F/capture_fuzz" | awk '/libhdf5_serial/{print $3}')"
h5v="$(grep -aoE 'HDF5 library version: [0-9.]+' "$h5" 2>/dev/null | head -n 1 | grep -oE '[0-9.]+$')"
suite_row "libraries" PASS "$(ldd "$F/capture_fuzz" | grep -oE 'lib(hdf5[a-z_]*|capture_reader[a-z_]*)\.so[.0-9]*' | sort -u | paste -sd ' '); HDF5 ${h5v:-?} from $h5 (FUZZ_HDF5=${FUZZ_HDF5:-system})"
if ! [[ "${FUZZ_SECONDS:-450}" =~ ^[0-9]+$ ]]; then
  suite_row "settings" FAIL "FUZZ_SECONDS='$FUZZ_SECONDS': a whole number of seconds expected"
  exit 0
fi
work="$(mktemp -d)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FUZZ_TRIAGE_MAX="${FUZZ_TRIAGE_MAX:-16}"
suite_check "fuzz ${FUZZ_RUNS:-10000000}+${FUZZ_ASAN_RUNS:-100000} on ${FUZZ_WORKERS:-$(nproc)} workers" \
  --timeout $((${FUZZ_SECONDS:-450} + 80)) --detail '^run_fuzz: summary' -- \
  bash "$F/run_fuzz.sh" --bin "$F" --replay "$BUNDLE/bin/replay" --work "$work" \
    --runs "${FUZZ_RUNS:-10000000}" --asan-runs "${FUZZ_ASAN_RUNS:-100000}" \
    --workers "${FUZZ_WORKERS:-$(nproc)}" --max-seconds "${FUZZ_SECONDS:-450}"
# A fault found here must be reproducible elsewhere: its input and the inputs its child served
# before it come back with the suite's output (the machine and its /tmp do not). Only the faults
# left in artifacts/ (the triage moved those shown HDF5's), each with the history that ends on it.
keep=$(cd "$work" && for a in */artifacts/*; do
         [ -f "$a" ] || continue
         echo "$a"
         for h in "${a%%/*}"/saved/history-*; do
           last=$(ls "$h" 2>/dev/null | sort | tail -n 1)
           [ -n "$last" ] && cmp -s "$h/$last" "$a" && echo "$h"
         done
       done)
if [ -n "$keep" ]; then
  tar -czf "$SUITE_OUT/fuzz_long_faults.tgz" -C "$work" $keep &&
    echo "fuzz_long: the faulting inputs and their children's histories: $SUITE_OUT/fuzz_long_faults.tgz"
fi
rm -rf "$work"
