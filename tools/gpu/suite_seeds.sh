#!/bin/bash
# suite: opt-in (run only when named: bash tools/gpu/run_suite.sh seeds)
# GPU-suite section (CPU only, the GPU is not used): fresh seeds of the quick matrix (443 cases
# each) on the CPU backend against the float64 reference with the accuracy rules
# (kernels/ref/RULES.md, "False failures"): as many as fit in SEEDS_SECONDS (default 420; under
# run_suite.sh's SUITE_BUDGET, until 60 s before the run's end), one
# process per core (SEEDS_JOBS processes when set: leave cores to a section run beside it). PASS
# iff no seed has a failing case; the detail gives the count of seeds and the base seed. Each FAIL
# line names its seed and case; each failing seed is listed with the command that reruns it alone
# (bin/test_cpu --quick --seed=S).
. "$(dirname "$0")/common.sh"
T="$BUNDLE/bin/test_cpu"
suite_require "$T" || exit 0
secs="${SEEDS_SECONDS:-420}" jobs="${SEEDS_JOBS:-0}"
# Under run_suite.sh's SUITE_BUDGET, without SEEDS_SECONDS: until 60 s before the run's end (the
# seeds in flight finish, ~15 s on the GPU machines' cores, and the summary is written).
if [ -z "${SEEDS_SECONDS:-}" ] && [ -n "${SUITE_DEADLINE:-}" ]; then
  secs=$(( SUITE_DEADLINE - $(date +%s) - 60 ))
  if [ "$secs" -lt 10 ]; then
    suite_row "settings" FAIL "SUITE_BUDGET leaves ${secs}s for seeds"
    exit 0
  fi
fi
if ! [[ "$secs" =~ ^[0-9]+$ && "$jobs" =~ ^[0-9]+$ ]]; then
  suite_row "settings" FAIL "SEEDS_SECONDS='$secs' SEEDS_JOBS='$jobs': whole numbers expected"
  exit 0
fi
# Within the run's deadline, a few seconds before run_suite.sh's own cap, so that a seed run that
# overruns is this section's FAIL row with its detail.
tmo=$((secs + 80))
if [ -n "${SUITE_DEADLINE:-}" ]; then
  left=$(( SUITE_DEADLINE - $(date +%s) - 5 ))
  [ "$left" -lt "$tmo" ] && tmo=$left
fi
suite_check "quick-matrix seeds, $secs s on $([ "$jobs" = 0 ] && nproc || echo "$jobs") processes" \
  --timeout "$tmo" --detail '^test_cpu: [0-9]+ seeds' -- \
  "$T" --quick --repeat=1000000 --jobs="$jobs" --max-seconds="$secs"
