"""AUTO against the fastest forced mode per case, from bench.py --providers fusednorm runs.

    python3 analyze.py cold=A.json.gz,B.json.gz hot=C.json.gz

Per input mode: the geomean of min(1, fastest forced mode's us / AUTO's us) over the cases (a case
where AUTO is the fastest counts 1) and the cases where AUTO is more than 3% behind, worst first.
"""
import collections, gzip, json, math, sys

for arg in sys.argv[1:]:
    label, files = arg.split("=", 1)
    cases = collections.defaultdict(dict)
    for f in files.split(","):
        for r in json.load(gzip.open(f))["results"]:
            if r.get("status") == "ok":
                cases[(r["case"], r["dtype"], r["op"], r["M"], r["N"])][r["provider"]] = r["median_us"]
    ratios, behind = [], []
    for k, v in sorted(cases.items()):
        auto = v.get("fusednorm:auto")
        forced = [(us, p) for p, us in v.items() if p != "fusednorm:auto"]
        if auto is None or not forced:
            continue
        best_us, best_p = min(forced)
        ratio = min(1.0, best_us / auto)
        ratios.append(ratio)
        if ratio < 0.97:
            behind.append((ratio, k, auto, best_us, best_p))
    g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    print(f"{label}: {len(ratios)} cases, AUTO / the fastest mode {g:.3f}x, {len(behind)} more than 3% behind")
    for ratio, k, auto, best_us, best_p in sorted(behind):
        print(f"  {ratio:.3f}  case {k[0]} {k[1]} {k[3]} x {k[4]} {k[2]}: auto {auto:.1f} us, {best_p} {best_us:.1f}")
