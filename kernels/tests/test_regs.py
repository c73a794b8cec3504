#!/usr/bin/env python3
"""The launch plans' register counts against ptxas's.

select.c sizes the persistent grids from fn_regs_estimate* (kernels/cuda/launch_config.h): warps
per SM = 4 x (a quarter of the registers per SM / (registers per thread, in steps of 8, x 32)),
CTAs per SM = that / the CTA's warps (select.c ctas_per_sm). Where an estimate is
below what ptxas gave the kernel, fewer CTAs are resident than the grid has, and the last ones
execute as a second, partial wave after the first have walked all their rows (bf16 65536 x 128
backward 1.27x slower on an H200 that way). So: no estimate below ptxas's count, in steps of 8,
for the sm_90a build the estimates are taken from. An estimate more than one step above is
reported (it costs the grid residency) but does not fail.

A kernel's instances with and without N-d row addressing (a last bool template argument, e.g.
rms_norm_bwd_pipe's ND) share one estimate: the larger of their counts is checked.

The counts are those of the sm_90a image in the built library (cuobjdump -res-usage): the code
that ships, with no compile of its own.

usage: test_regs.py TABLE_BINARY LIBFUSEDNORM_SO   (needs cuobjdump, found as test_load_order.py does)
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_load_order import cuobjdump  # noqa: E402

DTYPES = {"13__nv_bfloat16": "bf16", "6__half": "f16", "f": "f32"}
ENTRY = re.compile(r"^ Function _ZN2fn\d+rms_norm_(fwd_pipe_u|fwd_pipe|fwd|bwd_pipe|bwd_c2|bwd_row|bwd_warp|bwd)I"
                   r"(13__nv_bfloat16|6__half|f)(?:Li(\d+)E)?(?:Lb([01])E)?(?:Lb[01]E)*E")
# rms_norm_bwd_row's one-slot instance of 64-thread CTAs (its last bool, NARROW64): an estimate of its own
NARROW = re.compile(r"^ Function _ZN2fn\d+rms_norm_bwd_rowI(13__nv_bfloat16|6__half)Li1ELb([01])ELb0ELb1EE")
# rms_norm_bwd_row's head-split instances, both kinds (rms_norm_bwd_row_hs, rms_norm_bwd_row_u): one
# estimate for the pair (the launcher picks between them after the plan)
HEAD_SPLIT = re.compile(r"^ Function _ZN2fn\d+rms_norm_bwd_row_(?:u|hs)I(13__nv_bfloat16|6__half|f)Li(\d+)ELb([01])EE")
USED = re.compile(r"^  REG:(\d+) ")


def step8(r):
    return (r + 7) // 8 * 8


def reg_counts(res_usage):
    counts, key = {}, None
    for line in res_usage.splitlines():
        m = NARROW.search(line)
        if m:
            key = ("bwd_row_narrow", DTYPES[m.group(1)], "1", m.group(2))
            continue
        m = HEAD_SPLIT.search(line)
        if m:
            key = ("bwd_row_u", DTYPES[m.group(1)], m.group(2), m.group(3))
            continue
        m = ENTRY.search(line)
        if m:
            kind, dt, cache, fused = m.groups()
            key = (kind, DTYPES[dt], cache or "-", fused or "-")
            continue
        m = USED.search(line)
        if m and key is not None:
            counts[key] = max(counts.get(key, 0), int(m.group(1)))
            key = None
    return counts


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    table = subprocess.run([argv[1]], check=True, capture_output=True, text=True).stdout
    res = subprocess.run([cuobjdump(), "-res-usage", "-arch", "sm_90a", argv[2]], capture_output=True, text=True)
    counts = reg_counts(res.stdout) if res.returncode == 0 else {}
    if not counts:
        print(f"test_regs: no sm_90a image of the checked kernels in {argv[2]} (cuobjdump -res-usage -arch "
              f"sm_90a: exit {res.returncode} {res.stderr.strip()[:300]}); the check needs the library "
              "built with sm_90a SASS (the default architectures)",
              file=sys.stderr)
        return 1
    bad = checked = 0
    for line in table.splitlines():
        kind, dt, cache, fused, est = line.split()
        key, est = (kind, dt, cache, fused), int(est)
        if key not in counts:
            print(f"FAIL {' '.join(key)}: the estimate names an instance ptxas did not compile")
            bad += 1
            continue
        got = counts[key]
        checked += 1
        if step8(est) < step8(got):
            print(f"FAIL {' '.join(key)}: estimate {est} registers, ptxas {got} "
                  "(fewer CTAs fit than the grid assumes)")
            bad += 1
        elif step8(est) > step8(got):
            print(f"note {' '.join(key)}: estimate {est} registers, ptxas {got} (grid smaller than it could be)")
    print(f"test_regs: {checked} instances checked, {bad} failed: {'FAILED' if bad else 'OK'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
