"""patch_hf by meaning over the Hugging Face model families of transformers (tiny random models).

For each family of FAMILIES: a tiny random-init model (built from a config, no download) with its
norm weights randomized, a deep copy patched by fusednorm.patch_hf; the test checks
  * the number of modules patched and that nothing RMSNorm-like was left alone (or exactly the
    modules the table says are left alone, e.g. gated norms),
  * the configuration the probe found (casting, offset, eps) against the family's source code,
  * logits, loss and the gradient of every parameter against the stock model, in fp32 and bf16,
    with test_hf's tolerances (its docstring gives their reasons; a control there shows that a
    wrong offset/casting fails them),
  * every patched class against its stock module for every (x dtype, weight dtype) pair: same
    output dtype (Llama-style modules return promote_types(x, weight)) and values within a
    rounding of the coarser of x's dtype and the output dtype.
Run: FUSEDNORM_LIBRARY=... PYTHONPATH=shim/python python3 shim/tests/test_hf_families.py [-k qwen]
"""

import copy
import inspect
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import fusednorm  # noqa: E402
import harness  # noqa: E402
from test_hf import compare, forward_backward  # noqa: E402

DEVICE = "cpu"
BASE = dict(vocab_size=128, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
            pad_token_id=0, bos_token_id=1, eos_token_id=2)
MOE = dict(num_experts=4, num_experts_per_tok=2)
L = BASE["num_hidden_layers"]
LLAMA, GEMMA, FP32 = ("llama", 0.0), ("gemma", 1.0), ("fp32", 0.0)


def nemotron_h_casting():
    """NemotronHRMSNorm's formula differs between transformers releases: 5.17 returns
    weight * x.to(dtype) (Llama's), 5.23 multiplies in fp32 and casts the product. The expectation
    follows the installed class's own source (the logits and gradients are compared with stock's
    either way); a third formula fails here, by name."""
    from transformers.models.nemotron_h import modeling_nemotron_h
    src = inspect.getsource(modeling_nemotron_h.NemotronHRMSNorm.forward)
    if "(self.weight.to(torch.float32) * hidden_states).to(input_dtype)" in src:
        return FP32
    if "self.weight * hidden_states.to(input_dtype)" in src:
        return LLAMA
    raise AssertionError(f"NemotronHRMSNorm.forward is neither formula this test knows:\n{src}")


# family: (config class, model class, config overrides, norms patched, (casting, offset), eps,
#          left alone: number of modules patch_hf must report and leave)
FAMILIES = {
    "llama": ("LlamaConfig", "LlamaForCausalLM", {}, 2 * L + 1, LLAMA, 1e-6, 0),
    "llama4_text": ("Llama4TextConfig", "Llama4ForCausalLM",
                    dict(num_local_experts=4, num_experts_per_tok=1, intermediate_size_mlp=96,
                         head_dim=16, rms_norm_eps=1e-5), 3 * L + 1, LLAMA, 1e-5, 0),  # + qk L2Norm
    "mistral": ("MistralConfig", "MistralForCausalLM", {}, 2 * L + 1, LLAMA, 1e-6, 0),
    "mixtral": ("MixtralConfig", "MixtralForCausalLM",
                dict(num_local_experts=4, num_experts_per_tok=2), 2 * L + 1, LLAMA, 1e-5, 0),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM", {}, 2 * L + 1, LLAMA, 1e-6, 0),
    "qwen2_moe": ("Qwen2MoeConfig", "Qwen2MoeForCausalLM",
                  dict(moe_intermediate_size=32, shared_expert_intermediate_size=32, **MOE),
                  2 * L + 1, LLAMA, 1e-6, 0),
    "qwen3": ("Qwen3Config", "Qwen3ForCausalLM", dict(head_dim=16), 4 * L + 1, LLAMA, 1e-6, 0),
    "qwen3_moe": ("Qwen3MoeConfig", "Qwen3MoeForCausalLM",
                  dict(head_dim=16, moe_intermediate_size=32, **MOE), 4 * L + 1, LLAMA, 1e-6, 0),
    "gemma": ("GemmaConfig", "GemmaForCausalLM", dict(head_dim=16), 2 * L + 1, GEMMA, 1e-6, 0),
    "gemma2": ("Gemma2Config", "Gemma2ForCausalLM", dict(head_dim=16), 4 * L + 1, GEMMA, 1e-6, 0),
    "gemma3": ("Gemma3TextConfig", "Gemma3ForCausalLM", dict(head_dim=16), 6 * L + 1, GEMMA, 1e-6,
               0),
    "phi3": ("Phi3Config", "Phi3ForCausalLM", {}, 2 * L + 1, LLAMA, 1e-5, 0),
    "granite": ("GraniteConfig", "GraniteForCausalLM", {}, 2 * L + 1, LLAMA, 1e-6, 0),
    "granitemoe": ("GraniteMoeConfig", "GraniteMoeForCausalLM",
                   dict(num_local_experts=4, num_experts_per_tok=2), 2 * L + 1, LLAMA, 1e-6, 0),
    "olmo2": ("Olmo2Config", "Olmo2ForCausalLM", {}, 4 * L + 1, FP32, 1e-5, 0),
    "olmo3": ("Olmo3Config", "Olmo3ForCausalLM", {}, 4 * L + 1, FP32, 1e-5, 0),
    "deepseek_v3": ("DeepseekV3Config", "DeepseekV3ForCausalLM",
                    dict(num_key_value_heads=4, n_routed_experts=4, num_experts_per_tok=2,
                         moe_intermediate_size=32, q_lora_rank=32, kv_lora_rank=16,
                         qk_rope_head_dim=8, qk_nope_head_dim=8, v_head_dim=16,
                         first_k_dense_replace=1, n_group=1, topk_group=1),
                    2 * L + 1 + 2 * L, LLAMA, 1e-6, 0),   # + q_a_layernorm, kv_a_layernorm
    "glm4": ("Glm4Config", "Glm4ForCausalLM", dict(rms_norm_eps=1e-5), 4 * L + 1, LLAMA, 1e-5, 0),
    "smollm3": ("SmolLM3Config", "SmolLM3ForCausalLM", {}, 2 * L + 1, LLAMA, 1e-6, 0),
    "gpt_oss": ("GptOssConfig", "GptOssForCausalLM",
                dict(num_local_experts=4, num_experts_per_tok=2, head_dim=16, sliding_window=8),
                2 * L + 1, FP32, 1e-5, 0),
    "helium": ("HeliumConfig", "HeliumForCausalLM", dict(head_dim=16), 2 * L + 1, FP32, 1e-8, 0),
    "ernie4_5": ("Ernie4_5Config", "Ernie4_5ForCausalLM", dict(head_dim=16), 2 * L + 1, LLAMA,
                 1e-5, 0),
    "exaone4": ("Exaone4Config", "Exaone4ForCausalLM", {}, 4 * L + 1, LLAMA, 1e-5, 0),
    "arcee": ("ArceeConfig", "ArceeForCausalLM", {}, 2 * L + 1, LLAMA, 1e-5, 0),
    "seed_oss": ("SeedOssConfig", "SeedOssForCausalLM", dict(head_dim=16), 2 * L + 1, LLAMA, 1e-6,
                 0),
    # The mixers' weightless norms keep an unused weight buffer (probed, patched without it); one
    # eps for both kinds of norm, as the table has one.
    "falcon_mamba": ("FalconMambaConfig", "FalconMambaForCausalLM",
                     dict(state_size=8, expand=2, conv_kernel=4, time_step_rank=8, layer_norm_epsilon=1e-6,
                          mixer_rms_eps=1e-6), 4 * L + 1, LLAMA, 1e-6, 0),
    # Mamba2 mixers' gated norms (forward(hidden_states, gate)) are left alone, by reason.
    "nemotron_h": ("NemotronHConfig", "NemotronHForCausalLM", {}, None, nemotron_h_casting, 1e-5, "gated"),
    # T5's LayerNorm is an RMSNorm returning the weight's dtype: no fusednorm configuration.
    "t5": ("T5Config", "T5ForConditionalGeneration",
           dict(d_model=64, d_kv=16, d_ff=96, num_layers=1, num_decoder_layers=1, num_heads=4),
           0, None, None, "all"),
}


def build(family):
    import transformers as T
    cname, mname, over = FAMILIES[family][:3]
    cfg = getattr(T, cname)(**{**BASE, **over})
    cfg._attn_implementation = "eager"
    model = getattr(T, mname)(cfg).to(DEVICE).eval()  # eval: no dropout; gradients still flow
    with torch.no_grad():
        for m in model.modules():
            w = getattr(m, "weight", None)
            if "norm" in type(m).__name__.lower() and isinstance(w, torch.nn.Parameter) \
                    and w.dim() == 1:
                w.add_(0.3 * torch.randn_like(w))  # around 1 (Llama) or 0 (Gemma: 1 + w)
    return model


def _routing_hooks(model, record):
    """Forward hooks recording every MoE routing decision (the experts chosen per token) into
    `record`: the integer outputs of router modules (class name with "Router", or a submodule named
    gate / router), or the top-k of their logits where they return logits only."""
    cfg = model.config
    experts = next((getattr(cfg, a) for a in ("num_experts", "num_local_experts", "n_routed_experts")
                    if isinstance(getattr(cfg, a, None), int)), None)
    k = getattr(cfg, "num_experts_per_tok", None)

    def hook(_m, _inp, out):
        outs = out if isinstance(out, (tuple, list)) else (out,)
        ints = [o for o in outs if torch.is_tensor(o) and not o.is_floating_point()]
        if ints:
            record.extend(o.detach().sort(dim=-1).values for o in ints)
        elif experts and k and torch.is_tensor(outs[0]) and outs[0].shape[-1] == experts:
            record.append(outs[0].detach().float().topk(k, dim=-1).indices.sort(dim=-1).values)

    return [m.register_forward_hook(hook) for name, m in model.named_modules()
            if name and ("Router" in type(m).__name__ or name.rsplit(".", 1)[-1] in ("gate", "router"))]


def run_batch(model, family, dtype):
    ids = torch.randint(3, 128, (2, 12), device=DEVICE)
    extra = {"decoder_input_ids": ids} if family == "t5" else {}
    model.zero_grad(set_to_none=True)
    routes = []
    hooks = _routing_hooks(model, routes)
    try:
        with torch.autocast("cpu", enabled=False):
            out = model(input_ids=ids, labels=ids, **extra)
    finally:
        for h in hooks:
            h.remove()
    out.loss.backward()
    grads = {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}
    return out.logits.detach(), out.loss.detach(), grads, routes


# Inputs tried per (family, dtype) before a routing difference counts as a failure (below).
ROUTING_TRIES = 6


def check_family(family):
    _, _, _, count, cfg_expect, eps, left = FAMILIES[family]
    if callable(cfg_expect):  # a family whose formula depends on the transformers release
        cfg_expect = cfg_expect()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for dtype in (torch.float32, torch.bfloat16):
            seed = harness.seed_for(f"{family} {dtype}")
            torch.manual_seed(seed)
            ref = build(family).to(dtype)
            patched = copy.deepcopy(ref)
            report = fusednorm.patch_hf(patched, warn_unknown=False)
            if left == "all":
                assert len(report) == 0 and report.unknown, report
                print(f"  {family}: left alone as expected: {sorted(set(report.unknown.values()))}")
                return
            if left == "gated":
                assert report.unknown and all("forward takes more than the input" in v
                                              for v in report.unknown.values()), report
            else:
                assert not report.unknown, report.unknown
            if count is not None:
                assert len(report) == count, f"{family}: patched {len(report)}, expected {count}"
            assert len(report) > 0
            for name, c in report.config.items():
                # a weight Parameter: the family's formula; none, or a buffer the formula ignores
                # (Falcon-Mamba): the weightless one
                has_w = isinstance(getattr(patched.get_submodule(name), "weight", None), torch.nn.Parameter)
                want = (*cfg_expect, eps) if has_w else ("fp32", 0.0, eps)  # weightless L2Norm
                assert (c.casting, c.offset, c.eps) == want and c.weight == has_w, \
                    f"{family} {name}: {c}"
                assert isinstance(patched.get_submodule(name), fusednorm.RMSNorm)
            assert list(patched.state_dict()) == list(ref.state_dict()), "state_dict keys changed"
            # An MoE router's top-k is a discrete choice: where two experts' logits tie within
            # the norm's rounding, stock and patched may route a token differently, and the
            # experts' gradients then differ by whole tokens (qwen3_moe bf16 at seed 71350: 0.33
            # max rel on one expert's down_proj, logits within tolerance). The gradients are
            # compared on an input whose routing the two models share; the next input is drawn
            # (its seed printed) when it is not, and a difference at every one of ROUTING_TRIES
            # inputs fails. Models without routers record nothing and take the first input.
            for attempt in range(ROUTING_TRIES):
                s_in = seed + 1 + 7919 * attempt
                torch.manual_seed(s_in)
                a = run_batch(ref, family, dtype)
                torch.manual_seed(s_in)
                b = run_batch(patched, family, dtype)
                same = len(a[3]) == len(b[3]) and all(torch.equal(x, y) for x, y in zip(a[3], b[3]))
                if same:
                    break
                print(f"  {family} {dtype}: input seed {s_in}: stock and patched route a token to "
                      "different experts (a near-tie of router logits); next input")
            assert same, f"{family} {dtype}: routing differs at every one of {ROUTING_TRIES} inputs"
            if a[3]:
                print(f"  {family} {dtype}: {len(a[3])} routing decisions shared (input seed {s_in})")
            why = compare(a[:3], b[:3], dtype, f"{family} {dtype} ({len(report)} norms)")
            assert why is None, why
        check_module_dtypes(family, ref, patched)


def check_module_dtypes(family, ref, patched):
    """Each patched class against its stock module, every x dtype x weight dtype."""
    dts = (torch.float32, torch.bfloat16, torch.float16)
    seen = set()
    for name, m in patched.named_modules():
        if not isinstance(m, fusednorm.hf.PatchedRMSNorm) or type(m) in seen:
            continue
        seen.add(type(m))
        stock = ref.get_submodule(name)
        if getattr(m, "weight", None) is None:
            for xd in dts:
                x = torch.randn(5, 64, device=DEVICE).to(xd)
                ys, yp = stock(x), m(x)
                assert ys.dtype == yp.dtype == xd, f"{family} {name}: {yp.dtype} vs {ys.dtype}"
            continue
        for wd in dts:
            s, p = copy.deepcopy(stock).to(wd), copy.deepcopy(m).to(wd)
            for xd in dts:
                x = torch.randn(5, m.weight.shape[0], device=DEVICE).to(xd)
                ys, yp = s(x), p(x)
                assert ys.dtype == yp.dtype, f"{family} {name}: x {xd} w {wd}: {yp.dtype} vs {ys.dtype}"
                # Different summation orders move rstd by an fp32 ulp or so; at a rounding
                # boundary of the output dtype that is one ulp of it (two for Llama's two
                # roundings): 2^-20 (8 fp32 ulps), 2^-6 and 2^-8 (2 ulps of bf16 and fp16).
                ulp = {torch.float32: 2 ** -20, torch.bfloat16: 2 ** -6, torch.float16: 2 ** -8}
                err = ((yp.double() - ys.double()).abs() / ys.double().abs().clamp_min(1e-3)).max()
                # Llama-style modules round the normalized value to x's dtype before the
                # weight, so a flipped rounding costs an ulp of x's dtype even in an fp32 output.
                tol = max(ulp[ys.dtype], ulp[xd])
                assert err <= tol, f"{family} {name}: x {xd} w {wd}: rel err {err:.3g}"


for _family in FAMILIES:
    globals()[f"test_{_family}"] = (lambda f: lambda: check_family(f))(_family)


if __name__ == "__main__":
    sys.exit(harness.main(globals()))
