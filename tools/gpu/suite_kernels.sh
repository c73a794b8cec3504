#!/bin/bash
# GPU suite section: the C API's CUDA backend (kernels/).
#   test_cuda          the full engine matrix on CUDA vs the float64 reference, bitwise
#                      run-to-run determinism (kernels/tests/test_cuda.c)
#   test_cuda --wide-fwd  few wide rows: the wide forward (forced wide, aligned and misaligned,
#                      and AUTO) over 1..200 rows of 32K..1M columns vs the float64 reference
#   test_rstd          the forward's exact rstd bit for bit over its fast range: every float for
#                      the square root and reciprocal, every (ss, n <= 1024) for the division, and
#                      random rows through the slow path; the fp16 fused add's packed sums for
#                      every pair of operands (kernels/tests/rstd_check.cu)
#   test_cpu --quick   the CPU backend on this machine's CPU (another compiler/CPU than CI's)
#   memcheck           compute-sanitizer memcheck over test_cuda --quick and --bitwise
#                      (out-of-bounds and misaligned accesses, leaks, API errors; --bitwise's
#                      head-split rows end at their allocation's end)
#   racecheck, synccheck  compute-sanitizer over test_cuda --bitwise: the one-launch backward's
#                      grid-wide barrier and the split-row head-split ring, whose vectors two
#                      threads read (shared-memory hazards, barriers)
. "$(dirname "$0")/common.sh"
suite_require "$BUNDLE/bin/test_cuda" "$BUNDLE/bin/test_cpu" "$BUNDLE/bin/test_rstd" || exit 0

suite_check "test_cuda" --timeout 420 -- "$BUNDLE/bin/test_cuda"
suite_check "test_cuda --wide-fwd" --timeout 420 -- "$BUNDLE/bin/test_cuda" --wide-fwd
suite_check "test_rstd" --timeout 240 --detail 'mismatch|OK|FAILED' -- "$BUNDLE/bin/test_rstd"
suite_check "test_cpu --quick" --timeout 240 -- "$BUNDLE/bin/test_cpu" --quick

san="$(command -v compute-sanitizer || true)"
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do
  [ -z "$san" ] && [ -x "$d/compute-sanitizer" ] && san="$d/compute-sanitizer"
done
if [ -z "$san" ]; then
  suite_row "memcheck test_cuda --quick" FAIL "compute-sanitizer not found (PATH, /usr/local/cuda)"
else
  suite_check "memcheck test_cuda --quick" --timeout 420 --detail 'ERROR SUMMARY|[Ff]ail|[Pp]ass' -- \
    "$san" --tool memcheck --error-exitcode 3 "$BUNDLE/bin/test_cuda" --quick
  suite_check "memcheck test_cuda --wide-fwd --quick" --timeout 420 --detail 'ERROR SUMMARY|[Ff]ail|[Pp]ass' -- \
    "$san" --tool memcheck --error-exitcode 3 "$BUNDLE/bin/test_cuda" --wide-fwd --quick
  suite_check "memcheck test_cuda --bitwise" --timeout 300 --detail 'ERROR SUMMARY|[Ff]ail|OK' -- \
    "$san" --tool memcheck --error-exitcode 3 "$BUNDLE/bin/test_cuda" --bitwise
  for tool in racecheck synccheck; do
    suite_check "$tool test_cuda --bitwise" --timeout 300 --detail 'ERROR SUMMARY|RACECHECK SUMMARY|[Ff]ail|OK' -- \
      "$san" --tool $tool --error-exitcode 3 "$BUNDLE/bin/test_cuda" --bitwise
  done
fi
