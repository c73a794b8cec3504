"""Residual add fused into the next norm for Hugging Face decoder stacks, and the q/k-norm option.

fuse_residual(model) rewrites the decoder layers of a model already patched by patch_hf so that
every `residual + h` followed by a norm is one fusednorm.fused_add_rms_norm call: one kernel in
the forward (the add, the rounding to the activation dtype, the norm) and one in the backward
(dx, with the gradient of the residual stream added in the same kernel). In a stock layer

    h   = x + attn(norm1(x))          # add kernel, then norm2 reads h again
    out = h + mlp(norm2(h))           # add kernel, then the next layer's norm1 reads out again

the second add feeds the next layer's input norm (and after the last layer, the model's final
norm). So a rewritten layer returns the pair (mlp_out, h) instead of their sum, and the next
layer's input norm (or the final norm) adds and normalizes in one call. The pair travels through
the model's own layer loop unchanged, so the model's forward is not replaced; fuse_residual first
checks (by parsing the source) that the loop only hands each layer's output to the next layer and
the last one to self.norm, and that the layer's forward is exactly one of the two structures below;
anything else is left alone with the reason in the report.

    pre-norm (Llama, Mistral, Qwen2, Qwen3, Qwen3-MoE, Mixtral, ...):
        h = x + attn(input_layernorm(x));  out = h + mlp(post_attention_layernorm(h))
    sandwich (Gemma2, Gemma3):
        h = x + post_attention_layernorm(attn(input_layernorm(x)))
        out = h + post_feedforward_layernorm(mlp(pre_feedforward_layernorm(h)))
    The post-norms come before the add, so the adds are again followed by a norm
    (pre_feedforward_layernorm, the next input_layernorm) and fuse the same way.

Numerics: the fused kernel rounds x + residual to the activation dtype before normalizing, so
the forward is bitwise the stock `residual + h` followed by the norm. In the backward the stock
graph rounds the norm's dx to the activation dtype and then adds the residual gradient (a second
rounding); the fused kernel adds in fp32 and rounds once, so gradients differ from stock by at
most about one ulp of the activation dtype per layer, in the accurate direction.

Where the layer's output is observed: Hugging Face's output_hidden_states installs a forward hook
on every decoder layer that records the layer's output; a layer with that hook returns the full
hidden state (the add done separately, as stock), so the recorded hidden states are right. Other
forward hooks on decoder layers see the (mlp_out, residual) pair. Gradient checkpointing works
with the non-reentrant implementation (transformers' default); the reentrant one does not track
tensors inside a tuple argument and is refused with an error. fusednorm.capture records the
layers' norms as the fused_add_rms_norm calls they now are; the final norm, called with the pair,
is not recorded (capture sees a tuple, not a tensor). unfuse_residual(model) undoes it all.

set_qk_norm(model, "inductor-when-compiled") (patch_hf's default) makes the per-head q/k norms
(Qwen3, Gemma3 q_norm / k_norm) run the stock formula while torch.compile traces them
(torch.compiler.is_compiling()), so Inductor can fuse them with the rotary embedding and the
transpose that follow; in eager they stay fusednorm kernels. It is the default because it measured
faster compiled: Inductor fuses a head's norm with its rotary embedding, one pass over q or k,
where the op is a pass of its own (compiled Qwen3 on an H100: 1.002x stock's step against 0.991x
with the op; tools/bench/E2E.md). "fusednorm" uses the fusednorm op in both.
"""

import ast
import dataclasses
import inspect
import textwrap
import warnings

import torch
from torch import nn

from .nn import RMSNorm

__all__ = ["fuse_residual", "unfuse_residual", "set_qk_norm", "FuseReport", "QK_NORM_MODES"]

QK_NORM_MODES = ("fusednorm", "inductor-when-compiled")


@dataclasses.dataclass
class FuseReport:
    """What fuse_residual did: fused[layer path] = structure ("pre-norm" or "sandwich");
    final_norms = paths of the final norms that take the last layer's pair; skipped[path] = why a
    decoder stack or layer was left alone."""
    fused: dict = dataclasses.field(default_factory=dict)
    final_norms: list = dataclasses.field(default_factory=list)
    skipped: dict = dataclasses.field(default_factory=dict)

    def __len__(self):
        return len(self.fused)

    def __str__(self):
        s = f"fusednorm.fuse_residual: {len(self.fused)} decoder layers fused"
        if self.final_norms:
            s += f", final norm {', '.join(self.final_norms)}"
        if self.skipped:
            s += "; left alone: " + "; ".join(f"{k}: {v}" for k, v in sorted(self.skipped.items()))
        return s


# ------------------------------------------------------------------------------ source checks

_ATTN = "hidden_states, _ = self.self_attn(hidden_states=hidden_states, **kwargs)"
_TEMPLATES = {
    "pre-norm": f"""
residual = hidden_states
hidden_states = self.input_layernorm(hidden_states)
{_ATTN}
hidden_states = residual + hidden_states
residual = hidden_states
hidden_states = self.post_attention_layernorm(hidden_states)
hidden_states = self.mlp(hidden_states)
hidden_states = residual + hidden_states
return hidden_states
""",
    "sandwich": f"""
residual = hidden_states
hidden_states = self.input_layernorm(hidden_states)
{_ATTN}
hidden_states = self.post_attention_layernorm(hidden_states)
hidden_states = residual + hidden_states
residual = hidden_states
hidden_states = self.pre_feedforward_layernorm(hidden_states)
hidden_states = self.mlp(hidden_states)
hidden_states = self.post_feedforward_layernorm(hidden_states)
hidden_states = residual + hidden_states
return hidden_states
""",
}
_NORMS = {"pre-norm": ("input_layernorm", "post_attention_layernorm"),
          "sandwich": ("input_layernorm", "post_attention_layernorm",
                       "pre_feedforward_layernorm", "post_feedforward_layernorm")}


def _function_ast(fn):
    fn = inspect.unwrap(fn)  # GradientCheckpointingLayer wraps forward (functools.wraps)
    src = textwrap.dedent(inspect.getsource(fn))
    node = ast.parse(src).body[0]
    if not isinstance(node, ast.FunctionDef):
        raise TypeError("not a plain function")
    return node


def _body(fn_node):
    body = list(fn_node.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # docstring
    return body


def _attn_call_ok(stmt, params):
    """`hidden_states, _ = self.self_attn(hidden_states=hidden_states, p=p for every other
    parameter of the layer's forward, **kwargs)`: the layer hands attention all its arguments."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return False
    tgt, call = stmt.targets[0], stmt.value
    if ast.dump(tgt) != ast.dump(ast.parse("hidden_states, _ = 0").body[0].targets[0]):
        return False
    if not (isinstance(call, ast.Call) and ast.dump(call.func) == ast.dump(
            ast.parse("self.self_attn", mode="eval").body) and not call.args):
        return False
    names = set()
    star = False
    for kw in call.keywords:
        if kw.arg is None:
            star = star or (isinstance(kw.value, ast.Name) and kw.value.id == "kwargs")
            continue
        if not (isinstance(kw.value, ast.Name) and kw.value.id == kw.arg):
            return False
        names.add(kw.arg)
    return star and names == {"hidden_states", *params}


def _layer_structure(cls):
    """(structure, names of the forward's parameters after hidden_states) or (None, reason)."""
    try:
        fn = _function_ast(cls.forward)
    except (OSError, TypeError, SyntaxError) as e:
        return None, f"source of {cls.__name__}.forward not readable ({e})"
    a = fn.args
    pos = [p.arg for p in a.posonlyargs + a.args]
    if pos[:2] != ["self", "hidden_states"] or a.vararg is not None or a.kwarg is None \
            or a.kwarg.arg != "kwargs":
        return None, f"{cls.__name__}.forward signature is not (self, hidden_states, ..., **kwargs)"
    params = pos[2:] + [p.arg for p in a.kwonlyargs]
    body = _body(fn)
    for name, template in _TEMPLATES.items():
        want = ast.parse(template).body
        if len(body) != len(want):
            continue
        ok = True
        for got, exp in zip(body, want):
            if ast.dump(exp) == ast.dump(ast.parse(_ATTN).body[0]):
                ok = _attn_call_ok(got, params)
            else:
                ok = ast.dump(got) == ast.dump(exp)
            if not ok:
                break
        if ok:
            return name, tuple(pos[2:])
    return None, f"{cls.__name__}.forward is not a recognized pre-norm or sandwich layer"


def _loop_ok(cls):
    """None if cls.forward runs `for layer in self.layers[...]: hidden_states = layer(
    hidden_states, ...)` directly followed by `hidden_states = self.norm(hidden_states)`, with
    hidden_states used nowhere else in the loop; else the reason."""
    try:
        fn = _function_ast(cls.forward)
    except (OSError, TypeError, SyntaxError) as e:
        return f"source of {cls.__name__}.forward not readable ({e})"
    want_norm = ast.dump(ast.parse("hidden_states = self.norm(hidden_states)").body[0])
    layers = ast.dump(ast.parse("self.layers", mode="eval").body)
    for parent in ast.walk(fn):
        stmts = getattr(parent, "body", None)
        if not isinstance(stmts, list):
            continue
        for i, st in enumerate(stmts):
            if not isinstance(st, ast.For):
                continue
            it = st.iter
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) \
                    and it.func.id == "enumerate" and len(it.args) == 1:
                it = it.args[0]
                var = st.target.elts[1] if isinstance(st.target, ast.Tuple) else None
            else:
                var = st.target
            if isinstance(it, ast.Subscript):
                it = it.value
            if ast.dump(it) != layers or not isinstance(var, ast.Name):
                continue
            if len(st.body) != 1 or st.orelse:
                return f"{cls.__name__}.forward: the layer loop does more than call the layer"
            b = st.body[0]
            if not (isinstance(b, ast.Assign) and len(b.targets) == 1
                    and isinstance(b.targets[0], ast.Name) and b.targets[0].id == "hidden_states"
                    and isinstance(b.value, ast.Call) and isinstance(b.value.func, ast.Name)
                    and b.value.func.id == var.id and b.value.args
                    and isinstance(b.value.args[0], ast.Name)
                    and b.value.args[0].id == "hidden_states"):
                return f"{cls.__name__}.forward: the loop is not hidden_states = layer(hidden_states, ...)"
            rest = b.value.args[1:] + [k.value for k in b.value.keywords]
            if any(isinstance(n, ast.Name) and n.id == "hidden_states"
                   for r in rest for n in ast.walk(r)):
                return f"{cls.__name__}.forward: the loop reads hidden_states besides the layer input"
            if i + 1 >= len(stmts) or ast.dump(stmts[i + 1]) != want_norm:
                return f"{cls.__name__}.forward: the layer loop is not followed by self.norm(hidden_states)"
            return None
    return f"{cls.__name__}.forward has no `for ... in self.layers` loop"


# ------------------------------------------------------------------------------ the rewrite

def _add_norm(norm, x, residual):
    """norm(x + residual) and the sum, in one fused call. Mixed dtypes (an fp32 residual stream
    with bf16 branch outputs under autocast) are promoted first, exactly as the stock `+` does."""
    if x.dtype != residual.dtype:
        t = torch.promote_types(x.dtype, residual.dtype)
        x, residual = x.to(t), residual.to(t)
    return norm(x, residual)


def _records_output(layer):
    # transformers' output_hidden_states hook (utils/output_capturing.py) reads the layer output.
    return any(getattr(h, "__name__", "") == "output_capturing_hook"
               for h in layer._forward_hooks.values())


def _check_checkpointing(layer):
    if getattr(layer, "gradient_checkpointing", False) and layer.training:
        f = getattr(layer, "_gradient_checkpointing_func", None)
        if getattr(f, "keywords", {}).get("use_reentrant", False):
            raise RuntimeError(
                "fusednorm.fuse_residual: reentrant gradient checkpointing does not propagate "
                "gradients through the (branch, residual) pair the fused layers pass; use "
                "gradient_checkpointing_enable(gradient_checkpointing_kwargs={'use_reentrant': "
                "False}) (transformers' default) or fusednorm.unfuse_residual(model)")


def _named(layer, args, kwargs):
    if args:
        names = type(layer)._fusednorm_args
        if len(args) > len(names):
            raise TypeError(f"{type(layer).__name__}.forward: too many positional arguments")
        kwargs = {**dict(zip(names, args)), **kwargs}
    return kwargs


def _enter_layer(self, hidden_states, args, kwargs):
    """The layer's input norm: (y, residual, kwargs). A pair from the previous fused layer is
    (branch output, residual), added inside the norm; a plain tensor is the residual itself."""
    _check_checkpointing(self)
    kwargs = _named(self, args, kwargs)
    if isinstance(hidden_states, tuple):
        y, residual = _add_norm(self.input_layernorm, *hidden_states)
    else:
        residual = hidden_states
        y = self.input_layernorm(hidden_states)
    return y, residual, kwargs


def _pre_norm_forward(self, hidden_states, *args, **kwargs):
    y, residual, kwargs = _enter_layer(self, hidden_states, args, kwargs)
    a, _ = self.self_attn(hidden_states=y, **kwargs)
    y, residual = _add_norm(self.post_attention_layernorm, a, residual)
    m = self.mlp(y)
    if _records_output(self):
        return residual + m
    return m, residual


def _sandwich_forward(self, hidden_states, *args, **kwargs):
    y, residual, kwargs = _enter_layer(self, hidden_states, args, kwargs)
    a, _ = self.self_attn(hidden_states=y, **kwargs)
    a = self.post_attention_layernorm(a)
    y, residual = _add_norm(self.pre_feedforward_layernorm, a, residual)
    m = self.post_feedforward_layernorm(self.mlp(y))
    if _records_output(self):
        return residual + m
    return m, residual


def _final_norm_forward(self, x, residual=None):
    if isinstance(x, tuple):
        y, _ = _add_norm(super(type(self), self).forward, *x)
        return y
    return super(type(self), self).forward(x, residual)


_FORWARDS = {"pre-norm": _pre_norm_forward, "sandwich": _sandwich_forward}
_SUBCLASSES = {}  # (base class, role) -> generated subclass


def _subclass(base, role, forward, **attrs):
    """A subclass of base whose forward is replaced (isinstance, parameters, state_dict keys and
    transformers' gradient checkpointing wrapper are kept). Registered in this module's globals
    so that pickling a rewritten model finds the class."""
    key = (base, role)
    if key not in _SUBCLASSES:
        name = f"_Fusednorm{role}_{base.__name__}_{len(_SUBCLASSES)}"
        cls = type(name, (base,), {"forward": forward, "_fusednorm_base": base,
                                   "_fusednorm_role": role, "__module__": __name__, **attrs})
        cls.__qualname__ = name
        globals()[name] = cls
        _SUBCLASSES[key] = cls
    return _SUBCLASSES[key]


def _base_class(module):
    return getattr(type(module), "_fusednorm_base", type(module))


def fuse_residual(model: nn.Module, *, warn=True) -> FuseReport:
    """Rewrite the decoder layers of a patch_hf-patched model in place so that each residual add
    and the norm after it are one fused_add_rms_norm call (see the module docstring). Idempotent.

    A decoder stack is rewritten only if its forward loop and every layer's forward are
    recognized and all the norms involved are fusednorm.RMSNorm (patch_hf done); otherwise it is
    left alone and the reason is in report.skipped (and, with warn, a warning).
    """
    report = FuseReport()
    for path, stack in model.named_modules():
        layers, norm = getattr(stack, "layers", None), getattr(stack, "norm", None)
        if not isinstance(layers, nn.ModuleList) or not isinstance(norm, nn.Module) \
                or len(layers) == 0:
            continue
        where = path or type(stack).__name__
        why = _loop_ok(type(stack))
        if why is None and not isinstance(norm, RMSNorm):
            why = f"final norm is {type(norm).__name__}, not fusednorm.RMSNorm (run patch_hf first)"
        plans = []
        for i, layer in enumerate(layers):
            if why is not None:
                break
            structure, info = _layer_structure(_base_class(layer))
            if structure is None:
                why = f"layer {i}: {info}"
                break
            bad = [n for n in _NORMS[structure] if not isinstance(getattr(layer, n, None), RMSNorm)]
            if bad:
                why = (f"layer {i}: {', '.join(bad)} not fusednorm.RMSNorm (run patch_hf first)")
                break
            plans.append((layer, structure, info))
        if why is not None:
            report.skipped[where] = why
            continue
        # Every layer of the stack or none: a half-rewritten stack would hand a pair to a stock
        # layer.
        for i, (layer, structure, arg_names) in enumerate(plans):
            base = _base_class(layer)
            layer.__class__ = _subclass(base, "Layer", _FORWARDS[structure],
                                        _fusednorm_args=arg_names)
            report.fused[f"{path}.layers.{i}" if path else f"layers.{i}"] = structure
        norm.__class__ = _subclass(_base_class(norm), "FinalNorm", _final_norm_forward)
        report.final_norms.append(f"{path}.norm" if path else "norm")
    if warn and report.skipped and not report.fused:
        warnings.warn(str(report), stacklevel=2)
    return report


def unfuse_residual(model: nn.Module) -> int:
    """Undo fuse_residual (layers and final norms get their classes back). Returns how many
    modules were restored."""
    n = 0
    for m in model.modules():
        if getattr(type(m), "_fusednorm_role", None) in ("Layer", "FinalNorm"):
            m.__class__ = type(m)._fusednorm_base
            n += 1
    return n


# ------------------------------------------------------------------------------ q/k norm option

def _stock_rms_norm(x, weight, eps, offset, casting):
    """The Hugging Face formulas (plain torch ops, which Inductor fuses with their neighbours);
    returns x's dtype like the fusednorm op."""
    xf = x.float()
    n = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    if weight is None:
        return n.to(x.dtype)
    if casting == "llama":
        w = weight if offset == 0.0 else weight + offset
        return (w * n.to(x.dtype)).to(x.dtype)
    return (n * (weight.float() + offset)).to(x.dtype)  # gemma, fp32: one rounding at the end


def _qk_forward(self, x, residual=None):
    if residual is None and (self.normalized_shape is None or len(self.normalized_shape) == 1) \
            and torch.compiler.is_compiling():
        eps = self.eps if self.eps is not None else torch.finfo(x.dtype).eps
        w = self.weight if self.fusednorm_config.weight else None  # a weightless stock class may have none
        return _stock_rms_norm(x, w, eps, self.offset, self.casting)
    return super(type(self), self).forward(x, residual)


def set_qk_norm(model: nn.Module, qk_norm: str = "inductor-when-compiled") -> list:
    """Choose how the per-head q/k norms (modules named q_norm / k_norm that patch_hf replaced)
    run: "inductor-when-compiled" (the default: the stock formula while torch.compile traces, so
    Inductor fuses it with the rotary embedding; the op in eager) or "fusednorm" (the op in eager
    and compiled). Returns the paths of the modules set."""
    if qk_norm not in QK_NORM_MODES:
        raise ValueError(f"fusednorm: qk_norm must be one of {QK_NORM_MODES}, got {qk_norm!r}")
    done = []
    for path, m in model.named_modules():
        if not isinstance(m, RMSNorm) or path.rsplit(".", 1)[-1] not in ("q_norm", "k_norm"):
            continue
        base = _base_class(m)
        m.__class__ = base if qk_norm == "fusednorm" else _subclass(base, "QKNorm", _qk_forward)
        done.append(path)
    return done
