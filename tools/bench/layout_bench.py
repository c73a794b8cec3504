#!/usr/bin/env python3
"""q/k-norm in a transposed layout against the same norm contiguous: forward + backward time.

    python3 tools/bench/layout_bench.py [--shape 8x2048x16x128] [--dtype bf16] [--iters 50]
                                        [--warmup 10] [--json out.json] [--dry-run]

The case that made the ops copy: a Qwen3 q-norm of [B, S, H, D] whose input and whose gradient come
as the [B, H, S, D] storage of a [B, S, H, D] tensor (what torch.compile hands the op when the
norm's output is transposed right after it), against the same values contiguous. Each
measurement is one forward (torch.ops.fusednorm.rms_norm_fwd, llama casting, a [D] weight) plus
one backward (rms_norm_bwd, dy in the same layout as x), timed with CUDA events, the median over
--iters runs on pre-made inputs (no allocation but the ops' outputs in the timed region). Also
prints how many aten copy ops ran inside the ops (0 expected in both layouts: the rows of the
transposed view are addressed in place). Ratio = transposed / contiguous; the target is <= 1.02.

--dry-run: tiny shapes on the CPU (wall-clock timing, 3 iterations): checks the script end to end
and that both layouts give bitwise the same results, without a GPU (the CPU test suite runs it).
Needs fusednorm importable (the wheel, or FUSEDNORM_LIBRARY=bazel-bin/shim/libfusednorm_ops.so
PYTHONPATH=shim/python). Exits 2 on a bad argument, 1 if the layouts disagree or a copy ran.
"""

import argparse
import json
import platform
import statistics
import sys
import time

DTYPES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32"}
COPY_OPS = ("aten::contiguous", "aten::clone", "aten::copy_")


def shape_arg(s):
    try:
        dims = tuple(int(d) for d in s.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"shape must look like 8x2048x16x128, got {s!r}") from None
    if len(dims) != 4 or any(d <= 0 for d in dims):
        raise argparse.ArgumentTypeError(f"shape must be 4 positive dims B x S x H x D, got {s!r}")
    return dims


def positive_int(s):
    v = int(s)
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {s}")
    return v


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shape", type=shape_arg, default=(8, 2048, 16, 128))
    ap.add_argument("--dtype", choices=sorted(DTYPES), default="bf16")
    ap.add_argument("--iters", type=positive_int, default=50)
    ap.add_argument("--warmup", type=positive_int, default=10)
    ap.add_argument("--json", default=None)
    ap.add_argument("--dry-run", action="store_true", help="tiny shapes on the CPU (see above)")
    args = ap.parse_args(argv)

    import torch
    import fusednorm  # noqa: F401  (registers torch.ops.fusednorm)
    ops = torch.ops.fusednorm

    if args.dry_run:
        device, shape, iters, warmup = "cpu", (2, 16, 4, 64), 3, 1
    else:
        if not torch.cuda.is_available():
            print("layout_bench: no CUDA device (use --dry-run for the CPU check)", file=sys.stderr)
            return 2
        device, shape, iters, warmup = "cuda", args.shape, args.iters, args.warmup
    dtype = getattr(torch, DTYPES[args.dtype])
    b, s, h, d = shape
    seed = 1234
    g = torch.Generator(device="cpu").manual_seed(seed)
    print(f"layout_bench: seed {seed}, shape {list(shape)} {args.dtype} on {device}")

    def rnd(*sz):
        return torch.randn(*sz, generator=g).to(device=device, dtype=dtype)
    # The transposed layout: [B, H, S, D] storage viewed as [B, S, H, D].
    xt, dyt = rnd(b, h, s, d).transpose(1, 2), rnd(b, h, s, d).transpose(1, 2)
    xc, dyc = xt.contiguous(), dyt.contiguous()
    w = (1.0 + 0.1 * torch.randn(d, generator=g)).to(device=device, dtype=dtype)

    def step(x, dy):
        y, rstd = ops.rms_norm_fwd(x, w, 1e-6, 0.0, "llama", None)
        dx, dw = ops.rms_norm_bwd(dy, x, w, rstd, 1e-6, 0.0, "llama", None)
        return y, rstd, dx, dw

    got, want = step(xt, dyt), step(xc, dyc)
    same = all(torch.equal(a.view(torch.uint8) if a.dtype != torch.float32 else a.view(torch.int32),
                           b_.view(torch.uint8) if b_.dtype != torch.float32 else b_.view(torch.int32))
               for a, b_ in zip(got, want))
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        step(xt, dyt)
    copies = sum(1 for e in prof.events() if e.name in COPY_OPS)

    def timed(x, dy):
        for _ in range(warmup):
            step(x, dy)
        ts = []
        for _ in range(iters):
            if device == "cuda":
                a, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                step(x, dy)
                e.record()
                e.synchronize()
                ts.append(a.elapsed_time(e) * 1e3)
            else:
                t0 = time.perf_counter()
                step(x, dy)
                ts.append((time.perf_counter() - t0) * 1e6)
        return statistics.median(ts)
    # Interleaved halves so that clock drift does not favour one layout.
    tc1, tt1, tc2, tt2 = timed(xc, dyc), timed(xt, dyt), timed(xc, dyc), timed(xt, dyt)
    tc, tt = min(tc1, tc2), min(tt1, tt2)
    ratio = tt / tc
    print(f"contiguous: {tc:9.1f} us fwd+bwd (median)")
    print(f"transposed: {tt:9.1f} us fwd+bwd (median)  ratio {ratio:.3f}")
    print(f"bitwise equal: {same}; aten copies inside the ops (transposed): {copies}")
    res = {"device": torch.cuda.get_device_name() if device == "cuda" else platform.processor() or "cpu",
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "shape": list(shape),
           "dtype": args.dtype, "iters": iters, "contiguous_us": tc, "transposed_us": tt,
           "ratio": ratio, "bitwise_equal": same, "copies": copies, "dry_run": args.dry_run}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    if not same or copies:
        print("layout_bench: FAILED: " + ("layouts differ" if not same else f"{copies} copies ran"))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
