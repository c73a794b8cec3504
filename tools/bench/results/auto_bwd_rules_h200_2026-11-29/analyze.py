#!/usr/bin/env python3
"""The tables of README.md from this folder's runs (CPU): AUTO against the best forced mode on the
sweep (modes_sweep), and the row-packed / persistent grid (rowpacked_grid, min of the two runs)."""
import collections, gzip, json, math, os, sys

here = os.path.dirname(os.path.abspath(__file__))


def load(path):
    with gzip.open(os.path.join(here, path, "bench.json.gz")) as f:
        return [r for r in json.load(f)["results"] if r["status"] == "ok"]


def modes():
    by = collections.defaultdict(dict)
    for r in load("modes_sweep"):
        by[(r["dtype"], r["M"], r["N"], r["op"])][r["provider"].split(":")[1]] = r["median_us"]
    logs, worse = [], []
    for k, v in by.items():
        best_us, best = min((t, m) for m, t in v.items() if m != "auto")
        logs.append(math.log(v["auto"] / best_us))
        if v["auto"] > 1.03 * best_us:
            worse.append((v["auto"] / best_us, k, v["auto"], best, best_us))
    print(f"AUTO / best forced mode: {len(by)} cases, geomean {math.exp(sum(logs) / len(logs)):.3f}, "
          f"{len(worse)} more than 3% slower:")
    for ratio, k, a, m, t in sorted(worse, reverse=True):
        print(f"  {k[0]} {k[1]} x {k[2]} {k[3]}: AUTO {a:.2f} us, {m} {t:.2f} us ({ratio:.3f}x)")


def grid():
    by = collections.defaultdict(lambda: collections.defaultdict(list))
    for run in ("rowpacked_grid/x1", "rowpacked_grid/x2"):
        for r in load(run):
            by[(r["dtype"], r["M"], r["N"], r["op"])][r["provider"].split(":")[1]].append(r["median_us"])
    print("persistent / row-packed time (> 1: row-packed faster), geomean over bwd and fused bwd and the widths:")
    print("rows   dtype  <=128 columns  200-256 columns")
    for m in sorted({k[1] for k in by}):
        for dt in ("bf16", "fp32"):
            lo, hi = [], []
            for (d, M, N, _), v in by.items():
                if d == dt and M == m and v["row_packed"] and v["persistent"]:
                    (lo if N <= 128 else hi).append(math.log(min(v["persistent"]) / min(v["row_packed"])))
            g = lambda l: math.exp(sum(l) / len(l))
            print(f"{m:5d}  {dt:5s}  {g(lo):13.3f}  {g(hi):15.3f}")


if __name__ == "__main__":
    modes() if sys.argv[1:] == ["modes"] else grid() if sys.argv[1:] == ["grid"] else (modes(), grid())
