#!/usr/bin/env python3
"""AUTO's time per element at each odd width against the nearest aligned one, from bench.py's
logs (their "[bench] DTYPE MxN INPUTS ... fastest: OP fusednorm:auto GBPS (T us), ..." lines).
    pairs.py unal_bf16.log unal_fp16.log unal_fp32.log"""
import re
import sys


def main(paths):
    t = {}
    for p in paths:
        for line in open(p):
            m = re.match(r"\[bench\] (\w+) (\d+)x(\d+) (cold|hot) in .*fastest: (.*)", line)
            if not m:
                continue
            dt, M, N, inp, rest = m.groups()
            for op, us, unit in re.findall(r"(\w+) fusednorm:auto \d+ \(([\d.]+) (us|ms)\)", rest):
                t[(dt, int(M), int(N), inp, op)] = float(us) * (1000.0 if unit == "ms" else 1.0)
    print(f"{'dtype':5s} {'inputs':5s} {'odd':>12s} {'op':8s} {'odd us':>8s} {'aligned us':>10s} {'per element':>11s}")
    worst = {}
    for (dt, M, N, inp, op), us in sorted(t.items()):
        a = t.get((dt, M, N + 1, inp, op))
        if N % 2 == 0 or a is None:
            continue
        q = us / N / (a / (N + 1))
        print(f"{dt:5s} {inp:5s} {f'{M}x{N}':>12s} {op:8s} {us:8.1f} {a:10.1f} {q:10.2f}x")
        k = (dt, inp, op)
        worst[k] = max(worst.get(k, 0.0), q)
    print("worst by dtype, inputs and op:")
    for k, q in sorted(worst.items()):
        print(f"  {' '.join(k):24s} {q:.2f}x")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: pairs.py BENCH_LOG...")
    main(sys.argv[1:])
