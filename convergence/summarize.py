#!/usr/bin/env python3
"""Summarize convergence reports (train.py's <model>_<dtype>.json) as a Markdown table and one
overview PNG (smoothed loss of reference vs fusednorm, one panel per config).

    python3 convergence/summarize.py DIR [--png convergence/results/overview.png]

Exit 0 if every report passed, 1 if any failed, 2 if DIR holds no report or one is unreadable.
"""

import argparse
import json
import sys
from pathlib import Path

ORDER = {"llama": 0, "qwen3": 1, "gemma3": 2, "bf16": 0, "fp32": 1}


def load(d):
    reps = []
    for p in sorted(Path(d).glob("*.json")):
        r = json.loads(p.read_text())
        if r.get("format") != "fusednorm-convergence":
            continue
        if r.get("version") != 1:
            raise ValueError(f"{p}: report version {r.get('version')}, this reads version 1")
        reps.append(r)
    reps.sort(key=lambda r: (ORDER.get(r["model"], 9), ORDER.get(r["dtype"], 9)))
    return reps


def recheck(r):
    """Re-evaluate a stored report with the current checks of train.py, from its per-step data.
    Final-parameter and bitwise-repeat checks need the parameters, which reports do not hold:
    their stored results are kept (marked as such)."""
    import argparse as ap
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import train
    runs = r["runs"]
    spread = [runs[k] for k in sorted(runs) if k.startswith("ref+")]
    args = ap.Namespace(dtype=r["dtype"], steps=r["steps"])
    checks, _, _ = train.compare(args, runs["ref"], runs["fused"], None, spread, with_params=False)
    for c in r["checks"]:
        if c["check"] in ("final_params", "fused_bitwise_repeat"):
            checks.append(dict(c, detail=c["detail"] + " [from the run]"))
    failed = [c for c in checks if not c["passed"]]
    r = dict(r, checks=checks, passed=not failed, tolerances=train.TOLERANCES,
             first_failing_step=min(c["first_failing_step"] for c in failed) if failed else None,
             rechecked={"original_passed": r["passed"], "original_first_failing_step": r["first_failing_step"],
                        "original_checks": r["checks"]})
    r.pop("band", None)
    return r


def detail(r, name):
    for c in r["checks"]:
        if c["check"] == name:
            return c
    return None


def table(reps):
    rows = ["| model | dtype | ranks | steps | ms/step ref / fused | early loss (worst / tol) | "
            "long smoothed loss (worst / band) | final eval ref / fused (band) | params rel. disp. | "
            "bitwise repeat | result |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in reps:
        e = detail(r, "early_loss")
        lg = detail(r, "long_smoothed_loss")
        fe = detail(r, "final_eval_loss")
        fp = detail(r, "final_params")
        bw = detail(r, "fused_bitwise_repeat")
        ref, fus = r["runs"]["ref"], r["runs"]["fused"]

        def worst(c):
            if c is None:
                return "n/a"
            if not c["passed"]:
                return f"FAIL at step {c['first_failing_step']}"
            d = c["detail"]
            return d[d.find("worst") + 6:d.find(" of")] if "worst" in d else "pass"
        band = fe["detail"].split("band ")[1].split(" ")[0] if fe else "n/a"
        rows.append(
            f"| {r['model']} | {r['dtype']} | {r['world_size']} | {r['steps']} | "
            f"{ref['ms_per_step']:.1f} / {fus['ms_per_step']:.1f} | {worst(e)} | {worst(lg)} | "
            f"{ref['eval'][-1][1]:.4f} / {fus['eval'][-1][1]:.4f} ({band}) | "
            f"{fp['detail'].split('= ')[1].split(' ')[0]} | "
            f"{'identical' if bw and bw['passed'] else ('DIFFERS' if bw else 'n/a')} | "
            f"{'PASS' if r['passed'] else 'FAIL step ' + str(r['first_failing_step'])} |")
    return "\n".join(rows)


def overview_png(reps, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from train import smooth, TOLERANCES
    w = TOLERANCES["smooth_window"]["loss"]
    n = len(reps)
    cols = 2
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(10, 3 * rows), squeeze=False)
    for ax, r in zip(axes.flat, reps):
        steps = np.arange(1, r["steps"] + 1)
        for k, run in r["runs"].items():
            if k.startswith("ref+"):
                ax.plot(steps, smooth(run["loss"], w), color="0.6", ls=":", lw=1)
        ax.plot(steps, smooth(r["runs"]["ref"]["loss"], w), color="C0", label="reference")
        ax.plot(steps, smooth(r["runs"]["fused"]["loss"], w), color="C1", ls="--", label="fusednorm")
        ax.set_title(f"{r['model']} {r['dtype']} ({'PASS' if r['passed'] else 'FAIL'})", fontsize=10)
        ax.set_ylabel("loss")
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    r0 = reps[0]
    fig.suptitle(f"fusednorm vs stock RMSNorm: {r0['world_size']} ranks, {r0['device']}, {r0['date']}", fontsize=10)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=80)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir")
    p.add_argument("--png")
    p.add_argument("--recheck", metavar="OUTDIR",
                   help="re-evaluate the reports with the current checks, write them to OUTDIR")
    p.add_argument("--json", metavar="FILE", help="write a compact summary (config, checks) as JSON")
    a = p.parse_args(argv)
    try:
        reps = load(a.dir)
        if a.recheck:
            reps = [recheck(r) for r in reps]
            out = Path(a.recheck)
            out.mkdir(parents=True, exist_ok=True)
            for r in reps:
                (out / f"{r['model']}_{r['dtype']}.json").write_text(json.dumps(r, separators=(",", ":")))
    except (OSError, ValueError, KeyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not reps:
        print(f"error: no convergence report in {a.dir}", file=sys.stderr)
        return 2
    if a.json:
        keep = ("model", "dtype", "size", "model_config", "steps", "world_size", "device", "backend", "date",
                "torch", "transformers", "data", "seed", "lr", "global_batch", "passed", "first_failing_step",
                "checks", "nondeterminism_warnings")
        summary = []
        for r in reps:
            s = {k: r.get(k) for k in keep}
            s["ms_per_step"] = {k: v["ms_per_step"] for k, v in r["runs"].items()}
            s["final_eval"] = {k: v["eval"][-1][1] for k, v in r["runs"].items()}
            if "rechecked" in r:
                s["original_passed"] = r["rechecked"]["original_passed"]
                s["original_failed_checks"] = [c for c in r["rechecked"]["original_checks"] if not c["passed"]]
            summary.append(s)
        Path(a.json).write_text(json.dumps(summary, indent=1))
    r0 = reps[0]
    print(f"device: {r0['device']} x {r0['world_size']} ({r0['backend']}), date {r0['date']}, "
          f"torch {r0['torch']}, transformers {r0['transformers']}, size {r0['size']} {r0['model_config']}")
    print()
    print(table(reps))
    if a.png:
        overview_png(reps, a.png)
    return 0 if all(r["passed"] for r in reps) else 1


if __name__ == "__main__":
    sys.exit(main())
