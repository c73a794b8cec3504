/*
 * engine.c — the shared check engine (see engine.h). For each case of the matrix:
 *   fresh random inputs (with special rows: zeros, ~1e-20, ~1e4, NaN, Inf) in row-strided
 *   buffers whose padding holds a sentinel; outputs poisoned with NaN bit patterns;
 *   forward twice (bitwise determinism) → y, residual_out, rstd checked against float64;
 *   backward twice → dx, dw checked against float64, with the strict checks of
 *   kernels/ref/fusednorm_ref.h (per-element bounds valid for any summation order, statistics
 *   for what a bound cannot see); with NaN/Inf rows also a backward of the rows before them, so
 *   that dw is checked on every column; padding must be untouched. The naive fp32 baseline's
 *   statistics give the max-ulp table (and, with --legacy-rules, the older rules judged by it).
 */
#include "kernels/tests/engine.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/ref/fusednorm_ref.h"

/* ---- random numbers (splitmix64) ------------------------------------------------------------ */
static uint64_t rng_state;
static uint64_t rng_next(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/* Approximately normal (Irwin-Hall of 4 uniforms of 32 bits, two per draw): cheap, bounded, never
 * exactly zero in practice, and finer than every storage format's spacing near 1. */
static double rng_normal(void) {
  const uint64_t a = rng_next(), b = rng_next();
  const uint64_t sum = (a >> 32) + (a & 0xffffffffu) + (b >> 32) + (b & 0xffffffffu); /* < 2^34 */
  return ((double)sum * 0x1p-32 - 2.0) * 1.7320508;
}

/* ---- buffers ------------------------------------------------------------------------------- */
#define SENTINEL 0x5a /* padding byte pattern; a backend that writes padding is caught */

typedef struct {
  void *data;
  int64_t rows, n, stride;
  fusednorm_dtype dtype;
} mat;

static size_t bytes_of(const mat *m) {
  return (size_t)(m->rows > 0 ? m->rows : 1) * (size_t)m->stride * fusednorm_dtype_size(m->dtype);
}

static int mat_alloc(mat *m, int64_t rows, int64_t n, int64_t stride, fusednorm_dtype d) {
  m->rows = rows, m->n = n, m->stride = stride, m->dtype = d;
  m->data = malloc(bytes_of(m));
  if (!m->data) return 0;
  memset(m->data, SENTINEL, bytes_of(m));
  return 1;
}

/* Random values in the storage format. f32 and bf16 are stored from the value rounded to fp32
 * (for bf16 a second rounding: any bf16 value is as good an input, and this is the input
 * generation's hot loop), f16 through the reference's single rounding. */
static void mat_fill(mat *m, double scale, double mean) {
  for (int64_t i = 0; i < m->rows; ++i) {
    const int64_t row = i * m->stride;
    switch (m->dtype) {
      case FUSEDNORM_F32:
        for (int64_t j = 0; j < m->n; ++j) ((float *)m->data)[row + j] = (float)(mean + scale * rng_normal());
        break;
      case FUSEDNORM_BF16:
        for (int64_t j = 0; j < m->n; ++j)
          ((uint16_t *)m->data)[row + j] = fusednorm_float_to_bf16((float)(mean + scale * rng_normal()));
        break;
      default:
        for (int64_t j = 0; j < m->n; ++j) fusednorm_store(m->data, m->dtype, row + j, mean + scale * rng_normal());
    }
  }
}

static void mat_poison(mat *m) {
  for (int64_t i = 0; i < m->rows; ++i)
    memset((char *)m->data + (size_t)i * m->stride * fusednorm_dtype_size(m->dtype), 0xff,
           (size_t)m->n * fusednorm_dtype_size(m->dtype));
}

/* 1 if the padding (columns n..stride) of every row still holds the sentinel. */
static int mat_padding_ok(const mat *m) {
  size_t es = fusednorm_dtype_size(m->dtype);
  for (int64_t i = 0; i < m->rows; ++i) {
    const unsigned char *p = (const unsigned char *)m->data + ((size_t)i * m->stride + m->n) * es;
    for (size_t k = 0; k < (size_t)(m->stride - m->n) * es; ++k)
      if (p[k] != SENTINEL) return 0;
  }
  return 1;
}

static int mat_equal_bits(const mat *a, const mat *b) {
  size_t es = fusednorm_dtype_size(a->dtype);
  for (int64_t i = 0; i < a->rows; ++i)
    if (memcmp((char *)a->data + (size_t)i * a->stride * es, (char *)b->data + (size_t)i * b->stride * es,
               (size_t)a->n * es))
      return 0;
  return 1;
}

/* Special rows: exercise zero rows, tiny and large magnitudes and IEEE propagation. The NaN and
 * Inf rows are the last two, so that the rows before them (a prefix, run as its own backward)
 * give a dw that is finite in every column and is checked there. */
#define SPECIAL_TAIL 2
static void plant_specials(mat *x, fusednorm_dtype d) {
  if (x->rows < 6) return;
  for (int64_t j = 0; j < x->n; ++j) {
    fusednorm_store(x->data, d, 1 * x->stride + j, 0.0);
    /* |x| >= 0.5e-20: its fp32 square (>= 2.5e-41, subnormal) is not 0. Below ~1e-22.5 it is,
     * and with eps = 0 and n = 1 every fp32 evaluation then gives rstd = inf against the float64
     * reference's finite value (seen once: f32, N = 1, llama, 2026-11-22). */
    const double z = rng_normal();
    fusednorm_store(x->data, d, 2 * x->stride + j, 1e-20 * (z < 0 ? z - 0.5 : z + 0.5));
    fusednorm_store(x->data, d, 3 * x->stride + j, 1e4 * rng_normal());
  }
  fusednorm_store(x->data, d, (x->rows - 2) * x->stride + (x->n / 2), NAN);
  fusednorm_store(x->data, d, (x->rows - 1) * x->stride + (x->n / 3), INFINITY);
}

/* ---- one case ------------------------------------------------------------------------------ */
typedef struct {
  int index; /* position in the matrix: with the seed, it fixes the inputs */
  int64_t rows, n;
  fusednorm_dtype xd, wd;
  fusednorm_casting cast;
  float offset, eps;
  int weight, residual, strided, specials;
  int pad16; /* strided with whole 16-byte paddings (else odd ones) */
} case_t;

static const char *cast_name(fusednorm_casting c) {
  return c == FUSEDNORM_CAST_LLAMA ? "llama" : c == FUSEDNORM_CAST_GEMMA ? "gemma" : "fp32";
}

/* One output against the float64 reference: its statistics (gs) raise the table's maximum ulp
 * (max_ulp, if given); with the legacy rules, the naive fp32 baseline's (ns, dense rows of n). */
static void output_stats(fusednorm_err_stats *gs, fusednorm_err_stats *ns, int legacy, const void *got,
                         int64_t stride, const void *naive, fusednorm_dtype d, const double *ref,
                         int64_t rows, int64_t n, int64_t *max_ulp) {
  fusednorm_err_stats_clear(gs), fusednorm_err_stats_clear(ns);
  fusednorm_err_stats_add(gs, got, d, stride, ref, rows, n, 0);
  if (legacy) fusednorm_err_stats_add(ns, naive, d, n, ref, rows, n, 0);
  if (max_ulp && gs->max_ulp > *max_ulp) *max_ulp = gs->max_ulp;
}

static void case_name(const case_t *c, char *buf, size_t len) {
  snprintf(buf, len, "M=%" PRId64 " N=%" PRId64 " x=%s w=%s cast=%s off=%g eps=%g%s%s%s%s", c->rows,
           c->n, fusednorm_dtype_name(c->xd), c->weight ? fusednorm_dtype_name(c->wd) : "none",
           cast_name(c->cast), c->offset, c->eps, c->residual ? " +res" : "",
           c->strided ? (c->pad16 ? " strided16" : " strided") : "", c->specials ? " specials" : "", "");
}

typedef struct {
  int failures;
  int cases;
  int64_t max_ulp_y[3];  /* per x dtype */
  int64_t max_ulp_dx[3];
  int64_t max_ulp_dw[3]; /* per w dtype */
} tally;

/* Every failure line names the case and how to rerun exactly it (same inputs). */
#define FAIL(...)                                                                         \
  do {                                                                                    \
    printf("FAIL %s [%s] (rerun: --seed=%" PRIu64 " --case=%d): ", name, b->name, o->seed, \
           c->index);                                                                     \
    printf(__VA_ARGS__);                                                                  \
    printf("\n");                                                                         \
    ok = 0;                                                                               \
  } while (0)

static int run_case(const fn_backend *b, const fn_engine_opts *o, const case_t *c, tally *t) {
  char name[256];
  case_name(c, name, sizeof name);
  if (o->filter && !strstr(name, o->filter)) return 1;
  if (o->case_index >= 0 && c->index != o->case_index) return 1;
  /* Each case draws from its own stream (run seed, case index): a case's inputs do not depend on
   * which other cases ran, so --seed=S --case=K reproduces one failure alone. */
  rng_state = o->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(c->index + 1));
  int ok = 1;
  const int64_t M = c->rows, N = c->n;
  /* Distinct strides per tensor catch a backend that uses one tensor's stride for another: odd
   * paddings (rows misaligned: the element-wise and generic paths) or, in part of the strided
   * cases, whole 16-byte paddings (rows as aligned as unstrided ones: the aligned and head-split
   * kernels, which never see odd ones). */
  const int64_t vec = 16 / (int64_t)fusednorm_dtype_size(c->xd);
  const int64_t sin = !c->strided ? N : c->pad16 ? N + vec : N + 3;
  const int64_t sout = !c->strided ? N : c->pad16 ? N + 2 * vec : N + 5;
  fusednorm_problem p = fusednorm_problem_init(M, N, c->xd, c->wd);
  p.casting = c->cast, p.offset = c->offset, p.eps = c->eps, p.has_weight = c->weight,
  p.has_residual = c->residual, p.mode = o->mode;

  /* The float64 reference arrays feed the max-ulp table, which a brief run (seeds, mutants) does
   * not print, and the legacy rules; the strict checks evaluate the reference themselves. The
   * residual and its gradient exist only for fused-add cases, the naive outputs only for the
   * legacy rules. */
  const int tables = !o->brief || o->legacy_rules, res = c->residual, naive = o->legacy_rules;
  mat x, r, w, y, y2, ro, ro2, naive_y, naive_ro, dy, ds, dx, dx2, dw, dw2, naive_dx, naive_dw;
  mat *all[] = {&x, &r, &w, &y, &y2, &ro, &ro2, &naive_y, &naive_ro, &dy, &ds, &dx, &dx2, &dw,
                &dw2, &naive_dx, &naive_dw};
  for (size_t k = 0; k < sizeof all / sizeof *all; ++k) memset(all[k], 0, sizeof *all[k]);
  float *rstd = NULL, *rstd2 = NULL, *naive_rstd = NULL;
  double *y_ref = NULL, *s_ref = NULL, *rstd_ref = NULL, *dx_ref = NULL, *dw_ref = NULL;
  const fusednorm_dtype xd = c->xd, wd = c->wd;
  int alloc_ok = mat_alloc(&x, M, N, sin, xd) && (!res || mat_alloc(&r, M, N, sin, xd)) &&
                 mat_alloc(&w, 1, N, N, wd) && mat_alloc(&y, M, N, sout, xd) &&
                 mat_alloc(&y2, M, N, sout, xd) && (!res || mat_alloc(&ro, M, N, sout, xd)) &&
                 (!res || mat_alloc(&ro2, M, N, sout, xd)) && (!naive || mat_alloc(&naive_y, M, N, N, xd)) &&
                 (!naive || !res || mat_alloc(&naive_ro, M, N, N, xd)) && mat_alloc(&dy, M, N, sin, xd) &&
                 (!res || mat_alloc(&ds, M, N, sin, xd)) && mat_alloc(&dx, M, N, sout, xd) &&
                 mat_alloc(&dx2, M, N, sout, xd) && mat_alloc(&dw, 1, N, N, wd) &&
                 mat_alloc(&dw2, 1, N, N, wd) && (!naive || mat_alloc(&naive_dx, M, N, N, xd)) &&
                 (!naive || mat_alloc(&naive_dw, 1, N, N, wd));
  size_t mn = (size_t)(M > 0 ? M : 1) * (size_t)N;
  rstd = malloc((size_t)(M + 1) * 4), rstd2 = malloc((size_t)(M + 1) * 4);
  naive_rstd = malloc((size_t)(M + 1) * 4);
  if (tables) {
    y_ref = malloc(mn * 8), rstd_ref = malloc((size_t)(M + 1) * 8);
    dx_ref = malloc(mn * 8), dw_ref = malloc((size_t)N * 8);
  }
  if (res) s_ref = malloc(mn * 8);
  if (!alloc_ok || !rstd || !rstd2 || !naive_rstd || (tables && (!y_ref || !rstd_ref || !dx_ref || !dw_ref)) ||
      (res && !s_ref)) {
    FAIL("out of host memory");
    goto done;
  }

  /* Inputs: activations ~N(0,1), weights around 1 (never zero), gradients ~N(0,1). */
  if (!o->plan_only) {
    mat_fill(&x, 1.0, 0.0);
    if (res) mat_fill(&r, 1.0, 0.0);
    mat_fill(&w, 0.5, c->offset != 0.0f ? 0.0 : 1.0);
    mat_fill(&dy, 1.0, 0.0);
    if (res) mat_fill(&ds, 1.0, 0.0);
    if (c->specials) plant_specials(&x, xd);
  }

  /* ---- forward ---- */
  fusednorm_fwd_args fa = {x.data, sin, c->residual ? r.data : NULL, sin, c->weight ? w.data : NULL,
                           y.data, sout, c->residual ? ro.data : NULL, sout, rstd, {0}, {0}, {0}, {0}};
  mat_poison(&y), mat_poison(&ro);
  for (int64_t i = 0; i < M; ++i) rstd[i] = NAN;
  fusednorm_status st = b->forward(b->ctx, &p, &fa);
  if (st != FUSEDNORM_OK) {
    FAIL("forward returned %s", fusednorm_status_string(st));
    goto done;
  }
  if (o->plan_only) { /* the calls a checking run makes, in its order, none checked */
    b->forward(b->ctx, &p, &fa);
    goto backward;
  }
  fusednorm_fwd_args fa2 = fa;
  fa2.y = y2.data, fa2.residual_out = c->residual ? ro2.data : NULL, fa2.rstd = rstd2;
  mat_poison(&y2), mat_poison(&ro2);
  st = b->forward(b->ctx, &p, &fa2);
  if (st != FUSEDNORM_OK) FAIL("second forward returned %s", fusednorm_status_string(st));
  if (!mat_equal_bits(&y, &y2) || (c->residual && !mat_equal_bits(&ro, &ro2)) ||
      (M && memcmp(rstd, rstd2, (size_t)M * 4)))
    FAIL("forward is not bitwise deterministic");
  if (!mat_padding_ok(&y) || (c->residual && !mat_padding_ok(&ro)))
    FAIL("forward wrote into row padding");

  if (tables || res) fusednorm_ref_forward(&p, &fa, y_ref, s_ref, rstd_ref);
  fusednorm_fwd_args na = fa;
  na.y = naive_y.data, na.y_stride = N, na.residual_out = c->residual ? naive_ro.data : NULL;
  na.residual_out_stride = N, na.rstd = naive_rstd;
  if (o->legacy_rules) fusednorm_naive_forward(&p, &na); /* only the legacy rules use it */

  char why[512];
  fusednorm_err_stats gs, ns;
  if (tables) output_stats(&gs, &ns, o->legacy_rules, y.data, sout, naive_y.data, xd, y_ref, M, N, &t->max_ulp_y[xd]);
  if (o->legacy_rules && !fusednorm_rule_y(&p, &gs, &ns, why, sizeof why)) FAIL("%s", why);
  else if (o->verbose && o->legacy_rules) printf("  %s\n", why);
  if (res) { /* residual_out is the reference's s, the storage rounding of x + r: exact */
    int64_t bad = 0, bi = 0, bj = 0;
    double bgot = 0.0, bwant = 0.0;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        const double got = fusednorm_load(ro.data, xd, i * sout + j), want = s_ref[i * N + j];
        if (got == want || (isnan(got) && isnan(want))) continue;
        if (!bad++) bi = i, bj = j, bgot = got, bwant = want;
      }
    if (bad)
      FAIL("residual_out differs from RN(x + r) in %" PRId64 " elements (first [%" PRId64 ",%" PRId64
           "] = %.9g, want %.9g)", bad, bi, bj, bgot, bwant);
  }
  if (!fusednorm_check_forward(&p, &fa, why, sizeof why)) FAIL("%s", why);
  else if (o->verbose) printf("  %s\n", why);
  if (tables) {
    fusednorm_err_stats rg, rn;
    output_stats(&rg, &rn, o->legacy_rules, rstd, 1, naive_rstd, FUSEDNORM_F32, rstd_ref, M, 1, NULL);
    fusednorm_problem pr = p;
    pr.x_dtype = FUSEDNORM_F32;
    if (o->legacy_rules && !fusednorm_rule_dx(&pr, &rg, &rn, why, sizeof why)) FAIL("rstd: %s", why);
  }

  /* ---- backward: s is what the forward normalized (residual_out for fused add) ---- */
backward:;
  const mat *s_mat = c->residual ? &ro : &x;
  size_t ws_bytes = 0;
  fusednorm_bwd_args ba = {dy.data, sin, s_mat->data, s_mat->stride, c->residual ? ds.data : NULL,
                           sin, c->weight ? w.data : NULL, rstd, dx.data, sout,
                           c->weight ? dw.data : NULL, NULL, ws_bytes, {0}, {0}, {0}, {0}};
  mat_poison(&dx), mat_poison(&dw);
  st = b->backward(b->ctx, &p, &ba);
  if (st != FUSEDNORM_OK) {
    FAIL("backward returned %s", fusednorm_status_string(st));
    goto done;
  }
  if (o->plan_only) {
    b->backward(b->ctx, &p, &ba);
    if (c->specials && M >= 6 && c->weight) { /* the finite rows' backward, twice: below */
      fusednorm_problem pp = p;
      pp.rows = M - SPECIAL_TAIL;
      b->backward(b->ctx, &pp, &ba), b->backward(b->ctx, &pp, &ba);
    }
    goto done;
  }
  fusednorm_bwd_args ba2 = ba;
  ba2.dx = dx2.data, ba2.dw = c->weight ? dw2.data : NULL;
  mat_poison(&dx2), mat_poison(&dw2);
  st = b->backward(b->ctx, &p, &ba2);
  if (st != FUSEDNORM_OK) FAIL("second backward returned %s", fusednorm_status_string(st));
  if (!mat_equal_bits(&dx, &dx2) || (c->weight && !mat_equal_bits(&dw, &dw2)))
    FAIL("backward is not bitwise deterministic");
  if (!mat_padding_ok(&dx)) FAIL("backward wrote into row padding");

  if (tables) fusednorm_ref_backward(&p, &ba, dx_ref, c->weight ? dw_ref : NULL);
  fusednorm_bwd_args nb = ba;
  nb.dx = naive_dx.data, nb.dx_stride = N, nb.dw = c->weight ? naive_dw.data : NULL;
  if (o->legacy_rules) fusednorm_naive_backward(&p, &nb);
  if (tables) output_stats(&gs, &ns, o->legacy_rules, dx.data, sout, naive_dx.data, xd, dx_ref, M, N, &t->max_ulp_dx[xd]);
  if (o->legacy_rules && !fusednorm_rule_dx(&p, &gs, &ns, why, sizeof why)) FAIL("%s", why);
  else if (o->verbose && o->legacy_rules) printf("  %s\n", why);
  if (c->weight && tables) {
    output_stats(&gs, &ns, o->legacy_rules, dw.data, N, naive_dw.data, wd, dw_ref, 1, N, &t->max_ulp_dw[wd]);
    double scale = 0.0;
    if (o->legacy_rules) fusednorm_ref_dw_scale(&p, &ba, &scale);
    if (o->legacy_rules && !fusednorm_rule_dw_scaled(&p, &gs, &ns, scale, why, sizeof why))
      FAIL("%s", why);
    else if (o->verbose && o->legacy_rules) printf("  %s\n", why);
  }
  if (!fusednorm_check_backward(&p, &ba, why, sizeof why)) FAIL("%s", why);
  else if (o->verbose) printf("  %s\n", why);
  /* With the NaN/Inf rows, every dw column is NaN; the rows before them, run as their own
   * backward, give a finite dw checked on every column. */
  if (c->specials && M >= 6 && c->weight) {
    fusednorm_problem pp = p;
    pp.rows = M - SPECIAL_TAIL;
    fusednorm_bwd_args bp = ba;
    bp.dx = dx2.data, bp.dw = dw2.data;
    mat_poison(&dx2), mat_poison(&dw2);
    st = b->backward(b->ctx, &pp, &bp);
    if (st != FUSEDNORM_OK) FAIL("backward of the finite rows returned %s", fusednorm_status_string(st));
    else if (!fusednorm_check_backward(&pp, &bp, why, sizeof why)) FAIL("finite rows: %s", why);
    /* An infinite gradient in the first row's last column: that dw column is +-Inf as in
     * float64 (every later partial row is added to it), the row's dx Inf and NaN, the other
     * rows and columns as before. The last column, so that a kernel reading one column past
     * the row shows too (or the last where s is not 0: Inf * 0 is NaN, and in bf16 x + r is 0
     * often enough). With eps = 0 the zero row's dw is NaN already. */
    int64_t at = N - 1;
    while (at > 0 && fusednorm_load(s_mat->data, xd, at) == 0.0) --at;
    const int was_finite = isfinite(fusednorm_load(dw2.data, wd, at)) && fusednorm_load(s_mat->data, xd, at) != 0.0;
    const double dy_at = fusednorm_load(dy.data, xd, at);
    fusednorm_store(dy.data, xd, at, dy_at < 0 ? -INFINITY : INFINITY);
    mat_poison(&dx2), mat_poison(&dw2);
    st = b->backward(b->ctx, &pp, &bp);
    if (st != FUSEDNORM_OK) FAIL("backward with an infinite dy returned %s", fusednorm_status_string(st));
    else if (!fusednorm_check_backward(&pp, &bp, why, sizeof why)) FAIL("infinite dy[0,%" PRId64 "]: %s", at, why);
    else if (was_finite && !isinf(fusednorm_load(dw2.data, wd, at))) FAIL("infinite dy[0,%" PRId64 "]: dw not infinite", at);
    fusednorm_store(dy.data, xd, at, dy_at);
  }

done:
  for (size_t k = 0; k < sizeof all / sizeof *all; ++k) free(all[k]->data);
  free(rstd), free(rstd2), free(naive_rstd), free(y_ref), free(s_ref), free(rstd_ref), free(dx_ref);
  free(dw_ref);
  if (o->verbose) printf("%s %s (case %d)\n", ok ? "ok  " : "FAIL", name, c->index);
  t->cases++;
  if (!ok) t->failures++;
  return ok;
}

/* ---- the matrix ----------------------------------------------------------------------------- */
typedef struct {
  fusednorm_dtype xd, wd;
} dtype_pair;
static const dtype_pair kDtypes[] = {{FUSEDNORM_F32, FUSEDNORM_F32}, {FUSEDNORM_F16, FUSEDNORM_F16},
                                     {FUSEDNORM_BF16, FUSEDNORM_BF16}, {FUSEDNORM_BF16, FUSEDNORM_F32},
                                     {FUSEDNORM_F16, FUSEDNORM_F32}};
typedef struct {
  int weight;
  fusednorm_casting cast;
  float offset;
} flavour;
static const flavour kFlavours[] = {{1, FUSEDNORM_CAST_FP32, 0.0f}, {1, FUSEDNORM_CAST_FP32, 1.0f},
                                    {1, FUSEDNORM_CAST_LLAMA, 0.0f}, {1, FUSEDNORM_CAST_GEMMA, 1.0f},
                                    {0, FUSEDNORM_CAST_FP32, 0.0f}, {0, FUSEDNORM_CAST_LLAMA, 0.0f}};
#define N_DT (int)(sizeof kDtypes / sizeof *kDtypes)
#define N_FL (int)(sizeof kFlavours / sizeof *kFlavours)
#define N_VARIANTS (N_DT * N_FL * 2) /* x2: plain / fused add */

static case_t variant(int64_t M, int64_t N, int v) {
  case_t c;
  memset(&c, 0, sizeof c);
  c.rows = M, c.n = N;
  c.xd = kDtypes[v % N_DT].xd, c.wd = kDtypes[v % N_DT].wd;
  const flavour *f = &kFlavours[(v / N_DT) % N_FL];
  c.weight = f->weight, c.cast = f->cast, c.offset = f->offset;
  c.residual = (v / (N_DT * N_FL)) % 2;
  c.strided = (v / 3) % 2;   /* decorrelated from the other bits */
  c.pad16 = c.strided && (v / 5) % 2;
  c.specials = (v / 2) % 2;
  c.eps = (v % 7 == 3) ? 0.0f : 1e-6f; /* eps = 0 is legal; zero rows then give NaN like fp64 */
  return c;
}

/* The run's summary: one line (brief) or the per-dtype table; returns the failures. */
static int report(const fn_backend *b, const fn_engine_opts *o, const tally *tp) {
  const tally t = *tp;
  if (o->brief) {
    printf("[%s] seed=%" PRIu64 ": %d cases, %d failed: %s\n", b->name, o->seed, t.cases,
           t.failures, t.failures ? "FAILED" : "OK");
    return t.failures;
  }
  printf("[%s] %-6s %10s %10s %10s\n", b->name, "dtype", "max ulp y", "max ulp dx", "max ulp dw");
  printf("[%s] %-6s %10s %10s %10s\n", b->name, "", "(ulp)", "(ulp)", "(ulp)");
  for (int d = 0; d < 3; ++d)
    printf("[%s] %-6s %10" PRId64 " %10" PRId64 " %10" PRId64 "\n", b->name,
           fusednorm_dtype_name((fusednorm_dtype)d), t.max_ulp_y[d], t.max_ulp_dx[d], t.max_ulp_dw[d]);
  printf("[%s] %d cases, %d failed: %s\n", b->name, t.cases, t.failures, t.failures ? "FAILED" : "OK");
  return t.failures;
}
static int run_shapes(const fn_backend *b, const fn_engine_opts *o, const int64_t *Ms, int nM, const int64_t *Ns,
                      int nN);

int fn_engine_run_matrix(const fn_backend *b, const fn_engine_opts *o) {
  static const int64_t Ms[] = {0, 1, 7, 199, 4096};
  /* 12288 and 24576: rows of 3072 vector slots (f32 / 16-bit), which the lean forward
   * (rmsnorm_fwd_row.cu) runs with 768 threads, above the other kernels' 512-thread bounds. */
  static const int64_t Ns[] = {1, 7, 64, 127, 128, 1000, 2880, 4096, 8192, 12288, 24576, 65536};
  return run_shapes(b, o, Ms, (int)(sizeof Ms / sizeof *Ms), Ns, (int)(sizeof Ns / sizeof *Ns));
}

int fn_engine_run_grid(const fn_backend *b, const fn_engine_opts *o, const int64_t *Ms, int nM, const int64_t *Ns,
                       int nN) {
  return run_shapes(b, o, Ms, nM, Ns, nN);
}

static int run_shapes(const fn_backend *b, const fn_engine_opts *o, const int64_t *Ms, int nM, const int64_t *Ns,
                      int nN) {
  fn_engine_opts ov = *o;
  if (!ov.seed) ov.seed = fn_engine_fresh_seed();
  o = &ov;
  printf("[%s] seed=%" PRIu64 " mode=%s%s\n", b->name, o->seed, fusednorm_mode_name(o->mode),
         o->quick ? " (quick)" : "");
  tally t;
  memset(&t, 0, sizeof t);
  int shape_idx = 0, index = 0;
  const int64_t *ns = o->ns ? o->ns : Ns;
  const int n_ns = o->ns ? (int)o->n_ns : nN;
  for (int mi = 0; mi < nM; ++mi)
    for (int ni = 0; ni < n_ns; ++ni, ++shape_idx) {
      int64_t M = Ms[mi], N = ns[ni], e = M * N;
      if (e > (1 << 25) && !o->big) continue; /* 4096 x 65536: GPU suite (--big) only */
      /* Every variant on small shapes; on larger ones a rotating subset, so that every variant
       * still meets large shapes somewhere in the matrix. */
      int count = e <= (1 << 16) ? N_VARIANTS : e <= (1 << 20) ? 12 : e <= (1 << 23) ? 4 : 2;
      if (o->quick) count = e <= (1 << 14) ? 12 : e <= (1 << 20) ? 3 : 1;
      for (int k = 0; k < count; ++k) {
        int v = (shape_idx * 7 + k * (N_VARIANTS / count + 1)) % N_VARIANTS;
        if (count == N_VARIANTS) v = k;
        case_t c = variant(M, N, v);
        c.index = index++;
        if (!run_case(b, o, &c, &t) && o->stop_on_fail) goto summary;
      }
    }
summary:
  return report(b, o, &t);
}

int fn_engine_run_shapes(const fn_backend *b, const fn_engine_opts *o, const fn_engine_shape *shapes, int count) {
  fn_engine_opts ov = *o;
  if (!ov.seed) ov.seed = fn_engine_fresh_seed();
  o = &ov;
  printf("[%s] seed=%" PRIu64 " mode=%s, %d shapes\n", b->name, o->seed, fusednorm_mode_name(o->mode), count);
  tally t;
  memset(&t, 0, sizeof t);
  int index = 0;
  for (int i = 0; i < count; ++i) {
    const int k_n = shapes[i].variants <= 0 || shapes[i].variants > N_VARIANTS ? N_VARIANTS : shapes[i].variants;
    for (int k = 0; k < k_n; ++k) {
      /* the same rotation as the matrix: every variant meets some shape */
      const int v = k_n == N_VARIANTS ? k : (i * 7 + k * (N_VARIANTS / k_n + 1)) % N_VARIANTS;
      case_t c = variant(shapes[i].rows, shapes[i].n, v);
      c.index = index++;
      if (!run_case(b, o, &c, &t) && o->stop_on_fail) return report(b, o, &t);
    }
  }
  return report(b, o, &t);
}

/* ---- bad arguments ---------------------------------------------------------------------------- */
/* One check; `what` (the call or the case's edit) names it in a failure line. */
static int expect_status(const fn_api *api, int line, const char *what, fusednorm_status got,
                         fusednorm_status want) {
  if (got == want) return 0;
  printf("FAIL [%s] %s:%d: %s returned %s, want %s\n", api->name, __FILE__, line, what,
         fusednorm_status_string(got), fusednorm_status_string(want));
  return 1;
}

int fn_engine_check_bad_args(const fn_api *api) {
  int fails = 0;
  float xbuf[64], ybuf[64], rbuf[64], wbuf[64], rs[8], ws[1024];
  for (int i = 0; i < 64; ++i) xbuf[i] = rbuf[i] = wbuf[i] = (float)(i % 5) + 0.5f;
  for (int i = 0; i < 8; ++i) rs[i] = 1.0f;
  const fusednorm_problem good = fusednorm_problem_init(2, 8, FUSEDNORM_F32, FUSEDNORM_F32);
  const fusednorm_fwd_args fa = {xbuf, 8, NULL, 0, wbuf, ybuf, 8, NULL, 0, rs, {0}, {0}, {0}, {0}};
  const fusednorm_bwd_args ba = {xbuf, 8, xbuf, 8, NULL, 0, wbuf, rs, ybuf, 8, rbuf, ws, sizeof ws, {0}, {0}, {0}, {0}};
  fusednorm_problem p;
  fusednorm_fwd_args f;
  fusednorm_bwd_args b;
  size_t bytes;
#define EXPECT(call, want) (fails += expect_status(api, __LINE__, #call, (call), (want)))
  /* A case: the edits (comma separated) of copies of the good problem p and arguments f / b. */
#define FWD(want, ...) (p = good, f = fa, __VA_ARGS__, \
                        fails += expect_status(api, __LINE__, "forward after " #__VA_ARGS__, api->forward(&p, &f), want))
#define BWD(want, ...) (p = good, b = ba, __VA_ARGS__, \
                        fails += expect_status(api, __LINE__, "backward after " #__VA_ARGS__, api->backward(&p, &b), want))
  /* A bad problem: every entry point validates the problem before anything else. */
#define PROBLEM(want, ...) (FWD(want, __VA_ARGS__), BWD(want, __VA_ARGS__), \
                            fails += expect_status(api, __LINE__, "workspace_size after " #__VA_ARGS__, \
                                                   api->workspace_size(&p, &bytes), want))
  EXPECT(api->forward(NULL, &fa), FUSEDNORM_ERR_NULL_POINTER);
  EXPECT(api->forward(&good, NULL), FUSEDNORM_ERR_NULL_POINTER);
  EXPECT(api->backward(NULL, &ba), FUSEDNORM_ERR_NULL_POINTER);
  EXPECT(api->backward(&good, NULL), FUSEDNORM_ERR_NULL_POINTER);
  EXPECT(api->workspace_size(NULL, &bytes), FUSEDNORM_ERR_NULL_POINTER);
  EXPECT(api->workspace_size(&good, NULL), FUSEDNORM_ERR_NULL_POINTER);
  EXPECT(api->workspace_size(&good, &bytes), FUSEDNORM_OK);

  PROBLEM(FUSEDNORM_ERR_BAD_SHAPE, p.rows = -1);
  PROBLEM(FUSEDNORM_ERR_BAD_SHAPE, p.n = 0);
  PROBLEM(FUSEDNORM_ERR_BAD_SHAPE, p.n = -3);
  PROBLEM(FUSEDNORM_ERR_BAD_DTYPE, p.x_dtype = (fusednorm_dtype)7);
  PROBLEM(FUSEDNORM_ERR_BAD_DTYPE, p.w_dtype = (fusednorm_dtype)-1);
  PROBLEM(FUSEDNORM_ERR_BAD_CASTING, p.casting = (fusednorm_casting)3);
  PROBLEM(FUSEDNORM_ERR_BAD_MODE, p.mode = FUSEDNORM_MODE_COUNT_);
  PROBLEM(FUSEDNORM_ERR_BAD_EPS, p.eps = -1e-6f);
  PROBLEM(FUSEDNORM_ERR_BAD_EPS, p.eps = -1.0f);
  PROBLEM(FUSEDNORM_ERR_BAD_EPS, p.eps = NAN);
  PROBLEM(FUSEDNORM_ERR_BAD_EPS, p.eps = INFINITY);
  PROBLEM(FUSEDNORM_ERR_BAD_OFFSET, p.offset = NAN);

  FWD(FUSEDNORM_ERR_NULL_POINTER, f.x = NULL);
  FWD(FUSEDNORM_ERR_NULL_POINTER, f.y = NULL);
  FWD(FUSEDNORM_ERR_MISSING_OUTPUT, f.weight = NULL);
  FWD(FUSEDNORM_ERR_BAD_STRIDE, f.x_stride = 7);
  FWD(FUSEDNORM_ERR_BAD_STRIDE, f.y_stride = -8);
  FWD(FUSEDNORM_ERR_BAD_STRIDE, p.rows = INT64_MAX / 4, f.x_stride = 64); /* rows*stride overflows int64 */
  FWD(FUSEDNORM_ERR_MISSING_OUTPUT, p.has_residual = 1);
  FWD(FUSEDNORM_ERR_MISSING_OUTPUT, p.has_residual = 1, f.residual = rbuf, f.residual_stride = 8); /* no residual_out */
  FWD(FUSEDNORM_ERR_BAD_STRIDE, p.has_residual = 1, f.residual = rbuf, f.residual_stride = 8,
      f.residual_out = rbuf, f.residual_out_stride = 4);
  FWD(FUSEDNORM_OK, p.rows = 0, f.x = NULL, f.y = NULL); /* zero rows: nothing touched */

  BWD(FUSEDNORM_ERR_MISSING_OUTPUT, b.rstd = NULL);
  BWD(FUSEDNORM_ERR_MISSING_OUTPUT, b.dw = NULL);
  BWD(FUSEDNORM_ERR_NULL_POINTER, b.dy = NULL);
  BWD(FUSEDNORM_ERR_BAD_STRIDE, b.s_stride = 3);
  BWD(FUSEDNORM_ERR_BAD_STRIDE, b.ds = xbuf, b.ds_stride = 2);
  BWD(FUSEDNORM_ERR_WORKSPACE_TOO_SMALL, b.workspace_bytes = 0);
#undef PROBLEM
#undef BWD
#undef FWD
#undef EXPECT
  if (fusednorm_status_string((fusednorm_status)999) == NULL) {
    printf("FAIL status string of an unknown status is NULL\n");
    fails++;
  }
  for (int s = 0; s <= FUSEDNORM_ERR_OUT_OF_MEMORY; ++s)
    if (!strcmp(fusednorm_status_string((fusednorm_status)s), "unknown status")) {
      printf("FAIL status %d has no string\n", s);
      fails++;
    }
  printf("[%s] bad-argument checks: %s\n", api->name, fails ? "FAILED" : "OK");
  return fails;
}

fusednorm_status fn_engine_api_forward(void *ctx, const fusednorm_problem *p, const fusednorm_fwd_args *a) {
  return ((const fn_api *)ctx)->forward(p, a);
}

fusednorm_status fn_engine_api_backward(void *ctx, const fusednorm_problem *p, const fusednorm_bwd_args *a) {
  const fn_api *api = (const fn_api *)ctx;
  size_t bytes = 0;
  fusednorm_status st = api->workspace_size(p, &bytes);
  if (st != FUSEDNORM_OK) return st;
  void *ws = bytes ? malloc(bytes) : NULL;
  if (bytes && !ws) return FUSEDNORM_ERR_OUT_OF_MEMORY;
  if (ws) memset(ws, 0xff, bytes); /* stale partials must never leak into dw */
  fusednorm_bwd_args b = *a;
  b.workspace = ws, b.workspace_bytes = bytes;
  st = api->backward(p, &b);
  free(ws);
  return st;
}

uint64_t fn_engine_fresh_seed(void) {
  uint64_t s = ((uint64_t)time(NULL) << 20) ^ ((uint64_t)clock() << 40) ^ (uint64_t)(uintptr_t)&s;
  s = (s ^ (s >> 31)) * 0xbf58476d1ce4e5b9ull;
  return (s ^ (s >> 29)) | 1u; /* never 0, which means "fresh" */
}

int fn_engine_parse_args(int argc, char **argv, fn_engine_opts *o) {
  memset(o, 0, sizeof *o);
  o->mode = FUSEDNORM_MODE_AUTO;
  o->case_index = -1;
  o->repeat = 1;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--quick")) o->quick = 1;
    else if (!strcmp(a, "--legacy-rules")) o->legacy_rules = 1;
    else if (!strcmp(a, "--verbose")) o->verbose = 1;
    else if (!strcmp(a, "--big")) o->big = 1;
    else if (!strncmp(a, "--seed=", 7)) {
      char *end = NULL;
      o->seed = strtoull(a + 7, &end, 10);
      if (!a[7] || *end) {
        fprintf(stderr, "bad --seed '%s': expected a decimal integer\n", a + 7);
        return 2;
      }
    }
    else if (!strncmp(a, "--filter=", 9)) o->filter = a + 9;
    else if (!strncmp(a, "--case=", 7) || !strncmp(a, "--repeat=", 9)) {
      const int is_case = a[2] == 'c';
      const char *v = a + (is_case ? 7 : 9);
      char *end = NULL;
      long k = strtol(v, &end, 10);
      if (!*v || *end || k < (is_case ? 0 : 1) || k > 100000000) {
        fprintf(stderr, "bad %s: expected an integer >= %d\n", a, is_case ? 0 : 1);
        return 2;
      }
      if (is_case) o->case_index = (int)k;
      else o->repeat = (int)k;
    }
    else if (!strncmp(a, "--mode=", 7)) {
      int found = 0;
      for (int m = 0; m < FUSEDNORM_MODE_COUNT_; ++m)
        if (!strcmp(a + 7, fusednorm_mode_name((fusednorm_mode)m))) o->mode = (fusednorm_mode)m, found = 1;
      if (!found) {
        fprintf(stderr, "unknown mode '%s'\n", a + 7);
        return 2;
      }
    } else {
      fprintf(stderr,
              "usage: %s [--quick] [--verbose] [--big] [--legacy-rules] [--seed=N] [--case=K] [--repeat=R] "
              "[--mode=NAME] [--filter=TEXT]\n"
              "unknown argument '%s'\n",
              argv[0], a);
      return 2;
    }
  }
  return 0;
}
