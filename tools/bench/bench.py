#!/usr/bin/env python3
"""fusednorm benchmark: RMSNorm kernel time and GB/s against its peers, in one run.

A program, not a test (run on a GPU machine). One run measures, for every (dtype, shape, op) and
input mode (cold, hot):
  providers  fusednorm:auto and fusednorm:<mode> for each forced mode (fusednorm.rms_norm(..., mode=)),
             torch (eager F.rms_norm; fused add = eager `x + r` then F.rms_norm),
             compile (torch.compile of exactly those eager functions, dynamic=False, one per shape),
             liger (liger_kernel LigerRMSNormFunction / LigerFusedAddRMSNormFunction, when importable),
             quack (quack-kernels' quack.rmsnorm.rmsnorm, CuTe DSL, when importable; fused add =
               rmsnorm(x, w, residual=r, prenorm=True); a shape it cannot compile or run is declined
               with its reason, not a failure; README.md says how to carry it to the GPU machine),
             copy (device-to-device copy of an M x N tensor: the bandwidth ceiling of this run).
  ops        fwd      y = rms_norm(x, w)                        (inputs require grad: the training forward)
             bwd      dx, dw = autograd.grad(y, (x, w), dy)     on a saved forward: backward kernels only
             add_fwd  y, s = fused_add_rms_norm(x, r, w)
             add_bwd  dx(=dr), dw = autograd.grad((y, s), (x, r, w), (dy, ds))
  inputs     cold  rotating buffers (below): inputs come from HBM
             hot   one input set whose fresh inputs (fwd x; add_fwd r, x; bwd dy; add_bwd ds, dy) a
                   kernel rewrites in place (a sign flip) just before each timed call, outside its
                   window: they sit in L2 as a training step's previous op leaves them
             --inputs cold|hot|both (default both); every row and table says which.

Bytes (kernels/README.md "Measuring speed"; e = element size, weight in the activation dtype):
  fwd      (2*M*N + N) * e        read x, write y, read w
  bwd      (3*M*N + 2*N) * e      read x, dy, write dx, read w, write dw (the fp32 partials are extra)
  add_fwd  4*M*N * e              read x, r, write y, s
  add_bwd  4*M*N * e              read s, dy, ds, write dx
  copy     2*M*N * e              read + write of an M x N tensor
GB/s = bytes / median kernel time (1 GB = 1e9 bytes). "%copy" = GB/s over the copy's GB/s at the same
shape, dtype and input mode, measured in the same run. Problems under 1 MB also get a latency column:
median microseconds per call of AUTO and of the best peer (GB/s says little there).

Timing (why it is done this way):
  * Kernel time, not launch overhead: the GPU is first parked on a spin kernel (torch.cuda._sleep) long
    enough for the CPU to enqueue every timed iteration, so the iterations run back to back; one CUDA
    event between consecutive iterations (cold), or one after the hot writer and one after the call
    (hot), gives a per-iteration time; we report the median. If the spin ran out before the CPU
    finished enqueueing, the spin is made 4x longer and the measurement redone (twice at most); if it
    still runs out the row is flagged "launch-bound" (time includes CPU gaps).
  * Rotating buffers (cold): each measurement cycles over enough independent input sets (and keeps each
    set's outputs alive until its next turn) that the bytes touched between two uses of a set exceed
    4x the L2 size, so inputs come from HBM unless one iteration's own working set fits in L2.
  * Backward: the forward of every set is run once (outside the timed region) and autograd.grad is timed
    with retain_graph=True, so only the backward kernels (dx, dw and its reduction) are in the window.
  * Every provider's first output (before any hot rewrite) is checked, in each input mode, and a
    failure marks the row BAD and the run exits 1: fusednorm's outputs by the C float64 reference and
    accuracy rules that the tests and verify/ use (fusednorm.reference -> kernels/ref/fusednorm_ref.c:
    y/rstd/residual_out, dx, dw with their ulp and naive-fp32 rules), on the first rows up to
    --check-elems elements (rows are independent for y and dx; dw sums every row, so it is judged by
    the C rule only when the whole tensor fits, else by the relative-L2 gate below). The peers (torch,
    compile, liger, quack) keep a relative-L2 sanity gate against a float64 evaluation of the
    contract's formula (dx relative to the larger of |dx| and |rstd*dy*w|, the terms it is the
    cancellation of when N is tiny). Each row's "gate" says which one judged it.

Runs: --quick (bf16, 6 shapes; 44 s cold only on an H200), default (full suite; ~3.5 min cold only),
--sweep K (K random cases instead of the suite: M and N log-uniform integers in [1, 2^20], odd widths
included, M*N capped by the device's free memory (sweep_cap), dtype and op uniform; case i depends
only on (--seed, i, cap), so --sweep-range A:B measures a slice, and --merge a.json,b.json joins the
slices into one report; every case is ranked by AUTO / the best peer, the worst last),
--dry-run (CPU, tiny shapes, torch peers + fusednorm's CPU backend when importable: checks the
harness end to end, timings meaningless; combines with --sweep and --inputs). Outputs (--out DIR):
bench.json (written after every case, so a killed run keeps what it measured), bench.md (tables and
targets per input mode, declined shapes with reasons), bench.png (suite: GB/s per shape sorted by N,
per provider, a row of plots per input mode and dtype, a column per op; sweep: AUTO / best peer
against bytes moved). The summary tables are printed last. Exit: 0 ok, 1 a provider failed its
accuracy check or errored, 2 bad usage. README.md: how to run it on the GPU machine.
"""
import argparse
import datetime
import hashlib
import importlib.metadata
import json
import math
import os
import platform
import random
import statistics
import sys
import time
import traceback

import torch
import torch.nn.functional as F

EPS = 1e-6
OPS = ("fwd", "bwd", "add_fwd", "add_bwd")
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
# Forced modes, named as fusednorm_mode_name() spells them (kernels/include/fusednorm.h); the package's
# own list wins when it exposes one (see load_fusednorm).
DEFAULT_MODES = ("persistent", "multi_wave_reload", "multi_wave_cached", "row_packed", "wide")
PEERS = ("torch", "compile", "liger", "quack")
# Input modes (--inputs): "cold" rotates independent input sets so inputs come from HBM; "hot" rewrites
# the inputs with a kernel just before each timed call, so they sit in L2 as a training step's
# previous op leaves them.
INPUT_MODES = ("cold", "hot")
# Problems moving fewer bytes than this get a latency column (us per call): GB/s says little there.
LATENCY_BYTES = 1_000_000

BYTE_FORMULAS = {
    "fwd": "(2*M*N + N) * elem_size",
    "bwd": "(3*M*N + 2*N) * elem_size",
    "add_fwd": "4*M*N * elem_size",
    "add_bwd": "4*M*N * elem_size",
    "copy": "2*M*N * elem_size",
}


def bytes_moved(op, m, n, esize):
    """Byte formula (kernels/README.md): the fewest bytes the op must move (each tensor once)."""
    if op == "fwd":
        return (2 * m * n + n) * esize
    if op == "bwd":
        return (3 * m * n + 2 * n) * esize
    if op in ("add_fwd", "add_bwd"):
        return 4 * m * n * esize
    if op == "copy":
        return 2 * m * n * esize
    raise ValueError(op)


# ---- shape suites ---------------------------------------------------------------------------------
# (M, N). Most shapes move >= 256 MB in bf16 forward (the "large" target class); 4096x4096 and
# 65536x128 are typical per-layer sizes that fit in a few L2s; the two narrow and two wide shapes are
# the named targets; 2880, 5120, 7168 are odd widths of real models (gpt-oss, Llama/Qwen,
# DeepSeek) that are not powers of two.
FULL_SHAPES = [
    (1048576, 64), (65536, 128), (1048576, 128), (262144, 256), (131072, 512), (65536, 1024),
    (32768, 2880), (4096, 4096), (32768, 4096), (16384, 5120), (16384, 7168), (16384, 8192),
    (8192, 16384), (4096, 32768), (1024, 65536), (512, 262144), (256, 1048576),
]
# fp16/fp32 in the full run: a cross-section (on an H200 a case costs ~7 s, mostly compilation; the
# device time of a full run is shared by the team).
CORE_SHAPES = [(65536, 128), (1048576, 128), (65536, 1024), (4096, 4096), (32768, 4096), (16384, 7168),
               (1024, 65536), (256, 1048576)]
QUICK_SHAPES = [(65536, 128), (1048576, 128), (32768, 4096), (16384, 7168), (1024, 65536), (256, 1048576)]
# CPU dry run: same widths where cheap, rows shrunk; exercises odd N, narrow and wide paths.
DRY_SHAPES = [(64, 64), (33, 128), (7, 2880), (4, 5120), (2, 65536), (1, 1048576)]

# ---- speed targets (H200 bf16; H100 scales absolute numbers by 3.35/4.8) ------------------------
TARGET_LARGE = {"fwd": 4300.0, "bwd": 3900.0, "add_fwd": 4300.0, "add_bwd": 3900.0}
TARGET_WIDE = {"fwd": 4000.0, "bwd": 3500.0, "add_fwd": 4000.0, "add_bwd": 3500.0}
WIDE_SHAPES = [(1024, 65536), (256, 1048576)]
NARROW_SHAPES = [(65536, 128), (1048576, 128)]
# Named shape lists for --shapes: q/k-norm head dims 64/128/256 over 10^4-10^6 rows and
# ~10^5 rows under 128 columns (the row-packed kernels); a few rows of 128 ... 12288 columns:
# latency cases, where launch count and one wave's latency decide.
# Unaligned rows beside their nearest aligned width (the target: within 10% of its speed per
# element; unaligned_targets): each aligned width 8k with 8k - 1, whose nearest
# multiple of 4 and of 8 elements (a 16-byte vector of every dtype) is 8k, over the regimes the
# kernels split by width and rows: q/k-norm rows, hidden sizes, one CTA's row, a cluster's, a grid's.
UNALIGNED_PAIRS = [(65536, 128), (65536, 1024), (4000, 2880), (32768, 4096), (16384, 7168), (2174, 22912),
                   (201, 34304), (1024, 65536), (16, 215344), (20, 262144)]
SHAPE_PRESETS = {
    "narrow": [(4096, 128), (16384, 64), (65536, 64), (65536, 128), (65536, 256), (100000, 96),
               (131072, 64), (1048576, 64), (1048576, 128), (262144, 256), (1000000, 256)],
    "few-rows": [(4, 128), (8, 128), (32, 128), (256, 128), (4, 4096), (8, 4096), (4, 12288),
                 (8, 12288), (32, 12288), (16, 5120)],
    "unaligned": [(m, n + d) for m, n in UNALIGNED_PAIRS for d in (-1, 0)],
}


def log(*a):
    print(*a, flush=True)


# ---- random sweep (--sweep K) ---------------------------------------------------------------------
SWEEP_MAX_DIM = 1 << 20
# Device bytes one element of M x N may cost at the peak of a case, with room to spare (~90 seen in
# the accounting: the float64 reference's ~6 temporaries, the relative-L2 check's 2, an fp32 case's
# inputs, outputs and gradients, eager torch's fp32 temporaries). The cap on M*N is the free memory
# over this, rounded down to a power of two so that two machines of one kind draw the same cases
# from one seed (an H200, ~140 GB free: 2^29; an H100: 2^28). The run prints the cap it used.
SWEEP_BYTES_PER_ELEM = 192
DRY_SWEEP_MAX_ELEMS = 1 << 14  # CPU dry run: tiny problems, same distribution shape


def sweep_cap(free_bytes):
    """Largest M*N a sweep case may have on a device with free_bytes free (a power of two)."""
    elems = max(1, int(free_bytes) // SWEEP_BYTES_PER_ELEM)
    return 1 << (elems.bit_length() - 1)


def _log_uniform_int(rng, hi):
    """An integer in [1, hi], log-uniform (every octave equally likely; odd values included)."""
    return min(hi, int(math.exp(rng.uniform(0.0, math.log(hi + 1)))))


def sweep_cases(k, seed, max_elems, dtypes=tuple(DTYPES), ops=OPS):
    """K cases {index, dtype, op, M, N}: M and N log-uniform in [1, 2^20] (rejected and redrawn
    while M*N > max_elems), dtype and op uniform. Case i depends only on (seed, i), so a range of
    indices is the same cases in any run with the same seed and cap (a sweep can be split)."""
    out = []
    for i in range(k):
        rng = random.Random(f"fusednorm-sweep:{seed}:{i}")
        dt, op = rng.choice(list(dtypes)), rng.choice(list(ops))
        while True:
            m, n = _log_uniform_int(rng, SWEEP_MAX_DIM), _log_uniform_int(rng, SWEEP_MAX_DIM)
            if m * n <= max_elems:
                break
        out.append({"index": i, "dtype": dt, "op": op, "M": m, "N": n})
    return out


def parse_range(s, k):
    """'A:B' (either side may be empty) -> (A, B) clipped to [0, k]."""
    try:
        a, b = s.split(":")
        lo, hi = int(a) if a else 0, int(b) if b else k
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad range {s!r}: want A:B, e.g. 0:100")
    if not 0 <= lo < hi:
        raise argparse.ArgumentTypeError(f"bad range {s!r}: want 0 <= A < B")
    return lo, min(hi, k)


# ---- providers ------------------------------------------------------------------------------------
def eager_fwd(x, w):
    return F.rms_norm(x, (x.shape[-1],), w, EPS)


def eager_add_fwd(x, r, w):
    s = x + r
    return F.rms_norm(s, (s.shape[-1],), w, EPS), s


class Provider:
    """name, family ('fusednorm', a peer name, ...), fwd(x, w) -> y and add(x, r, w) -> (y, s).
    declines_on_error: any exception of the first call (compilation included) declines the shape."""

    declines_on_error = False

    def __init__(self, name, family, fwd, add, peer):
        self.name, self.family, self.fwd, self.add, self.peer = name, family, fwd, add, peer


def load_fusednorm():
    try:
        import fusednorm  # noqa: F401  (importing loads the ops library)
    except Exception as e:  # a missing or broken package is reported, not fatal: peers still run
        return None, None, f"{type(e).__name__}: {e}"
    modes = getattr(fusednorm, "MODES", None) or getattr(fusednorm, "modes", None)
    if callable(modes):
        modes = modes()
    modes = [m for m in (modes or DEFAULT_MODES) if m != "auto"]
    return fusednorm, modes, None


def fusednorm_providers(fn_mod, modes):
    provs = []
    for mode in ["auto"] + list(modes):
        m = None if mode == "auto" else mode  # mode=None is AUTO

        def fwd(x, w, m=m):
            return fn_mod.rms_norm(x, w, EPS, mode=m)

        def add(x, r, w, m=m):
            return fn_mod.fused_add_rms_norm(x, r, w, EPS, mode=m)

        prov = Provider(f"fusednorm:{mode}", "fusednorm", fwd, add, False)
        prov.mode, prov.module = m, fn_mod
        provs.append(prov)
    return provs


def liger_provider():
    try:
        from liger_kernel.ops.fused_add_rms_norm import LigerFusedAddRMSNormFunction
        from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    except Exception as e:
        return None, f"{type(e).__name__}: {e}"

    # casting "gemma" = all math in fp32, one rounding: the contract's "fp32" casting, the numerics of
    # F.rms_norm and fusednorm's default. Plain backward in place (Liger's default: dX overwrites dY,
    # no extra memset); the fused-add backward's default is out of place with torch.empty (no kernel).
    def fwd(x, w):
        return LigerRMSNormFunction.apply(x, w, EPS, 0.0, "gemma", True)

    def add(x, r, w):
        return LigerFusedAddRMSNormFunction.apply(x, r, w, EPS, 0.0, "gemma", False)

    return Provider("liger", "liger", fwd, add, True), None


def quack_provider():
    """Quack (quack-kernels: Tri Dao's CuTe-DSL kernels), quack.rmsnorm.rmsnorm: fp32 math, one
    rounding, like the others. Fused add = rmsnorm(x, w, residual=r, prenorm=True) -> (y, x + r); its
    backward gives the one gradient to x and to the residual (dresidual is dx). Quack compiles a
    kernel per (dtype, N, ...) on the first call; a shape or dtype it cannot compile or run is a
    declined row with Quack's reason (declines_on_error), not a failure of the run."""
    try:
        from quack.rmsnorm import rmsnorm
    except Exception as e:
        return None, f"{type(e).__name__}: {str(e)[:200]}"

    def fwd(x, w):
        return rmsnorm(x, w, eps=EPS)

    def add(x, r, w):
        y, s = rmsnorm(x, w, residual=r, eps=EPS, prenorm=True)
        return y, s

    prov = Provider("quack", "quack", fwd, add, True)
    prov.declines_on_error = True
    return prov, None


class CompileProvider(Provider):
    """torch.compile of the eager functions; reset() per shape so guards stay short and each shape
    gets its own static-shape kernels (what a training job with fixed shapes sees)."""

    def __init__(self):
        import torch._dynamo
        cfg = torch._dynamo.config
        for knob in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
                     "accumulated_cache_size_limit"):
            if hasattr(cfg, knob):
                setattr(cfg, knob, 4096)
        super().__init__("compile", "compile", None, None, True)
        self.reset()

    def reset(self):
        torch._dynamo.reset()
        self.fwd = torch.compile(eager_fwd, dynamic=False)
        self.add = torch.compile(eager_add_fwd, dynamic=False)


# ---- inputs and float64 reference -----------------------------------------------------------------
def make_set(op, m, n, dtype, dev, seed):
    """One independent input set. Values: x, r, dy, ds ~ N(0,1); w ~ 1 + 0.1 N(0,1) (never zeros: zeros
    hide unwritten outputs and can time faster than real data)."""
    g = torch.Generator(device=dev)
    g.manual_seed(seed)

    def rnd(*shape):
        return torch.randn(*shape, generator=g, device=dev, dtype=torch.float32).to(dtype)

    d = {"x": rnd(m, n), "w": (1.0 + 0.1 * torch.randn(n, generator=g, device=dev)).to(dtype)}
    if op in ("add_fwd", "add_bwd"):
        d["r"] = rnd(m, n)
    if op in ("bwd", "add_bwd"):
        d["dy"] = rnd(m, n)
    if op == "add_bwd":
        d["ds"] = rnd(m, n)
    return d


def reference(op, d):
    """float64 evaluation of the contract's formula on the (rounded) inputs. Fused add: s is x + r
    rounded to the storage dtype (the contract)."""
    s = (d["x"] + d["r"]) if "r" in d else d["x"]
    s64, w64 = s.double(), d["w"].double()
    rstd = torch.rsqrt(s64.square().mean(-1, keepdim=True) + EPS)
    nrm = s64 * rstd
    if op in ("fwd", "add_fwd"):
        out = {"y": nrm * w64}
        if op == "add_fwd":
            out["s"] = s.double()
        return out
    dy = d["dy"].double()
    gw = dy * w64
    dx = rstd * (gw - nrm * (gw * nrm).mean(-1, keepdim=True))
    # The size of the terms dx is computed from: at N = 1, dx = rstd*dy*w*eps/(x^2 + eps) is nothing
    # but their cancellation, so an fp32 kernel's error is relative to them, not to dx (rel_l2 floor).
    dx_scale = torch.linalg.vector_norm(rstd * gw).item()
    if op == "add_bwd":
        dx = dx + d["ds"].double()
    return {"dx": dx, "dw": (dy * nrm).sum(0), "dx_scale": dx_scale}


# Relative-L2 sanity gates: far above correct rounding error (bf16 ~3e-3, fp16 ~4e-4, fp32 ~1e-7; dw
# sums M rows, so its fp32 error grows like sqrt(M)*2^-24 ~ 1e-4 at 1M rows), far below any real bug.
TOL = {torch.bfloat16: 2e-2, torch.float16: 5e-3, torch.float32: 1e-3}


@torch.no_grad()
def rel_l2(out, ref, floor=0.0):
    """||out - ref|| / max(||ref||, floor)."""
    out = out.detach().double()
    den = max(torch.linalg.vector_norm(ref).item(), floor)
    num = torch.linalg.vector_norm(out - ref).item()
    if not math.isfinite(num):
        return float("inf")
    return num / den if den > 0 else num


# ---- timing ---------------------------------------------------------------------------------------
class CudaTimer:
    """Per-iteration GPU time with the GPU parked on a spin while the CPU enqueues (module docstring)."""

    def __init__(self):
        self.cycles_per_ms = self._calibrate()

    @staticmethod
    def _calibrate():
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        cycles = 20_000_000
        torch.cuda._sleep(cycles)  # first launch loads the module
        a.record()
        torch.cuda._sleep(cycles)
        b.record()
        b.synchronize()
        return cycles / max(a.elapsed_time(b), 1e-3)

    def time(self, step, iters, enqueue_ms_per_iter, pre=None):
        """step(i) enqueues iteration i. Returns (per-iteration ms list, launch_bound flag).
        Without pre: one event between consecutive iterations. With pre (hot inputs): pre(i) is
        enqueued before step(i) but outside its window (an event after pre, one after step)."""
        spin_ms = min(2000.0, max(2.0, 2.0 * enqueue_ms_per_iter * iters + 1.0))
        for _ in range(3):
            torch.cuda.synchronize()
            nev = iters + 1 if pre is None else 2 * iters
            evs = [torch.cuda.Event(enable_timing=True) for _ in range(nev)]
            spin_done = torch.cuda.Event()
            torch.cuda._sleep(int(spin_ms * self.cycles_per_ms))
            spin_done.record()
            if pre is None:
                evs[0].record()
                for i in range(iters):
                    step(i)
                    evs[i + 1].record()
            else:
                for i in range(iters):
                    pre(i)
                    evs[2 * i].record()
                    step(i)
                    evs[2 * i + 1].record()
            starved = spin_done.query()  # spin over before everything was queued: gaps were timed
            torch.cuda.synchronize()
            if pre is None:
                times = [evs[i].elapsed_time(evs[i + 1]) for i in range(iters)]
            else:
                times = [evs[2 * i].elapsed_time(evs[2 * i + 1]) for i in range(iters)]
            if not starved:
                return times, False
            spin_ms *= 4
        return times, True


class CpuTimer:
    def time(self, step, iters, enqueue_ms_per_iter, pre=None):
        times = []
        for i in range(iters):
            if pre is not None:
                pre(i)
            t0 = time.perf_counter()
            step(i)
            times.append((time.perf_counter() - t0) * 1e3)
        return times, False


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize()


# ---- one measurement ------------------------------------------------------------------------------
class Unsupported(Exception):
    pass


def is_unsupported(e):
    """A provider declining a shape (not a failure): fusednorm's FUSEDNORM_ERR_MODE_UNSUPPORTED for a
    forced mode, Liger's block-size limit (N > 65536)."""
    msg = str(e).lower()
    return any(k in msg for k in ("forced mode cannot run", "mode_unsupported",
                                  "exceeds the recommended triton blocksize",
                                  "doesn't support feature dim"))


def run_provider_once(prov, op, d):
    """Forward (with autograd) of one set: returns what a timed step and the check need."""
    if op in ("fwd", "bwd"):
        y = prov.fwd(d["x"], d["w"])
        return (y,)
    y, s = prov.add(d["x"], d["r"], d["w"])
    return (y, s)


def make_step(prov, op, sets):
    """Returns (step(i), outputs-of-set-0 getter). Outputs are kept per slot until the slot's next turn
    so a freed block is not rewritten while still hot in L2."""
    nsets = len(sets)
    slots = [None] * nsets
    if op in ("fwd", "add_fwd"):
        def step(i):
            d = sets[i % nsets]
            slots[i % nsets] = run_provider_once(prov, op, d)
        return step, slots
    graphs = []
    for d in sets:  # saved forwards; the timed step runs only the backward
        outs = run_provider_once(prov, op, d)
        if op == "bwd":
            graphs.append((outs, (d["x"], d["w"]), (d["dy"],)))
        else:
            graphs.append((outs, (d["x"], d["r"], d["w"]), (d["dy"], d["ds"])))

    def step(i):
        outs, inputs, grads = graphs[i % nsets]
        slots[i % nsets] = torch.autograd.grad(outs, inputs, grads, retain_graph=True)
    return step, slots


def check_outputs(op, outs, ref, dtype):
    """Relative L2 of each output of set 0 against the float64 reference."""
    errs = {}
    if op == "fwd":
        errs["y"] = rel_l2(outs[0], ref["y"])
    elif op == "add_fwd":
        errs["y"] = rel_l2(outs[0], ref["y"])
        errs["s"] = rel_l2(outs[1], ref["s"])
    elif op == "bwd":
        errs["dx"] = rel_l2(outs[0], ref["dx"], ref["dx_scale"])
        errs["dw"] = rel_l2(outs[1], ref["dw"])
    else:
        errs["dx"] = rel_l2(outs[0], ref["dx"], ref["dx_scale"])
        errs["dr"] = rel_l2(outs[1], ref["dx"], ref["dx_scale"])
        errs["dw"] = rel_l2(outs[2], ref["dw"])
    ok = all(v <= TOL[dtype] for v in errs.values())
    return errs, ok


def c_reference(fn_mod):
    """fusednorm.reference (the C rules) and the ops it needs, or (None, why not): a stand-in or an
    older fusednorm package is judged by the relative-L2 gate instead, and the output says so."""
    try:
        import importlib
        mod = importlib.import_module(fn_mod.__name__ + ".reference")
        torch.ops.fusednorm.rms_norm_fwd  # noqa: B018 - the saved rstd comes from the forward op
        return mod, None
    except Exception as e:
        return None, f"{type(e).__name__}: {str(e)[:120]}"


def check_fusednorm(prov, op, d, outs, ref, dtype, check_elems):
    """fusednorm outputs of set 0 judged by the C rules (module docstring). Returns (errs, ok, gate):
    errs maps each output to its C verdict line ("dw_rel_l2" where dw fell back to the L2 gate)."""
    refmod, why = c_reference(prov.module)
    if refmod is None:
        errs, ok = check_outputs(op, outs, ref, dtype)
        return errs, ok, f"rel-L2 <= {TOL[dtype]} (no C reference: {why})"
    x, w = d["x"].detach(), d["w"].detach()
    m, n = x.shape
    k = m if check_elems <= 0 or m * n <= check_elems else max(1, check_elems // n)
    fops = torch.ops.fusednorm
    # The forward again on the same inputs for rstd (and s): bitwise what autograd saved (contract:
    # deterministic), and an input of the C backward reference.
    if "r" in d:
        r = d["r"].detach()
        _, s, rstd = fops.fused_add_rms_norm_fwd(x, r, w, EPS, 0.0, "fp32", prov.mode)
    else:
        r, s = None, x
        _, rstd = fops.rms_norm_fwd(x, w, EPS, 0.0, "fp32", prov.mode)
    errs, gate = {}, "C rules" + ("" if k == m else f" on the first {k} of {m} rows")
    if op in ("fwd", "add_fwd"):
        v = refmod.check_forward(x[:k], None if r is None else r[:k], w, outs[0][:k],
                                 None if r is None else outs[1][:k], rstd[:k], EPS)
    else:
        dy = d["dy"][:k]
        ds = d["ds"][:k] if "ds" in d else None
        whole = k == m
        v = refmod.check_backward(dy, s[:k], ds, w, rstd[:k], outs[0][:k], outs[-1] if whole else None, EPS)
        if op == "add_bwd" and not torch.equal(outs[0], outs[1]):
            errs["dr"] = "dr differs from dx (the contract: one gradient for x and residual)"
            v.checks.append(refmod.Check("dr", False, errs["dr"], {}))
        if not whole:
            errs["dw_rel_l2"] = rel_l2(outs[-1], ref["dw"])
            gate += f"; dw rel-L2 <= {TOL[dtype]} (M*N > --check-elems)"
            if errs["dw_rel_l2"] > TOL[dtype]:
                v.checks.append(refmod.Check("dw", False, f"dw: rel L2 {errs['dw_rel_l2']:.3g}", {}))
    for c in v.checks:
        errs.setdefault(c.name, ("" if c.ok else "FAIL ") + c.why)
    return errs, v.ok, gate


# Hot inputs: the tensors a training step's previous op has just written before this op runs (the
# forward's input and residual; the backward's incoming gradients; the backward's saved x is old).
# Written last = the one most likely still in L2 when the working set exceeds it.
HOT_INPUTS = {"fwd": ("x",), "add_fwd": ("r", "x"), "bwd": ("dy",), "add_bwd": ("ds", "dy")}


def hot_writer(op, d):
    """pre(i) for the timer: one elementwise kernel per input of HOT_INPUTS[op] that reads and
    rewrites it in place (a sign flip: the values stay random, never zeros), leaving its lines
    dirty in L2 just before the timed call."""
    ts = [d[k] for k in HOT_INPUTS[op]]

    def pre(i):
        with torch.no_grad():
            for t in ts:
                t.neg_()
    return pre


def loaded_libraries(prefix="libfusednorm"):
    """The shared objects mapped into this process whose file name starts with `prefix`, from
    /proc/self/maps: [{"path", "sha256"}] (the first 16 hex digits), so that a bench.json names the
    binaries it measured. The op library finds libfusednorm.so through LD_LIBRARY_PATH before its
    own runpath, so the library next to it is not necessarily the one that ran. [] without /proc."""
    paths = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                path = parts[5].strip() if len(parts) == 6 else ""
                if os.path.basename(path).startswith(prefix) and path not in paths:
                    paths.append(path)
    except OSError:
        return []
    out = []
    for path in paths:
        try:
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()[:16]
        except OSError:
            digest = None
        out.append({"path": path, "sha256": digest})
    return out


def decline_reason(e):
    """A one-line reason from an exception (a compiler's first non-empty line)."""
    first = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), "")
    return f"{type(e).__name__}: {first}"[:200]


def measure(prov, op, m, n, dtype, dev, cfg, ref, seed, timer):
    """cfg["inputs"]: "cold" (cfg["nsets"] rotating sets) or "hot" (one set, rewritten before each
    timed call by hot_writer). Returns (times, errs, ok, launch_bound, gate)."""
    hot = cfg.get("inputs", "cold") == "hot"
    sets = [make_set(op, m, n, dtype, dev, seed + k) for k in range(1 if hot else cfg["nsets"])]
    for d in sets:
        for k in ("x", "r", "w"):
            if k in d:
                d[k].requires_grad_(op in ("fwd", "bwd", "add_fwd", "add_bwd"))
    try:
        step, slots = make_step(prov, op, sets)
        step(0)  # compiles / JITs here, outside the timing
        sync(dev)
    except Exception as e:
        if is_unsupported(e):
            raise Unsupported(str(e).splitlines()[0][:160])
        if prov.declines_on_error and not isinstance(e, torch.cuda.OutOfMemoryError):
            raise Unsupported(decline_reason(e))
        raise
    if prov.family == "fusednorm":
        errs, ok, gate = check_fusednorm(prov, op, sets[0], slots[0], ref, dtype, cfg["check_elems"])
    else:
        (errs, ok), gate = check_outputs(op, slots[0], ref, dtype), f"rel-L2 <= {TOL[dtype]} (peer)"
    # The check judged step(0)'s outputs; only now may the hot writer change the inputs.
    pre = hot_writer(op, sets[0]) if hot else None
    # Warm up, and measure how long the CPU takes to enqueue one iteration (sizes the spin).
    t0 = time.perf_counter()
    for i in range(cfg["warmup"]):
        if pre is not None:
            pre(i)
        step(i)
    enq_ms = (time.perf_counter() - t0) * 1e3 / max(cfg["warmup"], 1)
    sync(dev)
    times, launch_bound = timer.time(step, cfg["iters"], enq_ms, pre=pre)
    del sets, slots, step, pre
    return times, errs, ok, launch_bound, gate


def measure_copy(m, n, dtype, dev, cfg, timer):
    """Device-to-device copy of an M x N tensor; hot: the source rewritten before each timed copy."""
    hot = cfg.get("inputs", "cold") == "hot"
    nsets = 1 if hot else cfg["nsets"]
    srcs = [torch.randn(m, n, device=dev, dtype=torch.float32).to(dtype) for _ in range(nsets)]
    dsts = [torch.empty_like(s) for s in srcs]

    def step(i):
        dsts[i % len(dsts)].copy_(srcs[i % len(srcs)])

    step(0)
    sync(dev)
    ok = torch.equal(dsts[0], srcs[0])
    pre = hot_writer("fwd", {"x": srcs[0]}) if hot else None
    for i in range(cfg["warmup"]):
        if pre is not None:
            pre(i)
        step(i)
    sync(dev)
    times, launch_bound = timer.time(step, cfg["iters"], 0.01, pre=pre)
    return times, ok, launch_bound


def n_sets(op, m, n, esize, l2_bytes, cap):
    """Enough independent sets that 4x L2 is touched between two uses of one set."""
    per_set = max(bytes_moved(op if op != "copy" else "copy", m, n, esize), 1)
    return int(max(1, min(cap, math.ceil(4 * l2_bytes / per_set))))


# ---- reporting ------------------------------------------------------------------------------------
def fmt_shape(m, n):
    return f"{m}x{n}"


def usable(r):
    """Measured and passed its accuracy check: only such rows compete for 'best'."""
    return r is not None and r["status"] == "ok" and r.get("check_ok", True)


def best_peer(rows_by_prov, peers):
    best = None
    for p in peers:
        r = rows_by_prov.get(p)
        if usable(r) and (best is None or r["median_us"] < best["median_us"]):
            best = r
    return best


def group_results(results):
    """{(dtype, M, N, op): {provider: row}}"""
    g = {}
    for r in results:
        g.setdefault((r["dtype"], r["M"], r["N"], r["op"]), {})[r["provider"]] = r
    return g


def summary_table(results, providers, copy_rows):
    """One row per (dtype, shape, op): GB/s per provider, copy GB/s, auto's %copy and vs best peer."""
    g = group_results(results)
    fn_modes = [p for p in providers if p.startswith("fusednorm:") and p != "fusednorm:auto"]
    cols = ["fusednorm:auto"] if "fusednorm:auto" in providers else []
    cols += [p for p in PEERS if p in providers]
    hdr = ["dtype", "shape (MxN)", "op", "MB"] + [c.replace("fusednorm:", "fn:") for c in cols]
    hdr += ["copy", "auto %copy", "auto/best peer", "latency auto/best", "best mode (GB/s)", "auto pick ok"]
    units = ["", "", "", "moved"] + ["GB/s"] * len(cols) + ["GB/s", "", "speedup", "us, < 1 MB", "", "<=3%"]
    lines = []
    for key in sorted(g, key=lambda k: (list(DTYPES).index(k[0]), k[2], k[1], OPS.index(k[3]))):
        dt, m, n, op = key
        rows = g[key]
        any_row = next(iter(rows.values()))
        mb = any_row["bytes"] / 1e6
        cells = [dt, fmt_shape(m, n), op, f"{mb:.0f}" if mb >= 10 else f"{mb:.2g}"]
        for c in cols:
            r = rows.get(c)
            cells.append(cell(r))
        cp = copy_rows.get((dt, m, n))
        cells.append(f"{cp['gbps']:.0f}" if cp and cp["status"] == "ok" else "-")
        auto = rows.get("fusednorm:auto")
        auto_ok = usable(auto)
        cells.append(f"{100 * auto['frac_copy']:.0f}%" if auto_ok and auto.get("frac_copy") else "-")
        bp = best_peer(rows, PEERS)
        cells.append(f"{bp['median_us'] / auto['median_us']:.2f}x" if auto_ok and bp else "-")
        cells.append(latency_cell(any_row["bytes"], auto if auto_ok else None, bp))
        forced = [rows[p] for p in fn_modes if usable(rows.get(p))]
        if forced:
            bm = min(forced, key=lambda r: r["median_us"])
            cells.append(f"{bm['provider'].split(':')[1]} ({fmt_gbps(bm['gbps'])})")
            cells.append(("yes" if auto["median_us"] <= 1.03 * bm["median_us"] else "NO") if auto_ok else "-")
        else:
            cells += ["-", "-"]
        lines.append(cells)
    return hdr, units, lines


def fmt_gbps(g):
    return f"{g:.0f}" if g >= 10 else f"{g:.2g}"


def fmt_us(us):
    return f"{us:.1f}" if us < 100 else f"{us:.0f}"


def latency_cell(nbytes, auto, bp):
    """Median microseconds per call of AUTO / the best peer, for problems under LATENCY_BYTES."""
    if nbytes >= LATENCY_BYTES:
        return ""
    a = fmt_us(auto["median_us"]) if auto else "-"
    b = f"{fmt_us(bp['median_us'])} {bp['provider']}" if bp else "-"
    return f"{a} / {b}"


def cell(r):
    if r is None:
        return "-"
    if r["status"] == "ok":
        flag = ("!" if not r["check_ok"] else "") + ("~" if r.get("launch_bound") else "")
        return f"{fmt_gbps(r['gbps'])}{flag}"
    if r["status"] == "unsupported":
        return "n/a"
    return "ERR"


def render_text(hdr, units, lines):
    table = [hdr, units] + lines
    widths = [max(len(str(row[i])) for row in table) for i in range(len(hdr))]
    out = []
    for k, row in enumerate(table):
        out.append("  ".join(str(c).rjust(w) for c, w in zip(row, widths)))
        if k == 1:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def render_md(hdr, units, lines):
    out = ["| " + " | ".join(f"{h}" + (f" ({u})" if u else "") for h, u in zip(hdr, units)) + " |",
           "|" + "---|" * len(hdr)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in lines]
    return "\n".join(out)


def target_report(results, meta):
    """Achieved vs the issue's targets (bf16). Returns markdown lines; absolute targets scaled for H100."""
    scale = 3.35 / 4.8 if "H100" in meta.get("device", "") else 1.0
    g = group_results(results)
    out = []

    def auto(dt, m, n, op):
        r = g.get((dt, m, n, op), {}).get("fusednorm:auto")
        return r if usable(r) else None

    def row(name, target, achieved, ok, note=""):
        out.append(f"| {name} | {target} | {achieved} | {'met' if ok else 'MISSED'} | {note} |")

    out.append(f"| target (bf16{', H100-scaled x%.3f' % scale if scale != 1 else ''}) | wanted | achieved "
               "| status | where it falls short |")
    out.append("|---|---|---|---|---|")
    keys = {k for k in g if k[0] == "bf16"}
    if not keys or not any(auto(*k) for k in keys):
        out.append("| all | - | no fusednorm bf16 results in this run | - | |")
        return out
    for op in OPS:
        large = [(k[1], k[2]) for k in keys if k[3] == op and 1024 <= k[2] <= 262144
                 and g[k][next(iter(g[k]))]["bytes"] >= 256 << 20]
        vals = [(auto("bf16", m, n, op), (m, n)) for m, n in sorted(large, key=lambda s: s[1])]
        vals = [(r["gbps"], s) for r, s in vals if r]
        if vals:
            tgt = TARGET_LARGE[op] * scale
            worst = min(vals)
            miss = [f"{fmt_shape(*s)} {v:.0f} ({100 * (v / tgt - 1):+.0f}%)" for v, s in vals if v < tgt]
            row(f"large (>=256 MB, N 1024..262144) {op}", f">= {tgt:.0f} GB/s",
                f"min {worst[0]:.0f} ({fmt_shape(*worst[1])}), median {statistics.median(v for v, _ in vals):.0f}",
                not miss, "; ".join(miss))
    for op in OPS:
        for m, n in WIDE_SHAPES:
            r = auto("bf16", m, n, op)
            if r:
                tgt = TARGET_WIDE[op] * scale
                row(f"wide {fmt_shape(m, n)} {op}", f">= {tgt:.0f} GB/s", f"{r['gbps']:.0f}",
                    r["gbps"] >= tgt, "" if r["gbps"] >= tgt else f"{100 * (r['gbps'] / tgt - 1):+.0f}%")
    for m, n in NARROW_SHAPES:
        for op, need in (("fwd", 1.0), ("bwd", 1.5), ("add_fwd", 1.0), ("add_bwd", 1.5)):
            r = auto("bf16", m, n, op)
            c = g.get(("bf16", m, n, op), {}).get("compile")
            if r and usable(c):
                sp = c["median_us"] / r["median_us"]
                row(f"narrow {fmt_shape(m, n)} {op} vs torch.compile", f">= {need:.2f}x", f"{sp:.2f}x",
                    sp >= need)
    slower = []
    for k in sorted(keys, key=lambda k: (k[2], k[1], OPS.index(k[3]))):
        r, bp = auto(*k), best_peer(g[k], PEERS)
        if r and bp and r["median_us"] > bp["median_us"]:
            slower.append(f"{fmt_shape(k[1], k[2])} {k[3]} ({bp['median_us'] / r['median_us']:.2f}x vs {bp['provider']})")
    n_cases = sum(1 for k in keys if auto(*k) and best_peer(g[k], PEERS))
    row("never slower than the best peer", "0 cases", f"{len(slower)} of {n_cases} slower", not slower,
        "; ".join(slower))
    for op in ("bwd", "add_bwd"):
        sp = [best_peer(g[k], PEERS)["median_us"] / auto(*k)["median_us"] for k in keys
              if k[3] == op and auto(*k) and best_peer(g[k], PEERS)]
        if sp:
            gm = math.exp(sum(math.log(s) for s in sp) / len(sp))
            row(f"{op} geomean vs best peer ({len(sp)} shapes)", ">= 1.25x", f"{gm:.2f}x", gm >= 1.25)
    misses, total = [], 0
    for k in keys:
        r = auto(*k)
        forced = [v for p, v in g[k].items() if p.startswith("fusednorm:") and p != "fusednorm:auto"
                  and usable(v)]
        if r and forced:
            total += 1
            bm = min(forced, key=lambda v: v["median_us"])
            if r["median_us"] > 1.03 * bm["median_us"]:
                misses.append(f"{fmt_shape(k[1], k[2])} {k[3]}: {bm['provider'].split(':')[1]} "
                              f"{100 * (r['median_us'] / bm['median_us'] - 1):.0f}% faster")
    if total:
        row("AUTO within 3% of the fastest mode", "all cases", f"{total - len(misses)} of {total}",
            not misses, "; ".join(misses))
    return out


FWD_OPS, BWD_OPS = ("fwd", "add_fwd"), ("bwd", "add_bwd")
PEER_FLOOR, FWD_GEOMEAN, BWD_GEOMEAN = 0.97, 1.02, 1.30


def geomean(xs):
    xs = list(xs)
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def peer_ratios(results):
    """[(key, ratio, auto row, best peer row)] for every (dtype, M, N, op) where AUTO and a peer
    passed; ratio = best peer time / AUTO time (> 1: AUTO faster). Rows of one input mode."""
    out = []
    for key, rows in group_results(results).items():
        auto, bp = rows.get("fusednorm:auto"), best_peer(rows, PEERS)
        if usable(auto) and bp:
            out.append((key, bp["median_us"] / auto["median_us"], auto, bp))
    return out


def peer_targets(results):
    """Markdown lines: AUTO against the best peer over every dtype and op of these rows (one input
    mode): no case below PEER_FLOOR, forward and backward geomeans."""
    rs = peer_ratios(results)
    out = ["| target (every dtype) | wanted | achieved | status | worst cases |", "|---|---|---|---|---|"]
    if not rs:
        return out + ["| all | - | no case with both AUTO and a peer measured | - | |"]
    low = sorted((r for r in rs if r[1] < PEER_FLOOR), key=lambda r: r[1])
    worst = "; ".join(f"{k[0]} {fmt_shape(k[1], k[2])} {k[3]} {x:.2f}x vs {bp['provider']}"
                      for k, x, _, bp in low[:8]) + (f"; ... {len(low) - 8} more" if len(low) > 8 else "")
    out.append(f"| no case below {PEER_FLOOR:.2f}x the best peer | 0 cases | {len(low)} of {len(rs)} below "
               f"| {'met' if not low else 'MISSED'} | {worst} |")
    for name, ops, want in (("forward", FWD_OPS, FWD_GEOMEAN), ("backward", BWD_OPS, BWD_GEOMEAN)):
        xs = [x for k, x, _, _ in rs if k[3] in ops]
        if xs:
            gm = geomean(xs)
            behind = sum(1 for x in xs if x < 1.0)
            out.append(f"| {name} geomean vs best peer ({'+'.join(ops)}, {len(xs)} cases) | >= {want:.2f}x "
                       f"| {gm:.2f}x ({behind} behind) | {'met' if gm >= want else 'MISSED'} | |")
    return out


UNALIGNED_WITHIN = 1.10


def aligned_neighbour(n, esize):
    """The width nearest n whose rows are whole 16-byte vectors (ties go up; never 0)."""
    v = max(1, 16 // esize)
    lo = n // v * v
    return lo if lo > 0 and n - lo < lo + v - n else lo + v


def unaligned_targets(results):
    """Markdown rows (peer_targets' columns) for the rows of one input mode: AUTO on every width
    whose rows are not whole 16-byte vectors against AUTO on the nearest aligned width measured in
    the same run (same dtype, rows and op), time per element, odd / aligned; none without a pair."""
    g = group_results(results)
    pairs = []
    for (dt, m, n, op), rows in g.items():
        es = DTYPES[dt].itemsize
        if n * es % 16 == 0:
            continue
        na = aligned_neighbour(n, es)
        odd, al = rows.get("fusednorm:auto"), g.get((dt, m, na, op), {}).get("fusednorm:auto")
        if usable(odd) and usable(al):
            pairs.append(((odd["median_us"] / n) / (al["median_us"] / na), dt, m, n, na, op))
    if not pairs:
        return []
    far = sorted((p for p in pairs if p[0] > UNALIGNED_WITHIN), reverse=True)
    worst = "; ".join(f"{dt} {fmt_shape(m, n)} {op} {x:.2f}x {fmt_shape(m, na)}" for x, dt, m, n, na, op in far[:8])
    worst += f"; ... {len(far) - 8} more" if len(far) > 8 else ""
    return [f"| unaligned rows within {round(100 * (UNALIGNED_WITHIN - 1))}% of the nearest aligned width "
            f"(AUTO's time per element, odd / aligned) | every pair | {len(pairs) - len(far)} of {len(pairs)} "
            f"within, worst {max(pairs)[0]:.2f}x | {'met' if not far else 'MISSED'} | {worst} |"]


def sweep_table(results, cases):
    """One line per sweep case of one input mode, sorted by AUTO / best peer descending: the worst
    last. Cases without a ratio (AUTO or every peer declined, failed or missing) come first; their
    cells say why (n/a, ERR, !)."""
    g = group_results(results)
    ranked, unranked = [], []
    for c in cases:
        key = (c["dtype"], c["M"], c["N"], c["op"])
        rows = g.get(key)
        if not rows:
            continue
        any_row = next(iter(rows.values()))
        auto, bp = rows.get("fusednorm:auto"), best_peer(rows, PEERS)
        mb = any_row["bytes"] / 1e6
        cells = [str(c["index"]), c["dtype"], c["op"], fmt_shape(c["M"], c["N"]),
                 f"{mb:.3g}" if mb < 10 else f"{mb:.0f}"]
        a_ok = usable(auto)
        cells += [fmt_us(auto["median_us"]) if a_ok else cell(auto), fmt_gbps(auto["gbps"]) if a_ok else "-"]
        cells += [bp["provider"] if bp else "-", fmt_us(bp["median_us"]) if bp else "-"]
        cells.append(cell(rows.get("quack")))
        if a_ok and bp:
            x = bp["median_us"] / auto["median_us"]
            ranked.append((x, cells + [f"{x:.2f}x"]))
        else:
            unranked.append(cells + ["-"])
    hdr = ["case", "dtype", "op", "MxN", "MB", "auto", "auto", "best peer", "best peer", "quack", "auto/best"]
    units = ["", "", "", "", "moved", "us", "GB/s", "", "us", "GB/s", "speedup"]
    lines = unranked + [c for _, c in sorted(ranked, key=lambda t: -t[0])]
    return hdr, units, lines


def inputs_of(r):
    """A row's input mode (rows written before hot mode existed are cold)."""
    return r.get("inputs", "cold")


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except Exception as e:
        log(f"[bench] no plot: {e}")
        return None


def plot(results, copy_rows, providers, out_dir, meta):
    """One PNG (the device tool returns few files): a row per (input mode, dtype), a column per op;
    GB/s per shape, shapes sorted by N (categorical axis: the suite has several M for some N).
    copy_rows: {(inputs, dtype, M, N): row}."""
    plt = _pyplot()
    if plt is None:
        return []
    panels = [(mode, dt) for mode in INPUT_MODES for dt in DTYPES
              if any(r["dtype"] == dt and inputs_of(r) == mode for r in results)]
    if not panels:
        return []
    colors = plt.get_cmap("tab10").colors
    height = 4.8 * len(panels) + 0.9  # + room for the title and the legend above the panels
    fig, axes = plt.subplots(len(panels), len(OPS), figsize=(6 * len(OPS), height), squeeze=False)
    for row_axes, (mode, dt) in zip(axes, panels):
        rows = [r for r in results if r["dtype"] == dt and inputs_of(r) == mode]
        shapes = sorted({(r["M"], r["N"]) for r in rows}, key=lambda s: (s[1], s[0]))
        xs = range(len(shapes))
        for ax, op in zip(row_axes, OPS):
            for p in providers:
                ys = []
                for s in shapes:
                    r = next((r for r in rows if (r["M"], r["N"]) == s and r["op"] == op
                              and r["provider"] == p and usable(r)), None)
                    ys.append(r["gbps"] if r else float("nan"))
                if all(math.isnan(y) for y in ys):
                    continue
                forced = p.startswith("fusednorm:") and p != "fusednorm:auto"
                style = dict(lw=0.8, ls=":", marker=".", alpha=0.8) if forced else dict(lw=2, marker="o")
                ax.plot(xs, ys, label=p, color=colors[providers.index(p) % len(colors)], **style)
            cys = [copy_rows.get((mode, dt, m, n), {}).get("gbps", float("nan")) for m, n in shapes]
            ax.plot(xs, cys, "k--", lw=1.2, label="copy (D2D)")
            ax.set_title(f"{dt} {op}, {mode} inputs")
            ax.set_ylabel("GB/s")
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
            ax.set_xticks(list(xs))
            ax.set_xticklabels([f"{m}x{n}" for m, n in shapes], rotation=60, ha="right", fontsize=7)
    handles = {}
    for ax in axes.flat:  # one legend for all panels: a provider may be absent from some
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles.keys()), loc="upper right", fontsize=8, ncol=4)
    fig.suptitle(f"fusednorm RMSNorm vs peers, {meta['device']}, {meta['date']}\n"
                 "GB/s = contract bytes / median kernel time; shapes MxN sorted by N")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.9 / height))
    path = os.path.join(out_dir, "bench.png")
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return [path]


def plot_sweep(results, out_dir, meta):
    """Sweep PNG: a panel per input mode; AUTO / best peer (log) against bytes moved (log), a
    color per dtype, a marker per op; the 0.97 floor and parity drawn."""
    plt = _pyplot()
    if plt is None:
        return []
    modes = [m for m in INPUT_MODES if any(inputs_of(r) == m for r in results)]
    if not modes:
        return []
    fig, axes = plt.subplots(1, len(modes), figsize=(8 * len(modes), 6), squeeze=False)
    colors = dict(zip(DTYPES, plt.get_cmap("tab10").colors))
    markers = dict(zip(OPS, "o^sv"))
    for ax, mode in zip(axes[0], modes):
        for (dt, m, n, op), x, auto, _ in peer_ratios([r for r in results if inputs_of(r) == mode]):
            ax.scatter(auto["bytes"], x, color=colors[dt], marker=markers[op], s=22, alpha=0.8)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.axhline(PEER_FLOOR, color="r", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("bytes moved (byte formula)")
        ax.set_ylabel("AUTO speed / best peer speed")
        ax.set_title(f"{mode} inputs")
        ax.grid(alpha=0.3, which="both")
    for dt, c in colors.items():
        axes[0][0].scatter([], [], color=c, label=dt)
    for op, mk in markers.items():
        axes[0][0].scatter([], [], color="gray", marker=mk, label=op)
    axes[0][0].legend(fontsize=8)
    fig.suptitle(f"fusednorm AUTO vs the best peer, sweep seed {meta['seed']}, {meta['device']}, {meta['date']}")
    fig.tight_layout()
    path = os.path.join(out_dir, "bench.png")
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return [path]


# ---- main -----------------------------------------------------------------------------------------
def parse_shapes(s):
    out = []
    for tok in s.split(","):
        if tok in SHAPE_PRESETS:  # a named list (SHAPE_PRESETS)
            out.extend(SHAPE_PRESETS[tok])
            continue
        try:
            m, n = tok.lower().split("x")
            m, n = int(m), int(n)
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad shape {tok!r}: want MxN, e.g. 4096x4096")
        if m < 1 or n < 1:
            raise argparse.ArgumentTypeError(f"bad shape {tok!r}: M and N must be >= 1")
        out.append((m, n))
    return out


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="bf16, 6 shapes; < 3 min on an H200")
    mode.add_argument("--dry-run", action="store_true", help="CPU, tiny shapes: checks the harness")
    mode.add_argument("--merge", help="comma list of bench.json files (a sweep split by --sweep-range): "
                                      "merged into --out with every report; measures nothing")
    ap.add_argument("--sweep", type=int, metavar="K",
                    help="K random cases (seeded: --seed) instead of the suite; with --dry-run on the CPU")
    ap.add_argument("--sweep-range", metavar="A:B",
                    help="measure only sweep cases A..B-1 (split a sweep over calls; merge with --merge)")
    ap.add_argument("--sweep-max-elems", type=int,
                    help="cap on M*N of sweep cases (default: free device memory / "
                         f"{SWEEP_BYTES_PER_ELEM} B, a power of two; dry run {DRY_SWEEP_MAX_ELEMS})")
    ap.add_argument("--inputs", choices=("cold", "hot", "both"), default="both",
                    help="cold: rotating sets from HBM; hot: inputs rewritten just before each call "
                         "(in L2 as a training step leaves them); both (default)")
    ap.add_argument("--dtypes", help="comma list of bf16,fp16,fp32")
    ap.add_argument("--shapes", type=parse_shapes,
                    help="comma list of MxN or preset names (%s) (overrides the suite)" % ", ".join(SHAPE_PRESETS))
    ap.add_argument("--ops", help=f"comma list of {','.join(OPS)}")
    ap.add_argument("--providers",
                    help="comma list: fusednorm (all modes), fusednorm:MODE, torch, compile, liger, quack")
    ap.add_argument("--iters", type=int, help="timed iterations per measurement (median reported)")
    ap.add_argument("--warmup", type=int, help="untimed iterations after the first call")
    ap.add_argument("--seed", type=int, help="input (and sweep) seed (printed; random if not given)")
    ap.add_argument("--time-budget", type=float,
                    help="seconds; cases not started by then are skipped (quick 165, full 470, sweep 480, "
                         "dry 300)")
    ap.add_argument("--check-elems", type=int,
                    help="fusednorm outputs: rows judged by the C rules, in elements (0: all; the serial "
                         "C reference costs ~0.1 us per element, per provider and input mode; default 4M, "
                         "sweep 1M)")
    ap.add_argument("--out", default=os.environ.get("BENCH_OUT", "bench_out"), help="output folder")
    ap.add_argument("--with-compile", action="store_true", help="dry run: also torch.compile (slow on CPU)")
    a = ap.parse_args(argv)
    if a.dtypes:
        bad = [d for d in a.dtypes.split(",") if d not in DTYPES]
        if bad:
            ap.error(f"unknown dtype(s) {bad}; choose from {list(DTYPES)}")
    if a.ops:
        bad = [o for o in a.ops.split(",") if o not in OPS]
        if bad:
            ap.error(f"unknown op(s) {bad}; choose from {list(OPS)}")
    if a.iters is not None and not 1 <= a.iters <= 500:
        ap.error("--iters must be in 1..500 (the spin must cover the enqueue of all iterations)")
    if a.sweep is not None:
        if a.sweep < 1:
            ap.error("--sweep K needs K >= 1")
        if a.quick or a.shapes:
            ap.error("--sweep draws its own shapes: not with --quick or --shapes")
        if a.sweep_max_elems is not None and a.sweep_max_elems < 1:
            ap.error("--sweep-max-elems must be >= 1")
        a.sweep_lo, a.sweep_hi = 0, a.sweep
        if a.sweep_range:
            try:
                a.sweep_lo, a.sweep_hi = parse_range(a.sweep_range, a.sweep)
            except argparse.ArgumentTypeError as e:
                ap.error(str(e))
            if a.sweep_lo >= a.sweep:
                ap.error(f"--sweep-range {a.sweep_range} starts past the last case ({a.sweep - 1})")
    elif a.sweep_range or a.sweep_max_elems is not None:
        ap.error("--sweep-range and --sweep-max-elems need --sweep K")
    if a.merge and (a.sweep is not None or a.shapes):
        ap.error("--merge measures nothing: not with --sweep or --shapes")
    return a


def plan(a, sweep=None):
    """Cases in priority order: [{"index", "dtype", "M", "N", "ops"}]. sweep: the drawn sweep cases
    to measure (one op each)."""
    if sweep is not None:
        return [{"index": c["index"], "dtype": c["dtype"], "M": c["M"], "N": c["N"], "ops": [c["op"]]}
                for c in sweep]
    if a.dry_run:
        dts, full, extra = (a.dtypes or "bf16,fp16,fp32").split(","), DRY_SHAPES, DRY_SHAPES
    elif a.quick:
        dts, full, extra = (a.dtypes or "bf16").split(","), QUICK_SHAPES, QUICK_SHAPES
    else:
        dts, full, extra = (a.dtypes or "bf16,fp16,fp32").split(","), FULL_SHAPES, CORE_SHAPES
    ops = a.ops.split(",") if a.ops else list(OPS)
    # bf16 first (the targets are bf16), then the other dtypes interleaved shape by shape, so a run cut
    # short by its time budget still covers every dtype on the first shapes.
    first = [(dt, s) for dt in dts if dt == "bf16" for s in (a.shapes or full)]
    rest = [(dt, s) for s in (a.shapes or extra) for dt in dts if dt != "bf16"]
    return [{"index": i, "dtype": dt, "M": m, "N": n, "ops": ops} for i, (dt, (m, n)) in enumerate(first + rest)]


def build_providers(a, dev):
    """The providers this run measures (filtered by --providers) and notes on the missing ones."""
    want = set(a.providers.split(",")) if a.providers else None
    providers, notes, compile_prov = [], {}, None
    fn_mod, modes, err = load_fusednorm()
    if fn_mod is None:
        notes["fusednorm"] = f"not importable: {err}"
        log(f"[bench] fusednorm not importable ({err}); measuring peers only")
    else:
        providers += [p for p in fusednorm_providers(fn_mod, modes)
                      if want is None or "fusednorm" in want or p.name in want]
    if want is None or "torch" in want:
        providers.append(Provider("torch", "torch", eager_fwd, eager_add_fwd, True))
    if want is None or "compile" in want:
        if a.dry_run and not a.with_compile:
            notes["compile"] = "skipped in dry run (CPU inductor compiles C++; pass --with-compile)"
        else:
            compile_prov = CompileProvider()
            providers.append(compile_prov)
    for name, load, needs in (("liger", liger_provider, "needs CUDA (Triton)"),
                              ("quack", quack_provider, "needs CUDA (CuTe DSL)")):
        if want is not None and name not in want:
            continue
        if dev.type != "cuda":
            notes[name] = needs
            continue
        prov, err = load()
        if prov:
            providers.append(prov)
        else:
            notes[name] = f"not importable: {err}"
            log(f"[bench] {name} not importable ({err})")
    return providers, compile_prov, notes, modes


def device_facts(dev):
    """(description, L2 bytes, timer, free bytes)."""
    if dev.type == "cuda":
        props = torch.cuda.get_device_properties(0)
        l2 = getattr(props, "L2_cache_size", 50 << 20)
        desc = (f"{props.name} ({props.multi_processor_count} SMs, L2 {l2 >> 20} MiB, "
                f"{props.total_memory >> 30} GiB)")
        return desc, l2, CudaTimer(), torch.cuda.mem_get_info()[0]
    return (f"CPU {platform.processor() or platform.machine()} (dry run: timings meaningless)",
            32 << 20, CpuTimer(), None)


def copy_case(dt, m, n, dev, cfg, timer):
    dtype = DTYPES[dt]
    esize = torch.tensor([], dtype=dtype).element_size()
    row = {"dtype": dt, "M": m, "N": n, "inputs": cfg["inputs"], "bytes": bytes_moved("copy", m, n, esize),
           "nsets": 1 if cfg["inputs"] == "hot" else cfg["nsets"]}
    try:
        times, ok, lb = measure_copy(m, n, dtype, dev, cfg, timer)
        med = statistics.median(times)
        row.update(status="ok" if ok else "bad", median_us=med * 1e3,
                   gbps=row["bytes"] / (med * 1e-3) / 1e9, launch_bound=lb)
    except Exception as e:
        row.update(status="error", error=f"{type(e).__name__}: {str(e)[:300]}")
    return row


def provider_case(prov, op, dt, m, n, dev, cfg, ref, seed, timer, copy_gbps):
    """One measured row; never raises (a provider's failure is a row with status 'error')."""
    dtype = DTYPES[dt]
    esize = torch.tensor([], dtype=dtype).element_size()
    row = {"dtype": dt, "M": m, "N": n, "op": op, "provider": prov.name, "inputs": cfg["inputs"],
           "case": cfg.get("case"), "bytes": bytes_moved(op, m, n, esize),
           "nsets": 1 if cfg["inputs"] == "hot" else cfg["nsets"]}
    try:
        times, errs, ok, lb, gate = measure(prov, op, m, n, dtype, dev, cfg, ref, seed, timer)
        med = statistics.median(times)
        row.update(status="ok", median_us=med * 1e3, min_us=min(times) * 1e3, max_us=max(times) * 1e3,
                   gbps=row["bytes"] / (med * 1e-3) / 1e9, check=errs, check_ok=ok, gate=gate, launch_bound=lb,
                   frac_copy=None)
        if copy_gbps:
            row["frac_copy"] = row["gbps"] / copy_gbps
        if not ok:
            log(f"[bench] BAD {dt} {fmt_shape(m, n)} {op} {prov.name} {cfg['inputs']} ({gate}): {errs}")
    except Unsupported as e:
        row.update(status="unsupported", reason=str(e))
    except Exception as e:
        row.update(status="error", error=f"{type(e).__name__}: {str(e)[:300]}")
        log(f"[bench] ERROR {dt} {fmt_shape(m, n)} {op} {prov.name} {cfg['inputs']}: {row['error']}")
        if os.environ.get("BENCH_TRACEBACK"):
            traceback.print_exc()
        if dev.type == "cuda":
            torch.cuda.empty_cache()  # after an out-of-memory, let the next provider start clean
    return row


def is_failure(r):
    return r["status"] in ("error", "bad") or (r["status"] == "ok" and not r.get("check_ok", True))


def declined_lines(results):
    """'provider: reason -- cases' for every declined row (both input modes counted once)."""
    by = {}
    for r in results:
        if r["status"] == "unsupported":
            by.setdefault((r["provider"], r.get("reason", "")), set()).add(
                (r["dtype"], r["M"], r["N"], r["op"]))
    out = []
    for (prov, why), cases in sorted(by.items()):
        cs = sorted(cases, key=lambda c: (c[2], c[1], c[0], OPS.index(c[3])))
        names = ", ".join(f"{dt} {fmt_shape(m, n)} {op}" for dt, m, n, op in cs[:6])
        more = f" and {len(cs) - 6} more" if len(cs) > 6 else ""
        out.append(f"{prov} declined {len(cs)} case(s) ({names}{more}): {why}")
    return out


def skipped_hint(meta):
    """The --sweep-range that measures a sweep's cases skipped for time (they are contiguous)."""
    idx = meta.get("skipped_cases") or []
    if "sweep" not in meta or not idx:
        return ""
    return (f"resume with --sweep {meta['sweep']['k']} --seed {meta['seed']} --sweep-max-elems "
            f"{meta['sweep']['max_elems']} --sweep-range {min(idx)}:{max(idx) + 1}")


def report(results, copy_list, meta, prov_names, out_dir):
    """Writes bench.md and bench.png (bench.json is the caller's) and prints the summary, the table
    last. Returns the number of failures."""
    modes = [m for m in INPUT_MODES if any(inputs_of(r) == m for r in results + copy_list)]
    sweep = meta.get("sweep")
    failures = sum(1 for r in results + copy_list if is_failure(r))
    declined = declined_lines(results)
    sections, console = [], []
    for mode in modes:
        rows = [r for r in results if inputs_of(r) == mode]
        copies = {(c["dtype"], c["M"], c["N"]): c for c in copy_list if inputs_of(c) == mode}
        peer = peer_targets(rows) + unaligned_targets(rows)
        if sweep:
            hdr, units, lines = sweep_table(rows, sweep["cases"])
            sections.append(f"## {mode} inputs: every sweep case, AUTO vs the best peer (worst last)\n\n"
                            + render_md(hdr, units, lines) + "\n\n### Targets\n\n" + "\n".join(peer) + "\n")
            shdr, sunits, slines = summary_table(rows, prov_names, copies)
            sections.append(f"## {mode} inputs: every provider (GB/s)\n\n" + render_md(shdr, sunits, slines) + "\n")
            console.append((mode, peer, hdr, units, lines[-20:], len(lines)))
        else:
            hdr, units, lines = summary_table(rows, prov_names, copies)
            targets = target_report(rows, meta) + [""] + peer
            sections.append(f"## {mode} inputs\n\n" + render_md(hdr, units, lines) + "\n\n### Targets\n\n"
                            + "\n".join(targets) + "\n")
            console.append((mode, targets, hdr, units, lines, len(lines)))
    pngs = plot_sweep(results, out_dir, meta) if sweep else plot(
        results, {(inputs_of(c), c["dtype"], c["M"], c["N"]): c for c in copy_list}, prov_names, out_dir, meta)
    with open(os.path.join(out_dir, "bench.md"), "w") as f:
        f.write(f"Device: {meta['device']}  \nDate: {meta['date']}  \nPeak D2D copy in this run (cold): "
                f"{meta['copy_peak_gbps']} GB/s  \nRun: {meta['mode']}, seed {meta['seed']}, inputs "
                f"{', '.join(modes)}, {meta['iters']} timed iterations (median), versions {meta['versions']}  \n")
        if meta.get("libraries"):
            f.write("Libraries: " + "; ".join(f"`{x['path']}` (sha256 {x['sha256']})" for x in meta["libraries"]) +
                    "  \n")
        if sweep:
            f.write(f"Sweep: {sweep['k']} cases drawn from seed {meta['seed']} ({sweep['distribution']}; "
                    f"M*N <= {sweep['max_elems']}); measured here: {sweep_ranges_text(sweep)}  \n")
        f.write("Inputs: " + "; ".join(f"{k}: {v}" for k, v in INPUTS_TEXT.items()) + "  \n")
        f.write("GB/s = bytes / median kernel time; bytes: " +
                "; ".join(f"{k} `{v}`" for k, v in BYTE_FORMULAS.items()) + "  \n")
        f.write("Cells: GB/s; `n/a` = provider declined the shape (reasons below); `!` = failed the accuracy "
                "check; `~` = launch-bound (time includes CPU gaps); latency = median us per call of AUTO / "
                f"the best peer, for problems under {LATENCY_BYTES / 1e6:g} MB.  \n")
        f.write("Accuracy gates: " + "; ".join(f"{k}: {v}" for k, v in meta["gates"].items()) + "\n\n")
        f.write("\n".join(sections))
        if declined:
            f.write("\n## Declined\n\n" + "\n".join(f"- {d}" for d in declined) + "\n")
        if meta["notes"]:
            f.write("\nNotes: " + "; ".join(f"{k}: {v}" for k, v in meta["notes"].items()) + "\n")
        if meta.get("skipped_oom"):
            f.write(f"\nNot measured (out of device memory): {'; '.join(meta['skipped_oom'])}\n")
        if meta.get("skipped_for_time"):
            f.write(f"\nNot measured (time budget): {', '.join(meta['skipped_for_time'])}"
                    + (f" ({skipped_hint(meta)})" if skipped_hint(meta) else "") + "\n")
    log("")
    for d in declined:
        log(f"[bench] {d}")
    for o in meta.get("skipped_oom", []):
        log(f"[bench] out of device memory, not measured: {o}")
    if meta.get("skipped_for_time"):
        log(f"[bench] time budget reached; not measured: {', '.join(meta['skipped_for_time'][:20])}"
            + (" ..." if len(meta["skipped_for_time"]) > 20 else ""))
        if skipped_hint(meta):
            log(f"[bench] {skipped_hint(meta)}")
    for k, v in meta["notes"].items():
        log(f"[bench] note {k}: {v}")
    log(f"[bench] wrote {os.path.join(out_dir, 'bench.json')}, {os.path.join(out_dir, 'bench.md')}, "
        f"{', '.join(pngs)}; {meta.get('elapsed_s')}s; peak copy {meta['copy_peak_gbps']} GB/s")
    log(f"[bench] {meta['device']}, {meta['date']}: GB/s (bytes per kernels/README.md / median kernel time); "
        "n/a declined, ! failed check, ~ launch-bound")
    for mode, targets, hdr, units, lines, total in console:  # the tables last: a reply's tail shows them
        log(f"\n[bench] {mode} inputs" + (f": the {len(lines)} worst of {total} sweep cases (bench.md has all)"
                                           if sweep else ""))
        for line in targets:
            log(line)
        log(render_text(hdr, units, lines))
    log(f"{'FAILED' if failures else 'OK'}: {len(results)} measurements, {failures} failure(s)")
    return failures


INPUTS_TEXT = {
    "cold": "independent input sets rotated so >= 4x L2 is touched between two uses of a set (from HBM)",
    "hot": "one input set, rewritten in place by a kernel (a sign flip) just before each timed call, "
           "outside its window: fwd x, add_fwd r then x, bwd dy, add_bwd ds then dy (in L2 as a "
           "training step's previous op leaves them)",
}
SWEEP_DISTRIBUTION = ("M, N log-uniform integers in [1, 2^20], redrawn while M*N exceeds the cap; "
                      "dtype and op uniform")


def sweep_ranges_text(sweep):
    idx = sorted(c["index"] for c in sweep["cases"])
    if not idx:
        return "no cases"
    spans, lo = [], idx[0]
    for a, b in zip(idx, idx[1:] + [None]):
        if b != a + 1:
            spans.append(f"{lo}" if lo == a else f"{lo}-{a}")
            lo = b
    return "cases " + ", ".join(spans)


def write_json(path, meta, copy_list, results):
    with open(path + ".tmp", "w") as f:
        json.dump({"meta": meta, "copy": copy_list, "results": results}, f, indent=1)
    os.replace(path + ".tmp", path)


def merge_main(a):
    """--merge: one report over several bench.json (a sweep measured in index ranges over several
    calls, or suite runs). Sweeps must share seed, K and cap; a case measured twice keeps the last."""
    paths = [p for p in a.merge.split(",") if p]
    docs = []
    for p in paths:
        try:
            with open(p) as f:
                docs.append(json.load(f))
        except (OSError, ValueError) as e:
            log(f"bench: --merge: cannot read {p}: {e}")
            return 2
    sweeps = [d["meta"].get("sweep") for d in docs]
    if any(sweeps) and not all(sweeps):
        log("bench: --merge: a sweep cannot be merged with a suite run")
        return 2
    if all(sweeps):
        keys = {(d["meta"]["seed"], s["k"], s["max_elems"]) for d, s in zip(docs, sweeps)}
        if len(keys) != 1:
            log(f"bench: --merge: sweeps differ in (seed, K, cap): {sorted(keys)}")
            return 2
    meta = dict(docs[0]["meta"])
    results, copies = {}, {}
    for d in docs:
        for r in d["results"]:
            results[(inputs_of(r), r["dtype"], r["M"], r["N"], r["op"], r["provider"])] = r
        for c in d["copy"]:
            copies[(inputs_of(c), c["dtype"], c["M"], c["N"])] = c
    if all(sweeps):
        cases = {c["index"]: c for s in sweeps for c in s["cases"]}
        meta["sweep"] = dict(sweeps[0], cases=[cases[i] for i in sorted(cases)])
        measured = {c["index"] for c in cases.values() if any(r.get("case") == c["index"] for r in results.values())}
        meta["skipped_cases"] = sorted({i for d in docs for i in d["meta"].get("skipped_cases", [])} - measured)
        meta["sweep"]["cases"] = [c for c in meta["sweep"]["cases"] if c["index"] in measured]
        meta["skipped_for_time"] = [f"case {i}" for i in meta["skipped_cases"]]
    else:
        meta["skipped_for_time"] = sorted({s for d in docs for s in d["meta"].get("skipped_for_time", [])})
    meta["skipped_oom"] = sorted({s for d in docs for s in d["meta"].get("skipped_oom", [])})
    meta["merged_from"] = paths
    meta["libraries"] = list({(x["path"], x["sha256"]): x for d in docs for x in d["meta"].get("libraries", [])}.values())
    meta["providers"] = list(dict.fromkeys(p for d in docs for p in d["meta"]["providers"]))
    meta["notes"] = {k: v for d in docs for k, v in d["meta"].get("notes", {}).items()}
    meta["elapsed_s"] = round(sum(d["meta"].get("elapsed_s") or 0 for d in docs), 1)
    cps = [c["gbps"] for c in copies.values() if c["status"] == "ok" and inputs_of(c) == "cold"]
    meta["copy_peak_gbps"] = round(max(cps), 1) if cps else None
    os.makedirs(a.out, exist_ok=True)
    write_json(os.path.join(a.out, "bench.json"), meta, list(copies.values()), list(results.values()))
    log(f"[bench] merged {len(paths)} runs: {len(results)} measurements")
    return 1 if report(list(results.values()), list(copies.values()), meta, meta["providers"], a.out) else 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse_args(argv)
    if a.merge:
        return merge_main(a)
    t_start = time.time()
    if a.dry_run:
        dev = torch.device("cpu")
    elif torch.cuda.is_available():
        dev = torch.device("cuda")
    else:
        log("bench: no CUDA device visible (use --dry-run for the CPU check of the harness)")
        return 2
    fast = a.quick or a.sweep is not None
    if a.check_elems is None:
        a.check_elems = 1 << 20 if a.sweep else 1 << 22
    cfg = {"check_elems": a.check_elems, "iters": a.iters or (5 if a.dry_run else 30 if fast else 50),
           "warmup": a.warmup if a.warmup is not None else (1 if a.dry_run else 3 if fast else 5)}
    # A CPU has no L2 worth defeating: two sets prove the rotation code path.
    max_sets = 2 if a.dry_run else 64
    budget = a.time_budget or (300 if a.dry_run else 165 if a.quick else 480 if a.sweep else 470)
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 30)
    modes = list(INPUT_MODES) if a.inputs == "both" else [a.inputs]
    os.makedirs(a.out, exist_ok=True)

    providers, compile_prov, notes, fn_modes = build_providers(a, dev)
    device, l2, timer, free_bytes = device_facts(dev)
    versions = {"torch": torch.__version__, "python": platform.python_version()}
    for dist, mod in (("triton", "triton"), ("liger-kernel", "liger_kernel"), ("quack-kernels", "quack"),
                      ("nvidia-cutlass-dsl", "cutlass"), ("fusednorm", "fusednorm")):
        try:
            versions[dist] = importlib.metadata.version(dist)
        except Exception:  # not installed as a distribution (fusednorm from shim/python): ask the module
            m = sys.modules.get(mod)
            versions[dist] = getattr(m, "__version__", None) if m else None
    meta = {"device": device, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "seed": seed, "argv": argv,
            "mode": ("dry-run " if a.dry_run else "") + ("sweep" if a.sweep else "quick" if a.quick else
                                                         "full" if not a.dry_run else "suite"),
            "inputs": modes, "inputs_text": {m: INPUTS_TEXT[m] for m in modes},
            "iters": cfg["iters"], "warmup": cfg["warmup"], "eps": EPS, "l2_bytes": l2, "versions": versions,
            "providers": [p.name for p in providers], "fusednorm_modes": fn_modes, "notes": notes,
            "byte_formulas": BYTE_FORMULAS, "gb": "1e9 bytes", "latency_bytes": LATENCY_BYTES, "timing":
            "median per-iteration CUDA-event time, GPU parked on a spin while iterations are enqueued; "
            "cold: rotating input sets (>= 4x L2 between reuses); hot: inputs rewritten by a kernel before "
            "each call, outside the window; backward = autograd.grad on saved forwards",
            "copy_peak_gbps": None, "skipped_for_time": [], "skipped_cases": [], "skipped_oom": [],
            "libraries": loaded_libraries()}
    for lib in meta["libraries"]:
        log(f"[bench] loaded {lib['path']} (sha256 {lib['sha256']})")
    meta["gates"] = {"fusednorm": "C float64 reference + accuracy rules (fusednorm.reference, "
                                  f"kernels/ref/fusednorm_ref.c) on up to {a.check_elems or 'all'} "
                                  "elements per output; dw beyond that: relative L2",
                     "peers (torch, compile, liger, quack)": "relative L2 vs float64 " + ", ".join(
                         f"{k}: {v}" for k, v in ((k, TOL[t]) for k, t in DTYPES.items()))}
    sweep = None
    if a.sweep:
        cap = a.sweep_max_elems or (DRY_SWEEP_MAX_ELEMS if a.dry_run else sweep_cap(free_bytes))
        drawn = sweep_cases(a.sweep, seed, cap, (a.dtypes or ",".join(DTYPES)).split(","),
                            a.ops.split(",") if a.ops else OPS)
        sweep = drawn[a.sweep_lo:a.sweep_hi]
        meta["sweep"] = {"k": a.sweep, "max_elems": cap, "range": [a.sweep_lo, a.sweep_hi],
                         "distribution": SWEEP_DISTRIBUTION, "free_bytes": free_bytes, "cases": sweep}
    log(f"[bench] {meta['mode']} run on {device}; seed {seed}; inputs {modes}; providers {meta['providers']}")
    if sweep is not None:
        log(f"[bench] sweep: {a.sweep} cases from seed {seed} (M*N <= {meta['sweep']['max_elems']}); "
            f"measuring cases {a.sweep_lo}..{a.sweep_hi - 1}; reproduce with --sweep {a.sweep} --seed {seed} "
            f"--sweep-max-elems {meta['sweep']['max_elems']}")
    log("[bench] accuracy gates: " + "; ".join(f"{k}: {v}" for k, v in meta["gates"].items()))
    log("[bench] bytes: " + "; ".join(f"{k} {v}" for k, v in BYTE_FORMULAS.items()))

    results, copy_rows = [], {}
    json_path = os.path.join(a.out, "bench.json")

    def dump():  # after every case: a run killed at its time limit keeps what it measured
        cps = [c["gbps"] for (md, *_), c in copy_rows.items() if c["status"] == "ok" and md == "cold"]
        meta["copy_peak_gbps"] = round(max(cps), 1) if cps else None
        meta["elapsed_s"] = round(time.time() - t_start, 1)
        if sweep is not None:  # the cases measured so far (a killed run's JSON merges correctly)
            done = {r["case"] for r in results}
            meta["sweep"]["cases"] = [c for c in sweep if c["index"] in done]
        write_json(json_path, meta, list(copy_rows.values()), results)

    for case in plan(a, sweep):
        dt, m, n, ci = case["dtype"], case["M"], case["N"], case["index"]
        label = f"case {ci} ({dt} {fmt_shape(m, n)} {case['ops'][0]})" if sweep else f"{dt} {fmt_shape(m, n)}"
        if time.time() - t_start > budget:
            meta["skipped_for_time"].append(label)
            meta["skipped_cases"].append(ci)
            continue
        t_case = time.time()
        esize = torch.tensor([], dtype=DTYPES[dt]).element_size()
        if compile_prov is not None:
            compile_prov.reset()
        case_seed = seed + 7919 * ci
        n_before = len(results)
        try:
            for mode in modes:
                copy_cfg = dict(cfg, inputs=mode, nsets=n_sets("copy", m, n, esize, l2, max_sets))
                copy_rows[(mode, dt, m, n)] = copy_case(dt, m, n, dev, copy_cfg, timer)
            declined = {}  # a shape a provider declined cold is declined hot too: not compiled twice
            for op in case["ops"]:
                ref = reference(op, make_set(op, m, n, DTYPES[dt], dev, case_seed))
                for mode in modes:
                    case_cfg = dict(cfg, inputs=mode, case=ci, nsets=n_sets(op, m, n, esize, l2, max_sets))
                    cp = copy_rows[(mode, dt, m, n)]
                    for prov in providers:
                        if (prov.name, op) in declined:
                            results.append(dict(declined[(prov.name, op)], inputs=mode))
                            continue
                        row = provider_case(prov, op, dt, m, n, dev, case_cfg, ref, case_seed, timer,
                                            cp.get("gbps"))
                        if row["status"] == "unsupported":
                            declined[(prov.name, op)] = row
                        results.append(row)
                del ref
        except torch.cuda.OutOfMemoryError as e:
            # The inputs, the float64 reference or a copy's buffers do not fit the device: the case
            # is dropped whole (no half-measured row) and named in the report, the rest still run.
            ref = None
            del results[n_before:]
            for mode in modes:
                copy_rows.pop((mode, dt, m, n), None)
            meta["skipped_oom"].append(f"{label}: {decline_reason(e)}")
            log(f"[bench] {label}: out of device memory, not measured ({decline_reason(e)})")
            if dev.type == "cuda":
                torch.cuda.empty_cache()
            dump()
            continue
        if dev.type == "cuda":
            torch.cuda.empty_cache()
        for mode in modes:
            done = [r for r in results if r["case"] == ci and inputs_of(r) == mode and usable(r)]
            best = {op: max((r for r in done if r["op"] == op), key=lambda r: r["gbps"], default=None)
                    for op in case["ops"]}
            cp = copy_rows[(mode, dt, m, n)]
            log(f"[bench] {label} {mode} in {time.time() - t_case:.1f}s; copy {cp.get('gbps', 0):.0f} GB/s; "
                "fastest: " + ", ".join(f"{op} {b['provider']} {b['gbps']:.0f} ({fmt_us(b['median_us'])} us)"
                                        for op, b in best.items() if b))
        dump()
    dump()
    return 1 if report(results, list(copy_rows.values()), meta, [p.name for p in providers], a.out) else 0


if __name__ == "__main__":
    sys.exit(main())
