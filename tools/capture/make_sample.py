#!/usr/bin/env python3
"""Builds data/sample_capture.h5, the embedded default input of verify/replay.

Trains tiny random-init Hugging Face models for a few steps on CPU, on byte-level text every machine
has (sources of the Python standard library), with fusednorm.capture recording their RMSNorm calls:
  - Llama  (bf16 weights and activations; `llama` casting)
  - Qwen3  (fp16; QK-norm: RMSNorm over head_dim, rows = tokens x heads)
  - Gemma3 (bf16; `gemma` casting, offset 1)
  - a residual MLP using a fused add + RMSNorm function (bf16 activations, fp32 weight, N=100, not
    a multiple of any vector width) and torch.nn.RMSNorm without weight (fp32, eps=None)
Steps 0 and 2 (of 3) are captured: step 0 has the initial weights (all ones/zeros), step 2 trained ones.

Deterministic: a fixed seed, one CPU thread, deterministic algorithms, h5py without timestamps; the
same torch/transformers/Python versions give a byte-identical file (the versions and the sha256 of the
text are recorded in the file). Needs torch, transformers, h5py, numpy; not the fusednorm ops.

    python3 tools/capture/make_sample.py [--out data/sample_capture.h5] [--check]
"""
import argparse
import hashlib
import importlib.util
import os
import sys
import sysconfig

import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = 20261121
STEPS = 3
CAPTURE_STEPS = (0, 2)
BATCH, SEQ = 2, 64
# Files of the stdlib that change rarely; their bytes are the training text.
TEXT_FILES = ("this.py", "textwrap.py", "heapq.py", "bisect.py")


def load_capture():
    """Imports capture.py by path: the sample must not need the compiled fusednorm ops."""
    path = os.path.join(REPO, "shim", "python", "fusednorm", "capture.py")
    spec = importlib.util.spec_from_file_location("fusednorm_capture_standalone", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def stdlib_text():
    lib = sysconfig.get_paths()["stdlib"]
    data = b"".join(open(os.path.join(lib, f), "rb").read() for f in TEXT_FILES)
    return data, hashlib.sha256(data).hexdigest()


def batches(data, step):
    """Deterministic (input_ids, labels) for a step: fixed offsets into the text."""
    t = torch.frombuffer(bytearray(data), dtype=torch.uint8).to(torch.long)
    rows = []
    for b in range(BATCH):
        off = (step * BATCH + b) * 997 % (len(t) - SEQ - 1)
        rows.append(t[off:off + SEQ])
    ids = torch.stack(rows)
    return ids, ids.clone()


def tiny_models():
    from transformers import (Gemma3ForCausalLM, Gemma3TextConfig, LlamaConfig, LlamaForCausalLM,
                              Qwen3Config, Qwen3ForCausalLM)
    common = dict(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                  tie_word_embeddings=False)
    out = []
    torch.manual_seed(SEED)
    out.append(("llama", LlamaForCausalLM(LlamaConfig(**common, rms_norm_eps=1e-6,
                                                      attn_implementation="eager")),
                torch.bfloat16))
    torch.manual_seed(SEED + 1)
    out.append(("qwen3", Qwen3ForCausalLM(Qwen3Config(**common, head_dim=16, rms_norm_eps=1e-6,
                                                      attn_implementation="eager")),
                torch.float16))
    torch.manual_seed(SEED + 2)
    cfg = Gemma3TextConfig(**common, head_dim=16, query_pre_attn_scalar=16, sliding_window=32,
                           layer_types=["sliding_attention", "full_attention"],
                           rms_norm_eps=1e-6, attn_implementation="eager")
    out.append(("gemma3", Gemma3ForCausalLM(cfg), torch.bfloat16))
    return out


def fused_add_rms_norm_torch(x, residual, weight=None, eps=1e-6, *, offset=0.0, casting="fp32"):
    """Unfused torch composition with fusednorm.fused_add_rms_norm's signature: s = RN(x + r),
    y = RN(s * rstd * w) computed in fp32 (what a framework without a fused kernel does)."""
    s = x + residual
    sf = s.float()
    y = sf * torch.rsqrt(sf.pow(2).mean(-1, keepdim=True) + eps)
    if weight is not None:
        y = y * (weight.float() + offset)
    return y.to(x.dtype), s


class ResidualMLP(torch.nn.Module):
    """Pre-norm residual MLP: bf16 activations, fp32 norm weights, fused add + norm per block."""

    def __init__(self, fused_fn, dim=100, layers=2):
        super().__init__()
        self.fused = fused_fn
        self.emb = torch.nn.Embedding(256, dim)
        self.norm_w = torch.nn.ParameterList(
            [torch.nn.Parameter(1 + 0.1 * torch.randn(dim)) for _ in range(layers)])
        self.mlp = torch.nn.ModuleList([torch.nn.Linear(dim, dim) for _ in range(layers)])
        self.final = torch.nn.RMSNorm(dim, elementwise_affine=False)   # eps=None: finfo(f32).eps
        self.head = torch.nn.Linear(dim, 256)

    def to_bf16_activations(self):
        self.emb.to(torch.bfloat16)
        self.mlp.to(torch.bfloat16)
        return self

    def forward(self, input_ids, labels):
        h = self.emb(input_ids)
        r = torch.zeros_like(h)
        for w, mlp in zip(self.norm_w, self.mlp):
            y, r = self.fused(h, r, w, 1e-5)
            h = torch.nn.functional.gelu(mlp(y))
        out = self.head(self.final((h + r).float()))
        return torch.nn.functional.cross_entropy(out.reshape(-1, 256)[:-1], labels.reshape(-1)[1:])


def train(cap_mod, out_path, data, sha):
    import transformers
    desc = (f"fusednorm sample: tiny random-init HF Llama (bf16), Qwen3 (fp16, QK-norm), Gemma3 "
            f"(bf16, offset 1) and a fused-add residual MLP (bf16 x, fp32 w, N=100); {STEPS} "
            f"AdamW steps on byte-level text of Python {sys.version.split()[0]} stdlib "
            f"{','.join(TEXT_FILES)} (sha256 {sha}); steps {CAPTURE_STEPS} captured; seed {SEED}; "
            f"made by tools/capture/make_sample.py")
    writer_path = out_path + ".tmp"
    losses = {}
    # One file for all models: the Capture objects share one writer.
    shared = cap_mod.CaptureWriter(
        writer_path, framework=f"torch {torch.__version__}, transformers {transformers.__version__}",
        description=desc)
    jobs = [(name, model.to(dtype)) for name, model, dtype in tiny_models()]
    jobs.append(("residual_mlp", None))
    for name, model in jobs:
        cap = cap_mod.Capture(writer_path, model, steps=CAPTURE_STEPS, model_name=name,
                              functional=False, writer=shared)
        if model is None:              # the fused function is captured by wrapping it
            torch.manual_seed(SEED + 3)
            fused = cap.wrap(fused_add_rms_norm_torch, op="fused_add_rms_norm",
                             name="fused_add_rms_norm_torch", casting="fp32", offset=0.0)
            model = ResidualMLP(fused).to_bf16_activations()
            cap.model = model
        cap.open()
        opt = torch.optim.AdamW(model.parameters(), lr=3e-3, eps=1e-4)
        losses[name] = []
        for step in range(STEPS):
            ids, labels = batches(data, step)
            if isinstance(model, ResidualMLP):
                loss = model(ids, labels)
            else:
                loss = model(input_ids=ids, labels=labels).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            cap.step()
            losses[name].append(loss.item())
        cap.close()                    # removes the hooks; the shared writer stays open
    shared.close()
    os.replace(writer_path, out_path)
    return losses


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(REPO, "data", "sample_capture.h5"))
    ap.add_argument("--check", action="store_true",
                    help="build into a temporary file and compare bytes with --out")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    cap_mod = load_capture()
    data, sha = stdlib_text()
    out = args.out + ".check" if args.check else args.out
    losses = train(cap_mod, out, data, sha)
    for k, v in losses.items():
        print(f"{k:13s} loss per step: " + " ".join(f"{x:.4f}" for x in v), file=sys.stderr)
    size = os.path.getsize(out)
    print(f"wrote {out}: {size / 2**20:.2f} MiB", file=sys.stderr)
    if size > 8 << 20:
        print("error: the sample exceeds 8 MiB", file=sys.stderr)
        return 1
    if args.check:
        same = open(out, "rb").read() == open(args.out, "rb").read()
        os.remove(out)
        print("identical" if same else "DIFFERENT", file=sys.stderr)
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
