/*
 * cpu_mutants.h — test-only: included by kernels/src/cpu.c when it is compiled with -DFN_MUTANTS
 * (the :fusednorm_cpu_mutants library of kernels/BUILD, linked only into //kernels:test_mutants).
 *
 * That build renames the CPU entry points (so it links next to the real library) and lets the
 * mutation test plant one known defect at a time through `fn_mutant`: FN_MUTATE(k, statement)
 * runs the statement when fn_mutant == k. In the library itself FN_MUTATE expands to nothing, so
 * the production code is the unmutated code. The defects, numbered here and named in
 * test_mutants.c, are the kinds of error a kernel change can make without crashing; each must be
 * caught by the accuracy rules (kernels/ref/fusednorm_ref.c). FN_ALT_ORDERS is not a defect: it
 * switches every reduction to a different, correct order (the CUDA kernels' fma chains, reversed
 * and pairwise sums), which the rules must accept.
 */
#ifndef FUSEDNORM_TESTS_MUTANTS_CPU_MUTANTS_H_
#define FUSEDNORM_TESTS_MUTANTS_CPU_MUTANTS_H_

#include <math.h>
#include <stdint.h>

#define fusednorm_forward_cpu fn_mutant_forward_cpu
#define fusednorm_backward_cpu fn_mutant_backward_cpu
#define fusednorm_backward_workspace_size_cpu fn_mutant_backward_workspace_size_cpu

extern int fn_mutant; /* 0: none */

#define FN_MUT(k) (fn_mutant == (k))
#define FN_MUTATE(k, ...) \
  do {                    \
    if (FN_MUT(k)) {      \
      __VA_ARGS__;        \
    }                     \
  } while (0)

enum {
  FN_MUT_Y_ULP_F32 = 1,     /* y +1 ulp on every element (f32) */
  FN_MUT_DX_ULP_F32,        /* dx +1 ulp on every element (f32) */
  FN_MUT_Y_FLUSH,           /* |y| < 1e-6 flushed to zero (f32) */
  FN_MUT_RSTD_2U,           /* rstd * (1 + 2u): an rsqrtf-class error */
  FN_MUT_RSTD_SERIAL,       /* rstd from one serial fp32 sum over the row */
  FN_MUT_RSTD_N_MINUS_1,    /* mean of squares divided by n - 1 */
  FN_MUT_DW_64U,            /* dw * (1 + 64u) */
  FN_MUT_DW_RTZ,            /* dw accumulated with round-toward-zero additions */
  FN_MUT_Y_ULP_1PCT,        /* y +1 ulp (magnitude) on 1% of the elements, every dtype */
  FN_MUT_RSTD_TAIL,         /* sum of squares misses the row's last element */
  FN_MUT_DOT_TAIL,          /* backward's mean(g*h) misses the row's last element */
  FN_MUT_DW_SKIP_ROW,       /* dw misses the first row of every chunk */
  FN_MUT_EPS_OUTSIDE,       /* rstd = 1/(sqrt(ms) + eps) */
  FN_MUT_ROWS_SWAPPED,      /* backward reads the rstd of the neighbouring row (i ^ 1) */
  FN_MUT_LLAMA_ROUNDED_DX,  /* llama dx at the rounded point RN_x(h) */
  FN_MUT_LLAMA_Y_NO_ROUND,  /* llama y without the intermediate rounding */
  FN_MUT_LLAMA_DW_TRUE,     /* llama dw with h instead of RN_x(h) */
  FN_MUT_BWD_NO_OFFSET,     /* backward forgets the weight offset (Gemma) */
  FN_MUT_Y_TAIL,            /* the row's last y copies its neighbour (a vector-tail slip) */
  FN_MUT_RES_OUT_TAIL,      /* the row's last residual_out copies its neighbour (the norm reads the
                               right sum) */
  FN_MUT_COUNT_,
  FN_ALT_ORDERS = 100       /* correct alternative orders: must pass */
};

/* Sum of x*y over [0, n), serial, in index order (FN_MUT_RSTD_SERIAL). */
static inline float fn_mut_serial_dot(const float *x, const float *y, int64_t n) {
  float acc = 0.0f;
  for (int64_t j = 0; j < n; ++j) acc += x[j] * y[j];
  return acc;
}

/* A different correct order: fma chains of 32 elements, in reverse index order, combined
 * pairwise (like a warp's per-thread chains and shuffle tree). */
static inline float fn_alt_dot(const float *x, const float *y, int64_t n) {
  if (n <= 32) {
    float acc = 0.0f;
    for (int64_t j = n - 1; j >= 0; --j) acc = fmaf(x[j], y[j], acc);
    return acc;
  }
  const int64_t half = n / 2;
  return fn_alt_dot(x + half, y + half, n - half) + fn_alt_dot(x, y, half);
}

/* a + b rounded toward zero (FN_MUT_DW_RTZ): the double sum is exact for fp32 operands of
 * nearby magnitude and within 2^-29 otherwise, enough to truncate correctly here. */
static inline float fn_mut_rtz_add(float a, float b) {
  const double e = (double)a + (double)b;
  float f = (float)e;
  if (fabs((double)f) > fabs(e)) f = nextafterf(f, 0.0f);
  return f;
}

static inline void fn_mut_f32_up(float *t, int64_t n) {
  for (int64_t j = 0; j < n; ++j) t[j] = nextafterf(t[j], INFINITY);
}

static inline void fn_mut_flush(float *t, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    if (fabsf(t[j]) < 1e-6f) t[j] = 0.0f;
}

/* One element in a hundred (a fixed hash of row and column): the stored value's magnitude +1 ulp. */
static inline void fn_mut_bump_1pct(void *row, int is_f32, int64_t n, int64_t i) {
  for (int64_t j = 0; j < n; ++j) {
    uint64_t h = (uint64_t)(i * 1000003 + j) * 0x9e3779b97f4a7c15ull;
    if ((h >> 40) % 100 != 0) continue;
    if (is_f32) {
      float *f = (float *)row + j;
      if (isfinite(*f)) *f = nextafterf(*f, *f < 0 ? -INFINITY : INFINITY);
    } else {
      uint16_t *b = (uint16_t *)row + j;
      if ((*b & 0x7fffu) < 0x7b00u) *b = (uint16_t)(*b + 1u); /* finite, far from Inf in both */
    }
  }
}

#endif
