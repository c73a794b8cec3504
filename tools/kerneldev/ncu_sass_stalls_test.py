#!/usr/bin/env python3
"""ncu_sass_stalls.py on a small CSV in the layout of `ncu --page source --csv --print-source sass`:
the totals, the shares by reason, the order of the top instructions, gzip input, and the errors
(exit 2 with the reason)."""
import gzip
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "ncu_sass_stalls.py")

HDR = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Warp Stall Sampling (Not-issued Samples)",
       "# Samples", "Instructions Executed", "stall_long_sb", "stall_barrier", "stall_wait",
       "stall_long_sb (Not Issued)"]
ROWS = [["0x10", "  LDG.E.128 R4, desc[UR4][R2.64]", "10", "5", "10", "4096", "2", "0", "8", "1"],
        ["0x20", "  PRMT R2, R27, 0x7732, RZ", "60", "50", "60", "8192", "55", "0", "5", "50"],
        ["0x30", "  BAR.SYNC.DEFER_BLOCKING 0x0", "30", "30", "30", "1,024", "0", "30", "0", "0"]]


def csv_text(hdr, rows):
    q = lambda r: ",".join('"%s"' % v for v in r)
    return '"Kernel Name","void k(int)",\n' + "\n".join(q(r) for r in [hdr] + rows) + "\n"


def run(path, *args):
    p = subprocess.run([sys.executable, TOOL, path, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    fails = 0

    def check(cond, what):
        nonlocal fails
        if not cond:
            fails += 1
            print("FAIL:", what)

    with tempfile.TemporaryDirectory() as d:
        plain = os.path.join(d, "s.csv")
        with open(plain, "w") as f:
            f.write(csv_text(HDR, ROWS))
        rc, out, err = run(plain, "--top", "2")
        check(rc == 0, f"rc {rc}: {err}")
        lines = out.splitlines()
        check(lines[0] == "3 instructions, 100 samples, 13312 warp-level instructions executed", f"totals: {lines[0]!r}")
        check(lines[1] == "by reason: long_sb 57.0%, barrier 30.0%, wait 13.0%", f"reasons: {lines[1]!r}")
        body = lines[3:]
        check(len(body) == 2, f"--top 2 gave {len(body)} rows")
        check(body and body[0].split()[:3] == ["1", "60", "60.0"] and "PRMT" in body[0] and "long_sb 55, wait 5" in body[0],
              f"first row: {body[0] if body else None!r}")
        check(len(body) > 1 and body[1].split()[:2] == ["2", "30"] and "barrier 30" in body[1], f"second row: {body[1:2]!r}")
        gz = os.path.join(d, "s.csv.gz")
        with gzip.open(gz, "wt") as f:
            f.write(csv_text(HDR, ROWS))
        rc2, out2, _ = run(gz, "--top", "2")
        check(rc2 == 0 and out2 == out, "gzip input differs from plain")
        bad = os.path.join(d, "bad.csv")
        with open(bad, "w") as f:
            f.write("a,b,c\n1,2,3\n")
        rc, _, err = run(bad)
        check(rc == 2 and "no header row" in err, f"not a source page: rc {rc}, {err!r}")
        nost = os.path.join(d, "nost.csv")
        with open(nost, "w") as f:
            f.write(csv_text(HDR[:6], [r[:6] for r in ROWS]))
        rc, _, err = run(nost)
        check(rc == 2 and "stall_" in err, f"no stall columns: rc {rc}, {err!r}")
        rc, _, err = run(plain, "--top", "0")
        check(rc == 2 and "--top 0" in err, f"--top 0: rc {rc}, {err!r}")
        rc, _, err = run(os.path.join(d, "missing.csv"))
        check(rc == 2 and "missing.csv" in err, f"missing file: rc {rc}, {err!r}")
    print("ncu_sass_stalls_test:", "FAILED" if fails else "OK")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
