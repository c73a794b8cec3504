#!/usr/bin/env python3
"""No kernel writes a 16-byte vector to global memory as four 4-byte stores (sm_90a SASS).

The kernels write their outputs as 16-byte vectors (st16, rmsnorm_common.cuh). nvcc 13.0 wrote
some of those stores as four 4-byte stores of one address, +0x4, +0x8 and +0xc (in every flat-tile
forward and in the thread forward, where the stored registers also went to shared memory or came
from it): four store instructions a vector, each a quarter of every sector it touches. Those
kernels store through stg16 (one st.global.v4). This check reads every function of the built
library's sm_90a image and fails on any run of four STG.E of consecutive 4-byte offsets from one
base register in a forward kernel, naming the function. In the backward kernels such runs are
printed as notes: their fp32 dw partial rows and element-wise edges are written 4 bytes at a time
on purpose where a row's start is not 16-byte aligned, and which of their runs are that was not
sorted out here.

usage: test_store_width.py LIBFUSEDNORM_SO   (needs cuobjdump, found as test_load_order.py does)
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_load_order import cuobjdump  # noqa: E402

FUNC = re.compile(r"^\s*Function : (\S+)")
STG = re.compile(r"STG\.E(?:\.STRONG\.\w+)?\s+desc\[\w+\]\[(R\d+)\.64(?:\+(0x[0-9a-f]+))?\]")


def split_stores(sass):
    """{function: count of 4-byte store quadruples} over the SASS text."""
    found, fn, run = {}, None, []
    for line in sass.splitlines():
        m = FUNC.search(line)
        if m:
            fn, run = m.group(1), []
            continue
        if "STG" not in line and "/*" in line and re.search(r"/\*[0-9a-f]{4}\*/", line):
            run = []  # another instruction between two stores ends a run
            continue
        m = STG.search(line)
        if not m or fn is None:
            continue
        base, off = m.group(1), int(m.group(2) or "0", 16)
        if run and run[-1][0] == base and off == run[-1][1] + 4:
            run.append((base, off))
        else:
            run = [(base, off)]
        if len(run) == 4 and run[0][1] % 16 == 0:
            found[fn] = found.get(fn, 0) + 1
            run = []
    return found


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    res = subprocess.run([cuobjdump(), "-sass", "-arch", "sm_90a", argv[1]], capture_output=True, text=True)
    functions = len(re.findall(r"^\s*Function : ", res.stdout, re.M)) if res.returncode == 0 else 0
    if not functions:
        print(f"test_store_width: no sm_90a SASS in {argv[1]} (cuobjdump -sass -arch sm_90a: exit {res.returncode} "
              f"{res.stderr.strip()[:300]}); the check needs the library built with sm_90a SASS", file=sys.stderr)
        return 1
    found = split_stores(res.stdout)
    bad = {fn: k for fn, k in found.items() if "rms_norm_fwd" in fn}
    for fn, k in sorted(found.items()):
        print(f"{'FAIL' if fn in bad else 'note'} {fn}: {k} runs of four 4-byte STG.E from one base")
    print(f"test_store_width: {functions} functions, {len(bad)} forward kernels with split 16-byte stores "
          f"({len(found) - len(bad)} other functions noted): {'FAILED' if bad else 'OK'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
