#!/bin/bash
# GPU suite section: the whole training step — the fused residual add and the q/k-norm option of
# patch_hf (shim/python/fusednorm/hf_fused.py) on CUDA, and a smoke pass of the end-to-end
# benchmark (tools/bench/e2e.py --quick: tiny models, timings not meaningful).
#   test_hf_fused --device cuda   fused vs stock against float64, compiled graphs, Inductor
#                                 fullgraph, CUDA graph capture + replay of forward + backward
#   e2e --quick eager             Llama, Qwen3, Gemma3, Qwen3-MoE x every provider, eager
#   e2e --quick compile           Qwen3 (q/k norms) x stock, fusednorm, q/k norms to Inductor
# E2E_MODE=skip: one PASS row saying it did not run. The real benchmark (>= 0.5B models, 2048
# tokens, minutes per model) is not a suite check: run tools/bench/e2e.py per model (E2E.md).
# Liger: as suite_bench.sh, from a carried .whl/liger_kernel-*.whl; without it the Liger rows
# read "not installed". Artifacts: $SUITE_OUT/e2e/e2e.{json,md,png} (both passes merged: the
# device tool returns 8 files in all).
. "$(dirname "$0")/common.sh"

if [ "${E2E_MODE:-quick}" = skip ]; then
  suite_row "e2e" PASS "not run: E2E_MODE=skip"; exit 0
fi
e2e=""
for d in "$BUNDLE/.." "$BUNDLE" "$(dirname "$0")/../.."; do
  [ -z "$e2e" ] && [ -f "$d/tools/bench/e2e.py" ] && e2e="$(cd "$d" && pwd)/tools/bench/e2e.py"
done
suite_require "${e2e:-$BUNDLE/../tools/bench/e2e.py}" || exit 0
root="$(cd "$(dirname "$e2e")/../.." && pwd)"
T="$root/shim/tests"
suite_require "$BUNDLE/lib/libfusednorm_ops.so" "$T/test_hf_fused.py" || exit 0

whl=$(ls "$root"/.whl/liger_kernel-*.whl 2>/dev/null | head -n 1)
if [ -n "$whl" ]; then
  if python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
       --target /tmp/e2e_site "$whl" > /tmp/e2e_pip.log 2>&1; then
    export PYTHONPATH="$PYTHONPATH:/tmp/e2e_site"
  else
    suite_row "install liger wheel" FAIL "$(tail -n 1 /tmp/e2e_pip.log)"
  fi
fi

export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export TORCHINDUCTOR_CACHE_DIR="$(mktemp -d)" TRITON_CACHE_DIR="$(mktemp -d)"
out="$SUITE_OUT/e2e"
tmp="$(mktemp -d)"
mkdir -p "$out"
suite_check "test_hf_fused --device cuda" --timeout 240 --detail '^(OK|FAILED)' -- \
  python3 "$T/test_hf_fused.py" --device cuda
suite_check "e2e --quick eager (4 models x 5 providers)" --timeout 150 --detail '^(OK|FAILED):' -- \
  python3 "$e2e" --quick --modes eager --out "$tmp"
suite_check "e2e --quick compile (qwen3)" --timeout 150 --detail '^(OK|FAILED):' -- \
  python3 "$e2e" --quick --modes compile --models qwen3 \
    --providers stock,fusednorm,fusednorm-qk-op --out "$tmp"
if ls "$tmp"/e2e_*.json > /dev/null 2>&1; then
  python3 "$e2e" --merge "$tmp"/e2e_*.json --out "$out" > /dev/null || \
    suite_row "e2e --merge" FAIL "could not merge $(ls "$tmp")"
fi
