#!/bin/bash
# tools/test.sh — install what is missing (tools/setup.sh), then build everything and run the CPU
# tests. GPU tests (tag "gpu") are built here and run by tools/gpu/run_suite.sh on a GPU machine.
# Extra arguments go to `bazel test` (e.g. tools/test.sh --test_output=all).
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/setup.sh
# --test_output=errors, --test_tag_filters=-gpu: .bazelrc. No --keep_going: the first failure stops.
exec bazel test //... --test_output=errors "$@"
