#!/usr/bin/env python3
"""run2's grid through bench.py: persistent / row-packed time by input mode, dtype and op, by row
count and by width, and AUTO against the faster of the two.  run2_table.py run2/bench.json.gz"""
import collections
import gzip
import json
import math
import sys


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main(path):
    with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
        j = json.load(f)
    t = {}
    for r in j["results"]:
        if r["status"] == "ok":
            t[(r["inputs"], r["dtype"], r["op"], r["M"], r["N"], r["provider"].split(":")[1])] = r["median_us"]
    by = collections.defaultdict(list)
    for k, v in t.items():
        rp = t.get(k[:5] + ("row_packed",))
        if k[5] == "persistent" and rp:
            q = v / rp
            by[("mode", k[0], k[1], k[2])].append(q)
            by[("rows", k[3])].append(q)
            by[("cols", k[4])].append(q)
    print("persistent / row_packed time (> 1: row-packed faster)")
    for k in sorted(by, key=str):
        q = by[k]
        print(f"  {' '.join(map(str, k)):28s} geomean {gm(q):.3f}  row-packed faster in {sum(x > 1 for x in q):3d} of {len(q)}")
    aq, miss = [], 0
    for k, v in t.items():
        if k[5] != "auto":
            continue
        b = min(t[k[:5] + (m,)] for m in ("persistent", "row_packed") if k[:5] + (m,) in t)
        aq.append(v / b)
        miss += v > 1.03 * b
    print(f"AUTO / the faster of the two: geomean {gm(aq):.3f}, more than 3% behind in {miss} of {len(aq)}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: run2_table.py run2/bench.json[.gz]")
    main(sys.argv[1])
