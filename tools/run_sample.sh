#!/bin/bash
# tools/run_sample.sh — install what is missing (tools/setup.sh), build, and run the main job on
# built-in data. Extra arguments go to the job.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/setup.sh
# The main job: replay the embedded capture against float64 (GPU if present, else CPU).
# `bazel run //kernels:selfcheck` runs the built-in shape suite instead.
exec bazel run //verify:replay -- data/sample_capture.h5 "$@"
