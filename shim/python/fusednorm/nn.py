"""fusednorm.RMSNorm: a drop-in for torch.nn.RMSNorm backed by torch.ops.fusednorm."""

import numbers

import torch
from torch import nn

from .ops import CASTINGS, MODES, fused_add_rms_norm, rms_norm

_F32_EPS = torch.finfo(torch.float32).eps
_F64_EPS = torch.finfo(torch.float64).eps


def default_eps(dtype):
    """torch.nn.functional.rms_norm's eps=None: the machine epsilon of the dtype the math runs in
    (fp32 for fp16/bf16/fp32 inputs, i.e. torch.finfo(torch.float32).eps), not of the input dtype."""
    return _F64_EPS if dtype == torch.float64 else _F32_EPS


class RMSNorm(nn.Module):
    """Same constructor, attributes and state_dict as torch.nn.RMSNorm, plus `offset`/`casting`.

    normalized_shape: int or shape; the trailing dims it names are normalized together (they are
        flattened into one row of N = prod(normalized_shape) elements: a view when contiguous).
    eps: None means torch's default at call time, as in torch.nn.RMSNorm (default_eps: the fp32
        machine epsilon for fp32/bf16/fp16 inputs, which is what torch computes with).
    offset: added to the weight (Gemma stores w - 1 and uses offset=1). The weight is initialized
        to 1 - offset so that a fresh module scales by exactly 1 (ones for offset 0, as torch does).
    casting: "fp32" (torch.nn.RMSNorm's single rounding), "llama" or "gemma"; see fusednorm.ops.
    mode: None (heuristic) or a forced kernel mode.

    forward(x) -> y; forward(x, residual) -> (y, residual_out) with residual_out = x + residual.
    """

    __constants__ = ["normalized_shape", "eps", "elementwise_affine", "offset", "casting", "mode"]

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None, *, offset=0.0, casting="fp32", mode=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if casting not in CASTINGS:
            raise ValueError(f"fusednorm.RMSNorm: casting must be one of {CASTINGS}, got {casting!r}")
        if mode is not None and mode not in MODES:
            raise ValueError(f"fusednorm.RMSNorm: mode must be None or one of {MODES}, got {mode!r}")
        self.offset = float(offset)
        self.casting = casting
        self.mode = mode
        if elementwise_affine:
            self.weight = nn.Parameter(
                torch.empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            nn.init.constant_(self.weight, 1.0 - self.offset)

    def _rows(self, t):
        k = len(self.normalized_shape)
        if tuple(t.shape[-k:]) != self.normalized_shape:
            raise ValueError(f"fusednorm.RMSNorm: expected input [..., {self.normalized_shape}], "
                             f"got {tuple(t.shape)}")
        return t.reshape(*t.shape[:-k], -1)

    def forward(self, x, residual=None):
        eps = self.eps
        if eps is None:
            eps = default_eps(x.dtype)
        w = self.weight
        if len(self.normalized_shape) == 1:  # the common case, without reshapes
            if w is None and x.shape[-1:] != self.normalized_shape:
                self._rows(x)  # raises with the shapes
            if residual is None:
                return rms_norm(x, w, eps, offset=self.offset, casting=self.casting,
                                mode=self.mode)
            return fused_add_rms_norm(x, residual, w, eps, offset=self.offset,
                                      casting=self.casting, mode=self.mode)
        if w is not None:
            w = w.reshape(-1)
        shape = x.shape
        if residual is None:
            return rms_norm(self._rows(x), w, eps, offset=self.offset, casting=self.casting,
                            mode=self.mode).view(shape)
        y, r = fused_add_rms_norm(self._rows(x), self._rows(residual), w, eps, offset=self.offset,
                                  casting=self.casting, mode=self.mode)
        return y.view(shape), r.view(shape)

    def extra_repr(self):
        s = f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        if self.offset != 0.0:
            s += f", offset={self.offset}"
        if self.casting != "fp32":
            s += f", casting={self.casting!r}"
        if self.mode is not None:
            s += f", mode={self.mode!r}"
        return s
