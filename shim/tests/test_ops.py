"""torch.ops.fusednorm: numerics vs float64, opcheck, layouts, errors, autograd, autocast, RMSNorm.

Run: FUSEDNORM_LIBRARY=bazel-bin/shim/libfusednorm_ops.so PYTHONPATH=shim/python \
         python3 shim/tests/test_ops.py [--device cuda] [-k matrix] [--seed N]
(bazel test //shim:test_ops does this; the GPU suite runs it with --device cuda.)

The matrix: bf16/fp16/fp32 x M in {1, 7, 4096} x N in {64, 1000, 4096, 8192} x
{contiguous, row-strided}: every op (plain/fused-add, forward/backward) is checked against the
float64 reference with the accuracy rules (fusednorm.reference: the C file kernels/ref/fusednorm_ref.c
that the C tests, the harness and the bench use too), and torch.library.opcheck runs
with requires_grad on and off (at M 1 and 7: its checks do not depend on M). Each config also
takes one of the VARIANTS (casting x offset x weight dtype x eps) in rotation, so every variant
meets every dtype and size class.
Strided inputs are views of wider buffers whose gaps hold NaN: a kernel reading a gap shows up.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import fusednorm  # noqa: E402
from fusednorm import reference  # noqa: E402
import harness  # noqa: E402

DEVICE = "cpu"
ops = torch.ops.fusednorm
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
MS = (1, 7, 4096)
NS = (64, 1000, 4096, 8192)
# GPU suite (its device-time budget is minutes for everything): opcheck on the smallest and
# largest N per dtype x M (one grad setting per layout); the numerics still cover every config.
OPCHECK_SUBSET = os.environ.get("FUSEDNORM_TEST_OPCHECK_SUBSET") == "1"
GAP = 13  # row padding of strided inputs (odd, so rows are also misaligned for vector loads)

# (casting, offset, weight dtype: None = x's dtype, "none" = no weight, eps)
VARIANTS = [
    ("fp32", 0.0, None, 1e-6),
    ("llama", 0.0, None, 1e-6),
    ("gemma", 1.0, torch.float32, 1e-6),
    ("fp32", 0.0, "none", 1e-5),
    ("llama", 0.0, torch.float32, 1e-6),   # HF Llama with an fp32 master weight
    ("fp32", 0.5, torch.bfloat16, 0.25),   # large eps: a dropped eps would be visible
]


def make(shape, dtype, strided, scale=1.0):
    """Fresh random data; strided: a view of the first N columns of a [..., N + GAP] buffer."""
    if not strided:
        return (torch.randn(shape, device=DEVICE) * scale).to(dtype)
    base = (torch.randn(*shape[:-1], shape[-1] + GAP, device=DEVICE) * scale).to(dtype)
    base[..., shape[-1]:] = float("nan")
    return base[..., :shape[-1]]


def make_weight(n, wd, xdtype, offset):
    if wd == "none":
        return None
    # Around 1 - offset + 1, i.e. an effective scale near 1 with real spread: w matters.
    return (1.0 - offset + 0.2 * torch.randn(n, device=DEVICE)).to(wd or xdtype)


def bits_equal(a, b):
    if a is None or b is None:
        return a is None and b is None
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(
        a.detach().cpu().contiguous().view(torch.uint8), b.detach().cpu().contiguous().view(torch.uint8))


def ulp_close(a, b, ulps, abs_of_max=0.0, row_slack=0.0):
    """Same dtype and shape, NaN where the other is NaN, and every element within `ulps` ulp
    (distance of the bit patterns in sign-magnitude order), or within row_slack times the largest
    |b| of its row (last dim), or abs_of_max times the largest |b| of all (sums whose order
    differs, with cancellation)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    a, b = a.detach().cpu().contiguous(), b.detach().cpu().contiguous()
    if not torch.equal(a.isnan(), b.isnan()):
        return False
    ity, mask = (torch.int32, 0x7FFFFFFF) if a.element_size() == 4 else (torch.int16, 0x7FFF)

    def order(t):
        i = t.view(ity).to(torch.int64)
        return torch.where(i < 0, -(i & mask), i)

    ok = ((order(a) - order(b)).abs() <= ulps) | a.isnan()
    if row_slack > 0 and a.dim() > 0:
        fa, fb = a.double(), b.double()
        rowmax = fb.nan_to_num(0.0).abs().amax(dim=-1, keepdim=True)
        ok |= (fa - fb).abs() <= row_slack * rowmax
    if abs_of_max > 0:
        fa, fb = a.double(), b.double()
        m = fb[~fb.isnan()].abs().max().item() if fb.numel() else 0.0
        ok |= (fa - fb).abs() <= abs_of_max * m
    return bool(ok.all())


def check_case(x, residual, w, eps, offset, casting, ctx, mode=None, check_bwd=True):
    """Forward + backward of one op through torch.ops.fusednorm, judged against float64 by the C
    reference and rules (fusednorm.reference -> kernels/ref/fusednorm_ref.c, as the C tests)."""
    dtype = x.dtype
    if residual is None:
        y, rstd = ops.rms_norm_fwd(x, w, eps, offset, casting, mode)
        s = x
    else:
        y, s, rstd = ops.fused_add_rms_norm_fwd(x, residual, w, eps, offset, casting, mode)
    assert y.dtype == dtype and y.shape == x.shape and y.is_contiguous(), ctx
    assert rstd.dtype == torch.float32 and rstd.shape == x.shape[:-1], ctx
    v = reference.check_forward(x, residual, w, y, None if residual is None else s, rstd, eps,
                                offset, casting)
    assert v.ok, f"{ctx}: {v}"
    if not check_bwd:
        return
    strided = not x.is_contiguous()
    dy = make(x.shape, dtype, strided)
    ds = None if residual is None else make(x.shape, dtype, strided)
    if residual is None:
        dx, dw = ops.rms_norm_bwd(dy, s, w, rstd, eps, offset, casting, mode)
    else:
        dx, dw = ops.fused_add_rms_norm_bwd(dy, s, ds, w, rstd, eps, offset, casting, mode)
    assert dx.dtype == dtype and dx.shape == x.shape and dx.is_contiguous(), ctx
    assert (dw is None) == (w is None), ctx
    if w is not None:
        assert dw.dtype == w.dtype and dw.shape == w.shape, ctx
    v = reference.check_backward(dy, s, ds, w, rstd, dx, dw, eps, offset, casting)
    assert v.ok, f"{ctx}: {v}"


def opcheck_case(x, residual, w, eps, offset, casting, requires_grad, ctx):
    """torch.library.opcheck on all four ops (schema, autograd registration, fake, aot dispatch)."""
    def rg(t):
        return None if t is None else t.detach().requires_grad_(requires_grad)
    xr, rr, wr = rg(x), rg(residual), rg(w)
    cfg = (eps, offset, casting, None)
    # The backward ops are deliberately not differentiable (their autograd kernel raises, see
    # test_double_backward_raises), so with requires_grad their aot_dispatch check, which
    # differentiates the op, is replaced by the registration check alone.
    bwd_utils = (("test_schema", "test_autograd_registration", "test_faketensor")
                 if requires_grad else
                 ("test_schema", "test_autograd_registration", "test_faketensor",
                  "test_aot_dispatch_dynamic"))
    if residual is None:
        torch.library.opcheck(ops.rms_norm_fwd, (xr, wr) + cfg)
        _, rstd = ops.rms_norm_fwd(x, w, *cfg)
        dy = rg(make(x.shape, x.dtype, not x.is_contiguous()))
        torch.library.opcheck(ops.rms_norm_bwd, (dy, xr, wr, rstd) + cfg, test_utils=bwd_utils)
    else:
        torch.library.opcheck(ops.fused_add_rms_norm_fwd, (xr, rr, wr) + cfg)
        _, s, rstd = ops.fused_add_rms_norm_fwd(x, residual, w, *cfg)
        dy = rg(make(x.shape, x.dtype, False))
        torch.library.opcheck(ops.fused_add_rms_norm_bwd, (dy, rg(s), dy, wr, rstd) + cfg,
                              test_utils=bwd_utils)


def run_matrix(dname, m):
    dtype = DTYPES[dname]
    k = list(DTYPES).index(dname) + MS.index(m)  # rotate the variants across dtypes and sizes
    for ni, n in enumerate(NS):
        # On the CPU, M = 4096 stops at N = 4096: 4096 x 8192 was half of this test's CI time
        # (the float64 reference and its statistics, serial C), and the CPU backend's numerics
        # at that size are kernels/tests/test_cpu's; the bindings' strides and shapes are the
        # same at N = 8192 with M = 1 and 7. The GPU runs every N (other kernel families).
        if DEVICE == "cpu" and m * n > 4096 * 4096:
            continue
        for strided in (False, True):
            casting, offset, wd, eps = VARIANTS[(k + 2 * ni + strided) % len(VARIANTS)]
            w = make_weight(n, wd, dtype, offset)
            x = make((m, n), dtype, strided)
            r = make((m, n), dtype, strided)
            ctx = (f"{dname} M={m} N={n} {'strided' if strided else 'contiguous'} "
                   f"casting={casting} offset={offset} w={None if w is None else w.dtype} eps={eps}")
            # The largest shapes check the plain and fused ops on alternating layouts: the same
            # kernels, half the (serial, C) reference + baseline time on 2 CI cores.
            big = m * n >= 4096 * 4096
            if not big or not strided:
                check_case(x, None, w, eps, offset, casting, ctx + " plain")
            if not big or strided:
                check_case(x, r, w, eps, offset, casting, ctx + " fused")
            for requires_grad in (False, True):
                # opcheck checks the schema, the autograd registration and the fake kernel's
                # metadata against the real op's, which do not depend on M: M = 1 and 7 run it at
                # every N, layout and grad setting (at M = 4096 it would be ~60% of the matrix's
                # CPU time).
                if m == MS[-1]:
                    continue
                if OPCHECK_SUBSET and (ni not in (0, len(NS) - 1) or requires_grad != strided):
                    continue
                opcheck_case(x, None if (n + strided) % 2 else r, w, eps, offset, casting,
                             requires_grad, ctx + f" opcheck requires_grad={requires_grad}")


for _d in DTYPES:
    for _m in MS:
        globals()[f"test_matrix_{_d}_M{_m}"] = (lambda d, m: lambda: run_matrix(d, m))(_d, _m)


def test_all_variants_and_odd_shapes():
    """Every variant x every dtype on small odd shapes, ranks 1..4, plain and fused."""
    shapes = [(1,), (3,), (5, 7), (2, 3, 127), (2, 3, 4, 65)]
    for dname, dtype in DTYPES.items():
        for casting, offset, wd, eps in VARIANTS:
            for shape in shapes:
                w = make_weight(shape[-1], wd, dtype, offset)
                x, r = make(shape, dtype, False, 3.0), make(shape, dtype, False)
                ctx = f"{dname} {shape} {casting} offset={offset} w={wd} eps={eps}"
                check_case(x, None, w, eps, offset, casting, ctx)
                check_case(x, r, w, eps, offset, casting, ctx + " fused")


def test_magnitudes():
    """Tiny and large magnitudes through the ops (eps 0 where it would dominate mean(x^2)).
    fp32/bf16 at 1e-15: x^2 = 1e-30 is still a normal fp32 number. (At 1e-20, x^2 is an fp32
    subnormal, rstd loses ~5 digits in any fp32 evaluation, and "no worse than the naive
    baseline" becomes a coin toss between two equally degraded results; the C tests own that.)"""
    for dtype in DTYPES.values():
        for scale in (1e-3, 1e2) if dtype == torch.float16 else (1e-15, 1e4):
            x = make((33, 300), dtype, False, scale)
            w = make_weight(300, None, dtype, 0.0)
            check_case(x, None, w, 0.0 if scale < 1e-10 else 1e-6, 0.0, "fp32",
                       f"{dtype} scale={scale}")


def test_rank4_qk_norm_layouts():
    """QK-norm [B, S, H, D] with weight [D]: a strided q slice of a fused qkv projection
    (two row dims, no copy), a collapsible [B, S, H*D(+gap)] view and a column-major matrix (last
    dim not dense: copied)."""
    b, s, h, d = 2, 5, 4, 64
    for dtype in DTYPES.values():
        qkv = torch.randn(b, s, 3 * h, d, device=DEVICE).to(dtype)
        q = qkv[:, :, :h]                      # strides (S*3H*D, 3H*D, D, 1): two row dims
        w = make_weight(d, None, dtype, 0.0)
        check_case(q, None, w, 1e-6, 0.0, "llama", f"{dtype} qkv slice")
        x = make((b, s, h * d), dtype, True)   # strides (S*(N+GAP), N+GAP, 1): no-copy path
        check_case(x, None, make_weight(h * d, None, dtype, 0.0), 1e-6, 0.0, "fp32",
                   f"{dtype} 3-d strided")
        t = torch.randn(d, b * s, device=DEVICE).to(dtype).t()  # column-major: copy path
        check_case(t, None, w, 1e-6, 0.0, "fp32", f"{dtype} transposed")


def _copies_during(fn):
    """Names of aten copy ops that ran inside fn (the shim's contiguous() goes through aten)."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        fn()
    return [e.name for e in prof.events()
            if e.name in ("aten::contiguous", "aten::clone", "aten::copy_")]


def test_api_outputs_follow_memory_order():
    """fusednorm.rms_norm / fused_add_rms_norm on x dense in another order of its leading dims
    (a q/k norm after the transpose: the [B, H, S, D] view of [B, S, H, D] storage; a 3-level
    permutation): y, residual_out and dx come back in x's memory order, as the stock
    (elementwise) norm's do, so that what follows needs no copy; values bitwise those of the
    contiguous call on the same rows. A contiguous x and a slice keep contiguous outputs."""
    seed = torch.initial_seed()
    print(f"memory order: seed {seed}")
    b, s, h, d = 2, 7, 3, 64
    for dtype in DTYPES.values():
        w = make_weight(d, None, dtype, 0.0)
        for name, base, perm in (("[B,H,S,D] of [B,S,H,D]", (b, s, h, d), (0, 2, 1, 3)),
                                 ("3-level permutation", (s, b, h, d), (1, 2, 0, 3))):
            store = torch.randn(base, device=DEVICE).to(dtype)
            x = store.permute(perm).requires_grad_(False)
            assert not x.is_contiguous()
            xg = x.detach().clone().requires_grad_(True)  # contiguous copy of the same values
            xv = store.clone().requires_grad_(True)
            xp = xv.permute(perm)
            y = fusednorm.rms_norm(xp, w, 1e-6, casting="llama")
            want = fusednorm.rms_norm(xg, w, 1e-6, casting="llama")
            ctx = f"{dtype} {name}"
            assert y.stride() == xp.stride(), f"{ctx}: y strides {y.stride()}, x {xp.stride()}"
            assert bits_equal(y, want), f"{ctx}: y differs from the contiguous call"
            dy = torch.randn(y.shape, device=DEVICE).to(dtype)
            (dx,) = torch.autograd.grad(y, xp, dy)
            (dxw,) = torch.autograd.grad(want, xg, dy)
            assert dx.stride() == xp.stride(), f"{ctx}: dx strides {dx.stride()}, x {xp.stride()}"
            assert bits_equal(dx, dxw), f"{ctx}: dx differs from the contiguous call"
            r = torch.randn(base, device=DEVICE).to(dtype).permute(perm)
            yf, sf = fusednorm.fused_add_rms_norm(x, r, w, 1e-6)
            wyf, wsf = fusednorm.fused_add_rms_norm(x.contiguous(), r.contiguous(), w, 1e-6)
            assert yf.stride() == x.stride() and sf.stride() == x.stride(), \
                f"{ctx}: fused add strides {yf.stride()} {sf.stride()}, x {x.stride()}"
            assert bits_equal(yf, wyf) and bits_equal(sf, wsf), f"{ctx}: fused add differs"
        c = torch.randn(b, s, h, d, device=DEVICE).to(dtype)
        assert fusednorm.rms_norm(c, w).is_contiguous()
        assert fusednorm.rms_norm(c[:, :, :2], w).is_contiguous()


def test_row_strided_inputs_are_not_copied():
    n = 256
    dtype = torch.bfloat16
    w = make_weight(n, None, dtype, 0.0)
    x = make((8, 3, n), dtype, True)
    assert not x.is_contiguous()
    copies = _copies_during(lambda: ops.rms_norm_fwd(x, w, 1e-6, 0.0, "fp32", None))
    assert not copies, f"row-strided x was copied: {copies}"
    r = make((8, 3, n), dtype, True)
    copies = _copies_during(lambda: ops.fused_add_rms_norm_fwd(x, r, w, 1e-6, 0.0, "fp32", None))
    assert not copies, f"row-strided x/residual were copied: {copies}"
    _, rstd = ops.rms_norm_fwd(x, w, 1e-6, 0.0, "fp32", None)
    dy = make((8, 3, n), dtype, True)
    copies = _copies_during(lambda: ops.rms_norm_bwd(dy, x, w, rstd, 1e-6, 0.0, "fp32", None))
    assert not copies, f"row-strided dy/s were copied: {copies}"
    # The check itself can fail: a layout that needs a copy is seen copying.
    xt = torch.randn(n, 24, device=DEVICE).to(dtype).t()
    assert _copies_during(lambda: ops.rms_norm_fwd(xt, w, 1e-6, 0.0, "fp32", None))


def _nd_layouts(shape, dtype):
    """Views of `shape` [..., N] in layouts that need no copy (name, tensor): transposed storage,
    a slice of a wider fused projection, gaps between dims, size-1 dims, 4 row dims."""
    b, s, h, n = shape
    out = []
    t = torch.randn(b, h, s, n, device=DEVICE).to(dtype)          # [B, H, S, D] storage
    out.append(("transposed [B,H,S,D] storage", t.transpose(1, 2)))
    t = torch.randn(b, s, 3 * h, n, device=DEVICE).to(dtype)      # fused qkv projection
    out.append(("qkv slice", t[:, :, h:2 * h]))
    t = torch.randn(s + 2, b, h, n + 5, device=DEVICE).to(dtype)  # gaps in two dims
    t[..., n:] = float("nan")
    out.append(("permuted with gaps", t[1:s + 1, :, :, :n].permute(1, 0, 2, 3)))
    t = torch.randn(h, 1, s, b, n, device=DEVICE).to(dtype)       # 3 non-mergeable dims, size-1 dim
    out.append(("permuted 5-d", t.permute(3, 1, 2, 0, 4).reshape(b, 1, s, h, n)))
    return out


def _copy_layouts(shape, dtype):
    """Views that are still copied (name, tensor): broadcast rows, more than 4 dims, last dim
    not dense."""
    b, s, h, n = shape
    out = []
    out.append(("expanded rows", torch.randn(1, 1, 1, n, device=DEVICE).to(dtype).expand(b, s, h, n)))
    t = torch.randn(3, 3, 3, 3, 3, n, device=DEVICE).to(dtype)   # gaps between all 5 dims
    out.append(("5 non-mergeable dims", t[:2, 1:, :2, 1:, :2]))
    out.append(("column-major", torch.randn(n, b * s * h, device=DEVICE).to(dtype).t()
                .reshape(b, s, h, n)))
    return out


def test_nd_layouts_bitwise_and_not_copied():
    """Every op on views in N-d row layouts gives the results of the same values contiguous
    (forward and backward, plain / fused add / no weight; bitwise on the CPU, within a few ulp on
    CUDA where the layout may pick another kernel), without a copy where the C API can address
    the rows; the copy fallbacks too."""
    shape = (2, 5, 3, 128)
    seed = torch.initial_seed()

    def same(a, b_, what):
        # The CPU backend has one algorithm: bitwise. On CUDA the kernel follows the layout's
        # 16-byte alignment (kernels/README.md), so a view may run another summation order: a few
        # ulp (residual_out, a rounded sum, is exact either way); an addressing error is far more.
        if DEVICE == "cpu" or what == "residual_out":
            return bits_equal(a, b_)
        if what == "dw":
            return ulp_close(a, b_, 4, 1e-5 if a.dtype == torch.float32 else 1e-2)
        if "rstd" in what:  # an fp32 sum of n squares in another order
            return ulp_close(a.unsqueeze(-1), b_.unsqueeze(-1), 4, row_slack=2.0 ** -14)
        slack = {torch.float32: 2.0 ** -16, torch.float16: 2.0 ** -10}.get(a.dtype, 2.0 ** -7)
        return ulp_close(a, b_, 2, row_slack=slack)
    print(f"nd layouts: seed {seed}")
    for dtype in DTYPES.values():
        views = [(name, v, True) for name, v in _nd_layouts(shape, dtype)]
        views += [(name, v, False) for name, v in _copy_layouts(shape[:3] + (64,), dtype)]
        for name, v, no_copy in views:
            n = v.shape[-1]
            for wname, w in (("weight", make_weight(n, None, dtype, 0.0)), ("no weight", None)):
                ctx = f"{dtype} {name} {wname}"
                c = v.contiguous()
                r = torch.randn(v.shape, device=DEVICE).to(dtype)
                rv = r.transpose(0, -2).contiguous().transpose(0, -2) if v.dim() > 2 else r
                dy = torch.randn(v.shape, device=DEVICE).to(dtype)
                dyv = dy.transpose(1, -2).contiguous().transpose(1, -2)  # dy in its own layout
                ds = torch.randn(v.shape, device=DEVICE).to(dtype)
                want = ops.rms_norm_fwd(c, w, 1e-6, 0.0, "llama", None)
                got = ops.rms_norm_fwd(v, w, 1e-6, 0.0, "llama", None)
                wantf = ops.fused_add_rms_norm_fwd(c, r, w, 1e-6, 0.0, "fp32", None)
                gotf = ops.fused_add_rms_norm_fwd(v, rv, w, 1e-6, 0.0, "fp32", None)
                wantb = ops.rms_norm_bwd(dy, c, w, want[1], 1e-6, 0.0, "llama", None)
                gotb = ops.rms_norm_bwd(dyv, v, w, got[1], 1e-6, 0.0, "llama", None)
                wantfb = ops.fused_add_rms_norm_bwd(dy, wantf[1], ds, w, wantf[2], 1e-6, 0.0, "fp32", None)
                gotfb = ops.fused_add_rms_norm_bwd(dyv, gotf[1], ds.transpose(0, 1).contiguous()
                                                   .transpose(0, 1), w, gotf[2], 1e-6, 0.0, "fp32", None)
                for what, a, b_ in (("y", got[0], want[0]), ("rstd", got[1], want[1]),
                                    ("fused y", gotf[0], wantf[0]), ("residual_out", gotf[1], wantf[1]),
                                    ("fused rstd", gotf[2], wantf[2]), ("dx", gotb[0], wantb[0]),
                                    ("fused dx", gotfb[0], wantfb[0])):
                    assert a.is_contiguous(), f"{ctx}: {what} is not contiguous (the fake kernels say it is)"
                    assert same(a, b_, what), f"{ctx}: {what} differs from the contiguous run"
                if w is not None:
                    assert same(gotb[1], wantb[1], "dw"), f"{ctx}: dw differs"
                    assert same(gotfb[1], wantfb[1], "dw"), f"{ctx}: fused dw differs"
                copies = _copies_during(lambda: (
                    ops.rms_norm_fwd(v, w, 1e-6, 0.0, "llama", None),
                    ops.rms_norm_bwd(dyv, v, w, got[1], 1e-6, 0.0, "llama", None)))
                if no_copy:
                    assert not copies, f"{ctx}: copied ({copies}); strides {v.stride()}, dy {dyv.stride()}"
                else:
                    assert copies, f"{ctx}: expected the documented copy fallback (strides {v.stride()})"


def test_mixed_weight_dtypes():
    """bf16/fp16 x with an fp32 (or other 16-bit) weight; dw comes back in the weight's dtype."""
    for xd, wd in [(torch.bfloat16, torch.float32), (torch.float16, torch.float32),
                   (torch.bfloat16, torch.float16), (torch.float32, torch.bfloat16)]:
        x = make((37, 512), xd, False).requires_grad_()
        r = make((37, 512), xd, False).requires_grad_()
        w = make_weight(512, wd, xd, 0.0).requires_grad_()
        y, res = fusednorm.fused_add_rms_norm(x, r, w)
        assert y.dtype == xd and res.dtype == xd
        (y.float().square().sum() + res.float().sum()).backward()
        assert x.grad.dtype == xd and r.grad.dtype == xd and w.grad.dtype == wd
        check_case(x.detach(), r.detach(), w.detach(), 1e-6, 0.0, "llama", f"x {xd} w {wd}")


def test_autograd_matches_backward_op():
    """The autograd path returns exactly what the backward op computes, to every input."""
    for dtype in DTYPES.values():
        x = make((9, 200), dtype, True).requires_grad_()
        r = make((9, 200), dtype, False).requires_grad_()
        w = make_weight(200, torch.float32, dtype, 1.0).requires_grad_()
        y, res = fusednorm.fused_add_rms_norm(x, r, w, 1e-6, offset=1.0, casting="gemma")
        dy, ds = make(y.shape, dtype, False), make(y.shape, dtype, False)
        torch.autograd.backward([y, res], [dy, ds])
        _, s, rstd = ops.fused_add_rms_norm_fwd(x.detach(), r.detach(), w.detach(), 1e-6, 1.0,
                                                 "gemma", None)
        dx, dw = ops.fused_add_rms_norm_bwd(dy, s, ds, w.detach(), rstd, 1e-6, 1.0, "gemma", None)
        assert bits_equal(x.grad, dx) and bits_equal(r.grad, dx) and bits_equal(w.grad, dw)
        # y unused: residual_out's gradient passes straight through, dw is zero.
        x.grad = r.grad = w.grad = None
        y, res = fusednorm.fused_add_rms_norm(x, r, w, 1e-6, offset=1.0, casting="gemma")
        res.backward(ds)
        assert bits_equal(x.grad, ds) and bits_equal(r.grad, ds) and not w.grad.any()
        # residual_out unused: ds is None inside, dx is the norm's gradient alone.
        x.grad = r.grad = w.grad = None
        y, res = fusednorm.fused_add_rms_norm(x, r, w, 1e-6, offset=1.0, casting="gemma")
        y.backward(dy)
        dx, dw = ops.fused_add_rms_norm_bwd(dy, s, None, w.detach(), rstd, 1e-6, 1.0, "gemma", None)
        assert bits_equal(x.grad, dx) and bits_equal(w.grad, dw)
        # only the weight needs a gradient
        xw = x.detach()
        w.grad = None
        fusednorm.rms_norm(xw, w).backward(dy)
        _, rstd1 = ops.rms_norm_fwd(xw, w.detach(), 1e-6, 0.0, "fp32", None)
        assert bits_equal(w.grad, ops.rms_norm_bwd(dy, xw, w.detach(), rstd1, 1e-6, 0.0, "fp32",
                                                   None)[1])


def test_eager_fast_path_matches_registered_autograd():
    """fusednorm.rms_norm / fused_add_rms_norm on plain eager tensors use their own
    autograd.Function (call overhead); calling the op itself uses the autograd registered on it
    (what torch.compile and tensor subclasses see). Both must give the same bits everywhere."""
    for dtype in DTYPES.values():
        for w_on in (True, False):
            x = make((7, 96), dtype, True)
            r = make((7, 96), dtype, False)
            w = make_weight(96, torch.float32, dtype, 0.0) if w_on else None
            dy, ds = make((7, 96), dtype, False), make((7, 96), dtype, False)
            runs = []
            for fast in (True, False):
                xg, rg = x.detach().requires_grad_(), r.detach().requires_grad_()
                wg = w.detach().requires_grad_() if w_on else None
                if fast:
                    y1 = fusednorm.rms_norm(xg, wg, 1e-5, casting="llama")
                    y2, res = fusednorm.fused_add_rms_norm(xg, rg, wg, 1e-5, casting="llama")
                else:
                    y1 = ops.rms_norm_fwd(xg, wg, 1e-5, 0.0, "llama", None)[0]
                    y2, res, _ = ops.fused_add_rms_norm_fwd(xg, rg, wg, 1e-5, 0.0, "llama", None)
                torch.autograd.backward([y1, y2, res], [dy, dy, ds])
                runs.append([y1, y2, res, xg.grad, rg.grad] + ([wg.grad] if w_on else []))
            for a, b in zip(*runs):
                assert bits_equal(a, b), f"{dtype} weight={w_on}"
    with torch.no_grad():
        x = make((3, 64), torch.float32, False).requires_grad_()
        assert not fusednorm.rms_norm(x, None).requires_grad


def test_every_tensor_on_one_device():
    """A tensor on another device is refused with the reason, by the fake (meta) kernels (where
    a meta tensor among CPU ones is dispatched) and by the C++ ops (reached directly through the
    CPU kernel here; a CUDA x with a CPU weight reaches it on the GPU)."""
    x = make((2, 4), torch.float32, False)
    meta4, meta2x4 = torch.ones(4, device="meta"), torch.ones(2, 4, device="meta")

    def raises(fn, *needles):
        try:
            fn()
        except RuntimeError as e:
            for needle in ("device mismatch",) + needles:
                assert needle in str(e), f"{needle!r} not in {str(e)!r}"
            return
        raise AssertionError(f"no error; expected a device mismatch naming {needles}")
    if DEVICE == "cpu":
        raises(lambda: fusednorm.rms_norm(x, meta4), "weight", "meta")
        raises(lambda: fusednorm.rms_norm(x.requires_grad_(), meta4), "weight", "meta")
        x.requires_grad_(False)
        raises(lambda: fusednorm.fused_add_rms_norm(x, meta2x4), "residual", "meta")
        raises(lambda: fusednorm.RMSNorm(4, device="meta")(x), "weight", "meta")
        raises(lambda: ops.rms_norm_bwd(x, x, None, torch.ones(2, device="meta"), 1e-6, 0.0,
                                        "fp32", None), "rstd", "meta")
        raises(lambda: ops.fused_add_rms_norm_bwd(x, x, meta2x4, None, torch.ones(2), 1e-6, 0.0,
                                                  "fp32", None), "ds", "meta")
        cpu = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)
        raises(lambda: ops.rms_norm_fwd.default.redispatch(cpu, x, meta4, 1e-6, 0.0, "fp32", None),
               "weight is on meta", "x on cpu", "weight=float32[4] strides (1) on meta")
        raises(lambda: ops.rms_norm_bwd.default.redispatch(
            cpu, x, x, None, torch.ones(2, device="meta"), 1e-6, 0.0, "fp32", None), "rstd")
        raises(lambda: ops.fused_add_rms_norm_fwd.default.redispatch(
            cpu, x, meta2x4, None, 1e-6, 0.0, "fp32", None), "activation")
    else:
        xc = x.to(DEVICE)
        raises(lambda: fusednorm.rms_norm(xc, torch.ones(4)), "weight", "cpu")
        raises(lambda: fusednorm.fused_add_rms_norm(xc, x.cpu()), "cpu")
        raises(lambda: ops.rms_norm_bwd(xc, xc, None, torch.ones(2), 1e-6, 0.0, "fp32", None),
               "rstd")
    # and the same call with every tensor on one device works
    assert fusednorm.rms_norm(x.to(DEVICE), torch.ones(4, device=DEVICE)).shape == (2, 4)


def test_double_backward_raises():
    x = make((4, 64), torch.float32, False).requires_grad_()
    w = make_weight(64, None, torch.float32, 0.0).requires_grad_()
    y = fusednorm.rms_norm(x, w)
    (gx,) = torch.autograd.grad(y.square().sum(), x, create_graph=True)
    try:
        gx.sum().backward()
    except RuntimeError as e:
        assert "double backward" in str(e), str(e)
    else:
        raise AssertionError("double backward did not raise")


def test_torch_func_transforms():
    """torch.func.grad / vmap / jacrev give the bits of eager autograd (plain and fused add, the
    weight's gradient too; a transposed x); vmap(grad) gives per-sample gradients equal to a loop,
    per-sample dw included; vmap of the forward equals the batched call; grad of grad raises."""
    import warnings
    print(f"torch.func: seed {torch.initial_seed()}")
    for dtype in (torch.float32, torch.bfloat16):
        w = make_weight(64, None, dtype, 0.0)
        proj = torch.randn(64, device=DEVICE).to(dtype)
        for name, x in (("contiguous", make((3, 5, 64), dtype, False)),
                        ("transposed", torch.randn(3, 5, 2, 64, device=DEVICE).to(dtype).transpose(1, 2))):
            ctx = f"{dtype} {name}"
            r = torch.randn(x.shape, device=DEVICE).to(dtype)

            def loss(t, w_):
                return (fusednorm.rms_norm(t, w_, 1e-6, casting="llama") * proj).float().sum()

            def loss_add(t, w_):
                y, s = fusednorm.fused_add_rms_norm(t, r, w_, 1e-6)
                return ((y + 2 * s) * proj).float().sum()
            for what, f in (("rms_norm", loss), ("fused add", loss_add)):
                gx, gw = torch.func.grad(f, argnums=(0, 1))(x, w)
                a, b = x.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()
                f(a, b).backward()
                assert bits_equal(gx, a.grad) and bits_equal(gw, b.grad), f"{ctx} {what}: grad differs"
        xs = make((4, 3, 64), dtype, False)
        rs = torch.randn(xs.shape, device=DEVICE).to(dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no batched fallback: the ops have vmap rules
            per = torch.func.vmap(torch.func.grad(
                lambda t, w_: (fusednorm.rms_norm(t, w_) * proj).float().square().sum(), argnums=(0, 1)),
                in_dims=(0, None))(xs, w)
            perf = torch.func.vmap(torch.func.grad(
                lambda t, rr, w_: sum((o * proj).float().square().sum()
                                      for o in fusednorm.fused_add_rms_norm(t, rr, w_)), argnums=(0, 2)),
                in_dims=(0, 0, None))(xs, rs, w)
            yv = torch.func.vmap(lambda t: fusednorm.rms_norm(t, w), in_dims=1)(xs)
        for i in range(xs.shape[0]):
            one = torch.func.grad(lambda t, w_: (fusednorm.rms_norm(t, w_) * proj).float().square().sum(),
                                  argnums=(0, 1))(xs[i], w)
            onef = torch.func.grad(lambda t, w_: sum((o * proj).float().square().sum()
                                                     for o in fusednorm.fused_add_rms_norm(t, rs[i], w_)),
                                   argnums=(0, 1))(xs[i], w)
            assert bits_equal(per[0][i], one[0]) and bits_equal(per[1][i], one[1]), f"{dtype} sample {i}"
            assert bits_equal(perf[0][i], onef[0]) and bits_equal(perf[1][i], onef[1]), f"{dtype} fused sample {i}"
        assert bits_equal(yv, fusednorm.rms_norm(xs.transpose(0, 1).contiguous(), w)), f"{dtype} vmap forward"
    x2 = make((2, 64), torch.float32, False)
    w2 = make_weight(64, None, torch.float32, 0.0)
    jac = torch.func.jacrev(lambda t: fusednorm.rms_norm(t, w2))(x2)
    want = torch.autograd.functional.jacobian(lambda t: fusednorm.rms_norm(t, w2), x2)
    assert bits_equal(jac, want), "jacrev differs from autograd's jacobian"
    try:
        torch.func.grad(lambda t: torch.func.grad(lambda u: fusednorm.rms_norm(u, w2).square().sum())(t).sum())(x2)
    except RuntimeError as e:
        assert "double backward" in str(e), str(e)
    else:
        raise AssertionError("grad of grad did not raise")


def test_determinism():
    """Same inputs, bitwise same outputs (dw included), run after run."""
    for dtype in DTYPES.values():
        x, r = make((1000, 1000), dtype, True), make((1000, 1000), dtype, False)
        w = make_weight(1000, torch.float32, dtype, 0.0)
        a = ops.fused_add_rms_norm_fwd(x, r, w, 1e-6, 0.0, "fp32", None)
        b = ops.fused_add_rms_norm_fwd(x, r, w, 1e-6, 0.0, "fp32", None)
        assert all(bits_equal(p, q) for p, q in zip(a, b))
        dy = make(x.shape, dtype, False)
        ga = ops.fused_add_rms_norm_bwd(dy, a[1], dy, w, a[2], 1e-6, 0.0, "fp32", None)
        gb = ops.fused_add_rms_norm_bwd(dy, a[1], dy, w, a[2], 1e-6, 0.0, "fp32", None)
        assert bits_equal(ga[0], gb[0]) and bits_equal(ga[1], gb[1])


def test_empty_rows():
    for shape in [(0, 64), (2, 0, 64)]:
        x = torch.randn(shape, device=DEVICE).requires_grad_()
        w = torch.randn(64, device=DEVICE).requires_grad_()
        y = fusednorm.rms_norm(x, w)
        assert y.shape == x.shape
        y.sum().backward()
        assert w.grad is not None and w.grad.shape == (64,) and not w.grad.any(), w.grad


def test_nan_inf_propagate():
    x = make((4, 100), torch.float32, False)
    x[1, 7] = float("nan")
    x[2, 3] = float("inf")
    y = fusednorm.rms_norm(x, None)
    assert torch.isnan(y[1]).all() and torch.isfinite(y[0]).all() and torch.isfinite(y[3]).all()
    assert not torch.isfinite(y[2]).all()


def test_errors_are_clear():
    x = make((4, 64), torch.bfloat16, False)
    w = make_weight(64, None, torch.bfloat16, 0.0)

    def raises(fn, *needles):
        try:
            fn()
        except (RuntimeError, ValueError) as e:
            msg = str(e)
            for needle in needles:
                assert needle in msg, f"{needle!r} not in {msg!r}"
            return
        raise AssertionError(f"no error; expected one mentioning {needles}")
    raises(lambda: fusednorm.rms_norm(x, torch.ones(63, dtype=x.dtype, device=DEVICE)),
           "weight", "63")
    raises(lambda: ops.rms_norm_fwd(x.double(), None, 1e-6, 0.0, "fp32", None), "float64")
    raises(lambda: ops.rms_norm_fwd(x.to(torch.complex64), None, 1e-6, 0.0, "fp32", None), "complex64",
           "supported: float32, float16, bfloat16")
    raises(lambda: fusednorm.rms_norm(x, w.to(torch.float8_e4m3fn)), "weight dtype float8_e4m3fn")
    raises(lambda: ops.rms_norm_fwd(x, w, -1.0, 0.0, "fp32", None), "eps", "bfloat16[4, 64]")
    raises(lambda: ops.rms_norm_fwd(x, w, 1e-6, float("nan"), "fp32", None), "offset")
    raises(lambda: ops.rms_norm_fwd(x, w, 1e-6, 0.0, "fp33", None), "casting", "fp33")
    raises(lambda: ops.rms_norm_fwd(x, w, 1e-6, 0.0, "fp32", "fastest"), "mode", "row_packed")
    raises(lambda: fusednorm.rms_norm(x, w, casting="fp33"), "casting")
    raises(lambda: fusednorm.rms_norm(x, w, mode="fastest"), "mode")
    raises(lambda: fusednorm.fused_add_rms_norm(x, x.float(), w), "dtype", "residual=float32")
    raises(lambda: fusednorm.fused_add_rms_norm(x, x[:2], w), "shape")
    raises(lambda: ops.rms_norm_bwd(x, x, w, torch.ones(3, device=DEVICE), 1e-6, 0.0, "fp32",
                                    None), "rstd")
    raises(lambda: ops.rms_norm_fwd(x.new_empty(4, 0), None, 1e-6, 0.0, "fp32", None), "shape")
    if DEVICE.startswith("cuda"):
        raises(lambda: fusednorm.rms_norm(x, w.cpu()), "device")


def test_forced_modes():
    """Every mode name is accepted; a forced mode gives the AUTO result bitwise where the backend
    has one implementation (CPU) and passes the accuracy rules everywhere, or reports that it
    cannot run the shape."""
    for mode in fusednorm.MODES:
        for n in (64, 1000, 4096):
            x = make((50, n), torch.bfloat16, True)
            w = make_weight(n, torch.float32, torch.bfloat16, 0.0)
            try:
                y = fusednorm.rms_norm(x, w, mode=mode)
            except RuntimeError as e:
                assert "forced mode cannot run" in str(e), str(e)
                continue
            if DEVICE == "cpu":
                assert bits_equal(y, fusednorm.rms_norm(x, w))
            try:  # a family may run the forward but not the backward (e.g. multi_wave_cached)
                check_case(x, make((50, n), torch.bfloat16, False), w, 1e-6, 0.0, "fp32",
                           f"mode={mode} N={n}", mode=mode)
            except RuntimeError as e:
                assert "forced mode cannot run" in str(e), str(e)


def test_autocast():
    """Documented: no autocast rule; the ops run in their inputs' dtypes, y in x's dtype."""
    device_type = "cuda" if DEVICE.startswith("cuda") else "cpu"
    for xd in (torch.float32, torch.bfloat16):
        x = make((16, 256), xd, False)
        r = make((16, 256), xd, False)
        w = make_weight(256, torch.float32, xd, 0.0)
        plain = fusednorm.fused_add_rms_norm(x, r, w)
        with torch.autocast(device_type, dtype=torch.bfloat16):
            inside = fusednorm.fused_add_rms_norm(x, r, w)
            lin = torch.nn.functional.linear(x, torch.randn(256, 256, device=DEVICE).to(xd))
            assert lin.dtype == torch.bfloat16  # autocast is really on
            z = fusednorm.rms_norm(lin, w)
        assert all(bits_equal(p, q) for p, q in zip(plain, inside))
        assert z.dtype == torch.bfloat16 and bits_equal(z, fusednorm.rms_norm(lin, w))
        # and gradients flow the same way inside autocast
        xg = x.detach().requires_grad_()
        with torch.autocast(device_type, dtype=torch.bfloat16):
            fusednorm.rms_norm(xg, w).sum().backward()
        assert xg.grad.dtype == xd


def test_rmsnorm_module_matches_torch():
    for shape, eps, affine in [((64,), None, True), ((4, 16), 1e-5, True), (96, 1e-6, False)]:
        ref = torch.nn.RMSNorm(shape, eps=eps, elementwise_affine=affine, device=DEVICE)
        mine = fusednorm.RMSNorm(shape, eps=eps, elementwise_affine=affine, device=DEVICE)
        assert list(ref.state_dict()) == list(mine.state_dict())
        assert mine.normalized_shape == ref.normalized_shape and mine.eps == ref.eps
        if affine:
            with torch.no_grad():
                ref.weight.copy_(torch.randn_like(ref.weight))
            mine.load_state_dict(ref.state_dict())
            assert torch.equal(mine.weight, ref.weight)
            ref.load_state_dict(mine.state_dict())
        tail = (shape,) if isinstance(shape, int) else shape
        for dtype, tol in [(torch.float32, 1e-5), (torch.bfloat16, 2e-2)]:
            x = torch.randn(3, 5, *tail, device=DEVICE).to(dtype)
            m, r = mine.to(dtype), ref.to(dtype)
            a, b = m(x), r(x)
            assert a.dtype == b.dtype and a.shape == b.shape
            err = ((a.float() - b.float()).abs().max() / b.float().abs().max()).item()
            assert err <= tol, f"{shape} {dtype}: {err}"
            mine, ref = m.float(), r.float()
    g = fusednorm.RMSNorm(32, offset=1.0, casting="gemma")
    assert not g.weight.any(), "offset 1 initializes the stored weight to 0 (scale 1)"
    assert "casting='gemma'" in repr(g)
    x = torch.randn(2, 32, device=DEVICE)
    y, res = fusednorm.RMSNorm(32, device=DEVICE)(x, x)
    assert torch.equal(res, x + x)


def test_functional_is_a_drop_in_for_torch():
    """fusednorm.functional.rms_norm: torch.nn.functional.rms_norm's signature, defaults, output
    dtype (with a weight of another dtype, inside and outside autocast) and math (one fp32
    rounding: within one output ulp of torch, gradients within the accuracy rules' spirit)."""
    from fusednorm.functional import fused_add_rms_norm as fadd
    from fusednorm.functional import rms_norm as frms
    F = torch.nn.functional
    device_type = "cuda" if DEVICE.startswith("cuda") else "cpu"
    ulp = {torch.float32: 2 ** -20, torch.bfloat16: 2 ** -7, torch.float16: 2 ** -9}
    for shape in ((96,), (4, 24), 96):
        tail = (shape,) if isinstance(shape, int) else shape
        for xd in DTYPES.values():
            for wd in (None, *DTYPES.values()):
                for eps in (None, 1e-5):
                    for autocast in (False, True):
                        x = make((3, *tail), xd, False)
                        # eps-dominated rows too: eps=None must be torch's (fp32) epsilon
                        x[0] = x[0] * 1e-4
                        w = None if wd is None else (1 + 0.2 * torch.randn(tail, device=DEVICE)).to(wd)
                        with torch.autocast(device_type, dtype=torch.bfloat16, enabled=autocast):
                            a = frms(x, shape, w, eps)
                            b = F.rms_norm(x, tail, w, eps)  # torch wants a tuple
                        what = f"shape={shape} x={xd} w={wd} eps={eps} autocast={autocast}"
                        assert a.dtype == b.dtype and a.shape == b.shape, (what, a.dtype, b.dtype)
                        err = ((a.double() - b.double()).abs()
                               / b.double().abs().clamp_min(1e-2)).max().item()
                        assert err <= 2 * ulp[b.dtype], f"{what}: {err}"
    # gradients against torch's autograd (fp32: close; the C rules judge the kernels elsewhere)
    x = make((5, 4, 24), torch.float32, False).requires_grad_()
    w = (1 + 0.2 * torch.randn(4, 24, device=DEVICE)).requires_grad_()
    dy = make((5, 4, 24), torch.float32, False)
    ga = torch.autograd.grad(frms(x, (4, 24), w), (x, w), dy)
    gb = torch.autograd.grad(F.rms_norm(x, (4, 24), w), (x, w), dy)
    for a, b in zip(ga, gb):
        assert ((a - b).abs().max() / b.abs().max()).item() < 1e-5
    y, s = fadd(x, x, (4, 24), w)
    assert torch.equal(s, x + x) and ((y - F.rms_norm(x + x, (4, 24), w)).abs().max() < 1e-5)
    # float64 has no kernel: torch's result
    xd = make((3, 8), torch.float32, False).double()
    assert torch.equal(frms(xd, [8]), F.rms_norm(xd, [8]))
    for bad in (lambda: frms(x, (25,)), lambda: frms(x, (4, 24), w[0]), lambda: frms(x, ())):
        try:
            bad()
        except RuntimeError as e:
            assert "normalized_shape" in str(e) or "weight" in str(e), str(e)
        else:
            raise AssertionError("shape mismatch accepted")


def test_rmsnorm_default_eps_is_torchs():
    """eps=None: torch uses the fp32 epsilon for bf16/fp16 inputs (its math dtype), not the
    input dtype's; on eps-dominated rows the two differ by far more than a rounding."""
    for dtype in (torch.bfloat16, torch.float16):
        x = (1e-4 * make((4, 64), torch.float32, False)).to(dtype)
        ref, mine = torch.nn.RMSNorm(64, device=DEVICE), fusednorm.RMSNorm(64, device=DEVICE)
        a, b = mine.to(dtype)(x), ref.to(dtype)(x)
        assert (a.float() - b.float()).abs().max() <= 2 ** -6 * b.float().abs().max(), dtype


if __name__ == "__main__":
    sys.exit(harness.main(globals()))
