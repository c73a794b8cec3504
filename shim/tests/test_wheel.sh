#!/bin/bash
# The wheel is valid and self-contained: pip accepts it, its RECORD matches its contents, and
# after installing it `import fusednorm` works from an unrelated directory with no
# FUSEDNORM_LIBRARY (the .so is found next to the package) and the ops give the right answer.
# usage: test_wheel.sh PYTHON WHEEL [--device cuda]
set -eu
py="${1:-python3}"; whl="$2"; device="${4:-cpu}"
[ -n "$py" ] || py=python3
tmp="${TEST_TMPDIR:-$(mktemp -d)}/wheel_test"
rm -rf "$tmp"; mkdir -p "$tmp/elsewhere"
whl="$(cd "$(dirname "$whl")" && pwd)/$(basename "$whl")"
unset FUSEDNORM_LIBRARY
export PYTHONDONTWRITEBYTECODE=1 HOME="$tmp" XDG_CACHE_HOME="$tmp/cache"

"$py" - "$whl" <<'EOF'
import base64, hashlib, sys, zipfile
whl = sys.argv[1]
with zipfile.ZipFile(whl) as z:
    names = set(z.namelist())
    for need in ("fusednorm/__init__.py", "fusednorm/libfusednorm_ops.so",
                 "fusednorm-0.1.0.dist-info/METADATA", "fusednorm-0.1.0.dist-info/WHEEL",
                 "fusednorm-0.1.0.dist-info/RECORD"):
        assert need in names, f"{need} missing from {whl}"
    rows = [l.split(",") for l in z.read("fusednorm-0.1.0.dist-info/RECORD").decode().splitlines()]
    recorded = {r[0] for r in rows}
    assert recorded == names, f"RECORD and contents differ: {recorded ^ names}"
    for path, digest, size in rows:
        if not digest:
            continue
        data = z.read(path)
        h = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert h == digest and int(size) == len(data), f"RECORD mismatch for {path}"
print(f"wheel contents OK: {len(names)} files")
EOF

# --no-index --no-deps: the test never reaches the network; torch is already installed.
PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 "$py" -m pip install --quiet --no-deps --no-index --no-compile --target "$tmp/site" "$whl"
cd "$tmp/elsewhere"
PYTHONPATH="$tmp/site" "$py" - "$tmp/site" "$device" <<'EOF'
import os, sys
import torch
import fusednorm
site, device = sys.argv[1], sys.argv[2]
assert os.path.realpath(fusednorm.__file__).startswith(os.path.realpath(site)), fusednorm.__file__
lib = fusednorm.library_path()
assert os.path.realpath(lib).startswith(os.path.realpath(site)), lib
torch.manual_seed(0)
x = torch.randn(64, 512, device=device, dtype=torch.float32, requires_grad=True)
w = torch.randn(512, device=device, requires_grad=True)
y = fusednorm.rms_norm(x, w, 1e-6)
ref = torch.nn.functional.rms_norm(x.double(), (512,), w.double(), 1e-6)
err = ((y.double() - ref).abs().max() / ref.abs().max()).item()
assert err < 1e-6, err
y.sum().backward()
assert x.grad is not None and w.grad is not None
# The C reference rides in the same .so: fusednorm.reference works from the wheel alone.
from fusednorm import reference
xb, wb = x.detach().bfloat16(), w.detach().bfloat16()
yb, rstd = torch.ops.fusednorm.rms_norm_fwd(xb, wb, 1e-6, 0.0, "fp32", None)
v = reference.check_forward(xb, None, wb, yb, None, rstd, 1e-6)
assert v.ok, str(v)
bad = yb.clone(); bad.view(-1)[3] = -bad.view(-1)[3] * 1.5
assert not reference.check_forward(xb, None, wb, bad, None, rstd, 1e-6).ok
print(f"import fusednorm from {os.getcwd()} OK: {lib}, torch {torch.__version__}, {device}, "
      f"max rel err {err:.2e}")
EOF
