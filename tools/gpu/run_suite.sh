#!/bin/bash
# tools/gpu/run_suite.sh — the whole GPU suite, on a GPU machine without Bazel.
#
#   here:        bazel build --define=cuda_archs=sm_90a,compute_80 --define=cuda_compress=size //... && bash tools/gpu/collect.sh
#   GPU machine: bash tools/gpu/run_suite.sh [SECTION...]      (from the repo root; device tool:
#                run(command="bash tools/gpu/run_suite.sh", carry=["gpu_bundle"]), or
#                carry=["gpu_bundle_pack"] where collect.sh packed it: unpacked here first)
#
# Runs every gpu_bundle/tools/gpu/suite_*.sh but the opt-in ones (or only the named sections, e.g.
# `kernels`; the opt-in sections fuzz_long and seeds run only when named), each
# appending rows "section | check | PASS/FAIL | detail" to the summary (see common.sh). Prints the
# GPU name and date first and the summary table LAST; exits 1 if any row is FAIL (or a section
# crashed or recorded nothing). Logs: $OUT/suite.log and $OUT/summary.txt when $OUT is set (the
# device tool's output folder), else gpu_bundle/out/. SECTION_TIMEOUT (s, default 540) bounds a
# section; a device call is limited to 10 minutes in all, so size sections to fit together.
# SUITE_BUDGET (s) is the whole run's: each section's timeout is cut to the time left (a section
# with less than 20 s left is a FAIL row, not run), and the seeds section without SEEDS_SECONDS
# runs seeds until 60 s before the end (`SUITE_BUDGET=585 bash tools/gpu/run_suite.sh fuzz_long
# seeds`: the fuzzing, then seeds for whatever the call has left).
set -uo pipefail
cd "$(dirname "$0")/../.."
# BUNDLE=gpu_bundle_ptx80 (or an absolute path) runs a variant bundle collected next to the default.
B="${BUNDLE:-gpu_bundle}"
case "$B" in /*) ;; *) B="$PWD/$B" ;; esac
export BUNDLE="$B"
# A bundle too large to travel as it is comes packed (tools/gpu/collect.sh: ${BUNDLE}_pack/).
if [ ! -d "$BUNDLE/tools/gpu" ] && [ -f "${BUNDLE}_pack/bundle.tar.xz" ]; then
  echo "run_suite: unpacking ${BUNDLE}_pack/bundle.tar.xz"
  if ! tar -C "$(dirname "$BUNDLE")" -xJf "${BUNDLE}_pack/bundle.tar.xz"; then
    echo "run_suite: ${BUNDLE}_pack/bundle.tar.xz could not be unpacked" >&2
    exit 2
  fi
fi
if [ ! -d "$BUNDLE/tools/gpu" ]; then
  echo "run_suite: $BUNDLE/tools/gpu not found: build and collect first (bazel build --define=cuda_archs=sm_90a,compute_80 --define=cuda_compress=size //... && bash tools/gpu/collect.sh)" >&2
  exit 2
fi
export SUITE_OUT="${OUT:-$BUNDLE/out}"
mkdir -p "$SUITE_OUT"
export SUMMARY="$SUITE_OUT/summary.txt"
if [ -n "${SUITE_BUDGET:-}" ]; then
  if ! [[ "$SUITE_BUDGET" =~ ^[0-9]+$ ]]; then
    echo "run_suite: SUITE_BUDGET='$SUITE_BUDGET': a whole number of seconds expected" >&2
    exit 2
  fi
  export SUITE_DEADLINE=$(( $(date +%s) + SUITE_BUDGET ))
fi
LOG="$SUITE_OUT/suite.log"
: > "$SUMMARY"
: > "$LOG"

main() {
# The GPU is part of the record: no nvidia-smi answer is a FAIL row, not a footnote.
if gpu="$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1)" && [ -n "$gpu" ]; then
  gpu="$(echo "$gpu" | head -n 8 | paste -sd ';')"
  echo "suite | nvidia-smi | PASS | $gpu" >> "$SUMMARY"
else
  echo "suite | nvidia-smi | FAIL | no GPU visible: $(echo "$gpu" | head -n 1)" >> "$SUMMARY"
  gpu="none"
fi
echo "== fusednorm GPU suite"
echo "gpu:    $gpu"
echo "date:   $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "host:   $(hostname) $(uname -r)"
head -n 3 "$BUNDLE/MANIFEST.txt" 2>/dev/null | tail -n 2 | sed 's/^/bundle: /'

if [ $# -gt 0 ]; then
  sections=()
  for s in "$@"; do sections+=("$BUNDLE/tools/gpu/suite_${s#suite_}.sh"); done
else
  # Sections marked "# suite: opt-in" (long CPU runs: fuzz_long, seeds) run only when named.
  sections=()
  for s in "$BUNDLE"/tools/gpu/suite_*.sh; do
    grep -q '^# suite: opt-in' "$s" || sections+=("$s")
  done
fi

for script in "${sections[@]}"; do
  name="$(basename "$script" .sh)"; name="${name#suite_}"
  export SECTION="$name"
  echo
  echo "==== section $name"
  if [ ! -f "$script" ]; then
    echo "$name | (section) | FAIL | $script not in the bundle" >> "$SUMMARY"
    continue
  fi
  before=$(grep -c "^$name | " "$SUMMARY")
  t0=$(date +%s)
  tmo="${SECTION_TIMEOUT:-540}"
  if [ -n "${SUITE_DEADLINE:-}" ]; then
    left=$(( SUITE_DEADLINE - t0 ))
    if [ "$left" -lt 20 ]; then
      echo "$name | (section) | FAIL | not run: ${left}s of SUITE_BUDGET left" >> "$SUMMARY"
      continue
    fi
    [ "$left" -lt "$tmo" ] && tmo=$left
  fi
  timeout --kill-after=10 "$tmo" bash "$script"
  rc=$?
  after=$(grep -c "^$name | " "$SUMMARY")
  if [ "$rc" -ne 0 ]; then
    echo "$name | (section) | FAIL | script exited $rc after $(( $(date +%s) - t0 ))s$( [ "$rc" -eq 124 ] && echo ' (timeout)')" >> "$SUMMARY"
  elif [ "$after" -eq "$before" ]; then
    echo "$name | (section) | FAIL | recorded no checks" >> "$SUMMARY"
  fi
done

npass=$(grep -c ' | PASS | ' "$SUMMARY")
nfail=$(grep -c ' | FAIL | ' "$SUMMARY")
echo
echo "==== summary ($(date -u +%Y-%m-%dT%H:%M:%SZ), ${gpu%%,*})"
# Aligned table: widths from the rows themselves (awk: no column(1) version differences).
{ echo "section | check | result | detail"; cat "$SUMMARY"; } | awk -F' [|] ' '
  { n++; for (i = 1; i <= 4; i++) { c[n, i] = $i; if (length($i) > w[i]) w[i] = length($i) } }
  END {
    for (r = 1; r <= n; r++) {
      printf "%-*s | %-*s | %-*s | %s\n", w[1], c[r, 1], w[2], c[r, 2], w[3], c[r, 3], c[r, 4]
      if (r == 1) printf "%s-+-%s-+-%s-+-%s\n", dash(w[1]), dash(w[2]), dash(w[3]), dash(w[4])
    }
  }
  function dash(k,   s) { s = ""; while (k-- > 0) s = s "-"; return s }'
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ] && [ "$npass" -gt 0 ]
}

# Everything goes to the console and to the log; the summary table is the last thing printed.
main "$@" 2>&1 | tee -a "$LOG"
exit "${PIPESTATUS[0]}"
