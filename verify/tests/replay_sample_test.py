"""Replay of the embedded sample (data/sample_capture.h5) at mpirun -np 1, 2 and 3 (oversubscribed
on a 2-core CI machine): every run exits 0, prints the OK footer, and the reports are identical
record by record (statistics included) except the data-parallel emulation section, the only
part that is allowed to depend on the number of ranks. Also a singleton run (no mpirun) and the
table's units row."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

T = common.tmpdir()


def main():
    sample = common.data_file("sample_capture.h5")
    reports = {}
    for np_ in (None, 1, 2, 3):
        out = os.path.join(T, f"sample_np{np_}.json")
        rc, so, se = common.run_replay([sample, "--report", out, "--device", "cpu"], np_)
        assert rc == 0, f"np {np_}: exit {rc}\n{so[-3000:]}\n{se[-3000:]}"
        assert so.rstrip().splitlines()[-1].startswith("# OK: "), so[-500:]
        assert "(ulp)" in so and "(relL2)" in so, "units row missing"
        assert not any(f.startswith(os.path.basename(out) + ".tmp") for f in os.listdir(T))
        rep = common.load_report(out)
        assert rep["verdict"] == "OK" and rep["exit_code"] == 0
        assert rep["ranks"] == (np_ or 1)
        reports[np_] = rep
        print(f"np {np_ or '1 (singleton)'}: exit 0, {rep['summary']}")
    base = reports[None]
    n = len(base["records"])
    assert n >= 50, n
    assert any(r["units"] > 1 for r in base["records"]), "no record is split into several units"
    for np_, rep in reports.items():
        assert len(rep["records"]) == n
        for a, b in zip(base["records"], rep["records"]):
            a, b = dict(a), dict(b)
            ar_a, ar_b = a.pop("dw_allreduce"), b.pop("dw_allreduce")
            assert a == b, f"np {np_}: record {a['name']} differs from the singleton run"
            if b["w_dtype"] != "none" and b["backward"]:
                assert ar_b["ranks"] == (np_ or 1), ar_b
    split = [r for r in reports[3]["records"] if r["units"] > 1 and r["w_dtype"] != "none"]
    worst32 = max(r["dw_allreduce"]["fp32"]["rel_l2"] for r in split)
    worst64 = max(r["dw_allreduce"]["fp64"]["rel_l2"] for r in split)
    print(f"{n} records: verdicts and statistics identical at np 1/2/3; "
          f"dw allreduce (np 3, {len(split)} records split over ranks): worst rel L2 fp32 "
          f"{worst32:.3g}, fp64 {worst64:.3g}")
    print("PASS")


if __name__ == "__main__":
    main()
