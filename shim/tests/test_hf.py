"""fusednorm.patch_hf on tiny random-init Hugging Face Llama, Qwen3 (QK-norm) and Gemma3 models.

For each architecture and dtype: a reference model (stock HF RMSNorm) and a deep copy patched with
patch_hf get the same batch; logits, loss and the gradient of every parameter must agree within
the per-dtype tolerances below. The norm weights are randomized first (HF initializes them to 1
or 0, which would hide a wrong offset or a dropped weight).

Tolerances (relative to the reference tensor's max |value|, and relative L2), measured worst over
5 seeds on CPU in brackets:
  fp32: 5e-5 max / 2e-5 L2  [2.5e-6 / 1.4e-6]. The kernels and HF's norm differ only in fp32
        rounding (rsqrt vs 1/sqrt, summation order: ~1e-7 relative per norm); two layers of
        attention/MLP and the backward amplify that on small gradient entries. 20x headroom, and
        still 10^4 below what a wrong offset produces (control: 0.6..1.1).
  bf16: 1e-1 max / 5e-2 L2  [2.6e-2 / 1.6e-2]. Where the fp32 results of HF and fusednorm fall on
        opposite sides of a bf16 rounding boundary, a normalized value differs by one bf16 ulp
        (2^-8 = 0.4%); bf16 matmuls (0.4% rounding per op) and the backward carry that to ~1-3% on
        individual gradients. A wrong offset gives 0.5..1.1.
A control run re-patches with a wrong offset (Gemma) / casting (Llama) and must FAIL these
tolerances, proving they can detect a wrong norm.
Run: FUSEDNORM_LIBRARY=... PYTHONPATH=shim/python python3 shim/tests/test_hf.py [--device cuda]
"""

import copy
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import fusednorm  # noqa: E402
import harness  # noqa: E402

DEVICE = "cpu"
TOL = {torch.float32: (5e-5, 2e-5), torch.bfloat16: (1e-1, 5e-2)}
COMMON = dict(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
              num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)


def make_model(arch):
    import transformers as T
    if arch == "llama":
        cfg = T.LlamaConfig(**COMMON, rms_norm_eps=1e-6)
        cls, per_layer = T.LlamaForCausalLM, 2
    elif arch == "qwen3":
        cfg = T.Qwen3Config(**COMMON, head_dim=16, rms_norm_eps=1e-6)
        cls, per_layer = T.Qwen3ForCausalLM, 4      # + q_norm, k_norm
    else:
        cfg = T.Gemma3TextConfig(**COMMON, head_dim=16, rms_norm_eps=1e-6, sliding_window=8,
                                 query_pre_attn_scalar=16,
                                 layer_types=["sliding_attention", "full_attention"])
        cls, per_layer = T.Gemma3ForCausalLM, 6     # + pre/post feedforward, q_norm, k_norm
    cfg._attn_implementation = "eager"
    model = cls(cfg).to(DEVICE)
    expected = per_layer * cfg.num_hidden_layers + 1  # + the final norm
    with torch.no_grad():
        for name, mod in model.named_modules():
            if type(mod).__name__.endswith("RMSNorm"):
                base = 0.0 if arch == "gemma3" else 1.0
                mod.weight.copy_(base + 0.3 * torch.randn_like(mod.weight))
    return model, expected


def forward_backward(model, ids):
    model.zero_grad(set_to_none=True)
    out = model(input_ids=ids, labels=ids)
    out.loss.backward()
    grads = {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}
    return out.logits.detach(), out.loss.detach(), grads


def errors(a, b):
    a, b = a.double(), b.double()
    scale = b.abs().max().clamp_min(1e-30)
    return float((a - b).abs().max() / scale), float((a - b).norm() / b.norm().clamp_min(1e-30))


# The gradient of a key projection's bias is mathematically zero without RoPE (adding q.b to
# every logit of a query leaves its softmax unchanged) and nearly so with it: in bf16 both runs
# give rounding noise of that near-zero, which no relative tolerance can judge. fp32 judges it.
NOISE_ONLY_BF16 = ("k_proj.bias",)


def compare(ref, got, dtype, what):
    """None if every tensor is within tolerance, else the first offender."""
    tmax, tl2 = TOL[dtype]
    (rl, rloss, rg), (gl, gloss, gg) = ref, got
    assert set(rg) == set(gg), f"{what}: different parameters got gradients"
    worst = (0.0, 0.0, "")
    judged = [n for n in sorted(rg)
              if dtype == torch.float32 or not n.endswith(NOISE_ONLY_BF16)]
    for name, a, b in [("logits", gl, rl), ("loss", gloss.reshape(1), rloss.reshape(1))] + \
            [(f"grad {n}", gg[n], rg[n]) for n in judged]:
        emax, el2 = errors(a, b)
        if emax > worst[0]:
            worst = (emax, el2, name)
        if emax > tmax or el2 > tl2:
            return f"{what}: {name}: max rel {emax:.3g} (tol {tmax}), L2 rel {el2:.3g} (tol {tl2})"
    print(f"  {what}: worst {worst[2]}: max rel {worst[0]:.2e}, L2 rel {worst[1]:.2e}")
    return None


def check_arch(arch):
    for dtype in (torch.float32, torch.bfloat16):
        torch.manual_seed(harness.seed_for(f"{arch} {dtype}"))
        ref, expected = make_model(arch)
        ref = ref.to(dtype)
        patched = copy.deepcopy(ref)
        final_weight = patched.model.norm.weight
        report = fusednorm.patch_hf(patched)
        assert len(report) == expected, f"{arch}: replaced {len(report)}, expected {expected}: {report}"
        assert not report.unknown, report.unknown
        assert isinstance(patched.model.norm, fusednorm.RMSNorm)
        assert patched.model.norm.weight is final_weight, "patch_hf must keep the Parameter object"
        assert list(patched.state_dict()) == list(ref.state_dict()), "state_dict keys changed"
        qk = [n for n in report.replaced if n.endswith(("q_norm", "k_norm"))]
        assert (len(qk) == 2 * ref.config.num_hidden_layers) == (arch != "llama"), qk
        offset, casting = (1.0, "gemma") if arch == "gemma3" else (0.0, "llama")
        assert all(m.offset == offset and m.casting == casting
                   for m in patched.modules() if isinstance(m, fusednorm.RMSNorm))
        ids = torch.randint(0, ref.config.vocab_size, (2, 24), device=DEVICE)
        a = forward_backward(ref, ids)
        b = forward_backward(patched, ids)
        why = compare(a, b, dtype, f"{arch} {dtype}")
        assert why is None, why
        # Control: a wrong offset (Gemma) or casting+offset (Llama/Qwen) must be caught.
        for m in patched.modules():
            if isinstance(m, fusednorm.RMSNorm):
                m.offset = 0.0 if arch == "gemma3" else 0.5
        c = forward_backward(patched, ids)
        control = compare(a, c, dtype, f"{arch} {dtype} control")
        assert control is not None, f"{arch} {dtype}: tolerances too loose to see a wrong offset"
        print(f"  control (wrong offset) caught: {control}")


def test_llama():
    check_arch("llama")


def test_qwen3_qk_norm():
    check_arch("qwen3")


def test_gemma3_offset_one():
    check_arch("gemma3")


def test_unknown_classes_reported_and_left_alone():
    model, _ = make_model("llama")
    model.extra = torch.nn.RMSNorm(64)  # an RMSNorm by meaning: patched (torch's formula = fp32)

    class MyRMSNorm(torch.nn.Module):  # looks like one, but has no forward
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.ones(64))
            self.eps = 1e-6
    model.model.layers[0].custom = MyRMSNorm()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = fusednorm.patch_hf(model)
    assert set(report.unknown) == {"model.layers.0.custom"}, report.unknown
    assert "forward takes no input" in report.unknown["model.layers.0.custom"]
    assert report.config["extra"].casting == "fp32" and report.config["extra"].eps is None
    assert isinstance(model.extra, torch.nn.RMSNorm) and isinstance(model.extra, fusednorm.RMSNorm)
    assert type(model.model.layers[0].custom).__name__ == "MyRMSNorm"
    assert any("left alone" in str(w.message) for w in caught), [str(w.message) for w in caught]
    assert len(fusednorm.patch_hf(model, warn_unknown=False)) == 0, "second patch replaces nothing"


class _Norm(torch.nn.Module):
    """A hand-written norm whose formula (body) the probe must recognise or refuse."""

    def __init__(self, body, n=48, weight=True, **attrs):
        super().__init__()
        self.weight = torch.nn.Parameter(1 + 0.1 * torch.randn(n)) if weight else None
        self.body = body
        for k, v in attrs.items():
            setattr(self, k, v)

    def forward(self, x):
        return self.body(self, x)


def _rstd(x, eps):
    return torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps)


def test_probe_by_meaning():
    """The probe matches formulas, whatever the class or attribute names, and refuses what
    fusednorm does not compute (each with its reason)."""
    cases = {
        # name: (module, expected NormConfig fields or None = left alone, reason needle)
        "llama_norm_eps": (_Norm(lambda m, x: m.weight * (x.float() * _rstd(x, m.norm_eps)).to(x.dtype),
                                 norm_eps=1e-5), ("llama", 0.0, True, True, 1e-5), None),
        "olmo_epsilon": (_Norm(lambda m, x: (m.weight * (x.float() * _rstd(x, m.epsilon))).to(x.dtype),
                               epsilon=1e-6), ("fp32", 0.0, True, False, 1e-6), None),
        "gemma": (_Norm(lambda m, x: (x.float() * _rstd(x, m.eps) * (1.0 + m.weight.float())).type_as(x),
                        eps=1e-6), ("gemma", 1.0, True, False, 1e-6), None),
        "weightless": (_Norm(lambda m, x: (x.float() * _rstd(x, m.eps)).type_as(x), weight=False,
                             eps=1e-6), ("fp32", 0.0, False, False, 1e-6), None),
        # eps inside the mean's divisor, not added to it: no configuration
        "eps_elsewhere": (_Norm(lambda m, x: (m.weight * x.float() / (x.float().pow(2).mean(
            -1, keepdim=True).sqrt() + m.eps)).to(x.dtype), eps=1e-6), None, "bit for bit"),
        # the weight added in bf16 before the upcast (1 + w rounded): not fusednorm's fp32 (1 + w)
        "offset_rounded": (_Norm(lambda m, x: (x.float() * _rstd(x, m.eps) * (1.0 + m.weight.to(x.dtype)).float()).type_as(x),
                                 eps=1e-6), None, "bit for bit"),
        # a different eps attribute than the formula uses
        "wrong_eps": (_Norm(lambda m, x: (m.weight * (x.float() * _rstd(x, 1e-3))).to(x.dtype), eps=1e-6),
                      None, "bit for bit"),
    }
    model = torch.nn.Module()
    for name, (mod, _, _) in cases.items():
        model.add_module(name, mod)

    class GatedRMSNorm(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.ones(48))
            self.variance_epsilon = 1e-6

        def forward(self, hidden_states, gate=None):
            return hidden_states
    model.gated = GatedRMSNorm()
    model.ln = torch.nn.LayerNorm(48, bias=False)
    report = fusednorm.patch_hf(model, warn_unknown=False)
    for name, (mod, want, needle) in cases.items():
        if want is None:
            assert needle in report.unknown.get(name, ""), (name, report.unknown)
        else:
            c = report.config.get(name)
            assert c is not None and (c.casting, c.offset, c.weight, c.promote, c.eps) == want, \
                (name, c, report.unknown.get(name))
    assert "forward takes more than the input (hidden_states, gate)" in report.unknown["gated"]
    assert "bit for bit" in report.unknown["ln"]
    # and the patched ones still compute what they did
    x = torch.randn(3, 48).to(torch.bfloat16)
    for name, (mod, want, _) in cases.items():
        if want is not None:
            ref = mod.body(mod, x)
            got = mod(x)
            assert got.dtype == ref.dtype and (got.float() - ref.float()).abs().max() <= \
                2 ** -6 * ref.float().abs().max(), name


def test_weightless_torch_rmsnorm_of_its_own_width():
    """A weightless torch.nn.RMSNorm accepts rows of its normalized_shape only (DiffLlama's
    groupnorm: 2 * head_dim): the probe runs it at that width and patches it; once patched it
    refuses other widths as the stock module does. One over two dimensions stays as it is."""
    model = torch.nn.Module()
    model.own = torch.nn.RMSNorm(32, eps=1e-5, elementwise_affine=False)
    model.two_dims = torch.nn.RMSNorm((4, 8), eps=1e-5, elementwise_affine=False)
    stock = copy.deepcopy(model)
    report = fusednorm.patch_hf(model, warn_unknown=False)
    c = report.config.get("own")
    assert c is not None and (c.casting, c.weight, c.eps) == ("fp32", False, 1e-5), (c, report.unknown)
    assert "two_dims" in report.unknown and "forward failed on the probe" in report.unknown["two_dims"]
    assert isinstance(model.own, fusednorm.RMSNorm) and model.own.normalized_shape == (32,)
    for dt in (torch.float32, torch.bfloat16):  # the same formula; the sum's order may differ
        x = (3 * torch.randn(5, 7, 32)).to(dt)
        got, ref = model.own(x), stock.own(x)
        u = torch.finfo(dt).eps
        assert got.dtype == ref.dtype and (got.float() - ref.float()).abs().max() <= 2 * u * ref.float().abs().max(), dt
    for bad in (torch.randn(5, 33), torch.randn(5, 64)):
        for m in (stock.own, model.own):
            try:
                m(bad)
            except RuntimeError:
                continue
            raise AssertionError(f"{type(m).__name__} accepted rows of {bad.shape[-1]}")


def test_weight_buffers():
    """A weight held as a buffer is probed as a weight: patched with it where the formula uses it
    (and it stays a buffer: no gradient), without it where the formula ignores it (Falcon-Mamba's
    weightless norms); any other buffer leaves the module alone."""
    class BufRMSNorm(torch.nn.Module):
        def __init__(self, use, extra=None):
            super().__init__()
            self.use, self.eps = use, 1e-6
            self.register_buffer("weight", 1 + 0.1 * torch.randn(40), persistent=False)
            if extra:
                self.register_buffer(extra, torch.zeros(40))

        def forward(self, x):
            y = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + self.eps)
            return ((self.weight * y) if self.use else y).type_as(x)
    model = torch.nn.Module()
    model.used, model.unused = BufRMSNorm(True), BufRMSNorm(False)
    model.stats = BufRMSNorm(True, extra="running")
    stock = copy.deepcopy(model)
    report = fusednorm.patch_hf(model, warn_unknown=False)
    assert (report.config["used"].weight, report.config["unused"].weight) == (True, False), report.config
    assert report.unknown.get("stats", "").endswith(": has buffers"), report.unknown
    assert "weight" in dict(model.used.named_buffers()) and not list(model.used.parameters())
    x = (3 * torch.randn(6, 40)).requires_grad_()
    for name in ("used", "unused"):
        got, ref = getattr(model, name)(x), getattr(stock, name)(x)
        assert (got - ref).abs().max() <= 2 * torch.finfo(torch.float32).eps * ref.abs().max(), name
    x24 = torch.randn(6, 24)  # the ignored weight sets no width: the stock module takes any
    assert (model.unused(x24) - stock.unused(x24)).abs().max() <= 1e-6 * stock.unused(x24).abs().max()
    model.used(x).sum().backward()  # a buffer weight takes no gradient; x does
    assert x.grad is not None and model.used.weight.grad is None


def test_patch_hf_classes_before_the_model_exists():
    """patch_hf_classes(): models built inside the block, by a constructor or by from_pretrained
    (save_pretrained to a temp dir, loaded back), come out patched with the saved weights; models
    built after the block are stock."""
    import tempfile

    import transformers as T
    torch.manual_seed(harness.seed_for("classes"))
    stock, expected = make_model("qwen3")
    stock.eval()
    ids = torch.randint(0, stock.config.vocab_size, (2, 16), device=DEVICE)
    with torch.no_grad():
        ref = stock(input_ids=ids).logits

    def patched_count(m):
        return sum(isinstance(x, fusednorm.RMSNorm) for x in m.modules())
    with tempfile.TemporaryDirectory() as d:
        stock.save_pretrained(d)
        with fusednorm.patch_hf_classes():
            loaded = T.AutoModelForCausalLM.from_pretrained(d, attn_implementation="eager")
            report = fusednorm.hf.last_report
            built = T.Qwen3ForCausalLM(stock.config)
            with fusednorm.patch_hf_classes():  # nests
                pass
            assert patched_count(T.Qwen3ForCausalLM(stock.config)) == expected, "nesting undid it"
        after = T.AutoModelForCausalLM.from_pretrained(d, attn_implementation="eager")
    # the inner Qwen3Model's post_init patched them, the outer one finds them patched
    assert patched_count(loaded) == expected, patched_count(loaded)
    assert len(report.replaced) + len(report.already) == expected == len(report.config), report
    assert patched_count(built) == expected
    assert patched_count(after) == 0, "the patch must end with the block"
    sd, ld = stock.state_dict(), loaded.state_dict()
    assert list(sd) == list(ld) and all(torch.equal(sd[k], ld[k].to(sd[k].device)) for k in sd)
    loaded.to(DEVICE).eval()
    with torch.no_grad():
        got = loaded(input_ids=ids).logits
    err = ((got - ref).abs().max() / ref.abs().max()).item()
    assert err <= TOL[torch.float32][0], err


def _liger_formula(x, w, eps, offset, casting_mode):
    """LigerRMSNorm's forward as its Triton kernel computes it (liger_kernel/ops/rms_norm.py),
    written in torch so that it runs on the CPU."""
    xf = x.float()
    rstd = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    if casting_mode == "llama":
        return (xf * rstd).to(x.dtype).float().mul(offset + w.float()).to(x.dtype)
    return (xf * rstd * (offset + w.float())).to(x.dtype)


def test_liger_modules_are_patched():
    """LigerRMSNorm modules (class-level: Liger's own class; instance-level: what
    apply_liger_kernel_to_llama(model=...) binds) are patched by their attributes and named in
    report.liger; casting_mode "none" is left alone with the reason. On the CPU the result is
    judged against Liger's formula written in torch; on CUDA also against Liger's own kernel,
    forward and backward."""
    try:
        from liger_kernel.transformers import apply_liger_kernel_to_llama
        from liger_kernel.transformers.rms_norm import LigerRMSNorm
    except ImportError as e:
        raise AssertionError(f"liger-kernel is a test dependency (tools/requirements.txt): {e}")
    torch.manual_seed(harness.seed_for("liger"))
    model, expected = make_model("llama")
    apply_liger_kernel_to_llama(rope=False, cross_entropy=False, fused_linear_cross_entropy=False,
                                swiglu=False, rms_norm=True, model=model)
    assert "forward" in model.model.norm.__dict__, "Liger's instance patch did not happen"
    model.gem = LigerRMSNorm(64, eps=1e-6, offset=1.0, casting_mode="gemma", init_fn="zeros")
    model.none = LigerRMSNorm(64, casting_mode="none")
    with torch.no_grad():
        model.gem.weight.normal_(0, 0.3)
    model.to(DEVICE)
    if DEVICE.startswith("cuda"):
        kept = {n: copy.deepcopy(m) for n, m in model.named_modules() if n in ("model.norm", "gem")}
    report = fusednorm.patch_hf(model, warn_unknown=False)
    assert len(report.liger) == expected + 1 == len(report), report
    assert "casting_mode 'none'" in report.unknown["none"], report.unknown
    assert "forward" not in model.model.norm.__dict__, "Liger's bound forward must go"
    assert report.config["model.norm"].casting == "llama" and report.config["gem"].casting == "gemma"
    assert "LigerRMSNorm" in str(report)
    # Liger applied again after patch_hf binds its forward back in; patch_hf takes it back again
    apply_liger_kernel_to_llama(rope=False, cross_entropy=False, fused_linear_cross_entropy=False,
                                swiglu=False, rms_norm=True, model=model)
    assert "forward" in model.model.norm.__dict__
    again = fusednorm.patch_hf(model, warn_unknown=False)
    assert len(again.liger) == expected and "forward" not in model.model.norm.__dict__, again
    for name, eps, offset, mode in (("model.norm", 1e-6, 0.0, "llama"), ("gem", 1e-6, 1.0, "gemma")):
        mod = model.get_submodule(name)
        for dtype in (torch.float32, torch.bfloat16):
            x = torch.randn(6, 64, device=DEVICE).to(dtype)
            m = copy.deepcopy(mod).to(dtype)
            ref = _liger_formula(x, m.weight, eps, offset, mode)
            got = m(x)
            tol = 2 ** -20 if dtype == torch.float32 else 2 ** -6
            assert got.dtype == ref.dtype and (got.float() - ref.float()).abs().max() <= \
                tol * ref.float().abs().max(), (name, dtype)
            if DEVICE.startswith("cuda"):
                lig = kept[name].to(dtype)
                xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
                ya, yb = lig(xa), m(xb)
                dy = torch.randn_like(ya)
                ya.backward(dy.clone())  # Liger's backward may write into dy (in_place)
                yb.backward(dy.clone())
                for what, a, b in (("y", yb, ya), ("dx", xb.grad, xa.grad)):
                    err = ((a.float() - b.float()).abs().max() / b.float().abs().max()).item()
                    assert err <= 5e-2 if dtype == torch.bfloat16 else err <= 1e-4, \
                        (name, dtype, what, err, a.dtype, b.dtype)
                # dw against float64 sum(dy * n), n the normalized value the formula multiplies
                # by w (rounded to x's dtype for llama): Liger's own bf16 dw is far from it on
                # these shapes (printed, not judged), so it is no reference for ours.
                xf = x.float()
                h = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
                n = h.to(dtype).double() if mode == "llama" else h.double()
                dw_ref = (dy.double() * n).sum(0)
                scale = dw_ref.abs().max()
                err = ((m.weight.grad.double() - dw_ref).abs().max() / scale).item()
                lig_err = ((lig.weight.grad.double() - dw_ref).abs().max() / scale).item()
                print(f"  liger {name} {dtype}: dw rel err fusednorm {err:.2e}, liger {lig_err:.2e}")
                assert err <= (2 ** -7 if dtype == torch.bfloat16 else 1e-5), (name, dtype, "dw", err)


if __name__ == "__main__":
    sys.exit(harness.main(globals()))
