#!/usr/bin/env python3
"""Per-call overhead of fusednorm against torch.nn.functional.rms_norm on a tiny tensor.

    python3 tools/bench/overhead.py [--device cpu|cuda] [--shape 1x128] [--iters 20000]
                                    [--repeats 7] [--json out.json]

On a 1x128 tensor the kernel is negligible, so the time per call is the Python + dispatcher +
autograd-recording cost. Three rows, torch against fusednorm in each: the function forward with
autograd recording (input and weight require grad), the same under torch.no_grad, and the
modules (torch.nn.RMSNorm against fusednorm.RMSNorm, autograd on). Times are the median over
--repeats runs of --iters calls each, torch's and fusednorm's runs interleaved (CUDA: synchronized once per run, so it is the host-side
cost). Prints microseconds per call and the ratio fusednorm / torch; exits 2 with the reason on
a bad argument.
Needs fusednorm importable (the wheel, or FUSEDNORM_LIBRARY=bazel-bin/shim/libfusednorm_ops.so
PYTHONPATH=shim/python).
"""

import argparse
import json
import platform
import statistics
import sys
import time


def positive_int(s):
    v = int(s)
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {s}")
    return v


def shape_arg(s):
    try:
        dims = tuple(int(d) for d in s.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"shape must look like 1x128, got {s!r}") from None
    if not dims or any(d <= 0 for d in dims):
        raise argparse.ArgumentTypeError(f"shape dims must be positive, got {s!r}")
    return dims


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--shape", type=shape_arg, default=(1, 128))
    p.add_argument("--iters", type=positive_int, default=20000)
    p.add_argument("--repeats", type=positive_int, default=7)
    p.add_argument("--json", default=None)
    try:
        args = p.parse_args()
    except SystemExit as e:
        return 2 if e.code else 0
    import torch
    import fusednorm
    if args.device == "cuda" and not torch.cuda.is_available():
        print("overhead.py: --device cuda but no CUDA device is visible", file=sys.stderr)
        return 2
    dev = torch.device(args.device)
    n = args.shape[-1]
    x = torch.randn(*args.shape, device=dev)
    w = torch.ones(n, device=dev)
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    F = torch.nn.functional

    def run(fn):
        if dev.type == "cuda":
            torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(args.iters):
            fn()
        if dev.type == "cuda":
            torch.cuda.synchronize()
        return (time.perf_counter() - t) / args.iters * 1e6

    def timed_pair(fa, fb):
        # Interleaved repeats: a machine whose load changes over the run biases both alike.
        for _ in range(min(1000, args.iters)):
            fa()
            fb()
        ta, tb = [], []
        for _ in range(args.repeats):
            ta.append(run(fa))
            tb.append(run(fb))
        return statistics.median(ta), statistics.median(tb)

    rows = {}
    rows["torch autograd"], rows["fusednorm autograd"] = timed_pair(
        lambda: F.rms_norm(xg, (n,), wg, 1e-6), lambda: fusednorm.rms_norm(xg, wg, 1e-6))
    with torch.no_grad():
        rows["torch no_grad"], rows["fusednorm no_grad"] = timed_pair(
            lambda: F.rms_norm(x, (n,), w, 1e-6), lambda: fusednorm.rms_norm(x, w, 1e-6))
    # Modules (what a patched model calls): torch.nn.RMSNorm vs fusednorm.RMSNorm, autograd on.
    tm = torch.nn.RMSNorm(n, eps=1e-6, device=dev)
    fm = fusednorm.RMSNorm(n, eps=1e-6, device=dev)
    rows["torch module"], rows["fusednorm module"] = timed_pair(lambda: tm(xg), lambda: fm(xg))
    try:
        load = " load average %.1f" % __import__("os").getloadavg()[0]
    except OSError:
        load = ""
    info = dict(device=args.device, shape=list(args.shape), iters=args.iters,
                repeats=args.repeats, torch=torch.__version__, threads=torch.get_num_threads(),
                cpu=platform.processor() or platform.machine(),
                date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), load=load.strip())
    print(f"overhead per call, {args.device} {'x'.join(map(str, args.shape))}, median of "
          f"{args.repeats} x {args.iters} calls, torch {torch.__version__}, "
          f"{info['threads']} threads, {info['date']},{load}")
    for mode in ("autograd", "no_grad", "module"):
        t, f = rows[f"torch {mode}"], rows[f"fusednorm {mode}"]
        print(f"  {mode:9s} torch {t:7.2f} us   fusednorm {f:7.2f} us   ratio {f / t:5.2f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(dict(info, us_per_call=rows), fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
