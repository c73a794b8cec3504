"""Runs one case's step a few times (for ncu): python3 tools/bench/results/qk_fwd_ncu_h200_2026-12-01/one.py "fp16 1x255 bwd" fusednorm|compile"""
import sys
sys.path.insert(0, "tools/bench")
import torch, bench
dev = torch.device("cuda")
dt, mn, op = sys.argv[1].split(); m, n = map(int, mn.split("x"))
fn_mod, modes, err = bench.load_fusednorm()
p = [q for q in bench.fusednorm_providers(fn_mod, []) if q.name == "fusednorm:auto"][0] if sys.argv[2] == "fusednorm" else bench.CompileProvider()
sets = [bench.make_set(op, m, n, bench.DTYPES[dt], dev, 1 + i) for i in range(8)]
for d in sets:
    for k in ("x", "r", "w"):
        if k in d: d[k].requires_grad_(True)
step, _ = bench.make_step(p, op, sets)
for i in range(12): step(i)
torch.cuda.synchronize()
