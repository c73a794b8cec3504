#!/usr/bin/env python3
"""Where the sweep's geomean is lost, by the family AUTO ran (CPU). Reads bench.json.gz here and
asks select.c for each case's plan through plan_of (tools/bench/results/bench_h200_2026-11-28_sweep/
plan_of.c, built from this checkout's kernels/src):
  gcc -O1 -I. -Ikernels/include tools/bench/results/bench_h200_2026-11-28_sweep/plan_of.c \
      kernels/src/select.c kernels/src/common.c -lm -o /tmp/plan_of
  python3 families.py /tmp/plan_of [INPUTS [BENCH_JSON_GZ]]
INPUTS: cold (default) or hot; BENCH_JSON_GZ: another run's bench.json.gz (default: the one here;
the hot sweep of the same day: ../bench_h200_2026-11-29_hot_sweep/bench.json.gz hot)."""
import collections, gzip, json, math, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
inputs = sys.argv[2] if len(sys.argv) > 2 else "cold"
rows = json.load(gzip.open(sys.argv[3] if len(sys.argv) > 3 else os.path.join(here, "bench.json.gz")))["results"]
by = collections.defaultdict(dict)
for r in rows:
    if r["status"] == "ok" and r["inputs"] == inputs:
        by[(r["dtype"], r["M"], r["N"], r["op"])][r["provider"]] = r["median_us"]
keys = sorted(k for k, v in by.items() if "fusednorm:auto" in v and len(v) > 1)
plans = subprocess.run([sys.argv[1]], input="".join("%s %d %d %s auto\n" % k for k in keys),
                       capture_output=True, text=True, check=True).stdout.splitlines()
fam = collections.defaultdict(list)
total = 0.0
bestc = collections.Counter()
for k, line in zip(keys, plans):
    v = by[k]
    peer, pus = min(((p, t) for p, t in v.items() if not p.startswith("fusednorm")), key=lambda x: x[1])
    ratio = pus / v["fusednorm:auto"]
    bestc[peer] += 1
    fam[line.split()[4]].append((ratio, k, peer))
    total += min(0.0, math.log(ratio))
print("best peer:", dict(bestc))
print("| AUTO's family | cases | geomean vs best peer | share of the losses | below 0.97x | worst |")
print("|---|---:|---:|---:|---:|---|")
for f, l in sorted(fam.items(), key=lambda kv: sum(min(0.0, math.log(r)) for r, _, _ in kv[1])):
    g = math.exp(sum(math.log(r) for r, _, _ in l) / len(l))
    share = sum(min(0.0, math.log(r)) for r, _, _ in l) / total if total else 0.0
    r, k, p = min(l)
    print(f"| `{f}` | {len(l)} | {g:.2f}x | {abs(100 * share):.0f}% | {sum(r < 0.97 for r, _, _ in l)} | "
          f"{r:.2f}x ({k[0]} {k[1]} x {k[2]} {k[3]}, {p.split(':')[0]}) |")
