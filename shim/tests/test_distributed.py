"""fusednorm under torch.distributed: DTensor activations and FSDP2 (fully_shard), 2 processes.

    python3 shim/tests/test_distributed.py [--device cpu|cuda]     (cpu: gloo; cuda: NCCL, 2 GPUs)

Each test spawns WORLD=2 processes (torch.multiprocessing, a file rendezvous in a temp dir).
DTensor (tensor/sequence-parallel activations):
  * rows sharded (dim 0 of [M, N], dim 1 of [B, S, N]) or replicated, weight replicated: the
    forward and dx are bitwise the single-process result on the full tensor (the same kernel on
    the same rows); dw is Partial and its sum over ranks equals the single-process dw within
    fp32 summation-order rounding (the reduction runs in another order);
  * sharded over the normalized dim: DTensor gathers it before the op; the result is bitwise the
    single-process one.
FSDP2: a tiny HF Llama, fully_shard per decoder layer and at the root, SGD for a few steps on
per-rank batches, three ways — stock, patched before fully_shard, patched after: the losses of
the two patched runs are bitwise equal, and equal to stock's within test_hf's fp32 tolerance; a
control run patched with a wrong offset must differ (the patched modules really run).
"""

import os
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

import harness  # noqa: E402

DEVICE = "cpu"
WORLD = 2


def _worker(rank, scenario, device, init_file, seed, errfile):
    try:
        backend = "nccl" if device == "cuda" else "gloo"
        if device == "cuda":
            torch.cuda.set_device(rank)
        dist.init_process_group(backend, init_method=f"file://{init_file}", rank=rank,
                                world_size=WORLD)
        try:
            import fusednorm  # noqa: F401
            globals()[f"_scenario_{scenario}"](rank, device, seed)
            dist.barrier()
        finally:
            dist.destroy_process_group()
    except BaseException:  # noqa: BLE001 - every rank reports its own failure
        with open(f"{errfile}.{rank}", "w") as f:
            f.write(traceback.format_exc())
        raise
    # A rank that passed leaves without the interpreter's teardown: at exit, torch's gloo threads
    # can abort the process ("terminate called without an active exception", SIGABRT, after the
    # scenario has passed; intermittent on 2 cores), which would fail a test that passed.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def spawn(scenario):
    seed = harness.seed_for(scenario)
    with tempfile.TemporaryDirectory() as d:
        errfile = os.path.join(d, "err")
        try:
            mp.spawn(_worker, args=(scenario, DEVICE, os.path.join(d, "rdzv"), seed, errfile),
                     nprocs=WORLD, join=True)
        except Exception as e:  # noqa: BLE001
            msgs = []
            for r in range(WORLD):
                if os.path.exists(f"{errfile}.{r}"):
                    msgs.append(f"rank {r}:\n" + open(f"{errfile}.{r}").read())
            raise AssertionError(f"{scenario} failed:\n" + ("\n".join(msgs) or str(e))) from None


def _bits_equal(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(
        a.detach().contiguous().view(torch.uint8), b.detach().contiguous().view(torch.uint8))


def _scenario_dtensor(rank, device, seed):
    import fusednorm
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Partial, Replicate, Shard, distribute_tensor
    mesh = init_device_mesh(device, (WORLD,))
    g = torch.Generator().manual_seed(seed)  # same data on every rank

    def rnd(*shape, dtype=torch.float32):
        return torch.randn(*shape, generator=g).to(device=device, dtype=dtype)
    for dtype in (torch.float32, torch.bfloat16):
        for shape, placement in [((8, 96), Shard(0)), ((2, 6, 96), Shard(1)),
                                 ((2, 6, 96), Replicate()), ((6, 96), Shard(1))]:
            what = f"{dtype} {shape} {placement}"
            x, r, dy, ds = rnd(*shape, dtype=dtype), rnd(*shape, dtype=dtype), \
                rnd(*shape, dtype=dtype), rnd(*shape, dtype=dtype)
            w = 1 + 0.2 * rnd(shape[-1])
            # single-process reference on the full tensors
            xr, rr, wr = x.clone().requires_grad_(), r.clone().requires_grad_(), w.clone().requires_grad_()
            y_ref = fusednorm.rms_norm(xr, wr, 1e-6, casting="llama")
            y2_ref, s_ref = fusednorm.fused_add_rms_norm(xr, rr, wr, 1e-6, offset=1.0, casting="gemma")
            torch.autograd.backward([y_ref, y2_ref, s_ref], [dy, dy, ds])
            # the same through DTensor
            xd = distribute_tensor(x, mesh, [placement]).requires_grad_()
            rd = distribute_tensor(r, mesh, [placement]).requires_grad_()
            wd = distribute_tensor(w, mesh, [Replicate()]).requires_grad_()
            y = fusednorm.rms_norm(xd, wd, 1e-6, casting="llama")
            y2, s = fusednorm.fused_add_rms_norm(xd, rd, wd, 1e-6, offset=1.0, casting="gemma")
            if placement != Shard(len(shape) - 1):
                assert y.placements == (placement,) and s.placements == (placement,), \
                    f"{what}: row sharding must stay shard-local, got {y.placements}"
            for name, a, b in [("y", y, y_ref), ("y2", y2, y2_ref), ("s", s, s_ref)]:
                assert _bits_equal(a.full_tensor(), b), f"{what}: {name} differs"
            torch.autograd.backward([y, y2, s], [distribute_tensor(t, mesh, [y_.placements[0]])
                                                 for t, y_ in ((dy, y), (dy, y2), (ds, s))])
            assert _bits_equal(xd.grad.full_tensor(), xr.grad), f"{what}: dx differs"
            assert _bits_equal(rd.grad.full_tensor(), rr.grad), f"{what}: dresidual differs"
            dw = wd.grad.full_tensor()
            if placement == Replicate():
                assert _bits_equal(dw, wr.grad), f"{what}: replicated dw differs"
            err = ((dw - wr.grad).abs().max() / wr.grad.abs().max()).item()
            assert err <= 1e-5, f"{what}: dw rel err {err}"
            if isinstance(placement, Shard) and placement.dim < len(shape) - 1:
                # the strategy, not a gather, did it: dw came back as a sum still to do
                y1 = fusednorm.rms_norm(xd.detach().requires_grad_(), wd, 1e-6)
                (gw,) = torch.autograd.grad(y1, wd, distribute_tensor(dy, mesh, [placement]))
                assert any(isinstance(p, Partial) for p in gw.placements) or \
                    gw.placements == (Replicate(),), gw.placements
    if rank == 0:
        print("  dtensor: rows sharded / replicated / normalized dim sharded: OK", flush=True)


def _scenario_fsdp2(rank, device, seed):
    import copy

    import fusednorm
    import transformers as T
    from torch.distributed.fsdp import fully_shard
    cfg = T.LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=96,
                        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                        max_position_embeddings=64, pad_token_id=0)
    cfg._attn_implementation = "eager"
    torch.manual_seed(seed)
    base = T.LlamaForCausalLM(cfg)
    with torch.no_grad():
        for m in base.modules():
            if type(m).__name__.endswith("RMSNorm"):
                m.weight.add_(0.3 * torch.randn_like(m.weight))
    g = torch.Generator().manual_seed(seed + 1 + rank)  # per-rank data, as in training
    batches = [torch.randint(3, 128, (2, 16), generator=g) for _ in range(4)]

    def train(patch):
        model = copy.deepcopy(base).to(device)
        if patch == "before":
            assert len(fusednorm.patch_hf(model)) == 5
        for layer in model.model.layers:
            fully_shard(layer)
        fully_shard(model)
        if patch in ("after", "broken"):
            assert len(fusednorm.patch_hf(model)) == 5
        if patch == "broken":  # control: a wrong offset must show in the losses
            for m in model.modules():
                if isinstance(m, fusednorm.hf.PatchedRMSNorm):
                    m.offset = 0.5
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        losses = []
        for ids in batches:
            ids = ids.to(device)
            loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad()
            losses.append(loss.detach().clone())
        return torch.stack(losses)
    stock, before, after = train(None), train("before"), train("after")
    broken = train("broken")
    control = ((broken - stock).abs().max() / stock.abs().max()).item()
    assert control > 1e-3, f"a wrong offset went unnoticed ({control}): the patch is not in use"
    assert _bits_equal(before, after), f"patched before vs after fully_shard: {before} vs {after}"
    err = ((before - stock).abs().max() / stock.abs().max()).item()
    assert err <= 5e-5, f"losses: patched {before.tolist()} vs stock {stock.tolist()} ({err})"
    if rank == 0:
        print(f"  fsdp2: losses stock {[round(v, 6) for v in stock.tolist()]}, patched "
              f"before/after bitwise equal, max rel diff to stock {err:.2e}", flush=True)


def test_dtensor():
    spawn("dtensor")


def test_fsdp2():
    spawn("fsdp2")


if __name__ == "__main__":
    if "--device" in sys.argv and "cuda" in sys.argv and torch.cuda.device_count() < WORLD:
        print(f"FAIL: --device cuda needs {WORLD} GPUs, {torch.cuda.device_count()} visible")
        sys.exit(1)
    sys.exit(harness.main(globals()))
