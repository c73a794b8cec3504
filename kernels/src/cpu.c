/*
 * cpu.c — the CPU backend: the same algorithms as the CUDA kernels, in C with OpenMP.
 *
 * Forward: rows are independent; each row is converted to fp32 once, reduced with 8 fixed
 *   lanes (vectorizable, deterministic), then normalized.
 * Backward: rows are cut into fixed chunks that depend only on `rows` (never on the thread
 *   count). Each chunk accumulates its fp32 partial dw into its own workspace row; a second pass
 *   sums the partials over chunks in chunk order. Results are bitwise identical for any number of
 *   OpenMP threads — the CPU analogue of the GPU's (grid x n) partial buffer.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Test-only mutation points (kernels/tests/mutants/cpu_mutants.h): compiled in only with
 * -DFN_MUTANTS, for the mutation test; here FN_MUTATE expands to nothing. */
#ifdef FN_MUTANTS
#include "kernels/tests/mutants/cpu_mutants.h"
#else
#define FN_MUTATE(k, ...) ((void)0)
#define FN_MUT(k) 0
#endif

#include "kernels/src/common.h"

/* ---- fp16 / bf16 conversions, round to nearest even ---------------------------------------- */
static inline uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static inline float bf16_to_f(uint16_t b) { return u2f((uint32_t)b << 16); }
static inline uint16_t f_to_bf16(float f) {
  uint32_t u = f2u(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

static inline float f16_to_f(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, em = h & 0x7fffu;
  if (em >= 0x7c00u) return u2f(sign | 0x7f800000u | ((em & 0x3ffu) << 13) | ((em & 0x3ffu) ? 0x400000u : 0));
  if (em >= 0x400u) return u2f(sign | ((em << 13) + 0x38000000u)); /* rebias 15 -> 127 */
  float v = (float)em * 0x1p-24f;                                  /* subnormal, exact */
  return sign ? -v : v;
}
static inline uint16_t f_to_f16(float f) {
  uint32_t x = f2u(f), sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x > 0x7f800000u) return (uint16_t)(sign | 0x7e00u); /* NaN */
  if (x >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 rounds to Inf */
  if (x < 0x38800000u) {                                    /* below 2^-14: subnormal */
    /* |f| * 2^24 < 1024; adding and removing 2^23 rounds it to an integer, ties to even. */
    float a = u2f(x) * 0x1p24f;
    volatile float t = a + 0x1p23f; /* volatile: keep the rounding step as written */
    return (uint16_t)(sign | (uint32_t)(t - 0x1p23f));
  }
  uint32_t r = x - 0x38000000u; /* rebias 127 -> 15 */
  r += 0xfffu + ((r >> 13) & 1u);
  return (uint16_t)(sign | (r >> 13));
}

static inline float load1(const void *p, fusednorm_dtype d, int64_t j) {
  switch (d) {
    case FUSEDNORM_F32: return ((const float *)p)[j];
    case FUSEDNORM_F16: return f16_to_f(((const uint16_t *)p)[j]);
    default: return bf16_to_f(((const uint16_t *)p)[j]);
  }
}

/* Round an fp32 value to dtype and back (the storage rounding of the contract). */
static inline float round_x(float v, fusednorm_dtype d) {
  switch (d) {
    case FUSEDNORM_F32: return v;
    case FUSEDNORM_F16: return f16_to_f(f_to_f16(v));
    default: return bf16_to_f(f_to_bf16(v));
  }
}

static void load_row(float *dst, const void *src, fusednorm_dtype d, int64_t n) {
  switch (d) {
    case FUSEDNORM_F32: memcpy(dst, src, (size_t)n * 4); break;
    case FUSEDNORM_F16:
      for (int64_t j = 0; j < n; ++j) dst[j] = f16_to_f(((const uint16_t *)src)[j]);
      break;
    default:
      for (int64_t j = 0; j < n; ++j) dst[j] = bf16_to_f(((const uint16_t *)src)[j]);
      break;
  }
}

static void store_row(void *dst, const float *src, fusednorm_dtype d, int64_t n) {
  switch (d) {
    case FUSEDNORM_F32: memcpy(dst, src, (size_t)n * 4); break;
    case FUSEDNORM_F16:
      for (int64_t j = 0; j < n; ++j) ((uint16_t *)dst)[j] = f_to_f16(src[j]);
      break;
    default:
      for (int64_t j = 0; j < n; ++j) ((uint16_t *)dst)[j] = f_to_bf16(src[j]);
      break;
  }
}

/* Row i of a tensor with innermost row stride `stride` and outer strides `outer`. */
static inline const char *row_at(const fusednorm_problem *p, const void *base, int64_t i, int64_t stride,
                                 const int64_t *outer) {
  return (const char *)base + (size_t)fn_row_offset(p, i, stride, outer) * fusednorm_dtype_size(p->x_dtype);
}

/* Dot product of up to 512 elements with 8 fixed lanes: vectorizes, order depends only on n. */
static float dot8(const float *a, const float *b, int64_t n) {
  float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; ++k) lane[k] += a[j + k] * b[j + k];
  for (int k = 0; j < n; ++j, ++k) lane[k] += a[j] * b[j];
  return ((lane[0] + lane[4]) + (lane[1] + lane[5])) + ((lane[2] + lane[6]) + (lane[3] + lane[7]));
}

/* Blocked dot product: 512-element blocks summed pairwise, so the fp32 error grows like
 * log(n) instead of n for wide rows (like the GPU's per-thread partials + shuffle tree). */
static float dot(const float *a, const float *b, int64_t n) {
  if (n <= 512) return dot8(a, b, n);
  int64_t half = ((n / 2 + 511) / 512) * 512; /* split on a block boundary: order depends on n */
  return dot(a, b, half) + dot(a + half, b + half, n - half);
}

/* w + offset in fp32 (or 1 without weight), computed once per call. */
static fusednorm_status weight_plus_offset(const fusednorm_problem *p, const void *w, float **out) {
  float *wo = (float *)malloc((size_t)p->n * sizeof(float));
  if (!wo) return FUSEDNORM_ERR_OUT_OF_MEMORY;
  if (p->has_weight) {
    load_row(wo, w, p->w_dtype, p->n);
    for (int64_t j = 0; j < p->n; ++j) wo[j] += p->offset;
  } else {
    for (int64_t j = 0; j < p->n; ++j) wo[j] = 1.0f;
  }
  *out = wo;
  return FUSEDNORM_OK;
}

/* Work below this many elements runs on the calling thread (torch's own grain size): waking an
 * OpenMP team costs more than a small problem, and far more on a loaded machine. Results do not
 * depend on the thread count either way. */
#define FN_OMP_MIN_ELEMS 32768
static inline int worth_threads(int64_t elems) { return elems >= FN_OMP_MIN_ELEMS; }

static inline int is_llama(const fusednorm_problem *p) {
  return p->casting == FUSEDNORM_CAST_LLAMA;
}

/* ---- forward ------------------------------------------------------------------------------ */
fusednorm_status fusednorm_forward_cpu(const fusednorm_problem *p, const fusednorm_fwd_args *a) {
  fusednorm_status st = fn_validate_forward(p, a);
  if (st != FUSEDNORM_OK || p->rows == 0) return st;
  float *wo;
  if ((st = weight_plus_offset(p, a->weight, &wo)) != FUSEDNORM_OK) return st;
  const int64_t n = p->n;
  const fusednorm_dtype xd = p->x_dtype;
  int failed = 0;
#pragma omp parallel reduction(| : failed) if (worth_threads(p->rows * n))
  {
    float *s = (float *)malloc((size_t)n * 2 * sizeof(float));
    if (!s) failed = 1;
#pragma omp for schedule(static)
    for (int64_t i = 0; i < p->rows; ++i) {
      if (!s) continue;
      float *t = s + n;
      load_row(s, row_at(p, a->x, i, a->x_stride, a->x_outer), xd, n);
      if (p->has_residual) {
        load_row(t, row_at(p, a->residual, i, a->residual_stride, a->residual_outer), xd, n);
        for (int64_t j = 0; j < n; ++j) t[j] += s[j];
        void *ro = (void *)row_at(p, a->residual_out, i, a->residual_out_stride, a->residual_out_outer);
        store_row(ro, t, xd, n);
        load_row(s, ro, xd, n); /* the norm reads the rounded sum */
        FN_MUTATE(FN_MUT_RES_OUT_TAIL, if (n > 1) { t[n - 1] = t[n - 2]; store_row(ro, t, xd, n); });
      }
      float ss = dot(s, s, n);
      FN_MUTATE(FN_MUT_RSTD_SERIAL, ss = fn_mut_serial_dot(s, s, n));
      FN_MUTATE(FN_MUT_RSTD_TAIL, if (n > 1) ss = dot(s, s, n - 1));
      FN_MUTATE(FN_ALT_ORDERS, ss = fn_alt_dot(s, s, n));
      float ms = ss / (float)n;
      FN_MUTATE(FN_MUT_RSTD_N_MINUS_1, if (n > 1) ms = ss / (float)(n - 1));
      float rstd = 1.0f / sqrtf(ms + p->eps);
      FN_MUTATE(FN_MUT_EPS_OUTSIDE, rstd = 1.0f / (sqrtf(ms) + p->eps));
      FN_MUTATE(FN_MUT_RSTD_2U, rstd *= 1.0f + 0x1p-23f);
      if (a->rstd) a->rstd[i] = rstd;
      if (is_llama(p) && !FN_MUT(FN_MUT_LLAMA_Y_NO_ROUND))
        for (int64_t j = 0; j < n; ++j) t[j] = round_x(s[j] * rstd, xd) * wo[j];
      else
        for (int64_t j = 0; j < n; ++j) t[j] = s[j] * rstd * wo[j];
      FN_MUTATE(FN_ALT_ORDERS, if (!is_llama(p)) for (int64_t j = 0; j < n; ++j) t[j] = s[j] * (rstd * wo[j]));
      FN_MUTATE(FN_MUT_Y_TAIL, if (n > 1) t[n - 1] = t[n - 2]);
      FN_MUTATE(FN_MUT_Y_ULP_F32, if (xd == FUSEDNORM_F32) fn_mut_f32_up(t, n));
      FN_MUTATE(FN_MUT_Y_FLUSH, if (xd == FUSEDNORM_F32) fn_mut_flush(t, n));
      store_row((void *)row_at(p, a->y, i, a->y_stride, a->y_outer), t, xd, n);
      FN_MUTATE(FN_MUT_Y_ULP_1PCT, fn_mut_bump_1pct((void *)row_at(p, a->y, i, a->y_stride, a->y_outer),
                                                    xd == FUSEDNORM_F32, n, i));
    }
    free(s);
  }
  free(wo);
  return failed ? FUSEDNORM_ERR_OUT_OF_MEMORY : FUSEDNORM_OK;
}

/* ---- backward ----------------------------------------------------------------------------- */
/* Chunking depends on rows only: at least 64 rows a chunk (amortizes the partial row), at most
 * 256 chunks (bounds the workspace to 256 x n floats and the reduction pass). */
static int64_t chunk_rows(int64_t rows) {
  int64_t c = (rows + 255) / 256;
  return c < 64 ? 64 : c;
}
static int64_t num_chunks(int64_t rows) {
  return rows == 0 ? 0 : (rows + chunk_rows(rows) - 1) / chunk_rows(rows);
}

fusednorm_status fusednorm_backward_workspace_size_cpu(const fusednorm_problem *p, size_t *bytes) {
  fusednorm_status st = fn_validate_problem(p);
  if (st != FUSEDNORM_OK) return st;
  if (!bytes) return FUSEDNORM_ERR_NULL_POINTER;
  *bytes = p->has_weight ? (size_t)num_chunks(p->rows) * (size_t)p->n * sizeof(float) : 0;
  return FUSEDNORM_OK;
}

fusednorm_status fusednorm_backward_cpu(const fusednorm_problem *p, const fusednorm_bwd_args *a) {
  fusednorm_status st = fn_validate_backward(p, a);
  if (st != FUSEDNORM_OK) return st;
  size_t need;
  fusednorm_backward_workspace_size_cpu(p, &need);
  if (a->workspace_bytes < need) return FUSEDNORM_ERR_WORKSPACE_TOO_SMALL;
  if (need && !a->workspace) return FUSEDNORM_ERR_NULL_POINTER;
  const int64_t n = p->n, rows = p->rows, cr = chunk_rows(rows), nc = num_chunks(rows);
  const fusednorm_dtype xd = p->x_dtype;
  float *wo;
  if ((st = weight_plus_offset(p, a->weight, &wo)) != FUSEDNORM_OK) return st;
  float *partial = (float *)a->workspace;
  int failed = 0;
#pragma omp parallel reduction(| : failed) if (nc > 1 && worth_threads(rows * n))
  {
    float *buf = (float *)malloc((size_t)n * 4 * sizeof(float));
    if (!buf) failed = 1;
#pragma omp for schedule(static)
    for (int64_t c = 0; c < nc; ++c) {
      if (!buf) continue;
      float *s = buf, *dy = buf + n, *g = buf + 2 * n, *t = buf + 3 * n;
      float *dwp = p->has_weight ? partial + (size_t)c * (size_t)n : NULL;
      if (dwp) memset(dwp, 0, (size_t)n * sizeof(float));
      int64_t end = (c + 1) * cr < rows ? (c + 1) * cr : rows;
      for (int64_t i = c * cr; i < end; ++i) {
        float rstd = a->rstd[i];
        FN_MUTATE(FN_MUT_ROWS_SWAPPED, if ((i ^ 1) < rows) rstd = a->rstd[i ^ 1]);
        load_row(s, row_at(p, a->s, i, a->s_stride, a->s_outer), xd, n);
        load_row(dy, row_at(p, a->dy, i, a->dy_stride, a->dy_outer), xd, n);
        /* s becomes h = s*rstd, the true point dx is evaluated at (every casting); dw takes
         * n = RN_x(h) for llama, the value y was made from. One operation per loop so that each
         * vectorizes. */
        for (int64_t j = 0; j < n; ++j) s[j] *= rstd;
        for (int64_t j = 0; j < n; ++j) g[j] = dy[j] * wo[j];
        FN_MUTATE(FN_MUT_BWD_NO_OFFSET, for (int64_t j = 0; j < n; ++j) g[j] = dy[j] * (wo[j] - p->offset));
        FN_MUTATE(FN_MUT_LLAMA_ROUNDED_DX, if (is_llama(p)) for (int64_t j = 0; j < n; ++j) s[j] = round_x(s[j], xd));
        float gh = dot(g, s, n);
        FN_MUTATE(FN_MUT_DOT_TAIL, if (n > 1) gh = dot(g, s, n - 1));
        FN_MUTATE(FN_ALT_ORDERS, gh = fn_alt_dot(g, s, n));
        const float mean = gh / (float)n;
        for (int64_t j = 0; j < n; ++j) t[j] = rstd * (g[j] - s[j] * mean);
        if (a->ds) {
          load_row(g, row_at(p, a->ds, i, a->ds_stride, a->ds_outer), xd, n);
          for (int64_t j = 0; j < n; ++j) t[j] += g[j];
        }
        FN_MUTATE(FN_MUT_DX_ULP_F32, if (xd == FUSEDNORM_F32) fn_mut_f32_up(t, n));
        store_row((void *)row_at(p, a->dx, i, a->dx_stride, a->dx_outer), t, xd, n);
        float *dwq = dwp;
        FN_MUTATE(FN_MUT_DW_SKIP_ROW, if (i == c * cr) dwq = NULL);
        FN_MUTATE(FN_MUT_LLAMA_DW_TRUE, if (dwq && is_llama(p)) {
          for (int64_t j = 0; j < n; ++j) dwq[j] += dy[j] * s[j];
          dwq = NULL;
        });
        FN_MUTATE(FN_MUT_DW_RTZ, if (dwq) {
          for (int64_t j = 0; j < n; ++j)
            dwq[j] = fn_mut_rtz_add(dwq[j], dy[j] * (is_llama(p) ? round_x(s[j], xd) : s[j]));
          dwq = NULL;
        });
        FN_MUTATE(FN_ALT_ORDERS, if (dwq) { /* the CUDA kernels' fma accumulation */
          for (int64_t j = 0; j < n; ++j)
            dwq[j] = fmaf(dy[j], is_llama(p) ? round_x(s[j], xd) : s[j], dwq[j]);
          dwq = NULL;
        });
        if (dwq && is_llama(p))
          for (int64_t j = 0; j < n; ++j) dwq[j] += dy[j] * round_x(s[j], xd);
        else if (dwq)
          for (int64_t j = 0; j < n; ++j) dwq[j] += dy[j] * s[j];
      }
    }
    free(buf);
  }
  free(wo);
  if (failed) return FUSEDNORM_ERR_OUT_OF_MEMORY;
  if (p->has_weight) {
    /* Second pass: fixed chunk order per column; columns are independent. */
    const int64_t blk = 1024;
#pragma omp parallel for schedule(static) if (n > blk && worth_threads(nc * n))
    for (int64_t j0 = 0; j0 < n; j0 += blk) {
      float acc[1024];
      int64_t m = n - j0 < blk ? n - j0 : blk;
      for (int64_t j = 0; j < m; ++j) acc[j] = 0.0f;
      for (int64_t c = 0; c < nc; ++c) {
        const float *src = partial + (size_t)c * (size_t)n + j0;
        for (int64_t j = 0; j < m; ++j) acc[j] += src[j];
      }
      FN_MUTATE(FN_ALT_ORDERS, for (int64_t j = 0; j < m; ++j) { /* chunks in reverse order */
        acc[j] = 0.0f;
        for (int64_t c = nc - 1; c >= 0; --c) acc[j] += partial[(size_t)c * (size_t)n + j0 + j];
      });
      FN_MUTATE(FN_MUT_DW_64U, for (int64_t j = 0; j < m; ++j) acc[j] *= 1.0f + 0x1p-18f);
      store_row((char *)a->dw + (size_t)j0 * fusednorm_dtype_size(p->w_dtype), acc, p->w_dtype, m);
    }
  }
  return FUSEDNORM_OK;
}
