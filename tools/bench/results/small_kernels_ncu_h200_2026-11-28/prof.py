"""Kernel list and durations (torch profiler) of a few small cases: fusednorm AUTO vs torch.compile.
Usage: python3 gpu_dev/prof.py "bf16 34x153 add_bwd" ..."""
import sys, collections
sys.path.insert(0, "tools/bench")
import torch, bench
from torch.profiler import profile, ProfilerActivity
dev = torch.device("cuda")
fn_mod, modes, err = bench.load_fusednorm()
provs = [p for p in bench.fusednorm_providers(fn_mod, []) if p.name == "fusednorm:auto"] + [bench.CompileProvider()]
for spec in sys.argv[1:]:
    dt, mn, op = spec.split(); m, n = map(int, mn.split("x"))
    sets = [bench.make_set(op, m, n, bench.DTYPES[dt], dev, 1 + i) for i in range(8)]
    for d in sets:
        for k in ("x", "r", "w"):
            if k in d: d[k].requires_grad_(True)
    for p in provs:
        if hasattr(p, "reset"): p.reset()
        step, _ = bench.make_step(p, op, sets)
        for i in range(20): step(i)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as pr:
            for i in range(40): step(i)
            torch.cuda.synchronize()
        ks = collections.defaultdict(list)
        for e in pr.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                ks[e.name].append(e.device_time if hasattr(e, "device_time") else e.cuda_time)
        tot = sum(sum(v) for v in ks.values()) / 40
        print(f"{spec:24s} {p.name:16s} kernels/step {sum(len(v) for v in ks.values())/40:.1f}  busy {tot:.2f} us")
        for k, v in sorted(ks.items(), key=lambda kv: -sum(kv[1])):
            print(f"    {len(v)/40:4.1f}x {sum(v)/len(v):6.2f} us  {k[:110]}")
