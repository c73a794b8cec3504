"""CPU smoke test of tools/bench/e2e.py (the program, not its timings): bad arguments exit 2 with
the reason before any work; a --quick eager run of two tiny models with stock and fusednorm writes
a valid JSON (every row ok, finite losses, step times, the fusednorm rows really patched and
fused), a markdown table and a PNG; --merge of two runs gives one table; a corrupt file is refused.
~30 s on 2 cores.
Run: FUSEDNORM_LIBRARY=... PYTHONPATH=shim/python python3 tools/bench/e2e_test.py
"""
import contextlib
import io
import json
import math
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import e2e  # noqa: E402

failures = []


def check(cond, what):
    print(("PASS " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def run(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = e2e.main(argv)
    return rc, err.getvalue()


def main():
    tmp = tempfile.mkdtemp(prefix="e2e_test_")
    out = os.path.join(tmp, "out")
    # -- usage errors: exit 2 with the reason, nothing written
    for argv, why in [
            (["--models", "llama,gpt2", "--out", out], "unknown gpt2"),
            (["--providers", "", "--out", out], "empty list"),
            (["--modes", "eager,eager", "--out", out], "repeated"),
            (["--steps", "2", "--out", out], ">= 3"),
            (["--steps", "x", "--out", out], "not an integer"),
            (["--batch", "0", "--out", out], ">= 1"),
            (["--device", "tpu", "--out", out], "cpu or cuda"),
            (["--models", "llama"], "--out DIR is required"),
            (["--merge", os.path.join(tmp, "missing.json"), "--out", out], "no such file"),
            (["--bogus", "--out", out], "bad arguments")]:
        rc, err = run(argv)
        check(rc == 2 and why in err, f"{' '.join(argv)} -> exit 2 ({err.strip()[-90:]!r})")
    check(not os.path.exists(out), "usage errors wrote nothing")

    # -- a real run, tiny
    runs = []
    for model in ("llama", "qwen3"):
        rc, err = run(["--quick", "--device", "cpu", "--models", model, "--modes", "eager",
                       "--providers", "stock,fusednorm,fusednorm-unfused", "--steps", "3",
                       "--warmup", "1", "--out", out])
        path = os.path.join(out, f"e2e_{model}.json")
        check(rc == 0, f"--quick {model}: exit 0 (got {rc}) {err.strip()[-200:]}")
        with open(path) as f:
            doc = json.load(f)
        runs.append(path)
        check(doc["schema"] == e2e.SCHEMA and doc["env"]["device"] == "cpu", f"{model}: header")
        rows = doc["results"]
        check([r["provider"] for r in rows] == ["stock", "fusednorm", "fusednorm-unfused"],
              f"{model}: one row per provider")
        for r in rows:
            ok = (r["status"] == "ok" and r["finite"] and math.isfinite(r["loss_first"])
                  and len(r["step_ms"]["all"]) == 3
                  and r["step_ms"]["min"] <= r["step_ms"]["median"] <= r["step_ms"]["max"]
                  and r["step_ms"]["min"] > 0 and r["tokens_per_s"] > 0
                  and r["profile"]["total_ms"] > 0)
            check(ok, f"{model} {r['provider']}: ok row with times, loss, profile "
                      f"({r.get('status')}: {r.get('reason', '')})")
        fused = rows[1]["patch"]
        check(fused["replaced"] > 0 and fused["fused_layers"] == 2 and not fused["fuse_skipped"],
              f"{model}: fusednorm row patched and fused both layers ({fused})")
        check(rows[2]["patch"]["fused_layers"] is None, f"{model}: unfused row not fused")
        check(rows[1]["profile"]["norm_ms"] > 0, f"{model}: fusednorm ops seen by the profiler")
        # Same weights and tokens: the first losses agree to bf16 precision.
        l0 = [r["loss_first"] for r in rows]
        check(max(l0) - min(l0) < 0.05, f"{model}: first losses agree across providers {l0}")
        for ext in ("md", "png"):
            p = os.path.join(out, f"e2e_{model}.{ext}")
            check(os.path.isfile(p) and os.path.getsize(p) > 0, f"{model}: wrote {ext}")
    check(not [f for f in os.listdir(out) if f.endswith(".tmp")], "no temporary files left")

    # -- the time budget: the first row starts (nothing has run yet) and takes longer than
    # 10 ms (building a model alone does), so the second is recorded as skipped whatever
    # the machine's speed
    bout = os.path.join(tmp, "budget")
    rc, err = run(["--quick", "--device", "cpu", "--models", "llama", "--modes", "eager",
                   "--providers", "stock,fusednorm", "--steps", "3", "--warmup", "1",
                   "--no-profile", "--budget-s", "0.01", "--out", bout])
    with open(os.path.join(bout, "e2e_llama.json")) as f:
        st = [(r["status"], "budget" in r.get("reason", "")) for r in json.load(f)["results"]]
    check(rc == 0 and st == [("ok", False), ("skipped", True)], f"--budget-s 0.01: {st}")

    # -- merge
    rc, err = run(["--merge", *runs, "--out", out])
    check(rc == 0, f"--merge: exit 0 ({err.strip()[-200:]})")
    with open(os.path.join(out, "e2e.json")) as f:
        merged = json.load(f)
    check(len(merged["results"]) == 6 and {r["model"] for r in merged["results"]} ==
          {"llama", "qwen3"}, "--merge: 6 rows of both models")
    with open(os.path.join(out, "e2e.md")) as f:
        md = f.read()
    check("| llama" in md and "| qwen3" in md and "fusednorm eager" in md, "--merge: table")
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{"schema": "other"}')
    rc, err = run(["--merge", bad, "--out", out])
    check(rc == 2 and "not an e2e result" in err, f"--merge of a foreign file -> exit 2 ({err!r})")
    print(("OK" if not failures else "FAILED: " + "; ".join(failures)), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
