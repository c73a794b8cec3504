"""fusednorm.fuse_residual / set_qk_norm on tiny random-init Hugging Face models.

Judged against the stock model in float64 (Hugging Face runs it in float64; fusednorm has no
float64 kernels): the fused model in dtype D must be as close to that truth as the stock model in
D is. Per tensor (logits, loss, every parameter's gradient), with err = max |a - ref| / max |ref|
and rel_l2 = |a - ref| / |ref|:
    err(fused D)    <= 2 * err(stock D) + floor
    rel_l2(fused D) <= 1.5 * rel_l2(stock D) + floor
floor = 16 ulp of D at 1 for fp32 (1.9e-6 relative), 4 for bf16 (3e-2): tensors that the stock
model gets (nearly) exactly right — the loss of a 256-way softmax, gradients of weights that see
only one rounding — leave no room for the fused path's different but equally correct rounding:
the norm kernels round dx once where stock rounds twice (dx, then dx + residual gradient), and fp32
kernel math differs from HF's in summation order. In fp32 that rounding noise is ~1e-6 of the
largest gradient in both paths: with a 4-ulp floor (4.8e-7) Gemma3's q/k-norm weight gradients,
sums over every position and head, failed 3 of 61 seeds at 2-3x the stock's error (2026-11-26).
A fused path with one real mistake is 10-100x off: the control test drops the residual gradient
and must fail these bounds.
Besides: the forward of the fused model is bitwise that of patch_hf without fusion (the kernel
rounds x + residual to the activation dtype before normalizing, exactly as the stock `+` does).
Run: FUSEDNORM_LIBRARY=... PYTHONPATH=shim/python python3 shim/tests/test_hf_fused.py [--device cuda]
"""

import copy
import os
import pickle
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch._dynamo  # noqa: E402
from torch._dynamo.utils import counters  # noqa: E402

import fusednorm  # noqa: E402
from fusednorm import hf_fused  # noqa: E402
import harness  # noqa: E402

DEVICE = "cpu"
COMMON = dict(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=3,
              num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
              rms_norm_eps=1e-6)
FLOOR = {torch.float32: 16 * 2.0 ** -23, torch.bfloat16: 4 * 2.0 ** -7}
ARCHS = ("llama", "qwen3", "gemma3", "qwen3_moe")
STRUCTURE = {"llama": "pre-norm", "qwen3": "pre-norm", "gemma3": "sandwich",
             "qwen3_moe": "pre-norm"}


def make_model(arch, attn="eager"):
    import transformers as T
    if arch == "llama":
        cfg, cls = T.LlamaConfig(**COMMON), T.LlamaForCausalLM
    elif arch == "qwen3":
        cfg, cls = T.Qwen3Config(**COMMON, head_dim=16), T.Qwen3ForCausalLM
    elif arch == "qwen3_moe":
        cfg = T.Qwen3MoeConfig(**COMMON, head_dim=16, num_experts=4, num_experts_per_tok=2,
                               moe_intermediate_size=32)
        cls = T.Qwen3MoeForCausalLM
    else:
        cfg = T.Gemma3TextConfig(**COMMON, head_dim=16, sliding_window=8, query_pre_attn_scalar=16,
                                 layer_types=["sliding_attention", "full_attention",
                                              "sliding_attention"])
        cls = T.Gemma3ForCausalLM
    cfg._attn_implementation = attn
    if arch == "qwen3_moe":
        cfg._experts_implementation = "eager"  # the loop over experts (grouped_mm has no float64)
    model = cls(cfg).to(DEVICE)
    with torch.no_grad():  # HF's 1 / 0 init would hide a dropped weight or a wrong offset
        for name, mod in model.named_modules():
            if type(mod).__name__.endswith("RMSNorm"):
                base = 0.0 if arch == "gemma3" else 1.0
                mod.weight.copy_(base + 0.3 * torch.randn_like(mod.weight))
        for name, p in model.named_parameters():
            if "gate.weight" in name:  # HF zero-inits the router: random routing instead
                p.normal_(0, 0.2)
    return model


def fused_copy(model, **kw):
    m = copy.deepcopy(model)
    report = fusednorm.patch_hf(m, warn_unknown=False, **kw)
    return m, report


def step(model, ids, **kw):
    model.zero_grad(set_to_none=True)
    out = model(input_ids=ids, labels=ids, **kw)
    out.loss.backward()
    grads = {n.removeprefix("_orig_mod."): p.grad.detach().clone()
             for n, p in model.named_parameters() if p.grad is not None}
    return out, grads


def errors(a, ref):
    a, ref = a.detach().double(), ref.detach().double()
    d = a - ref
    return (float(d.abs().max() / ref.abs().max().clamp_min(1e-300)),
            float(d.norm() / ref.norm().clamp_min(1e-300)))


def judge(ref, stock, fused, dtype, what):
    """None if fused is within the bounds of the module docstring for every tensor, else why."""
    (ro, rg), (so, sg), (fo, fg) = ref, stock, fused
    assert set(rg) == set(sg) == set(fg), f"{what}: different parameters got gradients"
    floor = FLOOR[dtype]
    worst = (0.0, "")
    for name, r, s, f in [("logits", ro.logits, so.logits, fo.logits),
                          ("loss", ro.loss.reshape(1), so.loss.reshape(1), fo.loss.reshape(1))] + \
            [(f"grad {n}", rg[n], sg[n], fg[n]) for n in sorted(rg)]:
        (se, sl), (fe, fl) = errors(s, r), errors(f, r)
        bound_e, bound_l = 2 * se + floor, 1.5 * sl + floor
        ratio = max(fe / bound_e, fl / bound_l)
        if ratio > worst[0]:
            worst = (ratio, f"{name}: err {fe:.2e} vs stock {se:.2e}, l2 {fl:.2e} vs stock {sl:.2e}")
        if fe > bound_e or fl > bound_l:
            return f"{what}: {name}: fused err {fe:.3g} l2 {fl:.3g}; stock err {se:.3g} l2 {sl:.3g}"
    print(f"  {what}: worst at {worst[0]:.2f} of the bound: {worst[1]}")
    return None


def bits_equal(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(
        a.detach().reshape(-1).view(torch.uint8), b.detach().reshape(-1).view(torch.uint8))


def check_arch(arch):
    n_layers = COMMON["num_hidden_layers"]
    for dtype in (torch.float32, torch.bfloat16):
        torch.manual_seed(harness.seed_for(f"{arch} {dtype}"))
        base = make_model(arch)
        ids = torch.randint(0, base.config.vocab_size, (2, 24), device=DEVICE)
        ref = step(copy.deepcopy(base).double(), ids)
        stock_model = copy.deepcopy(base).to(dtype)
        stock = step(stock_model, ids)
        fused_model, report = fused_copy(stock_model)
        assert report.fused is not None and len(report.fused) == n_layers, str(report.fused)
        assert set(report.fused.fused.values()) == {STRUCTURE[arch]}, report.fused.fused
        assert report.fused.final_norms == ["model.norm"], report.fused.final_norms
        assert list(fused_model.state_dict()) == list(stock_model.state_dict())
        fused = step(fused_model, ids)
        why = judge(ref, stock, fused, dtype, f"{arch} {dtype}")
        assert why is None, why
        # The forward is bitwise patch_hf without fusion.
        plain_model, plain_report = fused_copy(stock_model, fuse_residual=False)
        assert plain_report.fused is None
        plain = step(plain_model, ids)
        assert bits_equal(fused[0].logits, plain[0].logits), \
            f"{arch} {dtype}: fused logits differ from unfused patch_hf " \
            f"(max {(fused[0].logits.float() - plain[0].logits.float()).abs().max():.3g})"


def test_llama():
    check_arch("llama")


def test_qwen3():
    check_arch("qwen3")


def test_gemma3_sandwich():
    check_arch("gemma3")


def test_qwen3_moe():
    check_arch("qwen3_moe")


def test_control_dropped_residual_gradient_is_caught():
    """A fused path that loses the gradient through the residual stream must fail judge()."""
    dtype = torch.bfloat16
    base = make_model("llama")
    ids = torch.randint(0, base.config.vocab_size, (2, 24), device=DEVICE)
    ref = step(copy.deepcopy(base).double(), ids)
    stock_model = copy.deepcopy(base).to(dtype)
    stock = step(stock_model, ids)
    fused_model, _ = fused_copy(stock_model)
    real = hf_fused._add_norm
    hf_fused._add_norm = lambda norm, x, r: real(norm, x, r.detach())
    try:
        broken = step(fused_model, ids)
    finally:
        hf_fused._add_norm = real
    why = judge(ref, stock, broken, dtype, "control")
    assert why is not None, "judge() cannot see a dropped residual gradient"
    print(f"  control caught: {why}")


def test_mixed_dtype_residual_stream():
    """Under autocast an fp32 residual stream meets bf16 branch outputs: promoted as stock does."""
    if DEVICE == "cpu":
        ctx = torch.autocast("cpu", dtype=torch.bfloat16)
    else:
        ctx = torch.autocast("cuda", dtype=torch.bfloat16)
    base = make_model("llama")
    ids = torch.randint(0, base.config.vocab_size, (2, 16), device=DEVICE)
    plain_model, _ = fused_copy(base, fuse_residual=False)
    fused_model, _ = fused_copy(base)
    with ctx:
        a = plain_model(input_ids=ids).logits
        b = fused_model(input_ids=ids).logits
    assert bits_equal(a, b), f"autocast: fused differs from unfused ({(a - b).abs().max():.3g})"


def test_hidden_states_output_is_the_stock_one():
    base = make_model("qwen3")
    ids = torch.randint(0, base.config.vocab_size, (2, 16), device=DEVICE)
    plain_model, _ = fused_copy(base, fuse_residual=False)
    fused_model, _ = fused_copy(base)
    a = plain_model(input_ids=ids, output_hidden_states=True)
    b = fused_model(input_ids=ids, output_hidden_states=True)
    assert len(a.hidden_states) == len(b.hidden_states) == COMMON["num_hidden_layers"] + 1
    for i, (x, y) in enumerate(zip(a.hidden_states, b.hidden_states)):
        assert bits_equal(x, y), f"hidden state {i} differs"
    assert bits_equal(a.logits, b.logits)
    # Once transformers' hooks are installed the layers return full hidden states; without
    # output_hidden_states the hooks are inactive and the logits stay right.
    c = fused_model(input_ids=ids)
    assert bits_equal(a.logits, c.logits)


def test_gradient_checkpointing():
    base = make_model("llama")
    ids = torch.randint(0, base.config.vocab_size, (2, 16), device=DEVICE)
    fused_model, _ = fused_copy(base)
    out, grads = step(fused_model, ids)
    fused_model.gradient_checkpointing_enable()  # transformers' default: non-reentrant
    out2, grads2 = step(fused_model, ids)
    assert bits_equal(out.loss, out2.loss)
    for n in grads:
        assert bits_equal(grads[n], grads2[n]), f"checkpointed gradient of {n} differs"
    fused_model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": True})
    try:
        step(fused_model, ids)
    except RuntimeError as e:
        assert "reentrant" in str(e), e
    else:
        raise AssertionError("reentrant checkpointing must be refused")


def test_unrecognized_layers_are_left_alone():
    import transformers as T
    base = make_model("llama")

    class ScaledLayer(T.models.llama.modeling_llama.LlamaDecoderLayer):
        def forward(self, hidden_states, attention_mask=None, position_ids=None,
                    past_key_values=None, use_cache=False, position_embeddings=None, **kwargs):
            residual = hidden_states
            hidden_states = self.input_layernorm(hidden_states)
            hidden_states, _ = self.self_attn(hidden_states=hidden_states,
                                              attention_mask=attention_mask,
                                              position_ids=position_ids,
                                              past_key_values=past_key_values, use_cache=use_cache,
                                              position_embeddings=position_embeddings, **kwargs)
            hidden_states = residual + 0.5 * hidden_states   # not the standard structure
            residual = hidden_states
            hidden_states = self.post_attention_layernorm(hidden_states)
            hidden_states = self.mlp(hidden_states)
            hidden_states = residual + hidden_states
            return hidden_states
    base.model.layers[1].__class__ = ScaledLayer
    ids = torch.randint(0, base.config.vocab_size, (2, 16), device=DEVICE)
    want = fused_copy(base, fuse_residual=False)[0](input_ids=ids).logits
    m, report = fused_copy(base)
    assert len(report.fused) == 0 and "layer 1" in report.fused.skipped["model"], report.fused
    assert bits_equal(m(input_ids=ids).logits, want)
    # Not patched by patch_hf: nothing to fuse into, said so.
    r = hf_fused.fuse_residual(make_model("llama"), warn=False)
    assert len(r) == 0 and "patch_hf" in r.skipped["model"], r


def test_unfuse_idempotent_pickle():
    base = make_model("gemma3")
    ids = torch.randint(0, base.config.vocab_size, (2, 16), device=DEVICE)
    want = fused_copy(base, fuse_residual=False)[0](input_ids=ids).logits
    m, _ = fused_copy(base)
    assert len(hf_fused.fuse_residual(m)) == COMMON["num_hidden_layers"]  # again: same result
    assert bits_equal(m(input_ids=ids).logits, want)
    m2 = pickle.loads(pickle.dumps(m))
    assert bits_equal(m2(input_ids=ids).logits, want)
    assert hf_fused.unfuse_residual(m) == COMMON["num_hidden_layers"] + 1
    assert type(m.model.layers[0]).__name__ == "Gemma3DecoderLayer"
    assert isinstance(m.model.norm, fusednorm.RMSNorm)
    assert bits_equal(m(input_ids=ids).logits, want)


def _graph_ops(model, ids):
    """Compile fwd+bwd with a backend that records the ATen/custom ops of both graphs."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd
    seen = {"fw": [], "bw": []}

    def grab(kind):
        def compiler(gm, example_inputs):
            seen[kind] += [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
            return make_boxed_func(gm.forward)
        return compiler
    backend = aot_autograd(fw_compiler=grab("fw"), bw_compiler=grab("bw"))
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(model, backend=backend, fullgraph=True)
    compiled(input_ids=ids, labels=ids).loss.backward()
    assert not counters["graph_break"], dict(counters["graph_break"])
    return seen


def test_compiled_graph_has_one_fused_op_per_add():
    n = COMMON["num_hidden_layers"]
    base = make_model("qwen3").to(torch.bfloat16)
    ids = torch.randint(0, base.config.vocab_size, (2, 16), device=DEVICE)
    m, _ = fused_copy(base, qk_norm="fusednorm")
    seen = _graph_ops(m, ids)
    fw, bw = seen["fw"], seen["bw"]
    # 2 adds per layer, all fused: the last layer's second add goes into the final norm.
    assert fw.count("fusednorm.fused_add_rms_norm_fwd.default") == 2 * n, fw
    assert bw.count("fusednorm.fused_add_rms_norm_bwd.default") == 2 * n, bw
    # Plain norms left: layer 0's input norm and the q/k norms.
    assert fw.count("fusednorm.rms_norm_fwd.default") == 1 + 2 * n, fw
    # Against patch_hf without fusion: the 2n residual adds are gone from the forward, and from
    # the backward the 2n - 1 gradient accumulations of the residual stream (each sum feeds a
    # norm and the next add; the last layer's output feeds only the final norm, no accumulation).
    plain = _graph_ops(fused_copy(base, fuse_residual=False, qk_norm="fusednorm")[0], ids)
    add = "aten.add.Tensor"
    assert plain["fw"].count(add) - fw.count(add) == 2 * n, (plain["fw"].count(add), fw.count(add))
    assert plain["bw"].count(add) - bw.count(add) == 2 * n - 1, (plain["bw"].count(add),
                                                                 bw.count(add))
    # patch_hf's default, qk_norm="inductor-when-compiled": the q/k norms are plain torch ops in
    # the graph, the rest as above.
    for m2 in (fused_copy(base)[0], fused_copy(base, qk_norm="inductor-when-compiled")[0]):
        seen2 = _graph_ops(m2, ids)
        fw2 = seen2["fw"]
        assert fw2.count("fusednorm.rms_norm_fwd.default") == 1, fw2
        assert fw2.count("aten.rsqrt.default") == 2 * n, fw2
        assert fw2.count("fusednorm.fused_add_rms_norm_fwd.default") == 2 * n, fw2
        assert seen2["bw"].count("fusednorm.fused_add_rms_norm_bwd.default") == 2 * n, seen2["bw"]


def test_compile_fullgraph_inductor():
    """Inductor (C++ codegen on CPU) over the fused model: no graph break, the eager result.
    One compile (they take minutes on 2 cores): Qwen3 with the q/k norms left to Inductor, so the
    fused adds and the stock q/k formula both go through Inductor; the q/k norm op under Inductor
    is test_compile.py's."""
    for qk in ("inductor-when-compiled",):
        base = make_model("qwen3").to(torch.bfloat16)
        ids = torch.randint(0, base.config.vocab_size, (2, 16), device=DEVICE)
        eager_model, _ = fused_copy(base, qk_norm=qk)
        m, _ = fused_copy(base, qk_norm=qk)
        want, want_g = step(eager_model, ids)
        torch._dynamo.reset()
        counters.clear()
        compiled = torch.compile(m, fullgraph=True)
        got, got_g = step(compiled, ids)
        assert not counters["graph_break"], dict(counters["graph_break"])
        # Inductor reorders fp32 math (and with the stock q/k formula fuses it differently):
        # bf16-level agreement, like test_hf's bf16 bound.
        for name, a, b in [("logits", got.logits, want.logits)] + \
                [(n, got_g[n], want_g[n]) for n in want_g]:
            e, l2 = errors(a, b)
            assert e < 1e-1 and l2 < 5e-2, f"{qk}: {name}: compiled vs eager err {e:.3g} l2 {l2:.3g}"
        # Eager with inductor-when-compiled runs the fusednorm op (it only differs when tracing).
        assert bits_equal(want.logits,
                          step(fused_copy(base, qk_norm="fusednorm")[0], ids)[0].logits)


def test_qk_norm_option_checked():
    base = make_model("qwen3")
    for bad in ("inductor", None, "FUSEDNORM"):
        try:
            fusednorm.patch_hf(copy.deepcopy(base), qk_norm=bad)
        except ValueError as e:
            assert "qk_norm" in str(e)
        else:
            raise AssertionError(f"qk_norm={bad!r} accepted")
    m, _ = fused_copy(base, qk_norm="inductor-when-compiled")
    paths = fusednorm.set_qk_norm(m, "fusednorm")
    assert len(paths) == 2 * COMMON["num_hidden_layers"]
    assert all(isinstance(m.get_submodule(p), fusednorm.RMSNorm) for p in paths)


def test_weightless_qk_norms_under_compile():
    """Weightless q/k norms (an L2Norm-style module, whose width the patch does not know, and a
    weightless torch.nn.RMSNorm of its own width) take the stock formula while torch.compile
    traces: fullgraph, no error, the eager values."""
    class QKL2Norm(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.eps = 1e-6

        def forward(self, x):
            return (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + self.eps)).type_as(x)

    m = torch.nn.Module()
    m.q_norm, m.k_norm = QKL2Norm(), torch.nn.RMSNorm(16, eps=1e-6, elementwise_affine=False)
    report = fusednorm.patch_hf(m, warn_unknown=False)
    assert set(report.config) == {"q_norm", "k_norm"}, (report.config, report.unknown)
    assert m.q_norm.normalized_shape is None and m.k_norm.normalized_shape == (16,)
    x = torch.randn(3, 5, 16, device=DEVICE)
    f = lambda t: m.q_norm(t) + 2 * m.k_norm(t)  # noqa: E731
    want = f(x)
    torch._dynamo.reset()
    counters.clear()
    got = torch.compile(f, backend="eager", fullgraph=True)(x)
    assert not counters["graph_break"], dict(counters["graph_break"])
    e, l2 = errors(got, want)
    assert e < 1e-5 and l2 < 1e-6, (e, l2)


def test_cuda_graph_capture_replay():
    """Forward + backward of the fused model captured in a CUDA graph and replayed (CUDA only)."""
    if not DEVICE.startswith("cuda"):
        harness.skip("needs --device cuda (CUDA graphs; the GPU suite runs it)")
    base = make_model("llama", attn="sdpa").to(torch.bfloat16)
    m, _ = fused_copy(base)
    ids = torch.randint(0, base.config.vocab_size, (2, 32), device=DEVICE)
    out, want_g = step(m, ids)
    # Keep only the values: an output still holding its autograd graph keeps that step's
    # AccumulateGrad nodes (made on the default stream) alive, and the captured backward would
    # then sync with the default stream, which a capture forbids (cudaErrorStreamCaptureImplicit).
    want_loss = out.loss.detach().clone()
    del out
    params = [p for p in m.parameters()]
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):  # warm-up on a side stream, as torch.cuda.graphs requires
            for p in params:
                p.grad = None
            m(input_ids=ids, labels=ids).loss.backward()
    torch.cuda.current_stream().wait_stream(s)
    for p in params:
        p.grad = None
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        loss = m(input_ids=ids, labels=ids).loss
        loss.backward()
    for p in params:
        p.grad.fill_(float("nan"))  # poison: the replay must overwrite every gradient
    g.replay()
    torch.cuda.synchronize()
    assert bits_equal(loss, want_loss)
    for n, p in m.named_parameters():
        assert bits_equal(p.grad, want_g[n]), f"CUDA graph replay: gradient of {n} differs"


if __name__ == "__main__":
    sys.exit(harness.main(globals()))
