#!/usr/bin/env python3
"""Builds the fusednorm wheel: the Python package, libfusednorm_ops.so (the torch ops) and
libfusednorm.so (the kernels, the C API and the float64 reference), nothing else.

    build_wheel.py --lib libfusednorm_ops.so --lib libfusednorm.so --package-root shim/python \\
        --readme README.md --license LICENSE --tag py3-none-manylinux_2_34_x86_64 --out DIST.whl FILE...

FILEs are the package's files (paths under --package-root); the version is the package's VERSION
file, the one place it is written. --out must be the file name the wheel spec gives those
(name-version-tag.whl), so a BUILD rule cannot name a wheel after another version or tag.

Tag: py3-none (the libraries use no Python C API, so one wheel serves every CPython 3 that torch
supports) and a manylinux platform tag that the libraries are checked against here, as auditwheel
would: every GLIBC / GLIBCXX / CXXABI / GCC symbol version they need is within the policy's
limits, and every NEEDED library is either on the policy's list, inside this wheel, or one the
`torch` requirement provides (libtorch_cpu.so, libtorch_cuda.so, and libgomp.so.1, which torch's
wheel ships and loads before our libraries are loaded: `import fusednorm` imports torch first).
A build on a newer glibc that needs a newer symbol fails here with the symbol's version.

Deterministic: sorted entries, fixed timestamps, so the same inputs give the same bytes.
"""

import argparse
import base64
import hashlib
import os
import re
import subprocess
import sys
import zipfile

NAME = "fusednorm"
EPOCH = (1980, 1, 1, 0, 0, 0)

# auditwheel 6.8 manylinux-policy.json (x86_64): the symbol-version limits and library list.
_MANYLINUX_LIBS = {
    "libGL.so.1", "libICE.so.6", "libSM.so.6", "libX11.so.6", "libXext.so.6", "libXrender.so.1",
    "libanl.so.1", "libatomic.so.1", "libc.so.6", "libdl.so.2", "libexpat.so.1", "libgcc_s.so.1",
    "libglib-2.0.so.0", "libgobject-2.0.so.0", "libgthread-2.0.so.0", "libm.so.6", "libmvec.so.1",
    "libnsl.so.1", "libpthread.so.0", "libresolv.so.2", "librt.so.1", "libstdc++.so.6",
    "libutil.so.1", "libz.so.1", "ld-linux-x86-64.so.2", "libcrypt.so.1",
}
POLICIES = {
    "manylinux_2_28_x86_64": {"GLIBC": (2, 28), "GLIBCXX": (3, 4, 24), "CXXABI": (1, 3, 11),
                              "GCC": (7, 0, 0)},
    "manylinux_2_34_x86_64": {"GLIBC": (2, 34), "GLIBCXX": (3, 4, 29), "CXXABI": (1, 3, 13),
                              "GCC": (7, 0, 0)},
}
# Provided by the torch requirement (torch/lib), loaded before our libraries.
TORCH_PROVIDED = {"libtorch_cpu.so", "libtorch_cuda.so", "libgomp.so.1"}

SUMMARY = ("Fused RMSNorm forward/backward (plain, fused residual add, Gemma offset) for PyTorch, "
           "CUDA and CPU, with float64-verified numerics")
CLASSIFIERS = [
    "Development Status :: 4 - Beta",
    "Environment :: GPU :: NVIDIA CUDA",
    "Environment :: GPU :: NVIDIA CUDA :: 13",
    "Intended Audience :: Developers",
    "Intended Audience :: Science/Research",
    "License :: OSI Approved :: Apache Software License",
    "Operating System :: POSIX :: Linux",
    "Programming Language :: C",
    "Programming Language :: C++",
    "Programming Language :: Python :: 3",
    "Programming Language :: Python :: 3 :: Only",
    "Topic :: Scientific/Engineering :: Artificial Intelligence",
]
# The address the project is published at, one "Label, URL" a line (shim/wheel/project_urls.txt);
# written into METADATA as Project-URL.
REQUIRES = [
    "Requires-Python: >=3.10",
    "Requires-Dist: torch>=2.11",
    "Requires-Dist: numpy",
    "Provides-Extra: capture",
    'Requires-Dist: h5py; extra == "capture"',
]


def _ver(s):
    return tuple(int(x) for x in s.split("."))


def check_library(path, tag, shipped):
    """Raises SystemExit unless the library at `path` satisfies the platform tag's policy."""
    policy = POLICIES[tag]
    try:
        dyn = subprocess.run(["readelf", "-W", "-d", path], check=True, capture_output=True,
                             text=True).stdout
        ver = subprocess.run(["readelf", "-W", "-V", path], check=True, capture_output=True,
                             text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"build_wheel: readelf on {path} failed: {e}")
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn)
    bad = [n for n in needed if n not in _MANYLINUX_LIBS | TORCH_PROVIDED | shipped]
    if bad:
        sys.exit(f"build_wheel: {os.path.basename(path)} needs {bad}: neither on the {tag} "
                 "list, nor in the wheel, nor provided by torch")
    need_section = ver.split(".gnu.version_r", 1)[1] if ".gnu.version_r" in ver else ""
    worst = {}
    for family, number in re.findall(r"Name: (GLIBC|GLIBCXX|CXXABI|GCC)_([0-9.]+)", need_section):
        v = _ver(number)
        if v > policy[family]:
            sys.exit(f"build_wheel: {os.path.basename(path)} needs {family}_{number}, newer than "
                     f"{tag} allows ({family}_{'.'.join(map(str, policy[family]))})")
        worst[family] = max(worst.get(family, v), v)
    return needed, worst


def record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", action="append", required=True,
                    help="a shared library to put into the package directory (repeatable)")
    ap.add_argument("--package-root", required=True, help="directory containing fusednorm/")
    ap.add_argument("--readme", required=True, help="long description (Markdown)")
    ap.add_argument("--license", required=True, help="license text, shipped in dist-info")
    ap.add_argument("--urls", help="project URLs, 'Label, URL' a line")
    ap.add_argument("--tag", required=True, help="python-abi-platform, e.g. "
                    "py3-none-manylinux_2_34_x86_64")
    ap.add_argument("--out", required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()

    py, abi, plat = a.tag.split("-")
    if (py, abi) != ("py3", "none") or plat not in POLICIES:
        sys.exit(f"build_wheel: tag {a.tag}: expected py3-none-<one of {sorted(POLICIES)}>")

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
    for need in ("__init__.py", "VERSION"):
        if f"{NAME}/{need}" not in entries:
            sys.exit(f"build_wheel: {NAME}/{need} missing from the inputs")
    version = entries[f"{NAME}/VERSION"].decode().strip()
    if not re.fullmatch(r"\d+\.\d+\.\d+", version):
        sys.exit(f"build_wheel: {NAME}/VERSION holds '{version}', not MAJOR.MINOR.PATCH")
    want = f"{NAME}-{version}-{a.tag}.whl"
    if os.path.basename(a.out) != want:
        sys.exit(f"build_wheel: --out is {os.path.basename(a.out)}, but this wheel is {want}")

    shipped = {os.path.basename(p) for p in a.lib}
    for lib in a.lib:
        check_library(lib, plat, shipped)
        with open(lib, "rb") as fh:
            entries[f"{NAME}/{os.path.basename(lib)}"] = fh.read()

    with open(a.readme, encoding="utf-8") as fh:
        readme = fh.read()
    urls = []
    if a.urls:
        with open(a.urls, encoding="utf-8") as fh:
            for line in fh:
                line = line.strip()
                if line and not line.startswith("#"):
                    label, _, url = line.partition(",")
                    if not url.strip().startswith("https://"):
                        sys.exit(f"build_wheel: {a.urls}: '{line}' is not 'Label, https://...'")
                    urls.append(f"Project-URL: {label.strip()}, {url.strip()}")
    metadata = "\n".join(
        # 2.1, not 2.4 (License-Expression): the pip of a fresh Python 3.10/3.11 venv (22-23)
        # must read it.
        ["Metadata-Version: 2.1", f"Name: {NAME}", f"Version: {version}", f"Summary: {SUMMARY}",
         "License: Apache-2.0"] + urls + [f"Classifier: {c}" for c in CLASSIFIERS] + REQUIRES +
        ["Description-Content-Type: text/markdown"]) + "\n\n" + readme

    dist_info = f"{NAME}-{version}.dist-info"
    entries[f"{dist_info}/METADATA"] = metadata.encode()
    entries[f"{dist_info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: fusednorm build_wheel.py\nRoot-Is-Purelib: false\n"
        f"Tag: {a.tag}\n").encode()
    entries[f"{dist_info}/top_level.txt"] = f"{NAME}\n".encode()
    with open(a.license, "rb") as fh:
        entries[f"{dist_info}/LICENSE"] = fh.read()
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
