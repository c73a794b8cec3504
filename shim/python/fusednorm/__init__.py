"""fusednorm: fused RMSNorm forward/backward (plain and fused residual add) for PyTorch.

    import fusednorm
    y = fusednorm.rms_norm(x, weight, eps=1e-6)
    y, residual = fusednorm.fused_add_rms_norm(x, residual, weight, eps=1e-6)
    report = fusednorm.patch_hf(model)      # Hugging Face Llama/Mistral/Qwen2/Qwen3/Gemma*

Importing the package loads libfusednorm_ops.so (next to this file, or $FUSEDNORM_LIBRARY), which
registers torch.ops.fusednorm.* for CPU and CUDA tensors. `fusednorm.capture` (recording RMSNorm
calls of a running job into HDF5) is imported on first use, so h5py is only needed for it.
"""

from . import _library

_library.load()

from .ops import CASTINGS, MODES, fused_add_rms_norm, rms_norm  # noqa: E402
from .nn import RMSNorm  # noqa: E402
from .hf import HF_RMSNORM_CLASSES, PatchReport, patch_hf  # noqa: E402

# The one place the version is written: VERSION (the wheel builder and Bazel read it too).
with open(__import__("os").path.join(__path__[0], "VERSION")) as _f:
    __version__ = _f.read().strip()
library_path = _library.library_path

__all__ = ["rms_norm", "fused_add_rms_norm", "RMSNorm", "patch_hf", "capture", "PatchReport",
           "CASTINGS", "MODES", "HF_RMSNORM_CLASSES", "library_path", "__version__"]


def __getattr__(name):
    # Lazy: capture needs h5py, which a training job using only the ops need not have.
    if name == "capture":
        import importlib
        fn = importlib.import_module(".capture", __name__).capture
        globals()["capture"] = fn  # the function shadows the submodule attribute set by import
        return fn
    raise AttributeError(f"module 'fusednorm' has no attribute {name!r}")
