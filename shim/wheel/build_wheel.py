#!/usr/bin/env python3
"""Builds the fusednorm wheel: the Python package + libfusednorm_ops.so, nothing else.

    build_wheel.py --so LIB.so --package-root shim/python --out DIST.whl FILE...

FILEs are the package's files (paths under --package-root). The wheel is a platform wheel
(py3-none-linux_x86_64): the .so is tied to the CPU architecture and the torch stable ABI, not to
a Python version (it has no Python C-API dependency), so one wheel serves every CPython 3.
Deterministic: sorted entries, fixed timestamps, so the same inputs give the same bytes.
"""

import argparse
import base64
import hashlib
import os
import sys
import zipfile

NAME = "fusednorm"
VERSION = "0.1.0"
TAG = "py3-none-linux_x86_64"
EPOCH = (1980, 1, 1, 0, 0, 0)

METADATA = f"""Metadata-Version: 2.1
Name: {NAME}
Version: {VERSION}
Summary: Fused RMSNorm forward/backward (plain and fused residual add) for PyTorch, with float64-verified numerics
License: Apache-2.0
Requires-Python: >=3.9
Requires-Dist: torch>=2.11
Provides-Extra: capture
Requires-Dist: h5py; extra == "capture"
Requires-Dist: numpy; extra == "capture"

fusednorm registers torch.ops.fusednorm.* (CPU and CUDA) from a LibTorch stable-ABI library and
provides rms_norm, fused_add_rms_norm, RMSNorm and patch_hf (Hugging Face models).
"""

WHEEL = f"""Wheel-Version: 1.0
Generator: fusednorm build_wheel.py
Root-Is-Purelib: false
Tag: {TAG}
"""


def record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--so", required=True)
    ap.add_argument("--package-root", required=True, help="directory containing fusednorm/")
    ap.add_argument("--out", required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()

    entries = {}
    root = os.path.normpath(a.package_root)
    for f in a.files:
        rel = os.path.relpath(os.path.normpath(f), root)
        if rel.startswith("..") or not rel.startswith(NAME + os.sep):
            sys.exit(f"build_wheel: {f} is not inside {root}/{NAME}")
        if "__pycache__" in rel or rel.endswith(".pyc"):
            continue
        with open(f, "rb") as fh:
            entries[rel.replace(os.sep, "/")] = fh.read()
    if f"{NAME}/__init__.py" not in entries:
        sys.exit(f"build_wheel: {NAME}/__init__.py missing from the inputs")
    with open(a.so, "rb") as fh:
        entries[f"{NAME}/libfusednorm_ops.so"] = fh.read()

    dist_info = f"{NAME}-{VERSION}.dist-info"
    entries[f"{dist_info}/METADATA"] = METADATA.encode()
    entries[f"{dist_info}/WHEEL"] = WHEEL.encode()
    entries[f"{dist_info}/top_level.txt"] = f"{NAME}\n".encode()
    record = [record_line(n, d) for n, d in sorted(entries.items())]
    record.append(f"{dist_info}/RECORD,,")
    entries[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()

    tmp = a.out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        # dist-info last, RECORD at the very end (the wheel spec's recommended order).
        order = sorted(n for n in entries if not n.startswith(dist_info))
        order += sorted(n for n in entries if n.startswith(dist_info) and not n.endswith("RECORD"))
        order.append(f"{dist_info}/RECORD")
        for n in order:
            info = zipfile.ZipInfo(n, date_time=EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o755 if n.endswith(".so") else 0o644) << 16
            z.writestr(info, entries[n])
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
