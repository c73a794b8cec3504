/*
 * fusednorm_ref.c — float64 reference, naive fp32 baseline, error statistics and the accuracy
 * rules (kernels/README.md). The tests, the replay harness and the bench all judge with this file.
 *
 * Must be compiled without -ffast-math: the conversions rely on IEEE round-to-nearest-even.
 */
#include "kernels/ref/fusednorm_ref.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/src/common.h"

/* ------------------------------------------------------------------------------------------ */
/* Formats: significand bits p (with the hidden bit), min normal exponent, the top binade's
 * exponent, max finite value. */
typedef struct {
  int p;
  int emin, emax;
  double max;
} fmt_t;

static fmt_t fmt_of(fusednorm_dtype d) {
  switch (d) {
    case FUSEDNORM_F16: return (fmt_t){11, -14, 15, 65504.0};
    case FUSEDNORM_BF16: return (fmt_t){8, -126, 127, 0x1.fep127};
    case FUSEDNORM_F32: default: return (fmt_t){24, -126, 127, FLT_MAX};
  }
}

/* Spacing of `dtype` values in the binade of |v| (subnormal spacing below the normal range).
 * The exponent comes from the bits of v and the power of two is built from bits: the same values
 * as frexp/ldexp (glibc's frexp gives e = 0 for Inf and NaN, kept below), without the libm calls
 * that took ~25% of a quick-matrix seed's CPU time (10.1 -> 7.8 CPU-s for its M = 199 cases). */
static double pow2_bits(int k) { /* 2^k for a normal double exponent, -1022 <= k <= 1023 */
  uint64_t u = (uint64_t)(k + 1023) << 52;
  double d;
  memcpy(&d, &u, 8);
  return d;
}
static double spacing(double v, fmt_t f) {
  uint64_t u;
  memcpy(&u, &v, 8);
  const int be = (int)((u >> 52) & 0x7ff);
  /* leading bit's exponent: v = m * 2^e, m in [0.5, 1) (frexp) has it at e - 1 = be - 1023 for
   * a normal v; subnormal doubles lie far below every format's emin */
  int lead = (v == 0.0 || be == 0) ? f.emin : be == 0x7ff ? -1 : be - 1023;
  if (lead < f.emin) lead = f.emin;
  return pow2_bits(lead - (f.p - 1));
}

/* The helpers below are static inline with the public functions as wrappers: the checks call them
 * several times per element, and an exported function in a shared library is called through the
 * PLT, never inlined. */
/* rnd's rare cases (zero, subnormal, the top binade and beyond, Inf, NaN), out of line. */
static double __attribute__((noinline)) rnd_rare(double v, fusednorm_dtype dtype) {
  if (!isfinite(v) || v == 0.0) return v;
  if (fabs(v) >= 0x1p200) return copysign(INFINITY, v); /* beyond every 16-bit format's range */
  const fmt_t f = fmt_of(dtype);
  /* Round to a multiple of the spacing q, ties to even: v + c lies in the binade of c = 1.5 * 2^52 q,
   * where doubles are exactly q apart, so the addition rounds v to a multiple of q (RNE, and c / q
   * is even, so "even" is the multiple's) and the subtraction is exact. The same values as
   * nearbyint(v / q) * q, without the libm call that took a third of a quick-matrix seed's CPU time. */
  const double c = 0x1.8p52 * spacing(v, f);
  const double r = (v + c) - c;
  if (r == 0.0) return copysign(0.0, v);
  if (fabs(r) > f.max) return copysign(INFINITY, v);
  return r;
}
static inline double rnd(double v, fusednorm_dtype dtype) {
  if (dtype == FUSEDNORM_F32) return isfinite(v) ? (double)(float)v : v; /* hardware RNE, one rounding */
  uint64_t u;
  memcpy(&u, &v, 8);
  const int e = (int)((u >> 52) & 0x7ff) - 1023;
  const fmt_t f = fmt_of(dtype);
  if (e >= f.emin && e < f.emax) {
    /* a normal value below the top binade: round the significand to p bits, ties to even, on the
     * bits (a carry out of the significand moves into the exponent, which is right, and stays
     * below the top binade's end) */
    const int drop = 52 - (f.p - 1);
    u += ((1ull << (drop - 1)) - 1) + ((u >> drop) & 1);
    u &= ~((1ull << drop) - 1);
    memcpy(&v, &u, 8);
    return v;
  }
  return rnd_rare(v, dtype);
}
double fusednorm_round_to(double v, fusednorm_dtype dtype) { return rnd(v, dtype); }

static inline double ulp_of(double v, fusednorm_dtype dtype) {
  if (!isfinite(v)) return INFINITY;
  return spacing(fabs(v), fmt_of(dtype));
}
double fusednorm_ulp_of(double v, fusednorm_dtype dtype) { return ulp_of(v, dtype); }

/* ---- bit conversions --------------------------------------------------------------------- */
static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static inline float bf16_to_float(uint16_t b) { return u2f((uint32_t)b << 16); }
float fusednorm_bf16_to_float(uint16_t b) { return bf16_to_float(b); }

static inline uint16_t float_to_bf16(float f) {
  uint32_t u = f2u(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u); /* quiet NaN */
  u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even */
  return (uint16_t)(u >> 16);
}
uint16_t fusednorm_float_to_bf16(float f) { return float_to_bf16(f); }

static inline float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f) return u2f(sign | 0x7f800000u | (man << 13) | (man ? 0x00400000u : 0));
  if (exp == 0) { /* zero or subnormal: man * 2^-24, exact in float */
    float v = (float)man * 0x1p-24f;
    return sign ? -v : v;
  }
  return u2f(sign | ((exp + 112u) << 23) | (man << 13));
}
float fusednorm_half_to_float(uint16_t h) { return half_to_float(h); }

/* The f16 bits of r, a value f16 represents (r = RN_f16(r)), NaN excepted. */
static inline uint16_t half_bits(double r) {
  const uint16_t sign = signbit(r) ? 0x8000u : 0u;
  const double a = fabs(r);
  if (isinf(a)) return (uint16_t)(sign | 0x7c00u);
  if (a == 0.0) return sign;
  if (a < 0x1p-14) return (uint16_t)(sign | (uint16_t)(a * 0x1p24)); /* subnormal: exact integer */
  /* a normal f16 value: its exponent and top 10 significand bits straight from the double's bits */
  uint64_t u;
  memcpy(&u, &a, 8);
  return (uint16_t)(sign | (uint16_t)(((u >> 52) - 1023 + 15) << 10) | (uint16_t)((u >> 42) & 0x3ffu));
}
static inline uint16_t float_to_half(float f) {
  if (isnan(f)) return (uint16_t)(((f2u(f) >> 16) & 0x8000u) | 0x7e00u);
  return half_bits(rnd((double)f, FUSEDNORM_F16)); /* exact double of a float: one rounding */
}
uint16_t fusednorm_float_to_half(float f) { return float_to_half(f); }

static inline double ld(const void *buf, fusednorm_dtype dtype, int64_t i) {
  switch (dtype) {
    case FUSEDNORM_F32: return ((const float *)buf)[i];
    case FUSEDNORM_F16: return half_to_float(((const uint16_t *)buf)[i]);
    case FUSEDNORM_BF16: return bf16_to_float(((const uint16_t *)buf)[i]);
  }
  return NAN;
}
double fusednorm_load(const void *buf, fusednorm_dtype dtype, int64_t i) { return ld(buf, dtype, i); }

void fusednorm_store(void *buf, fusednorm_dtype dtype, int64_t i, double v) {
  double r = rnd(v, dtype); /* exact in float, so the conversions below don't round */
  switch (dtype) {
    case FUSEDNORM_F32: ((float *)buf)[i] = (float)r; break;
    case FUSEDNORM_F16: ((uint16_t *)buf)[i] = isnan(r) ? float_to_half((float)r) : half_bits(r); break;
    case FUSEDNORM_BF16: ((uint16_t *)buf)[i] = float_to_bf16((float)r); break;
  }
}

/* Order-preserving integer image of a value representable in dtype (for ulp distances). */
static int64_t ordered(double v, fusednorm_dtype dtype) {
  uint32_t bits, sign_mask;
  switch (dtype) {
    case FUSEDNORM_F16: bits = float_to_half((float)v); sign_mask = 0x8000u; break;
    case FUSEDNORM_BF16: bits = float_to_bf16((float)v); sign_mask = 0x8000u; break;
    default: bits = f2u((float)v); sign_mask = 0x80000000u; break;
  }
  int64_t mag = (int64_t)(bits & (sign_mask - 1u));
  return (bits & sign_mask) ? -mag : mag;
}

int64_t fusednorm_ulp_distance(double a, double b, fusednorm_dtype dtype) {
  if (isnan(a) || isnan(b)) return (isnan(a) && isnan(b)) ? 0 : INT64_MAX;
  int64_t d = ordered(a, dtype) - ordered(b, dtype);
  return d < 0 ? -d : d;
}

/* ---- float64 reference ------------------------------------------------------------------- */
static size_t esz(fusednorm_dtype d) { return fusednorm_dtype_size(d); }
static const void *row_ptr(const void *base, fusednorm_dtype d, int64_t row, int64_t stride) {
  return (const char *)base + (size_t)row * (size_t)stride * esz(d);
}
/* Row i of an argument tensor, through the problem's row dims (fn_row_offset, common.h). */
static const void *arg_row(const fusednorm_problem *p, const void *base, int64_t row, int64_t stride,
                           const int64_t *outer) {
  return (const char *)base + (size_t)fn_row_offset(p, row, stride, outer) * esz(p->x_dtype);
}

/* s[j] of one row in double: the fused add rounds to the storage dtype, exactly like a backend.
 * f32: the float sum is IEEE single (one rounding); 16-bit: the double sum is exact. */
static void load_s_row(const fusednorm_problem *p, const fusednorm_fwd_args *a, int64_t i,
                       double *s) {
  const void *xr = arg_row(p, a->x, i, a->x_stride, a->x_outer);
  if (!p->has_residual) {
    for (int64_t j = 0; j < p->n; ++j) s[j] = ld(xr, p->x_dtype, j);
    return;
  }
  const void *rr = arg_row(p, a->residual, i, a->residual_stride, a->residual_outer);
  for (int64_t j = 0; j < p->n; ++j) {
    double x = ld(xr, p->x_dtype, j), r = ld(rr, p->x_dtype, j);
    s[j] = p->x_dtype == FUSEDNORM_F32 ? (double)((float)x + (float)r)
                                       : rnd(x + r, p->x_dtype);
  }
}

static double ref_rstd(const fusednorm_problem *p, const double *s) {
  double ss = 0.0;
  for (int64_t j = 0; j < p->n; ++j) ss += s[j] * s[j];
  return 1.0 / sqrt(ss / (double)p->n + (double)p->eps);
}

static double ref_norm(const fusednorm_problem *p, double s, double rstd) {
  double v = s * rstd;
  return p->casting == FUSEDNORM_CAST_LLAMA ? rnd(v, p->x_dtype) : v;
}

/* The normalized value dw multiplies, from the backward's inputs: for LLAMA the forward's
 * RN_x(fp32 s*rstd), the value y was made from; else h = s*rstd itself. */
static double bwd_norm(const fusednorm_problem *p, double s, double rstd) {
  if (p->casting == FUSEDNORM_CAST_LLAMA) return rnd((float)s * (float)rstd, p->x_dtype);
  return s * rstd;
}

/* The contract's effective weight w_eff = fl32(w + offset) (kernels/README.md), like s = fl(x + r)
 * above: an input of the float64 evaluation, not part of it. The exact w + offset would leave each
 * column's rounding of it (up to half an fp32 ulp of w_eff) in every row's dx: a fixed error per
 * column that the dx bias rule, which takes rows as independent, reads as a bias when the rows
 * are few columns wide. (The sum of two floats rounded once to double is exact or innocuous:
 * 53 >= 2 x 24 + 2 bits, so the cast gives the fp32 sum.) */
static double weight_at(const fusednorm_problem *p, const void *w, int64_t j) {
  return p->has_weight ? (double)(float)(ld(w, p->w_dtype, j) + (double)p->offset) : 1.0;
}

/* Threads (OpenMP) take the reference and the judges below only where a call has this many
 * elements: below it, starting them costs more than the work. Every threaded loop gives the bits
 * of the sequential one (rows apart, or columns apart each summed in row order), or sums fixed
 * blocks of rows (REF_BLOCK_ELEMS each, whatever the thread count) in block order: the same bits
 * for any number of threads. */
#define REF_OMP_MIN_ELEMS (1 << 16)
#define REF_BLOCK_ELEMS (1 << 16)
#define REF_DW_COLS 16 /* columns of one thread's share of a column sum over the rows */
static int ref_threads(int64_t rows, int64_t n) { return rows > 1 && rows * n >= REF_OMP_MIN_ELEMS; }
/* Rows of one block of the blocked loops (at least one). */
static int64_t ref_block_rows(int64_t n) {
  const int64_t r = REF_BLOCK_ELEMS / (n > 0 ? n : 1);
  return r > 0 ? r : 1;
}

/* Column sums over the rows, in row order, columns apart (threads on large calls): dw[j] = sum of
 * dy*n and, where `mag` is not NULL, mag[j] = sum of |dy*n|, with n the normalized value dw
 * multiplies (bwd_norm). `dw` may be NULL too. */
static void dw_column_sums(const fusednorm_problem *p, const fusednorm_bwd_args *a, double *dw, double *mag) {
  const int64_t n = p->n;
#pragma omp parallel for schedule(static) if (ref_threads(p->rows, n) && n > REF_DW_COLS)
  for (int64_t j0 = 0; j0 < n; j0 += REF_DW_COLS) {
    const int64_t j1 = j0 + REF_DW_COLS < n ? j0 + REF_DW_COLS : n;
    for (int64_t j = j0; j < j1; ++j) {
      if (dw) dw[j] = 0.0;
      if (mag) mag[j] = 0.0;
    }
    for (int64_t i = 0; i < p->rows; ++i) {
      const void *sr = arg_row(p, a->s, i, a->s_stride, a->s_outer);
      const void *dyr = arg_row(p, a->dy, i, a->dy_stride, a->dy_outer);
      const double r = (double)a->rstd[i];
      for (int64_t j = j0; j < j1; ++j) {
        const double t = ld(dyr, p->x_dtype, j) * bwd_norm(p, ld(sr, p->x_dtype, j), r);
        if (dw) dw[j] += t;
        if (mag) mag[j] += fabs(t);
      }
    }
  }
}

fusednorm_status fusednorm_ref_forward(const fusednorm_problem *p, const fusednorm_fwd_args *a,
                                       double *y, double *s_out, double *rstd_out) {
  fusednorm_status st = fn_validate_forward(p, a);
  if (st != FUSEDNORM_OK) return st;
  int nomem = 0;
  /* Rows apart: each row's own sums, in order. The row buffer lives in s_out when the caller wants
   * it, else a scratch per thread. */
#pragma omp parallel reduction(| : nomem) if (ref_threads(p->rows, p->n))
  {
    double *scratch = s_out ? NULL : (double *)malloc((size_t)(p->n > 0 ? p->n : 1) * sizeof(double));
    nomem |= !s_out && !scratch;
#pragma omp for schedule(static)
    for (int64_t i = 0; i < p->rows; ++i) {
      double *s = s_out ? s_out + (size_t)i * (size_t)p->n : scratch;
      if (!s) continue;
      load_s_row(p, a, i, s);
      double rstd = ref_rstd(p, s);
      if (rstd_out) rstd_out[i] = rstd;
      if (y)
        for (int64_t j = 0; j < p->n; ++j)
          y[(size_t)i * (size_t)p->n + j] = ref_norm(p, s[j], rstd) * weight_at(p, a->weight, j);
    }
    free(scratch);
  }
  return nomem ? FUSEDNORM_ERR_OUT_OF_MEMORY : FUSEDNORM_OK;
}

fusednorm_status fusednorm_ref_backward(const fusednorm_problem *p, const fusednorm_bwd_args *a,
                                        double *dx, double *dw) {
  fusednorm_status st = fn_validate_backward(p, a);
  if (st != FUSEDNORM_OK) return st;
  const int64_t n = p->n;
  const int par = ref_threads(p->rows, n);
  int nomem = 0;
  /* dx: rows apart. dx is the gradient of the forward with every rounding passed straight
   * through (what autograd computes through HF's module): the normalization's Jacobian at the true
   * point h = s*rstd, also for LLAMA, whose forward rounds h before the weight multiply. */
  if (dx) {
#pragma omp parallel reduction(| : nomem) if (par)
    {
      double *buf = (double *)malloc((size_t)(n > 0 ? n : 1) * 2 * sizeof(double));
      nomem |= !buf;
#pragma omp for schedule(static)
      for (int64_t i = 0; i < p->rows; ++i) {
        if (!buf) continue;
        double *s = buf, *g = buf + n;
        const void *sr = arg_row(p, a->s, i, a->s_stride, a->s_outer);
        const void *dyr = arg_row(p, a->dy, i, a->dy_stride, a->dy_outer);
        const double rstd = (double)a->rstd[i];
        double dot = 0.0;
        for (int64_t j = 0; j < n; ++j) {
          s[j] = ld(sr, p->x_dtype, j);
          g[j] = ld(dyr, p->x_dtype, j) * weight_at(p, a->weight, j);
          dot += g[j] * (s[j] * rstd);
        }
        const double mean = dot / (double)n;
        const void *dsr = a->ds ? arg_row(p, a->ds, i, a->ds_stride, a->ds_outer) : NULL;
        for (int64_t j = 0; j < n; ++j) {
          double v = rstd * (g[j] - s[j] * rstd * mean);
          if (dsr) v += ld(dsr, p->x_dtype, j);
          dx[(size_t)i * (size_t)n + j] = v;
        }
      }
      free(buf);
    }
  }
  /* dw is the gradient with respect to w of y = n*w, so it multiplies the n y was made from. */
  if (dw) dw_column_sums(p, a, dw, NULL);
  return nomem ? FUSEDNORM_ERR_OUT_OF_MEMORY : FUSEDNORM_OK;
}

fusednorm_status fusednorm_ref_dw_scale(const fusednorm_problem *p, const fusednorm_bwd_args *a,
                                        double *scale) {
  fusednorm_status st = fn_validate_backward(p, a);
  if (st != FUSEDNORM_OK) return st;
  if (!scale) return FUSEDNORM_ERR_NULL_POINTER;
  *scale = 0.0;
  double *acc = (double *)calloc((size_t)p->n, sizeof(double));
  if (!acc) return FUSEDNORM_ERR_OUT_OF_MEMORY;
  dw_column_sums(p, a, NULL, acc);
  for (int64_t j = 0; j < p->n; ++j)
    if (isfinite(acc[j]) && acc[j] > *scale) *scale = acc[j];
  free(acc);
  return FUSEDNORM_OK;
}

/* ---- naive fp32 baseline ----------------------------------------------------------------- */
static float naive_norm(const fusednorm_problem *p, float s, float rstd) {
  float v = s * rstd;
  return p->casting == FUSEDNORM_CAST_LLAMA ? (float)rnd(v, p->x_dtype) : v;
}

static float naive_weight(const fusednorm_problem *p, const void *w, int64_t j) {
  return p->has_weight ? (float)ld(w, p->w_dtype, j) + p->offset : 1.0f;
}

static float naive_rstd(const fusednorm_problem *p, const float *s) {
  float ss = 0.0f;
  for (int64_t j = 0; j < p->n; ++j) ss += s[j] * s[j];
  return 1.0f / sqrtf(ss / (float)p->n + p->eps);
}

fusednorm_status fusednorm_naive_forward(const fusednorm_problem *p, const fusednorm_fwd_args *a) {
  fusednorm_status st = fn_validate_forward(p, a);
  if (st != FUSEDNORM_OK) return st;
  const int64_t n = p->n;
  float *s = (float *)malloc((size_t)n * sizeof(float));
  if (!s) return FUSEDNORM_ERR_OUT_OF_MEMORY;
  for (int64_t i = 0; i < p->rows; ++i) {
    const void *xr = arg_row(p, a->x, i, a->x_stride, a->x_outer);
    const void *rr = p->has_residual ? arg_row(p, a->residual, i, a->residual_stride, a->residual_outer) : 0;
    void *ro = p->has_residual ? (void *)arg_row(p, a->residual_out, i, a->residual_out_stride,
                                                 a->residual_out_outer) : NULL;
    for (int64_t j = 0; j < n; ++j) {
      float v = (float)ld(xr, p->x_dtype, j);
      if (rr) {
        v = (float)rnd(v + (float)ld(rr, p->x_dtype, j), p->x_dtype);
        fusednorm_store(ro, p->x_dtype, j, v);
      }
      s[j] = v;
    }
    float rstd = naive_rstd(p, s);
    if (a->rstd) a->rstd[i] = rstd;
    void *yr = (void *)arg_row(p, a->y, i, a->y_stride, a->y_outer);
    for (int64_t j = 0; j < n; ++j)
      fusednorm_store(yr, p->x_dtype, j, naive_norm(p, s[j], rstd) * naive_weight(p, a->weight, j));
  }
  free(s);
  return FUSEDNORM_OK;
}

fusednorm_status fusednorm_naive_backward(const fusednorm_problem *p, const fusednorm_bwd_args *a) {
  fusednorm_status st = fn_validate_backward(p, a);
  if (st != FUSEDNORM_OK) return st;
  const int64_t n = p->n;
  float *buf = (float *)malloc((size_t)n * 3 * sizeof(float));
  if (!buf) return FUSEDNORM_ERR_OUT_OF_MEMORY;
  float *s = buf, *g = buf + n, *dw = buf + 2 * n;
  for (int64_t j = 0; j < n; ++j) dw[j] = 0.0f;
  for (int64_t i = 0; i < p->rows; ++i) {
    const void *sr = arg_row(p, a->s, i, a->s_stride, a->s_outer);
    const void *dyr = arg_row(p, a->dy, i, a->dy_stride, a->dy_outer);
    for (int64_t j = 0; j < n; ++j) s[j] = (float)ld(sr, p->x_dtype, j);
    float rstd = a->rstd[i], dot = 0.0f;
    for (int64_t j = 0; j < n; ++j) { /* dx at the true point h, dw with n (as the reference) */
      float dy = (float)ld(dyr, p->x_dtype, j), h = s[j] * rstd;
      g[j] = dy * naive_weight(p, a->weight, j);
      dot += g[j] * h;
      dw[j] += dy * naive_norm(p, s[j], rstd);
    }
    float mean = dot / (float)n;
    const void *dsr = a->ds ? arg_row(p, a->ds, i, a->ds_stride, a->ds_outer) : NULL;
    void *dxr = (void *)arg_row(p, a->dx, i, a->dx_stride, a->dx_outer);
    for (int64_t j = 0; j < n; ++j) {
      float v = rstd * (g[j] - (s[j] * rstd) * mean);
      if (dsr) v += (float)ld(dsr, p->x_dtype, j);
      fusednorm_store(dxr, p->x_dtype, j, v);
    }
  }
  if (p->has_weight)
    for (int64_t j = 0; j < n; ++j) fusednorm_store(a->dw, p->w_dtype, j, dw[j]);
  free(buf);
  return FUSEDNORM_OK;
}

/* ---- statistics -------------------------------------------------------------------------- */
void fusednorm_err_stats_clear(fusednorm_err_stats *st) {
  memset(st, 0, sizeof(*st));
  st->max_excess = st->max_excess4 = -INFINITY;
  st->worst_row = st->worst_col = -1;
}

/* fusednorm_err_stats_add over its rows [i0, i1). */
static void stats_rows(fusednorm_err_stats *st, const void *got, fusednorm_dtype dtype, int64_t stride,
                       const double *ref, int64_t i0, int64_t i1, int64_t n, int64_t row0) {
  for (int64_t i = i0; i < i1; ++i) {
    const void *gr = row_ptr(got, dtype, i, stride);
    for (int64_t j = 0; j < n; ++j) {
      double r = ref[(size_t)i * (size_t)n + j], rr = rnd(r, dtype);
      double g = ld(gr, dtype, j);
      st->count++;
      if (!isfinite(r)) st->nonfinite_ref++;
      if (!isfinite(rr) || !isfinite(g)) {
        int same = (isnan(rr) && isnan(g)) || (isinf(rr) && rr == g);
        if (!same) st->nan_mismatch++;
        continue;
      }
      int64_t u = fusednorm_ulp_distance(g, rr, dtype);
      st->ulp_hist[u > 2 ? 3 : u]++;
      if (u <= 1) st->within1++;
      if (u > st->max_ulp) st->max_ulp = u;
      double e = fabs(g - r);
      st->sum_sq_err += e * e;
      st->sum_sq_ref += r * r;
      if (fabs(r) > st->max_abs_ref) st->max_abs_ref = fabs(r);
      if (r != 0.0 && e / fabs(r) > st->max_rel) st->max_rel = e / fabs(r);
      double ulp = ulp_of(rr, dtype);
      if (e - ulp > st->max_excess) st->max_excess = e - ulp;
      if (e - 4.0 * ulp > st->max_excess4) st->max_excess4 = e - 4.0 * ulp;
      if (e > st->max_abs || st->worst_row < 0) {
        if (e > st->max_abs) st->max_abs = e;
        st->worst_row = row0 + i;
        st->worst_col = j;
        st->worst_got = g;
        st->worst_ref = r;
      }
    }
  }
}

/* Blocks of rows (ref_block_rows) apart, merged in block order: the worst element is the first of
 * the largest error, as in one pass; the sums of squares are summed by block. */
void fusednorm_err_stats_add(fusednorm_err_stats *st, const void *got, fusednorm_dtype dtype,
                             int64_t stride, const double *ref, int64_t rows, int64_t n,
                             int64_t row0) {
  const int64_t br = ref_block_rows(n), nb = rows > 0 ? (rows + br - 1) / br : 0;
  fusednorm_err_stats *part = nb > 1 ? (fusednorm_err_stats *)malloc((size_t)nb * sizeof *part) : NULL;
  if (!part) {
    stats_rows(st, got, dtype, stride, ref, 0, rows, n, row0);
    return;
  }
#pragma omp parallel for schedule(dynamic) if (ref_threads(rows, n))
  for (int64_t b = 0; b < nb; ++b) {
    fusednorm_err_stats_clear(&part[b]);
    stats_rows(&part[b], got, dtype, stride, ref, b * br, (b + 1) * br < rows ? (b + 1) * br : rows, n, row0);
  }
  for (int64_t b = 0; b < nb; ++b) fusednorm_err_stats_merge(st, &part[b]);
  free(part);
}

void fusednorm_err_stats_merge(fusednorm_err_stats *into, const fusednorm_err_stats *from) {
  into->count += from->count;
  into->nonfinite_ref += from->nonfinite_ref;
  into->nan_mismatch += from->nan_mismatch;
  for (int k = 0; k < 4; ++k) into->ulp_hist[k] += from->ulp_hist[k];
  into->within1 += from->within1;
  if (from->max_ulp > into->max_ulp) into->max_ulp = from->max_ulp;
  into->sum_sq_err += from->sum_sq_err;
  into->sum_sq_ref += from->sum_sq_ref;
  if (from->max_abs_ref > into->max_abs_ref) into->max_abs_ref = from->max_abs_ref;
  if (from->max_rel > into->max_rel) into->max_rel = from->max_rel;
  if (from->max_excess > into->max_excess) into->max_excess = from->max_excess;
  if (from->max_excess4 > into->max_excess4) into->max_excess4 = from->max_excess4;
  if (from->worst_row >= 0 && (into->worst_row < 0 || from->max_abs > into->max_abs)) {
    into->max_abs = from->max_abs;
    into->worst_row = from->worst_row;
    into->worst_col = from->worst_col;
    into->worst_got = from->worst_got;
    into->worst_ref = from->worst_ref;
  }
}

double fusednorm_err_stats_rel_l2(const fusednorm_err_stats *st) {
  if (st->sum_sq_ref > 0.0) return sqrt(st->sum_sq_err / st->sum_sq_ref);
  return st->sum_sq_err > 0.0 ? INFINITY : 0.0;
}

/* ---- rules ------------------------------------------------------------------------------- */
static int say(char *why, size_t len, int ok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int say(char *why, size_t len, int ok, const char *fmt, ...) {
  if (why && len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
  }
  return ok;
}

/* Tolerance table — every allowance and why (u = 2^-24, the fp32 unit roundoff):
 *  FRACTION (dx, 16-bit outputs): >= 99.9% within 1 ulp. Where the naive fp32
 *     computation itself gets fewer right (rows of 1..7 elements, where dx is pure cancellation:
 *     N=1 gives dx = rstd*g*(1 - n^2) with n^2 ~ 1), the need drops to the naive fraction minus
 *     its binomial noise (3 sigma, at least 1%): fp32 math cannot do better there.
 *     The 0.1% allowance itself gets a Poisson margin (2 sigma + 1 event; rare_margin) so that a
 *     single event in a small tensor is not a failure.
 *  FRACTION (f32 outputs): not applied. Each row's fp32 rstd carries ~1-2 ulp of error shared by
 *     every element of the row, so the within-1-ulp fraction is all-or-nothing per row and says
 *     nothing about the implementation; max and L2 below are the meaningful rules.
 *  MAX: |got - ref| <= 2 x naive max error + 1 ulp (16-bit) or + 4 ulp (f32: rstd's sum, sqrt
 *     and divide plus two products are ~4 roundings any fp32 implementation incurs). For f32
 *     outputs the 2 x naive part is at least 2^-22 max|ref| (L2's floor, 4 u of the largest
 *     value): the naive max is one sample of a rounding walk, and on a small tensor whose dx
 *     cancels (dx = rstd (g - h mean(g h)), terms up to ~max|dx|) a lucky sample demanded less
 *     than one rounding of those terms (seen: 5 x 7 f32 without weight, 8.1e-8 against a naive
 *     max of 3.35e-8).
 *  L2: relative L2 <= 1.5 x naive's + 2^-22 (below a few fp32 roundings everything is
 *     fp32-accurate; without the floor a shape where naive happens to be exact demands bitwise
 *     equality with it).
 *  LLAMA y: the intermediate RN_x(s*rstd) flips when fp32 s*rstd lies within rstd's fp32 error of
 *     an x-dtype rounding midpoint (probability ~1e-4 per element); a flip moves y by up to ~2
 *     output ulps, so llama y allows 3 ulp on at most 0.1% of the elements (+ rare_margin).
 *  DW f32: "no worse than the naive fp32 sum". One column is one sample of a random rounding walk:
 *     comparing one sample with one lucky naive sample is a coin toss, so the allowance adds the
 *     typical error of a serial fp32 sum of M terms, u sqrt(M) max|dw| (the error grows like
 *     sqrt(M) — quack's test says the same; with few columns max|dw| can be small by cancellation
 *     while the partial sums were sqrt(M) larger, hence the coefficient 1), plus 4 u max|dw|.
 *     Where the caller supplies the condition scale S = max_j sum_i |dy n| (rule_dw_scaled), the
 *     allowance is u * max(sqrt(M) max|dw|, S): a column that cancels to ~0 has an fp32 error of
 *     about u S whatever its final value (seen: M=199, N=1, 2.4e-6 vs a lucky naive 5.6e-8).
 *  DW 16-bit: within 1 ulp of RN(ref). A column whose sum cancels to a tiny value has a tiny ulp
 *     while its fp32 accumulation error stays proportional to the partial sums, so there 1 ulp is
 *     luck for any fp32 sum (seen on 1-2 of ~35M elements per GPU run, in different modes): the
 *     excess beyond 1 ulp may be the naive sum's excess plus the fp32 walk allowance of DW f32.
 */
#define L2_FLOOR 0x1p-22
#define DX_ULP_FRACTION 0.999
#define U32 0x1p-24

/* Misses allowed beyond the 0.1% rate: rare events are Poisson, so at small counts the 0.1% rate
 * alone would make a single event a failure (7 elements: one miss = 14%). 2 sigma + 1 event. */
static double rare_margin(int64_t count) {
  double expect = (1.0 - DX_ULP_FRACTION) * (double)count;
  return 2.0 * sqrt(expect) + 1.0;
}

static int64_t finite_count(const fusednorm_err_stats *s) {
  return s->ulp_hist[0] + s->ulp_hist[1] + s->ulp_hist[2] + s->ulp_hist[3];
}

static int check_nonfinite(const fusednorm_err_stats *g, char *why, size_t len) {
  if (g->nan_mismatch)
    return say(why, len, 0, "%lld elements differ from the reference's NaN/Inf pattern",
               (long long)g->nan_mismatch);
  return 1;
}

/* The dx-style rule, shared by dx, rstd and f32 y. */
static int rule_vs_naive(fusednorm_dtype dtype, const fusednorm_err_stats *g,
                         const fusednorm_err_stats *nv, const char *what, char *why, size_t len) {
  if (!check_nonfinite(g, why, len)) return 0;
  int64_t fin = finite_count(g), nfin = finite_count(nv);
  if (fin <= 0) return say(why, len, 1, "%s: no finite elements", what);
  double frac = (double)g->within1 / (double)fin;
  if (dtype != FUSEDNORM_F32) {
    double nfrac = nfin > 0 ? (double)nv->within1 / (double)nfin : 1.0;
    double noise = 3.0 * sqrt(nfrac * (1.0 - nfrac) / (double)(nfin > 0 ? nfin : 1));
    double need = DX_ULP_FRACTION - rare_margin(fin) / (double)fin;
    if (nfrac < DX_ULP_FRACTION) need = nfrac - (noise > 0.01 ? noise : 0.01);
    if (frac < need)
      return say(why, len, 0, "%s: only %.4f%% within 1 ulp (need %.4f%%; naive fp32 %.4f%%)",
                 what, 100 * frac, 100 * need, 100 * nfrac);
  }
  double excess = dtype == FUSEDNORM_F32 ? g->max_excess4 : g->max_excess;
  double allow = 2.0 * nv->max_abs;
  if (dtype == FUSEDNORM_F32 && allow < L2_FLOOR * g->max_abs_ref) allow = L2_FLOOR * g->max_abs_ref;
  if (excess > allow)
    return say(why, len, 0,
               "%s: max error %.3g at [%lld,%lld] (got %.9g, ref %.9g) exceeds max(2 x naive fp32 max "
               "%.3g, %s) + %d ulp",
               what, g->max_abs, (long long)g->worst_row, (long long)g->worst_col, g->worst_got,
               g->worst_ref, nv->max_abs, dtype == FUSEDNORM_F32 ? "2^-22 max|ref|" : "0",
               dtype == FUSEDNORM_F32 ? 4 : 1);
  double l2 = fusednorm_err_stats_rel_l2(g), nl2 = fusednorm_err_stats_rel_l2(nv);
  if (l2 > 1.5 * nl2 + L2_FLOOR)
    return say(why, len, 0, "%s: relative L2 %.3g exceeds 1.5 x naive fp32 %.3g", what, l2, nl2);
  return say(why, len, 1, "%s: max ulp %lld, max abs %.3g (naive %.3g), rel L2 %.3g (naive %.3g)",
             what, (long long)g->max_ulp, g->max_abs, nv->max_abs, l2, nl2);
}

int fusednorm_rule_y(const fusednorm_problem *p, const fusednorm_err_stats *g,
                     const fusednorm_err_stats *nv, char *why, size_t len) {
  if (p->x_dtype == FUSEDNORM_F32) return rule_vs_naive(p->x_dtype, g, nv, "y", why, len);
  if (!check_nonfinite(g, why, len)) return 0;
  int64_t beyond = g->ulp_hist[2] + g->ulp_hist[3];
  if (p->casting == FUSEDNORM_CAST_LLAMA && p->has_weight) {
    if (g->max_ulp > 3 || (double)beyond > (1.0 - DX_ULP_FRACTION) * (double)finite_count(g) +
                                                rare_margin(finite_count(g)))
      return say(why, len, 0, "y (llama): %lld elements beyond 1 ulp, max %lld ulp at [%lld,%lld]",
                 (long long)beyond, (long long)g->max_ulp, (long long)g->worst_row,
                 (long long)g->worst_col);
  } else if (beyond) {
    return say(why, len, 0,
               "y: %lld elements beyond 1 ulp of the rounded fp64 result (max %lld ulp; worst abs "
               "at [%lld,%lld]: got %.9g ref %.9g)",
               (long long)beyond, (long long)g->max_ulp, (long long)g->worst_row,
               (long long)g->worst_col, g->worst_got, g->worst_ref);
  }
  return say(why, len, 1, "y: max ulp %lld, %lld of %lld exact", (long long)g->max_ulp,
             (long long)g->ulp_hist[0], (long long)g->count);
}

int fusednorm_rule_dx(const fusednorm_problem *p, const fusednorm_err_stats *g,
                      const fusednorm_err_stats *nv, char *why, size_t len) {
  return rule_vs_naive(p->x_dtype, g, nv, "dx", why, len);
}

int fusednorm_rule_dw(const fusednorm_problem *p, const fusednorm_err_stats *g,
                      const fusednorm_err_stats *nv, char *why, size_t len) {
  return fusednorm_rule_dw_scaled(p, g, nv, 0.0, why, len);
}

int fusednorm_rule_dw_scaled(const fusednorm_problem *p, const fusednorm_err_stats *g,
                             const fusednorm_err_stats *nv, double scale, char *why, size_t len) {
  if (!check_nonfinite(g, why, len)) return 0;
  double sqm = sqrt((double)(p->rows > 0 ? p->rows : 1));
  /* The walk allowance is relative to max|dw|; a cancelling column's fp32 error scales with its
   * partial sums instead (~ u * sum|terms| for random signs), so the scale lifts that floor. */
  double walk = 1.0 * U32 * sqm;
  if (g->max_abs_ref > 0.0 && scale > sqm * g->max_abs_ref) walk = U32 * scale / g->max_abs_ref;
  if (p->w_dtype != FUSEDNORM_F32) {
    int64_t beyond = g->ulp_hist[2] + g->ulp_hist[3];
    double allow = (nv->max_excess > 0 ? nv->max_excess : 0.0) + (walk + 4.0 * U32) * g->max_abs_ref;
    if (beyond && g->max_excess > allow)
      return say(why, len, 0, "dw: %lld elements beyond 1 ulp (max %lld ulp; worst col %lld: got "
                 "%.9g ref %.9g)", (long long)beyond, (long long)g->max_ulp,
                 (long long)g->worst_col, g->worst_got, g->worst_ref);
    return say(why, len, 1, "dw: max ulp %lld", (long long)g->max_ulp);
  }
  double allow = 1.25 * nv->max_abs + (walk + 4.0 * U32) * g->max_abs_ref;
  if (g->max_abs > allow)
    return say(why, len, 0, "dw: max error %.3g at col %lld exceeds naive fp32 %.3g (allowed %.3g)",
               g->max_abs, (long long)g->worst_col, nv->max_abs, allow);
  double l2 = fusednorm_err_stats_rel_l2(g), nl2 = fusednorm_err_stats_rel_l2(nv);
  if (l2 > 1.25 * nl2 + walk + L2_FLOOR)
    return say(why, len, 0, "dw: relative L2 %.3g exceeds naive fp32 %.3g", l2, nl2);
  return say(why, len, 1, "dw: max abs %.3g (naive %.3g), rel L2 %.3g (naive %.3g)", g->max_abs,
             nv->max_abs, l2, nl2);
}

/* ==== strict checks: per-element bounds from error analysis + statistical rules ===============
 *
 * These judge one backend result against float64 element by element, with bounds derived from
 * the fp32 error analysis of the contract's formulas (not from any backend's achieved error), so
 * that they hold for every correct fp32 implementation in any summation order (tree, warp
 * shuffle, per-thread chains, any dw partial-sum grid), and add statistics that a defect too small
 * for a per-element bound cannot hide from. u = 2^-24. Rule by rule, with the reason:
 *
 *  RSTD  per row, |rstd - ref| <= ref * (2 + 2.5 + sum/2) u: the sum of squares' error of ANY
 *        order is below (min(n, 8 sqrt n) + 1) u sum s^2 (Higham & Mary's probabilistic bound,
 *        lambda = 8: failure probability below 1e-13 per row) plus n half-subnormal spacings
 *        (tiny rows square into fp32 subnormals); /n, +eps, sqrt and 1/x add 4 roundings.
 *  RSTD-RMS  (>= 32 rows with normal sums) rms over rows of (rstd - ref)/(ref u) <= 2 + sqrt(n)/20.
 *        A blocked reduction (per-thread or per-lane chains of <= ~4 sqrt(n) terms combined by a
 *        tree, as every warp/CTA reduction and the CPU's 8 lanes are) stays below 1 u; one serial
 *        fp32 chain over the whole row reaches 7 u at n = 4096 and 70 u at n = 65536 and is
 *        rejected: the contract's "fp32 accumulation" means a blocked one.
 *  RSTD-BIAS (>= 32 rows) |mean (rstd - ref)/(ref u)| <= 10 SE + 0.25: every step rounds to
 *        nearest, so a correct rstd is unbiased; a scaled rstd (an rsqrtf-class error, a wrong
 *        divisor) is not.
 *  Y     exact, with the SAVED rstd r (y is made from it) and w' = fl(w + offset): the contract
 *        is a product of three fp32 numbers, so y must be bitwise RN_x(fl(fl(s r) w')) or, for
 *        FP32/GEMMA, the other order RN_x(fl(s fl(r w'))); LLAMA has one order,
 *        RN_x(fl(RN_x(fl(s r)) w')), and no weight is RN_x(fl(s r)). (The CPU and CUDA backends
 *        both compute fl(fl(s r) w').)
 *  DX    with the saved rstd, h = s r, G = dy w' (the contract's w' = fl(w + offset), which
 *        every row shares: its exact value would put a fixed error per column into dx that
 *        rows do not average out), m = mean(G h), A = mean|G h|: the fp32 value lies within
 *        E = r (2|G| + 2|h m|) u + r |h| dm + 2 u |dx| (+ u |dx| with ds)
 *        of the float64 one, dm = 2 u |m| + (min(n, 8 sqrt n) + 4) u A (the dot in any order, its
 *        terms g h with up to 3 roundings each);
 *        16-bit: dx in [RN_x(ref - E), RN_x(ref + E)].
 *  DW    per column, T = sum |dy n|: |fp32 dw - ref| <= (min(M, 8 sqrt M) + 3) u T + M subnormal
 *        spacings (any order of the row sum, any partial-sum grid); 16-bit: the interval of DX.
 *  BIAS  (dx, dw) the mean of the signed error, and of the error times sign(ref) (a magnitude
 *        bias), each normalized per element by its rounding scale (u times the magnitudes that
 *        enter it + one output ulp), must satisfy |mean| <= 10 SE + floor. Rounding to nearest is
 *        unbiased, so a correct result is centred on the reference; +1 ulp on every element, a
 *        scaled dw or a round-toward-zero sum is not. SE: per row (a cluster) for dx, needing
 *        >= 32 rows of >= 16 elements (a row shares its rstd and its mean m, and with one rstd
 *        the products s*r of 16-bit s fall at a fixed set of places in the ulp, so one row's
 *        errors need not average to 0); per column for dw (independent sums), needing >= 32
 *        columns of >= 8 rows. Floors: dx 0.01, dw 0.05 of the normalized unit. y has no bias
 *        rule: it is exact, and its double rounding (LLAMA: RN_x of the exact product of two
 *        16-bit values, whose low bits are not uniform) is biased by design (-0.009 ulp measured
 *        on bf16, M = N = 4096). rstd's floor is 0.25 u for f32 inputs but 3 u for 16-bit ones:
 *        their squares are exact in fp32 and their low bits follow the quadratic residues, so
 *        the roundings of ANY fp32 sum of them are biased by up to ~2 u (measured).
 *  NaN/Inf: an element whose reference is NaN/Inf must be the same NaN/Inf, and vice versa.
 */
#define CHK_LAMBDA 8.0
#define CHK_BIAS_SIGMAS 10.0
#define CHK_MIN_SAMPLES 32
/* Rows shorter than this normalize to values pinned near +-1 (n = 1: h = +-(1 - eps/2s^2)), whose
 * roundings fall at the same place in the ulp every time: no y/dx bias statistic there. */
#define CHK_MIN_N_BIAS 16
#define SUB32 0x1p-149 /* fp32 subnormal spacing */

static double chain_factor(int64_t k) { /* any-order sum of k terms: the u multiplier */
  double s = CHK_LAMBDA * sqrt((double)k);
  return (double)k < s ? (double)k : s;
}

/* Accumulates a mean with its standard error, optionally clustered (one cluster = one row). */
typedef struct {
  double sum, sum_sq;          /* over samples (unclustered) or over cluster sums Z_c (clustered) */
  double sum_zn, sum_nn;       /* clustered: sum Z_c n_c, sum n_c^2 */
  double cur;                  /* the open cluster's sum */
  int64_t cur_n, count, clusters;
} bias_acc;

static void bias_add(bias_acc *b, double z) { b->cur += z, b->cur_n++, b->count++; }
static void bias_close(bias_acc *b) {
  if (!b->cur_n) return;
  const double nc = (double)b->cur_n;
  b->sum += b->cur, b->sum_sq += b->cur * b->cur, b->sum_zn += b->cur * nc, b->sum_nn += nc * nc;
  b->clusters++;
  b->cur = 0.0, b->cur_n = 0;
}
static void bias_add1(bias_acc *b, double z) { b->sum += z, b->sum_sq += z * z, b->count++; }

/* 1 when |mean| <= sigmas SE + floor (or too few samples to judge); *mean, *se for the message. */
static int bias_ok(const bias_acc *b, int clustered, double floor_, double *mean, double *se) {
  *mean = 0.0, *se = 0.0;
  int64_t k = clustered ? b->clusters : b->count;
  if (k < CHK_MIN_SAMPLES || b->count == 0) return 1;
  double n = (double)b->count;
  *mean = b->sum / n;
  if (clustered) {
    /* cluster-robust variance of the mean: k/(k-1) sum over clusters (Z_c - n_c mean)^2 / n^2 */
    double v = b->sum_sq - 2.0 * *mean * b->sum_zn + *mean * *mean * b->sum_nn;
    *se = sqrt((v > 0 ? v : 0) * (double)k / (double)(k - 1)) / n;
  } else {
    double v = (b->sum_sq - n * *mean * *mean) / (n - 1.0);
    *se = sqrt(v > 0 ? v : 0) / sqrt(n);
  }
  return fabs(*mean) <= CHK_BIAS_SIGMAS * *se + floor_;
}

/* Same NaN/Inf class (the reference rounded to dtype vs got); both finite returns 2. */
static int nonfinite_match(double got, double ref_rounded) {
  if (isfinite(got) && isfinite(ref_rounded)) return 2;
  return (isnan(got) && isnan(ref_rounded)) || (isinf(ref_rounded) && got == ref_rounded);
}

/* got (a dtype value) within the rounded interval [RN(lo), RN(hi)] of dtype; rr = RN(ref) for
 * the ref with lo = ref - e, hi = ref + e (e >= 0), computed by the caller anyway. As RN is
 * monotone, got = rr is inside, and so is a got inside [lo, hi]: only the rest rounds both ends. */
static inline int in_interval(double got, double lo, double hi, double rr, fusednorm_dtype d) {
  if (got == rr && lo <= hi) return 1; /* RN(lo) <= RN(ref) = rr <= RN(hi), as lo <= ref <= hi */
  if (lo <= got && got <= hi) return 1;
  return rnd(lo, d) <= got && got <= rnd(hi, d);
}


/* Record the first failure only: the message names the rule, the element and the bound. */
#define CHK_FAIL(...)                                     \
  do {                                                    \
    if (ok) say(why, len, 0, __VA_ARGS__);                \
    ok = 0;                                               \
  } while (0)

/* A block of rows of a judge (ref_block_rows): its verdict, its first failure's message and its
 * sums, merged in block order. The judges stop at the first failure, so only the blocks before the
 * first failing one count: the same message and the same verdict as one pass over the rows. */
typedef struct {
  int ok;
  char msg[1024];
  bias_acc b1, b2;        /* forward: rstd's errors (b1); backward: dx's signed and magnitude errors */
  double r_sq, r_worst;   /* forward: rstd's squared errors, the largest (first of them) */
  int64_t r_rows, y_exact, y_count;
} judge_part;

static void bias_merge(bias_acc *into, const bias_acc *b) {
  into->sum += b->sum, into->sum_sq += b->sum_sq, into->sum_zn += b->sum_zn, into->sum_nn += b->sum_nn;
  into->count += b->count, into->clusters += b->clusters;
}

/* Runs `rows_fn(p, a, i0, i1, scratch, part)` over blocks of rows, threads apart where the call is
 * large (ref_threads), each thread with `scratch_doubles` of scratch; NULL if out of memory. */
typedef void (*judge_rows_fn)(const fusednorm_problem *, const void *, int64_t, int64_t, double *, judge_part *);
static judge_part *judge_blocks(const fusednorm_problem *p, const void *a, judge_rows_fn rows_fn,
                                int64_t scratch_doubles, int64_t *nb_out) {
  const int64_t M = p->rows, br = ref_block_rows(p->n), nb = M > 0 ? (M + br - 1) / br : 0;
  judge_part *part = (judge_part *)calloc((size_t)(nb > 0 ? nb : 1), sizeof *part);
  int nomem = !part;
  if (part) {
#pragma omp parallel reduction(| : nomem) if (nb > 1 && ref_threads(M, p->n))
    {
      double *scratch = (double *)malloc((size_t)(scratch_doubles > 0 ? scratch_doubles : 1) * sizeof(double));
      nomem |= !scratch;
#pragma omp for schedule(dynamic)
      for (int64_t b = 0; b < nb; ++b) {
        part[b].ok = 1;
        if (scratch) rows_fn(p, a, b * br, (b + 1) * br < M ? (b + 1) * br : M, scratch, &part[b]);
      }
      free(scratch);
    }
  }
  if (nomem) {
    free(part);
    return NULL;
  }
  *nb_out = nb;
  return part;
}

/* check_forward over the rows [i0, i1) (`s`: n doubles). */
static void check_forward_rows(const fusednorm_problem *p, const void *args, int64_t i0, int64_t i1, double *s,
                               judge_part *q) {
  const fusednorm_fwd_args *a = (const fusednorm_fwd_args *)args;
  const int64_t n = p->n;
  const fusednorm_dtype xd = p->x_dtype;
  char *why = q->msg;
  const size_t len = sizeof q->msg;
  int ok = 1;
  const int exact = p->casting == FUSEDNORM_CAST_LLAMA || !p->has_weight;
  for (int64_t i = i0; i < i1 && ok; ++i) {
    load_s_row(p, a, i, s);
    double ss = 0.0;
    for (int64_t j = 0; j < n; ++j) ss += s[j] * s[j];
    const double rref = 1.0 / sqrt(ss / (double)n + (double)p->eps);
    const double rgot = a->rstd[i];
    int cls = nonfinite_match(rgot, rnd(rref, FUSEDNORM_F32));
    if (cls == 0) {
      CHK_FAIL("rstd[%lld] = %.9g, reference %.9g (NaN/Inf pattern)", (long long)i, rgot, rref);
      break;
    }
    if (cls == 2 && !isfinite(ss)) { /* an Inf in the row: rstd = 1/Inf = 0 exactly */
      if (rgot != rref) CHK_FAIL("rstd[%lld] = %.9g, reference %.9g", (long long)i, rgot, rref);
    } else if (cls == 2) {
      const double ms = ss / (double)n, den = ms + (double)p->eps;
      const double e_ss = (chain_factor(n) + 1.0) * U32 * ss + (double)n * SUB32;
      const double rel = (e_ss / (double)n + U32 * ms) / den / 2.0 + 2.5 * U32;
      const double err = rref != 0.0 ? (rgot - rref) / rref : (rgot == 0.0 ? 0.0 : INFINITY);
      if (!(fabs(err) <= 1.01 * rel + 2.0 * U32))
        CHK_FAIL("rstd[%lld] = %.9g, reference %.9g: error %.3g u exceeds the any-order bound %.3g u",
                 (long long)i, rgot, rref, err / U32, (1.01 * rel + 2.0 * U32) / U32);
      if (ss > 0x1p-100 * (double)n && isfinite(ss)) { /* no subnormal squares: statistics apply */
        bias_add1(&q->b1, err / U32);
        q->r_sq += (err / U32) * (err / U32), q->r_rows++;
        if (fabs(err / U32) > fabs(q->r_worst)) q->r_worst = err / U32;
      }
    }
    if (!ok) break;
    /* y from the saved rstd */
    const float rf = (float)rgot;
    const void *yr = arg_row(p, a->y, i, a->y_stride, a->y_outer);
    for (int64_t j = 0; j < n; ++j) {
      const double got = ld(yr, xd, j);
      const float wf = p->has_weight ? (float)ld(a->weight, p->w_dtype, j) + p->offset : 1.0f;
      /* (s r) w', and for FP32/GEMMA also s (r w'): the two fp32 evaluation orders */
      float h = (float)s[j] * rf;
      if (p->casting == FUSEDNORM_CAST_LLAMA) h = (float)rnd(h, xd);
      const double want = rnd((double)(h * wf), xd);
      cls = nonfinite_match(got, want);
      /* the second order only when the first does not match */
      const double want2 = exact || (cls == 2 && got == want) ? want : rnd((double)((float)s[j] * (rf * wf)), xd);
      if (cls == 0 || (cls == 2 && got != want && got != want2)) {
        char alt[48] = "";
        if (want2 != want) snprintf(alt, sizeof alt, " or %.9g", want2);
        CHK_FAIL("y[%lld,%lld] = %.9g, want %.9g%s (s %.9g, saved rstd %.9g, w+offset %.9g)",
                 (long long)i, (long long)j, got, want, alt, s[j], (double)rf, (double)wf);
        break;
      }
      if (cls != 2) continue;
      q->y_count++, q->y_exact += got == want;
    }
  }
  q->ok = ok;
}

int fusednorm_check_forward(const fusednorm_problem *p, const fusednorm_fwd_args *a, char *why,
                            size_t len) {
  if (fn_validate_forward(p, a) != FUSEDNORM_OK || !a->rstd)
    return say(why, len, 0, "check_forward: invalid arguments or no saved rstd");
  const int64_t n = p->n;
  const fusednorm_dtype xd = p->x_dtype;
  int64_t nb = 0;
  judge_part *part = judge_blocks(p, a, check_forward_rows, n, &nb);
  if (!part) return say(why, len, 0, "check_forward: out of memory");
  int ok = 1;
  bias_acc rb = {0};
  double r_sq = 0.0, r_worst = 0.0;
  int64_t r_rows = 0, y_exact = 0, y_count = 0;
  for (int64_t b = 0; b < nb && ok; ++b) {
    const judge_part *q = &part[b];
    if (!q->ok) {
      CHK_FAIL("%s", q->msg);
      break;
    }
    bias_merge(&rb, &q->b1);
    r_sq += q->r_sq, r_rows += q->r_rows, y_exact += q->y_exact, y_count += q->y_count;
    if (fabs(q->r_worst) > fabs(r_worst)) r_worst = q->r_worst;
  }
  free(part);
  double mean, se;
  if (ok && r_rows >= CHK_MIN_SAMPLES) {
    const double rms = sqrt(r_sq / (double)r_rows), cap = 2.0 + sqrt((double)n) / 20.0;
    if (rms > cap)
      CHK_FAIL("rstd: rms error %.3g u over %lld rows exceeds %.3g u (blocked-reduction bound at n=%lld; "
               "worst %.3g u)", rms, (long long)r_rows, cap, (long long)n, r_worst);
  }
  if (ok && !bias_ok(&rb, 0, xd == FUSEDNORM_F32 ? 0.25 : 3.0, &mean, &se))
    CHK_FAIL("rstd: mean error %.3g u over %lld rows is biased (SE %.3g u)", mean, (long long)rb.count, se);
  if (ok)
    say(why, len, 1, "strict y/rstd: %lld of %lld y as re-rounded from the saved rstd, rstd rms %.3g u",
        (long long)y_exact, (long long)y_count, r_rows ? sqrt(r_sq / (double)r_rows) : 0.0);
  return ok;
}

/* check_backward's dx over the rows [i0, i1) (`buf`: 2n doubles), with the effective weight `wo`
 * the caller filled once. */
typedef struct {
  const fusednorm_bwd_args *a;
  const double *wo;
} bwd_judge_args;
static void check_backward_rows(const fusednorm_problem *p, const void *args, int64_t i0, int64_t i1, double *buf,
                                judge_part *q) {
  const fusednorm_bwd_args *a = ((const bwd_judge_args *)args)->a;
  const double *wo = ((const bwd_judge_args *)args)->wo;
  const int64_t n = p->n;
  const fusednorm_dtype xd = p->x_dtype;
  double *G = buf, *h = buf + n;
  char *why = q->msg;
  const size_t len = sizeof q->msg;
  int ok = 1;
  bias_acc *xb = &q->b1, *xm = &q->b2;
  for (int64_t i = i0; i < i1 && ok; ++i) {
    const void *sr = arg_row(p, a->s, i, a->s_stride, a->s_outer), *dyr = arg_row(p, a->dy, i, a->dy_stride, a->dy_outer);
    const void *dsr = a->ds ? arg_row(p, a->ds, i, a->ds_stride, a->ds_outer) : NULL;
    const void *dxr = arg_row(p, a->dx, i, a->dx_stride, a->dx_outer);
    const double r = (double)a->rstd[i];
    double dot = 0.0, A = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      const double sj = ld(sr, xd, j), dy = ld(dyr, xd, j);
      h[j] = sj * r, G[j] = dy * wo[j];
      dot += G[j] * h[j], A += fabs(G[j] * h[j]);
    }
    const double m = dot / (double)n;
    A /= (double)n;
    const double dm = 2.0 * U32 * fabs(m) + (chain_factor(n) + 4.0) * U32 * A + SUB32;
    for (int64_t j = 0; j < n; ++j) {
      const double d = r * (G[j] - h[j] * m), ds = dsr ? ld(dsr, xd, j) : 0.0;
      const double ref = d + ds, got = ld(dxr, xd, j);
      const double rr = rnd(ref, xd);
      const int cls = nonfinite_match(got, rr);
      double e = r * ((2.0 * fabs(G[j]) + 2.0 * fabs(h[j] * m)) * U32 + fabs(h[j]) * dm + 4.0 * SUB32) +
                 2.0 * U32 * fabs(d) + 2.0 * SUB32;
      if (dsr) e += U32 * (fabs(d) + fabs(ds));
      e *= 1.02;
      if (cls == 0 || (cls == 2 && !in_interval(got, ref - e, ref + e, rr, xd))) {
        CHK_FAIL("dx[%lld,%lld] = %.9g, reference %.9g, allowed +-%.3g (saved rstd %.9g, row mean(g*h) %.9g)",
                 (long long)i, (long long)j, got, ref, e, r, m);
        break;
      }
      if (cls != 2) continue;
      const double scale = U32 * (r * (fabs(G[j]) + fabs(h[j] * m)) + fabs(ref)) +
                           (rr != 0.0 ? ulp_of(rr, xd) : 0.0);
      if (n >= CHK_MIN_N_BIAS && scale > 0.0 && ref != 0.0) {
        const double z = (got - ref) / scale;
        bias_add(xb, z), bias_add(xm, ref > 0 ? z : -z);
      }
    }
    bias_close(xb), bias_close(xm);
  }
  q->ok = ok;
}

int fusednorm_check_backward(const fusednorm_problem *p, const fusednorm_bwd_args *a, char *why,
                             size_t len) {
  fusednorm_bwd_args va = *a;
  double dummy = 0.0;
  if (!va.dw) va.dw = &dummy; /* dw NULL: not judged (validation wants one with a weight) */
  if (fn_validate_backward(p, &va) != FUSEDNORM_OK)
    return say(why, len, 0, "check_backward: invalid arguments");
  const int64_t n = p->n, M = p->rows;
  const fusednorm_dtype wd = p->w_dtype;
  double *buf = (double *)malloc((size_t)(n > 0 ? n : 1) * 3 * sizeof(double));
  if (!buf) return say(why, len, 0, "check_backward: out of memory");
  double *dw = buf, *T = buf + n, *wo = buf + 2 * n;
  int ok = 1;
  bias_acc xb = {0}, xm = {0}, wb = {0}, wm = {0};
  for (int64_t j = 0; j < n; ++j) wo[j] = weight_at(p, a->weight, j);
  {
    const bwd_judge_args ja = {a, wo};
    int64_t nb = 0;
    judge_part *part = judge_blocks(p, &ja, check_backward_rows, 2 * n, &nb);
    if (!part) {
      free(buf);
      return say(why, len, 0, "check_backward: out of memory");
    }
    for (int64_t b = 0; b < nb && ok; ++b) {
      if (!part[b].ok) {
        CHK_FAIL("%s", part[b].msg);
        break;
      }
      bias_merge(&xb, &part[b].b1), bias_merge(&xm, &part[b].b2);
    }
    free(part);
  }
  if (ok && p->has_weight && a->dw) {
    dw_column_sums(p, a, dw, T); /* the reference dw and its sum of magnitudes */
    const double k = chain_factor(M > 0 ? M : 1) + 3.0;
    for (int64_t j = 0; j < n; ++j) {
      const double got = ld(a->dw, wd, j), ref = dw[j];
      const double rr = rnd(ref, wd);
      const int cls = nonfinite_match(got, rr);
      const double e = 1.02 * (k * U32 * T[j] + (double)(M + 2) * SUB32) + U32 * fabs(ref);
      if (cls == 0 || (cls == 2 && !in_interval(got, ref - e, ref + e, rr, wd))) {
        CHK_FAIL("dw[%lld] = %.9g, reference %.9g, allowed +-%.3g (sum |dy n| %.9g over %lld rows)",
                 (long long)j, got, ref, e, T[j], (long long)M);
        break;
      }
      if (cls != 2 || ref == 0.0 || M < 8) continue; /* M < 8: too few terms to randomize */
      const double scale = U32 * T[j] + (rr != 0.0 ? ulp_of(rr, wd) : 0.0);
      const double z = (got - ref) / scale;
      bias_add1(&wb, z), bias_add1(&wm, ref > 0 ? z : -z);
    }
  }
  free(buf);
  double mean, se;
  if (ok && !bias_ok(&xb, 1, 0.01, &mean, &se))
    CHK_FAIL("dx: mean signed error %.4g (rounding units) over %lld rows is biased (SE %.3g)", mean,
             (long long)xb.clusters, se);
  if (ok && !bias_ok(&xm, 1, 0.01, &mean, &se))
    CHK_FAIL("dx: mean magnitude error %.4g (rounding units) over %lld rows is biased (SE %.3g)", mean,
             (long long)xm.clusters, se);
  if (ok && !bias_ok(&wb, 0, 0.05, &mean, &se))
    CHK_FAIL("dw: mean signed error %.4g (rounding units) over %lld columns is biased (SE %.3g)", mean,
             (long long)wb.count, se);
  if (ok && !bias_ok(&wm, 0, 0.05, &mean, &se))
    CHK_FAIL("dw: mean magnitude error %.4g (rounding units) over %lld columns is biased (SE %.3g)",
             mean, (long long)wm.count, se);
  if (ok) say(why, len, 1, "strict dx/dw: within the per-element bounds, unbiased");
  return ok;
}
