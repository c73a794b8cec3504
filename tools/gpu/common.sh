# tools/gpu/common.sh — sourced by every suite section (gpu_bundle/tools/gpu/suite_*.sh).
#
# A section is a bash script run by tools/gpu/run_suite.sh from the repo root on the GPU machine
# (no Bazel there: everything it runs comes from gpu_bundle/, data paths are passed as arguments).
# It sources this file and records each check with suite_check / suite_row; run_suite.sh prints
# all rows as one table at the end and fails if any row is FAIL.
#
# Environment set by run_suite.sh (defaults here let a section run alone, for debugging):
#   BUNDLE      absolute path of gpu_bundle/
#   SECTION     the section's name (suite_<name>.sh)
#   SUMMARY     file the rows are appended to: "section | check | PASS/FAIL | detail"
#   SUITE_OUT   directory for a section's artifacts (JSON reports, ...): $OUT when set. The device
#               tool returns at most 8 files from $OUT, so write few (run_suite.sh uses 2).
# Also exported: PATH with $BUNDLE/bin, PYTHONPATH with $BUNDLE/python, FUSEDNORM_LIBRARY.

: "${BUNDLE:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${SECTION:=$(basename "$0" .sh | sed 's/^suite_//')}"
: "${SUMMARY:=/dev/null}"
: "${SUITE_OUT:=${OUT:-$BUNDLE/out}}"
export BUNDLE SECTION SUMMARY SUITE_OUT
mkdir -p "$SUITE_OUT"
export PATH="$BUNDLE/bin:$PATH"
export PYTHONPATH="$BUNDLE/python${PYTHONPATH:+:$PYTHONPATH}"
[ -f "$BUNDLE/lib/libfusednorm_ops.so" ] && export FUSEDNORM_LIBRARY="$BUNDLE/lib/libfusednorm_ops.so"

# suite_row CHECK PASS|FAIL DETAIL — one row of the summary table.
suite_row() {
  local detail="${3//|//}"
  detail="$(printf '%s' "$detail" | tr '\n\t' '  ' | cut -c1-140)"
  printf '%s | %s | %s | %s\n' "$SECTION" "$1" "$2" "$detail" >> "$SUMMARY"
  printf '[%s] %s: %s %s\n' "$SECTION" "$1" "$2" "$detail"
}

# suite_check CHECK [--timeout S] [--detail REGEX] -- COMMAND... : runs COMMAND (output to this
# section's log), PASS iff it exits 0. DETAIL is the last output line matching REGEX (default:
# the last non-empty line) plus the exit code and the time taken.
suite_check() {
  local name="$1"; shift
  local tmo=600 rx='.'
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    case "$1" in
      --timeout) tmo="$2"; shift 2 ;;
      --detail) rx="$2"; shift 2 ;;
      *) echo "suite_check: unknown option $1" >&2; return 2 ;;
    esac
  done
  [ "${1:-}" = "--" ] && shift
  local log t0 rc line
  log="$(mktemp)"
  t0=$(date +%s)
  echo "---- [$SECTION] $name: $*"
  timeout --kill-after=10 "$tmo" "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  line="$(grep -E "$rx" "$log" | grep -v '^[[:space:]]*$' | tail -n 1)"
  rm -f "$log"
  local dt=$(( $(date +%s) - t0 ))
  if [ "$rc" -eq 0 ]; then
    suite_row "$name" PASS "${line} (${dt}s)"
  elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    suite_row "$name" FAIL "timed out after ${tmo}s: ${line}"
  else
    suite_row "$name" FAIL "exit $rc: ${line} (${dt}s)"
  fi
  return 0
}

# suite_require FILE... : a FAIL row (never a silent skip) for each missing bundle file; returns 1
# if any is missing so the section can stop.
suite_require() {
  local f ok=0
  for f in "$@"; do
    if [ ! -e "$f" ]; then suite_row "require $(basename "$f")" FAIL "$f missing from the bundle"; ok=1; fi
  done
  return $ok
}
