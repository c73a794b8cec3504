#!/usr/bin/env python3
"""End-to-end training step benchmark: Hugging Face models with stock norms, fusednorm and Liger.

A program, not a test. For each (model, provider, mode) it builds the model from a config (random
init, no download), runs forward + loss + backward + SGD step on random tokens, and records:
  step time     median / min / max over --steps steps after --warmup steps (CUDA events around
                each step: the whole step as the user sees it, CPU dispatch included)
  peak memory   torch.cuda.max_memory_allocated over the timed steps
  loss          first and last (a NaN or inf marks the row: its time is not a valid comparison)
  profile       one extra step under torch.profiler: GPU time of all kernels, of the norm kernels
                (by name: fusednorm's fn::rms_norm* / fn::dw_reduce, Liger's rms_norm kernels,
                Inductor kernels whose fused name contains rsqrt — so for torch.compile it counts
                the kernels a norm was fused into), and the copy kernels (direct_copy /
                copy_kernel) and device-to-device memcpys, count and time; the 15 longest kernels
                are kept in the JSON. Stock eager norms are plain aten ops: their share is n/a.
Models (bf16, sequence 2048; --quick shrinks them for a smoke run):
  llama      Llama, hidden 2048, 16 layers, 32 heads / 8 kv, vocab 32000        (~0.97B), 4 x 2048
  qwen3      Qwen3-0.6B shape: hidden 1024, 28 layers, head_dim 128, q/k norm   (~0.6B), 8 x 2048
  gemma3     Gemma3-1B text shape: hidden 1152, 26 layers, head_dim 256         (~1.0B), 4 x 2048
  qwen3_moe  Qwen3-MoE, hidden 1024, 12 layers, 32 experts top-4 (grouped_mm)   (~0.8B), 4 x 2048
Providers:
  stock                   the model as transformers builds it
  fusednorm               fusednorm.patch_hf(model): norms swapped, residual adds fused; under
                          torch.compile the q/k norms are left to Inductor (patch_hf's default
                          qk_norm="inductor-when-compiled")
  fusednorm-unfused       patch_hf(model, fuse_residual=False): norms only
  fusednorm-qk-op         patch_hf(model, qk_norm="fusednorm"): the q/k norms run the fusednorm op
                          under torch.compile too (same as fusednorm in eager)
  liger                   every RMSNorm module replaced by liger_kernel's LigerRMSNorm (weight,
                          eps, offset and casting mode of the family); "not installed" without it
Modes: eager, compile (torch.compile(model), default options; compile time and graph breaks
recorded).

Output (--out DIR): e2e_<models>.json (rewritten after every row, so a killed run keeps what it
measured), e2e_<models>.md, e2e_<models>.png. --merge A.json B.json ... --out DIR combines runs
(e.g. one device call per model) into e2e.json / e2e.md / e2e.png.
--budget-s: no row is started that would end after that many seconds, judged by the longest row
of its mode so far (rows left are recorded as skipped); the device tool allows 10 minutes a call.
Exit: 0 ok, 1 a row errored or its loss was not finite, 2 bad usage.
"""
import argparse
import datetime
import gc
import json
import math
import os
import platform
import re
import statistics
import sys
import time
import traceback

SCHEMA = "fusednorm-e2e/1"
MODELS = ("llama", "qwen3", "gemma3", "qwen3_moe")
PROVIDERS = ("stock", "fusednorm", "fusednorm-unfused", "fusednorm-qk-op", "liger")
# Table and merge order; "fusednorm-qk-inductor" is the name of runs made while patch_hf's default
# was qk_norm="fusednorm" (it passed "inductor-when-compiled", today's default), kept so their
# JSON still merges and tabulates.
ORDER = ("stock", "fusednorm", "fusednorm-unfused", "fusednorm-qk-op", "fusednorm-qk-inductor",
         "liger")
MODES = ("eager", "compile")
# Default batch x seq per model (tokens per step 8k-16k: a realistic single-GPU micro-batch).
SHAPES = {"llama": (4, 2048), "qwen3": (8, 2048), "gemma3": (4, 2048), "qwen3_moe": (4, 2048)}
QUICK_SHAPE = (2, 128)

NORM_KERNEL = re.compile(r"^fusednorm::|fn::(rms_norm|dw_reduce)|_rms_norm_(forward|backward)|"
                         r"rms_norm.*kernel|^triton_\w*rsqrt")
COPY_KERNEL = re.compile(r"direct_copy|copy_kernel")
MEMCPY_DTOD = re.compile(r"Memcpy DtoD|Memcpy PtoP")


class UsageError(Exception):
    pass


# ------------------------------------------------------------------------------ arguments

def _csv(value, allowed, what):
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items:
        raise UsageError(f"--{what}: empty list")
    bad = [v for v in items if v not in allowed]
    if bad:
        raise UsageError(f"--{what}: unknown {', '.join(bad)} (choose from {', '.join(allowed)})")
    if len(set(items)) != len(items):
        raise UsageError(f"--{what}: repeated entry in {value!r}")
    return items


def _positive(value, what, minimum=1):
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise UsageError(f"--{what}: not an integer: {value!r}") from None
    if v < minimum:
        raise UsageError(f"--{what}: must be >= {minimum}, got {v}")
    return v


def _seconds(value, what):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise UsageError(f"--{what}: not a number: {value!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise UsageError(f"--{what}: must be a finite number > 0, got {value!r}")
    return v


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="see the module docstring for what is measured")
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--providers", default=",".join(PROVIDERS))
    p.add_argument("--modes", default=",".join(MODES))
    p.add_argument("--steps", default="12", help="timed steps per row (>= 3; default 12)")
    p.add_argument("--warmup", default="3", help="untimed steps first (>= 1; compile happens here)")
    p.add_argument("--batch", default=None, help="batch size for every model (default per model)")
    p.add_argument("--seq", default=None, help="sequence length for every model (default 2048)")
    p.add_argument("--quick", action="store_true",
                   help="small models (2 layers, hidden 256) and 2 x 128 tokens: a smoke run")
    p.add_argument("--device", default=None, help="cuda (default when available) or cpu")
    p.add_argument("--no-profile", action="store_true", help="skip the profiled step")
    p.add_argument("--budget-s", default="540",
                   help="start no row expected to end after this many seconds (default 540)")
    p.add_argument("--seed", default="0")
    p.add_argument("--out", default=None, help="output directory (required)")
    p.add_argument("--merge", nargs="+", metavar="JSON", default=None,
                   help="combine these result files into OUT/e2e.{json,md,png}; nothing is run")
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        raise UsageError("bad arguments (see above)") if e.code else e
    if not a.out:
        raise UsageError("--out DIR is required")
    if os.path.exists(a.out) and not os.path.isdir(a.out):
        raise UsageError(f"--out {a.out}: exists and is not a directory")
    if a.merge is not None:
        for f in a.merge:
            if not os.path.isfile(f):
                raise UsageError(f"--merge: no such file {f}")
        return a
    a.models = _csv(a.models, MODELS, "models")
    a.providers = _csv(a.providers, PROVIDERS, "providers")
    a.modes = _csv(a.modes, MODES, "modes")
    a.steps = _positive(a.steps, "steps", 3)
    a.warmup = _positive(a.warmup, "warmup", 1)
    a.batch = None if a.batch is None else _positive(a.batch, "batch")
    a.seq = None if a.seq is None else _positive(a.seq, "seq", 2)
    a.budget_s = _seconds(a.budget_s, "budget-s")
    a.seed = _positive(a.seed, "seed", 0)
    if a.device not in (None, "cpu", "cuda"):
        raise UsageError(f"--device must be cpu or cuda, got {a.device!r}")
    return a


# ------------------------------------------------------------------------------ models

def build_config(name, quick):
    import transformers as T
    if name == "llama":
        kw = dict(hidden_size=2048, intermediate_size=5632, num_hidden_layers=16,
                  num_attention_heads=32, num_key_value_heads=8, vocab_size=32000,
                  rms_norm_eps=1e-5, max_position_embeddings=4096)
        cls_cfg, cls = T.LlamaConfig, T.LlamaForCausalLM
    elif name == "qwen3":
        kw = dict(hidden_size=1024, intermediate_size=3072, num_hidden_layers=28,
                  num_attention_heads=16, num_key_value_heads=8, head_dim=128, vocab_size=151936,
                  rms_norm_eps=1e-6, max_position_embeddings=4096, tie_word_embeddings=True)
        cls_cfg, cls = T.Qwen3Config, T.Qwen3ForCausalLM
    elif name == "gemma3":
        kw = dict(hidden_size=1152, intermediate_size=6912, num_hidden_layers=26,
                  num_attention_heads=4, num_key_value_heads=1, head_dim=256, vocab_size=262144,
                  rms_norm_eps=1e-6, max_position_embeddings=4096, sliding_window=512,
                  query_pre_attn_scalar=256)
        cls_cfg, cls = T.Gemma3TextConfig, T.Gemma3ForCausalLM
    elif name == "qwen3_moe":
        kw = dict(hidden_size=1024, intermediate_size=3072, moe_intermediate_size=768,
                  num_hidden_layers=12, num_attention_heads=16, num_key_value_heads=4,
                  head_dim=128, vocab_size=151936, num_experts=32, num_experts_per_tok=4,
                  rms_norm_eps=1e-6, max_position_embeddings=4096, tie_word_embeddings=True)
        cls_cfg, cls = T.Qwen3MoeConfig, T.Qwen3MoeForCausalLM
    else:
        raise UsageError(f"unknown model {name}")
    if quick:
        kw.update(hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, vocab_size=1024)
        if "head_dim" in kw:
            kw["head_dim"] = 64
        if name == "gemma3":
            kw.update(sliding_window=64, query_pre_attn_scalar=64)
        if name == "qwen3_moe":
            kw.update(moe_intermediate_size=128, num_experts=4, num_experts_per_tok=2)
    if name == "gemma3":  # Gemma3-1B: 5 sliding-window layers per full-attention layer
        n = kw["num_hidden_layers"]
        kw["layer_types"] = ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention"
                             for i in range(n)]
    cfg = cls_cfg(**kw)
    cfg.use_cache = False
    return cfg, cls


def build_model(name, quick, device, dtype, seed):
    import torch
    cfg, cls = build_config(name, quick)
    cfg._attn_implementation = "sdpa"
    if name == "qwen3_moe":
        # grouped_mm: one batched GEMM per projection (CUDA, bf16); the loop over experts
        # elsewhere (its kernel count would swamp the norms').
        cfg._experts_implementation = "grouped_mm" if device == "cuda" else "eager"
    torch.manual_seed(seed)
    with torch.device(device):
        model = cls(cfg)
    model.to(dtype)
    with torch.no_grad():
        # HF initializes norm weights to exactly 1 (0 for Gemma's offset form): randomize them a
        # little, so every provider really multiplies by its weight.
        g = torch.Generator(device="cpu").manual_seed(seed + 1)
        for mod in model.modules():
            if type(mod).__name__.endswith("RMSNorm"):
                w = mod.weight
                noise = 0.05 * torch.randn(w.shape, generator=g)
                w.add_(noise.to(w.device, w.dtype))
    model.train()
    return model, cfg


# ------------------------------------------------------------------------------ providers

def liger_version():
    try:
        import importlib.metadata
        import liger_kernel  # noqa: F401
        return importlib.metadata.version("liger_kernel")
    except Exception:  # noqa: BLE001 - any import failure means "not installed" here
        return None


def patch_liger(model):
    """Replace every HF RMSNorm module by LigerRMSNorm with the family's conventions."""
    from liger_kernel.transformers.rms_norm import LigerRMSNorm
    n = 0
    for parent in list(model.modules()):
        for cname, child in list(parent.named_children()):
            cls = type(child).__name__
            if not cls.endswith("RMSNorm") or not type(child).__module__.startswith("transformers"):
                continue
            eps = getattr(child, "variance_epsilon", getattr(child, "eps", 1e-6))
            dim = child.weight.shape[0]
            # As Liger's own patches: in-place dy -> dx for the hidden-size norms of Llama-style
            # models; not for Gemma's or the per-head q/k norms (their dy is a transposed view).
            qk = cname in ("q_norm", "k_norm")
            if cls.startswith("Gemma"):
                new = LigerRMSNorm(dim, eps=eps, offset=1.0, casting_mode="gemma", in_place=False)
            else:
                new = LigerRMSNorm(dim, eps=eps, offset=0.0, casting_mode="llama", in_place=not qk)
            new.weight = child.weight
            new.to(child.weight.device)
            setattr(parent, cname, new)
            n += 1
    return {"replaced": n}


def apply_provider(model, provider):
    if provider == "stock":
        return {}
    if provider == "liger":
        return patch_liger(model)
    import fusednorm
    kw = {"fuse_residual": provider != "fusednorm-unfused"}
    if provider == "fusednorm-qk-op":
        kw["qk_norm"] = "fusednorm"
    report = fusednorm.patch_hf(model, warn_unknown=False, **kw)
    fused = getattr(report, "fused", None)
    return {"replaced": len(report), "unknown": sorted(report.unknown),
            "fused_layers": None if fused is None else len(fused),
            "fuse_skipped": None if fused is None else dict(fused.skipped)}


# ------------------------------------------------------------------------------ measuring

def profile_step(step, device):
    import torch
    from torch.profiler import ProfilerActivity, profile
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with profile(activities=acts) as prof:
        step()
        if device == "cuda":
            torch.cuda.synchronize()
    kernels = {}
    for e in prof.events():
        on_gpu = str(getattr(e, "device_type", "")).endswith("CUDA")
        if device == "cuda" and not on_gpu:
            continue
        if device == "cpu" and (on_gpu or not e.name.startswith(("fusednorm::", "aten::"))):
            continue
        us = e.time_range.elapsed_us() if device == "cuda" else e.self_cpu_time_total
        k = kernels.setdefault(e.name, [0, 0.0])
        k[0] += 1
        k[1] += us
    total = sum(v[1] for v in kernels.values())
    norm = sum(v[1] for n, v in kernels.items() if NORM_KERNEL.search(n))
    copies = [(n, v) for n, v in kernels.items() if COPY_KERNEL.search(n)]
    memcpy = [(n, v) for n, v in kernels.items() if MEMCPY_DTOD.search(n)]
    top = sorted(kernels.items(), key=lambda kv: -kv[1][1])[:15]
    return {
        "what": "GPU kernels" if device == "cuda" else "CPU ops (self time)",
        "total_ms": total / 1e3,
        "norm_ms": norm / 1e3,
        "norm_share": norm / total if total else None,
        "copy_kernels": sum(v[0] for _, v in copies),
        "copy_ms": sum(v[1] for _, v in copies) / 1e3,
        "memcpy_dtod": sum(v[0] for _, v in memcpy),
        "top": [{"name": n[:160], "count": v[0], "ms": v[1] / 1e3} for n, v in top],
    }


def run_row(args, model_name, provider, mode, device, t_start):
    import torch
    row = {"model": model_name, "provider": provider, "mode": mode}
    if provider == "liger" and liger_version() is None:
        row.update(status="not installed", reason="liger_kernel is not importable")
        return row
    if provider == "fusednorm-qk-op" and (model_name == "llama" or mode == "eager"):
        row.update(status="n/a", reason="same as fusednorm here (no q/k norm, or eager)")
        return row
    dtype = torch.bfloat16
    batch, seq = QUICK_SHAPE if args.quick else SHAPES[model_name]
    batch, seq = args.batch or batch, args.seq or seq
    row.update(batch=batch, seq=seq, dtype="bf16")
    model = opt = compiled = None
    try:
        torch._dynamo.reset()
        model, cfg = build_model(model_name, args.quick, device, dtype, args.seed)
        row["params_b"] = sum(p.numel() for p in model.parameters()) / 1e9
        row["layers"] = cfg.num_hidden_layers
        row["patch"] = apply_provider(model, provider)
        opt = torch.optim.SGD(model.parameters(), lr=1e-4)
        g = torch.Generator(device="cpu").manual_seed(args.seed + 2)
        ids = torch.randint(0, cfg.vocab_size, (batch, seq), generator=g).to(device)
        fwd = model
        if mode == "compile":
            from torch._dynamo.utils import counters
            counters.clear()
            fwd = compiled = torch.compile(model)
        losses = []

        def step():
            out = fwd(input_ids=ids, labels=ids)
            out.loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            losses.append(out.loss.detach())

        sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
        t0 = time.time()
        step()
        sync()
        row["first_step_s"] = time.time() - t0  # includes compilation in compile mode
        for _ in range(args.warmup - 1):
            step()
        sync()
        if mode == "compile":
            from torch._dynamo.utils import counters
            row["graph_breaks"] = sum(counters["graph_break"].values())
            row["graphs"] = counters["stats"].get("unique_graphs", 0)
        if device == "cuda":
            torch.cuda.reset_peak_memory_stats()
            ev = [torch.cuda.Event(enable_timing=True) for _ in range(args.steps + 1)]
            ev[0].record()
            for i in range(args.steps):
                step()
                ev[i + 1].record()
            torch.cuda.synchronize()
            times = [ev[i].elapsed_time(ev[i + 1]) for i in range(args.steps)]
            row["peak_mem_gb"] = torch.cuda.max_memory_allocated() / 1e9
        else:
            times = []
            for _ in range(args.steps):
                t = time.perf_counter()
                step()
                times.append((time.perf_counter() - t) * 1e3)
            row["peak_mem_gb"] = None
        row["step_ms"] = {"median": statistics.median(times), "min": min(times),
                          "max": max(times), "all": [round(t, 4) for t in times]}
        row["tokens_per_s"] = batch * seq / (row["step_ms"]["median"] / 1e3)
        if not args.no_profile:
            row["profile"] = profile_step(step, device)
        vals = [float(v) for v in losses]
        row["loss_first"], row["loss_last"] = vals[0], vals[-1]
        row["finite"] = all(math.isfinite(v) for v in vals)
        row["status"] = "ok" if row["finite"] else "nan"
        if not row["finite"]:
            row["reason"] = "loss not finite: the time is not a valid comparison"
    except torch.cuda.OutOfMemoryError as e:
        row.update(status="oom", reason=str(e).split("\n")[0][:300])
    except Exception as e:  # noqa: BLE001 - a row's failure is recorded, the run goes on
        row.update(status="error", reason=f"{type(e).__name__}: {e}"[:500],
                   traceback=traceback.format_exc()[-3000:])
    finally:
        del model, opt, compiled
        gc.collect()
        if device == "cuda":
            torch.cuda.empty_cache()
    return row


# ------------------------------------------------------------------------------ output

def environment(device):
    import torch
    env = {"torch": torch.__version__, "python": platform.python_version(),
           "host": platform.node(), "device": "cpu"}
    try:
        import transformers
        env["transformers"] = transformers.__version__
    except ImportError:
        env["transformers"] = None
    try:
        import fusednorm
        env["fusednorm"] = fusednorm.__version__
    except Exception as e:  # noqa: BLE001
        env["fusednorm"] = f"not importable: {e}"
    env["liger_kernel"] = liger_version()
    if device == "cuda":
        env["device"] = torch.cuda.get_device_name()
        env["cuda"] = torch.version.cuda
    return env


def write_json(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, path)  # never a half-written file


def _cell(row):
    st = row.get("status")
    if st == "ok":
        s = f"{row['step_ms']['median']:.1f}"
        return s
    return {"not installed": "not installed", "n/a": "n/a"}.get(st, st or "?")


def markdown(doc):
    rows = doc["results"]
    env = doc["env"]
    out = [f"# End-to-end training step ({env.get('device')}, {doc['date']})", "",
           f"torch {env.get('torch')}, transformers {env.get('transformers')}, fusednorm "
           f"{env.get('fusednorm')}, liger_kernel {env.get('liger_kernel') or 'not installed'}; "
           f"bf16, SGD step, median of {doc['args'].get('steps')} steps after "
           f"{doc['args'].get('warmup')} warm-up{' (--quick shapes)' if doc['args'].get('quick') else ''}.",
           "", "Step time, ms (median; lower is better):", ""]
    models = [m for m in MODELS if any(r["model"] == m for r in rows)]
    cols = [(p, m) for m in MODES for p in ORDER
            if any(r["provider"] == p and r["mode"] == m for r in rows)]
    out.append("| model (B x S) | " + " | ".join(f"{p} {m}" for p, m in cols) + " |")
    out.append("|---|" + "---:|" * len(cols))
    by = {(r["model"], r["provider"], r["mode"]): r for r in rows}
    for m in models:
        any_row = next(r for r in rows if r["model"] == m)
        shape = f"{any_row.get('batch', '?')} x {any_row.get('seq', '?')}"
        params = next((r.get("params_b") for r in rows if r["model"] == m and r.get("params_b")), None)
        label = f"{m}, {params:.3g}B ({shape})" if params else f"{m} ({shape})"
        out.append(f"| {label} | " + " | ".join(_cell(by.get((m, p, mo), {}))
                                                  for p, mo in cols) + " |")
    out += ["", "Speed-up over stock in the same mode, and over Liger (eager):", ""]
    for r in rows:
        if r.get("status") != "ok" or r["provider"] == "stock":
            continue
        s = by.get((r["model"], "stock", r["mode"]))
        line = f"- {r['model']} {r['provider']} {r['mode']}:"
        if s and s.get("status") == "ok":
            line += f" {s['step_ms']['median'] / r['step_ms']['median']:.3f}x stock"
        lg = by.get((r["model"], "liger", r["mode"]))
        if lg and lg.get("status") == "ok" and r["provider"] != "liger":
            line += f", {lg['step_ms']['median'] / r['step_ms']['median']:.3f}x liger"
        out.append(line)
    out += ["", "| model | provider | mode | median / min / max ms | tok/s | peak GB | "
                "norm share | copy kernels (ms) | DtoD | compile: first step s, breaks | loss "
                "first -> last | status |",
            "|---|---|---|---|---:|---:|---:|---:|---:|---|---|---|"]
    for r in rows:
        st = r.get("status")
        if st != "ok" and st != "nan":
            out.append(f"| {r['model']} | {r['provider']} | {r['mode']} | | | | | | | | | "
                       f"{st}: {r.get('reason', '')[:120]} |")
            continue
        t = r["step_ms"]
        pr = r.get("profile") or {}
        share = pr.get("norm_share")
        norm = "n/a" if (r["provider"] == "stock" and r["mode"] == "eager") or share is None \
            else f"{100 * share:.1f}%"
        comp = f"{r.get('first_step_s', 0):.0f}, {r.get('graph_breaks', 0)}" \
            if r["mode"] == "compile" else ""
        mem = "" if r.get("peak_mem_gb") is None else f"{r['peak_mem_gb']:.2f}"
        out.append(f"| {r['model']} | {r['provider']} | {r['mode']} | {t['median']:.2f} / "
                   f"{t['min']:.2f} / {t['max']:.2f} | {r['tokens_per_s']:.0f} | {mem} | {norm} | "
                   f"{pr.get('copy_kernels', '')} ({pr.get('copy_ms', 0):.2f}) | "
                   f"{pr.get('memcpy_dtod', '')} | {comp} | {r['loss_first']:.3f} -> "
                   f"{r['loss_last']:.3f} | {st} |")
    out += ["", "norm share: GPU time of the kernels named as norm kernels (fusednorm fn::*, "
            "Liger rms_norm, Inductor kernels with rsqrt in their fused name) over all kernel "
            "time of one profiled step; stock eager norms are plain aten ops (n/a). copy "
            "kernels: direct_copy / copy_kernel launches in that step (dtype casts such as "
            "HF's .float() are copies too: compare a provider's count with stock's in the same "
            "mode).", ""]
    return "\n".join(out)


def plot(doc, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = [r for r in doc["results"] if r.get("status") == "ok"]
    models = [m for m in MODELS if any(r["model"] == m for r in rows)]
    if not models:
        return False
    modes = [m for m in MODES if any(r["mode"] == m for r in rows)]
    fig, axes = plt.subplots(1, len(modes), figsize=(6 * len(modes), 4), squeeze=False)
    for ax, mode in zip(axes[0], modes):
        provs = [p for p in ORDER if any(r["provider"] == p and r["mode"] == mode for r in rows)]
        width = 0.8 / max(1, len(provs))
        for j, p in enumerate(provs):
            xs, ys, lo, hi = [], [], [], []
            for i, m in enumerate(models):
                r = next((r for r in rows if (r["model"], r["provider"], r["mode"]) == (m, p, mode)),
                         None)
                s = next((r for r in rows if (r["model"], r["provider"], r["mode"]) ==
                          (m, "stock", mode)), None)
                if r is None or s is None:
                    continue
                base = s["step_ms"]["median"]
                xs.append(i + j * width)
                ys.append(base / r["step_ms"]["median"])
                lo.append(ys[-1] - base / r["step_ms"]["max"])
                hi.append(base / r["step_ms"]["min"] - ys[-1])
            if xs:
                ax.bar(xs, ys, width, yerr=[lo, hi], label=p, capsize=2)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(models))])
        ax.set_xticklabels(models)
        ax.set_title(f"{mode}: speed-up over stock {mode} (median; bars: min..max)")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.suptitle(f"{doc['env'].get('device')} {doc['date']}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def write_outputs(doc, out_dir, stem):
    os.makedirs(out_dir, exist_ok=True)
    write_json(os.path.join(out_dir, stem + ".json"), doc)
    md = markdown(doc)
    with open(os.path.join(out_dir, stem + ".md"), "w") as f:
        f.write(md + "\n")
    plot(doc, os.path.join(out_dir, stem + ".png"))
    return md


def merge(paths, out_dir):
    docs = []
    for p in paths:
        try:
            with open(p) as f:
                d = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            raise UsageError(f"--merge: {p}: not readable JSON ({e})") from None
        if not isinstance(d, dict) or d.get("schema") != SCHEMA or not isinstance(
                d.get("results"), list):
            raise UsageError(f"--merge: {p}: not an e2e result ({SCHEMA})")
        docs.append(d)
    devices = {d["env"].get("device") for d in docs}
    if len(devices) > 1:
        raise UsageError(f"--merge: results from different devices {sorted(devices)}: "
                         "timings are comparable only on one device kind")
    seen = {}
    for d in docs:  # a later file's row replaces an earlier one for the same (model, provider, mode)
        for r in d["results"]:
            seen[(r["model"], r["provider"], r["mode"])] = r
    order = {(m, p, mo): (MODELS.index(m), MODES.index(mo), ORDER.index(p))
             for m in MODELS for p in ORDER for mo in MODES}
    results = sorted(seen.values(), key=lambda r: order[(r["model"], r["provider"], r["mode"])])
    env = dict(docs[-1]["env"])
    # A package any of the runs had (Liger in the eager run, say) is named, not "not installed".
    for key in ("liger_kernel",):
        env[key] = next((d["env"].get(key) for d in docs if d["env"].get(key)), env.get(key))
    doc = {"schema": SCHEMA, "date": max(d["date"] for d in docs), "env": env,
           "args": docs[-1]["args"], "merged_from": [os.path.basename(p) for p in paths],
           "results": results}
    return write_outputs(doc, out_dir, "e2e")


def main(argv=None):
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except UsageError as e:
        print(f"e2e.py: {e}", file=sys.stderr)
        return 2
    if args.merge is not None:
        try:
            print(merge(args.merge, args.out))
        except UsageError as e:
            print(f"e2e.py: {e}", file=sys.stderr)
            return 2
        return 0
    import torch
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        print("e2e.py: --device cuda but torch.cuda.is_available() is False", file=sys.stderr)
        return 2
    try:
        import transformers  # noqa: F401
    except ImportError:
        print("e2e.py: transformers is not installed", file=sys.stderr)
        return 2
    if any(p.startswith("fusednorm") for p in args.providers):
        try:
            import fusednorm  # noqa: F401
        except Exception as e:  # noqa: BLE001
            print(f"e2e.py: fusednorm is not importable ({e}); set PYTHONPATH / "
                  "FUSEDNORM_LIBRARY or drop the fusednorm providers", file=sys.stderr)
            return 2
    t_start = time.time()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    doc = {"schema": SCHEMA, "date": date, "env": environment(device),
           "args": {k: v for k, v in vars(args).items() if k not in ("merge",)}, "results": []}
    stem = "e2e_" + "_".join(args.models)
    print(f"e2e: {doc['env']['device']}, torch {doc['env']['torch']}, models {args.models}, "
          f"providers {args.providers}, modes {args.modes}", flush=True)
    longest = {}  # mode -> the longest row so far: the guess for the next one of that mode
    for model_name in args.models:
        for mode in args.modes:
            for provider in args.providers:
                elapsed = time.time() - t_start
                if elapsed + longest.get(mode, 0.0) > args.budget_s:
                    row = {"model": model_name, "provider": provider, "mode": mode,
                           "status": "skipped",
                           "reason": f"--budget-s {args.budget_s:g}: {elapsed:.0f} s used, the "
                                     f"longest {mode} row took {longest.get(mode, 0):.0f} s"}
                else:
                    t_row = time.time()
                    row = run_row(args, model_name, provider, mode, device, t_start)
                    if row["status"] not in ("n/a", "not installed"):
                        row["row_s"] = time.time() - t_row
                        longest[mode] = max(longest.get(mode, 0.0), row["row_s"])
                doc["results"].append(row)
                write_outputs(doc, args.out, stem)
                t = row.get("step_ms", {}).get("median")
                print(f"  {model_name:10s} {provider:22s} {mode:8s} {row['status']:13s} "
                      + (f"{t:9.2f} ms" if t else row.get("reason", ""))
                      + f"  [{time.time() - t_start:.0f} s]", flush=True)
    md = write_outputs(doc, args.out, stem)
    print(md)
    bad = [r for r in doc["results"] if r["status"] in ("error", "nan", "oom")]
    print(("FAILED: " + ", ".join(f"{r['model']}/{r['provider']}/{r['mode']}: {r['status']}"
                                  for r in bad)) if bad else
          f"OK: {len(doc['results'])} rows, {os.path.join(args.out, stem)}.json")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
