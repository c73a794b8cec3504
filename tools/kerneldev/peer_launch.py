#!/usr/bin/env python3
"""One peer's RMSNorm forward of one shape, for Nsight Compute: warm-up calls (Quack and
torch.compile compile on the first), then cudaProfilerStart and `--iters` timed calls, so that
`ncu --profile-from-start off --launch-count 1` profiles the first launch of a warm kernel.

    ncu --profile-from-start off --launch-count 1 --section SpeedOfLight \\
        python3 tools/kerneldev/peer_launch.py quack bf16 1024x65536 fwd

Providers: quack (quack.rmsnorm.rmsnorm), compile (torch.compile of the float32 formula). Ours:
tools/kerneldev/ncu_fwd.sh (bench_modes). Ops: fwd, add_fwd.
Inputs: random normal, seed printed. Exit 2 on a bad argument, with the reason."""
import argparse
import sys

import torch

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
EPS = 1e-6


def parse_shape(s):
    try:
        m, n = (int(v) for v in s.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"shape {s!r}: want MxN, e.g. 1024x65536")
    if m < 1 or n < 1:
        raise argparse.ArgumentTypeError(f"shape {s!r}: M and N must be >= 1")
    return m, n


def provider(name, op):
    if name == "quack":
        from quack.rmsnorm import rmsnorm
        if op == "fwd":
            return lambda x, r, w: rmsnorm(x, w, eps=EPS)
        return lambda x, r, w: rmsnorm(x, w, residual=r, eps=EPS, prenorm=True)
    if name == "compile":
        def f(x, r, w):
            s = x if r is None else x + r
            v = s.float()
            y = (v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + EPS) * w.float()).to(x.dtype)
            return y if r is None else (y, s)
        return torch.compile(f, dynamic=False)
    raise ValueError(f"peer_launch: provider {name!r}")  # argparse's choices keep this out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("provider", choices=["quack", "compile"])
    ap.add_argument("dtype", choices=sorted(DTYPES))
    ap.add_argument("shape", type=parse_shape)
    ap.add_argument("op", choices=["fwd", "add_fwd"])
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    if a.iters < 1:
        ap.error(f"--iters {a.iters}: must be >= 1 (the profiled launches)")
    if not torch.cuda.is_available():
        print("peer_launch: no CUDA device", file=sys.stderr)
        return 2
    seed = a.seed if a.seed is not None else torch.seed() % (1 << 31)
    print(f"peer_launch: {a.provider} {a.dtype} {a.shape[0]}x{a.shape[1]} {a.op} seed {seed}", file=sys.stderr)
    g = torch.Generator(device="cuda").manual_seed(seed)
    m, n = a.shape
    dt = DTYPES[a.dtype]
    x = torch.randn(m, n, device="cuda", dtype=dt, generator=g)
    r = torch.randn(m, n, device="cuda", dtype=dt, generator=g) if a.op == "add_fwd" else None
    w = (1 + 0.1 * torch.randn(n, device="cuda", dtype=torch.float32, generator=g)).to(dt)
    f = provider(a.provider, a.op)
    for _ in range(3):
        f(x, r, w)
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for _ in range(a.iters):
        f(x, r, w)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
