#!/usr/bin/env python3
"""Survey of patch_hf over every transformers family that test_hf_families.py does not cover (CPU).

    FUSEDNORM_LIBRARY=... PYTHONPATH=shim/python python3 shim/tools/hf_survey.py [FAMILY ...]

A program, not a test: each family of the installed transformers whose modeling file defines a
class named *RMSNorm and that is not in test_hf_families.FAMILIES is built as a causal LM from its
default config shrunk (SMALL below; random init, no download), its norm weights randomized, run
before and after fusednorm.patch_hf on one batch, and one line printed: the modules patched, those
left alone (with the probe's reasons), the decoder layers whose residual add was fused, the logits' relative L2 difference
and the worst parameter gradient's (fp32, the causal-LM loss). Each family runs
in a child process of at most 12 GB and 120 s: a default config that will not shrink is named, not
fatal. Families that are not causal LMs, or whose shrunk config does not run stock, are named too.
Exit: 0 (the lines say what ran), 2 bad usage.
"""
import copy
import os
import re
import resource
import subprocess
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
SMALL = dict(vocab_size=128, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
             num_key_value_heads=2, max_position_embeddings=64, pad_token_id=0, bos_token_id=1, eos_token_id=2,
             head_dim=16, num_experts=4, num_local_experts=4, n_routed_experts=4, num_experts_per_tok=2,
             moe_intermediate_size=32, shared_expert_intermediate_size=32, intermediate_size_mlp=96,
             q_lora_rank=32, kv_lora_rank=16, qk_rope_head_dim=8, qk_nope_head_dim=8, v_head_dim=16, n_group=1,
             topk_group=1, first_k_dense_replace=1, sliding_window=8, linear_key_head_dim=16,
             linear_value_head_dim=16, linear_num_key_heads=2, linear_num_value_heads=4)


def families():
    import transformers
    sys.path.insert(0, os.path.join(HERE, "..", "tests"))
    import test_hf_families
    root = transformers.models.__path__[0]
    for name in sorted(os.listdir(root)):
        f = os.path.join(root, name, f"modeling_{name}.py")
        if name not in test_hf_families.FAMILIES and os.path.exists(f) and \
                re.search(r"class \w*RMSNorm", open(f).read()):
            yield name


def one(name):
    import torch
    import fusednorm
    from transformers import AutoConfig, AutoModelForCausalLM
    torch.manual_seed(0)
    try:
        cfg = AutoConfig.for_model(name)
    except Exception as e:  # noqa: BLE001 - a survey names what it cannot run
        return f"no config ({type(e).__name__})"
    for k, v in SMALL.items():
        if hasattr(cfg, k) and (getattr(cfg, k) is None or isinstance(getattr(cfg, k), int)):
            setattr(cfg, k, v)
    cfg._attn_implementation = "eager"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = AutoModelForCausalLM.from_config(cfg).float().eval()
    except Exception as e:  # noqa: BLE001
        return f"not built as a causal LM ({type(e).__name__})"
    with torch.no_grad():
        for n, p in model.named_parameters():
            if "norm" in n and p.dim() == 1:
                p.normal_(0.3, 0.5)
    ids = torch.randint(3, 100, (2, 12))
    try:
        with torch.no_grad():
            ref = model(input_ids=ids).logits
    except Exception as e:  # noqa: BLE001
        return f"stock forward failed with the shrunk config ({type(e).__name__})"
    patched = copy.deepcopy(model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = fusednorm.patch_hf(patched)
    why = sorted({v.split(":", 1)[0].rsplit(".", 1)[-1] + ":" + v.split(":", 1)[1][:90]
                  for v in report.unknown.values()})
    try:
        with torch.no_grad():
            got = patched(input_ids=ids).logits
    except Exception as e:  # noqa: BLE001
        return f"patched {len(report)}: PATCHED FORWARD FAILED ({type(e).__name__}: {str(e)[:100]})"
    err = ((got - ref).norm() / ref.norm()).item()
    # every parameter's gradient of the same loss (the fused residual adds' backward included)
    grads = []
    for m in (model, patched):
        m.zero_grad(set_to_none=True)
        m(input_ids=ids, labels=ids).loss.backward()
        grads.append({n: p.grad for n, p in m.named_parameters() if p.grad is not None})
    # relative to the gradient's own norm, floored at 1e-6 of the whole gradient's: a router's
    # gradient can be zero but for rounding (DeepSeek-V4's gate: 3.5e-11 where the others are 1e-2)
    floor = 1e-6 * torch.sqrt(sum(a.double().square().sum() for a in grads[0].values())).item() if grads[0] else 0.0
    gerr, gname = 0.0, "-"
    for n, a in grads[0].items():
        b = grads[1].get(n)
        e = float("inf") if b is None else ((b - a).norm() / a.norm().clamp_min(max(floor, 1e-30))).item()
        if e > gerr:
            gerr, gname = e, n
    fused = len(report.fused.fused) if report.fused is not None and hasattr(report.fused, "fused") else "-"
    return (f"patched {len(report):3d}, left alone {len(report.unknown):2d}, layers with the residual add fused {fused}, "
            f"logits rel L2 {err:.2e}, worst grad rel L2 {gerr:.2e} ({gname}) {why}")


def main(argv):
    if argv[:1] == ["--one"] and len(argv) == 2:
        print(f"{argv[1]:28s} {one(argv[1])}", flush=True)
        return 0
    if any(a.startswith("-") for a in argv):
        print("usage: hf_survey.py [FAMILY ...]   (transformers model types, e.g. glm4_moe)", file=sys.stderr)
        return 2
    for name in argv or list(families()):
        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (12 << 30, 12 << 30))
        try:
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", name], capture_output=True,
                                 text=True, timeout=120, preexec_fn=limit)
            line = [ln for ln in out.stdout.splitlines() if ln.startswith(name)]
            print(line[-1] if line else f"{name:28s} the child failed (rc {out.returncode})", flush=True)
        except subprocess.TimeoutExpired:
            print(f"{name:28s} over 120 s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
