"""torch.nn.functional's RMSNorm signature on fusednorm's kernels.

    from fusednorm.functional import rms_norm       # instead of torch.nn.functional.rms_norm
    y = rms_norm(x, (4096,), weight)                 # eps=None: torch's default

Same arguments, defaults and results as torch.nn.functional.rms_norm: normalized_shape may name
several trailing dims (normalized together), eps=None means torch's default (the machine epsilon
of the dtype the math runs in: torch.finfo(torch.float32).eps for fp32/bf16/fp16 inputs), y has
the input's dtype (also with a weight of another dtype, and inside torch.autocast, where neither
op has an autocast rule), the math is fp32 with one rounding ("fp32" casting). Inputs fusednorm
has no kernel for (float64) go to torch.nn.functional.rms_norm.
"""

import numbers

import torch

from .nn import default_eps
from .ops import fused_add_rms_norm as _fused_add
from .ops import rms_norm as _rms_norm

_KERNEL_DTYPES = (torch.float32, torch.bfloat16, torch.float16)


def _shape(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(normalized_shape)


def _check(input, shape, weight):
    k = len(shape)
    if k == 0 or tuple(input.shape[-k:]) != shape:
        raise RuntimeError(f"fusednorm.functional.rms_norm: normalized_shape {list(shape)} does not "
                           f"match the trailing dims of the input {list(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"fusednorm.functional.rms_norm: weight has shape {list(weight.shape)}, "
                           f"normalized_shape is {list(shape)}")
    return k


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """torch.nn.functional.rms_norm(input, normalized_shape, weight=None, eps=None) on fusednorm."""
    shape = _shape(normalized_shape)
    if input.dtype not in _KERNEL_DTYPES:
        return torch.nn.functional.rms_norm(input, shape, weight, eps)
    k = _check(input, shape, weight)
    if eps is None:
        eps = default_eps(input.dtype)
    if k == 1:
        return _rms_norm(input, weight, eps)
    y = _rms_norm(input.reshape(*input.shape[:-k], -1),
                  None if weight is None else weight.reshape(-1), eps)
    return y.view(input.shape)


def fused_add_rms_norm(input, residual, normalized_shape, weight=None, eps=None):
    """(rms_norm(input + residual), input + residual) with rms_norm's conventions above; the sum
    is rounded to the input's dtype and the norm reads the rounded sum."""
    shape = _shape(normalized_shape)
    if input.dtype not in _KERNEL_DTYPES:
        s = input + residual
        return torch.nn.functional.rms_norm(s, shape, weight, eps), s
    k = _check(input, shape, weight)
    if eps is None:
        eps = default_eps(input.dtype)
    if k == 1:
        return _fused_add(input, residual, weight, eps)
    lead = input.shape[:-k]
    y, s = _fused_add(input.reshape(*lead, -1), residual.reshape(*lead, -1),
                      None if weight is None else weight.reshape(-1), eps)
    return y.view(input.shape), s.view(input.shape)
