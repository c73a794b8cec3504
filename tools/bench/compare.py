#!/usr/bin/env python3
"""Before/after table of two bench.py runs (CPU; reads their bench.json or bench.json.gz).

    python3 tools/bench/compare.py BEFORE.json AFTER.json [--provider fusednorm:auto]
                                   [--labels before,after] [--out compare.md]
    python3 tools/bench/compare.py B1.json,B2.json A1.json,A2.json ...   (paired runs)

Matches the two runs' results case by case (dtype, M, N, op, input mode) for one fusednorm
provider and prints, per case: the median us of each run, the speed-up (before / after) and the
fastest peer's us with the after run's ratio to it (peers: every provider not named fusednorm*,
taken from the after run, else from the before run). Then, per input mode and direction (forward:
fwd and add_fwd; backward: bwd and add_bwd), the geomean speed-up over the common cases and each
run's geomean against the best peer over the same cases, so that two sweeps of one seed compare
like for like. Times are compared only where both runs' outputs passed their checks.

Paired runs: BEFORE and AFTER may each be a comma-separated list of the same length, measured
interleaved on one machine (B1, A1, B2, A2, ...: a GPU's speed drifts by a few percent over
minutes, and a gain of that size needs the drift to fall on both builds alike). Per case the us
columns are then the means over the runs, the speed-up the geomean over the pairs of
B_i / A_i, and a case counts only where every run has it; the summary adds the drift, the geomean
of B_1 / B_last over the same cases (the same build measured twice: read speed-ups within it as
noise).

The runs should come from one machine (the device and date of each are printed). Exit 0 with the
table on stdout (and in --out), 2 with the reason on stderr: a file missing or not a bench.json,
the provider absent from either run, or no case in common.
"""

import argparse
import gzip
import json
import math
import os
import sys


def fail(msg):
    print(f"compare: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    if not os.path.isfile(path):
        fail(f"{path}: no such file")
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            data = json.load(f)
    except (OSError, ValueError, EOFError) as e:
        fail(f"{path}: not a bench.json ({e.__class__.__name__}: {e})")
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        fail(f"{path}: not a bench.json (no 'results' list)")
    return data


def times(data, path):
    """{(dtype, M, N, op, inputs): {provider: median us}} over the results that ran and passed."""
    out = {}
    for r in data["results"]:
        try:
            key = (r["dtype"], int(r["M"]), int(r["N"]), r["op"], r.get("inputs", "cold"))
            prov, us = r["provider"], r.get("median_us")
        except (KeyError, TypeError, ValueError):
            fail(f"{path}: a result without dtype/M/N/op/provider")
        if r.get("status") != "ok" or r.get("check_ok") is False or not isinstance(us, (int, float)) or us <= 0:
            continue
        out.setdefault(key, {})[prov] = float(us)
    return out


def kernel_library(doc):
    """The sha256 prefixes of the libfusednorm.so a run loaded (bench.py meta "libraries"); empty
    for runs that did not record them."""
    return {x.get("sha256") for x in doc.get("meta", {}).get("libraries", [])
            if os.path.basename(x.get("path", "")) == "libfusednorm.so" and x.get("sha256")}


def best_peer(provs):
    peers = {p: t for p, t in provs.items() if not p.startswith("fusednorm")}
    if not peers:
        return None, None
    p = min(peers, key=peers.get)
    return p, peers[p]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def merged(runs, provider):
    """The runs' times, each run checked for the provider: {key: {provider: mean us}} over the
    keys every run has for `provider` (other providers: the last run's), and the list of the
    runs' own {key: us} for `provider`."""
    per = []
    for data, path in runs:
        t = times(data, path)
        if not any(provider in v for v in t.values()):
            fail(f"{path}: provider {provider} not in the run")
        per.append(t)
    own = [{k: v[provider] for k, v in t.items() if provider in v} for t in per]
    keys = set(own[0]).intersection(*own[1:])
    out = {}
    for k in keys:
        out[k] = dict(per[-1].get(k, {}))
        out[k][provider] = sum(o[k] for o in own) / len(own)
    return out, own


def compare(before, after, provider, labels):
    """before, after: lists of (bench.json data, path), paired in order (one run each: a plain
    before/after)."""
    if len(before) != len(after):
        fail(f"{len(before)} before run(s) against {len(after)} after run(s): paired runs need as many of each")
    a, own_a = merged(before, provider)
    b, own_b = merged(after, provider)
    keys = sorted((k for k in a if k in b), key=lambda k: (k[4], k[1] * k[2], k[0], k[3]))
    if not keys:
        fail("no case measured in both runs")
    la, lb = labels
    meta = lambda d: f"{d.get('meta', {}).get('device', '?')}, {d.get('meta', {}).get('date', '?')}"
    kernels = [kernel_library(d) for d, _ in before + after]
    same = kernels[0] and all(x == kernels[0] for x in kernels[len(before):])
    if same:
        print(f"compare: both runs loaded the same libfusednorm.so ({', '.join(sorted(kernels[0]))})", file=sys.stderr)
    names = lambda runs: " + ".join(f"{p} ({meta(d)})" for d, p in runs)
    lines = [f"# {provider}: {la} vs {lb}", "", f"- {la}: {names(before)}", f"- {lb}: {names(after)}"]
    if len(before) > 1:
        lines.append(f"- {len(before)} interleaved pairs: us = mean over the runs, speed-up = geomean over the "
                     f"pairs of {la}_i / {lb}_i")
    speedup = {k: geomean([oa[k] / ob[k] for oa, ob in zip(own_a, own_b)]) for k in keys}
    if same:
        lines.append(f"- **Both runs loaded the same libfusednorm.so (sha256 {', '.join(sorted(kernels[0]))}): "
                     "this compares a build with itself.**")
    lines += [
             "- us = median kernel time of bench.py; speed-up = "
             f"{la} / {lb}; best peer = the fastest provider not named fusednorm* "
             f"({lb} run, else {la}); vs peer = best peer us / {lb} us (> 1: fusednorm faster)", "",
             f"| case | inputs | {la} us | {lb} us | speed-up | best peer | peer us | {lb} vs peer |",
             "|---|---|---:|---:|---:|---|---:|---:|"]
    groups = {}
    for k in keys:
        ta, tb = a[k][provider], b[k][provider]
        peer, tp = best_peer(b[k])
        if peer is None:
            peer, tp = best_peer(a[k])
        _, tpa = best_peer(a[k])
        vs = f"{tp / tb:.2f}x" if tp else "-"
        lines.append(f"| {k[0]} {k[1]} x {k[2]} {k[3]} | {k[4]} | {ta:.2f} | {tb:.2f} | {speedup[k]:.2f}x | "
                     f"{peer or '-'} | {f'{tp:.2f}' if tp else '-'} | {vs} |")
        g = groups.setdefault((k[4], "backward" if k[3].endswith("bwd") else "forward"), [[], [], [], []])
        g[0].append(speedup[k])
        if len(own_a) > 1:
            g[3].append(own_a[0][k] / own_a[-1][k])
        if tpa and tp:
            g[1].append(tpa / ta)
            g[2].append(tp / tb)
    drift = len(own_a) > 1
    lines += ["", f"| inputs | direction | cases | geomean speed-up | {la} vs best peer | {lb} vs best peer |"
                  + (f" drift ({la}_1 / {la}_{len(own_a)}) |" if drift else ""),
              "|---|---|---:|---:|---:|---:|" + ("---:|" if drift else "")]
    for (inp, d), (sp, pa, pb, dr) in sorted(groups.items()):
        peer_cols = f"{geomean(pa):.3f}x | {geomean(pb):.3f}x" if pa else "- | -"
        lines.append(f"| {inp} | {d} | {len(sp)} | {geomean(sp):.3f}x | {peer_cols} |"
                     + (f" {geomean(dr):.3f}x |" if drift else ""))
    only_a = sum(1 for k in a if k not in b)
    only_b = sum(1 for k in b if k not in a)
    if only_a or only_b:
        lines += ["", f"Not compared (not run, or not passing its check, in the other run): {only_a} case(s) "
                      f"only in {la}, {only_b} only in {lb}."]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", help="a bench.json, or several (comma-separated) paired with AFTER's")
    ap.add_argument("after", help="a bench.json, or as many as BEFORE (comma-separated)")
    ap.add_argument("--provider", default="fusednorm:auto", help="the fusednorm provider compared")
    ap.add_argument("--labels", default="before,after", help="two comma-separated column labels")
    ap.add_argument("--out", help="also write the table to this file")
    a = ap.parse_args(argv)
    labels = a.labels.split(",")
    if len(labels) != 2 or not all(labels):
        ap.error(f"--labels needs two names, got {a.labels!r}")
    runs = lambda arg: [(load(p), p) for p in arg.split(",") if p]
    text = compare(runs(a.before), runs(a.after), a.provider, labels)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
