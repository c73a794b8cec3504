#!/bin/bash
# Runs a bench harness check under Bazel (CPU only): caches and matplotlib's config in the test's
# temp dir, headless plotting, two threads (CI has two cores).
# usage: run_test.sh PYTHON SCRIPT.py [args...]
set -eu
py="${1:-python3}"; shift
[ -n "$py" ] || py=python3
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
export HOME="$tmp/home" MPLCONFIGDIR="$tmp/mpl" XDG_CACHE_HOME="$tmp/cache" MPLBACKEND=Agg
export PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
mkdir -p "$HOME"
exec "$py" "$@"
