#!/usr/bin/env python3
"""Paired timings of several builds from one log of bench_modes runs.

A run script times the builds in a paired order (base new new base, so that drift of the machine
during the run weighs on both alike) and writes each bench_modes run under a header line

    ### BUILD LABEL...

(BUILD: the staged build's name, gpu_dev/BUILD; LABEL: what the run was, e.g. `bf16 --fused`).
This prints one row per (LABEL, shape, direction, mode): each build's mean time over its runs (and
the runs), and the base build's mean over each other build's (> 1: the other build is faster).

    pair_table.py LOG [--base BUILD] [--modes auto,persistent]

Exit 2 with the reason on an unreadable log, a log without any timed row, or a base build that
is not in it.
"""
import collections
import re
import sys

ROW = re.compile(r"^\s*(\d+x\d+)\s+(fwd|bwd)\s+(\S+)\s+([\d.]+)\s+(\d+)\s*(.*)$")


def parse(text):
    """{(label, shape, dir, mode): {build: [us, ...]}} in the log's order, and the builds in order
    of first appearance."""
    rows = collections.OrderedDict()
    builds = []
    build = label = None
    for line in text.splitlines():
        if line.startswith("###"):
            words = line[3:].split()
            if not words:
                build = None
                continue
            build, label = words[0], " ".join(w for w in words[1:] if not w.startswith("("))
            if build not in builds:
                builds.append(build)
            continue
        m = ROW.match(line)
        if m is None or build is None:
            continue
        shape, d, mode, us = m.group(1), m.group(2), m.group(3), float(m.group(4))
        rows.setdefault((label, shape, d, mode), collections.OrderedDict()).setdefault(build, []).append(us)
    return rows, builds


def table(rows, builds, base, modes=None):
    lines = ["%-18s %-12s %-3s %-10s " % ("run", "shape", "dir", "mode") +
             " ".join("%-22s" % b for b in builds) + " " + " ".join("%s/%s" % (base, b) for b in builds if b != base)]
    for (label, shape, d, mode), per in rows.items():
        if modes and mode not in modes:
            continue
        mean = {b: sum(v) / len(v) for b, v in per.items()}
        cells = " ".join("%-22s" % ("%.1f (%s)" % (mean[b], " ".join("%.1f" % x for x in per[b])) if b in per else "-")
                         for b in builds)
        ratios = " ".join(("x%.3f" % (mean[base] / mean[b])) if base in mean and b in mean else "-"
                          for b in builds if b != base)
        lines.append("%-18s %-12s %-3s %-10s %s %s" % (label, shape, d, mode, cells, ratios))
    return "\n".join(lines)


def main(argv):
    args, base, modes = [], None, None
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("--base", "--modes") and i + 1 < len(argv):
            if a == "--base":
                base = argv[i + 1]
            else:
                modes = set(m for m in argv[i + 1].split(",") if m)
            i += 2
            continue
        if a.startswith("--base="):
            base = a.split("=", 1)[1]
        elif a.startswith("--modes="):
            modes = set(m for m in a.split("=", 1)[1].split(",") if m)
        elif a.startswith("-"):
            sys.stderr.write("pair_table.py: unknown option %s\n" % a)
            return 2
        else:
            args.append(a)
        i += 1
    if len(args) != 1:
        sys.stderr.write("usage: pair_table.py LOG [--base BUILD] [--modes auto,persistent]\n")
        return 2
    try:
        with open(args[0]) as f:
            text = f.read()
    except OSError as e:
        sys.stderr.write("pair_table.py: cannot read %s: %s\n" % (args[0], e.strerror))
        return 2
    rows, builds = parse(text)
    if not rows:
        sys.stderr.write("pair_table.py: %s has no bench_modes row under a '### BUILD' header\n" % args[0])
        return 2
    base = base or builds[0]
    if base not in builds:
        sys.stderr.write("pair_table.py: base build %s is not in %s (builds: %s)\n" % (base, args[0], " ".join(builds)))
        return 2
    print(table(rows, builds, base, modes))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
