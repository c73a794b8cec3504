#!/bin/bash
# The wheel is valid, installable and self-contained:
#   * its name, tag and METADATA are what an index accepts (manylinux tag, Requires-Python >=3.10,
#     Requires-Dist torch>=2.11 and numpy, license, classifiers); RECORD matches the contents;
#   * the manylinux tag holds: no GLIBC symbol version newer than the tag's (objdump, checked
#     independently of build_wheel.py), no CUDA toolkit library needed (static CUDA runtime);
#   * `pip install fusednorm-*.whl` into a fresh venv resolves its requirements against the torch
#     that is installed (PYTHON's site directories, --no-index: never the network), with no Bazel and
#     no CUDA toolkit on PATH; `import fusednorm` from an unrelated directory with no
#     FUSEDNORM_LIBRARY finds both libraries inside the package, and the ops give the right answer.
# usage: test_wheel.sh PYTHON WHEEL [--device cuda]
set -eu
py="${1:-python3}"; whl="$2"; device="${4:-cpu}"
[ -n "$py" ] || py=python3
py="$(command -v "$py")"
tmp="${TEST_TMPDIR:-$(mktemp -d)}/wheel_test"
rm -rf "$tmp"; mkdir -p "$tmp/elsewhere" "$tmp/libs"
whl="$(cd "$(dirname "$whl")" && pwd)/$(basename "$whl")"
unset FUSEDNORM_LIBRARY PYTHONPATH CUDA_HOME CUDA_PATH
export PYTHONDONTWRITEBYTECODE=1 HOME="$tmp" XDG_CACHE_HOME="$tmp/cache"
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
# No CUDA toolkit: its bin directories leave PATH (the libraries carry the static runtime).
PATH="$(echo "$PATH" | tr ':' '\n' | grep -v -i cuda | paste -sd:)"
export PATH

"$py" - "$whl" "$tmp/libs" <<'EOF'
import base64, email.parser, hashlib, os, re, sys, zipfile
whl, libs = sys.argv[1], sys.argv[2]
# name-version-python-abi-platform.whl; the version is the package's VERSION file.
m = re.fullmatch(r"fusednorm-(\d+\.\d+\.\d+)-py3-none-(manylinux_\d+_\d+_x86_64)\.whl",
                 os.path.basename(whl))
assert m, f"unexpected wheel file name {os.path.basename(whl)}"
version, plat = m.group(1), m.group(2)
di = f"fusednorm-{version}.dist-info"
with zipfile.ZipFile(whl) as z:
    names = set(z.namelist())
    for need in ("fusednorm/__init__.py", "fusednorm/VERSION", "fusednorm/libfusednorm_ops.so",
                 "fusednorm/libfusednorm.so", f"{di}/METADATA", f"{di}/WHEEL", f"{di}/RECORD",
                 f"{di}/LICENSE"):
        assert need in names, f"{need} missing from {whl}"
    assert z.read("fusednorm/VERSION").decode().strip() == version, "VERSION != file name"
    rows = [l.split(",") for l in z.read(f"{di}/RECORD").decode().splitlines()]
    recorded = {r[0] for r in rows}
    assert recorded == names, f"RECORD and contents differ: {recorded ^ names}"
    for path, digest, size in rows:
        if not digest:
            continue
        data = z.read(path)
        h = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert h == digest and int(size) == len(data), f"RECORD mismatch for {path}"
    meta = email.parser.Parser().parsestr(z.read(f"{di}/METADATA").decode())
    wheel = email.parser.Parser().parsestr(z.read(f"{di}/WHEEL").decode())
    assert wheel["Tag"] == f"py3-none-{plat}", wheel["Tag"]
    assert wheel["Root-Is-Purelib"] == "false"
    assert meta["Name"] == "fusednorm" and meta["Version"] == version, (meta["Name"], meta["Version"])
    assert meta["Requires-Python"] == ">=3.10", meta["Requires-Python"]
    deps = meta.get_all("Requires-Dist")
    for d in ("torch>=2.11", "numpy"):
        assert d in deps, f"Requires-Dist {d} missing: {deps}"
    assert meta["License"] == "Apache-2.0", meta["License"]
    assert "Operating System :: POSIX :: Linux" in meta.get_all("Classifier"), "classifiers"
    for so in ("libfusednorm_ops.so", "libfusednorm.so"):
        with open(os.path.join(libs, so), "wb") as f:
            f.write(z.read(f"fusednorm/{so}"))
print(f"wheel contents OK: {len(names)} files, version {version}, {plat}")
EOF

glibc_max="$(basename "$whl" | sed -E 's/.*manylinux_([0-9]+)_([0-9]+)_x86_64\.whl/\1.\2/')"
for so in libfusednorm_ops.so libfusednorm.so; do
  worst="$(objdump -T "$tmp/libs/$so" | grep -oE 'GLIBC_[0-9]+\.[0-9]+(\.[0-9]+)?' | sed 's/GLIBC_//' | sort -V | tail -n 1)"
  if [ -z "$worst" ] || [ "$(printf '%s\n%s\n' "$worst" "$glibc_max" | sort -V | tail -n 1)" != "$glibc_max" ]; then
    echo "test_wheel: FAIL: $so needs GLIBC_${worst:-?}, the tag says manylinux $glibc_max" >&2; exit 1
  fi
  cuda_libs="$(readelf -d "$tmp/libs/$so" | grep NEEDED | grep -oE '\[lib(cudart|cublas|nvrtc|cuda)[^]]*\]' || true)"
  if [ -n "$cuda_libs" ]; then
    echo "test_wheel: FAIL: $so needs CUDA toolkit libraries: $cuda_libs" >&2; exit 1
  fi
  echo "$so: newest GLIBC symbol version $worst (tag allows $glibc_max), no CUDA toolkit library NEEDED"
done
readelf -d "$tmp/libs/libfusednorm_ops.so" | grep -q 'NEEDED.*\[libfusednorm.so\]' ||
  { echo "test_wheel: FAIL: the op library does not NEED libfusednorm.so" >&2; exit 1; }
readelf -d "$tmp/libs/libfusednorm_ops.so" | grep -E 'RUNPATH|RPATH' | grep -qE '\$ORIGIN(:|\])' ||
  { echo "test_wheel: FAIL: the op library has no \$ORIGIN RUNPATH" >&2; exit 1; }

# A fresh venv that sees the installed torch; pip resolves the wheel's requirements against it
# (--no-index: a missing or too old torch/numpy is an error here, not a download). The torch is
# the one PYTHON imports, which may itself live in a venv (--system-site-packages would then see
# the base interpreter's packages instead): a .pth file puts PYTHON's site directories on the new
# venv's path, after its own.
"$py" -m venv --without-pip "$tmp/venv"
vsite="$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
"$py" -c 'import site, sys; print("\n".join(p for p in site.getsitepackages() + [site.getusersitepackages()] if p))' > "$vsite/outer_site.pth"
"$py" -m pip --python "$tmp/venv/bin/python" install --no-index --no-compile "$whl" > "$tmp/pip.log" 2>&1 ||
  { cat "$tmp/pip.log"; echo "test_wheel: FAIL: pip install $whl into a fresh venv" >&2; exit 1; }
grep -E 'Successfully installed|satisfied: (torch|numpy)[>= ]' "$tmp/pip.log" | sed 's/^/pip: /'
site="$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')"
cd "$tmp/elsewhere"
"$tmp/venv/bin/python" - "$site" "$device" <<'EOF'
import os, sys
import torch
import fusednorm
site, device = sys.argv[1], sys.argv[2]
assert os.path.realpath(fusednorm.__file__).startswith(os.path.realpath(site)), fusednorm.__file__
lib = fusednorm.library_path()
assert os.path.realpath(lib).startswith(os.path.realpath(site)), lib
with open(os.path.join(os.path.dirname(lib), "VERSION")) as f:
    assert fusednorm.__version__ == f.read().strip(), fusednorm.__version__
# libfusednorm.so came from the package directory (RUNPATH $ORIGIN), not from anywhere else.
with open("/proc/self/maps") as f:
    maps = {l.split()[-1] for l in f if l.rstrip().endswith("libfusednorm.so")}
assert maps == {os.path.join(os.path.realpath(site), "fusednorm", "libfusednorm.so")}, maps
seed = int.from_bytes(os.urandom(4), "little")
print(f"seed {seed}")
torch.manual_seed(seed)
x = torch.randn(64, 512, device=device, dtype=torch.float32, requires_grad=True)
w = torch.randn(512, device=device, requires_grad=True)
y = fusednorm.rms_norm(x, w, 1e-6)
ref = torch.nn.functional.rms_norm(x.double(), (512,), w.double(), 1e-6)
err = ((y.double() - ref).abs().max() / ref.abs().max()).item()
assert err < 1e-6, err
y.sum().backward()
assert x.grad is not None and w.grad is not None
# The C reference rides in libfusednorm.so: fusednorm.reference works from the wheel alone.
from fusednorm import reference
xb, wb = x.detach().bfloat16(), w.detach().bfloat16()
yb, rstd = torch.ops.fusednorm.rms_norm_fwd(xb, wb, 1e-6, 0.0, "fp32", None)
v = reference.check_forward(xb, None, wb, yb, None, rstd, 1e-6)
assert v.ok, str(v)
bad = yb.clone(); bad.view(-1)[3] = -bad.view(-1)[3] * 1.5
assert not reference.check_forward(xb, None, wb, bad, None, rstd, 1e-6).ok
print(f"import fusednorm {fusednorm.__version__} from {os.getcwd()} OK: {lib}, "
      f"torch {torch.__version__}, {device}, max rel err {err:.2e}")
EOF
