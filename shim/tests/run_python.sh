#!/bin/bash
# Runs a shim Python test under Bazel: the library just built (not an installed wheel), the
# package from the source tree, every cache in the test's own temp dir, no network.
# usage: run_python.sh PYTHON LIB.so SCRIPT.py [args...]
set -eu
py="$1"; lib="$2"; shift 2
[ -n "$py" ] || py=python3
here="$(pwd)"
export FUSEDNORM_LIBRARY="$here/$lib"
export PYTHONPATH="$here/shim/python${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
export HOME="$tmp/home" TORCHINDUCTOR_CACHE_DIR="$tmp/inductor" TRITON_CACHE_DIR="$tmp/triton"
export HF_HOME="$tmp/hf" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 XDG_CACHE_HOME="$tmp/cache"
mkdir -p "$HOME"
# Two CI cores: one intra-op thread per core, no oversubscription between sharded tests.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
# Inductor's CPU kernels without SIMD: the tests check what Inductor makes of the graph (no graph
# break, no copy, the eager result), not the host's vector code, and the scalar C++ compiles in
# about half the time (Qwen3's fullgraph compile 45 -> 22 s on 2 cores). GPU code is unaffected.
export TORCHINDUCTOR_VEC_ISA_OK="${TORCHINDUCTOR_VEC_ISA_OK:-0}"
exec "$py" "$@"
