/*
 * test_select.c — CPU test of the pure mode heuristic fusednorm_select_launch (kernels/src/select.c).
 *
 * 1. Pins AUTO's decisions on a table of shapes for an H200 (132 SMs, sm_90): a change of the
 *    heuristic must change this table deliberately, with the measurement in kernels/RESULTS.md.
 * 2. Every forced mode is honoured, or reports FUSEDNORM_ERR_MODE_UNSUPPORTED exactly where the
 *    header documents a limit (row-packed with n > 1024; wide without clusters, cc < 9).
 * 3. Invariants of every configuration the launchers rely on: launch bounds respected, grid a
 *    multiple of the cluster size and <= 2^31-1, teams tile the CTA, a row-packed backward team
 *    holds its whole row in registers (its dw is combined in shared memory).
 * Exit 0 when all pass, 1 otherwise (prints each failure).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "kernels/cuda/launch_config.h"
#include "kernels/include/fusednorm.h"
#include "kernels/src/common.h"

static int failures = 0;
#define CHECK(cond, ...)                                              \
  do {                                                                \
    if (!(cond)) {                                                    \
      ++failures;                                                     \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);          \
      printf(__VA_ARGS__);                                            \
      printf("\n");                                                   \
    }                                                                 \
  } while (0)

static const fusednorm_device_info kH200 = {132, 9, 0, 2048, 65536, 233472};
static const fusednorm_device_info kA100 = {108, 8, 0, 2048, 65536, 167936};

static fusednorm_problem prob(int64_t rows, int64_t n, fusednorm_dtype x, fusednorm_mode mode) {
  fusednorm_problem p = fusednorm_problem_init(rows, n, x, x);
  p.mode = mode;
  return p;
}

/* Invariants of a split-row wide backward (rmsnorm_bwd_wide.cu): the geometry launch_config.h
 * gives is what select.c returned; the grid is co-resident (one CTA per SM at most: the CTAs of a
 * row wait for each other); the chunks cover the row with no empty chunk; the threads hold the
 * chunk within the instance's launch bound; the ring fits the shared memory with >= 2 stages and
 * at least one row of lookahead between a row's dot and its dx. */
static void check_split(const fusednorm_problem *p, const fusednorm_launch *l, const fn_split_geom *g,
                        const fusednorm_device_info *d, const char *what) {
  const int vec = fn_vec_elems(p->x_dtype);
  CHECK(l->ctas_per_row == g->gc && l->grid == (int64_t)g->gc * g->gr, "%s grid %lld vs geometry %d x %d", what,
        (long long)l->grid, g->gc, g->gr);
  CHECK(l->block_threads == g->threads && l->rows_per_cta == 1, "%s threads %d", what, l->block_threads);
  CHECK(l->grid <= d->sm_count, "%s grid %lld > %d SMs: not co-resident", what, (long long)l->grid, d->sm_count);
  CHECK(g->gr >= 1 && g->gr <= p->rows, "%s gr %d", what, g->gr);
  CHECK(g->chunk % vec == 0 && (int64_t)g->gc * g->chunk >= p->n && (int64_t)(g->gc - 1) * g->chunk < p->n,
        "%s chunk %lld x %d vs n %lld", what, (long long)g->chunk, g->gc, (long long)p->n);
  CHECK(g->spt == 1 || g->spt == 2 || g->spt == 4, "%s spt %d", what, g->spt);
  CHECK(l->block_threads % 32 == 0 && l->block_threads <= FN_SPLIT_MAX_THREADS(g->spt, p->x_dtype == FUSEDNORM_F32 ? 4 : 2) &&
            (int64_t)l->block_threads * g->spt * vec >= g->chunk,
        "%s %d threads x %d slots do not hold %lld columns", what, l->block_threads, g->spt, (long long)g->chunk);
  CHECK(g->stages >= 2 && g->stages <= FN_SPLIT_MAX_STAGES && g->lookahead >= 1 && g->lookahead < g->stages,
        "%s stages %d lookahead %d", what, g->stages, g->lookahead);
  CHECK(g->smem == (size_t)g->stages * (size_t)(2 + (p->has_residual ? 1 : 0)) * (size_t)g->chunk *
                       (size_t)(p->x_dtype == FUSEDNORM_F32 ? 4 : 2) &&
            g->smem + 4096 <= d->smem_per_sm && g->smem <= 227 * 1024,
        "%s ring %zu bytes", what, g->smem);
  CHECK(fn_partial_rows(l) == g->gr, "%s partial rows", what);
}

/* Invariants of one selected configuration. */
static void check_invariants(const fusednorm_problem *p, int bwd, const fusednorm_launch *l,
                             const fusednorm_device_info *d, const char *what) {
  const int vec = fn_vec_elems(p->x_dtype);
  fn_split_geom g;
  if (bwd && l->mode == FUSEDNORM_MODE_WIDE &&
      fn_split_bwd(p->rows, p->n, p->x_dtype, p->has_weight, p->has_residual, p->mode == FUSEDNORM_MODE_AUTO,
                   d->sm_count, d->smem_per_sm, &g)) {
    check_split(p, l, &g, d, what);
    return;
  }
  CHECK(!(bwd && l->mode == FUSEDNORM_MODE_WIDE && p->has_weight && p->n <= 1048576 &&
          !(p->mode == FUSEDNORM_MODE_AUTO && (p->n + vec - 1) / vec <= FN_SPLIT_AUTO_MIN_SLOTS)),
        "%s: no split-row geometry for a wide backward with weight, n <= 2^20", what);
  const int team = l->block_threads / l->rows_per_cta;
  const int64_t chunk = l->ctas_per_row > 1 ? fn_cluster_chunk(p->n, l->ctas_per_row, vec) : p->n;
  const int64_t slots = (chunk + vec - 1) / vec;
  const int cache = fn_cache_for(l->mode, bwd, slots, team);
  CHECK(l->vec_elems == vec, "%s", what);
  CHECK(l->block_threads >= 32 && l->block_threads % 32 == 0, "%s threads %d", what, l->block_threads);
  CHECK(l->block_threads <= fn_max_threads(bwd, cache), "%s threads %d > bound for cache %d", what,
        l->block_threads, cache);
  CHECK(team * l->rows_per_cta == l->block_threads, "%s teams do not tile the CTA", what);
  CHECK(team == l->block_threads || (team <= 32 && (team & (team - 1)) == 0), "%s team %d", what, team);
  CHECK(l->ctas_per_row >= 1 && l->ctas_per_row <= FN_MAX_CLUSTER, "%s cluster %d", what, l->ctas_per_row);
  CHECK(l->grid >= 1 && l->grid <= INT_MAX && l->grid % l->ctas_per_row == 0, "%s grid %lld", what,
        (long long)l->grid);
  CHECK(l->ctas_per_row == 1 || l->mode == FUSEDNORM_MODE_WIDE, "%s cluster outside wide", what);
  if (l->rows_per_cta > 1) {
    CHECK(l->mode == FUSEDNORM_MODE_ROW_PACKED, "%s", what);
    CHECK((int64_t)cache * team * vec >= p->n, "%s row-packed team does not cache its row", what);
  }
  if (l->mode == FUSEDNORM_MODE_MULTI_WAVE_RELOAD) CHECK(cache == 0, "%s reload caches", what);
  /* AUTO's cached forward is the lean kernel on aligned rows (never the generic cached one). */
  if (!bwd && p->mode == FUSEDNORM_MODE_AUTO && l->mode == FUSEDNORM_MODE_MULTI_WAVE_CACHED)
    CHECK(fn_fwd_row(l->mode, l->ctas_per_row, l->rows_per_cta, team, p->n, vec, p->has_residual,
                     p->has_weight && p->w_dtype == FUSEDNORM_F32, 1),
          "%s: AUTO's cached forward is not the lean kernel", what);
  if (bwd) {
    /* Bounded partial-dw workspace: at most a few waves of CTAs whatever the row count. */
    CHECK(fn_partial_rows(l) <= 4 * 132 * 32, "%s %lld partial rows", what, (long long)fn_partial_rows(l));
  }
}

typedef struct {
  int64_t rows, n;
  fusednorm_dtype x;
  int bwd;
  fusednorm_mode mode;   /* expected AUTO decision */
  int threads, rows_per_cta, cluster;
  int fused; /* has_residual (0 where omitted) */
} pinned;

/* AUTO on an H200. Thresholds and their evidence: select.c / kernels/RESULTS.md. */
#define RP FUSEDNORM_MODE_ROW_PACKED
#define RELOAD FUSEDNORM_MODE_MULTI_WAVE_RELOAD
#define PERS FUSEDNORM_MODE_PERSISTENT
#define WIDE FUSEDNORM_MODE_WIDE
#define MWC FUSEDNORM_MODE_MULTI_WAVE_CACHED
static const pinned kPinned[] = {
    /* QK-norm, head_dim 128, millions of rows: 16 lanes x 1 slot per row, 16 rows per CTA */
    {1048576, 128, FUSEDNORM_BF16, 0, RP, 256, 16, 1},
    {1048576, 128, FUSEDNORM_BF16, 1, RP, 256, 16, 1},
    {65536, 128, FUSEDNORM_BF16, 0, RP, 256, 16, 1},
    {65536, 64, FUSEDNORM_F32, 0, RP, 256, 16, 1},
    /* Row-packed up to 32 slots in both directions; just above, one small CTA per row
     * (select.c: H200 runs of 2026-11-22 01:08 and 02:53 UTC). */
    {262144, 256, FUSEDNORM_BF16, 1, RP, 256, 8, 1},  /* 32 slots: the last row-packed width */
    {262144, 256, FUSEDNORM_BF16, 1, RP, 256, 8, 1, 1},
    {262144, 256, FUSEDNORM_BF16, 0, RP, 256, 8, 1},
    {131072, 512, FUSEDNORM_BF16, 0, PERS, 64, 1, 1},  /* 64 slots: persistent (pipelined) */
    {131072, 512, FUSEDNORM_BF16, 0, MWC, 64, 1, 1, 1}, /* fused add: lean cached from 33 slots */
    {65536, 128, FUSEDNORM_F32, 0, RP, 256, 8, 1},
    {65536, 256, FUSEDNORM_F32, 0, PERS, 64, 1, 1},
    {65536, 256, FUSEDNORM_F32, 1, PERS, 64, 1, 1},
    {262144, 512, FUSEDNORM_BF16, 1, PERS, 64, 1, 1},
    {262144, 512, FUSEDNORM_BF16, 1, PERS, 64, 1, 1, 1},
    {4096, 1024, FUSEDNORM_BF16, 0, MWC, 64, 1, 1},  /* plain fwd from 65 slots: lean cached */
    {65536, 1024, FUSEDNORM_BF16, 0, MWC, 64, 1, 1, 1},
    {4096, 1000, FUSEDNORM_F16, 1, PERS, 64, 1, 1},
    {4096, 1024, FUSEDNORM_F32, 1, PERS, 64, 1, 1},   /* 256 slots: one CTA per row */
    {65536, 1024, FUSEDNORM_F32, 0, MWC, 64, 1, 1},
    /* Hidden sizes: forward one CTA per row, 4 slots per thread (the lean kernel), backward keeps
     * the row in registers (one wave). */
    {16384, 4096, FUSEDNORM_BF16, 0, MWC, 128, 1, 1},
    {16384, 4096, FUSEDNORM_BF16, 1, PERS, 128, 1, 1},
    {8192, 2880, FUSEDNORM_BF16, 0, MWC, 96, 1, 1},
    {4096, 7168, FUSEDNORM_F16, 1, PERS, 224, 1, 1},
    {8192, 8192, FUSEDNORM_BF16, 0, MWC, 256, 1, 1},
    {16384, 8192, FUSEDNORM_BF16, 1, PERS, 256, 1, 1},
    {8, 8192, FUSEDNORM_BF16, 0, MWC, 256, 1, 1},
    {8192, 16384, FUSEDNORM_BF16, 1, PERS, 512, 1, 1},
    /* Wider: forward one CTA per row (lean cached to 2048 slots, then cached + streamed),
     * backward clusters. */
    {8192, 16384, FUSEDNORM_BF16, 0, MWC, 512, 1, 1},
    {8192, 16384, FUSEDNORM_BF16, 0, MWC, 512, 1, 1, 1},
    {4096, 32768, FUSEDNORM_BF16, 0, PERS, 1024, 1, 1, 1},
    {4096, 32768, FUSEDNORM_BF16, 0, MWC, 1024, 1, 1},  /* plain, 16-bit weight: lean to 4096 slots */
    {4096, 16384, FUSEDNORM_F32, 0, MWC, 1024, 1, 1},
    {2048, 65536, FUSEDNORM_BF16, 0, PERS, 1024, 1, 1},
    {16384, 7168, FUSEDNORM_F32, 0, MWC, 448, 1, 1},
    {16384, 7168, FUSEDNORM_F32, 0, MWC, 448, 1, 1, 1},
    {8192, 8192, FUSEDNORM_F32, 0, MWC, 512, 1, 1},
    /* f32 fused-add backward: persistent (the lean kernel) at every width up to 2048 slots */
    {32768, 4096, FUSEDNORM_F32, 1, PERS, 256, 1, 1, 1},
    {16384, 7168, FUSEDNORM_F32, 1, PERS, 448, 1, 1, 1},
    {4096, 4096, FUSEDNORM_F32, 1, PERS, 256, 1, 1, 1},
    {32768, 4096, FUSEDNORM_F32, 1, PERS, 256, 1, 1},
    {32768, 4096, FUSEDNORM_BF16, 1, PERS, 128, 1, 1, 1},
    {1024, 65536, FUSEDNORM_BF16, 0, PERS, 1024, 1, 1},
    {256, 1048576, FUSEDNORM_BF16, 0, PERS, 1024, 1, 1},
    /* Backward, wider than one CTA's registers: up to FN_SPLIT_AUTO_MIN_SLOTS slots (16-bit
     * n <= 32768, f32 n <= 16384) the cluster kernel (<= 8 CTAs per row, unchanged), beyond it
     * the split-row kernel (rmsnorm_bwd_wide.cu: gc CTAs per row of <= 512 slots each, shown in
     * the cluster column, 512 threads (FN_SPLIT_THREADS), one CTA per SM). Evidence:
     * launch_config.h, FN_SPLIT_AUTO_MIN_SLOTS. */
    {2048, 32768, FUSEDNORM_BF16, 1, WIDE, 512, 1, 2},
    {1024, 65536, FUSEDNORM_BF16, 1, WIDE, 512, 1, 16},   /* 8192 slots: split */
    {1024, 65536, FUSEDNORM_BF16, 1, WIDE, 512, 1, 16, 1},
    {4096, 32768, FUSEDNORM_F32, 1, WIDE, 512, 1, 16},
    {4096, 16384, FUSEDNORM_F32, 1, WIDE, 512, 1, 2},
    {512, 131072, FUSEDNORM_BF16, 1, WIDE, 512, 1, 32},
    {512, 262144, FUSEDNORM_BF16, 1, WIDE, 512, 1, 64},   /* 32768 slots: split */
    {512, 262144, FUSEDNORM_BF16, 1, WIDE, 512, 1, 64, 1},
    {256, 1048576, FUSEDNORM_BF16, 1, WIDE, 512, 1, 132}, /* 993 slots per CTA: 512 x 2 */
    {256, 1048576, FUSEDNORM_BF16, 1, WIDE, 512, 1, 132, 1},
    {256, 1048576, FUSEDNORM_F32, 1, WIDE, 512, 1, 132},  /* 1986 slots per CTA: 512 x 4 */
    {512, 131072, FUSEDNORM_F32, 1, WIDE, 512, 1, 64},    /* f32: 32768 slots, split */
};

static void test_pinned(void) {
  size_t i;
  for (i = 0; i < sizeof kPinned / sizeof kPinned[0]; ++i) {
    const pinned *t = &kPinned[i];
    fusednorm_problem p = prob(t->rows, t->n, t->x, FUSEDNORM_MODE_AUTO);
    fusednorm_launch l;
    char what[128];
    fusednorm_status st;
    p.has_residual = t->fused;
    st = fusednorm_select_launch(&p, t->bwd, &kH200, &l);
    snprintf(what, sizeof what, "auto %s%s %lldx%lld %s", t->fused ? "fused " : "", t->bwd ? "bwd" : "fwd",
             (long long)t->rows, (long long)t->n, fusednorm_dtype_name(t->x));
    CHECK(st == FUSEDNORM_OK, "%s status %d", what, st);
    if (st != FUSEDNORM_OK) continue;
    CHECK(l.mode == t->mode, "%s picked %s, pinned %s", what, fusednorm_mode_name(l.mode),
          fusednorm_mode_name(t->mode));
    CHECK(l.block_threads == t->threads, "%s threads %d, pinned %d", what, l.block_threads, t->threads);
    CHECK(l.rows_per_cta == t->rows_per_cta, "%s rows/cta %d, pinned %d", what, l.rows_per_cta,
          t->rows_per_cta);
    CHECK(l.ctas_per_row == t->cluster, "%s cluster %d, pinned %d", what, l.ctas_per_row, t->cluster);
    check_invariants(&p, t->bwd, &l, &kH200, what);
  }
}

/* Every forced mode over a grid of shapes: honoured, or unsupported where documented. */
static void test_forced(void) {
  static const int64_t rows[] = {1, 7, 199, 4096, 1048576, 2147483647LL};
  static const int64_t ns[] = {1, 7, 64, 127, 128, 1000, 1024, 1025, 2880, 4096, 8192, 65536, 1048576};
  static const fusednorm_dtype xs[] = {FUSEDNORM_F32, FUSEDNORM_F16, FUSEDNORM_BF16};
  const fusednorm_device_info *devs[] = {&kH200, &kA100};
  int m, r, c, x, bwd, d;
  for (d = 0; d < 2; ++d)
    for (m = 0; m < FUSEDNORM_MODE_COUNT_; ++m)
      for (r = 0; r < (int)(sizeof rows / sizeof rows[0]); ++r)
        for (c = 0; c < (int)(sizeof ns / sizeof ns[0]); ++c)
          for (x = 0; x < 3; ++x)
            for (bwd = 0; bwd < 2; ++bwd) {
              fusednorm_problem p = prob(rows[r], ns[c], xs[x], (fusednorm_mode)m);
              fusednorm_launch l;
              char what[160];
              fusednorm_status st = fusednorm_select_launch(&p, bwd, devs[d], &l);
              int documented = (m == FUSEDNORM_MODE_ROW_PACKED && ns[c] > FN_ROW_PACKED_MAX_N) ||
                               (m == FUSEDNORM_MODE_WIDE && devs[d]->cc_major < 9);
              snprintf(what, sizeof what, "%s %s %lldx%lld %s cc%d", fusednorm_mode_name((fusednorm_mode)m),
                       bwd ? "bwd" : "fwd", (long long)rows[r], (long long)ns[c], fusednorm_dtype_name(xs[x]),
                       devs[d]->cc_major);
              if (documented) {
                CHECK(st == FUSEDNORM_ERR_MODE_UNSUPPORTED, "%s status %d", what, st);
                continue;
              }
              CHECK(st == FUSEDNORM_OK, "%s status %d", what, st);
              if (st != FUSEDNORM_OK) continue;
              if (m != FUSEDNORM_MODE_AUTO) CHECK(l.mode == (fusednorm_mode)m, "%s picked %d", what, l.mode);
              else CHECK(l.mode != FUSEDNORM_MODE_AUTO, "%s", what);
              check_invariants(&p, bwd, &l, devs[d], what);
            }
}

/* The wide backward without a weight has no workspace for the split-row kernel's partial dots:
 * the cluster kernel (<= FN_MAX_CLUSTER CTAs per row) runs it. */
static void test_wide_no_weight(void) {
  static const int64_t ns[] = {32768, 65536, 1048576};
  int i;
  for (i = 0; i < 3; ++i) {
    fusednorm_problem p = prob(1024, ns[i], FUSEDNORM_BF16, FUSEDNORM_MODE_AUTO);
    fusednorm_launch l;
    fn_split_geom g;
    p.has_weight = 0;
    CHECK(fusednorm_select_launch(&p, 1, &kH200, &l) == FUSEDNORM_OK, "no weight n %lld", (long long)ns[i]);
    CHECK(l.mode == FUSEDNORM_MODE_WIDE && l.ctas_per_row >= 2 && l.ctas_per_row <= FN_MAX_CLUSTER,
          "no weight n %lld: %d CTAs per row", (long long)ns[i], l.ctas_per_row);
    CHECK(!fn_split_bwd(p.rows, p.n, p.x_dtype, p.has_weight, p.has_residual, 1, kH200.sm_count, kH200.smem_per_sm,
                        &g),
          "no weight n %lld: split geometry", (long long)ns[i]);
  }
}

/* AUTO's forward takes the lean cached kernel only where the launcher can run it: rows and
 * weight 16-byte aligned (fn_select_launch's `aligned`, the launcher's run-time check) and n a
 * multiple of the vector width; otherwise the reload / persistent rules of before. */
static void test_alignment(void) {
  static const struct {
    int64_t rows, n;
    fusednorm_dtype x;
    int fused, aligned;
    fusednorm_mode mode;
  } cases[] = {
      {16384, 4096, FUSEDNORM_BF16, 0, 1, MWC},
      {16384, 4096, FUSEDNORM_BF16, 0, 0, RELOAD},
      {16384, 4100, FUSEDNORM_BF16, 0, 1, RELOAD}, /* n % 8 != 0 */
      {8192, 16384, FUSEDNORM_BF16, 0, 0, PERS},
      {8192, 16384, FUSEDNORM_BF16, 1, 0, RELOAD},
      {131072, 512, FUSEDNORM_BF16, 1, 0, PERS},
      {65536, 1024, FUSEDNORM_BF16, 0, 0, PERS},
      {65536, 1022, FUSEDNORM_F32, 0, 1, RELOAD}, /* n % 4 != 0 */
      {1048576, 128, FUSEDNORM_BF16, 0, 0, RP},
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    fusednorm_problem p = prob(cases[i].rows, cases[i].n, cases[i].x, FUSEDNORM_MODE_AUTO);
    fusednorm_launch l;
    char what[96];
    p.has_residual = cases[i].fused;
    snprintf(what, sizeof what, "auto%s fwd %lldx%lld %s aligned=%d", cases[i].fused ? " fused" : "",
             (long long)p.rows, (long long)p.n, fusednorm_dtype_name(p.x_dtype), cases[i].aligned);
    CHECK(fn_select_launch(&p, 0, &kH200, cases[i].aligned, &l) == FUSEDNORM_OK, "%s", what);
    CHECK(l.mode == cases[i].mode, "%s picked %s, pinned %s", what, fusednorm_mode_name(l.mode),
          fusednorm_mode_name(cases[i].mode));
    check_invariants(&p, 0, &l, &kH200, what);
  }
}

/* Which launches the lean kernels take (launch_config.h fn_fwd_row / fn_bwd_row): the launchers
 * call exactly these predicates. */
static void test_lean_predicates(void) {
  const fusednorm_mode MW = MWC;
  /* Forward: bf16 n = 4096 (512 slots) over 128 threads at 4 slots; 32768 plain at 1024 threads. */
  CHECK(fn_fwd_row(MW, 1, 1, 128, 4096, 8, 0, 0, 1), "fwd lean bf16 4096");
  CHECK(!fn_fwd_row(MW, 1, 1, 128, 4096, 8, 0, 0, 0), "fwd lean needs aligned rows");
  CHECK(!fn_fwd_row(MW, 1, 1, 128, 4100, 8, 0, 0, 1), "fwd lean needs n %% vec == 0");
  CHECK(!fn_fwd_row(RELOAD, 1, 1, 128, 4096, 8, 0, 0, 1), "fwd lean is the cached mode only");
  CHECK(!fn_fwd_row(MW, 1, 1, 64, 4096, 8, 0, 0, 1), "fwd lean needs the whole row cached");
  CHECK(fn_fwd_row(MW, 1, 1, 1024, 32768, 8, 0, 0, 1), "fwd lean 1024 threads, plain 16-bit weight");
  CHECK(!fn_fwd_row(MW, 1, 1, 1024, 32768, 8, 1, 0, 1), "fwd lean fused add bound 512 at 4 slots");
  CHECK(!fn_fwd_row(MW, 1, 1, 1024, 32768, 8, 0, 1, 1), "fwd lean 16-bit x, f32 weight bound 512");
  CHECK(fn_fwd_row(MW, 1, 1, 1024, 16384, 4, 0, 1, 1), "fwd lean f32 x and weight at 1024 threads");
  /* Backward: one row per CTA, cache 1/2/4, weight staged, aligned. */
  CHECK(fn_bwd_row(PERS, 1, 1, 4, 4096, 8, 1, 1), "bwd lean persistent");
  CHECK(fn_bwd_row(MW, 1, 1, 2, 1024, 8, 1, 1), "bwd lean multi-wave cached");
  CHECK(!fn_bwd_row(RELOAD, 1, 1, 0, 4096, 8, 1, 1), "bwd lean not reload");
  CHECK(!fn_bwd_row(RP, 1, 16, 1, 128, 8, 0, 1), "bwd lean not row-packed");
  CHECK(!fn_bwd_row(PERS, 1, 1, 8, 4096, 8, 1, 1), "bwd lean has no cache 8");
  CHECK(!fn_bwd_row(PERS, 1, 1, 4, 4096, 8, 0, 1), "bwd lean needs the staged weight");
  CHECK(!fn_bwd_row(PERS, 1, 1, 4, 4096, 8, 1, 0), "bwd lean needs aligned rows");
  CHECK(!fn_bwd_row(WIDE, 2, 1, 4, 32768, 8, 1, 1), "bwd lean not clustered");
}

static void test_bad_args(void) {
  fusednorm_problem p = prob(10, 100, FUSEDNORM_BF16, FUSEDNORM_MODE_AUTO);
  fusednorm_launch l;
  fusednorm_device_info none = kH200;
  CHECK(fusednorm_select_launch(NULL, 0, &kH200, &l) == FUSEDNORM_ERR_NULL_POINTER, "null problem");
  CHECK(fusednorm_select_launch(&p, 0, NULL, &l) == FUSEDNORM_ERR_NULL_POINTER, "null device");
  CHECK(fusednorm_select_launch(&p, 0, &kH200, NULL) == FUSEDNORM_ERR_NULL_POINTER, "null out");
  none.sm_count = 0;
  CHECK(fusednorm_select_launch(&p, 0, &none, &l) == FUSEDNORM_ERR_NO_DEVICE, "no SMs");
  p.mode = (fusednorm_mode)99;
  CHECK(fusednorm_select_launch(&p, 0, &kH200, &l) == FUSEDNORM_ERR_BAD_MODE, "bad mode");
  p.mode = FUSEDNORM_MODE_AUTO;
  p.n = 0;
  CHECK(fusednorm_select_launch(&p, 0, &kH200, &l) == FUSEDNORM_ERR_BAD_SHAPE, "n = 0");
}

int main(void) {
  test_pinned();
  test_forced();
  test_wide_no_weight();
  test_alignment();
  test_lean_predicates();
  test_bad_args();
  printf("test_select: %s (%d failure%s)\n", failures ? "FAILED" : "OK", failures, failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}
