#!/usr/bin/env python3
"""The first loads of the latency-bound kernels go out in one memory round trip (sm_90a SASS).

A kernel whose time is a few memory latencies loses one whenever it waits for a load before the
next load is issued. ptxas waits for a loaded value where the value is first used ahead of a
branch, and for every load in flight on entering a loop that issues loads; kernels/RESULTS.md
("First loads in one round trip") lists what that did to these kernels. The check reads the
scoreboard fields of each instruction's control word (cuobjdump -sass; the wait mask, and the
write barrier a load sets) and, up to the first instruction that waits for a global load, counts
the loads issued: weight loads (__ldg: LDG.*.CONSTANT) and row loads (plain LDG). Each checked
kernel must have issued its weight load and its first row's (for the tiny backward: every row
its team holds at once) before that first wait. In straight-line order only: the kernels checked
are those whose first loads have no alternative code paths ahead of them.

Kernels with a parameter block laid out for their latency (PARAM_LINES) must also read at most
so many 64-byte lines of the parameter bank before they first wait for a global load: each line
read first is a constant-cache miss, one after another on the way to the loads (kernels/RESULTS.md, "The tiny
forward's lean instances").

usage: test_load_order.py LIBFUSEDNORM_SO   (needs cuobjdump: the CUDA toolkit's, or the
                                             nvidia-cuda-cuobjdump wheel of tools/requirements.txt)
"""
import importlib.util
import os
import re
import shutil
import subprocess
import sys

# (kernel name pattern, minimum row loads before the first wait (a callable of the match), text)
TINY_BWD_ROWS = {1: 4, 2: 2, 4: 1, 8: 1}  # FN_TINY_BWD_ROWS(J), kernels/cuda/launch_config.h
CHECKS = [
    (re.compile(r"rms_norm_fwd_tinyI.*Li1ELb([01])E"), lambda m: 1 + int(m.group(1)), "x (and r)"),
    (re.compile(r"rms_norm_fwd_tiny_leanI.*Li\d+ELb([01])E"), lambda m: 1 + int(m.group(1)), "x (and r)"),
    # J <= 4: at J = 8 (rows of 129-256 columns) a thread's 25-33 loads under the 512-thread
    # launch bound (128 registers) share scoreboards with their address registers' reuse, and
    # ptxas waits for some of the rows' loads before the rest: not met there (kernels/RESULTS.md).
    (re.compile(r"rms_norm_bwd_tinyI.*Li([124])ELb([01])E"),
     lambda m: TINY_BWD_ROWS[int(m.group(1))] * (1 + int(m.group(1)) * (2 + int(m.group(2)))),
     "every row the team holds: rstd, dy, s (and ds) of each column"),
    # The lean tiny backward (one row a team): rstd, and dy and s (and ds) of every column; at 8
    # columns a lane without ds only (with it, 16-bit, ptxas waits for two of the 25 loads before
    # issuing the last, as in rms_norm_bwd_tiny at 8 columns).
    (re.compile(r"rms_norm_bwd_tiny_leanI.*(?:Li([124])ELi\d+ELb([01])E|Li(8)ELi\d+ELb(0)E)"),
     lambda m: 1 + int(m.group(1) or m.group(3)) * (2 + int(m.group(2) or m.group(4))),
     "rstd, dy and s (and ds) of each column"),
    # S = 8 loads each slot's weight in its output loop by design (registers: rmsnorm_fwd_row.cu).
    (re.compile(r"rms_norm_fwd_row_leanI.*Li[124]ELb([01])E"), lambda m: 1 + int(m.group(1)), "x (and r)"),
    (re.compile(r"rms_norm_fwd_tileI"), lambda m: 1, "the tile"),
    (re.compile(r"rms_norm_fwd_pipe_uI"), lambda m: 1, "the first row"),
    (re.compile(r"rms_norm_bwd_row_uI"), lambda m: 2, "the first row's dy and s"),
    (re.compile(r"rms_norm_bwd_row_hsI"), lambda m: 2, "the first row's dy and s"),
    (re.compile(r"rms_norm_bwd_row_u1I.*Lb([01])E"), lambda m: 5 + 2 * int(m.group(1)),
     "the row's dy and s, its edge's (and ds of both), rstd"),
    # Two rows a warp (R = 2, the plain forward past 16 rows an SM, where other warps' loads are
    # in flight): the first row's columns; ptxas issues some of the second row's after a first
    # conversion at 6-16 columns a lane.
    (re.compile(r"rms_norm_fwd_warpI.*Li(\d+)ELb([01])ELi1E"), lambda m: int(m.group(1)) * (1 + int(m.group(2))),
     "every column of the lane's row: x (and r)"),
    (re.compile(r"rms_norm_fwd_warpI.*Li(\d+)ELb0ELi2E"), lambda m: int(m.group(1)),
     "every column of the lane's first row"),
    (re.compile(r"rms_norm_fwd_warp_vecI.*Li[24]ELi(\d)EE"), lambda m: 2 * int(m.group(1)),
     "every load of the lane's two rows"),
    # The warp backward: its first row's rstd and every column's dy and s (and ds).
    (re.compile(r"rms_norm_bwd_warpI.*Li(\d+)ELb([01])E"), lambda m: 1 + int(m.group(1)) * (2 + int(m.group(2))),
     "the first row's rstd, dy and s (and ds) of each column"),
]

# (kernel name pattern, most 64-byte lines of the parameter bank read before the first wait, text)
PARAM_LINES = [
    (re.compile(r"rms_norm_fwd_tiny_leanI"), 2, "LeanFwdParams: its first 64 bytes and the rest"),
    (re.compile(r"rms_norm_bwd_tiny_leanI"), 2, "LeanBwdParams: its first 64 bytes and the rest"),
    (re.compile(r"rms_norm_fwd_row_leanI"), 2, "LeanFwdParams: its first 64 bytes and the rest"),
    (re.compile(r"rms_norm_fwd_warpI"), 2, "LeanFwdParams: its first 64 bytes and the rest"),
    (re.compile(r"rms_norm_fwd_warp_vecI"), 2, "LeanFwdParams: its first 64 bytes and the rest"),
]
PARAM_BASE = 0x210  # where sm_90's kernel parameters start in constant bank 0 (below: the driver's)


def cuobjdump():
    for cand in (os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "cuobjdump"),
                 shutil.which("cuobjdump")):
        if cand and os.access(cand, os.X_OK):
            return cand
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations if spec else []) or []:
        for sub in ("cu13", "cuda_cuobjdump", "cu12"):
            cand = os.path.join(root, sub, "bin", "cuobjdump")
            if os.access(cand, os.X_OK):
                return cand
    sys.exit("test_load_order: no cuobjdump (CUDA toolkit, or pip install nvidia-cuda-cuobjdump: tools/setup.sh)")


def functions(sass):
    """{name: [(address, text, write barrier, wait mask)]} from cuobjdump -sass output."""
    out = {}
    for chunk in re.split(r"\n\s+Function : ", sass)[1:]:
        name = chunk.split("\n", 1)[0].strip()
        lines, ins = chunk.split("\n"), []
        for i, line in enumerate(lines[:-1]):
            m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*/\* 0x[0-9a-f]{16} \*/", line)
            n = re.match(r"\s+/\* 0x([0-9a-f]{16}) \*/", lines[i + 1]) if m else None
            if m and n:
                ctrl = int(n.group(1), 16) >> 41  # stall 4, yield 1, write bar 3, read bar 3, wait 6
                ins.append((int(m.group(1), 16), m.group(2), (ctrl >> 5) & 7, (ctrl >> 11) & 63))
        out[name] = ins
    return out


def first_round(ins):
    """(row loads, weight loads) issued before the first wait for a global load, and that wait."""
    pending, rows, weights = set(), 0, 0
    for addr, text, wbar, wait in ins:
        if any(wait >> b & 1 for b in pending):
            return rows, weights, f"{addr:04x} {text}"
        pending -= {b for b in range(6) if wait >> b & 1}
        if re.search(r"\bLDG\b|\bLDG\.", text) and wbar != 7:
            pending.add(wbar)
            if ".CONSTANT" in text:
                weights += 1
            else:
                rows += 1
    return rows, weights, "none"


def param_lines(ins):
    """The 64-byte lines of the parameter bank read before the first wait for a global load (the
    first loads' round, as first_round counts it)."""
    pending, lines = set(), set()
    for _addr, text, wbar, wait in ins:
        if any(wait >> b & 1 for b in pending):
            break
        pending -= {b for b in range(6) if wait >> b & 1}
        if re.search(r"\bLDG\b|\bLDG\.", text) and wbar != 7:
            pending.add(wbar)
        for m in re.finditer(r"c\[0x0\]\[0x([0-9a-f]+)\]", text):
            if int(m.group(1), 16) >= PARAM_BASE:
                lines.add(int(m.group(1), 16) // 64)
    return lines


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__.split("usage: ")[1])
    res = subprocess.run([cuobjdump(), "-sass", "-arch", "sm_90a", argv[1]], capture_output=True, text=True)
    if res.returncode != 0 or "Function :" not in res.stdout:
        sys.exit(f"test_load_order: cuobjdump -sass -arch sm_90a {argv[1]} failed: {res.stderr.strip()[:300]}")
    funcs = functions(res.stdout)
    checked, failed = 0, 0
    for pat, need, what in CHECKS:
        hits = [(name, m) for name in sorted(funcs) for m in [pat.search(name)] if m]
        if not hits:
            print(f"FAIL no kernel matches {pat.pattern}")
            failed += 1
        for name, m in hits:
            rows, weights, at = first_round(funcs[name])
            want = need(m)
            ok = rows >= want and weights >= 1
            checked += 1
            if not ok:
                failed += 1
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {rows} row / {weights} weight loads before the first "
                  f"wait ({at[:60]}); needs {want} ({what}) and the weight")
    for pat, most, what in PARAM_LINES:
        hits = [name for name in sorted(funcs) if pat.search(name)]
        if not hits:
            print(f"FAIL no kernel matches {pat.pattern}")
            failed += 1
        for name in hits:
            lines = param_lines(funcs[name])
            ok = len(lines) <= most
            checked += 1
            if not ok:
                failed += 1
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {len(lines)} parameter-bank lines before the first wait "
                  f"({', '.join(hex(l * 64) for l in sorted(lines))}); at most {most} ({what})")
    print(f"test_load_order: {checked} kernels checked, {failed} failed: {'FAILED' if failed else 'OK'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
