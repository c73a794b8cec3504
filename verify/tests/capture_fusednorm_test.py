"""fusednorm.capture with the fusednorm package itself (the compiled ops): `fusednorm.capture(...)`
resolves, fusednorm.RMSNorm (plain and with a residual) and fusednorm.fused_add_rms_norm are
captured, the job is bitwise unchanged, and the replay accepts the file and passes it.
usage: capture_fusednorm_test.py LIBFUSEDNORM_OPS.so"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

os.environ["FUSEDNORM_LIBRARY"] = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.join(common.REPO, "shim", "python"))
import h5py  # noqa: E402
import torch  # noqa: E402

import fusednorm  # noqa: E402

torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(40, 40),
                        fusednorm.RMSNorm(40, offset=1.0, casting="gemma")).to(torch.bfloat16)
w = torch.nn.Parameter(1 + 0.1 * torch.randn(40))
x = torch.randn(3, 7, 40, dtype=torch.bfloat16)
r = torch.randn(3, 7, 40, dtype=torch.bfloat16)


def run():
    y, r2 = fusednorm.fused_add_rms_norm(m(x), r, w, 1e-5)
    y2, r3 = m[1](y, r2)
    loss = y2.float().square().sum() + r3.float().sum()
    loss.backward()
    grads = [p.grad.clone() for p in list(m.parameters()) + [w]]
    for p in list(m.parameters()) + [w]:
        p.grad = None
    return loss.detach(), grads


l0, g0 = run()
path = os.path.join(common.tmpdir(), "fusednorm_capture.h5")
with fusednorm.capture(path, m) as cap:
    l1, g1 = run()
assert torch.equal(l0, l1), (l0, l1)
assert all(torch.equal(a, b) for a, b in zip(g0, g1)), "a gradient changed under capture"
with h5py.File(path) as f:
    got = [(cap_attr.decode() if isinstance(cap_attr, bytes) else cap_attr)
           for cap_attr in (f["records"][k].attrs["impl"] + "/" + f["records"][k].attrs["op"]
                            for k in f["records"])]
    for k in f["records"]:
        g = f["records"][k]
        assert "dy" in g and "dx" in g["job"] and "dw" in g["job"], (k, list(g), list(g["job"]))
assert got == ["fusednorm.RMSNorm/rms_norm", "fusednorm.fused_add_rms_norm/fused_add_rms_norm",
               "fusednorm.RMSNorm/fused_add_rms_norm"], got
rc, so, se = common.run_replay([path, "--device", "cpu"])
assert rc == 0, so + se
print(f"records {got}; loss and grads bitwise unchanged; replay: {so.strip().splitlines()[-1]}")
print("PASS")
