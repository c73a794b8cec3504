"""One case's forward a few times, for ncu: python3 ncu_one.py fusednorm|quack|compile [dtype MxN]"""
import sys
sys.path.insert(0, "tools/bench")
import torch, bench
dev = torch.device("cuda")
which = sys.argv[1]
dt, mn = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else ("bf16", "16x215342")
m, n = map(int, mn.split("x"))
if which == "fusednorm":
    fn_mod, modes, err = bench.load_fusednorm()
    p = [q for q in bench.fusednorm_providers(fn_mod, []) if q.name == "fusednorm:auto"][0]
elif which == "quack":
    p, err = bench.quack_provider()
else:
    p = bench.CompileProvider()
sets = [bench.make_set("fwd", m, n, bench.DTYPES[dt], dev, 1 + i) for i in range(8)]
step, _ = bench.make_step(p, "fwd", sets)
step(0)  # Quack compiles its kernel on the first call
torch.cuda.synchronize()
torch.cuda.nvtx.range_push("steps")
for i in range(12): step(i)
torch.cuda.synchronize()
torch.cuda.nvtx.range_pop()
