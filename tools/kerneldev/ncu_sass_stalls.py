#!/usr/bin/env python3
"""The warp-stall samples of one kernel, instruction by instruction: reads the CSV that
`ncu --import REPORT --page source --csv --print-source sass` prints for a report profiled with
the SourceCounters section, and prints the samples by stall reason and the TOP instructions with
the most samples (index, samples, warp-level executions, the SASS, the top three reasons).

    ncu_sass_stalls.py sass.csv [--top 25]

A file that is not such a CSV (no "Address"/"Source"/stall columns) exits 2 with the reason."""
import argparse
import csv
import gzip
import sys


def read_rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        rows = list(csv.reader(f))
    for i, r in enumerate(rows):
        if len(r) > 2 and r[0] == "Address" and r[1] == "Source":
            hdr = r
            return hdr, [x for x in rows[i + 1:] if len(x) == len(hdr)]
    raise ValueError("no header row starting Address,Source (ncu --page source --csv --print-source sass)")


def num(v):
    try:
        return int(v.replace(",", "")) if v not in ("", "-") else 0
    except ValueError:
        return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args()
    if a.top < 1:
        print(f"ncu_sass_stalls: --top {a.top}: must be >= 1", file=sys.stderr)
        return 2
    try:
        hdr, data = read_rows(a.csv)
    except (OSError, ValueError) as e:
        print(f"ncu_sass_stalls: {a.csv}: {e}", file=sys.stderr)
        return 2
    col = {h: i for i, h in enumerate(hdr)}
    need = ["Warp Stall Sampling (All Samples)", "Instructions Executed"]
    missing = [h for h in need if h not in col]
    stalls = [i for i, h in enumerate(hdr) if h.startswith("stall_") and "Not Issued" not in h]
    if missing or not stalls:
        print(f"ncu_sass_stalls: {a.csv}: missing columns {missing or ['stall_*']}", file=sys.stderr)
        return 2
    s_all, ex = col[need[0]], col[need[1]]
    total = sum(num(r[s_all]) for r in data)
    print(f"{len(data)} instructions, {total} samples, {sum(num(r[ex]) for r in data)} warp-level instructions executed")
    by = sorted(((sum(num(r[i]) for r in data), hdr[i][6:]) for i in stalls), reverse=True)
    print("by reason: " + ", ".join(f"{k} {100.0 * v / max(total, 1):.1f}%" for v, k in by if v))
    print(f"{'index':>5} {'samples':>7} {'%':>5} {'executed':>9}  instruction / top reasons")
    for idx, r in sorted(enumerate(data), key=lambda t: -num(t[1][s_all]))[: a.top]:
        why = sorted(((num(r[i]), hdr[i][6:]) for i in stalls if num(r[i])), reverse=True)[:3]
        print(f"{idx:5d} {num(r[s_all]):7d} {100.0 * num(r[s_all]) / max(total, 1):5.1f} {num(r[ex]):9d}  "
              f"{r[1].strip()[:58]:58s} {', '.join(f'{k} {v}' for v, k in why)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
