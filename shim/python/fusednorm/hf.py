"""fusednorm.patch_hf: run the RMSNorm modules of a model (Hugging Face or any other) on fusednorm.

Matching is by meaning, not by class name. A module that looks like an RMSNorm (a class whose
name says Norm, no submodules, no buffers, no parameter but an optional 1-D `weight`, a numeric
eps attribute under any name containing "eps", a forward that takes the input alone) is run on a
probe batch next to every candidate fusednorm configuration:

    casting   "llama" (normalized value rounded to x's dtype before the weight) or "fp32"/"gemma"
              (one rounding at the end)
    offset    0 or 1 (Gemma stores w - 1)
    weight    the module's weight, or none
    eps       the value of each eps attribute (None: torch's default, for torch.nn.RMSNorm)
    output    x's dtype, or promote_types(x, weight) (what HF Llama-style modules return)

The probe: x in fp32, bf16 and fp16, each with a random weight in each of the three dtypes;
rows of every magnitude the dtype holds (from just above its smallest normal square to sums that
overflow), values k * 2^e with |k| <= 15 so that the sum of squares is exact in any order —
then the module and a candidate agree bit for bit exactly when they compute the same formula
with the same roundings. The first candidate equal to the module on every probe wins. A module
matching none is left alone and named in the report with the reason. Probes run on the CPU (where
torch's rsqrt is correctly rounded, as the kernels' 1/sqrt), one per distinct (class, size,
attributes), so a 100-layer model costs a few classes' probes.

Patching is in place: the module's class is swapped for a subclass of the stock class and of
fusednorm.RMSNorm whose forward calls the kernels. The module object, its Parameter objects, its
hooks, state_dict keys and any FSDP/DTensor bookkeeping that refers to it are untouched, so a
model can be patched before or after fully_shard, and patch_hf_classes() can patch models as
they are built (from_pretrained included).
"""

import contextlib
import inspect
import math
import threading
import warnings
from dataclasses import dataclass, field

import torch
from torch import nn

from .nn import RMSNorm, default_eps
from .ops import fused_add_rms_norm, rms_norm

# Class name -> (offset, casting) of some well-known families, for callers that want the table;
# patch_hf does not use it (the probe finds the configuration of any class).
HF_RMSNORM_CLASSES = {
    "LlamaRMSNorm": (0.0, "llama"),
    "MistralRMSNorm": (0.0, "llama"),
    "Qwen2RMSNorm": (0.0, "llama"),
    "Qwen3RMSNorm": (0.0, "llama"),
    "GemmaRMSNorm": (1.0, "gemma"),
    "Gemma2RMSNorm": (1.0, "gemma"),
    "Gemma3RMSNorm": (1.0, "gemma"),
}


@dataclass(frozen=True)
class NormConfig:
    """The fusednorm configuration a module was matched to."""
    casting: str      # "llama", "fp32" or "gemma" ("fp32" math with offset 1)
    offset: float
    weight: bool      # the module's weight is applied
    promote: bool     # output promote_types(x, weight) instead of x's dtype
    eps: object       # float, or None for torch's default (torch.finfo of the math dtype)

    def __str__(self):
        s = f"casting={self.casting} offset={self.offset:g} eps={self.eps}"
        if not self.weight:
            s += " no weight"
        if self.promote:
            s += " output promote(x, weight)"
        return s


@dataclass
class PatchReport:
    """What patch_hf did.

    replaced[name] = the stock class name of each module now running on fusednorm;
    config[name]   = the NormConfig it was matched to;
    unknown[name]  = "module.ClassName: reason" for each RMSNorm-like module left alone;
    liger[name]    = the class name, for the replaced modules that were Liger's;
    already[name]  = the stock class name of modules patched before this call (e.g. by the
                     post_init of an inner model under patch_hf_classes), config[name] theirs.
    fused          = the residual-fusion report (fuse_residual=True), else None.
    """
    replaced: dict = field(default_factory=dict)
    config: dict = field(default_factory=dict)
    unknown: dict = field(default_factory=dict)
    liger: dict = field(default_factory=dict)
    already: dict = field(default_factory=dict)
    fused: object = None  # fusednorm.hf_fused.fuse_residual's report, or None when not asked

    @property
    def left_alone(self):
        return self.unknown

    def __len__(self):
        return len(self.replaced)

    def __str__(self):
        counts = {}
        for cls in self.replaced.values():
            counts[cls] = counts.get(cls, 0) + 1
        s = "fusednorm.patch_hf: replaced " + (
            ", ".join(f"{n} x {c}" for c, n in sorted(counts.items())) or "nothing")
        if self.liger:
            s += f" (of which {len(self.liger)} LigerRMSNorm)"
        if self.unknown:
            s += "; left alone: " + "; ".join(f"{k} ({v})" for k, v in sorted(self.unknown.items()))
        return s


# ------------------------------------------------------------------------------------ the module

class PatchedRMSNorm(RMSNorm):
    """Mixed into a stock norm class by patch_hf: the stock class's attributes and state, the
    forward of fusednorm (offset, casting, eps, weight and output dtype as the probe found).
    forward(x) -> y; forward(x, residual) -> (y, x + residual) as fusednorm.RMSNorm."""

    def forward(self, x, residual=None):
        eps = self.eps if self.eps is not None else default_eps(x.dtype)
        w = self.weight if self.fusednorm_config.weight else None
        if w is None and self.normalized_shape is not None and x.shape[-1:] != self.normalized_shape:
            # the stock module (a weightless torch.nn.RMSNorm) normalizes rows of its own length only
            raise RuntimeError(f"fusednorm: {type(self).__name__} normalizes rows of {self.normalized_shape[0]} "
                               f"elements, got input of shape {list(x.shape)}")
        if residual is not None:
            if w is None or not self.promote or w.dtype == x.dtype:
                return fused_add_rms_norm(x, residual, w, eps, offset=self.offset,
                                          casting=self.casting, mode=self.mode)
            s = x + residual
            return self.forward(s), s
        if w is not None and self.promote and w.dtype != x.dtype:
            out = torch.promote_types(x.dtype, w.dtype)
            if out != x.dtype:
                if self.casting == "llama":
                    # weight * normalized.to(x.dtype), the product in the promoted dtype.
                    return w * rms_norm(x, None, eps, casting="llama", mode=self.mode)
                x = x.to(out)
        return rms_norm(x, w, eps, offset=self.offset, casting=self.casting, mode=self.mode)

    def extra_repr(self):
        return f"{self.fusednorm_config}, fusednorm (was {self._fusednorm_stock.__name__})"


_patched_classes = {}
_patched_lock = threading.Lock()


def _patched_class(stock):
    with _patched_lock:
        cls = _patched_classes.get(stock)
        if cls is None:
            name, k = f"Fused{stock.__name__}", 1
            while name in globals():  # stock classes of one name from different modules
                k += 1
                name = f"Fused{stock.__name__}_{k}"
            cls = type(name, (PatchedRMSNorm, stock),
                       {"__module__": __name__, "__qualname__": name, "_fusednorm_stock": stock})
            # Registered in this module so pickle can find it by name within this process.
            globals()[name] = cls
            _patched_classes[stock] = cls
    return cls


def _apply(module, cfg, mode):
    if _liger_bound(module):
        for k in ("forward", "extra_repr", "_get_name"):  # Liger's instance-level patch
            module.__dict__.pop(k, None)
    stock = type(module)
    module.__class__ = _patched_class(stock)
    w = getattr(module, "weight", None)
    module.fusednorm_config = cfg
    # The rows' length where the stock module has one: its weight's, if the formula uses it (the
    # op checks it), else a weightless torch.nn.RMSNorm's own (forward checks it).
    own = _own_width(module)
    module.normalized_shape = tuple(w.shape) if isinstance(w, torch.Tensor) and cfg.weight else ((own,) if own else None)
    module.eps = cfg.eps
    module.elementwise_affine = cfg.weight
    module.offset = float(cfg.offset)
    module.casting = cfg.casting
    module.promote = cfg.promote
    module.mode = mode


# ------------------------------------------------------------------------------------ the probe

def _eps_values(module):
    vals = []
    if isinstance(module, nn.RMSNorm):
        vals.append(module.eps)
    for k, v in vars(module).items():
        if "eps" in k.lower() and isinstance(v, (int, float)) and not isinstance(v, bool):
            if math.isfinite(v) and v >= 0 and float(v) not in vals:
                vals.append(float(v))
    return vals


def _forward_params(module):
    try:
        sig = inspect.signature(type(module).forward)
    except (TypeError, ValueError):
        return None
    return [p for p in list(sig.parameters.values())[1:]
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _why_not_rmsnorm(module):
    """None if the module looks like an RMSNorm (worth probing), else the reason."""
    if next(module.children(), None) is not None:
        return "has submodules"
    params = [n for n, _ in module.named_parameters(recurse=False)]
    if set(params) - {"weight"}:
        return f"has parameters other than weight: {', '.join(p for p in params if p != 'weight')}"
    buffers = [n for n, _ in module.named_buffers(recurse=False)]
    # A weight held as a buffer is probed like a parameter (Falcon-Mamba's weightless norms keep
    # an unused one); any other buffer is state fusednorm does not keep.
    if buffers and (buffers != ["weight"] or params):
        return "has buffers"
    w = getattr(module, "weight", None)
    if w is not None and not (isinstance(w, torch.Tensor) and w.dim() == 1 and w.numel() > 0):
        return f"weight is not a 1-D tensor ({tuple(w.shape) if isinstance(w, torch.Tensor) else type(w).__name__})"
    if w is not None and "weight" not in params + buffers:
        return "weight is not a Parameter"
    if not _eps_values(module):
        return "no numeric eps attribute"
    fp = _forward_params(module)
    if fp is None:
        return "forward has no inspectable signature"
    if not fp:
        return "forward takes no input"
    if len(fp) != 1 or fp[0].default is not inspect.Parameter.empty:
        return f"forward takes more than the input ({', '.join(p.name for p in fp)})"
    return None


PROBE_DTYPES = (torch.float32, torch.bfloat16, torch.float16)
# Row exponents e (values k * 2^e, |k| <= 15) per x dtype: from where squares are still normal
# (eps dominates) to where the sum of squares overflows to inf (rstd = 0).
_EXPONENTS = {
    torch.float32: (-60, -40, -20, -12, -6, -3, -1, 0, 1, 4, 10, 20, 40, 60),
    torch.bfloat16: (-60, -40, -20, -12, -6, -3, -1, 0, 1, 4, 10, 20, 40, 60),
    torch.float16: (-10, -7, -4, -2, -1, 0, 1, 3, 6, 9, 11),
}
_PROBE_N = 64  # row length for modules without a weight or a normalized_shape of their own


def _own_width(module):
    """A module's row length when it names one of one dimension (torch.nn.RMSNorm(n,
    elementwise_affine=False): it accepts no other), else None."""
    ns = getattr(module, "normalized_shape", None)
    if isinstance(ns, int) and not isinstance(ns, bool):
        ns = (ns,)
    if isinstance(ns, (tuple, list)) and len(ns) == 1 and isinstance(ns[0], int) and ns[0] > 0:
        return int(ns[0])
    return None


def _probe_inputs(n, gen):
    """{x dtype: x} with exact sums of squares in any order (see the module docstring)."""
    kmax = max(1, min(15, int(math.isqrt((1 << 24) // max(1, n)))))
    out = {}
    for dt in PROBE_DTYPES:
        rows = []
        for e in _EXPONENTS[dt]:
            k = torch.randint(-kmax, kmax + 1, (n,), generator=gen).double()
            rows.append(k * 2.0 ** e)
        rows.append(torch.zeros(n, dtype=torch.float64))  # rstd = 1/sqrt(eps)
        out[dt] = torch.stack(rows).to(dt)
    return out


def _probe_weights(n, gen):
    w = 1.0 + 0.5 * torch.randn(n, generator=gen, dtype=torch.float64)
    return {dt: w.to(dt) for dt in PROBE_DTYPES}


def _candidates(module):
    has_w = getattr(module, "weight", None) is not None
    out = []
    for eps in _eps_values(module):
        for weight in ((True, False) if has_w else (False,)):
            for casting in (("llama", "fp32") if weight else ("fp32",)):
                for offset in ((0.0, 1.0) if weight else (0.0,)):
                    for promote in ((False, True) if weight else (False,)):
                        if promote and casting == "llama" and offset != 0.0:
                            continue  # HF has no such module; the composite assumes offset 0
                        c = "gemma" if (casting == "fp32" and offset == 1.0) else casting
                        out.append(NormConfig(c, offset, weight, promote, eps))
    return out


def _bits_equal(a, b):
    return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.dtype == b.dtype
            and a.shape == b.shape and a.dtype.itemsize == b.dtype.itemsize
            and torch.equal(a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8)))


def _run_stock(module, x, w):
    # A shallow copy with the probe weight, called through forward (no hooks): the module itself
    # is never touched, whatever device or sharding its own weight has.
    import copy
    m = copy.copy(module)
    m._parameters = dict(module._parameters)
    if w is not None:
        m._parameters["weight"] = w
    return type(module).forward(m, x)


def _probe(module, gen):
    """(NormConfig, None) for the first candidate equal to the module on every probe, or
    (None, reason)."""
    # Models may be built under a default-device context (from_pretrained: meta); the probe is
    # real CPU arithmetic whatever the context says.
    with torch.device("cpu"):
        return _probe_on_cpu(module, gen)


def _probe_on_cpu(module, gen):
    w0 = getattr(module, "weight", None)
    n = w0.shape[0] if w0 is not None else (_own_width(module) or _PROBE_N)
    xs = _probe_inputs(n, gen)
    ws = _probe_weights(n, gen) if w0 is not None else {None: None}
    cases = []
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. torch's "Mismatch dtype" note on mixed probes
        for xdt, x in xs.items():
            for wdt, w in ws.items():
                try:
                    ref = _run_stock(module, x, w)
                except Exception as e:  # noqa: BLE001 - a module may refuse a dtype combination
                    if xdt == wdt or w is None:
                        return None, f"its forward failed on the probe ({type(e).__name__}: {e})"
                    continue
                if not isinstance(ref, torch.Tensor):
                    return None, f"its forward returns {type(ref).__name__}, not a tensor"
                cases.append((x, w, ref))
        cand_mod = PatchedRMSNorm(n, elementwise_affine=False)
        for cfg in _candidates(module):
            ok = True
            for x, w, ref in cases:
                cand_mod._parameters["weight"] = w
                cand_mod.fusednorm_config = cfg
                cand_mod.eps, cand_mod.offset, cand_mod.casting = cfg.eps, cfg.offset, cfg.casting
                cand_mod.promote = cfg.promote
                if not _bits_equal(cand_mod(x), ref):
                    ok = False
                    break
            if ok:
                return cfg, None
    return None, "no fusednorm configuration gives its outputs bit for bit on the probe"


PatchedRMSNorm._fusednorm_stock = RMSNorm
PatchedRMSNorm.fusednorm_config = NormConfig("fp32", 0.0, False, False, None)
PatchedRMSNorm.promote = False


def _probe_key(module):
    # Modules of one class with equal plain attributes compute one formula; any other public
    # attribute (a callable, a config object) is compared by identity, to be safe.
    attrs = tuple(sorted(
        (k, v if isinstance(v, (bool, int, float, str, type(None))) else ("id", id(v)))
        for k, v in vars(module).items() if not k.startswith("_") and k != "training"))
    w = getattr(module, "weight", None)
    return (type(module), None if w is None else w.shape[0], attrs)


def _liger_bound(module):
    # apply_liger_kernel_to_*(model=...) patches modules in place: LigerRMSNorm.forward bound
    # into the instance __dict__ (plus its attributes), the class left as it was.
    fn = getattr(module.__dict__.get("forward"), "__func__", None)
    return fn is not None and getattr(fn, "__module__", "").startswith("liger_kernel")


def _is_liger(module):
    return _liger_bound(module) or any(
        c.__name__ == "LigerRMSNorm" and c.__module__.startswith("liger_kernel")
        for c in type(module).__mro__)


_LIGER_CASTING = {"llama": "llama", 0: "llama", "gemma": "fp32", 1: "fp32", "none": None, -1: None}


def _liger_config(module):
    """LigerRMSNorm's forward is a Triton kernel (no CPU run, and no bitwise agreement with any
    other implementation on a GPU), so it is not probed: its attributes name its formula
    (liger_kernel/ops/rms_norm.py). casting_mode "llama": rstd in fp32, the normalized value
    rounded to x's dtype, times (offset + w), rounded; "gemma": all fp32, one rounding; "none":
    everything in x's dtype (no fusednorm configuration). y always has x's dtype."""
    mode = getattr(module, "casting_mode", "llama")
    key = mode.lower() if isinstance(mode, str) else mode
    if key not in _LIGER_CASTING:
        return None, f"unknown Liger casting_mode {mode!r}"
    casting = _LIGER_CASTING[key]
    if casting is None:
        return None, "Liger casting_mode 'none' computes in x's dtype: no fusednorm configuration"
    offset = float(getattr(module, "offset", 0.0))
    if casting == "fp32" and offset == 1.0:
        casting = "gemma"
    eps = getattr(module, "variance_epsilon", getattr(module, "eps", None))
    if not isinstance(eps, (int, float)) or isinstance(eps, bool):
        return None, "no numeric eps attribute"
    w = getattr(module, "weight", None)
    if w is not None and not (isinstance(w, torch.Tensor) and w.dim() == 1):
        return None, "weight is not a 1-D tensor"
    if w is None:
        casting, offset = "fp32", 0.0
    return NormConfig(casting, offset, w is not None, False, float(eps)), None


# ------------------------------------------------------------------------------------ patch_hf

def patch_hf(model: nn.Module, *, mode=None, warn_unknown=True, fuse_residual=True,
             qk_norm="inductor-when-compiled") -> PatchReport:
    """Run every RMSNorm-like module of `model` on fusednorm, in place (see the module docstring).

    Returns a PatchReport (len() = number replaced). Modules that look like an RMSNorm but match
    no fusednorm configuration are left alone, listed in report.unknown with the reason and, with
    warn_unknown, named in a warning. `mode` forces a kernel mode (None: the heuristic).
    Idempotent: modules already on fusednorm are skipped.
    fuse_residual: also fuse each decoder layer's residual add into the next norm
    (hf_fused.fuse_residual; its report is report.fused, None when off). qk_norm:
    "inductor-when-compiled" (the default; hf_fused.set_qk_norm: the per-head q/k norms run as
    plain torch ops while torch.compile traces, the op in eager) or "fusednorm" (the op in both).
    """
    from . import hf_fused
    if qk_norm not in hf_fused.QK_NORM_MODES:  # before any change to the model
        raise ValueError(f"fusednorm: qk_norm must be one of {hf_fused.QK_NORM_MODES}, "
                         f"got {qk_norm!r}")
    report = PatchReport()
    gen = torch.Generator().manual_seed(0x5eed)
    found = {}  # probe key -> (config, reason)
    for name, module in model.named_modules():
        if isinstance(module, RMSNorm):
            if isinstance(module, PatchedRMSNorm):
                report.config[name] = module.fusednorm_config
                if _liger_bound(module):
                    # Liger was applied to the model after an earlier patch_hf and bound its
                    # forward into the instance: take it back.
                    for k in ("forward", "extra_repr", "_get_name"):
                        module.__dict__.pop(k, None)
                    report.replaced[name] = module._fusednorm_stock.__name__
                    report.liger[name] = module._fusednorm_stock.__name__
                else:
                    report.already[name] = module._fusednorm_stock.__name__
            continue  # fusednorm's own, or patched already
        cls = type(module)
        cname = f"{cls.__module__}.{cls.__name__}"
        lname = cls.__name__.lower()
        liger = _is_liger(module)
        if liger:
            cfg, why = _liger_config(module)
            cname = f"{cname} (Liger)" if _liger_bound(module) else cname
        elif "norm" not in lname:
            continue
        else:
            why = _why_not_rmsnorm(module)
            if why is not None:
                if "rms" in lname:
                    report.unknown[name] = f"{cname}: {why}"
                continue
            key = _probe_key(module)
            if key not in found:
                found[key] = _probe(module, gen)
            cfg, why = found[key]
        if cfg is None:
            report.unknown[name] = f"{cname}: {why}"
            continue
        _apply(module, cfg, mode)
        report.replaced[name] = cls.__name__
        report.config[name] = cfg
        if liger:
            report.liger[name] = cls.__name__
    if report.unknown and warn_unknown:
        warnings.warn(str(report), stacklevel=2)
    report.fused = hf_fused.fuse_residual(model, warn=False) if fuse_residual else None
    hf_fused.set_qk_norm(model, qk_norm)
    return report


# ------------------------------------------------------------------------------------ classes

_class_patch_depth = 0
_class_patch_opts = {}


def patch_hf_classes(*, mode=None, warn_unknown=True):
    """Make every Hugging Face model built from now on run its RMSNorms on fusednorm.

    Wraps transformers.PreTrainedModel.post_init (the last step of every model's __init__,
    from_pretrained included) so that it ends with patch_hf(model). Returns a context manager:
    `with fusednorm.patch_hf_classes(): model = AutoModelForCausalLM.from_pretrained(...)` limits
    it to the block; called bare, it stays on until fusednorm.unpatch_hf_classes().
    The report of the last patched model is fusednorm.hf.last_report.
    """
    global _class_patch_depth
    import transformers
    base = transformers.PreTrainedModel
    with _patched_lock:
        if _class_patch_depth == 0:
            stock = base.post_init

            def post_init(self, *args, **kwargs):
                stock(self, *args, **kwargs)
                if _class_patch_depth > 0:
                    global last_report
                    last_report = patch_hf(self, **_class_patch_opts)
            post_init._fusednorm_stock = stock
            base.post_init = post_init
        _class_patch_depth += 1
        _class_patch_opts.update(mode=mode, warn_unknown=warn_unknown)
    return _ClassPatch()


def unpatch_hf_classes():
    """Undo one patch_hf_classes() (models already built stay patched)."""
    global _class_patch_depth
    import transformers
    base = transformers.PreTrainedModel
    with _patched_lock:
        if _class_patch_depth == 0:
            return
        _class_patch_depth -= 1
        if _class_patch_depth == 0:
            base.post_init = base.post_init._fusednorm_stock


last_report = None


class _ClassPatch(contextlib.AbstractContextManager):
    def __exit__(self, *exc):
        unpatch_hf_classes()
        return False
