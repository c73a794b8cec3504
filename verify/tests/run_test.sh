#!/bin/bash
# Runs a verify/ Python test under Bazel (or by hand from the repository root):
#   run_test.sh PYTHON SCRIPT.py [args...]
# The binaries come from the runfiles (or bazel-bin), capture.py from shim/python (no compiled
# ops needed), every cache in the test's temp dir, no network, one thread per process (2-core CI,
# and mpirun runs up to 3 ranks).
set -eu
py="${1:-python3}"
shift
[ -n "$py" ] || py=python3
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
export HOME="$tmp/home" HF_HOME="$tmp/hf" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export XDG_CACHE_HOME="$tmp/cache" PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
mkdir -p "$HOME"
exec "$py" "$@"
