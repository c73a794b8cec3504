#!/usr/bin/env python3
"""AUTO with the row-packed backward from 8 rows an SM (f1) and from 4 (c4), paired f1/c4/c4/f1
(run.sh): python3 analyze.py . -> analyze.txt. Per case old / new time (> 1: the lower cut
faster), then the geomean per rows and dtype."""
import collections
import glob
import gzip
import json
import math
import os
import sys

runs = collections.defaultdict(dict)
for f in sorted(glob.glob(os.path.join(sys.argv[1], "p?_*_nb/bench.json.gz"))):
    i, lib, _ = os.path.basename(os.path.dirname(f)).split("_")
    for x in json.load(gzip.open(f, "rt"))["results"]:
        if x.get("median_us"):
            runs[(x["dtype"], x["op"], x["M"], x["N"])][(i, lib)] = x["median_us"]
by = collections.defaultdict(list)
for k in sorted(runs):
    o = [t for (i, lib), t in runs[k].items() if lib == "f1"]
    n = [t for (i, lib), t in runs[k].items() if lib == "c4"]
    if len(o) == 2 and len(n) == 2:
        r = sum(o) / sum(n)
        by[(k[0], k[2])].append(r)
        print(f"{k[0]} {k[1]} {k[2]}x{k[3]}: {sum(o) / 2:.2f} -> {sum(n) / 2:.2f} us  {r:.3f}x")
for k in sorted(by):
    g = math.exp(sum(map(math.log, by[k])) / len(by[k]))
    print(f"{k[0]} {k[1]} rows: {g:.3f}x over {len(by[k])} (min {min(by[k]):.3f}, max {max(by[k]):.3f})")
