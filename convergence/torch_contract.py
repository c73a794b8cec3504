"""Pure-PyTorch stand-ins for fusednorm, used to test the convergence runner itself.

`--impl contract` swaps Hugging Face RMSNorm modules for a torch implementation of the numerics
contract in kernels/README.md (fp32 accumulation; explicit backward at the true point
h = x*rstd, dx = rstd*(g - h*mean(g*h)); dw = sum_rows(dy*n) in fp32, where n is the value y was
made from: RN_x(h) for the Llama casting, h otherwise). Its rounding differs from autograd through HF's forward the same way a
fused kernel's does, so it shows what the comparison tolerances must absorb without the CUDA build.

`--impl contract-broken` adds a small, realistic bug (the mean of squares divides by N-1) so the
tests can prove that the comparison fails, and names the step, when a kernel is wrong.
"""

import torch
from torch import nn


class _ContractRmsNormFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps, offset, casting, broken):
        xf = x.float()
        n_cols = x.shape[-1]
        ms = xf.pow(2).sum(-1, keepdim=True) / (n_cols - 1 if broken else n_cols)
        rstd = torch.rsqrt(ms + eps)
        n = xf * rstd
        out_dtype = torch.promote_types(x.dtype, weight.dtype) if casting == "llama" else x.dtype
        if casting == "llama":
            # HF Llama/Qwen: normalized value rounded to the input dtype before the weight multiply.
            y = (weight.float() * n.to(x.dtype).float()).to(out_dtype)
        else:
            y = (n * (weight.float() + offset)).to(out_dtype)
        ctx.save_for_backward(x, weight, rstd)
        ctx.offset, ctx.casting = offset, casting
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, rstd = ctx.saved_tensors
        h = x.float() * rstd
        # dw multiplies the value y was made from; dx is the Jacobian at the true point h.
        n = h.to(x.dtype).float() if ctx.casting == "llama" else h
        dyf = dy.float()
        g = dyf * (weight.float() + ctx.offset)
        dx = rstd * (g - h * (g * h).mean(-1, keepdim=True))
        dw = (dyf * n).reshape(-1, x.shape[-1]).sum(0)
        return dx.to(x.dtype), dw.to(weight.dtype), None, None, None, None


class ContractRMSNorm(nn.Module):
    def __init__(self, weight: nn.Parameter, eps: float, offset: float, casting: str, broken: bool):
        super().__init__()
        self.weight = weight  # the same Parameter: weights kept, as patch_hf promises
        self.eps, self.offset, self.casting, self.broken = eps, offset, casting, broken

    def forward(self, x):
        return _ContractRmsNormFn.apply(x, self.weight, self.eps, self.offset, self.casting, self.broken)


def patch_hf_contract(model: nn.Module, broken: bool = False) -> list:
    """Swap every transformers *RMSNorm for ContractRMSNorm in place; returns the names swapped."""
    swaps = []
    for parent_name, parent in model.named_modules():
        for child_name, child in parent.named_children():
            cls = type(child)
            if cls.__name__.endswith("RMSNorm") and cls.__module__.startswith("transformers."):
                gemma = cls.__name__.startswith("Gemma")
                eps = getattr(child, "variance_epsilon", getattr(child, "eps", None))
                if eps is None:
                    raise RuntimeError(f"{cls.__name__} at {parent_name}.{child_name}: no eps attribute")
                swaps.append((parent, f"{parent_name}.{child_name}", child_name, ContractRMSNorm(
                    child.weight, float(eps), 1.0 if gemma else 0.0, "gemma" if gemma else "llama", broken)))
    for parent, _, name, new in swaps:
        setattr(parent, name, new)
    return [full for _, full, _, _ in swaps]
