"""Finds and loads libfusednorm_ops.so, which registers torch.ops.fusednorm.*.

Search order: $FUSEDNORM_LIBRARY (an explicit path wins, so tests and the GPU suite pick exactly
the build they mean), then libfusednorm_ops.so next to this file (the installed wheel). The
library is built against the LibTorch stable ABI, so it needs nothing from Python's C API and
loads into any torch >= 2.11.
"""

import os

import torch

LIBRARY_NAME = "libfusednorm_ops.so"
ENV_VAR = "FUSEDNORM_LIBRARY"


def library_path():
    env = os.environ.get(ENV_VAR)
    if env:
        if not os.path.isfile(env):
            raise ImportError(f"fusednorm: {ENV_VAR}={env!r} is not a file")
        return os.path.abspath(env)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), LIBRARY_NAME)
    if os.path.isfile(here):
        return here
    raise ImportError(
        f"fusednorm: {LIBRARY_NAME} not found next to the package ({here}) and {ENV_VAR} is not "
        "set. Install the wheel (`bazel build //shim:wheel`, then pip install "
        "bazel-bin/shim/fusednorm-*.whl) or point FUSEDNORM_LIBRARY at bazel-bin/shim/"
        f"{LIBRARY_NAME}.")


def _already_loaded():
    # A second load of the same namespace would fail inside torch ("only a single
    # STABLE_TORCH_LIBRARY per namespace"), e.g. when two copies of the package are imported.
    try:
        torch.ops.fusednorm.rms_norm_fwd
        return True
    except (AttributeError, RuntimeError):
        return False


def load():
    if _already_loaded():
        return None
    path = library_path()
    try:
        torch.ops.load_library(path)
    except OSError as e:
        raise ImportError(
            f"fusednorm: loading {path} failed: {e}. It needs a torch >= 2.11 built with CUDA "
            f"(libtorch_cpu.so and libtorch_cuda.so); this is torch {torch.__version__}.") from e
    return path
