"""fusednorm.capture never changes the job, and records what the job really computed.

1. No change: tiny random-init HF Llama / Qwen3 / Gemma3 (bf16) and a fused-add model are trained
   3 steps without capture and with capture (module hooks, global hooks, wrapped function); the
   losses, every gradient and every updated parameter are bitwise identical.
2. Faithful: for captured records, recomputing the module on the captured x with torch autograd
   and the captured dy gives the captured y, dx (the norm's own gradient, not the sum over every
   use of x) and dw bitwise.
3. Selection: layer regex, steps, max_rows subsampling (row_step recorded), row budget, and the
   C reader accepts the file (verify/h5copy).
"""
import os
import subprocess
import sys

import h5py
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)
cap = common.load_capture_module()
T = common.tmpdir()
STEPS = 3


def models():
    from transformers import (Gemma3ForCausalLM, Gemma3TextConfig, LlamaConfig, LlamaForCausalLM,
                              Qwen3Config, Qwen3ForCausalLM)
    c = dict(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
             num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64,
             attn_implementation="eager")
    return {
        "llama": lambda: LlamaForCausalLM(LlamaConfig(**c)),
        "qwen3": lambda: Qwen3ForCausalLM(Qwen3Config(**c, head_dim=16)),
        "gemma3": lambda: Gemma3ForCausalLM(Gemma3TextConfig(
            **c, head_dim=16, query_pre_attn_scalar=16, sliding_window=8,
            layer_types=["sliding_attention", "full_attention"])),
    }


def fused_torch(x, residual, weight=None, eps=1e-6, *, offset=0.0, casting="fp32"):
    s = x + residual
    sf = s.float()
    y = sf * torch.rsqrt(sf.pow(2).mean(-1, keepdim=True) + eps) * (weight.float() + offset)
    return y.to(x.dtype), s


class FusedNet(torch.nn.Module):
    def __init__(self, fused):
        super().__init__()
        self.fused = fused
        self.emb = torch.nn.Embedding(64, 48)
        self.w = torch.nn.ParameterList([torch.nn.Parameter(1 + 0.1 * torch.randn(48)) for _ in range(2)])
        self.lin = torch.nn.ModuleList([torch.nn.Linear(48, 48) for _ in range(2)])
        self.head = torch.nn.Linear(48, 64)

    def forward(self, ids):
        h = self.emb(ids)
        r = torch.zeros_like(h)
        for w, lin in zip(self.w, self.lin):
            y, r = self.fused(h, r, w, 1e-5)
            h = torch.tanh(lin(y))
        return self.head(h + r)


def train(make, mode, path=None, **kw):
    """Returns (losses, grads per step, final params) of STEPS steps; mode None/'model'/'global'/'wrap'."""
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    c = None
    if mode == "wrap":
        c = cap.Capture(path, None, functional=False, **kw)
        fused = c.wrap(fused_torch, op="fused_add_rms_norm")
        model = make(fused).to(torch.bfloat16)
        c.open()
    else:
        model = make(fused_torch).to(torch.bfloat16) if make is FusedNet else make().to(torch.bfloat16)
        if mode is not None:
            c = cap.Capture(path, model if mode == "model" else None, functional=False, **kw).open()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, eps=1e-4)
    losses, grads = [], []
    for step in range(STEPS):
        ids = torch.randint(0, 64, (2, 12), generator=g)
        if isinstance(model, FusedNet):
            loss = torch.nn.functional.cross_entropy(model(ids).float().reshape(-1, 64), ids.reshape(-1))
        else:
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        losses.append(loss.detach().clone())
        grads.append([p.grad.clone() for p in model.parameters()])
        opt.step()
        opt.zero_grad(set_to_none=True)
        if c is not None:
            c.step()
    if c is not None:
        c.close()
    return losses, grads, [p.detach().clone() for p in model.parameters()], model


def bitwise(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(
        a.view(torch.int16) if a.element_size() == 2 else a.view(torch.int32),
        b.view(torch.int16) if b.element_size() == 2 else b.view(torch.int32))


def assert_same(name, base, other):
    (l0, g0, p0, _), (l1, g1, p1, _) = base, other
    for s in range(STEPS):
        assert bitwise(l0[s], l1[s]), f"{name}: loss of step {s} changed: {l0[s]} vs {l1[s]}"
        for a, b in zip(g0[s], g1[s]):
            assert bitwise(a, b), f"{name}: a gradient of step {s} changed"
    for a, b in zip(p0, p1):
        assert bitwise(a, b), f"{name}: a parameter changed"


def h5copy_ok(path):
    p = subprocess.run([common.binary("h5copy"), path, path + ".copy"], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, f"C reader rejects {path}: {p.stderr}"


def to_t(ds):
    return torch.from_numpy(common.bits_to_f64(ds[()], cap._attr_str(ds.attrs["dtype"]))).to(
        {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[cap._attr_str(ds.attrs["dtype"])])


def faithful(path, model):
    """Recompute each captured module call from the file; y, dx, dw must match bitwise."""
    mods = dict(model.named_modules())
    checked = 0
    with h5py.File(path) as f:
        for name in f["records"]:
            g = f["records"][name]
            layer = cap._attr_str(g.attrs["layer"])
            if layer not in mods or "dy" not in g or int(g.attrs["step"]) != 0:
                continue  # step 0: the module's weight is still the one that ran
            m = mods[layer]
            x = to_t(g["x"]).reshape([-1, int(g["x"].shape[1])]).requires_grad_(True)
            w0 = m.weight.detach().clone()
            torch.manual_seed(0)
            m2 = type(m).__new__(type(m))
            m2.__dict__ = dict(m.__dict__)
            m2._parameters = {"weight": torch.nn.Parameter(to_t(g["weight"]))}
            y = m2(x)
            dy = to_t(g["dy"]).to(y.dtype)
            y.backward(dy)
            assert bitwise(y.detach(), to_t(g["job/y"])), f"{name} {layer}: y differs"
            assert bitwise(x.grad, to_t(g["job/dx"])), f"{name} {layer}: dx differs"
            assert bitwise(m2._parameters["weight"].grad, to_t(g["job/dw"])), f"{name} {layer}: dw differs"
            del w0
            checked += 1
    return checked


def main():
    ms = models()
    for name, make in list(ms.items()) + [("fused_net", FusedNet)]:
        base = train(make, None)
        modes = ("wrap",) if make is FusedNet else ("model", "global")
        for mode in modes:
            path = os.path.join(T, f"cap_{name}_{mode}.h5")
            other = train(make, mode, path)
            assert_same(f"{name} ({mode})", base, other)
            with h5py.File(path) as f:
                nrec = len(f["records"])
                full = sum(1 for r in f["records"].values() if "job/dx" in r and "dy" in r)
            assert nrec > 0 and full > 0, (name, mode, nrec, full)
            h5copy_ok(path)
            extra = ""
            if mode == "model":
                extra = f", {faithful(path, other[3])} records recomputed bitwise (y, dx, dw)"
            print(f"{name:9s} {mode:6s}: loss, grads, params bitwise unchanged over {STEPS} steps; "
                  f"{nrec} records ({full} with gradients){extra}")
    # selection
    path = os.path.join(T, "cap_select.h5")
    train(ms["qwen3"], "model", path, layers=r"q_norm|model\.norm$", steps=[1], max_rows=10)
    with h5py.File(path) as f:
        recs = list(f["records"].values())
        layers = sorted({cap._attr_str(r.attrs["layer"]) for r in recs})
        assert layers == ["model.layers.0.self_attn.q_norm", "model.layers.1.self_attn.q_norm",
                          "model.norm"], layers
        assert {int(r.attrs["step"]) for r in recs} == {1}
        for r in recs:
            total, step, rows = int(r.attrs["rows_total"]), int(r.attrs["row_step"]), r["x"].shape[0]
            assert rows <= 10 and step == -(-total // 10) and rows == len(range(0, total, step)), (total, step, rows)
    path = os.path.join(T, "cap_budget.h5")
    train(ms["llama"], "model", path, row_budget=50)
    with h5py.File(path) as f:
        rows = [r["x"].shape[0] for r in f["records"].values()]
        assert sum(rows[:-1]) < 50 <= sum(rows), rows
    print("selection: layer regex, steps, max_rows subsampling and row budget as asked")
    # one file per rank: the rank comes from the launcher's environment (no torch.distributed)
    old = {k: os.environ.get(k) for k in ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE")}
    os.environ.update(OMPI_COMM_WORLD_RANK="1", OMPI_COMM_WORLD_SIZE="2")
    try:
        c = cap.Capture(os.path.join(T, "norms.h5"))
        assert c.path.endswith("norms.rank1.h5") and (c.rank, c.world_size) == (1, 2), c.path
        assert cap.Capture(os.path.join(T, "n_{rank}.h5")).path.endswith("n_1.h5")
    finally:
        for k, v in old.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    print("per-rank files: norms.rank1.h5 / n_{rank}.h5 under OMPI_COMM_WORLD_RANK=1")
    print("PASS")


if __name__ == "__main__":
    main()
