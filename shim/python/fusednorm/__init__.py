"""fusednorm: fused RMSNorm forward/backward (plain and fused residual add) for PyTorch.

    import fusednorm
    y = fusednorm.rms_norm(x, weight, eps=1e-6)
    y, residual = fusednorm.fused_add_rms_norm(x, residual, weight, eps=1e-6)
    report = fusednorm.patch_hf(model)      # every RMSNorm-like module, matched by meaning
    with fusednorm.patch_hf_classes():      # models built in the block (from_pretrained too)
        model = AutoModelForCausalLM.from_pretrained(...)
    from fusednorm.functional import rms_norm   # torch.nn.functional.rms_norm's signature

Importing the package loads libfusednorm_ops.so (next to this file, or $FUSEDNORM_LIBRARY), which
registers torch.ops.fusednorm.* for CPU and CUDA tensors. `fusednorm.capture` (recording RMSNorm
calls of a running job into HDF5) is imported on first use, so h5py is only needed for it.
"""

from . import _library

_library.load()

from .ops import CASTINGS, MODES, fused_add_rms_norm, rms_norm  # noqa: E402
from .nn import RMSNorm  # noqa: E402
from .hf import (HF_RMSNORM_CLASSES, NormConfig, PatchReport, patch_hf,  # noqa: E402
                 patch_hf_classes, unpatch_hf_classes)
from . import functional  # noqa: E402
from . import distributed  # noqa: E402,F401  (DTensor sharding strategies of the ops)
from .hf_fused import fuse_residual, set_qk_norm, unfuse_residual  # noqa: E402

# The one place the version is written: VERSION (the wheel builder and Bazel read it too).
with open(__import__("os").path.join(__path__[0], "VERSION")) as _f:
    __version__ = _f.read().strip()
library_path = _library.library_path

__all__ = ["rms_norm", "fused_add_rms_norm", "RMSNorm", "patch_hf", "patch_hf_classes",
           "unpatch_hf_classes", "functional", "capture", "PatchReport", "NormConfig", "CASTINGS",
           "MODES", "HF_RMSNORM_CLASSES", "fuse_residual", "unfuse_residual", "set_qk_norm",
           "library_path", "__version__"]


def __getattr__(name):
    # Lazy: capture needs h5py, which a training job using only the ops need not have.
    if name == "capture":
        import importlib
        fn = importlib.import_module(".capture", __name__).capture
        globals()["capture"] = fn  # the function shadows the submodule attribute set by import
        return fn
    raise AttributeError(f"module 'fusednorm' has no attribute {name!r}")
