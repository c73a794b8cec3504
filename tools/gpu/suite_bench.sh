#!/bin/bash
# GPU suite section: the benchmark (tools/bench/bench.py) — fusednorm (AUTO and every forced mode) vs
# torch eager, torch.compile, Liger, Quack and a device-to-device copy; kernel time and GB/s, with
# inputs cold (rotating sets, from HBM) and hot (rewritten just before each call, in L2).
#
#   BENCH_MODE=quick (default; bf16, 6 shapes, ~1 min cold only on an H200 2026-11-22; hot doubles
#   the measuring, not the compiling) or full (bf16 over the whole shape suite, fp16/fp32 over 8 of
#   its shapes; ~3.5 min cold only: run it alone, `BENCH_MODE=full bash tools/gpu/run_suite.sh bench`;
#   bench.py stops starting cases at 470 s) or sweep (BENCH_SWEEP random cases, default 200; pass
#   "--seed S --sweep-range A:B" in BENCH_ARGS to measure a slice; bench.py stops at 480 s and says
#   how to resume). BENCH_MODE=skip records a PASS row saying it did not run.
#   BENCH_PROBE=1 also runs tools/bench/probe.py under ncu (DRAM bytes, occupancy; ~30 s).
#   BENCH_ARGS: extra bench.py arguments (e.g. "--shapes 4096x4096 --ops fwd").
#
# Liger is not on the GPU image: carry its wheel in .whl/ (pure Python + Triton; see
# tools/bench/RESULTS.md for the download command) and name ".whl" in the device tool's carry list.
# Without it the bench still runs; bench.md and the log note "liger: not importable".
# Quack is not on the image either, and too big for one call: its archive parts (.quack/, see
# tools/bench/README.md) are carried one per call; this section unpacks them through
# tools/bench/quack_on_gpu.sh when .quack/ or /tmp/quack_parts holds any (else "quack: not importable").
#
# One row: PASS iff bench.py exits 0 (every provider ran or declined a shape, and every output
# passed the float64 sanity check). Speed targets are reported in bench.md, not as rows: a
# benchmark is not a test. Artifacts (3 files: the device tool returns 8): $SUITE_OUT/bench/{bench.json,
# bench.md,bench.png}; the console log is run_suite.sh's suite.log.
. "$(dirname "$0")/common.sh"

mode="${BENCH_MODE:-quick}"
case "$mode" in
  quick) flag=--quick; tmo=240 ;;  # ~45 s seen on an H200 (2026-11-22)
  full)  flag=;        tmo=530 ;;  # bench.py stops starting cases at 470 s; run_suite's cap is 540
  sweep) flag="--sweep ${BENCH_SWEEP:-200}"; tmo=530 ;;  # bench.py stops starting cases at 480 s
  skip) suite_row "bench" PASS "not run: BENCH_MODE=skip (saves ~1 min of device time)"; exit 0 ;;
  *) suite_row "bench" FAIL "BENCH_MODE must be quick, full, sweep or skip, got '$mode'"; exit 0 ;;
esac
# bench.py: from the checkout that travelled with the bundle (gpu_bundle/..), the bundle itself, or
# beside this script when it is run straight from a checkout.
bench=""
for d in "$BUNDLE/.." "$BUNDLE" "$(dirname "$0")/../.."; do
  [ -z "$bench" ] && [ -f "$d/tools/bench/bench.py" ] && bench="$(cd "$d" && pwd)/tools/bench/bench.py"
done
suite_require "${bench:-$BUNDLE/../tools/bench/bench.py}" || exit 0
root="$(cd "$(dirname "$bench")/../.." && pwd)"

# The op library must load, or every fusednorm row would silently be missing: a FAIL row instead.
if ! python3 -c 'import fusednorm' 2> /tmp/bench_import.err; then
  suite_row "import fusednorm" FAIL "$(tail -n 1 /tmp/bench_import.err)"
fi

# Liger from carried wheels, into a private target so nothing else on the machine changes.
whl=$(ls "$root"/.whl/liger_kernel-*.whl 2>/dev/null | head -n 1)
if [ -n "$whl" ]; then
  if python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
       --target /tmp/bench_site "$whl" > /tmp/bench_pip.log 2>&1; then
    export PYTHONPATH="$PYTHONPATH:/tmp/bench_site"
  else
    suite_row "install liger wheel" FAIL "$(tail -n 1 /tmp/bench_pip.log)"
  fi
fi

# Quack from the carried archive parts, unpacked once per machine into /tmp/quack_site.
if compgen -G "$root/.quack/quack_site.tar.xz.part-*" > /dev/null || [ -d /tmp/quack_parts ]; then
  if qp="$(bash "$root/tools/bench/quack_on_gpu.sh" 2> /tmp/bench_quack.log)"; then
    export PYTHONPATH="$PYTHONPATH:$qp"
  else
    suite_row "quack from .quack/" FAIL "$(tail -n 1 /tmp/bench_quack.log)"
  fi
fi

out="$SUITE_OUT/bench"
mkdir -p "$out"
export PYTHONUNBUFFERED=1
# shellcheck disable=SC2086  # BENCH_ARGS is a word list on purpose
suite_check "bench $mode" --timeout "$tmo" --detail '^(OK|FAILED):' -- \
  python3 "$bench" $flag --out "$out" ${BENCH_ARGS:-}

# BENCH_PROBE=1: hardware counters (DRAM bytes vs the byte formula, achieved occupancy) of AUTO's
# kernels on the quick shapes, through Nsight Compute: the evidence behind a missed target.
if [ "${BENCH_PROBE:-0}" = 1 ]; then
  ncu="$(command -v ncu || true)"
  [ -z "$ncu" ] && [ -x /usr/local/cuda/bin/ncu ] && ncu=/usr/local/cuda/bin/ncu
  probe="$(dirname "$bench")/probe.py"
  if [ -z "$ncu" ]; then
    suite_row "probe (ncu)" FAIL "ncu not found (PATH, /usr/local/cuda/bin)"
  else
    suite_check "probe (ncu)" --timeout "${BENCH_PROBE_TIMEOUT:-150}" -- bash -c "
      '$ncu' --clock-control none --print-units base --profile-from-start off --csv --page raw \
        --metrics \$(python3 '$probe' --metrics) python3 '$probe' \
        --shapes 65536x128,1048576x128,32768x4096,16384x7168,1024x65536,256x1048576 \
        --ops fwd,bwd,add_fwd,add_bwd > '$out/ncu.csv' 2> '$out/probe.log' &&
      python3 '$probe' --summarize '$out/ncu.csv' --cases '$out/probe.log' | tee '$out/probe.md'"
  fi
fi
