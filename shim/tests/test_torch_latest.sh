#!/bin/bash
# The stable-ABI promise across torch versions: the wheel (built against torch 2.11's headers) is
# pip-installed into a FRESH venv together with the NEWEST torch on the package index, and the op
# tests run there on the CPU from the installed package (no FUSEDNORM_LIBRARY, no PYTHONPATH to
# the source tree): test_ops.py (every op vs float64, opcheck, layouts, errors, autograd) and
# test_compile.py (torch.compile fullgraph, bitwise = eager).
#
# Needs the network (PyPI; torch with its CUDA wheels is several GB, cached by pip afterwards) and
# ~10-30 minutes, so //shim:test_torch_latest is tagged "manual": CI never runs it; run it on
# purpose and record the result in shim/RESULTS.md:
#   bazel test //shim:test_torch_latest --test_output=all
#   bash shim/tests/test_torch_latest.sh python3 bazel-bin/shim/fusednorm-*.whl shim/tests
# TORCH_SPEC overrides the requirement (default: torch, i.e. the newest release for this Python),
# e.g. TORCH_SPEC='torch==2.12.*'. PIP_CACHE_DIR is honoured (default ~/.cache/pip).
# usage: test_torch_latest.sh PYTHON WHEEL TESTS_DIR
set -eu
py="${1:-python3}"; whl="$2"; tests="$3"
[ -n "$py" ] || py=python3
py="$(command -v "$py")"
whl="$(cd "$(dirname "$whl")" && pwd)/$(basename "$whl")"
tests="$(cd "$tests" && pwd)"
tmp="${TEST_TMPDIR:-$(mktemp -d)}/torch_latest"
rm -rf "$tmp"; mkdir -p "$tmp/run"
unset FUSEDNORM_LIBRARY PYTHONPATH
export PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1
export PIP_ROOT_USER_ACTION=ignore PIP_NO_INPUT=1
export PIP_CACHE_DIR="${PIP_CACHE_DIR:-${HOME:-/root}/.cache/pip}"
export TORCHINDUCTOR_CACHE_DIR="$tmp/inductor" TRITON_CACHE_DIR="$tmp/triton"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"

echo "== fresh venv ($("$py" --version)), ${TORCH_SPEC:-torch} from the index"
"$py" -m venv "$tmp/venv"
V="$tmp/venv/bin/python"
"$V" -m pip install --quiet --upgrade pip
"$V" -m pip install --quiet "${TORCH_SPEC:-torch}" numpy
newest="$("$V" -m pip index versions torch 2>/dev/null | sed -n 's/^torch (\(.*\))$/\1/p')"
"$V" -m pip install "$whl" | grep -E 'Successfully installed|satisfied: (torch|numpy)[>= ]' | sed 's/^/pip: /'
"$V" - <<'EOF'
import importlib.metadata as md, platform, torch, fusednorm
print(f"python {platform.python_version()}, torch {torch.__version__} (built against 2.11 headers), "
      f"numpy {md.version('numpy')}, fusednorm {fusednorm.__version__} from {fusednorm.library_path()}")
EOF
echo "newest torch on the index for this Python: ${newest:-unknown (pip index failed)}"
installed="$("$V" -c 'import importlib.metadata as m; print(m.version("torch"))')"
if [ -z "${TORCH_SPEC:-}" ] && [ -n "$newest" ] && [ "${installed%%+*}" != "${newest%%+*}" ]; then
  echo "test_torch_latest: FAIL: installed torch $installed, but the index's newest is $newest" >&2
  exit 1
fi

# The test scripts are copied away from the source tree, so only the installed package can be
# imported (harness.py travels with them).
cp "$tests/harness.py" "$tests/test_ops.py" "$tests/test_compile.py" "$tmp/run/"
cd "$tmp/run"
"$V" -c 'import fusednorm, sys; p = fusednorm.__file__; sys.exit(0 if "site-packages" in p else f"not the installed package: {p}")'
rc=0
echo "== test_ops.py (CPU)"
"$V" test_ops.py --device cpu || rc=1
echo "== test_compile.py -k fullgraph (CPU)"
"$V" test_compile.py --device cpu -k fullgraph || rc=1
[ $rc -eq 0 ] && echo "test_torch_latest: OK: torch $installed"
exit $rc
