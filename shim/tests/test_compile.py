"""torch.compile(fullgraph=True) over the fusednorm ops: zero graph breaks, bitwise the eager result.

The compiled graph calls the same kernels on the same inputs (forward op, and the backward op in
the compiled backward), and every other op here is exact (x2 scaling, gradient seeds), so outputs
and all gradients must be bitwise equal to eager, not merely close.
Run: FUSEDNORM_LIBRARY=... PYTHONPATH=shim/python python3 shim/tests/test_compile.py [--device cuda]
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch._dynamo  # noqa: E402
from torch._dynamo.utils import counters  # noqa: E402

import fusednorm  # noqa: E402
import harness  # noqa: E402

DEVICE = "cpu"


def block(x, r, w1, w2):
    y, res = fusednorm.fused_add_rms_norm(x, r, w1, 1e-6, offset=1.0, casting="gemma")
    z = fusednorm.rms_norm(y * 2, w2, 1e-5, casting="llama")
    q = fusednorm.rms_norm(z.view(*z.shape[:-1], 4, -1), None)  # QK-norm style, no weight
    return q, res


def bits_equal(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(
        a.detach().contiguous().view(torch.uint8), b.detach().contiguous().view(torch.uint8))


def run(fn, dtype, m, n, seed):
    g = torch.Generator(device="cpu").manual_seed(seed)

    def rnd(*shape, dt=dtype):
        return torch.randn(*shape, generator=g).to(device=DEVICE, dtype=dt)
    x, r = rnd(m, n).requires_grad_(), rnd(m, n).requires_grad_()
    w1 = (0.1 * rnd(n, dt=torch.float32)).requires_grad_()
    w2 = (1 + 0.1 * rnd(n)).requires_grad_()
    q, res = fn(x, r, w1, w2)
    dq, dres = rnd(*q.shape), rnd(*res.shape)
    torch.autograd.backward([q, res], [dq, dres])
    return [q, res, x.grad, r.grad, w1.grad, w2.grad]


def compare(compiled, dtype, m, n, what):
    seed = harness.seed_for(what)
    eager = run(block, dtype, m, n, seed)
    comp = run(compiled, dtype, m, n, seed)
    names = ["q", "residual_out", "x.grad", "residual.grad", "w1.grad", "w2.grad"]
    for name, a, b in zip(names, eager, comp):
        assert bits_equal(a, b), f"{what}: {name} differs between eager and compiled " \
            f"(max abs diff {(a.float() - b.float()).abs().max().item():.3g})"


def test_compile_fullgraph_bitwise():
    for dtype in (torch.bfloat16, torch.float32):
        torch._dynamo.reset()
        counters.clear()
        compiled = torch.compile(block, fullgraph=True, dynamic=False)
        compare(compiled, dtype, 37, 256, f"{dtype} static")
        assert not counters["graph_break"], dict(counters["graph_break"])
        assert counters["stats"]["unique_graphs"] == 1, dict(counters["stats"])


def test_compile_dynamic_shapes():
    """Symbolic M through the fake kernels: two row counts, no recompile needed for the second."""
    torch._dynamo.reset()
    counters.clear()
    compiled = torch.compile(block, fullgraph=True, dynamic=True)
    compare(compiled, torch.bfloat16, 19, 128, "dynamic M=19")
    compare(compiled, torch.bfloat16, 45, 128, "dynamic M=45")
    assert not counters["graph_break"], dict(counters["graph_break"])
    assert counters["stats"]["unique_graphs"] == 1, dict(counters["stats"])


def test_compile_rmsnorm_module():
    """fusednorm.RMSNorm (incl. multi-dim normalized_shape and the fused-add form) compiles."""
    torch._dynamo.reset()
    counters.clear()
    norm = fusednorm.RMSNorm((4, 32), eps=1e-6, device=DEVICE)
    with torch.no_grad():
        norm.weight.normal_()

    def f(x, r):
        y, res = norm(x, r)
        return norm(y * 2), res
    compiled = torch.compile(f, fullgraph=True)
    x, r = torch.randn(6, 4, 32, device=DEVICE), torch.randn(6, 4, 32, device=DEVICE)
    a, b = f(x, r), compiled(x, r)
    assert all(bits_equal(p, q) for p, q in zip(a, b))
    assert not counters["graph_break"], dict(counters["graph_break"])


def test_compile_patched_hf_model():
    """A model patched by patch_hf (modules class-swapped in place) compiles with fullgraph=True,
    no graph break, and gives eager's logits and gradients bitwise (aot_eager: the same ops)."""
    import transformers as T
    cfg = T.Qwen3Config(vocab_size=128, hidden_size=64, intermediate_size=96, num_hidden_layers=1,
                        num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                        max_position_embeddings=64, pad_token_id=0)
    cfg._attn_implementation = "eager"
    torch.manual_seed(harness.seed_for("patched hf"))
    model = T.Qwen3ForCausalLM(cfg).to(DEVICE)
    # The q/k norms on the op under compile too (patch_hf's default leaves them to the compiler,
    # which would not be the eager bits).
    assert len(fusednorm.patch_hf(model, qk_norm="fusednorm")) == 5
    ids = torch.randint(3, 128, (2, 16), device=DEVICE)

    def step(fn):
        model.zero_grad(set_to_none=True)
        out = fn(input_ids=ids, labels=ids)
        out.loss.backward()
        return [out.logits] + [p.grad for p in model.parameters()]
    eager = step(model)
    torch._dynamo.reset()
    counters.clear()
    comp = step(torch.compile(model, fullgraph=True, backend="aot_eager"))
    assert not counters["graph_break"], dict(counters["graph_break"])
    for a, b in zip(eager, comp):
        assert bits_equal(a, b)


_COPY_OPS = ("aten::contiguous", "aten::clone", "aten::copy_")
_COPY_TARGETS = ("aten.clone", "aten.copy", "aten.contiguous")


def _tiny_model(patched, cfg, model_cls, attn, seed_name, n_norms):
    """model_cls(cfg) with the attention implementation attn on a fixed seed; patched: n_norms
    norms swapped by patch_hf."""
    cfg._attn_implementation = attn
    torch.manual_seed(harness.seed_for(seed_name))
    model = model_cls(cfg).to(DEVICE)
    if patched:  # the q/k norms on the op under compile too: its layouts are what is tested
        assert len(fusednorm.patch_hf(model, qk_norm="fusednorm")) == n_norms
    return model


def _tiny_qwen3(patched):
    """A 2-layer Qwen3 (q/k norms: their gradient arrives as the [B, H, S, D] storage of a
    [B, S, H, D] tensor, the layout that used to be copied) on a fixed seed; 2 layers x (2 norms
    + q/k) + the final norm."""
    import transformers as T
    cfg = T.Qwen3Config(vocab_size=128, hidden_size=128, intermediate_size=96, num_hidden_layers=2,
                        num_attention_heads=4, num_key_value_heads=2, head_dim=32,
                        max_position_embeddings=64, pad_token_id=0)
    return _tiny_model(patched, cfg, T.Qwen3ForCausalLM, "eager", "no copies", 2 * 4 + 1)


def _compiled_step_graph_copies(model):
    """Copy nodes in the AOT forward and backward graphs of one compiled step, and the aten copy
    ops that ran inside a fusednorm op during it (the shim's only copies)."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd
    graphs = []

    def keep(gm, _inputs):
        graphs.append(gm)
        return make_boxed_func(gm.forward)
    torch._dynamo.reset()
    counters.clear()
    comp = torch.compile(model, fullgraph=True, backend=aot_autograd(fw_compiler=keep, bw_compiler=keep))
    ids = torch.randint(3, 128, (2, 16), device=DEVICE)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        out = comp(input_ids=ids, labels=ids)
        out.loss.backward()
    assert not counters["graph_break"], dict(counters["graph_break"])
    in_graph = [str(n.target) for gm in graphs for n in gm.graph.nodes
                if n.op == "call_function" and str(n.target).startswith(_COPY_TARGETS)]
    inside = []
    for e in prof.events():
        if e.name in _COPY_OPS:
            p = e.cpu_parent
            while p is not None and not p.name.startswith("fusednorm::"):
                p = p.cpu_parent
            if p is not None:
                inside.append(f"{e.name} under {p.name}")
    return in_graph, inside, len(graphs)


def _assert_adds_no_copy(tiny):
    """No copy op inside any fusednorm op in a compiled step of tiny(True), and its AOT graphs
    hold no more copy nodes than tiny(False)'s (stock)."""
    stock_graph, _, _ = _compiled_step_graph_copies(tiny(False))
    graph, inside, ngraphs = _compiled_step_graph_copies(tiny(True))
    print(f"copy nodes in the AOT graphs: stock {len(stock_graph)}, patched {len(graph)} "
          f"({ngraphs} graphs); copies inside fusednorm ops: {len(inside)}")
    assert ngraphs >= 2, "the backward graph was not compiled"
    assert not inside, f"fusednorm copied inside its ops: {inside[:8]}"
    assert len(graph) <= len(stock_graph), (graph, stock_graph)


def test_compiled_patched_qwen3_adds_no_copy():
    """Compiled (fullgraph) patched Qwen3 step: no copy op inside any fusednorm op (the q/k norm
    gradients come transposed and are addressed in place), and the AOT graphs hold no more copy
    nodes than the stock model's."""
    _assert_adds_no_copy(_tiny_qwen3)


def _tiny_gemma3(patched):
    """A 2-layer Gemma3 text model with SDPA attention: its q/k norms run after the transpose, on
    the [B, H, S, D] view of [B, S, H, D] storage, and attention's output follows q's layout; a
    norm output in another memory order than its input makes transformers copy it before o_proj
    (an extra saved activation per layer). 2 layers x (4 norms + q/k) + the final norm."""
    import transformers as T
    cfg = T.Gemma3TextConfig(vocab_size=128, hidden_size=128, intermediate_size=96,
                             num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=1,
                             head_dim=32, max_position_embeddings=64, sliding_window=8,
                             pad_token_id=0)
    return _tiny_model(patched, cfg, T.Gemma3ForCausalLM, "sdpa", "no copies gemma3", 2 * 6 + 1)


def test_compiled_patched_gemma3_adds_no_copy():
    """Compiled (fullgraph) patched Gemma3 step: no copy op inside any fusednorm op, and the AOT
    graphs hold no more copy nodes than the stock model's (the q/k norms' outputs keep their
    input's memory order, so attention's output needs no extra copy)."""
    _assert_adds_no_copy(_tiny_gemma3)


def _step_copies(model):
    """Copies in the profile of one compiled training step (after a warm-up step): on CUDA the
    copy kernels (names with "copy", e.g. direct_copy_kernel) of an Inductor-compiled step; on
    the CPU the aten copy ops of an aot_eager step (Inductor's CPU build is too slow for CI)."""
    cuda = DEVICE.startswith("cuda")
    torch._dynamo.reset()
    comp = torch.compile(model, fullgraph=True, backend="inductor" if cuda else "aot_eager")
    ids = torch.randint(3, 128, (2, 16), device=DEVICE)

    def step():
        model.zero_grad(set_to_none=True)
        comp(input_ids=ids, labels=ids).loss.backward()
    step()
    acts = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if cuda else [])
    with torch.profiler.profile(activities=acts) as prof:
        step()
        if cuda:
            torch.cuda.synchronize()
    if cuda:
        return [e.name for e in prof.events()
                if e.device_type == torch.autograd.DeviceType.CUDA and "copy" in e.name.lower()]
    return [e.name for e in prof.events() if e.name in _COPY_OPS]


def test_compiled_step_copies_not_above_stock():
    """The profile of a compiled patched Qwen3 step has no more copies than the stock model's
    (CUDA: copy kernels of the Inductor step; CPU: aten copy ops)."""
    stock = _step_copies(_tiny_qwen3(False).to(DEVICE))
    patched = _step_copies(_tiny_qwen3(True).to(DEVICE))
    print(f"copies in a compiled step ({DEVICE}): stock {len(stock)}, patched {len(patched)}")
    assert len(patched) <= len(stock), (sorted(patched), sorted(stock))


if __name__ == "__main__":
    sys.exit(harness.main(globals()))
