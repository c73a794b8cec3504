#!/usr/bin/env python3
"""Paired multi-seed verdict: is there a SYSTEMATIC difference between fusednorm and the reference?

    python3 convergence/seeds.py REPORT.json REPORT.json REPORT.json ... [--json OUT] [--md OUT]

Each REPORT is train.py's <model>_<dtype>.json of one seed (the same model, dtype, steps and
world size; different seeds). Per seed s it takes the paired differences fused - ref of
  * the final eval loss, and
  * the mean training loss over the long phase (steps EARLY_STEPS+1 .. S),
then the mean of each over the k seeds with a Student-t 95% confidence interval.

Why this check exists beside train.py's per-seed checks. train.py compares ONE fusednorm run
against the spread of the reference's own seeds (max - min over 3 seeds, or the 2% floor). In a
chaotic pure-bf16 run, the fused trajectory is just one more sample of that spread; a fourth
sample falls outside the range of three with probability 1/2 (exchangeability), and the 2% floor
only lowers that. So a per-seed FAIL alone cannot tell a kernel effect from a trajectory that
landed high. A kernel effect is systematic: it shifts the paired differences of every seed in
the same direction. This verdict asks exactly that.

Verdict (exit 0 PASS, 1 FAIL, 2 bad input): PASS when, for both quantities, the 95% confidence
interval of the mean paired difference lies inside +-band, where band is the issue's long-run
band: max(the reference's median seed spread, 2% of the reference's mean). A systematic effect as
large as the band would then have been seen; the CI says how large an effect the seeds can hide.
At least 3 seeds are required.
"""

import argparse
import json
import math
import os
import sys
from pathlib import Path

EARLY_STEPS = 32       # train.py's EARLY_STEPS: the long phase starts after it
REL_FLOOR = 0.02       # train.py's TOLERANCES["long_rel_floor"] for loss / eval loss
# Two-sided 95% Student-t quantiles, df = 1..30 (beyond: 1.96).
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
       2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
       2.052, 2.048, 2.045, 2.042]


def t95(df):
    return T95[df - 1] if df <= len(T95) else 1.96


def load(paths):
    reps = []
    for p in paths:
        try:
            r = json.loads(Path(p).read_text())
        except (OSError, ValueError) as e:
            raise ValueError(f"{p}: unreadable report ({e})")
        if r.get("format") != "fusednorm-convergence":
            raise ValueError(f"{p}: not a fusednorm-convergence report")
        for k in ("ref", "fused"):
            if k not in r.get("runs", {}):
                raise ValueError(f"{p}: no '{k}' run")
        r["_path"] = str(p)
        reps.append(r)
    if len(reps) < 3:
        raise ValueError(f"{len(reps)} report(s): a paired verdict needs at least 3 seeds")
    key = lambda r: (r["model"], r["dtype"], r["steps"], r.get("world_size"))
    if len({key(r) for r in reps}) != 1:
        raise ValueError("reports of different configurations: " + ", ".join(sorted({str(key(r)) for r in reps})))
    seeds = [r["seed"] for r in reps]
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"repeated seeds {seeds}: every report must be a different seed")
    if reps[0]["steps"] <= EARLY_STEPS + 1:
        raise ValueError(f"{reps[0]['steps']} steps: no long phase (needs > {EARLY_STEPS + 1})")
    return reps


def mean(xs):
    return sum(xs) / len(xs)


def quantity(run, name):
    if name == "final_eval_loss":
        return run["eval"][-1][1]
    return mean(run["loss"][EARLY_STEPS:])


def spread_of(rep, name):
    """The reference's seed spread of one report (ref + its ref+1, ref+2 ... runs)."""
    runs = [rep["runs"]["ref"]] + [v for k, v in sorted(rep["runs"].items()) if k.startswith("ref+")]
    vals = [quantity(r, name) for r in runs]
    return max(vals) - min(vals) if len(vals) > 1 else 0.0


def analyse(reps):
    out = {"model": reps[0]["model"], "dtype": reps[0]["dtype"], "steps": reps[0]["steps"],
           "seeds": [r["seed"] for r in reps], "quantities": {}, "passed": True}
    for name in ("final_eval_loss", "mean_loss_long"):
        d = [quantity(r["runs"]["fused"], name) - quantity(r["runs"]["ref"], name) for r in reps]
        k = len(d)
        m = mean(d)
        sd = math.sqrt(sum((x - m) ** 2 for x in d) / (k - 1))
        half = t95(k - 1) * sd / math.sqrt(k)
        spreads = sorted(spread_of(r, name) for r in reps)
        med = spreads[k // 2] if k % 2 else 0.5 * (spreads[k // 2 - 1] + spreads[k // 2])
        refmean = mean([quantity(r["runs"]["ref"], name) for r in reps])
        band = max(med, REL_FLOOR * abs(refmean))
        lo, hi = m - half, m + half
        ok = -band <= lo and hi <= band
        out["quantities"][name] = {
            "paired_diffs": d, "mean": m, "sd": sd, "ci95": [lo, hi], "band": band,
            "median_ref_seed_spread": med, "ref_mean": refmean, "positive": sum(x > 0 for x in d),
            "per_seed_passed": [r["passed"] for r in reps], "passed": ok}
        out["passed"] = out["passed"] and ok
    return out


def markdown(a):
    lines = [f"Paired seeds, {a['model']} {a['dtype']}, {a['steps']} steps, seeds {a['seeds']}:", "",
             "| quantity | fused - ref per seed | mean | 95% CI | band | verdict |", "|---|---|---|---|---|---|"]
    for name, q in a["quantities"].items():
        lines.append(f"| {name} | {', '.join(f'{x:+.4f}' for x in q['paired_diffs'])} | {q['mean']:+.4f} | "
                     f"[{q['ci95'][0]:+.4f}, {q['ci95'][1]:+.4f}] | +-{q['band']:.4f} | "
                     f"{'PASS' if q['passed'] else 'FAIL'} |")
    per = a["quantities"]["final_eval_loss"]["per_seed_passed"]
    lines += ["", f"Per-seed train.py verdicts: {sum(per)} of {len(per)} passed.",
              f"{'PASSED' if a['passed'] else 'FAILED'} paired verdict"]
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("reports", nargs="+")
    p.add_argument("--json", metavar="FILE", help="write the analysis as JSON")
    p.add_argument("--md", metavar="FILE", help="write the Markdown table")
    args = p.parse_args(argv)
    try:
        a = analyse(load(args.reports))
    except (ValueError, KeyError, IndexError, TypeError) as e:
        print(f"seeds.py: {e}", file=sys.stderr)
        return 2
    md = markdown(a)
    print(md)
    try:
        for path, text in ((args.json, json.dumps(a, indent=1)), (args.md, md)):
            if path:  # atomic, as train.py's reports: a reader never sees half a file
                tmp = Path(path + ".tmp")
                tmp.write_text(text + "\n")
                os.replace(tmp, path)
    except OSError as e:
        print(f"seeds.py: cannot write {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    return 0 if a["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
