"""Float64 reference, naive fp32 baseline and the DESIGN.md accuracy rules, in torch.

This is the Python twin of kernels/ref/fusednorm_ref.c (same formulas, same rules and constants:
L2_FLOOR, DX_ULP_FRACTION, the llama y allowance, DW_F32), so the shim tests judge results through
the ops exactly the way the C tests judge them through the C API. Reasons for each constant are
in fusednorm_ref.c; in short:
  y  (16-bit): every element within 1 ulp of the correctly rounded fp64 result; llama casting
               allows 3 ulp on <= 0.1% (+ a Poisson margin: the rounded intermediate
               RN(s*rstd) can flip).
  y  (f32), dx: >= 99.9% within 1 ulp (f32: the naive baseline's fraction - 1% - a 3-sigma
               binomial margin over the rows, see _rule_vs_naive), max error <=
               2 x naive max + 1 ulp, relative L2 <= 1.5 x naive + 2^-22.
  dw (16-bit): within 1 ulp unless the naive fp32 sum itself is further off; (f32): max <= 1.25 x
               naive + 4 fp32 ulp of max|dw|, relative L2 <= 1.25 x naive + 2^-22.
"naive" = straightforward serial fp32 loops (row sums left to right, dw summed row by row).
"""

import math

import torch

L2_FLOOR = 2.0 ** -22
DX_ULP_FRACTION = 0.999
_MANT = {torch.float32: 24, torch.bfloat16: 8, torch.float16: 11}
_EMIN = {torch.float32: -126, torch.bfloat16: -126, torch.float16: -14}
_INT = {torch.float32: torch.int32, torch.bfloat16: torch.int16, torch.float16: torch.int16}


def round_to(v, dtype):
    """float64 -> dtype with ONE rounding (torch's double->bf16/f16 goes through float: two)."""
    if dtype in (torch.float32, torch.float64):
        return v.to(dtype)
    f = v.to(torch.float32)
    # Round to odd in fp32 (truncate toward zero, set the last bit when inexact); the final RN to
    # a format with >= 2 fewer mantissa bits is then correctly rounded.
    back = f.to(torch.float64)
    over = back.abs() > v.abs()
    f = torch.where(over & torch.isfinite(v), torch.nextafter(f, torch.zeros_like(f)), f)
    inexact = (f.to(torch.float64) != v) & torch.isfinite(v)
    bits = f.view(torch.int32)
    bits = torch.where(inexact, bits | 1, bits)
    return bits.view(torch.float32).to(dtype)


def ulp_of(v, dtype):
    """Spacing of `dtype` at |v| (float64 tensor in, float64 tensor out)."""
    a = v.abs().to(torch.float64)
    _, e = torch.frexp(torch.where(a > 0, a, torch.ones_like(a)))
    e = torch.where(a > 0, e - 1, torch.full_like(e, _EMIN[dtype]))
    e = torch.clamp(e, min=_EMIN[dtype])
    return torch.ldexp(torch.ones_like(a), (e - (_MANT[dtype] - 1)).to(torch.int64))


def _ordered(t):
    """Integers in the order of the floats (adjacent floats differ by 1)."""
    wide = torch.int64 if t.dtype == torch.float32 else torch.int32
    i = t.contiguous().view(_INT[t.dtype]).to(wide)
    sign = 1 << (31 if t.dtype == torch.float32 else 15)
    mag = i & (sign - 1)
    return torch.where(i < 0, -mag, mag)


def ulp_distance(a, b):
    """|a - b| in ulps of their (shared) dtype; both NaN -> 0; one NaN -> huge."""
    d = (_ordered(a) - _ordered(b)).abs()
    an, bn = torch.isnan(a), torch.isnan(b)
    if an.any() or bn.any():
        d = torch.where(an & bn, torch.zeros_like(d), d)
        d = torch.where(an ^ bn, torch.full_like(d, 1 << 30), d)
    return d


class Reference:
    """A float64 reference tensor with what every comparison against it needs, computed once
    (the big matrix shapes have 33M elements; the kernel's and the naive baseline's results are
    both scored against the same reference)."""

    def __init__(self, ref, dtype):
        self.dtype = dtype
        self.rows = ref.shape[0] if ref.dim() == 2 else 1
        self.ref = ref.reshape(-1).to(torch.float64)
        self.fin = torch.isfinite(self.ref)
        self.all_finite = bool(self.fin.all())
        self.rn = round_to(self.ref, dtype)
        self.ulp = ulp_of(self.ref, dtype)
        r = self.ref if self.all_finite else self.ref[self.fin]
        self.finite = r.numel()
        self.max_abs_ref = float(r.abs().max()) if r.numel() else 0.0
        self.norm = float(r.pow(2).sum().sqrt()) if r.numel() else 0.0

    def _fin(self, t):
        return t if self.all_finite else t[self.fin]

    def stats(self, got):
        """Error statistics of `got` (of this reference's dtype) against the reference."""
        assert got.dtype == self.dtype, (got.dtype, self.dtype)
        got = got.reshape(-1)
        g64 = got.to(torch.float64)
        if self.all_finite:
            nan_mismatch = int((~torch.isfinite(g64)).sum())
        else:
            pattern = torch.isnan(self.ref) != torch.isnan(g64)
            pattern |= (~torch.isnan(self.ref)) & (~self.fin) & (g64 != self.ref)
            nan_mismatch = int(pattern.sum())
        ud = self._fin(ulp_distance(got, self.rn))
        err = self._fin((g64 - self.ref).abs())
        empty = err.numel() == 0
        return {
            "count": got.numel(),
            "rows": self.rows,
            "finite": self.finite,
            "nan_mismatch": nan_mismatch,
            "within1": int((ud <= 1).sum()),
            "beyond1": int((ud > 1).sum()),
            "max_ulp": 0 if empty else int(ud.max()),
            "max_abs": 0.0 if empty else float(err.max()),
            "max_excess": 0.0 if empty else float((err - self._fin(self.ulp)).max()),
            "max_abs_ref": self.max_abs_ref,
            "rel_l2": 0.0 if empty else float(err.pow(2).sum().sqrt()) / max(self.norm, 1e-300),
        }


def stats(got, ref):
    return Reference(ref, got.dtype).stats(got)


def _rule_vs_naive(dtype, g, nv, what):
    if g["nan_mismatch"]:
        return f"{what}: {g['nan_mismatch']} elements differ from the reference's NaN/Inf pattern"
    if g["finite"] == 0:
        return None
    frac = g["within1"] / g["finite"]
    # 16-bit: >= 99.9% within 1 ulp, i.e. at most 0.1% of the elements beyond, plus a 3-sigma
    # Poisson margin (rare independent events: one element beyond 1 ulp in a 762-element shape,
    # where 0.76 are expected, is not a failure).
    expect = (1 - DX_ULP_FRACTION) * g["finite"]
    need = 1.0 - (expect + 3.0 * math.sqrt(expect) + 1.0) / g["finite"]
    if dtype == torch.float32:
        # An equally accurate fp32 evaluation in another order lands beyond 1 ulp on a similar
        # fraction of the elements, but which ones is chance, and correlated per row (one rstd
        # rounding shifts a whole row of y). So the allowance is the C rule's 1% plus a 3-sigma
        # binomial margin with the rows as samples (p(1-p) <= 1/4): 2.3% at 4096 rows, no bound
        # at 1..7 rows, where the max-error and L2 rules below carry the check.
        nfrac = nv["within1"] / nv["finite"] if nv["finite"] else 1.0
        need = nfrac - 0.01 - 1.5 / math.sqrt(max(g.get("rows", 1), 1))
    if frac < need:
        return f"{what}: only {100 * frac:.4f}% within 1 ulp (need {100 * need:.4f}%)"
    # f32 floor: the formulas take ~6 fp32 roundings (sum, mean, +eps, sqrt, divide, products),
    # so a correct kernel can sit ~3 ulp off on a tiny shape where the one baseline run happens
    # to be nearly exact (seen: N=3, 2.5 ulp vs the baseline's 0.6); 3 ulp of max|ref| is still
    # 10^4 below a plumbing error.
    floor = 3.0 * 2.0 ** -23 * g["max_abs_ref"] if dtype == torch.float32 else 0.0
    if g["max_excess"] > max(2.0 * nv["max_abs"], floor):
        return (f"{what}: max error {g['max_abs']:.3g} exceeds 2 x naive fp32 max "
                f"{nv['max_abs']:.3g} + 1 ulp")
    if g["rel_l2"] > 1.5 * nv["rel_l2"] + L2_FLOOR:
        return f"{what}: relative L2 {g['rel_l2']:.3g} exceeds 1.5 x naive {nv['rel_l2']:.3g}"
    return None


def rule_y(dtype, casting, has_weight, g, nv):
    """None if y passes, else the reason."""
    if dtype == torch.float32:
        return _rule_vs_naive(dtype, g, nv, "y")
    if g["nan_mismatch"]:
        return f"y: {g['nan_mismatch']} elements differ from the reference's NaN/Inf pattern"
    if casting == "llama" and has_weight:
        # Flips of the rounded intermediate are rare independent events (~0.1% of elements):
        # the C rule's 0.1% of the count, plus a 3-sigma Poisson margin so that a shape of a few
        # hundred elements with one flip (expected ~0.8 flips there) does not fail by chance.
        expect = (1 - DX_ULP_FRACTION) * g["finite"]
        if g["max_ulp"] > 3 or g["beyond1"] > expect + 3.0 * math.sqrt(expect) + 1.0:
            return f"y (llama): {g['beyond1']} elements beyond 1 ulp, max {g['max_ulp']} ulp"
    elif g["beyond1"]:
        return f"y: {g['beyond1']} elements beyond 1 ulp (max {g['max_ulp']})"
    return None


def rule_dx(dtype, g, nv):
    return _rule_vs_naive(dtype, g, nv, "dx")


def rule_dw(dtype, g, nv, acc_scale=0.0):
    """acc_scale: max over columns of sum_rows |dy * n| (float64), the magnitude the fp32
    accumulation works at. Where dw cancels to a value whose 16-bit ulp is below the fp32
    accumulation error, 1 ulp is unattainable; then the C rule compares with the naive sum's
    excess, and here a few fp32 roundings of acc_scale are allowed on top (the naive run can
    be lucky on one column: seen fp16, M=33, one element 2 ulp off)."""
    if g["nan_mismatch"]:
        return f"dw: {g['nan_mismatch']} elements differ from the reference's NaN/Inf pattern"
    if dtype != torch.float32:
        allow = max(nv["max_excess"], 0.0) + 4.0 * 2.0 ** -24 * acc_scale
        if g["beyond1"] and g["max_excess"] > allow:
            return f"dw: {g['beyond1']} elements beyond 1 ulp (max {g['max_ulp']})"
        return None
    allow = 1.25 * nv["max_abs"] + 4.0 * 2.0 ** -24 * g["max_abs_ref"]
    if g["max_abs"] > allow:
        return f"dw: max error {g['max_abs']:.3g} exceeds naive fp32 {nv['max_abs']:.3g}"
    if g["rel_l2"] > 1.25 * nv["rel_l2"] + L2_FLOOR:
        return f"dw: relative L2 {g['rel_l2']:.3g} exceeds naive {nv['rel_l2']:.3g}"
    return None


# ------------------------------------------------------------------------ formulas
# All take 2-D [rows, n] tensors (the tests flatten) and the weight [n] or None.

def _s(x, residual):
    """The normalized input: x, or RN(x + residual) in x's dtype (x + r is exact in fp64)."""
    if residual is None:
        return x
    return round_to(x.to(torch.float64) + residual.to(torch.float64), x.dtype)


def ref_forward(x, residual, w, eps, offset, casting):
    """float64 y, s (as stored), rstd, n (as the forward used it)."""
    s = _s(x, residual)
    s64 = s.to(torch.float64)
    rstd = 1.0 / torch.sqrt(s64.pow(2).mean(-1) + eps)
    n = s64 * rstd[:, None]
    if casting == "llama" and w is not None:
        n = round_to(n, x.dtype).to(torch.float64)
    y = n if w is None else n * (w.to(torch.float64) + offset)
    return y, s, rstd, n


def ref_backward(dy, s, ds, w, eps, offset, casting, rstd_used=None):
    """float64 dx (incl. ds) and dw (unrounded).

    Llama casting: DESIGN.md defines the backward with n "as the forward used it", i.e. the
    forward's RN_x(fp32(s * rstd)) with the rstd the forward saved (`rstd_used`). Rounding n with
    a float64 rstd instead flips some elements by one x-dtype ulp (wherever fp32 s*rstd lies within
    fp32 error of a rounding boundary), and each flip moves dw by |dy| * ulp(n): that is the
    reference disagreeing with the forward, not a backward error (seen: fp16 x, fp32 w, M=7)."""
    s64 = s.to(torch.float64)
    rstd = 1.0 / torch.sqrt(s64.pow(2).mean(-1) + eps)
    n = s64 * rstd[:, None]
    if casting == "llama" and w is not None:
        if rstd_used is not None:
            n32 = s.to(torch.float32) * rstd_used.to(torch.float32).reshape(-1, 1)
            n = n32.to(s.dtype).to(torch.float64)
        else:
            n = round_to(n, s.dtype).to(torch.float64)
    dy64 = dy.to(torch.float64)
    g = dy64 if w is None else dy64 * (w.to(torch.float64) + offset)
    dx = rstd[:, None] * (g - n * (g * n).mean(-1, keepdim=True))
    if ds is not None:
        dx = dx + ds.to(torch.float64)
    dw = None if w is None else (dy64 * n).sum(0)
    return dx, dw


def _serial_row_sum(t):
    """sum over the last dim, left to right in fp32 (vectorized across rows)."""
    cols = t.t().contiguous()
    acc = torch.zeros(t.shape[0], dtype=torch.float32, device=t.device)
    for j in range(cols.shape[0]):
        acc = acc + cols[j]
    return acc


def _serial_col_sum(t):
    acc = torch.zeros(t.shape[1], dtype=torch.float32, device=t.device)
    for i in range(t.shape[0]):
        acc = acc + t[i]
    return acc


def _f32(v, like):
    return torch.tensor(v, dtype=torch.float32, device=like.device)


def naive_forward(x, residual, w, eps, offset, casting):
    """Naive fp32 y (rounded to x's dtype)."""
    s = x if residual is None else (x.float() + residual.float()).to(x.dtype)
    sf = s.float()
    rstd = 1.0 / torch.sqrt(_serial_row_sum(sf * sf) / sf.shape[1] + _f32(eps, sf))
    n = sf * rstd[:, None]
    if casting == "llama" and w is not None:
        n = n.to(x.dtype).float()
    y = n if w is None else n * (w.float() + offset)
    return y.to(x.dtype)


def naive_backward(dy, s, ds, w, eps, offset, casting):
    sf = s.float()
    rstd = 1.0 / torch.sqrt(_serial_row_sum(sf * sf) / sf.shape[1] + _f32(eps, sf))
    n = sf * rstd[:, None]
    if casting == "llama" and w is not None:
        n = n.to(s.dtype).float()
    dyf = dy.float()
    g = dyf if w is None else dyf * (w.float() + offset)
    mean = _serial_row_sum(g * n) / sf.shape[1]
    dx = rstd[:, None] * (g - n * mean[:, None])
    if ds is not None:
        dx = dx + ds.float()
    dw = None if w is None else _serial_col_sum(dyf * n).to(w.dtype)
    return dx.to(s.dtype), dw
