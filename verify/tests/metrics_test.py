"""Metrics on synthetic data with known errors.

1. A capture whose job outputs are the correctly rounded float64 results (computed here in numpy,
   independently of the C reference) with errors planted at known places: k elements +1 ulp and
   one element +3 ulp (at the largest |ref|, so it is the worst absolute error). The replay's
   report must show exactly that histogram, max ulp and worst coordinates, for y and dx, in f32,
   f16 and bf16.
2. Fault injection into fusednorm's own output (--inject-fault): the record fails (exit 1, FAILED
   footer, the reason names the element), the others pass; identical at 1 and 2 ranks.
3. Tolerance overrides change the verdict in the expected direction.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

SEED = int(os.environ.get("SEED", time.time_ns() % 2**31))
print(f"seed {SEED}")
rng = np.random.default_rng(SEED)
cap = common.load_capture_module()
T = common.tmpdir()


def plant(bits, dtype, ref64, k):
    """+1 ulp on k random elements, +3 ulp on the largest |ref|; returns (bits, hist, worst)."""
    b = bits.copy().reshape(-1)
    flat = np.abs(ref64.reshape(-1))
    worst = int(np.argmax(flat))
    others = rng.choice(np.delete(np.arange(b.size), worst), size=k, replace=False)
    view = b.view(np.uint32) if dtype == "f32" else b
    view[others] += 1  # one representable step away from zero (same sign): 1 ulp
    view[worst] += 3
    hist = [b.size - k - 1, k, 0, 1]
    return b.reshape(bits.shape), hist, divmod(worst, ref64.shape[1])


def make_file(path):
    expect = {}
    w = cap.CaptureWriter(path)
    specs = [("f32", "f32", "fp32", 0.0, 37, 100), ("f16", "f32", "gemma", 1.0, 64, 256),
             ("bf16", "bf16", "fp32", 0.0, 300, 64), ("bf16", "f32", "gemma", 1.0, 5, 4096)]
    for i, (xd, wd, casting, offset, rows, n) in enumerate(specs):
        eps = 1e-5
        xb, x = common.random_values(rng, (rows, n), xd, 2.0)
        wb, wv = common.random_values(rng, (n,), wd, 0.3)
        if offset == 0.0:
            wv = wv + 1.0
            wb = common.round_bits(wv, wd)
            wv = common.bits_to_f64(wb, wd)
        dyb, dy = common.random_values(rng, (rows, n), xd, 0.01)
        s, rstd, y = common.ref_forward(x, wv, eps, offset)
        rstd32 = rstd.astype(np.float32).astype(np.float64)  # the neutral rstd of the job scoring
        dx, dw = common.ref_backward(s, rstd32, dy, wv, offset)
        yb, yh, yw = plant(common.round_bits(y, xd), xd, y, k=3 + i)
        dxb, dxh, dxw = plant(common.round_bits(dx, xd), xd, dx, k=5 + i)
        g = w.new_record(op="rms_norm", casting=casting, eps=eps, offset=offset, has_weight=1,
                         x_dtype=xd, w_dtype=wd, rows_total=rows, row_start=0, row_step=1,
                         layer=f"synthetic.{i}", model="planted", impl="numpy", step=0, rank=0)
        w.put(g, "x", xb, xd)
        w.put(g, "weight", wb, wd)
        w.put(g, "dy", dyb, xd)
        w.put(g, "job/y", yb, xd)
        w.put(g, "job/dx", dxb, xd)
        expect[f"r{i:06d}"] = dict(y=(yh, yw), dx=(dxh, dxw), rows=rows, xd=xd, y64=y, dx64=dx)
    w.close()
    return expect


def check_planted(rep, expect):
    for rec in rep["records"]:
        e = expect[rec["name"]]
        for t in ("y", "dx"):
            got = rec["job"][t]
            hist, worst = e[t]
            assert got["ulp_hist"] == hist, f"{rec['name']} job {t}: hist {got['ulp_hist']} != {hist}"
            assert got["max_ulp"] == 3, f"{rec['name']} job {t}: max ulp {got['max_ulp']}"
            assert tuple(got["worst"]) == tuple(worst), f"{rec['name']} job {t}: worst {got['worst']} != {worst}"
        print(f"  {rec['name']} {e['xd']:4s} rows {e['rows']:4d}: job y/dx hist and worst as planted; "
              f"fusednorm y max ulp {rec['fusednorm']['y']['max_ulp']}, verdict {rec['verdict']}")


def main():
    path = os.path.join(T, "planted.h5")
    expect = make_file(path)
    reports = {}
    for np_ in (None, 2):
        out = os.path.join(T, f"planted_{np_}.json")
        rc, so, se = common.run_replay([path, "--report", out, "--device", "cpu"], np_)
        assert rc == 0, f"clean replay (np {np_}) exit {rc}\n{so}\n{se}"
        reports[np_] = common.load_report(out)
        print(f"planted errors, np {np_ or 1}:")
        check_planted(reports[np_], expect)

    # fault injection: record r000002 (bf16, 300 rows = 2 units: rows 150.. are unit 1). The fault
    # goes to the largest |value| of the unit's rows (y: unit 1, dx: unit 0), so that its 40 ulps
    # are also the worst absolute error of the record whatever the draw (the report's "worst" is
    # the largest absolute error; elsewhere fusednorm is within a few ulps of values no larger).
    e2 = expect["r000002"]
    targets = []
    for tensor, lo, hi in (("y", 150, 300), ("dx", 0, 150)):
        a = np.abs(e2[tensor + "64"][lo:hi])
        r, c = divmod(int(np.argmax(a)), a.shape[1])
        targets.append((tensor, lo + r, c))
    for np_ in (None, 2):
        for tensor, row, col in targets:
            out = os.path.join(T, f"inject_{tensor}_{np_}.json")
            rc, so, se = common.run_replay([path, "--report", out, "--device", "cpu",
                                            "--inject-fault", f"{tensor}:r000002:{row}:{col}:40"], np_)
            assert rc == 1, f"injected {tensor} fault not caught (exit {rc})\n{so}\n{se}"
            assert "# FAILED: 1 of 4 records" in so, so
            rep = common.load_report(out)
            bad = [r for r in rep["records"] if r["verdict"] != "ok"]
            assert [r["name"] for r in bad] == ["r000002"], [r["name"] for r in bad]
            st = bad[0]["fusednorm"][tensor]
            assert st["max_ulp"] >= 39 and tuple(st["worst"]) == (row, col), st
            assert not bad[0]["checks"][tensor]
            assert f"[{row},{col}]" in bad[0]["reasons"][tensor] or tensor == "y", bad[0]["reasons"]
            print(f"  injected +40 ulp into fusednorm {tensor}[{row},{col}] (np {np_ or 1}): exit 1, "
                  f"worst at {st['worst']}, reason: {bad[0]['reasons'][tensor][:90]}")

    # overrides: an impossible y bound fails where fusednorm is not exact; a loose one passes
    rc, so, _ = common.run_replay([path, "--device", "cpu", "--y-max-ulp", "0",
                                   "--inject-fault", "y:r000000:0:0:1"])
    assert rc == 1 and "override" in so, so
    rc, so, _ = common.run_replay([path, "--device", "cpu", "--y-max-ulp", "100",
                                   "--inject-fault", "y:r000000:0:0:5"])
    assert rc == 0, so
    print("  overrides: --y-max-ulp 0 fails a 1-ulp fault, --y-max-ulp 100 accepts a 5-ulp one")
    print("PASS")


if __name__ == "__main__":
    main()
