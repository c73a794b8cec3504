#!/usr/bin/env python3
"""Lists the GPU code images inside an ELF file's .nv_fatbin section, and checks them against an
architecture list, with nothing but Python (no CUDA toolkit: cuobjdump is not installed here).

    fatbin.py FILE                       table: per architecture, image count and bytes
    fatbin.py FILE --expect ARCHS.txt    exit 1 unless every fatbin container in FILE holds
                                         exactly the listed images (sm_XY: SASS, compute_XY: PTX)

ARCHS.txt is //tools/bazel:cuda_archs (one architecture a line). nvcc writes one container per
.cu file; a container missing an architecture (say a file compiled without the build's
-gencode flags) or holding one that is not listed fails the check. Exit 2: FILE is not an ELF
file or has no fatbin.

Format (as cuobjdump reads it; nvcc 13): a container is a 16-byte header (u32 magic 0xBA55ED50,
u16 version 1, u16 header size 16, u64 size of the entries), then entries, each a header and its
payload: u16 kind (1 = PTX, 2 = ELF/SASS) at 0, u32 header size at 4, u64 padded payload size at
8, u32 stored (compressed) size at 16, u32 sm (80, 90, 120, ...) at 28, u64 flags at 40 (0x8000:
compressed), u64 uncompressed size at 56, then the source file's name. The arch-specific suffix
(sm_90a) is inside the compressed image, so this check compares the numbers; suite_arch.sh
compares the exact names with cuobjdump on the GPU machine.
"""

import argparse
import re
import struct
import sys

MAGIC = 0xBA55ED50
KINDS = {1: "PTX", 2: "SASS"}


def elf_section(path, name):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError(f"{path}: not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)

    def sh(i):
        # name, type, flags, addr, offset, size
        return struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)

    strtab = sh(shstrndx)
    for i in range(shnum):
        n, typ, _, _, off, size = sh(i)
        end = data.index(b"\0", strtab[4] + n)
        if data[strtab[4] + n:end].decode() == name:
            if typ == 8:  # SHT_NOBITS
                return b""
            return data[off:off + size]
    return None


def containers(blob):
    """[(offset, [entry dict, ...]), ...] for every container in a .nv_fatbin section."""
    out = []
    pos = 0
    while pos + 16 <= len(blob):
        magic, version, hsize, fsize = struct.unpack_from("<IHHQ", blob, pos)
        if magic != MAGIC:
            pos += 8  # containers are 8-byte aligned; skip padding
            continue
        if version != 1 or hsize != 16 or pos + 16 + fsize > len(blob):
            raise ValueError(f"fatbin container at {pos:#x}: bad header (version {version}, "
                             f"header {hsize}, size {fsize})")
        entries = []
        e = pos + 16
        end = pos + 16 + fsize
        while e + 64 <= end:
            kind, _, ehsize, padded = struct.unpack_from("<HHIQ", blob, e)
            stored, = struct.unpack_from("<I", blob, e + 16)
            sm, = struct.unpack_from("<I", blob, e + 28)
            flags, raw = struct.unpack_from("<Q8xQ", blob, e + 40)
            if ehsize < 64 or e + ehsize + padded > end:
                raise ValueError(f"fatbin entry at {e:#x}: bad sizes ({ehsize}, {padded})")
            compressed = bool(flags & 0x8000)
            entries.append({"kind": KINDS.get(kind, f"kind{kind}"), "sm": sm,
                            "bytes": stored if compressed else padded,
                            "raw": raw if compressed else padded, "compressed": compressed})
            e += ehsize + padded
        out.append((pos, entries))
        pos = end
    return out


def parse_archs(lines):
    """{('SASS', 90), ('PTX', 120), ...} from 'sm_90a' / 'compute_120' lines."""
    want = set()
    for line in lines:
        a = line.strip()
        if not a or a.startswith("#"):
            continue
        m = re.fullmatch(r"(sm|compute)_(\d+)[af]?", a)
        if not m:
            raise ValueError(f"architecture list: '{a}' is neither sm_XY[a|f] nor compute_XY[a|f]")
        want.add(("SASS" if m.group(1) == "sm" else "PTX", int(m.group(2))))
    return want


def name(kind, sm):
    return f"{'sm' if kind == 'SASS' else 'compute'}_{sm}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--expect", help="architecture list file (//tools/bazel:cuda_archs)")
    a = ap.parse_args()
    try:
        blob = elf_section(a.file, ".nv_fatbin")
        if blob is None:
            print(f"fatbin: {a.file} has no .nv_fatbin section", file=sys.stderr)
            return 2
        found = containers(blob)
        want = None
        if a.expect:
            with open(a.expect) as f:
                want = parse_archs(f)
    except (OSError, ValueError) as e:
        print(f"fatbin: {e}", file=sys.stderr)
        return 2

    total = {}
    for _, entries in found:
        for en in entries:
            t = total.setdefault((en["kind"], en["sm"]), [0, 0, 0])
            t[0] += 1
            t[1] += en["bytes"]
            t[2] += en["raw"]
    print(f"{a.file}: {len(found)} fatbin containers, .nv_fatbin {len(blob)} bytes")
    print(f"{'image':<12} {'kind':<5} {'count':>5} {'stored bytes':>13} {'uncompressed':>13}")
    for (kind, sm), (n, b, r) in sorted(total.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        print(f"{name(kind, sm):<12} {kind:<5} {n:>5} {b:>13} {r:>13}")

    if want is None:
        return 0
    bad = []
    for off, entries in found:
        have = {(en["kind"], en["sm"]) for en in entries}
        if not entries:
            continue
        if have != want:
            missing = sorted(name(*k) for k in want - have)
            extra = sorted(name(*k) for k in have - want)
            bad.append(f"container at {off:#x}: missing {missing or '-'}, not listed {extra or '-'}")
    if not found:
        bad.append("no fatbin container")
    if bad:
        for b in bad:
            print(f"fatbin: FAIL {b}", file=sys.stderr)
        return 1
    print(f"fatbin: OK: each of {len(found)} containers holds exactly "
          f"{', '.join(sorted(name(*k) for k in want))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
