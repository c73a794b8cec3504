"""Shared helpers of the verify/ tests: locating the binaries, running the replay (directly or
under mpirun, always with a timeout), and writing synthetic capture files with an independent
numpy float64 model of the formulas."""
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TIMEOUT = 180  # s per replay run: a hang fails the test instead of blocking CI


def load_capture_module():
    """shim/python/fusednorm/capture.py without the package (no compiled ops needed)."""
    path = os.path.join(REPO, "shim", "python", "fusednorm", "capture.py")
    spec = importlib.util.spec_from_file_location("fusednorm_capture_under_test", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def binary(name):
    """bazel-bin path from the runfiles (bazel test) or the workspace (manual runs)."""
    for base in (os.environ.get("TEST_SRCDIR", ""), REPO):
        for p in (os.path.join(base, "fusednorm", "verify", name), os.path.join(base, "verify", name),
                  os.path.join(base, "bazel-bin", "verify", name)):
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return p
    raise FileNotFoundError(f"verify/{name} not built (bazel build //verify:{name})")


def data_file(name):
    for base in (os.environ.get("TEST_SRCDIR", ""), REPO):
        for p in (os.path.join(base, "fusednorm", "data", name), os.path.join(base, "data", name)):
            if os.path.isfile(p):
                return p
    raise FileNotFoundError(name)


def tmpdir():
    d = os.environ.get("TEST_TMPDIR") or "/tmp/fusednorm_verify_tests"
    os.makedirs(d, exist_ok=True)
    return d


def mpi_env():
    env = dict(os.environ)
    # OpenMPI refuses root without these; CI containers run as root.
    env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    env["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    # Loopback only (CI sandboxes may have odd interfaces); shared memory within the node.
    env.setdefault("OMPI_MCA_btl", "self,vader")
    env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    return env


def run_replay(args, np_=None, timeout=TIMEOUT):
    """Runs the replay (np_ None: directly, as a singleton). Returns (rc, stdout, stderr)."""
    cmd = [binary("replay")] + list(args)
    if np_ is not None:
        cmd = [shutil.which("mpirun") or "mpirun", "-np", str(np_), "--oversubscribe"] + cmd
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=mpi_env())
    except subprocess.TimeoutExpired as e:
        raise AssertionError(f"replay hung (> {timeout} s): {' '.join(cmd)}\n{e.stderr}") from None
    return p.returncode, p.stdout, p.stderr


def load_report(path):
    with open(path) as f:
        return json.load(f)


# ---- independent numpy model of the formats and formulas ---------------------------------------

def f32_to_bf16_bits(a):
    """Round-to-nearest-even float32 -> bf16 bit patterns (NaN not expected here)."""
    u = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def bits_to_f64(bits, dtype):
    if dtype == "f32":
        return np.asarray(bits, dtype=np.float32).astype(np.float64)
    if dtype == "f16":
        return bits.view(np.float16).astype(np.float64)
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def round_bits(v64, dtype):
    """float64 -> stored representation of dtype, correctly rounded (one rounding)."""
    if dtype == "f32":
        return v64.astype(np.float32)
    if dtype == "f16":
        return v64.astype(np.float16).view(np.uint16)  # numpy rounds double->half directly
    # bf16: exact via the float32 path only when the double->float rounding cannot create a tie;
    # do it on the double: round to 8 significant bits with ties-to-even.
    m, e = np.frexp(v64)
    scaled = m * 256.0
    r = np.round(scaled)  # numpy rounds half to even
    out = np.ldexp(r / 256.0, e).astype(np.float32)
    return f32_to_bf16_bits(out)


def random_values(rng, shape, dtype, scale=1.0):
    v = rng.standard_normal(shape) * scale
    bits = round_bits(v, dtype)
    return bits, bits_to_f64(bits, dtype)


def effective_weight(w64, offset):
    """The contract's w_eff = fl32(w + offset) (kernels/README.md), as the C reference takes it: the
    sum of two fp32 values rounded to double is exact or rounds innocuously, so the cast is the fp32
    sum."""
    return np.float32(w64 + np.float64(np.float32(offset))).astype(np.float64)


def ref_forward(x64, w64, eps, offset, r64=None, x_dtype="f32"):
    """float64 model of the fp32/gemma casting: s = RN(x + r), y = s * rstd * w_eff."""
    s = x64 if r64 is None else bits_to_f64(round_bits(x64 + r64, x_dtype), x_dtype)
    rstd = 1.0 / np.sqrt(np.mean(s * s, axis=1, keepdims=True) + np.float64(np.float32(eps)))
    wo = 1.0 if w64 is None else effective_weight(w64, offset)
    return s, rstd, s * rstd * wo


def ref_backward(s, rstd32, dy64, w64, offset, ds64=None):
    """float64 model of the backward with the saved fp32 rstd as input (kernels/ref)."""
    n = s * rstd32
    g = dy64 * (1.0 if w64 is None else effective_weight(w64, offset))
    dx = rstd32 * (g - n * np.mean(g * n, axis=1, keepdims=True))
    if ds64 is not None:
        dx = dx + ds64
    dw = None if w64 is None else np.sum(dy64 * n, axis=0)
    return dx, dw
