"""Functional API, fake (meta) kernels and autograd for torch.ops.fusednorm.*.

The four ops (registered by libfusednorm_ops.so, schemas in shim/fusednorm_ops.cc):
  rms_norm_fwd(x, weight?, eps, offset, casting, mode?)                 -> (y, rstd)
  fused_add_rms_norm_fwd(x, residual, weight?, eps, offset, casting, mode?)
                                                                        -> (y, residual_out, rstd)
  rms_norm_bwd(dy, s, weight?, rstd, eps, offset, casting, mode?)       -> (dx, dw?)
  fused_add_rms_norm_bwd(dy, s, ds?, weight?, rstd, eps, offset, casting, mode?) -> (dx, dw?)
`s` is what the forward normalized (x, or residual_out for the fused add); rstd is fp32 with
shape x.shape[:-1]; outputs are contiguous; dx has x's dtype, dw the weight's.

Autograd is registered on the forward ops (torch.library.register_autograd) and calls the
backward ops, so torch.compile / AOTAutograd see two opaque ops and never trace into the kernels.
rms_norm / fused_add_rms_norm on plain tensors in eager mode take a shorter road to the same
kernels (an autograd.Function whose forward calls the op below the Autograd key): the registered
autograd kernel is a second Python-level autograd layer per call, and on small inputs the call
overhead is the cost (tools/bench/overhead.py). Tensor subclasses (DTensor) and torch.compile
take the registered path; torch.func transforms (grad, vjp, jacrev, vmap) a third autograd.Function
with a setup_context staticmethod, which functorch requires and torch.library's autograd lacks;
all give the same bits. vmap rules: the forward ops fold the batch into the rows (one launch)
unless the weight is per sample; the backward ops run once per sample (dw is per sample).
The backward ops themselves are not differentiable: their autograd kernel raises (double backward
is not implemented; a clear error beats silently wrong second derivatives).

Autocast: the ops have no autocast rule, as torch's rms_norm has none. They run in the dtype of
their inputs and return y in x's dtype, inside or outside torch.autocast, as
torch.nn.functional.rms_norm does: an fp32 residual stream is normalized in fp32, a bf16
activation in bf16 with fp32 accumulation. The weight may have its own dtype (bf16 x with an fp32 weight); dw comes back in
the weight's dtype. x and residual must share a dtype (no silent promotion of the residual stream).
"""

import torch

CASTINGS = ("fp32", "llama", "gemma")
MODES = ("auto", "persistent", "multi_wave_reload", "multi_wave_cached", "row_packed", "wide")

_ops = torch.ops.fusednorm
# Op handles resolved once: attribute lookups on torch.ops cost microseconds per call.
_rms_norm_fwd = _ops.rms_norm_fwd.default
_fused_add_fwd = _ops.fused_add_rms_norm_fwd.default
_rms_norm_bwd = _ops.rms_norm_bwd.default
_fused_add_bwd = _ops.fused_add_rms_norm_bwd.default
_is_compiling = torch.compiler.is_compiling
_functorch_active = torch._C._are_functorch_transforms_active
_grad_enabled = torch.is_grad_enabled
_below_autograd = torch._C._AutoDispatchBelowAutograd
_Tensor = torch.Tensor


def _check_args(casting, mode):
    # The C++ op validates too; checking here gives the error before any tracing/dispatch.
    if casting not in CASTINGS:
        raise ValueError(f"fusednorm: casting must be one of {CASTINGS}, got {casting!r}")
    if mode is not None and mode not in MODES:
        raise ValueError(f"fusednorm: mode must be None or one of {MODES}, got {mode!r}")


def _eager_plain(x):
    # The fast path (below) is for plain tensors in eager mode. Tensor subclasses (DTensor) and
    # torch.compile take the registered autograd of the op instead, which both understand;
    # torch.func transforms take _RMSNormFuncFn / _FusedAddFuncFn.
    return type(x) is _Tensor and not _is_compiling() and not _functorch_active()


class _RMSNormFn(torch.autograd.Function):
    """Eager autograd for plain tensors: the op runs below the Autograd dispatch key (no second,
    Python-level autograd kernel per call), the backward calls the backward op directly. Same
    kernels, same saved tensors and gradients as the registered autograd."""

    @staticmethod
    def forward(ctx, x, weight, eps, offset, casting, mode):
        with _below_autograd():
            y, rstd = _rms_norm_fwd(x, weight, eps, offset, casting, mode)
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x, weight, rstd)
        ctx.cfg = (eps, offset, casting, mode)
        return y

    @staticmethod
    def backward(ctx, dy):
        if dy is None:
            return None, None, None, None, None, None
        x, weight, rstd = ctx.saved_tensors
        dx, dw = _rms_norm_bwd(dy, x, weight, rstd, *ctx.cfg)
        need_x, need_w = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        return (dx if need_x else None), (dw if need_w else None), None, None, None, None


class _FusedAddFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, residual, weight, eps, offset, casting, mode):
        with _below_autograd():
            y, residual_out, rstd = _fused_add_fwd(x, residual, weight, eps, offset, casting, mode)
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(residual_out, weight, rstd)
        ctx.cfg = (eps, offset, casting, mode)
        return y, residual_out

    @staticmethod
    def backward(ctx, dy, ds):
        return _backward_fused_add(ctx, dy, ds, None)


def _memory_order(x):
    """The order of x's dims in memory, the last dim last, when x is dense in an order other than
    its own (e.g. the [B, H, S, D] view of [B, S, H, D] storage that a q/k norm after the
    transpose gets); None for a contiguous x or one that no order of its leading dims makes
    contiguous. The ops' outputs are contiguous in the shape they are given: a norm given x
    permuted to this order returns y, residual_out and (in the backward) dx in x's own memory
    order, as an elementwise op (the stock norm) would. In the logical order they would come back
    transposed, and whatever follows (attention's output follows q's layout) pays a copy."""
    nd = x.dim()
    if nd < 3 or x.stride(-1) != 1 or x.is_contiguous():
        return None
    perm = sorted(range(nd - 1), key=lambda d: -x.stride(d)) + [nd - 1]  # stable: ties keep order
    if perm == list(range(nd)) or not x.permute(perm).is_contiguous():
        return None
    return perm


def _inverse(perm):
    inv = [0] * len(perm)
    for i, d in enumerate(perm):
        inv[d] = i
    return inv


def rms_norm(x, weight=None, eps=1e-6, *, offset=0.0, casting="fp32", mode=None):
    """RMSNorm over the last dim of x ([..., N]); weight is [N] or None.

    y = x * rstd * (weight + offset), rstd = 1/sqrt(mean(x^2) + eps), accumulated in fp32.
    casting: "fp32" (one rounding, like torch.nn.functional.rms_norm), "llama" (the normalized
    value rounded to x's dtype before the weight multiply, like Hugging Face Llama/Qwen), "gemma"
    (fp32 math with (offset + weight), use offset=1.0). mode: None/"auto" or a forced kernel mode.
    (torch.nn.functional.rms_norm's signature: fusednorm.functional.rms_norm.)
    """
    if casting not in CASTINGS or (mode is not None and mode not in MODES):
        _check_args(casting, mode)
    perm = _memory_order(x) if isinstance(x, _Tensor) else None
    if perm is not None:
        return rms_norm(x.permute(perm), weight, eps, offset=offset, casting=casting,
                        mode=mode).permute(_inverse(perm))
    if _eager_plain(x):
        if _grad_enabled() and (x.requires_grad or (weight is not None and weight.requires_grad)):
            return _RMSNormFn.apply(x, weight, float(eps), float(offset), casting, mode)
        with _below_autograd():
            return _rms_norm_fwd(x, weight, float(eps), float(offset), casting, mode)[0]
    if _functorch_active() and not _is_compiling():
        return _RMSNormFuncFn.apply(x, weight, float(eps), float(offset), casting, mode)[0]
    return _rms_norm_fwd(x, weight, float(eps), float(offset), casting, mode)[0]


def fused_add_rms_norm(x, residual, weight=None, eps=1e-6, *, offset=0.0, casting="fp32",
                       mode=None):
    """s = x + residual (rounded to x's dtype); returns (rms_norm(s), s).

    The second output is the new residual stream; the norm reads the rounded s, so this equals
    `s = x + residual; rms_norm(s)` bitwise. Gradients flow to x and residual (the same tensor).
    """
    if casting not in CASTINGS or (mode is not None and mode not in MODES):
        _check_args(casting, mode)
    perm = _memory_order(x) if isinstance(x, _Tensor) else None
    if perm is not None and isinstance(residual, _Tensor) and residual.shape == x.shape:
        inv = _inverse(perm)
        y, residual_out = fused_add_rms_norm(x.permute(perm), residual.permute(perm), weight, eps,
                                             offset=offset, casting=casting, mode=mode)
        return y.permute(inv), residual_out.permute(inv)
    if _eager_plain(x) and type(residual) is _Tensor:
        if _grad_enabled() and (x.requires_grad or residual.requires_grad or
                                (weight is not None and weight.requires_grad)):
            return _FusedAddFn.apply(x, residual, weight, float(eps), float(offset), casting, mode)
        with _below_autograd():
            y, residual_out, _ = _fused_add_fwd(x, residual, weight, float(eps), float(offset),
                                                casting, mode)
        return y, residual_out
    if _functorch_active() and not _is_compiling():
        y, residual_out, _ = _FusedAddFuncFn.apply(x, residual, weight, float(eps), float(offset),
                                                   casting, mode)
        return y, residual_out
    y, residual_out, _ = _fused_add_fwd(x, residual, weight, float(eps), float(offset), casting,
                                        mode)
    return y, residual_out


# ------------------------------------------------------------------------------ fake kernels
# Shapes/dtypes/strides exactly as the real kernels allocate them (contiguous outputs).

def _check_fake(op, x, weight, *others):
    # The C++ ops check the same: a meta tensor among real ones dispatches here (Meta wins the
    # dispatch), and returning x.new_empty would hand back uninitialised memory.
    torch._check(x.dim() >= 1, lambda: f"fusednorm.{op}: x must be [..., N]")
    for name, t in (("weight", weight),) + others:
        if t is not None:
            torch._check(t.device == x.device, lambda: (
                f"fusednorm.{op}: device mismatch: {name} is on {t.device}, x on {x.device}; "
                "every tensor must be on x's device"))
    if weight is not None:
        torch._check(weight.dim() == 1 and weight.shape[0] == x.shape[-1], lambda: (
            f"fusednorm.{op}: weight must be [N={x.shape[-1]}], got {tuple(weight.shape)}"))


@torch.library.register_fake("fusednorm::rms_norm_fwd")
def _rms_norm_fwd_fake(x, weight, eps, offset, casting, mode):
    _check_fake("rms_norm_fwd", x, weight)
    return x.new_empty(x.shape), x.new_empty(x.shape[:-1], dtype=torch.float32)


@torch.library.register_fake("fusednorm::fused_add_rms_norm_fwd")
def _fused_add_rms_norm_fwd_fake(x, residual, weight, eps, offset, casting, mode):
    _check_fake("fused_add_rms_norm_fwd", x, weight, ("residual", residual))
    torch._check(residual.shape == x.shape, lambda: "fusednorm: residual must have x's shape")
    return (x.new_empty(x.shape), x.new_empty(x.shape),
            x.new_empty(x.shape[:-1], dtype=torch.float32))


@torch.library.register_fake("fusednorm::rms_norm_bwd")
def _rms_norm_bwd_fake(dy, s, weight, rstd, eps, offset, casting, mode):
    _check_fake("rms_norm_bwd", s, weight, ("dy", dy), ("rstd", rstd))
    return s.new_empty(s.shape), (None if weight is None else weight.new_empty(weight.shape))


@torch.library.register_fake("fusednorm::fused_add_rms_norm_bwd")
def _fused_add_rms_norm_bwd_fake(dy, s, ds, weight, rstd, eps, offset, casting, mode):
    _check_fake("fused_add_rms_norm_bwd", s, weight, ("dy", dy), ("ds", ds), ("rstd", rstd))
    return s.new_empty(s.shape), (None if weight is None else weight.new_empty(weight.shape))


# ------------------------------------------------------------------------------ autograd

def _setup_rms_norm(ctx, inputs, output):
    x, weight, eps, offset, casting, mode = inputs
    _, rstd = output
    ctx.mark_non_differentiable(rstd)
    # Unused outputs arrive as None instead of zero tensors (no zeros kernel, no extra traffic).
    ctx.set_materialize_grads(False)
    ctx.save_for_backward(x, weight, rstd)
    ctx.cfg = (eps, offset, casting, mode)


def _backward_rms_norm(ctx, dy, _drstd, bwd=_rms_norm_bwd):
    need_x, need_w = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
    if dy is None:
        return None, None, None, None, None, None
    x, weight, rstd = ctx.saved_tensors
    dx, dw = bwd(dy, x, weight, rstd, *ctx.cfg)
    return (dx if need_x else None), (dw if need_w else None), None, None, None, None


def _setup_fused_add(ctx, inputs, output):
    x, residual, weight, eps, offset, casting, mode = inputs
    _, residual_out, rstd = output
    ctx.mark_non_differentiable(rstd)
    ctx.set_materialize_grads(False)
    ctx.save_for_backward(residual_out, weight, rstd)
    ctx.cfg = (eps, offset, casting, mode)


def _backward_fused_add(ctx, dy, ds, _drstd, bwd=_fused_add_bwd):
    need_x, need_r, need_w = ctx.needs_input_grad[:3]
    s, weight, rstd = ctx.saved_tensors
    if dy is None:
        # y unused: the only gradient is the one of residual_out, passed straight through.
        dw = None if (weight is None or not need_w) else torch.zeros_like(weight)
        return ds if need_x else None, ds if need_r else None, dw, None, None, None, None
    dx, dw = bwd(dy, s, ds, weight, rstd, *ctx.cfg)
    # d(x + residual)/dx = d/dresidual = 1: both inputs get dx (+ ds, added by the kernel).
    return (dx if need_x else None), (dx if need_r else None), (dw if need_w else None), \
        None, None, None, None


def _no_double_backward(ctx, *grads):
    raise RuntimeError(
        "fusednorm: double backward (differentiating fusednorm's backward, e.g. "
        "torch.autograd.grad(..., create_graph=True) followed by another backward) is not "
        "implemented. Use torch.nn.functional.rms_norm where second derivatives are needed.")


def _setup_nothing(ctx, inputs, output):
    pass


class _BackwardFuncFn(torch.autograd.Function):
    """A backward op under torch.func: not differentiable again (as the op's own autograd)."""
    generate_vmap_rule = True

    @staticmethod
    def forward(op, *args):
        return op(*args)

    setup_context = staticmethod(_setup_nothing)
    backward = staticmethod(_no_double_backward)


def _func_rms_norm_bwd(*args):
    return _BackwardFuncFn.apply(_rms_norm_bwd, *args)


def _func_fused_add_bwd(*args):
    return _BackwardFuncFn.apply(_fused_add_bwd, *args)


class _RMSNormFuncFn(torch.autograd.Function):
    """The op's autograd for torch.func transforms (grad, vjp, jacrev, vmap of them). The autograd
    that torch.library registers on the op has no setup_context staticmethod, which functorch
    requires ("In order to use an autograd.Function with functorch transforms ..."); this one
    has the same setup and backward, so the same bits."""
    generate_vmap_rule = True

    @staticmethod
    def forward(x, weight, eps, offset, casting, mode):
        return _rms_norm_fwd(x, weight, eps, offset, casting, mode)

    setup_context = staticmethod(_setup_rms_norm)

    @staticmethod
    def backward(ctx, dy, drstd):
        return _backward_rms_norm(ctx, dy, drstd, bwd=_func_rms_norm_bwd)


class _FusedAddFuncFn(torch.autograd.Function):
    """As _RMSNormFuncFn, for the fused add."""
    generate_vmap_rule = True

    @staticmethod
    def forward(x, residual, weight, eps, offset, casting, mode):
        return _fused_add_fwd(x, residual, weight, eps, offset, casting, mode)

    setup_context = staticmethod(_setup_fused_add)

    @staticmethod
    def backward(ctx, dy, ds, drstd):
        return _backward_fused_add(ctx, dy, ds, drstd, bwd=_func_fused_add_bwd)


def _vmap_by_sample(op):
    """A vmap rule that runs op once per sample: the backward ops return dw summed over every row,
    so a batch cannot be folded into the rows (per-sample dw, e.g. vmap over torch.func.grad), and
    functorch cannot generate a fallback for their optional dw output."""
    def rule(info, in_dims, *args):
        outs = [op(*[a.select(d, b) if d is not None else a for a, d in zip(args, in_dims)])
                for b in range(info.batch_size)]
        stacked = tuple(None if o is None else torch.stack([r[k] for r in outs])
                        for k, o in enumerate(outs[0]))
        return stacked, tuple(None if o is None else 0 for o in stacked)
    return rule


def _vmap_rows(op, n):
    """A vmap rule for a forward op whose first n tensors are row tensors (x[, residual]): the
    batch is one more leading dim of rows (one launch), unless the weight is per sample."""
    by_sample = _vmap_by_sample(op)

    def rule(info, in_dims, *args):
        if in_dims[n] is not None:
            return by_sample(info, in_dims, *args)
        b = info.batch_size
        rows = [a.movedim(d, 0) if d is not None else a.expand(b, *a.shape)
                for a, d in zip(args[:n], in_dims[:n])]
        out = op(*rows, *args[n:])
        return out, (0,) * len(out)
    return rule


torch.library.register_vmap("fusednorm::rms_norm_fwd", _vmap_rows(_rms_norm_fwd, 1))
torch.library.register_vmap("fusednorm::fused_add_rms_norm_fwd", _vmap_rows(_fused_add_fwd, 2))
torch.library.register_vmap("fusednorm::rms_norm_bwd", _vmap_by_sample(_rms_norm_bwd))
torch.library.register_vmap("fusednorm::fused_add_rms_norm_bwd", _vmap_by_sample(_fused_add_bwd))
torch.library.register_autograd("fusednorm::rms_norm_fwd", _backward_rms_norm,
                                setup_context=_setup_rms_norm)
torch.library.register_autograd("fusednorm::fused_add_rms_norm_fwd", _backward_fused_add,
                                setup_context=_setup_fused_add)
torch.library.register_autograd("fusednorm::rms_norm_bwd", _no_double_backward,
                                setup_context=_setup_nothing)
torch.library.register_autograd("fusednorm::fused_add_rms_norm_bwd", _no_double_backward,
                                setup_context=_setup_nothing)
