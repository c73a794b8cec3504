"""Judge fusednorm outputs with THE float64 reference and accuracy rules (kernels/ref/fusednorm_ref.c).

kernels/README.md: the harness, the tests and the bench judge with one C file. That C
file is linked into libfusednorm_ops.so (shim/BUILD keeps its symbols), so this module only binds
it with ctypes: no formula, tolerance or rule is re-implemented in Python.

    from fusednorm import reference
    v = reference.check_forward(x, residual, weight, y, residual_out, rstd, eps, offset, casting)
    assert v, str(v)              # v.ok; str(v) gives the C rules' reason lines
    v["y"].stats["max_ulp"], v["y"].naive["rel_l2"], v["y"].stats["ulp_hist"]   # 0/1/2/>2 ulp
    v = reference.check_backward(dy, s, ds, weight, rstd, dx, dw, eps, offset, casting)

Tensors: any shape [..., N] (rows = everything but the last dim), any device (they are copied to
the CPU), f32/f16/bf16 (16-bit values are read as their bit patterns by the C code). Row-strided
CPU views are passed as they are; other layouts are made contiguous. The checks are the ones of
kernels/tests/engine.c, in the same order:
  forward : y (fusednorm_rule_y); residual_out bit-exact RN(x + residual) (the fused add is part of
            the contract, not an approximation); rstd (the dx rule on an f32 problem, as engine.c).
  backward: dx (fusednorm_rule_dx, includes ds); dw (fusednorm_rule_dw_scaled, with fusednorm_ref_dw_scale) when there is a weight.
Each rule compares against the naive fp32 baseline on the same inputs (fusednorm_naive_*). The
reference takes the backward's saved rstd as an input (the contract: n = s*rstd as the forward used
it), so pass the rstd the forward returned.
"""

import ctypes
import threading
from dataclasses import dataclass, field

import torch

from . import _library

__all__ = ["check_forward", "check_backward", "Verdict", "Check"]

# ------------------------------------------------------------------------ C structs
# Field order and types exactly as kernels/include/fusednorm.h and kernels/ref/fusednorm_ref.h
# (C enums are int-sized on the x86-64/aarch64 ABIs we build for).
_i64, _f32p, _vp = ctypes.c_int64, ctypes.POINTER(ctypes.c_float), ctypes.c_void_p


class Problem(ctypes.Structure):  # fusednorm_problem
    _fields_ = [("rows", _i64), ("n", _i64), ("x_dtype", ctypes.c_int), ("w_dtype", ctypes.c_int),
                ("casting", ctypes.c_int), ("eps", ctypes.c_float), ("offset", ctypes.c_float),
                ("has_weight", ctypes.c_int), ("has_residual", ctypes.c_int),
                ("mode", ctypes.c_int), ("row_dims", ctypes.c_int), ("row_shape", _i64 * 4)]


class FwdArgs(ctypes.Structure):  # fusednorm_fwd_args
    _fields_ = [("x", _vp), ("x_stride", _i64), ("residual", _vp), ("residual_stride", _i64),
                ("weight", _vp), ("y", _vp), ("y_stride", _i64), ("residual_out", _vp),
                ("residual_out_stride", _i64), ("rstd", _f32p), ("x_outer", _i64 * 3),
                ("residual_outer", _i64 * 3), ("y_outer", _i64 * 3), ("residual_out_outer", _i64 * 3)]


class BwdArgs(ctypes.Structure):  # fusednorm_bwd_args
    _fields_ = [("dy", _vp), ("dy_stride", _i64), ("s", _vp), ("s_stride", _i64), ("ds", _vp),
                ("ds_stride", _i64), ("weight", _vp), ("rstd", _f32p), ("dx", _vp),
                ("dx_stride", _i64), ("dw", _vp), ("workspace", _vp),
                ("workspace_bytes", ctypes.c_size_t), ("dy_outer", _i64 * 3), ("s_outer", _i64 * 3),
                ("ds_outer", _i64 * 3), ("dx_outer", _i64 * 3)]


class ErrStats(ctypes.Structure):  # fusednorm_err_stats
    _fields_ = [("count", _i64), ("nonfinite_ref", _i64), ("nan_mismatch", _i64),
                ("ulp_hist", _i64 * 4), ("max_ulp", _i64), ("max_abs", ctypes.c_double),
                ("max_rel", ctypes.c_double), ("sum_sq_err", ctypes.c_double),
                ("sum_sq_ref", ctypes.c_double), ("max_abs_ref", ctypes.c_double),
                ("within1", _i64), ("max_excess", ctypes.c_double),
                ("max_excess4", ctypes.c_double), ("worst_row", _i64), ("worst_col", _i64),
                ("worst_got", ctypes.c_double), ("worst_ref", ctypes.c_double)]


# sizeof of the C structs on LP64, counted from the headers: a field added there and not here
# fails loudly at import instead of shifting every later field.
for _cls, _size in ((Problem, 88), (FwdArgs, 176), (BwdArgs, 200), (ErrStats, 160)):
    assert ctypes.sizeof(_cls) == _size, (_cls.__name__, ctypes.sizeof(_cls), _size)

_DTYPE = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 2}   # fusednorm_dtype
_CASTING = {"fp32": 0, "llama": 1, "gemma": 2}                      # fusednorm_casting
_WHY = 512

_lib = None


def _load():
    """The ops library (already loaded by `import fusednorm`), opened again by path for ctypes."""
    global _lib
    if _lib is not None:
        return _lib
    lib = ctypes.CDLL(_library.library_path())
    P, S, D = ctypes.POINTER(Problem), ctypes.POINTER(ErrStats), ctypes.POINTER(ctypes.c_double)
    sig = {
        "fusednorm_problem_init": (Problem, [_i64, _i64, ctypes.c_int, ctypes.c_int]),
        "fusednorm_status_string": (ctypes.c_char_p, [ctypes.c_int]),
        "fusednorm_ref_forward": (ctypes.c_int, [P, ctypes.POINTER(FwdArgs), D, D, D]),
        "fusednorm_ref_backward": (ctypes.c_int, [P, ctypes.POINTER(BwdArgs), D, D]),
        "fusednorm_naive_forward": (ctypes.c_int, [P, ctypes.POINTER(FwdArgs)]),
        "fusednorm_naive_backward": (ctypes.c_int, [P, ctypes.POINTER(BwdArgs)]),
        "fusednorm_err_stats_clear": (None, [S]),
        "fusednorm_err_stats_add": (None, [S, _vp, ctypes.c_int, _i64, D, _i64, _i64, _i64]),
        "fusednorm_err_stats_rel_l2": (ctypes.c_double, [S]),
        "fusednorm_ref_dw_scale": (ctypes.c_int, [P, ctypes.POINTER(BwdArgs), D]),
        "fusednorm_rule_dw_scaled": (ctypes.c_int, [P, S, S, ctypes.c_double, ctypes.c_char_p,
                                                    ctypes.c_size_t]),
    }
    sig["fusednorm_check_forward"] = (ctypes.c_int, [P, ctypes.POINTER(FwdArgs), ctypes.c_char_p,
                                                     ctypes.c_size_t])
    sig["fusednorm_check_backward"] = (ctypes.c_int, [P, ctypes.POINTER(BwdArgs), ctypes.c_char_p,
                                                      ctypes.c_size_t])
    for rule in ("y", "dx", "dw"):
        sig[f"fusednorm_rule_{rule}"] = (ctypes.c_int, [P, S, S, ctypes.c_char_p, ctypes.c_size_t])
    for name, (res, args) in sig.items():
        try:
            fn = getattr(lib, name)
        except AttributeError as e:
            raise ImportError(f"fusednorm.reference: {name} missing from {lib._name}; it must be "
                              "built with //kernels:fusednorm_ref linked in (shim/BUILD)") from e
        fn.restype, fn.argtypes = res, args
    # Cheap layout self-checks through functions that fill the structs in C.
    p = lib.fusednorm_problem_init(3, 5, 2, 0)
    assert (p.rows, p.n, p.x_dtype, p.w_dtype, p.casting, p.offset, p.has_weight,
            p.has_residual, p.mode) == (3, 5, 2, 0, 0, 0.0, 1, 0, 0), "fusednorm_problem layout"
    assert abs(p.eps - 1e-6) < 1e-12, "fusednorm_problem layout (eps)"
    buf = (ctypes.c_ubyte * (ctypes.sizeof(ErrStats) + 8))(*([0xAB] * (ctypes.sizeof(ErrStats) + 8)))
    st = ErrStats.from_buffer(buf)
    lib.fusednorm_err_stats_clear(ctypes.byref(st))
    assert st.worst_row == -1 and st.worst_col == -1 and st.max_excess == float("-inf"), \
        "fusednorm_err_stats layout"
    assert bytes(buf[ctypes.sizeof(ErrStats):]) == b"\xab" * 8, "fusednorm_err_stats is larger in C"
    _lib = lib
    return lib


# ------------------------------------------------------------------------ results
@dataclass
class Check:
    """One tensor judged by one C rule. stats/naive: fusednorm_err_stats of the result and of the
    naive fp32 baseline against the float64 reference (as dicts, plus rel_l2)."""
    name: str
    ok: bool
    why: str
    stats: dict
    naive: dict = None


@dataclass
class Verdict:
    checks: list = field(default_factory=list)

    @property
    def ok(self):
        return all(c.ok for c in self.checks)

    def __bool__(self):
        return self.ok

    def __getitem__(self, name):
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)

    def failures(self):
        return [c for c in self.checks if not c.ok]

    def __str__(self):
        shown = self.failures() or self.checks
        return "; ".join(("" if c.ok else "FAIL ") + c.why for c in shown)


def _as_dict(st, lib):
    d = {name: getattr(st, name) for name, _ in ErrStats._fields_}
    d["ulp_hist"] = list(st.ulp_hist)
    d["rel_l2"] = lib.fusednorm_err_stats_rel_l2(ctypes.byref(st))
    return d


# ------------------------------------------------------------------------ tensors -> C
class _Rows:
    """A tensor as [rows, n] host rows: pointer, row stride (elements), fusednorm dtype. Holds the
    CPU tensor so the pointer stays valid."""

    def __init__(self, t, n, name):
        if t.dtype not in _DTYPE:
            raise ValueError(f"fusednorm.reference: {name} has dtype {t.dtype}; expected float32, "
                             "float16 or bfloat16")
        if t.dim() == 0 or t.shape[-1] != n:
            raise ValueError(f"fusednorm.reference: {name} has shape {tuple(t.shape)}; last dim "
                             f"must be {n}")
        t = t.detach().cpu().reshape(-1, n)
        if t.stride(1) != 1 or (t.shape[0] > 1 and t.stride(0) < n):
            t = t.contiguous()
        self.t, self.rows, self.dtype = t, t.shape[0], _DTYPE[t.dtype]
        self.ptr = t.data_ptr() if t.numel() else None
        self.stride = t.stride(0) if t.shape[0] > 1 else n


def _vec(t, n, name, dtypes=None):
    """A dense 1-D host vector of n elements (weight, dw, rstd)."""
    t = t.detach().cpu().reshape(-1).contiguous()
    if t.numel() != n:
        raise ValueError(f"fusednorm.reference: {name} has {t.numel()} elements, expected {n}")
    if dtypes and t.dtype not in dtypes:
        raise ValueError(f"fusednorm.reference: {name} has dtype {t.dtype}")
    return t


def _problem(lib, rows, n, x_dtype, weight, eps, offset, casting, has_residual):
    if casting not in _CASTING:
        raise ValueError(f"fusednorm.reference: casting {casting!r} not one of {list(_CASTING)}")
    w_dtype = _DTYPE[weight.dtype] if weight is not None else x_dtype
    p = lib.fusednorm_problem_init(rows, n, x_dtype, w_dtype)
    p.casting, p.eps, p.offset = _CASTING[casting], eps, offset
    p.has_weight, p.has_residual = int(weight is not None), int(has_residual)
    return p


def _ok(lib, status, what):
    if status != 0:
        raise ValueError(f"fusednorm.reference: {what}: "
                         f"{lib.fusednorm_status_string(status).decode()}")


def _stats(lib, got_ptr, dtype, stride, ref, rows, n):
    st = ErrStats()
    lib.fusednorm_err_stats_clear(ctypes.byref(st))
    ref_p = ctypes.cast(ref.data_ptr(), ctypes.POINTER(ctypes.c_double)) if ref.numel() else None
    lib.fusednorm_err_stats_add(ctypes.byref(st), got_ptr, dtype, stride, ref_p, rows, n, 0)
    return st


def _rule(lib, fn, p, name, got, naive, prefix=""):
    why = ctypes.create_string_buffer(_WHY)
    ok = bool(fn(ctypes.byref(p), ctypes.byref(got), ctypes.byref(naive), why, _WHY))
    return Check(name, ok, prefix + why.value.decode(), _as_dict(got, lib), _as_dict(naive, lib))


def _pair(f, g):
    """f() and g() at once (ctypes releases the GIL; the C calls are serial and independent: the
    reference and the naive baseline, or two statistics passes; results are the same as run one
    after the other): up to 2x on the 2-core CI, where the 33M-element matrix cases are the shim
    tests' critical path. Returns (f(), g())."""
    out = {}

    def run():
        try:
            out["f"] = f()
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            out["e"] = e
    t = threading.Thread(target=run)
    t.start()
    try:
        b = g()
    finally:
        t.join()
    if "e" in out:
        raise out["e"]
    return out["f"], b


def _f64(*shape):
    return torch.empty(shape, dtype=torch.float64)


def _dptr(t):
    return ctypes.cast(t.data_ptr(), ctypes.POINTER(ctypes.c_double)) if t.numel() else None


def _fptr(t):
    return ctypes.cast(t.data_ptr(), _f32p) if t is not None and t.numel() else None


# ------------------------------------------------------------------------ checks
def check_forward(x, residual, weight, y, residual_out=None, rstd=None, eps=1e-6, offset=0.0,
                  casting="fp32"):
    """Judge a forward's y (and residual_out, rstd when given) against the float64 reference of the
    same inputs with the C rules. residual=None: plain rms_norm; else residual_out is required."""
    lib = _load()
    n = x.shape[-1]
    X, Y = _Rows(x, n, "x"), _Rows(y, n, "y")
    rows = X.rows
    if Y.rows != rows or Y.dtype != X.dtype:
        raise ValueError("fusednorm.reference: y must have x's shape and dtype")
    R = RO = None
    if residual is not None:
        if residual_out is None:
            raise ValueError("fusednorm.reference: fused add needs residual_out")
        R, RO = _Rows(residual, n, "residual"), _Rows(residual_out, n, "residual_out")
    W = None if weight is None else _vec(weight, n, "weight", _DTYPE)
    p = _problem(lib, rows, n, X.dtype, W, eps, offset, casting, R is not None)
    args = FwdArgs(x=X.ptr, x_stride=X.stride, residual=R and R.ptr, residual_stride=R.stride if R else n,
                   weight=W.data_ptr() if W is not None else None, y=Y.ptr, y_stride=Y.stride,
                   residual_out=RO and RO.ptr, residual_out_stride=RO.stride if RO else n)
    y_ref, s_ref, rstd_ref = _f64(rows, n), _f64(rows, n), _f64(rows)
    # Naive fp32 baseline into its own dense buffers.
    xt = X.t
    ny = torch.empty(rows, n, dtype=xt.dtype)
    nro = torch.empty(rows, n, dtype=xt.dtype) if R is not None else None
    nrstd = torch.empty(rows, dtype=torch.float32)
    nargs = FwdArgs(**{f: getattr(args, f) for f, _ in FwdArgs._fields_})
    nargs.y, nargs.y_stride = ny.data_ptr() if ny.numel() else None, n
    nargs.residual_out = nro.data_ptr() if (nro is not None and nro.numel()) else None
    nargs.residual_out_stride, nargs.rstd = n, _fptr(nrstd)
    st_ref, st_naive = _pair(
        lambda: lib.fusednorm_ref_forward(ctypes.byref(p), ctypes.byref(args), _dptr(y_ref),
                                          _dptr(s_ref), _dptr(rstd_ref)),
        lambda: lib.fusednorm_naive_forward(ctypes.byref(p), ctypes.byref(nargs)))
    _ok(lib, st_ref, "reference forward")
    _ok(lib, st_naive, "naive forward")

    v = Verdict()
    got, nv = _pair(lambda: _stats(lib, Y.ptr, X.dtype, Y.stride, y_ref, rows, n),
                    lambda: _stats(lib, nargs.y, X.dtype, n, y_ref, rows, n))
    v.checks.append(_rule(lib, lib.fusednorm_rule_y, p, "y", got, nv))
    if RO is not None:
        rs = _stats(lib, RO.ptr, X.dtype, RO.stride, s_ref, rows, n)
        ok = rs.nan_mismatch == 0 and rs.max_ulp == 0
        v.checks.append(Check("residual_out", ok,
                              f"residual_out: max {rs.max_ulp} ulp from RN(x + residual), "
                              f"{rs.nan_mismatch} NaN/Inf mismatches", _as_dict(rs, lib)))
    if rstd is not None:
        rt = _vec(rstd, rows, "rstd", (torch.float32,))
        rg = _stats(lib, rt.data_ptr() if rows else None, 0, 1, rstd_ref, rows, 1)
        rn = _stats(lib, nrstd.data_ptr() if rows else None, 0, 1, rstd_ref, rows, 1)
        pr = Problem.from_buffer_copy(p)
        pr.x_dtype = 0  # engine.c: rstd is an f32 tensor judged by the dx rule
        v.checks.append(_rule(lib, lib.fusednorm_rule_dx, pr, "rstd", rg, rn, "rstd: "))
        # The strict checks: per-element bounds, y re-rounded from the saved rstd, rstd rms and
        # bias, y bias (fusednorm_check_forward; they need the saved rstd).
        sargs = FwdArgs(**{f: getattr(args, f) for f, _ in FwdArgs._fields_})
        sargs.rstd = _fptr(rt)
        why = ctypes.create_string_buffer(_WHY)
        ok = bool(lib.fusednorm_check_forward(ctypes.byref(p), ctypes.byref(sargs), why, _WHY))
        v.checks.append(Check("strict_forward", ok, why.value.decode(), {}))
    return v


def check_backward(dy, s, ds, weight, rstd, dx, dw=None, eps=1e-6, offset=0.0, casting="fp32"):
    """Judge a backward's dx (and dw, when there is a weight and dw is given) with the C rules. s is
    what the forward normalized (x, or residual_out for fused add); ds the gradient of residual_out
    or None; rstd the forward's saved fp32 rstd (an input of the reference, see the module doc)."""
    lib = _load()
    n = dy.shape[-1]
    DY, S, DX = _Rows(dy, n, "dy"), _Rows(s, n, "s"), _Rows(dx, n, "dx")
    rows = DY.rows
    if S.rows != rows or DX.rows != rows or not (DY.dtype == S.dtype == DX.dtype):
        raise ValueError("fusednorm.reference: dy, s and dx must share shape and dtype")
    DS = None if ds is None else _Rows(ds, n, "ds")
    W = None if weight is None else _vec(weight, n, "weight", _DTYPE)
    # dw=None with a weight: dw not judged (a row sample, whose dw is not the kernel's); the C
    # argument check still wants a dw buffer, which the reference never reads.
    DW = None if W is None else torch.empty(n, dtype=W.dtype)
    if W is not None and dw is not None:
        DW = _vec(dw, n, "dw", (W.dtype,))
    rt = _vec(rstd, rows, "rstd", (torch.float32,))
    p = _problem(lib, rows, n, DY.dtype, W, eps, offset, casting, DS is not None)
    args = BwdArgs(dy=DY.ptr, dy_stride=DY.stride, s=S.ptr, s_stride=S.stride,
                   ds=DS and DS.ptr, ds_stride=DS.stride if DS else n,
                   weight=W.data_ptr() if W is not None else None, rstd=_fptr(rt), dx=DX.ptr,
                   dx_stride=DX.stride, dw=DW.data_ptr() if DW is not None else None)
    dx_ref, dw_ref = _f64(rows, n), _f64(n)
    ndx = torch.empty(rows, n, dtype=DX.t.dtype)
    ndw = torch.empty(n, dtype=W.dtype) if W is not None else None
    nargs = BwdArgs(**{f: getattr(args, f) for f, _ in BwdArgs._fields_})
    nargs.dx, nargs.dx_stride = ndx.data_ptr() if ndx.numel() else None, n
    nargs.dw = ndw.data_ptr() if ndw is not None else None
    st_ref, st_naive = _pair(
        lambda: lib.fusednorm_ref_backward(ctypes.byref(p), ctypes.byref(args), _dptr(dx_ref),
                                           _dptr(dw_ref) if W is not None else None),
        lambda: lib.fusednorm_naive_backward(ctypes.byref(p), ctypes.byref(nargs)))
    _ok(lib, st_ref, "reference backward")
    _ok(lib, st_naive, "naive backward")

    v = Verdict()
    got, nv = _pair(lambda: _stats(lib, DX.ptr, DX.dtype, DX.stride, dx_ref, rows, n),
                    lambda: _stats(lib, nargs.dx, DX.dtype, n, dx_ref, rows, n))
    v.checks.append(_rule(lib, lib.fusednorm_rule_dx, p, "dx", got, nv))
    if W is not None and dw is not None:
        got = _stats(lib, DW.data_ptr(), p.w_dtype, n, dw_ref, 1, n)
        nv = _stats(lib, ndw.data_ptr(), p.w_dtype, n, dw_ref, 1, n)
        # The column condition scale makes cancelling columns judged fairly (fusednorm_ref.c).
        scale = ctypes.c_double(0.0)
        _ok(lib, lib.fusednorm_ref_dw_scale(ctypes.byref(p), ctypes.byref(args), ctypes.byref(scale)),
            "dw condition scale")
        why = ctypes.create_string_buffer(_WHY)
        ok = bool(lib.fusednorm_rule_dw_scaled(ctypes.byref(p), ctypes.byref(got), ctypes.byref(nv),
                                              scale.value, why, _WHY))
        v.checks.append(Check("dw", ok, why.value.decode(), _as_dict(got, lib), _as_dict(nv, lib)))
    # The strict checks: per-element bounds on dx (and dw when given), signed and magnitude bias
    # (fusednorm_check_backward); dw None with a weight: dx only.
    sargs = BwdArgs(**{f: getattr(args, f) for f, _ in BwdArgs._fields_})
    if W is not None and dw is None:
        sargs.dw = None
    why = ctypes.create_string_buffer(_WHY)
    ok = bool(lib.fusednorm_check_backward(ctypes.byref(p), ctypes.byref(sargs), why, _WHY))
    v.checks.append(Check("strict_backward", ok, why.value.decode(), {}))
    return v
