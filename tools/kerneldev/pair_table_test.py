#!/usr/bin/env python3
"""pair_table.py on a log in bench_modes' own format: the paired means and ratios, the label of a
repeated run, the mode filter, and the errors (exit 2 with the reason)."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pair_table  # noqa: E402

LOG = """### base bf16
device: NVIDIA H200, 132 SMs, L2 60 MB; dtype bf16; row tensors 0 elements into their allocations
copy 1GiB d2d: 0.507 ms  4239 GB/s
shape          dir  mode                       us      GB/s  config
   1024x65536   bwd  auto                    215.0      1904  bwd_split threads=512 rows/cta=1 ->wide
   1024x65536   bwd  persistent              400.0      1000  bwd_generic threads=1024
### new bf16
   1024x65536   bwd  auto                    179.6      2280  bwd_split threads=512 rows/cta=1 ->wide
   1024x65536   bwd  persistent              400.0      1000  bwd_generic threads=1024
### new bf16 (again)
   1024x65536   bwd  auto                    179.4      2282  bwd_split threads=512 rows/cta=1 ->wide
### base bf16 --fused
   1024x65536   bwd  auto                    238.0      2100  bwd_split threads=512
### base bf16
   1024x65536   bwd  auto                    219.2      1868  bwd_split threads=512 rows/cta=1 ->wide
"""


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)


def main():
    rows, builds = pair_table.parse(LOG)
    check(builds == ["base", "new"], "builds in order of appearance: %r" % builds)
    auto = rows[("bf16", "1024x65536", "bwd", "auto")]
    check(auto["base"] == [215.0, 219.2] and auto["new"] == [179.6, 179.4],
          "a label's runs, '(again)' dropped from the label: %r" % dict(auto))
    check(("bf16 --fused", "1024x65536", "bwd", "auto") in rows, "the fused label is its own row")
    out = pair_table.table(rows, builds, "base", {"auto"})
    line = [l for l in out.splitlines() if l.split()[:2] == ["bf16", "1024x65536"]]
    check(len(line) == 1 and "217.1" in line[0] and "179.5" in line[0] and "x1.209" in line[0],
          "mean 217.1 vs 179.5, ratio x1.209: %r" % line)
    check(" persistent " not in out, "the mode filter keeps auto only")
    fused = [l for l in out.splitlines() if l.startswith("bf16 --fused")]
    check(len(fused) == 1 and fused[0].rstrip().endswith("-"), "no ratio where a build has no run: %r" % fused)

    script = os.path.join(HERE, "pair_table.py")
    with tempfile.TemporaryDirectory() as d:
        good, empty = os.path.join(d, "good.log"), os.path.join(d, "empty.log")
        with open(good, "w") as f:
            f.write(LOG)
        with open(empty, "w") as f:
            f.write("device: x\n   1024x65536   bwd  auto  1.0  1  no header above\n")
        r = subprocess.run([sys.executable, script, good, "--base", "new"], capture_output=True, text=True)
        check(r.returncode == 0 and "new/base" in r.stdout and "x0.827" in r.stdout,
              "--base new: ratio new/base 179.5 / 217.1: rc %d %r" % (r.returncode, r.stdout))
        for argv, why in (([good, "--base", "nope"], "not in"), ([empty], "no bench_modes row"),
                          ([os.path.join(d, "missing.log")], "cannot read"), ([good, "--bogus"], "unknown option"),
                          ([], "usage")):
            r = subprocess.run([sys.executable, script] + argv, capture_output=True, text=True)
            check(r.returncode == 2 and why in r.stderr, "%r: exit 2 with %r, got %d %r" % (argv, why, r.returncode, r.stderr))
    print("pair_table_test: OK")


if __name__ == "__main__":
    main()
