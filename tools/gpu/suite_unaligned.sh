#!/bin/bash
# GPU suite section: unaligned rows (kernels/tests/test_cuda.c run_unaligned), on its own so that
# its time limit is its own (`bash tools/gpu/run_suite.sh unaligned` runs it alone).
#   test_cuda --unaligned          odd widths and per-tensor offsets, congruent (the head-split
#                                  kernels, rmsnorm_unaligned.cuh) and apart (the generic path),
#                                  in AUTO and every forced mode, vs the float64 reference
#   memcheck test_cuda --unaligned --quick
#                                  compute-sanitizer memcheck of the head-split kernels' edges
#                                  (out-of-bounds heads and tails, shared-memory indexing)
. "$(dirname "$0")/common.sh"
suite_require "$BUNDLE/bin/test_cuda" || exit 0

suite_check "test_cuda --unaligned" --timeout 300 -- "$BUNDLE/bin/test_cuda" --unaligned

san="$(command -v compute-sanitizer || true)"
for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do
  [ -z "$san" ] && [ -x "$d/compute-sanitizer" ] && san="$d/compute-sanitizer"
done
if [ -z "$san" ]; then
  suite_row "memcheck test_cuda --unaligned --quick" FAIL "compute-sanitizer not found (PATH, /usr/local/cuda)"
else
  suite_check "memcheck test_cuda --unaligned --quick" --timeout 220 --detail 'ERROR SUMMARY|[Ff]ail|[Pp]ass' -- \
    "$san" --tool memcheck --error-exitcode 3 "$BUNDLE/bin/test_cuda" --unaligned --quick
fi
