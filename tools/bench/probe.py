#!/usr/bin/env python3
"""Hardware-counter evidence for the benchmark's numbers: bytes really moved, achieved occupancy.

Where bench.py says a target was missed, this says why in counters (bytes really moved against
the byte formula, achieved occupancy). Two steps, on the GPU machine (Nsight Compute there; Firecracker runtime):

  ncu --clock-control none --profile-from-start off --csv --page raw --metrics $(probe.py --metrics) \\
      python3 tools/bench/probe.py --shapes 32768x4096,1024x65536 --ops fwd,bwd > ncu.csv
  python3 tools/bench/probe.py --summarize ncu.csv            # table: per case and kernel

The run part executes each (shape, op) once for warm-up (compilation, JIT: not profiled), then once
inside cudaProfilerStart/Stop, preceded by a marker kernel (torch.cuda._sleep) so the summary can
assign kernels to cases by launch order. Bytes from DRAM counters are compared with the contract's
byte formula (bench.bytes_moved): a ratio above 1 is traffic the formula does not count (re-reads
of x that missed L2, the fp32 partial-dw workspace, spills).
"""
import argparse
import csv
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

METRICS = [
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",   # achieved occupancy
    "sm__maximum_warps_per_active_cycle_pct",              # theoretical occupancy
    "launch__registers_per_thread",
    "launch__grid_size",
    "launch__block_size",
    "launch__shared_mem_per_block_dynamic",
]
MARKER_CYCLES = 1000


def run(a):
    import torch
    dev = torch.device("cuda")
    fn_mod, modes, err = bench.load_fusednorm()
    provs = {}
    if fn_mod is not None:
        provs.update({p.name: p for p in bench.fusednorm_providers(fn_mod, modes)})
    provs["torch"] = bench.Provider("torch", "torch", bench.eager_fwd, bench.eager_add_fwd, True)
    if a.provider == "compile":
        provs["compile"] = bench.CompileProvider()
    lp, _ = bench.liger_provider()
    if lp:
        provs["liger"] = lp
    if a.provider not in provs:
        print(f"probe: provider {a.provider!r} not available ({err or 'unknown name'}); have {sorted(provs)}",
              file=sys.stderr)
        return 2
    prov = provs[a.provider]
    dtype = bench.DTYPES[a.dtype]
    cases = []
    for m, n in a.shapes:
        for op in a.ops.split(","):
            sets = [bench.make_set(op, m, n, dtype, dev, 1234)]
            for k in ("x", "r", "w"):
                if k in sets[0]:
                    sets[0][k].requires_grad_(True)
            try:
                step, _ = bench.make_step(prov, op, sets)
                step(0)  # warm-up: compilation and first-launch work stay out of the profile
            except Exception as e:
                print(f"probe: {m}x{n} {op}: {type(e).__name__}: {str(e).splitlines()[0]}", file=sys.stderr)
                continue
            cases.append((f"{a.dtype} {m}x{n} {op}", step, bench.bytes_moved(op, m, n, sets[0]["x"].element_size())))
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for _, step, _ in cases:
        torch.cuda._sleep(MARKER_CYCLES)  # marker: separates the cases in ncu's launch order
        step(1)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    # The case list goes to stderr (stdout is ncu's CSV): --summarize reads it from --cases.
    for label, _, b in cases:
        print(f"probe-case\t{label}\t{b}", file=sys.stderr)
    return 0


def summarize(path, cases_path):
    text = open(path).read()
    start = text.find('"ID"')
    if start < 0:
        print(f"probe: no ncu CSV table in {path}", file=sys.stderr)
        return 2
    rows = list(csv.DictReader(io.StringIO(text[start:])))
    rows = [r for r in rows if r.get("ID", "").strip().isdigit()]  # drop the units row
    cases = []
    if cases_path:
        for line in open(cases_path):
            if line.startswith("probe-case\t"):
                _, label, b = line.rstrip("\n").split("\t")
                cases.append((label, int(b)))
    groups, cur = [], None
    for r in rows:
        name = r.get("Kernel Name", "")
        if "sleep" in name or "spin" in name:
            cur = []
            groups.append(cur)
        elif cur is not None:
            cur.append(r)

    def f(r, k):
        try:
            return float(str(r.get(k, "nan")).replace(",", ""))
        except ValueError:
            return float("nan")

    print("case | kernel | us | DRAM read MB | DRAM write MB | DRAM / formula | GB/s (DRAM) | regs | grid x block | "
          "occupancy achieved / theoretical %")
    for i, g in enumerate(groups):
        label, formula = cases[i] if i < len(cases) else (f"case {i}", 0)
        tot_b = sum(f(r, "dram__bytes_read.sum") + f(r, "dram__bytes_write.sum") for r in g)
        tot_t = sum(f(r, "gpu__time_duration.sum") for r in g)
        for r in g:
            t = f(r, "gpu__time_duration.sum")  # ncu reports ns for gpu__time_duration
            rd, wr = f(r, "dram__bytes_read.sum"), f(r, "dram__bytes_write.sum")
            print(f"{label} | {r['Kernel Name'][:60]} | {t / 1e3:.1f} | {rd / 1e6:.1f} | {wr / 1e6:.1f} | "
                  f"{'-' if not formula else f'{(rd + wr) / formula:.2f}'} | {(rd + wr) / t if t else 0:.0f} | "
                  f"{f(r, 'launch__registers_per_thread'):.0f} | {f(r, 'launch__grid_size'):.0f} x "
                  f"{f(r, 'launch__block_size'):.0f} | "
                  f"{f(r, 'sm__warps_active.avg.pct_of_peak_sustained_active'):.0f} / "
                  f"{f(r, 'sm__maximum_warps_per_active_cycle_pct'):.0f}")
        if len(g) > 1:
            print(f"{label} | (all {len(g)} kernels) | {tot_t / 1e3:.1f} | | | "
                  f"{'-' if not formula else f'{tot_b / formula:.2f}'} | {tot_b / tot_t if tot_t else 0:.0f} | | |")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--metrics", action="store_true", help="print the ncu --metrics list and exit")
    ap.add_argument("--summarize", metavar="NCU_CSV", help="summarize an ncu CSV written by a probe run")
    ap.add_argument("--cases", metavar="STDERR_LOG", help="with --summarize: the probe run's stderr")
    ap.add_argument("--shapes", type=bench.parse_shapes, default=[(32768, 4096)])
    ap.add_argument("--ops", default="fwd,bwd")
    ap.add_argument("--dtype", default="bf16", choices=list(bench.DTYPES))
    ap.add_argument("--provider", default="fusednorm:auto")
    a = ap.parse_args()
    if a.metrics:
        print(",".join(METRICS))
        return 0
    if a.summarize:
        return summarize(a.summarize, a.cases)
    bad = [o for o in a.ops.split(",") if o not in bench.OPS]
    if bad:
        ap.error(f"unknown op(s) {bad}")
    return run(a)


if __name__ == "__main__":
    sys.exit(main())
