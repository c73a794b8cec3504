#!/bin/bash
# tools/setup.sh — install what this project needs on Debian 12, only what is missing.
#
#   bash tools/setup.sh          install (root, or a user with sudo)
#   . tools/setup.sh             same, and keep the environment (PATH to the Python that has the
#                                requirements) in the calling shell; tools/test.sh does this.
#
# Idempotent and quick when everything is present (a few dpkg/python checks, no network).
# apt:  bazel-bootstrap (Bazel 4.2.3), gcc/g++ 12, OpenMPI, serial HDF5 (+ h5dump), python3 + pip,
#       clang 14 + compiler-rt (libFuzzer for verify/fuzz), electric-fence (the fuzz triage).
# pip:  tools/requirements.txt, into `python3` if it is a virtualenv/pyenv/user Python, else into
#       a virtualenv at $FUSEDNORM_VENV (default ~/.cache/fusednorm/venv) because Debian's own
#       python3 is "externally managed" (PEP 668) and must not be pip-installed into.
# CUDA: nvcc 13 at $CUDA_HOME or /usr/local/cuda is required (Debian has no CUDA 13); if missing,
#       it is installed from NVIDIA's Debian 12 apt repository (cuda-nvcc + cudart only).
# Environment overrides: PYTHON (interpreter to use), FUSEDNORM_VENV, CUDA_HOME,
# FUSEDNORM_SKIP_APT=1 / FUSEDNORM_SKIP_PIP=1 (check only).

_fn_setup() {
  local here repo
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  repo="$(dirname "$here")"

  local SUDO=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
  fi

  # ---- apt ------------------------------------------------------------------------------------
  local pkgs=(bazel-bootstrap build-essential gcc-12 g++-12 openmpi-bin libopenmpi-dev
              libhdf5-dev hdf5-tools python3 python3-pip python3-venv ca-certificates
              clang libclang-rt-14-dev   # clang + compiler-rt: libFuzzer (verify/fuzz)
              electric-fence)            # the fuzz triage's guard-page allocator (run_fuzz.sh)
  local missing=() p
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    if [ "${FUSEDNORM_SKIP_APT:-0}" = 1 ]; then
      echo "setup: missing Debian packages: ${missing[*]} (FUSEDNORM_SKIP_APT=1, not installing)" >&2
      return 1
    fi
    if [ "$(id -u)" != 0 ] && [ -z "$SUDO" ]; then
      echo "setup: missing Debian packages: ${missing[*]}; run as root or install sudo" >&2
      return 1
    fi
    echo "setup: apt-get install ${missing[*]}"
    $SUDO apt-get update -q || return 1
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" || return 1
  fi

  # ---- CUDA (nvcc + static runtime) ------------------------------------------------------------
  local cuda="${CUDA_HOME:-/usr/local/cuda}"
  if [ ! -x "$cuda/bin/nvcc" ] || [ ! -f "$cuda/lib64/libcudart_static.a" ]; then
    if [ "${FUSEDNORM_SKIP_APT:-0}" = 1 ]; then
      echo "setup: no CUDA toolkit at $cuda (need nvcc 13 + libcudart_static.a; set CUDA_HOME)" >&2
      return 1
    fi
    echo "setup: no CUDA toolkit at $cuda; installing cuda-nvcc-13-0 + cuda-cudart-dev-13-0 from NVIDIA's apt repository"
    local deb=/tmp/cuda-keyring_1.1-1_all.deb
    { [ -f "$deb" ] || python3 -c "import urllib.request,sys; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])" \
        https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/cuda-keyring_1.1-1_all.deb "$deb"; } &&
      $SUDO dpkg -i "$deb" && $SUDO apt-get update -q &&
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends cuda-nvcc-13-0 cuda-cudart-dev-13-0 ||
      { echo "setup: could not install CUDA 13; install it and set CUDA_HOME" >&2; return 1; }
    [ -x "$cuda/bin/nvcc" ] || cuda=/usr/local/cuda-13.0
    export CUDA_HOME="$cuda"
  fi

  # ---- Python -----------------------------------------------------------------------------------
  local py="${PYTHON:-python3}"
  local venv="${FUSEDNORM_VENV:-${HOME:-/root}/.cache/fusednorm/venv}"
  # A venv made by an earlier run is preferred over an externally managed system python.
  if [ -z "${PYTHON:-}" ] && [ -x "$venv/bin/python3" ]; then py="$venv/bin/python3"; fi

  # Exit 0 if every pin in requirements.txt is installed at exactly that version.
  local check='
import sys
from importlib import metadata
bad = []
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, want = line.split("==")
    try:
        have = metadata.version(name)
    except metadata.PackageNotFoundError:
        have = None
    if have is None or have.split("+")[0] != want:
        bad.append("%s==%s (have %s)" % (name, want, have))
print(" ".join(bad))
sys.exit(1 if bad else 0)'
  local req="$repo/tools/requirements.txt" bad
  if ! bad="$("$py" -c "$check" "$req" 2>&1)"; then
    if [ "${FUSEDNORM_SKIP_PIP:-0}" = 1 ]; then
      echo "setup: python packages missing/wrong: $bad (FUSEDNORM_SKIP_PIP=1, not installing)" >&2
      return 1
    fi
    # PEP 668: never pip into the distribution's own python; make our venv instead.
    local stdlib
    stdlib="$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"
    if [ -f "$stdlib/EXTERNALLY-MANAGED" ] && [ "$("$py" -c 'import sys; print(sys.prefix == sys.base_prefix)')" = True ]; then
      echo "setup: $py is externally managed; creating virtualenv $venv"
      "$py" -m venv "$venv" || return 1
      py="$venv/bin/python3"
    fi
    echo "setup: pip install -r tools/requirements.txt into $py (missing: $bad)"
    "$py" -m pip install -q --upgrade pip || return 1
    "$py" -m pip install -q -r "$req" || return 1
    "$py" -c "$check" "$req" >/dev/null || { echo "setup: requirements still not satisfied" >&2; return 1; }
  fi

  # Bazel's @torch repository runs `python3` from PATH (tools/bazel/local_repos.bzl): make it ours.
  local pybin
  pybin="$("$py" -c 'import sys, os; print(os.path.dirname(sys.executable))')"
  case ":$PATH:" in *":$pybin:"*) ;; *) export PATH="$pybin:$PATH" ;; esac
  export PYTHON_BIN_PATH="$("$py" -c 'import sys; print(sys.executable)')"
  echo "setup: OK (bazel $(command -v bazel), nvcc ${CUDA_HOME:-/usr/local/cuda}, python $PYTHON_BIN_PATH)"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  _fn_setup
  exit $?
else
  _fn_setup
fi
