#!/usr/bin/env python3
"""Copy the kernel sources into a variant tree with constants changed (tools/kerneldev/BUILD).

    variant.py OUT_ROOT INCLUDE_ROOT SET -- SRC...

SET is "NAME=VALUE[,NAME=VALUE...]" (may be empty): each NAME must be defined exactly once, as
`#define NAME VALUE` on a line of its own, across the sources; that line gets the new value. The
copies keep their paths under OUT_ROOT, and their includes of kernels/cuda/ and kernels/src/select
point into the variant tree (as INCLUDE_ROOT/kernels/..., INCLUDE_ROOT relative to an include root), so the production sources carry no knob at all. Exit 2 with the
reason on a bad SET.
"""
import os
import re
import sys


def main(argv):
    if len(argv) < 5 or argv[4] != "--":
        sys.stderr.write("usage: variant.py OUT_ROOT INCLUDE_ROOT SET -- SRC...\n")
        return 2
    out_root, include_root, spec, srcs = argv[1], argv[2], argv[3], argv[5:]
    want = {}
    for item in [s for s in spec.split(",") if s.strip()]:
        name, eq, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not eq or not re.fullmatch(r"[A-Z_][A-Z0-9_]*", name) or not re.fullmatch(r"[-+*/() A-Za-z0-9_.]+", value):
            sys.stderr.write("--define=kerneldev_set: bad item %r: expected NAME=VALUE (NAME a macro, VALUE "
                             "an expression)\n" % item)
            return 2
        want[name] = value
    prefix = os.path.join(include_root, "")
    found = {name: [] for name in want}
    texts = {}
    for src in srcs:
        text = open(src).read()
        for name, value in want.items():
            pat = re.compile(r"^(#define %s )(.*?)(\s*(/\*.*)?)$" % re.escape(name), re.M)
            hits = pat.findall(text)
            if hits:
                found[name].append(src)
                text = pat.sub(lambda m: m.group(1) + value + m.group(3), text)
        # Includes of the kernels' own files resolve inside the variant tree.
        text = re.sub(r'#include "(kernels/(cuda/[^"]+|src/select\.c))"',
                      lambda m: '#include "%s%s"' % (prefix, m.group(1)), text)
        texts[src] = text
    for name, where in found.items():
        if len(where) != 1:
            sys.stderr.write("--define=kerneldev_set: %s is defined %s in the kernel sources (%s); "
                             "expected exactly one `#define %s VALUE` line\n"
                             % (name, "nowhere" if not where else "%d times" % len(where),
                                ", ".join(where) or "-", name))
            return 2
    for src, text in texts.items():
        # Keep the path below kernels/ (sources may come from an external root).
        rel = src[src.index("kernels/"):]
        dst = os.path.join(out_root, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
