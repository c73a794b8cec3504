#!/usr/bin/env python3
"""Checks that every `sm_XY@compute_V` entry of the architecture list is safe for the given .cu
files: their device code compiled for compute_XY is the code compiled for compute_V.

A SASS image built from an older architecture's PTX (tools/bazel/cuda.bzl) is the SASS of its own
PTX only if nothing in the sources branches on __CUDA_ARCH__ between the two. Two depths:

  default  the device-side preprocessed text (nvcc -E -arch=compute_N) of every line that comes from
           a file under the workspace (the CUDA headers' own lines are left out: they do branch
           between 80 and 89, e.g. hardware fp8 conversions, which no kernel calls; --ptx sees such
           a call); ~1 s a file and architecture.
  --ptx    the PTX itself (nvcc --ptx), equal but for its .target line; a full front-end run a
           file and architecture (minutes for the kernel files).

usage: ptx_sources.py NVCC HOST_CC ARCH_LIST FILE.cu... [--ptx] [-I DIR]...
  ARCH_LIST: a comma-separated list as --define=cuda_archs takes; @FILE.bzl reads
  DEFAULT_CUDA_ARCHS from FILE.bzl, @FILE a list a line (//tools/bazel:cuda_arch_sources).
Exit 0: every pair equal; 1: a pair differs (the first differing lines are printed); 2: bad input
or nvcc failed.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def arch_pairs(spec):
    """[('compute_86', 'compute_80'), ...]: each SASS entry with another PTX source, as the two
    virtual architectures whose device code must agree."""
    pairs = []
    for e in [x.strip() for x in spec.split(",") if x.strip()]:
        image, at, src = (p.strip() for p in e.partition("@"))
        if not at or image == src:
            continue
        m = re.fullmatch(r"sm_(\d+[af]?)", image)
        if not m or not re.fullmatch(r"compute_\d+[af]?", src):
            raise ValueError(f"'{e}' is not sm_XY@compute_V")
        if "compute_" + m.group(1) != src:
            pairs.append(("compute_" + m.group(1), src))
    return pairs


def read_archs(path):
    """DEFAULT_CUDA_ARCHS of a .bzl file, or a list file's lines (//tools/bazel:cuda_arch_sources)."""
    with open(path) as f:
        text = f.read()
    if path.endswith(".bzl"):
        m = re.search(r'^DEFAULT_CUDA_ARCHS = "([^"]+)"', text, re.M)
        if not m:
            raise ValueError(f"{path}: no DEFAULT_CUDA_ARCHS line")
        return m.group(1)
    return ",".join(x.strip() for x in text.splitlines() if x.strip() and not x.startswith("#"))


def own_lines(text, root):
    """The preprocessed lines that come from files under root, each with its file and line."""
    out = []
    mine = {}
    cur, line = None, 0
    for raw in text.splitlines():
        if raw.startswith("# "):
            m = re.match(r'# (\d+) "([^"]*)"', raw)
            if m:
                line, cur = int(m.group(1)), m.group(2)
                if cur not in mine:
                    mine[cur] = os.path.abspath(cur).startswith(root)
                continue
        if cur is not None and mine[cur] and raw.strip():
            out.append((raw, cur, line))
        line += 1
    return out


def device_code(nvcc, host_cc, incs, arch, src, ptx, tmp):
    out = os.path.join(tmp, f"{os.path.basename(src)}.{arch}.{'ptx' if ptx else 'ii'}")
    cmd = [nvcc, "-ccbin", host_cc, "-x", "cu", "-std=c++17", "-O3", "-arch=" + arch,
           "--ptx" if ptx else "-E", src, "-o", out] + [f"-I{d}" for d in incs]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}\n{r.stderr[-2000:]}")
    with open(out) as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("nvcc")
    ap.add_argument("host_cc")
    ap.add_argument("archs")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--ptx", action="store_true")
    ap.add_argument("-I", dest="incs", action="append", default=[])
    a = ap.parse_args()
    try:
        spec = read_archs(a.archs[1:]) if a.archs.startswith("@") else a.archs
        pairs = arch_pairs(spec)
    except (OSError, ValueError) as e:
        print(f"ptx_sources: {e}", file=sys.stderr)
        return 2
    if not pairs:
        print(f"ptx_sources: '{spec}' has no sm_XY@compute_V entry: nothing to check")
        return 0
    incs = a.incs or ["."]
    root = os.path.abspath(incs[0]) + os.sep
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for src in a.files:
            done = {}  # one nvcc run per file and architecture, shared by the pairs
            for mine, theirs in pairs:
                try:
                    for arch in (mine, theirs):
                        if arch not in done:
                            done[arch] = device_code(a.nvcc, a.host_cc, incs, arch, src, a.ptx, tmp)
                except RuntimeError as e:
                    print(f"ptx_sources: nvcc failed:\n{e}", file=sys.stderr)
                    return 2
                code = [done[mine], done[theirs]]
                if a.ptx:
                    drop = re.compile(r"^\.target .*$", re.M)
                    x, y = (drop.sub("", c).splitlines() for c in code)
                    diff = [(i + 1, p, q) for i, (p, q) in enumerate(zip(x, y)) if p != q]
                    if len(x) != len(y) and not diff:
                        diff = [(min(len(x), len(y)) + 1, "<end>", "<end>")]
                    where = [f"PTX line {i}: {p!r} | {q!r}" for i, p, q in diff[:5]]
                else:
                    x, y = (own_lines(c, root) for c in code)
                    if not x:
                        print(f"ptx_sources: {src}: no line of it under {root} (wrong -I?)",
                              file=sys.stderr)
                        return 2
                    diff = [(p, q) for p, q in zip(x, y) if p[0] != q[0]]
                    if len(x) != len(y) and not diff:
                        diff = [(x[min(len(x), len(y)) - 1], y[min(len(x), len(y)) - 1])]
                    where = [f"{p[1]}:{p[2]}: {p[0].strip()!r} | {q[1]}:{q[2]}: {q[0].strip()!r}"
                             for p, q in diff[:5]]
                if diff:
                    bad += 1
                    print(f"ptx_sources: FAIL: {src}: {mine} and {theirs} differ:")
                    for w in where:
                        print("  " + w)
                else:
                    print(f"ptx_sources: {src}: {mine} == {theirs} "
                          f"({'PTX' if a.ptx else 'own preprocessed lines'}, {len(x)} lines)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
