"""fusednorm.patch_hf: swap Hugging Face RMSNorm modules for fusednorm.RMSNorm in place.

Matching is by class name (transformers redefines the class per model family) and module
(transformers.*), so it works across transformers versions without importing every model.
Each family's numerics are kept:
  Llama / Mistral / Qwen2 / Qwen3 (incl. q_norm, k_norm):  casting "llama", offset 0
      HF: weight * (x.float() * rsqrt(mean(x^2) + eps)).to(x.dtype)
  Gemma / Gemma2 / Gemma3 (incl. q_norm, k_norm):          casting "gemma", offset 1
      HF: (x.float() * rsqrt(mean(x^2) + eps) * (1 + weight.float())).type_as(x)
The replacement reuses the original weight Parameter (same object: optimizers, tied or sharded
weights and state_dict keys are unaffected) and its eps.

One difference: HF Llama-style modules return promote_types(weight, x) (fp32 for bf16 x with an
fp32 weight); fusednorm returns x's dtype. With the usual uniform model dtype they agree.
"""

import warnings
from dataclasses import dataclass, field

from torch import nn

from .nn import RMSNorm

# class name -> (offset, casting)
HF_RMSNORM_CLASSES = {
    "LlamaRMSNorm": (0.0, "llama"),
    "MistralRMSNorm": (0.0, "llama"),
    "Qwen2RMSNorm": (0.0, "llama"),
    "Qwen3RMSNorm": (0.0, "llama"),
    "Qwen3MoeRMSNorm": (0.0, "llama"),
    "MixtralRMSNorm": (0.0, "llama"),
    "GemmaRMSNorm": (1.0, "gemma"),
    "Gemma2RMSNorm": (1.0, "gemma"),
    "Gemma3RMSNorm": (1.0, "gemma"),
}


@dataclass
class PatchReport:
    """What patch_hf did: replaced[name] = original class name; unknown[name] = class name of
    RMSNorm-like modules it did not recognize and left alone."""
    replaced: dict = field(default_factory=dict)
    unknown: dict = field(default_factory=dict)

    def __len__(self):
        return len(self.replaced)

    def __str__(self):
        counts = {}
        for cls in self.replaced.values():
            counts[cls] = counts.get(cls, 0) + 1
        s = "fusednorm.patch_hf: replaced " + (
            ", ".join(f"{n} x {c}" for c, n in sorted(counts.items())) or "nothing")
        if self.unknown:
            s += "; left alone (unknown): " + ", ".join(
                f"{k} ({v})" for k, v in sorted(self.unknown.items()))
        return s


def _eps_of(module):
    for attr in ("variance_epsilon", "eps"):
        v = getattr(module, attr, None)
        if isinstance(v, (int, float)):
            return float(v)
    return None


def _is_rmsnorm_like(module):
    return "rmsnorm" in type(module).__name__.lower() and not isinstance(module, RMSNorm)


def patch_hf(model: nn.Module, *, mode=None, warn_unknown=True, fuse_residual=True,
             qk_norm="fusednorm") -> PatchReport:
    """Replace the known Hugging Face RMSNorm modules of `model` in place (weights and eps kept).

    Returns a PatchReport (len() = number replaced). RMSNorm-like modules of other classes are
    left alone, listed in report.unknown and, with warn_unknown, named in a warning.
    `mode` forces a kernel mode for every replacement (None: the heuristic).
    fuse_residual: also fuse each residual add into the next norm (hf_fused.fuse_residual; its
    report is report.fused, None when off). qk_norm: "fusednorm" or "inductor-when-compiled"
    (hf_fused.set_qk_norm: the per-head q/k norms run as plain torch ops under torch.compile).
    """
    from . import hf_fused
    if qk_norm not in hf_fused.QK_NORM_MODES:  # before any change to the model
        raise ValueError(f"fusednorm: qk_norm must be one of {hf_fused.QK_NORM_MODES}, "
                         f"got {qk_norm!r}")
    report = PatchReport()
    swaps = []
    for parent_name, parent in model.named_modules():
        for child_name, child in parent.named_children():
            name = f"{parent_name}.{child_name}" if parent_name else child_name
            cls = type(child)
            known = HF_RMSNORM_CLASSES.get(cls.__name__)
            from_hf = cls.__module__.startswith("transformers.")
            weight = getattr(child, "weight", None)
            eps = _eps_of(child)
            if (known and from_hf and isinstance(weight, nn.Parameter) and weight.dim() == 1
                    and eps is not None):
                swaps.append((parent, child_name, name, child, known, eps))
            elif _is_rmsnorm_like(child):
                report.unknown[name] = f"{cls.__module__}.{cls.__name__}"
    for parent, child_name, name, old, (offset, casting), eps in swaps:
        w = old.weight
        new = RMSNorm(w.shape[0], eps=eps, elementwise_affine=False, offset=offset,
                      casting=casting, mode=mode)
        del new.weight  # drop the None placeholder registered for elementwise_affine=False
        new.weight = w  # the same Parameter object
        new.elementwise_affine = True
        new.train(old.training)
        setattr(parent, child_name, new)
        report.replaced[name] = type(old).__name__
    if report.unknown and warn_unknown:
        warnings.warn(str(report), stacklevel=2)
    report.fused = hf_fused.fuse_residual(model, warn=False) if fuse_residual else None
    hf_fused.set_qk_norm(model, qk_norm)
    return report
