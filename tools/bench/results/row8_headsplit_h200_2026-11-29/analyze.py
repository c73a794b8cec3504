#!/usr/bin/env python3
"""Paired AUTO before / after (run3.sh): python3 analyze.py paired/ -> analyze.txt.
The folder holds p<i>_<lib>_<kind>/bench.json.gz, lib fin = main 957a5d6, x1 = the kernels of a8d5723;
kind b32 / b16 = f32 / bf16 backward, f16 = fp16 forward. Per case: the mean of the two runs of
each library (old/new/new/old), the ratio old / new (> 1: faster now), and old run 1 / old run 4
(the run's drift); then the geomean per kind. Forced `fusednorm:wide` (run 2 only) is listed."""
import collections
import glob
import gzip
import json
import math
import os
import sys

runs = collections.defaultdict(dict)
for f in sorted(glob.glob(os.path.join(sys.argv[1], "p?_*_*/bench.json.gz"))):
    i, lib, kind = os.path.basename(os.path.dirname(f)).split("_")
    for x in json.load(gzip.open(f, "rt"))["results"]:
        if x.get("median_us") is not None:
            runs[(kind, x["dtype"], x["M"], x["N"], x["provider"])][(i, lib)] = x["median_us"]
out = []
for k, v in sorted(runs.items()):
    if k[4] != "fusednorm:auto":
        print(f"{k[0]} {k[1]} {k[2]}x{k[3]}: forced {k[4]} {list(v.values())[0]:.2f} us")
        continue
    old = [t for (i, lib), t in sorted(v.items()) if lib == "fin"]
    new = [t for (i, lib), t in sorted(v.items()) if lib != "fin"]
    if old and new:
        mo, mn = sum(old) / len(old), sum(new) / len(new)
        out.append((k, mo / mn))
        print(f"{k[0]} {k[1]} {k[2]}x{k[3]}: old {mo:8.2f} new {mn:8.2f} us  {mo / mn:.3f}x  drift {old[0] / old[-1]:.3f}")
for kind in ("b32", "b16", "f16"):
    rs = [r for k, r in out if k[0] == kind]
    if rs:
        print(kind, "geomean", f"{math.exp(sum(map(math.log, rs)) / len(rs)):.3f}x over {len(rs)}")
