/* test_api.c — the C API's contract on the CPU backend (every bad argument → its status), and
 * unit tests of the reference library itself: conversions (exhaustive over 16-bit patterns),
 * rounding, ulp distances and the error statistics on synthetic data with known errors. */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ref/fusednorm_ref.h"
#include "kernels/tests/engine.h"

static int fails;
#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);      \
      printf(__VA_ARGS__);                                        \
      printf("\n");                                               \
      fails++;                                                    \
    }                                                             \
  } while (0)

/* Every 16-bit pattern: to float and back is the identity (NaNs stay NaN). */
static void test_roundtrip_16(void) {
  for (uint32_t h = 0; h < 65536; ++h) {
    float f = fusednorm_half_to_float((uint16_t)h);
    uint16_t back = fusednorm_float_to_half(f);
    if (isnan(f)) CHECK(isnan(fusednorm_half_to_float(back)), "half %04x", h);
    else CHECK(back == h, "half %04x -> %g -> %04x", h, f, back);
    float g = fusednorm_bf16_to_float((uint16_t)h);
    uint16_t bb = fusednorm_float_to_bf16(g);
    if (isnan(g)) CHECK(isnan(fusednorm_bf16_to_float(bb)), "bf16 %04x", h);
    else CHECK(bb == h, "bf16 %04x -> %g -> %04x", h, g, bb);
  }
}

/* Rounding: midpoints between neighbours go to the even one; just above/below go to the nearest. */
static void test_rounding(void) {
  const fusednorm_dtype ds[2] = {FUSEDNORM_F16, FUSEDNORM_BF16};
  for (int k = 0; k < 2; ++k)
    for (uint32_t h = 0; h < 0x7bff; h += 7) { /* positive finite, below the largest */
      double a = fusednorm_load(&(uint16_t){(uint16_t)h}, ds[k], 0);
      double b = fusednorm_load(&(uint16_t){(uint16_t)(h + 1)}, ds[k], 0);
      if (!isfinite(b)) continue;
      double mid = 0.5 * (a + b), want = (h & 1) ? b : a;
      CHECK(fusednorm_round_to(mid, ds[k]) == want, "%s tie %g", fusednorm_dtype_name(ds[k]), mid);
      CHECK(fusednorm_round_to(mid + (b - a) * 1e-3, ds[k]) == b, "above mid");
      CHECK(fusednorm_round_to(mid - (b - a) * 1e-3, ds[k]) == a, "below mid");
      CHECK(fusednorm_ulp_distance(a, b, ds[k]) == 1, "ulp neighbours");
      CHECK(fusednorm_ulp_of(a, ds[k]) == b - a, "ulp_of %g", a);
    }
  CHECK(isinf(fusednorm_round_to(65520.0, FUSEDNORM_F16)), "65520 overflows f16");
  CHECK(fusednorm_round_to(65519.0, FUSEDNORM_F16) == 65504.0, "65519 -> 65504");
  CHECK(fusednorm_ulp_distance(-0.0, 0.0, FUSEDNORM_F32) == 0, "signed zeros");
  CHECK(fusednorm_ulp_distance(NAN, 1.0, FUSEDNORM_BF16) == INT64_MAX, "NaN vs number");
  CHECK(fusednorm_ulp_distance(NAN, NAN, FUSEDNORM_BF16) == 0, "NaN vs NaN");
  CHECK(fusednorm_ulp_distance(-1.0, 1.0, FUSEDNORM_BF16) == 2 * 0x3f80, "across zero");
}

/* Rounding of any double against an independent model, nearbyint(v / q) * q with q the format's
 * spacing from frexp/ldexp: random doubles of every magnitude (subnormal ranges, overflow, both
 * signs) and exact ties and their neighbours; bits compared, so the sign of a zero counts. */
static double model_round(double v, int p, int emin, double max) {
  if (!isfinite(v) || v == 0.0) return v;
  int e;
  frexp(v, &e); /* v = m 2^e, m in [0.5, 1): leading bit at e - 1 */
  const int lead = e - 1 < emin ? emin : e - 1;
  const double r = nearbyint(v / ldexp(1.0, lead - (p - 1))) * ldexp(1.0, lead - (p - 1));
  if (fabs(r) > max) return copysign(INFINITY, v);
  return r == 0.0 ? copysign(0.0, v) : r;
}

static void test_rounding_random(void) {
  const uint64_t seed = fn_engine_fresh_seed();
  uint64_t x = seed | 1;
#define XS() (x ^= x << 13, x ^= x >> 7, x ^= x << 17)
  const struct { fusednorm_dtype d; int p, emin; double max; } fs[2] = {
      {FUSEDNORM_F16, 11, -14, 65504.0}, {FUSEDNORM_BF16, 8, -126, 0x1.fep127}};
  long bad = 0;
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 400000; ++i) {
      uint64_t u = XS();
      double v;
      switch (i % 4) {
        case 0: memcpy(&v, &u, 8); break; /* any bit pattern */
        case 1: v = ldexp((double)(u >> 11) * 0x1p-53, (int)(XS() % 340) - 170); break;
        case 2: { /* a tie of the format, or a neighbouring double */
          const double q = ldexp(1.0, (int)(XS() % 60) - 40 - fs[k].p + 1);
          v = ((double)(XS() % (1u << fs[k].p)) + 0.5) * q;
          if (u & 2) v = nextafter(v, (u & 4) ? INFINITY : -INFINITY);
          break;
        }
        default: v = ldexp((double)(u >> 11) * 0x1p-53, fs[k].emin - (int)(XS() % 16)); break;
      }
      if (i % 8 >= 4) v = -v;
      const double got = fusednorm_round_to(v, fs[k].d), want = model_round(v, fs[k].p, fs[k].emin, fs[k].max);
      if (memcmp(&got, &want, 8) && !(isnan(got) && isnan(want)) && bad++ < 5)
        printf("FAIL [api] round_to(%a, %s) = %a, model %a (seed %llu)\n", v,
               fusednorm_dtype_name(fs[k].d), got, want, (unsigned long long)seed);
    }
#undef XS
  fails += bad != 0;
  printf("[api] round_to against the model on 800000 doubles, seed %llu: %ld differ\n",
         (unsigned long long)seed, bad);
}

/* Statistics on synthetic data with known errors. */
static void test_stats(void) {
  float got[8] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, NAN};
  double ref[8] = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, NAN};
  fusednorm_err_stats st;
  fusednorm_err_stats_clear(&st);
  got[2] = nextafterf(3.0f, 4.0f);               /* 1 ulp */
  got[5] = 6.0f + 3 * (nextafterf(6.0f, 7.0f) - 6.0f); /* 3 ulp */
  fusednorm_err_stats_add(&st, got, FUSEDNORM_F32, 8, ref, 1, 8, 10);
  CHECK(st.count == 8 && st.nonfinite_ref == 1 && st.nan_mismatch == 0, "counts");
  CHECK(st.ulp_hist[0] == 5 && st.ulp_hist[1] == 1 && st.ulp_hist[3] == 1, "hist %lld %lld %lld %lld",
        (long long)st.ulp_hist[0], (long long)st.ulp_hist[1], (long long)st.ulp_hist[2],
        (long long)st.ulp_hist[3]);
  CHECK(st.max_ulp == 3 && st.within1 == 6, "max ulp %lld", (long long)st.max_ulp);
  CHECK(st.worst_row == 10 && st.worst_col == 5, "worst at [%lld,%lld]", (long long)st.worst_row,
        (long long)st.worst_col);
  CHECK(fabs(st.max_abs - 3 * 0x1p-21) < 1e-12, "max abs %g", st.max_abs);
  double l2 = sqrt((0x1p-22 * 0x1p-22 + 9 * 0x1p-21 * 0x1p-21) / (1 + 4 + 9 + 16 + 25 + 36 + 49));
  CHECK(fabs(fusednorm_err_stats_rel_l2(&st) - l2) < 1e-15, "rel l2");
  fusednorm_err_stats a, b;
  fusednorm_err_stats_clear(&a), fusednorm_err_stats_clear(&b);
  fusednorm_err_stats_add(&a, got, FUSEDNORM_F32, 8, ref, 1, 4, 0);
  fusednorm_err_stats_add(&b, got + 4, FUSEDNORM_F32, 8, ref + 4, 1, 4, 0);
  fusednorm_err_stats_merge(&a, &b);
  CHECK(a.count == 8 && a.max_ulp == 3 && a.within1 == st.within1 && a.sum_sq_err == st.sum_sq_err,
        "merge");
  float nanned[8];
  memcpy(nanned, got, sizeof got);
  nanned[0] = NAN; /* an unwritten (poisoned) element must be caught */
  fusednorm_err_stats_clear(&st);
  fusednorm_err_stats_add(&st, nanned, FUSEDNORM_F32, 8, ref, 1, 8, 0);
  CHECK(st.nan_mismatch == 1, "NaN where the reference is finite");
  /* The y rule must reject 2 ulps in a 16-bit dtype and accept 1. */
  fusednorm_problem p = fusednorm_problem_init(1, 2, FUSEDNORM_BF16, FUSEDNORM_BF16);
  uint16_t y[2] = {fusednorm_float_to_bf16(1.0f), (uint16_t)(fusednorm_float_to_bf16(1.0f) + 1)};
  double yr[2] = {1.0, 1.0};
  fusednorm_err_stats g, nv;
  fusednorm_err_stats_clear(&g), fusednorm_err_stats_clear(&nv);
  fusednorm_err_stats_add(&g, y, FUSEDNORM_BF16, 2, yr, 1, 2, 0);
  fusednorm_err_stats_add(&nv, y, FUSEDNORM_BF16, 2, yr, 1, 2, 0);
  CHECK(fusednorm_rule_y(&p, &g, &nv, NULL, 0), "1 ulp accepted");
  y[1] += 1;
  fusednorm_err_stats_clear(&g);
  fusednorm_err_stats_add(&g, y, FUSEDNORM_BF16, 2, yr, 1, 2, 0);
  CHECK(!fusednorm_rule_y(&p, &g, &nv, NULL, 0), "2 ulp rejected");
}

/* The Llama backward is the gradient of the forward with its roundings passed straight through:
 * the Jacobian at the true point h = s*rstd, whose dx is orthogonal to the input up to eps
 * (sum dx*s = rstd * sum(g*s) * eps * rstd^2). At the rounded point RN_bf16(h) it is not.
 * Checked on the float64 reference, on the CPU backend (bf16 dx, at least 2x closer to
 * orthogonal than the rounded-point gradient), and dw against sum dy*RN(h). */
static void test_llama_true_point(void) {
  enum { N = 4096 };
  static uint16_t x[N], dy[N], dx[N], w[N];
  float rstd, dw[N];
  static double dxr[N], dwr[N];
  uint64_t st = 99;
  for (int j = 0; j < N; ++j) {
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    const double a = (double)((int)(st >> 40) % 2001 - 1000) / 400.0;
    const double b = (double)((int)(st >> 20) % 2001 - 1000) / 700.0;
    x[j] = fusednorm_float_to_bf16((float)a);
    w[j] = fusednorm_float_to_bf16((float)(1.0 + b / 4.0));
    dy[j] = fusednorm_float_to_bf16((float)(0.9 * a + b)); /* correlated with the output */
  }
  fusednorm_problem p = fusednorm_problem_init(1, N, FUSEDNORM_BF16, FUSEDNORM_BF16);
  p.casting = FUSEDNORM_CAST_LLAMA;
  p.w_dtype = FUSEDNORM_F32;
  float wf[N];
  for (int j = 0; j < N; ++j) wf[j] = fusednorm_bf16_to_float(w[j]);
  uint16_t y[N];
  fusednorm_fwd_args fa = {x, N, NULL, 0, wf, y, N, NULL, 0, &rstd, {0}, {0}, {0}, {0}};
  CHECK(fusednorm_forward_cpu(&p, &fa) == FUSEDNORM_OK, "forward");
  size_t bytes = 0;
  fusednorm_backward_workspace_size_cpu(&p, &bytes);
  static float ws[64 * N];
  CHECK(bytes <= sizeof ws, "workspace %zu", bytes);
  fusednorm_bwd_args ba = {dy, N, x, N, NULL, 0, wf, &rstd, dx, N, dw, ws, sizeof ws, {0}, {0}, {0}, {0}};
  CHECK(fusednorm_backward_cpu(&p, &ba) == FUSEDNORM_OK, "backward");
  CHECK(fusednorm_ref_backward(&p, &ba, dxr, dwr) == FUSEDNORM_OK, "reference backward");
  double sx = 0, xx = 0, ss = 0, cx = 0, cc = 0, rx = 0, rr = 0, dwerr = 0;
  double dot_rounded = 0.0;
  for (int j = 0; j < N; ++j) {
    const double s = fusednorm_bf16_to_float(x[j]), g = fusednorm_bf16_to_float(dy[j]) * wf[j];
    dot_rounded += g * fusednorm_round_to((float)s * rstd, FUSEDNORM_BF16);
  }
  for (int j = 0; j < N; ++j) {
    const double s = fusednorm_bf16_to_float(x[j]), g = fusednorm_bf16_to_float(dy[j]) * wf[j];
    const double nb = fusednorm_round_to((float)s * rstd, FUSEDNORM_BF16);
    const double at_rounded = rstd * (g - nb * dot_rounded / N);
    const double c = fusednorm_bf16_to_float(dx[j]);
    sx += dxr[j] * s, xx += dxr[j] * dxr[j], ss += s * s;
    cx += c * s, cc += c * c;
    rx += at_rounded * s, rr += at_rounded * at_rounded;
    const double want_dw = fusednorm_bf16_to_float(dy[j]) * nb;
    if (fabs(dw[j] - want_dw) > dwerr) dwerr = fabs(dw[j] - want_dw);
  }
  const double cos_ref = fabs(sx) / sqrt(xx * ss), cos_cpu = fabs(cx) / sqrt(cc * ss);
  const double cos_rounded = fabs(rx) / sqrt(rr * ss);
  CHECK(cos_ref < 1e-6, "reference dx not orthogonal to x: cosine %.3g", cos_ref);
  CHECK(cos_cpu < 2e-3 && cos_cpu < cos_rounded / 2, "cpu bf16 dx cosine %.3g (rounded point %.3g)",
        cos_cpu, cos_rounded);
  CHECK(dwerr <= 0x1p-20, "llama dw must be sum dy*RN(h): max error %.3g", dwerr);
  printf("[api] llama true point: cosine(dx, x) reference %.2g, cpu bf16 %.2g, rounded point %.2g\n",
         cos_ref, cos_cpu, cos_rounded);
}

/* The reference and the judges on one thread and on four (fusednorm_ref.c takes large calls apart
 * over threads): the same bits (y, rstd, s, dx, dw of the reference; every statistic), the same
 * verdicts and the same first-failure message, the failure planted in two rows of different
 * blocks so that it is the earlier one's. Fresh random inputs, the seed printed. */
static int stats_same(const fusednorm_err_stats *a, const fusednorm_err_stats *b) {
  return a->count == b->count && a->nonfinite_ref == b->nonfinite_ref && a->nan_mismatch == b->nan_mismatch &&
         !memcmp(a->ulp_hist, b->ulp_hist, sizeof a->ulp_hist) && a->within1 == b->within1 &&
         a->max_ulp == b->max_ulp && a->sum_sq_err == b->sum_sq_err && a->sum_sq_ref == b->sum_sq_ref &&
         a->max_abs_ref == b->max_abs_ref && a->max_rel == b->max_rel && a->max_excess == b->max_excess &&
         a->max_excess4 == b->max_excess4 && a->max_abs == b->max_abs && a->worst_row == b->worst_row &&
         a->worst_col == b->worst_col && a->worst_got == b->worst_got && a->worst_ref == b->worst_ref;
}

static void test_threads_same_bits(void) {
  enum { M = 700, N = 1000, E = M * N };
  const uint64_t seed = fn_engine_fresh_seed();
  uint16_t *x = malloc(E * 2), *y = malloc(E * 2), *dy = malloc(E * 2), *ds = malloc(E * 2), *dx = malloc(E * 2);
  uint16_t *w = malloc(N * 2), *dw = malloc(N * 2);
  float *rstd = malloc(M * sizeof(float));
  double *ref[2][5];
  const size_t ref_len[5] = {E, M, E, E, N}; /* y, rstd, s, dx, dw */
  fusednorm_err_stats st[2][2];
  int vf[2][2], vb[2][2];
  char why_f[2][2][1024], why_b[2][2][1024];
  uint64_t r = seed;
#define RND() (r = r * 6364136223846793005ull + 1442695040888963407ull, (double)(int64_t)(r >> 11) * 0x1p-53)
  for (int k = 0; k < E; ++k) {
    x[k] = fusednorm_float_to_bf16((float)(4.0 * RND() - 2.0));
    dy[k] = fusednorm_float_to_bf16((float)(2.0 * RND() - 1.0));
    ds[k] = fusednorm_float_to_bf16((float)(RND() - 0.5));
  }
  for (int j = 0; j < N; ++j) w[j] = fusednorm_float_to_bf16((float)(0.5 + RND()));
#undef RND
  fusednorm_problem p = fusednorm_problem_init(M, N, FUSEDNORM_BF16, FUSEDNORM_BF16);
  fusednorm_fwd_args fa = {x, N, NULL, 0, w, y, N, NULL, 0, rstd, {0}, {0}, {0}, {0}};
  size_t bytes = 0;
  fusednorm_backward_workspace_size_cpu(&p, &bytes);
  void *wsp = malloc(bytes > 0 ? bytes : 1);
  fusednorm_bwd_args ba = {dy, N, x, N, ds, N, w, rstd, dx, N, dw, wsp, bytes, {0}, {0}, {0}, {0}};
  CHECK(fusednorm_forward_cpu(&p, &fa) == FUSEDNORM_OK && fusednorm_backward_cpu(&p, &ba) == FUSEDNORM_OK,
        "cpu backend, seed %llu", (unsigned long long)seed);
  const int threads[2] = {1, 4};
  for (int t = 0; t < 2; ++t) {
    omp_set_num_threads(threads[t]);
    for (int k = 0; k < 5; ++k) ref[t][k] = malloc(ref_len[k] * sizeof(double));
    CHECK(fusednorm_ref_forward(&p, &fa, ref[t][0], ref[t][2], ref[t][1]) == FUSEDNORM_OK, "ref forward");
    CHECK(fusednorm_ref_backward(&p, &ba, ref[t][3], ref[t][4]) == FUSEDNORM_OK, "ref backward");
    fusednorm_err_stats_clear(&st[t][0]), fusednorm_err_stats_clear(&st[t][1]);
    fusednorm_err_stats_add(&st[t][0], y, FUSEDNORM_BF16, N, ref[t][0], M, N, 0);
    fusednorm_err_stats_add(&st[t][1], dx, FUSEDNORM_BF16, N, ref[t][3], M, N, 0);
    for (int planted = 0; planted < 2; ++planted) {
      /* planted: y and dx of rows 600 and 130 (blocks 9 and 2 of 65 rows) off by 64 ulps */
      const int rows[2] = {600, 130};
      uint16_t keep_y[2], keep_dx[2];
      for (int q = 0; q < 2 && planted; ++q) {
        keep_y[q] = y[rows[q] * N + 7], keep_dx[q] = dx[rows[q] * N + 7];
        y[rows[q] * N + 7] += 64, dx[rows[q] * N + 7] += 64;
      }
      vf[t][planted] = fusednorm_check_forward(&p, &fa, why_f[t][planted], sizeof why_f[t][planted]);
      vb[t][planted] = fusednorm_check_backward(&p, &ba, why_b[t][planted], sizeof why_b[t][planted]);
      for (int q = 0; q < 2 && planted; ++q) y[rows[q] * N + 7] = keep_y[q], dx[rows[q] * N + 7] = keep_dx[q];
    }
  }
  omp_set_num_threads(omp_get_num_procs());
  for (int k = 0; k < 5; ++k)
    CHECK(!memcmp(ref[0][k], ref[1][k], ref_len[k] * sizeof(double)), "reference output %d differs on 4 threads (seed %llu)",
          k, (unsigned long long)seed);
  CHECK(stats_same(&st[0][0], &st[1][0]) && stats_same(&st[0][1], &st[1][1]), "statistics differ on 4 threads (seed %llu)",
        (unsigned long long)seed);
  CHECK(vf[0][0] && vb[0][0] && vf[1][0] && vb[1][0], "the cpu backend judged wrong (seed %llu): %s / %s",
        (unsigned long long)seed, why_f[0][0], why_b[0][0]);
  CHECK(!vf[0][1] && !vb[0][1] && !vf[1][1] && !vb[1][1], "a 64-ulp error passed (seed %llu)", (unsigned long long)seed);
  for (int planted = 0; planted < 2; ++planted)
    CHECK(!strcmp(why_f[0][planted], why_f[1][planted]) && !strcmp(why_b[0][planted], why_b[1][planted]),
          "verdict messages differ on 4 threads (seed %llu): '%s' / '%s', '%s' / '%s'", (unsigned long long)seed,
          why_f[0][planted], why_f[1][planted], why_b[0][planted], why_b[1][planted]);
  CHECK(strstr(why_f[1][1], "y[130,7]") && strstr(why_b[1][1], "dx[130,7]"), "not the first failure: '%s' / '%s'",
        why_f[1][1], why_b[1][1]);
  printf("[api] reference and judges on 1 and 4 threads, %dx%d bf16 (seed %llu): same bits, verdicts and messages\n", M,
         N, (unsigned long long)seed);
  for (int t = 0; t < 2; ++t)
    for (int k = 0; k < 5; ++k) free(ref[t][k]);
  free(x), free(y), free(dy), free(ds), free(dx), free(w), free(dw), free(rstd), free(wsp);
}

int main(void) {
  test_llama_true_point();
  test_threads_same_bits();
  test_roundtrip_16();
  test_rounding();
  test_rounding_random();
  test_stats();
  fn_api cpu = {"cpu", fusednorm_forward_cpu, fusednorm_backward_cpu,
                fusednorm_backward_workspace_size_cpu};
  fails += fn_engine_check_bad_args(&cpu);
  CHECK(!strcmp(fusednorm_mode_name(FUSEDNORM_MODE_ROW_PACKED), "row_packed"), "mode name");
  CHECK(fusednorm_mode_name((fusednorm_mode)99) == NULL, "bad mode name");
  CHECK(fusednorm_dtype_size(FUSEDNORM_BF16) == 2 && fusednorm_dtype_size((fusednorm_dtype)9) == 0,
        "dtype size");
  printf("test_api: %s\n", fails ? "FAILED" : "OK");
  return fails ? 1 : 0;
}
