/*
 * layout.c — the N-d row layout check (layout.h): random layouts against the contiguous run,
 * bitwise, on one backend; and the bad N-d arguments. Offsets here are computed from the shape
 * and strides directly (not through the library's helpers), so the test is an independent oracle.
 */
#include "kernels/tests/layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 0x5A /* storage bytes outside the rows: must survive */
#define POISON 0xFF   /* output bytes inside the rows before a run: NaN in every dtype */

static uint64_t next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static int64_t pick(uint64_t *s, int64_t lo, int64_t hi) { /* inclusive */
  return lo + (int64_t)(next(s) % (uint64_t)(hi - lo + 1));
}

/* One tensor's N-d layout inside its own storage. */
typedef struct {
  int64_t stride;   /* the innermost leading dim's */
  int64_t outer[3]; /* outer[k]: dim k (API order) */
  int64_t offset;   /* elements before row 0 (misalignment) */
  int64_t elems;    /* storage length */
} layout;

static int64_t row_off(const fusednorm_problem *p, const layout *l, int64_t i) {
  int64_t off = l->offset;
  if (p->row_dims <= 1) return off + i * l->stride;
  for (int k = p->row_dims - 1; k >= 0; --k) {
    const int64_t idx = i % p->row_shape[k];
    i /= p->row_shape[k];
    off += idx * (k == p->row_dims - 1 ? l->stride : l->outer[k]);
  }
  return off;
}

/* Storage order a random permutation of the leading dims; each dim's stride spans the dims inside
 * it plus a gap of 0..2 times g elements (g keeps the contiguous run's 16-byte alignment); a
 * size-1 dim sometimes gets an arbitrary stride (never used to address anything). */
static layout make_layout(const fusednorm_problem *p, int64_t g, int misalign, uint64_t *s) {
  layout l;
  memset(&l, 0, sizeof l);
  int perm[4] = {0, 1, 2, 3};
  for (int i = p->row_dims - 1; i > 0; --i) {
    int j = (int)pick(s, 0, i), t = perm[i];
    perm[i] = perm[j], perm[j] = t;
  }
  int64_t span = p->n + g * pick(s, 0, 2), str[4] = {0, 0, 0, 0};
  for (int i = p->row_dims - 1; i >= 0; --i) {
    const int k = perm[i];
    if (p->row_shape[k] == 1 && pick(s, 0, 1)) {
      str[k] = pick(s, 0, 1000);
      continue;
    }
    str[k] = span;
    span = span * p->row_shape[k] + g * pick(s, 0, 2);
  }
  l.stride = str[p->row_dims - 1];
  for (int k = 0; k < p->row_dims - 1; ++k) l.outer[k] = str[k];
  l.offset = misalign;
  l.elems = span + misalign;
  return l;
}

/* Random finite values of moderate size as raw bits (exponent near 0, random sign and mantissa). */
static void fill(void *buf, fusednorm_dtype d, int64_t count, uint64_t *s) {
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t r = next(s);
    if (d == FUSEDNORM_F32) {
      uint32_t u = (uint32_t)(r & 0x807fffffu) | (uint32_t)(124 + (r >> 40) % 6) << 23;
      memcpy((char *)buf + 4 * i, &u, 4);
    } else if (d == FUSEDNORM_BF16) {
      uint16_t u = (uint16_t)((r & 0x807fu) | (uint16_t)(124 + (r >> 40) % 6) << 7);
      memcpy((char *)buf + 2 * i, &u, 2);
    } else {
      uint16_t u = (uint16_t)((r & 0x83ffu) | (uint16_t)(12 + (r >> 40) % 6) << 10);
      memcpy((char *)buf + 2 * i, &u, 2);
    }
  }
}

typedef struct {
  const fn_layout_backend *b;
  void *ptrs[32];
  int count;
  int failed; /* an allocation or copy failed */
} arena;

static void *get(arena *a, const void *host, size_t bytes) {
  void *d = a->b->alloc(bytes ? bytes : 1);
  if (!d || a->count == 32) {
    a->failed = 1;
    if (d) a->b->release(d);
    return NULL;
  }
  a->ptrs[a->count++] = d;
  if (host && a->b->upload(d, host, bytes)) a->failed = 1;
  return d;
}
static void release_all(arena *a) {
  for (int i = 0; i < a->count; ++i) a->b->release(a->ptrs[i]);
  a->count = 0;
}

/* Host storage of a tensor in its layout: sentinel everywhere, then the rows from dense `src`
 * (NULL: poison, for an output). */
static unsigned char *scatter(const fusednorm_problem *p, const layout *l, const void *src, size_t es) {
  unsigned char *h = (unsigned char *)malloc((size_t)l->elems * es);
  if (!h) return NULL;
  memset(h, SENTINEL, (size_t)l->elems * es);
  for (int64_t i = 0; i < p->rows; ++i) {
    unsigned char *row = h + (size_t)row_off(p, l, i) * es;
    if (src) memcpy(row, (const char *)src + (size_t)(i * p->n) * es, (size_t)p->n * es);
    else memset(row, POISON, (size_t)p->n * es);
  }
  return h;
}

/* An element's bits as a monotonic integer (sign-magnitude to two's order), so that the distance
 * of two finite values of one dtype is their distance in ulp; a NaN is far from everything. */
static int64_t ordered(const unsigned char *e, size_t es) {
  uint32_t u = 0;
  memcpy(&u, e, es); /* little-endian: the element's bits in the low bytes */
  const int bits = (int)es * 8;
  const uint32_t sign = 1u << (bits - 1), mag = u & (sign - 1);
  return (u & sign) ? -(int64_t)mag : (int64_t)mag;
}
static int is_nan_bits(const unsigned char *e, fusednorm_dtype d) {
  uint32_t u = 0;
  memcpy(&u, e, fusednorm_dtype_size(d));
  switch (d) {
    case FUSEDNORM_F32: return (u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu);
    case FUSEDNORM_F16: return (u & 0x7C00u) == 0x7C00u && (u & 0x03FFu);
    default: return (u & 0x7F80u) == 0x7F80u && (u & 0x007Fu);
  }
}
/* An element as a float (dw's absolute tolerance). */
static float as_float(const unsigned char *e, fusednorm_dtype d) {
  uint32_t u = 0;
  float f;
  if (d == FUSEDNORM_F32) return memcpy(&f, e, 4), f;
  memcpy(&u, e, 2);
  if (d == FUSEDNORM_BF16) {
    u <<= 16;
    return memcpy(&f, &u, 4), f;
  }
  const uint32_t sign = (u & 0x8000u) << 16, ex = (u >> 10) & 0x1F, man = u & 0x3FF;
  if (ex == 0x1F) u = sign | 0x7F800000u | (man << 13);
  else if (ex == 0) {
    f = (float)man * 5.9604644775390625e-8f; /* 2^-24 */
    return sign ? -f : f;
  } else u = sign | ((ex + 112) << 23) | (man << 13);
  return memcpy(&f, &u, 4), f;
}
/* Two elements agree: bitwise, or (tol > 0) within tol ulp, NaN only with NaN. */
static int close_elems(const unsigned char *a, const unsigned char *b, fusednorm_dtype d, int64_t tol) {
  const size_t es = fusednorm_dtype_size(d);
  if (memcmp(a, b, es) == 0) return 1;
  if (tol == 0 || is_nan_bits(a, d) || is_nan_bits(b, d)) return 0;
  const int64_t da = ordered(a, es) - ordered(b, es);
  return (da < 0 ? -da : da) <= tol;
}

/* Compare an output's storage with the dense contiguous result (bitwise, or within tol ulp);
 * every byte outside the rows must still be the sentinel. Returns 1 on a match. */
static int same_output(const fusednorm_problem *p, const layout *l, const unsigned char *got,
                       const unsigned char *want, fusednorm_dtype d, int64_t tol, const double *scale,
                       const char *what, char *why, size_t wl) {
  const size_t es = fusednorm_dtype_size(d);
  unsigned char *mask = (unsigned char *)calloc((size_t)l->elems, 1);
  if (!mask) return snprintf(why, wl, "out of memory"), 0;
  int ok = 1;
  for (int64_t i = 0; i < p->rows && ok; ++i) {
    const int64_t o = row_off(p, l, i);
    memset(mask + o, 1, (size_t)p->n);
    /* Another summation order moves rstd and mean(g*h) by ~sqrt(n) fp32 ulp, and dx's
     * g - h*mean(g*h) can cancel: beyond `tol` ulp of the element, allow that much of the row's
     * largest |value| (2^-16 in f32, one ulp of it in 16 bits), or of its terms' magnitude
     * (`scale`, per row, where given: a row whose dx cancels to far below its terms, e.g. 3
     * columns, still moves by the terms' ulp). An addressing error is O(1) of the terms. */
    double rowmax = scale ? scale[i] : 0;
    if (tol)
      for (int64_t j = 0; j < p->n; ++j) {
        const float v = as_float(want + (size_t)(i * p->n + j) * es, d);
        if (v == v && (v < 0 ? -v : v) > rowmax) rowmax = v < 0 ? -v : v;
      }
    const double slack = rowmax * (d == FUSEDNORM_F32 ? 0x1p-16 : d == FUSEDNORM_F16 ? 0x1p-10 : 0x1p-7);
    for (int64_t j = 0; j < p->n && ok; ++j)
      if (!close_elems(got + (size_t)(o + j) * es, want + (size_t)(i * p->n + j) * es, d, tol) &&
          !(tol && fabs((double)as_float(got + (size_t)(o + j) * es, d) -
                        (double)as_float(want + (size_t)(i * p->n + j) * es, d)) <= slack)) {
        snprintf(why, wl, "%s[row %lld, col %lld] differs from the contiguous run%s", what, (long long)i,
                 (long long)j, tol ? " by more than the ulp of another summation order" : "");
        ok = 0;
      }
  }
  for (int64_t e = 0; e < l->elems && ok; ++e)
    for (size_t k = 0; k < es && !mask[e] && ok; ++k)
      if (got[(size_t)e * es + k] != SENTINEL) {
        snprintf(why, wl, "%s: storage element %lld outside every row was written", what, (long long)e);
        ok = 0;
      }
  free(mask);
  return ok;
}

/* Two plans that run the same kernel instance over the same geometry (so the same sums). */
static int same_launch(const fusednorm_launch *a, const fusednorm_launch *b) {
  return a->mode == b->mode && a->kernel == b->kernel && a->block_threads == b->block_threads &&
         a->rows_per_cta == b->rows_per_cta && a->ctas_per_row == b->ctas_per_row && a->cluster == b->cluster &&
         a->grid == b->grid && a->slots_per_thread == b->slots_per_thread && a->chunk == b->chunk &&
         a->stages == b->stages && a->lookahead == b->lookahead && a->weight_smem == b->weight_smem &&
         a->dw_smem == b->dw_smem && a->partial_rows == b->partial_rows && a->unaligned == b->unaligned &&
         a->dw_in_kernel == b->dw_in_kernel && a->load_elems == b->load_elems && a->ds_direct == b->ds_direct &&
         a->narrow == b->narrow;
}

static const int64_t kNs[] = {1, 3, 8, 64, 100, 128, 256, 320, 1000, 1024, 2048, 4096, 6144, 32768};

/* A directed case: these fields fixed, aligned rows with a weight; the rest drawn from its seed. */
typedef struct {
  int64_t n;
  fusednorm_dtype xd, wd;
  int dims;
  int64_t shape[4];
  int fused;
  fusednorm_mode mode;
} directed;

/* Aligned N-d rows that the CUDA forward's kernels reach only with many rows: the lanes forward
 * (rows of <= 32 whole vectors, and at two vectors a lane the plain forward's 33-64) above 64 rows
 * an SM, 12000 rows here (above it on GPUs of up to 187 SMs). */
static const directed kDirected[] = {
    {512, FUSEDNORM_BF16, FUSEDNORM_BF16, 3, {3, 4, 1000, 0}, 0, FUSEDNORM_MODE_AUTO},
    {256, FUSEDNORM_F32, FUSEDNORM_F32, 2, {2, 6000, 0, 0}, 0, FUSEDNORM_MODE_ROW_PACKED},
    {264, FUSEDNORM_F16, FUSEDNORM_F32, 4, {2, 3, 2, 1000}, 0, FUSEDNORM_MODE_AUTO},
    {128, FUSEDNORM_BF16, FUSEDNORM_BF16, 2, {3, 4000, 0, 0}, 1, FUSEDNORM_MODE_AUTO},
    /* The CUDA tiny backward: the contiguous twin of each takes the lean instance (rows of one
     * stride, one row a team), the N-d run rms_norm_bwd_tiny; one case per instance family (1
     * column a lane at 1 and 4 lanes, 2, 4 and 8 columns a lane), fused and plain. */
    {1, FUSEDNORM_BF16, FUSEDNORM_BF16, 3, {2, 3, 5, 0}, 1, FUSEDNORM_MODE_AUTO},
    {3, FUSEDNORM_F32, FUSEDNORM_BF16, 2, {5, 6, 0, 0}, 0, FUSEDNORM_MODE_AUTO},
    {64, FUSEDNORM_BF16, FUSEDNORM_BF16, 4, {1, 2, 3, 2}, 1, FUSEDNORM_MODE_AUTO},
    {100, FUSEDNORM_F16, FUSEDNORM_F32, 2, {4, 7, 0, 0}, 0, FUSEDNORM_MODE_AUTO},
    {256, FUSEDNORM_F32, FUSEDNORM_F32, 2, {2, 3, 0, 0}, 1, FUSEDNORM_MODE_AUTO},
};
#define N_DIRECTED (int)(sizeof kDirected / sizeof kDirected[0])

/* One case (directed where f is not NULL); returns 1 on pass, writes the failure into why. */
static int run_case(const fn_layout_backend *b, uint64_t *s, const directed *f, char *desc, size_t dl, char *why,
                    size_t wl) {
  const fusednorm_dtype dts[3] = {FUSEDNORM_F32, FUSEDNORM_F16, FUSEDNORM_BF16};
  fusednorm_dtype xd = dts[pick(s, 0, 2)], wd = dts[pick(s, 0, 2)];
  int64_t n = kNs[pick(s, 0, (int64_t)(sizeof kNs / sizeof kNs[0]) - 1)];
  int D = (int)pick(s, 2, 4);
  if (f) xd = f->xd, wd = f->wd, n = f->n, D = f->dims;
  const size_t es = fusednorm_dtype_size(xd), wes = fusednorm_dtype_size(wd);
  int64_t shape[4] = {1, 1, 1, 1}, rows = 1;
  const int64_t max_rows = n >= 32768 ? 6 : n >= 2048 ? 64 : 600;
  for (int k = 0; k < D; ++k) {
    const int64_t lim = max_rows / rows;
    shape[k] = lim <= 1 ? 1 : pick(s, 1, lim < 12 ? lim : 12);
    rows *= shape[k];
  }
  /* One narrow case in six: 10500-20000 rows (above 64 per SM on GPUs of up to 164 SMs), where
   * the CUDA row-packed forward of aligned rows of whole vectors takes its lanes kernel. */
  if (n <= 256 && pick(s, 0, 5) == 0) {
    rows = 1;
    for (int k = 0; k < D; ++k) {
      shape[k] = k == 0 ? pick(s, 3, 4) : k == D - 1 ? pick(s, 3500, 5000) : 1;
      rows *= shape[k];
    }
  }
  if (f) {
    rows = 1;
    for (int k = 0; k < 4; ++k) shape[k] = k < D ? f->shape[k] : 1, rows *= shape[k];
  }
  fusednorm_problem pc = fusednorm_problem_init(rows, n, xd, wd);
  pc.casting = (fusednorm_casting)pick(s, 0, 2);
  pc.offset = pc.casting == FUSEDNORM_CAST_GEMMA ? 1.0f : 0.0f;
  pc.has_weight = pick(s, 0, 3) != 0;
  pc.has_residual = (int)pick(s, 0, 1);
  pc.mode = (fusednorm_mode)pick(s, 0, FUSEDNORM_MODE_COUNT_ - 1);
  int misalign = pick(s, 0, 3) == 0;
  if (f) pc.has_weight = 1, pc.has_residual = f->fused, pc.mode = f->mode, misalign = 0;
  /* Gaps keep the contiguous run's alignment: multiples of 16 bytes where its rows are aligned. */
  const int64_t vec = (int64_t)(16 / es), g = misalign || n % vec ? 1 : vec;
  const int with_ds = pc.has_residual && pick(s, 0, 3) != 0;
  fusednorm_problem pn = pc;
  pn.row_dims = D;
  for (int k = 0; k < 4; ++k) pn.row_shape[k] = k < D ? shape[k] : 0;
  snprintf(desc, dl, "%s/%s n=%lld shape=[%lld,%lld,%lld,%lld] dims=%d %s%s%s%s mode=%s", fusednorm_dtype_name(xd),
           fusednorm_dtype_name(wd), (long long)n, (long long)shape[0], (long long)shape[1], (long long)shape[2],
           (long long)shape[3], D, pc.has_weight ? "weight" : "no-weight", pc.has_residual ? " fused" : "",
           with_ds ? "+ds" : "", misalign ? " misaligned" : "", fusednorm_mode_name(pc.mode));

  /* Layouts: x r y ro dy ds dx; the contiguous twin of each is offset `misalign`, stride n. */
  enum { X, R, Y, RO, DY, DS, DX, T_ };
  static const char *names[T_] = {"x", "residual", "y", "residual_out", "dy", "ds", "dx"};
  layout L[T_], C[T_];
  for (int t = 0; t < T_; ++t) {
    L[t] = make_layout(&pn, g, misalign, s);
    memset(&C[t], 0, sizeof C[t]);
    C[t].stride = n, C[t].offset = misalign, C[t].elems = rows * n + misalign;
  }
  const int64_t M = rows * n;
  unsigned char *dense = (unsigned char *)malloc((size_t)M * es * 4 + (size_t)n * wes);
  if (!dense) return snprintf(why, wl, "out of memory"), 0;
  unsigned char *hx = dense, *hr = hx + M * es, *hdy = hr + M * es, *hds = hdy + M * es, *hw = hds + M * es;
  fill(hx, xd, M, s), fill(hr, xd, M, s), fill(hdy, xd, M, s), fill(hds, xd, M, s), fill(hw, wd, n, s);

  int ok = 1;
  arena A = {b, {0}, 0, 0};
  /* Results of both runs on the host: y, ro, dx as dense [rows x n]; rstd; dw. */
  unsigned char *res[2][3] = {{0}}, *rs[2] = {0}, *dws[2] = {0};
  fusednorm_layout lay[2][2]; /* [run][forward, backward] */
  fusednorm_problem ran[2][2]; /* the problems each run ran (a forced mode's AUTO fallback included) */
  memset(lay, 0, sizeof lay);
  memset(ran, 0, sizeof ran);
  for (int run = 0; run < 2 && ok; ++run) {
    const layout *l = run ? L : C;
    fusednorm_problem pf = run ? pn : pc, pb = pf;
    unsigned char *host[T_];
    const void *src[T_] = {hx, hr, NULL, NULL, hdy, hds, NULL};
    for (int t = 0; t < T_; ++t) host[t] = scatter(&pf, &l[t], src[t], es);
    void *dev[T_];
    for (int t = 0; t < T_; ++t) dev[t] = host[t] ? get(&A, host[t], (size_t)l[t].elems * es) : NULL;
    void *dw_dev = get(&A, NULL, (size_t)n * wes), *w_dev = get(&A, hw, (size_t)n * wes);
    float *rstd_dev = (float *)get(&A, NULL, (size_t)rows * 4);
    size_t wsb = 0;
    if (A.failed) {
      snprintf(why, wl, "backend allocation or upload failed");
      ok = 0;
    }
    if (ok) {
      fusednorm_fwd_args fa;
      memset(&fa, 0, sizeof fa);
      fa.x = (char *)dev[X] + l[X].offset * es, fa.x_stride = l[X].stride;
      fa.residual = pf.has_residual ? (char *)dev[R] + l[R].offset * es : NULL, fa.residual_stride = l[R].stride;
      fa.weight = pf.has_weight ? w_dev : NULL;
      fa.y = (char *)dev[Y] + l[Y].offset * es, fa.y_stride = l[Y].stride;
      fa.residual_out = pf.has_residual ? (char *)dev[RO] + l[RO].offset * es : NULL;
      fa.residual_out_stride = l[RO].stride;
      fa.rstd = rstd_dev;
      memcpy(fa.x_outer, l[X].outer, sizeof fa.x_outer), memcpy(fa.residual_outer, l[R].outer, sizeof fa.x_outer);
      memcpy(fa.y_outer, l[Y].outer, sizeof fa.x_outer), memcpy(fa.residual_out_outer, l[RO].outer, sizeof fa.x_outer);
      if (fusednorm_forward_layout(&pf, &fa, &lay[run][0]) != FUSEDNORM_OK) memset(&lay[run][0], 0, sizeof lay[run][0]);
      fusednorm_status st = b->forward(&pf, &fa);
      if (st == FUSEDNORM_ERR_MODE_UNSUPPORTED && pf.mode != FUSEDNORM_MODE_AUTO) {
        pf.mode = FUSEDNORM_MODE_AUTO; /* the forced family cannot run it: both runs in AUTO */
        st = b->forward(&pf, &fa);
      }
      if (st != FUSEDNORM_OK) snprintf(why, wl, "run %d forward: %s", run, fusednorm_status_string(st)), ok = 0;
      ran[run][0] = pf;
      fusednorm_bwd_args ba;
      memset(&ba, 0, sizeof ba);
      const int s_t = pf.has_residual ? RO : X;
      ba.dy = (char *)dev[DY] + l[DY].offset * es, ba.dy_stride = l[DY].stride;
      ba.s = (char *)dev[s_t] + l[s_t].offset * es, ba.s_stride = l[s_t].stride;
      ba.ds = with_ds ? (char *)dev[DS] + l[DS].offset * es : NULL, ba.ds_stride = l[DS].stride;
      ba.weight = pf.has_weight ? w_dev : NULL;
      ba.rstd = rstd_dev;
      ba.dx = (char *)dev[DX] + l[DX].offset * es, ba.dx_stride = l[DX].stride;
      ba.dw = pf.has_weight ? dw_dev : NULL;
      memcpy(ba.dy_outer, l[DY].outer, sizeof ba.dy_outer), memcpy(ba.s_outer, l[s_t].outer, sizeof ba.dy_outer);
      memcpy(ba.ds_outer, l[DS].outer, sizeof ba.dy_outer), memcpy(ba.dx_outer, l[DX].outer, sizeof ba.dy_outer);
      if (ok) {
        fusednorm_problem pa = pb;
        pa.mode = FUSEDNORM_MODE_AUTO;
        size_t w1 = 0, w2 = 0;
        if (b->workspace_size(&pb, &w1) != FUSEDNORM_OK) w1 = 0;
        if (b->workspace_size(&pa, &w2) != FUSEDNORM_OK) w2 = 0;
        wsb = w1 > w2 ? w1 : w2;
        ba.workspace = wsb ? get(&A, NULL, wsb) : NULL, ba.workspace_bytes = wsb;
        if (fusednorm_backward_layout(&pb, &ba, &lay[run][1]) != FUSEDNORM_OK) memset(&lay[run][1], 0, sizeof lay[run][1]);
        st = A.failed ? FUSEDNORM_ERR_OUT_OF_MEMORY : b->backward(&pb, &ba);
        if (st == FUSEDNORM_ERR_MODE_UNSUPPORTED && pb.mode != FUSEDNORM_MODE_AUTO) {
          pb.mode = FUSEDNORM_MODE_AUTO;
          st = b->backward(&pb, &ba);
        }
        if (st != FUSEDNORM_OK) snprintf(why, wl, "run %d backward: %s", run, fusednorm_status_string(st)), ok = 0;
        ran[run][1] = pb;
      }
    }
    /* Bring the outputs back: storage for y, ro, dx; rstd; dw. */
    const int outs[3] = {Y, RO, DX};
    for (int o = 0; o < 3 && ok; ++o) {
      const int t = outs[o];
      if (t == RO && !pc.has_residual) continue;
      if (b->download(host[t], dev[t], (size_t)l[t].elems * es)) snprintf(why, wl, "download failed"), ok = 0;
    }
    rs[run] = (unsigned char *)malloc((size_t)rows * 4 + (size_t)n * wes);
    if (ok && rs[run]) {
      dws[run] = rs[run] + rows * 4;
      if (b->download(rs[run], rstd_dev, (size_t)rows * 4) ||
          (pc.has_weight && b->download(dws[run], dw_dev, (size_t)n * wes)))
        snprintf(why, wl, "download failed"), ok = 0;
    } else if (ok) {
      snprintf(why, wl, "out of memory"), ok = 0;
    }
    if (ok && run == 0) { /* the contiguous results, dense */
      for (int o = 0; o < 3; ++o) res[0][o] = host[outs[o]], host[outs[o]] = NULL;
    } else if (ok) {
      /* The same kernels ran (bitwise) unless the backend picks them by layout and the layouts
       * differ or rows are head-split (see layout.h). Then: y, dx within 2 ulp or a small part of
       * the row's largest value (same_output); residual_out is exact either way; rstd within
       * 4 ulp or 2^-14 relative (an fp32 sum of n squares in another order); dw
       * (fp32 sums over rows in another order, then one rounding) within 4 ulp of its dtype, or
       * absolutely within 1e-5 of the largest |dw| (f32) or one 16-bit ulp of it (cancellation),
       * plus, with a 16-bit x, one ulp of x's dtype of it: in LLAMA casting dw sums dy * RN_T(h),
       * and an rstd a few fp32 ulp away flips the rounding of some h by one ulp of T (measured:
       * f16 x, 56 rows, dw 45.1984 vs 45.1995 with the largest |dw| 71.6). */
      int same_plan = !b->layout_picks_kernel;
      if (!same_plan) {
        same_plan = 1;
        for (int dir = 0; dir < 2; ++dir) {
          const fusednorm_layout *u = &lay[0][dir], *v = &lay[1][dir];
          if (u->aligned16 != v->aligned16 || u->congruent16 != v->congruent16 || u->align_bytes != v->align_bytes ||
              (u->congruent16 && !u->aligned16) || (v->congruent16 && !v->aligned16))
            same_plan = 0;
          if (b->plan != NULL && same_plan) {
            fusednorm_launch pu, pv;
            memset(&pu, 0, sizeof pu), memset(&pv, 0, sizeof pv);
            if (b->plan(&ran[0][dir], dir, u, &pu) != FUSEDNORM_OK || b->plan(&ran[1][dir], dir, v, &pv) != FUSEDNORM_OK ||
                !same_launch(&pu, &pv))
              same_plan = 0;
          }
        }
      }
      /* dx's terms per row: rstd * max|g| * (1 + max|h|^2) bounds both g and h * mean(g*h), with
       * |s| <= |x| + |r| and g = dy * w_eff (the contiguous run's inputs and rstd) */
      double *dxs = (double *)calloc((size_t)(rows > 0 ? rows : 1), sizeof(double));
      for (int64_t i = 0; dxs && i < rows; ++i) {
        const double rstd = fabs((double)as_float(rs[0] + i * 4, FUSEDNORM_F32));
        double gmax = 0, smax = 0;
        for (int64_t j = 0; j < n; ++j) {
          const size_t e = (size_t)(i * n + j) * es;
          const double w = pc.has_weight ? fabs((double)as_float(hw + j * wes, wd) + pc.offset) : 1.0;
          const double g = fabs((double)as_float(hdy + e, xd)) * w;
          const double sv = fabs((double)as_float(hx + e, xd)) + (pc.has_residual ? fabs((double)as_float(hr + e, xd)) : 0.0);
          if (g == g && g > gmax) gmax = g;
          if (sv == sv && sv > smax) smax = sv;
        }
        dxs[i] = rstd * gmax * (1.0 + (smax * rstd) * (smax * rstd));
        if (!(dxs[i] < INFINITY)) dxs[i] = 0; /* non-finite rows: the bitwise / ulp checks only */
      }
      for (int o = 0; o < 3 && ok; ++o) {
        if (outs[o] == RO && !pc.has_residual) continue;
        ok = same_output(&pn, &L[outs[o]], host[outs[o]], res[0][o] + misalign * es, xd,
                         same_plan || outs[o] == RO ? 0 : 2, outs[o] == DX ? dxs : NULL, names[outs[o]], why, wl);
      }
      free(dxs);
      for (int64_t i = 0; i < rows && ok; ++i) {
        const float a = as_float(rs[0] + i * 4, FUSEDNORM_F32), c = as_float(rs[1] + i * 4, FUSEDNORM_F32);
        if (!close_elems(rs[0] + i * 4, rs[1] + i * 4, FUSEDNORM_F32, same_plan ? 0 : 4) &&
            !(!same_plan && fabs((double)a - (double)c) <= 0x1p-14 * fabs((double)a)))
          snprintf(why, wl, "rstd[%lld] differs", (long long)i), ok = 0;
      }
      if (ok && pc.has_weight) {
        double dmax = 0;
        for (int64_t j = 0; j < n; ++j) {
          const float v = as_float(dws[0] + j * wes, wd);
          if (v == v && (v < 0 ? -v : v) > dmax) dmax = v < 0 ? -v : v;
        }
        for (int64_t j = 0; j < n && ok; ++j) {
          if (close_elems(dws[0] + j * wes, dws[1] + j * wes, wd, same_plan ? 0 : 4)) continue;
          const float a = as_float(dws[0] + j * wes, wd), c = as_float(dws[1] + j * wes, wd);
          const double xulp = xd == FUSEDNORM_F16 ? 0x1p-10 : xd == FUSEDNORM_BF16 ? 0x1p-7 : 0.0;
          if (!same_plan && a == a && c == c &&
              (a > c ? a - c : c - a) <= 1e-5 * dmax + (wd == FUSEDNORM_F32 ? 0 : 1e-2 * dmax) + xulp * dmax)
            continue;
          snprintf(why, wl, "dw[%lld] differs", (long long)j), ok = 0;
        }
      }
    }
    for (int t = 0; t < T_; ++t) free(host[t]);
    release_all(&A);
  }
  for (int r = 0; r < 2; ++r) {
    free(rs[r]);
    for (int o = 0; o < 3; ++o) free(res[r][o]);
  }
  free(dense);
  return ok;
}

int fn_layout_run(const fn_layout_backend *b, uint64_t seed, int cases, int verbose) {
  printf("%s: N-d row layouts, %d cases, seed %llu\n", b->name, cases, (unsigned long long)seed);
  uint64_t s = seed;
  int failed = 0;
  /* the directed cases first (cases 0 .. N_DIRECTED - 1 where there are that many), then random ones */
  for (int c = 0; c < cases; ++c) {
    char desc[256], why[256] = "";
    uint64_t cs = next(&s); /* each case from its own seed: a failure replays alone */
    const int ok = run_case(b, &cs, c < N_DIRECTED ? &kDirected[c] : NULL, desc, sizeof desc, why, sizeof why);
    if (!ok) ++failed;
    if (!ok || verbose) printf("%s layout case %d: %s%s%s\n", ok ? "ok  " : "FAIL", c, desc, ok ? "" : ": ", why);
  }
  printf("%s: N-d row layouts: %d of %d cases failed\n", b->name, failed, cases);
  return failed;
}

/* ---- bad arguments ---------------------------------------------------------------------- */
int fn_layout_bad_args(const fn_layout_backend *b) {
  int failed = 0;
  /* Real buffers, so a call that wrongly runs touches valid memory: rows 2x3, n 4. */
  static float x[64], y[64], w[4], rstd[6], dx[64], dw[4], ws[4096];
  typedef struct {
    const char *what;
    fusednorm_status want;
    int dims;
    int64_t shape[4], rows, stride, outer0, y_outer0;
    int inplace;
  } bad;
  const bad cases[] = {
      {"row_dims 5", FUSEDNORM_ERR_BAD_SHAPE, 5, {1, 2, 3, 1}, 6, 4, 12, 12, 0},
      {"row_dims -1", FUSEDNORM_ERR_BAD_SHAPE, -1, {2, 3, 0, 0}, 6, 4, 12, 12, 0},
      {"shape product != rows", FUSEDNORM_ERR_BAD_SHAPE, 2, {2, 3, 0, 0}, 7, 4, 12, 12, 0},
      {"negative size", FUSEDNORM_ERR_BAD_SHAPE, 2, {-2, -3, 0, 0}, 6, 4, 12, 12, 0},
      {"rows >= 2^31", FUSEDNORM_ERR_BAD_SHAPE, 2, {65536, 32768, 0, 0}, 65536ll * 32768, 4, 12, 12, 0},
      {"negative outer stride", FUSEDNORM_ERR_BAD_STRIDE, 2, {2, 3, 0, 0}, 6, 4, -12, 12, 0},
      {"negative inner stride", FUSEDNORM_ERR_BAD_STRIDE, 2, {2, 3, 0, 0}, 6, -4, 12, 12, 0},
      {"rows overlap (inner stride < n)", FUSEDNORM_ERR_BAD_STRIDE, 2, {2, 3, 0, 0}, 6, 3, 12, 12, 0},
      {"dims overlap (outer stride inside the inner span)", FUSEDNORM_ERR_BAD_STRIDE, 2, {2, 3, 0, 0}, 6, 4, 8, 12, 0},
      {"output dims overlap", FUSEDNORM_ERR_BAD_STRIDE, 2, {2, 3, 0, 0}, 6, 4, 12, 4, 0},
      {"largest offset overflows int64", FUSEDNORM_ERR_BAD_STRIDE, 2, {3, 2, 0, 0}, 6, 4, INT64_MAX / 2 + 1, 12, 0},
      {"y over x (in place)", FUSEDNORM_ERR_ALIASING, 2, {2, 3, 0, 0}, 6, 4, 12, 12, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const bad *c = &cases[i];
    fusednorm_problem p = fusednorm_problem_init(c->rows, 4, FUSEDNORM_F32, FUSEDNORM_F32);
    p.row_dims = c->dims;
    memcpy(p.row_shape, c->shape, sizeof p.row_shape);
    /* Host-side validation only: these pointers are never dereferenced by a correct library. */
    fusednorm_fwd_args fa;
    memset(&fa, 0, sizeof fa);
    fa.x = x, fa.x_stride = c->stride, fa.x_outer[0] = c->outer0;
    fa.weight = w, fa.y = c->inplace ? x : y, fa.y_stride = 4, fa.y_outer[0] = c->y_outer0, fa.rstd = rstd;
    fusednorm_bwd_args ba;
    memset(&ba, 0, sizeof ba);
    ba.dy = x, ba.dy_stride = c->stride, ba.dy_outer[0] = c->outer0;
    ba.s = y, ba.s_stride = 4, ba.s_outer[0] = 12, ba.weight = w, ba.rstd = rstd;
    ba.dx = c->inplace ? x : dx, ba.dx_stride = 4, ba.dx_outer[0] = c->y_outer0, ba.dw = dw;
    ba.workspace = ws, ba.workspace_bytes = sizeof ws;
    const fusednorm_status f = b->forward(&p, &fa), g = b->backward(&p, &ba);
    if (f != c->want || g != c->want) {
      printf("FAIL %s bad N-d args: %s: forward %d, backward %d, want %d (%s)\n", b->name, c->what, (int)f,
             (int)g, (int)c->want, fusednorm_status_string(c->want));
      ++failed;
    }
  }
  /* row_dims 0 is the single-stride case (zero-initialised structs from older callers). */
  fusednorm_problem p = fusednorm_problem_init(6, 4, FUSEDNORM_F32, FUSEDNORM_F32);
  p.row_dims = 0;
  size_t bytes = 0;
  if (b->workspace_size(&p, &bytes) != FUSEDNORM_OK) {
    printf("FAIL %s: row_dims 0 rejected\n", b->name);
    ++failed;
  }
  printf("%s: bad N-d arguments: %d failures\n", b->name, failed);
  return failed;
}
