#!/usr/bin/env python3
"""Tiny problems: where does AUTO's time per call go against torch.compile's? For each case: the
kernels one call launches (profiler: names, count per call, mean GPU duration) and the per-call time
the bench reports (events between back-to-back calls behind a spin)."""
import sys, os, statistics, torch
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../tools/bench"))
import bench as B
from torch.profiler import profile, ProfilerActivity

CASES = [("bf16","fwd",1,7),("fp16","fwd",1,336),("fp32","fwd",13,16),("bf16","fwd",22,1),("fp16","fwd",8,301),
         ("fp32","fwd",2216,1),("bf16","fwd",767,198),("fp16","fwd",264,1214),("bf16","add_fwd",1,12),
         ("fp16","add_fwd",1,918),("fp32","add_fwd",24,14),("fp16","bwd",1,255),("fp32","bwd",1,183),
         ("bf16","bwd",1,6732),("bf16","bwd",230,59),("fp16","bwd",43,1750),("bf16","add_bwd",29,1),
         ("fp32","add_bwd",68,1),("bf16","add_bwd",34,153),("bf16","fwd",4096,4096),("bf16","bwd",4096,4096)]
fn, modes, err = B.load_fusednorm()
provs = [B.fusednorm_providers(fn, [])[0], B.CompileProvider()]
timer = B.CudaTimer()
dev = torch.device("cuda")
print(f"{'case':28s} {'prov':14s} {'us/call':>8s} {'kern/call':>9s}  kernels (mean us)")
for dt, op, m, n in CASES:
    sets = [B.make_set(op, m, n, B.DTYPES[dt], dev, 7 + i) for i in range(8)]
    for p in provs:
        if p.name == "compile": p.reset()
        step, _ = B.make_step(p, op, sets)
        for i in range(20): step(i)
        torch.cuda.synchronize()
        times, lb = timer.time(step, 200, 0.05)
        us = statistics.median(times) * 1e3
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for i in range(50): step(i)
            torch.cuda.synchronize()
        ks = {}
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                d = getattr(e, "device_time", None) or getattr(e, "cuda_time", 0)
                ks.setdefault(e.name, []).append(d)
        kern = sum(len(v) for v in ks.values()) / 50
        desc = "; ".join(f"{k[:48]} x{len(v)/50:.0f} {statistics.mean(v):.2f}" for k, v in ks.items())
        print(f"{dt} {op} {m}x{n}".ljust(28), f"{p.name:14s} {us:8.2f} {kern:9.1f}{'~' if lb else ' '} {desc}", flush=True)
