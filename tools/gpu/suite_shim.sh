#!/bin/bash
# GPU suite section: the torch integration (shim/), on the GPU machine's own torch.
#   test_cuda     ops on the caller's non-default stream, CUDA graph capture + replay of
#                 forward+backward (bitwise vs eager), device guard (2 GPUs)
#   test_ops      the dtype x shape x layout matrix on CUDA vs float64 (accuracy rules), layouts,
#                 errors, autograd, autocast, RMSNorm; opcheck on a subset of the matrix
#   test_compile  torch.compile(fullgraph=True) with inductor on CUDA, bitwise = eager; no copy
#                 inside fusednorm ops and no more copy kernels than stock in a compiled Qwen3 step
#   test_hf       patch_hf on tiny Llama / Qwen3 / Gemma3 on CUDA, logits + all grads
#   wheel         the wheel pip-installed (--target) into the machine's python3 + torch, imported
#                 from another directory, run on CUDA
# The test scripts come from the working tree (shim/tests, sent with every device call); the
# library, package and wheel from gpu_bundle/ (tools/gpu/collect.sh).
. "$(dirname "$0")/common.sh"
ROOT="$(cd "$BUNDLE/.." && pwd)"
T="$ROOT/shim/tests"
whl="$(ls "$BUNDLE"/wheel/fusednorm-*.whl 2>/dev/null | head -n 1)"
suite_require "$BUNDLE/lib/libfusednorm_ops.so" "$BUNDLE/python/fusednorm/__init__.py" \
  "$T/test_ops.py" "$T/test_cuda.py" "$T/test_compile.py" "$T/test_hf.py" "$T/test_wheel.sh" \
  "${whl:-$BUNDLE/wheel/fusednorm-*.whl}" || exit 0

PY=python3
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export TORCHINDUCTOR_CACHE_DIR="$(mktemp -d)" TRITON_CACHE_DIR="$(mktemp -d)"
R='^(OK|FAILED)'

# Two lanes in parallel (16 CPU cores, one GPU; correctness only, no timings here): the matrix,
# and everything else in sequence. The device time for the whole suite is minutes.
suite_check "test_ops --device cuda" --timeout 300 --detail "$R" -- \
  env FUSEDNORM_TEST_OPCHECK_SUBSET=1 "$PY" "$T/test_ops.py" --device cuda > "$SUITE_OUT/.shim_ops.log" 2>&1 &
ops_pid=$!
suite_check "test_cuda (stream, graph, guard)" --timeout 90 --detail "$R" -- \
  "$PY" "$T/test_cuda.py" --device cuda
suite_check "test_hf --device cuda" --timeout 90 --detail "$R" -- \
  "$PY" "$T/test_hf.py" --device cuda
suite_check "wheel in the machine's torch" --timeout 90 --detail 'import fusednorm' -- \
  bash "$T/test_wheel.sh" "$PY" "$whl" --device cuda
suite_check "test_compile --device cuda" --timeout 150 --detail "$R" -- \
  "$PY" "$T/test_compile.py" --device cuda -k fullgraph,dynamic
# No copies: a compiled patched Qwen3 step copies nothing inside fusednorm ops
# and its profile has no more copy kernels than the stock compiled step's.
suite_check "test_compile --device cuda: no copies" --timeout 150 --detail "$R|copies|copy nodes" -- \
  "$PY" "$T/test_compile.py" --device cuda -k adds_no_copy,copies_not_above_stock
wait "$ops_pid"
cat "$SUITE_OUT/.shim_ops.log"
rm -f "$SUITE_OUT/.shim_ops.log"
