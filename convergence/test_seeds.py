#!/usr/bin/env python3
"""CPU test of convergence/seeds.py (the paired multi-seed verdict) on synthetic reports whose
answer is known by construction, plus its bad-input exits and the recorded GPU reports.

    python3 convergence/test_seeds.py [--recorded DIR]

Synthetic loss curves are drawn fresh (seed printed); the paired differences are planted exactly,
so the verdicts do not depend on the draw. Exit 0 if all pass, 1 otherwise.
"""

import json
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import seeds  # noqa: E402

STEPS = 300


def curve(rng, final, offset):
    """A decaying loss curve ending near `final`, with noise, shifted by `offset` everywhere."""
    return [final + 3.0 * (0.985 ** t) + rng.gauss(0, 0.02) + offset for t in range(STEPS)]


def run(rng, final, offset, seed):
    loss = curve(rng, final, offset)
    return {"label": "x", "seed": seed, "loss": loss, "grad_norm": [1.0] * STEPS,
            "eval": [[31, loss[31]], [STEPS - 1, final + offset]]}


def report(rng, seed, diff, spread=0.02, model="llama", dtype="bf16", steps=STEPS):
    final = 1.7 + rng.uniform(-0.03, 0.03)
    ref = run(rng, final, 0.0, seed)
    fused = run(rng, final, diff, seed)
    # Make the long-phase mean difference exactly `diff` too: same curve, shifted.
    fused["loss"] = [x + diff for x in ref["loss"]]
    runs = {"ref": ref, "fused": fused, "ref+1": run(rng, final + spread, 0.0, seed + 1),
            "ref+2": run(rng, final - spread, 0.0, seed + 2)}
    return {"format": "fusednorm-convergence", "version": 1, "model": model, "dtype": dtype,
            "steps": steps, "world_size": 2, "seed": seed, "passed": abs(diff) < 0.034, "runs": runs}


def write(tmp, reps):
    paths = []
    for i, r in enumerate(reps):
        p = Path(tmp) / f"r{i}.json"
        p.write_text(json.dumps(r))
        paths.append(str(p))
    return paths


def main(argv):
    recorded = None
    if len(argv) > 2 and argv[1] == "--recorded":
        recorded = argv[2]
    seed = random.SystemRandom().randrange(1 << 30)
    rng = random.Random(seed)
    print(f"test_seeds: seed {seed}")
    failures = []

    def expect(name, got, want):
        print(f"  {'ok  ' if got == want else 'FAIL'} {name}: exit {got} (want {want})")
        if got != want:
            failures.append(name)

    with tempfile.TemporaryDirectory() as tmp:
        # 1. No systematic effect: differences that cancel (+a, -a, ...): PASS, even though one
        #    seed alone (0.045) lies outside train.py's per-seed band.
        diffs = [0.045, -0.045, 0.02, -0.02, 0.005, -0.005]
        paths = write(tmp, [report(rng, 100 + 10 * i, d) for i, d in enumerate(diffs)])
        expect("cancelling differences pass", seeds.main(paths + ["--json", f"{tmp}/a.json"]), 0)
        a = json.loads(Path(f"{tmp}/a.json").read_text())
        q = a["quantities"]["final_eval_loss"]
        if abs(q["mean"]) > 1e-9 or not q["ci95"][0] < 0 < q["ci95"][1]:
            failures.append("mean/CI of cancelling differences")
            print(f"  FAIL mean {q['mean']} ci {q['ci95']}")
        # 2. A planted systematic shift of +3% of the loss in every seed (small scatter): FAIL.
        diffs = [0.051 + 0.004 * ((-1) ** i) for i in range(6)]
        paths = write(tmp, [report(rng, 200 + 10 * i, d) for i, d in enumerate(diffs)])
        expect("systematic +3% shift fails", seeds.main(paths), 1)
        # 3. A shift the seeds cannot bound (large scatter, 3 seeds): the CI leaves the band: FAIL.
        diffs = [0.06, -0.05, 0.03]
        paths = write(tmp, [report(rng, 300 + 10 * i, d) for i, d in enumerate(diffs)])
        expect("too few / too noisy seeds fail", seeds.main(paths), 1)
        # 4. Bad input: exit 2 with a reason.
        ok = [report(rng, 400 + 10 * i, 0.0) for i in range(3)]
        expect("two reports", seeds.main(write(tmp, ok[:2])), 2)
        mixed = ok[:2] + [report(rng, 999, 0.0, dtype="fp32")]
        expect("mixed configurations", seeds.main(write(tmp, mixed)), 2)
        expect("repeated seed", seeds.main(write(tmp, ok[:2] + [ok[0]])), 2)
        bad = Path(tmp) / "bad.json"
        bad.write_text("{not json")
        expect("unreadable report", seeds.main(write(tmp, ok[:2]) + [str(bad)]), 2)
        expect("missing file", seeds.main(write(tmp, ok[:2]) + [f"{tmp}/none.json"]), 2)
    # 5. The recorded GPU reports (convergence/results/seeds/): the analysis runs on real data.
    if recorded:
        paths = sorted(str(p) for p in Path(recorded).glob("*.json"))
        expect(f"recorded reports ({len(paths)})", seeds.main(paths), 0)
    if failures:
        print(f"test_seeds: FAILED ({len(failures)}): {', '.join(failures)}")
        return 1
    print("test_seeds: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
