/*
 * test_select.c — CPU test of the launch plan fusednorm_select_launch (kernels/src/select.c).
 *
 * 1. Whole plans pinned for a table of real devices (published figures: SMs, compute capability,
 *    shared memory per SM and per block, L2, registers and threads per SM) and representative
 *    shapes: a change of the plan must change this table deliberately, with its measurement in
 *    kernels/RESULTS.md (kPins and kH200 below; each line is every field of a plan).
 * 2. Every plan for every device over a grid of shapes, layouts and flags is valid on that device:
 *    the instance exists, the CTA is within its launch bound and the device's limits, the shared
 *    memory within the per-block opt-in limit, no cluster before compute capability 9.0, the grid
 *    sized from the device's SMs, the split-row grid co-resident, the workspace holds the partial
 *    rows, and the backward's workspace does not depend on the layout (the workspace query plans
 *    for aligned rows).
 * 3. Every forced mode runs its family or reports FUSEDNORM_ERR_MODE_UNSUPPORTED exactly where
 *    fusednorm.h documents the family's limits.
 * 4. Bad arguments give their status.
 * Exit 0 when all pass, 1 otherwise (prints each failure).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "kernels/cuda/launch_config.h"
#include "kernels/include/fusednorm.h"

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

#include "kernels/tests/devices.h"
/* Aligned rows; rows off 16 bytes and not congruent (the generic kernels); rows congruent modulo
 * 16 bytes but not aligned (the head-split lean kernels). */
static const fusednorm_layout kAligned = {1, 1, 0, 16}, kMisaligned = {0, 0, 0, 0}, kCongruent = {0, 1, 0, 0};
/* The same with every row tensor dense (rows back to back: the flat-tile forward's domain). */
static const fusednorm_layout kDenseMisaligned = {0, 0, 1, 0}, kDenseAligned = {1, 1, 1, 16}, kDenseCongruent = {0, 1, 1, 0};
/* Congruent rows whose every start (and the weight) is on an 8- / 4-byte boundary: the warp
 * forward's sub-vector loads (select.c fwd_warp_load_elems). */
static const fusednorm_layout kAlign8 = {0, 1, 1, 8}, kAlign4 = {0, 1, 1, 4}, kAlign2 = {0, 1, 1, 2};
static const fusednorm_layout *const kLayouts[] = {&kMisaligned,      &kAligned,      &kCongruent, &kDenseMisaligned,
                                                   &kDenseAligned,    &kDenseCongruent, &kAlign8,  &kAlign4};
#define NLAYOUTS ((int)(sizeof kLayouts / sizeof kLayouts[0]))

static fusednorm_problem prob(int64_t rows, int64_t n, fusednorm_dtype x, fusednorm_mode mode) {
  fusednorm_problem p = fusednorm_problem_init(rows, n, x, x);
  p.mode = mode;
  return p;
}

/* The plan in one line (every field), for pinning and for failure messages. */
static void plan_str(const fusednorm_launch *l, char *buf, size_t cap) {
  /* " u1" only where a plan is head-split, " dk" where it sums dw in the kernel, " dd" where the
   * split-row backward leaves ds out of its ring, " nw" where the lean backward runs its narrow
   * instance, so the other pins stay short */
  snprintf(buf, cap, "%s/%s t%d r%d c%d k%d g%lld s%d ch%lld sm%zu st%d/%d w%d dw%d P%lld ws%zu%s%s%s%s",
                   fusednorm_kernel_name(l->kernel), fusednorm_mode_name(l->mode), l->block_threads, l->rows_per_cta,
                   l->ctas_per_row, l->cluster, (long long)l->grid, l->slots_per_thread, (long long)l->chunk, l->smem_bytes,
                   l->stages, l->lookahead, l->weight_smem, l->dw_smem, (long long)l->partial_rows, l->workspace_bytes,
                   l->unaligned ? " u1" : "", l->dw_in_kernel ? " dk" : "", l->ds_direct ? " dd" : "", l->narrow ? " nw" : "");
}

static int in_set(int v, const int *set, int n) {
  int i;
  for (i = 0; i < n; ++i)
    if (set[i] == v) return 1;
  return 0;
}

/* Launch bound of the instance a plan names (the kernels' __launch_bounds__ macros). */
static int launch_bound(const fusednorm_problem *p, const fusednorm_launch *l) {
  const int s = l->slots_per_thread, fused = p->has_residual != 0, xs = (int)fusednorm_dtype_size(p->x_dtype);
  const int w32 = p->has_weight && p->w_dtype == FUSEDNORM_F32;
  switch (l->kernel) {
    case FUSEDNORM_KERNEL_FWD_PIPE: return FN_FWD_PIPE_MAX_THREADS(s, fused);
    case FUSEDNORM_KERNEL_FWD_ROW: return FN_FWD_ROW_MAX_THREADS(s, fused, w32, xs);
    case FUSEDNORM_KERNEL_FWD_GENERIC: return FN_MAX_THREADS(0, s);
    case FUSEDNORM_KERNEL_BWD_PIPE: return FN_ROW_PACKED_THREADS;
    case FUSEDNORM_KERNEL_BWD_ROW: return FN_BWD_ROW_THREADS(s);
    case FUSEDNORM_KERNEL_BWD_GENERIC: return FN_MAX_THREADS(1, s);
    case FUSEDNORM_KERNEL_BWD_SPLIT: return FN_SPLIT_MAX_THREADS(s, xs);
    case FUSEDNORM_KERNEL_FWD_WIDE: return FN_FWD_WIDE_MAX_THREADS;
    case FUSEDNORM_KERNEL_FWD_TILE: return FN_FWD_TILE_THREADS;
    case FUSEDNORM_KERNEL_FWD_TINY: return FN_TINY_FWD_THREADS;
    case FUSEDNORM_KERNEL_BWD_TINY: return FN_TINY_BWD_THREADS(s);
    case FUSEDNORM_KERNEL_FWD_LANES: return FN_FWD_LANES_THREADS;
    case FUSEDNORM_KERNEL_FWD_THREAD: return FN_FWD_THREAD_THREADS;
    case FUSEDNORM_KERNEL_FWD_WARP: return FN_FWD_WARP_THREADS;
    case FUSEDNORM_KERNEL_BWD_WARP: return FN_BWD_WARP_THREADS;
    default: return 0;
  }
}

/* Every property of a plan the launcher and the kernels rely on, on device `d`. */
static void check_plan(const fusednorm_problem *p, int bwd, const fusednorm_layout *lay, const fusednorm_launch *l,
                       const fusednorm_device_info *d, const char *what) {
  static const int k124[] = {1, 2, 4}, kfwdgen[] = FN_FWD_GENERIC_CACHES, kbwdgen[] = FN_BWD_GENERIC_CACHES;
  const int vec = fn_vec_elems(p->x_dtype), xs = (int)fusednorm_dtype_size(p->x_dtype);
  const int team = l->rows_per_cta > 0 ? l->block_threads / l->rows_per_cta : 0;
  const int64_t whole = (int64_t)l->slots_per_thread * team * vec; /* columns a team caches */
  char s[256];
  int inst = 0;
  plan_str(l, s, sizeof s);
  /* direction, mode <-> family */
  switch (l->kernel) {
    case FUSEDNORM_KERNEL_FWD_PIPE:
      /* row-packed: teams of <= 32 lanes (one team where the CTA is cut to the rows there are);
       * persistent: one team per CTA */
      CHECK(!bwd && (l->mode == FUSEDNORM_MODE_ROW_PACKED ? team <= 32
                                                          : l->mode == FUSEDNORM_MODE_PERSISTENT && l->rows_per_cta == 1),
            "%s: %s", what, s);
      inst = in_set(l->slots_per_thread, k124, 3);
      break;
    case FUSEDNORM_KERNEL_FWD_ROW:
      CHECK(!bwd && l->mode == FUSEDNORM_MODE_MULTI_WAVE_CACHED, "%s: %s", what, s);
      /* S = 8: only the lean instance of aligned rows of one stride and at most INT_MAX rows
       * (rmsnorm_fwd_row.cu fwd_row8_kernel), one row a CTA, not 16-bit rows with an f32 weight */
      inst = in_set(l->slots_per_thread, k124, 3) ||
             (l->slots_per_thread == 8 && lay->aligned16 && p->n % vec == 0 && p->row_dims <= 1 && p->rows <= INT_MAX &&
              l->grid >= p->rows && !l->unaligned &&
              !(p->x_dtype != FUSEDNORM_F32 && p->has_weight && p->w_dtype == FUSEDNORM_F32));
      break;
    case FUSEDNORM_KERNEL_FWD_GENERIC:
      CHECK(!bwd && l->mode == FUSEDNORM_MODE_MULTI_WAVE_RELOAD, "%s: %s", what, s);
      inst = in_set(l->slots_per_thread, kfwdgen, FN_NUM_GENERIC_CACHES);
      break;
    case FUSEDNORM_KERNEL_BWD_PIPE: {
      /* one slot a lane up to 32 slots, two (f32 only) up to 64; a team of the fewest lanes, a
       * power of two, that holds the row */
      const int64_t slots = (p->n + vec - 1) / vec;
      const int team = l->block_threads / l->rows_per_cta;
      CHECK(bwd && l->mode == FUSEDNORM_MODE_ROW_PACKED, "%s: %s", what, s);
      CHECK(l->rows_per_cta * team == l->block_threads && team <= 32 && (int64_t)team * l->slots_per_thread >= slots &&
                (team == 1 || (int64_t)team * l->slots_per_thread < 2 * slots),
            "%s: row-packed backward geometry: %s", what, s);
      /* every group's dw pairs in rows of their own (combine_team_dw's one-barrier form) */
      CHECK(l->smem_bytes == (p->has_weight ? (size_t)fn_bwd_pipe_smem(p->n) : 0), "%s: row-packed backward smem: %s",
            what, s);
      inst = l->slots_per_thread == 1
                 ? slots <= 32
                 : l->slots_per_thread == 2 && p->x_dtype == FUSEDNORM_F32 && slots > 32 && slots <= 64;
      break;
    }
    case FUSEDNORM_KERNEL_BWD_ROW:
      CHECK(bwd && l->mode == FUSEDNORM_MODE_PERSISTENT, "%s: %s", what, s);
      /* S = 8: aligned rows, plain and fused; the raw 16-bit weight stage (weight_smem 2) for
         16-bit rows and weight only (rms_norm_bwd_row8_for) */
      inst = (in_set(l->slots_per_thread, k124, 3) && l->weight_smem == 1) ||
             (l->slots_per_thread == 8 && !l->unaligned &&
              (l->weight_smem == 1 ||
               (l->weight_smem == 2 && fusednorm_dtype_size(p->x_dtype) == 2 && p->w_dtype != FUSEDNORM_F32)));
      break;
    case FUSEDNORM_KERNEL_BWD_GENERIC:
      CHECK(bwd && l->mode == (l->cluster > 1 ? FUSEDNORM_MODE_WIDE : FUSEDNORM_MODE_MULTI_WAVE_RELOAD), "%s: %s", what, s);
      inst = in_set(l->slots_per_thread, kbwdgen, FN_NUM_GENERIC_CACHES);
      break;
    case FUSEDNORM_KERNEL_BWD_SPLIT:
      CHECK(bwd && l->mode == FUSEDNORM_MODE_WIDE, "%s: %s", what, s);
      inst = in_set(l->slots_per_thread, k124, 3);
      break;
    case FUSEDNORM_KERNEL_FWD_WIDE:
      /* 1 and 2 slots per thread for any layout; 4 only plain, aligned, whole vectors */
      CHECK(!bwd && l->mode == FUSEDNORM_MODE_WIDE, "%s: %s", what, s);
      /* ... and 0: every slot staged, the weight's 16-byte pieces in registers (fwd_wide_wr):
       * aligned whole vectors in clusters, the weight one piece a slot or none */
      inst = l->slots_per_thread == 1 || l->slots_per_thread == 2 ||
             (l->slots_per_thread == 4 && !p->has_residual && lay->aligned16 && p->n % vec == 0) ||
             (l->slots_per_thread == 0 && lay->aligned16 && p->n % vec == 0 && l->cluster > 1 && !l->unaligned &&
              !l->weight_smem && (!p->has_weight || fn_fwd_wide_weight_bytes(p->x_dtype, p->w_dtype) == 16));
      break;
    case FUSEDNORM_KERNEL_FWD_TILE:
      /* dense congruent rows of <= 32 slots that are not whole aligned vectors; a tile of whole
       * rows within the CTA's vectors; one CTA per tile */
      CHECK(!bwd && l->mode == FUSEDNORM_MODE_ROW_PACKED && lay->dense && (lay->aligned16 || lay->congruent16) &&
                !(lay->aligned16 && p->n % vec == 0) && p->n <= 32 * vec,
            "%s: flat tiles outside dense congruent narrow rows: %s", what, s);
      CHECK(l->rows_per_cta >= 1 && l->rows_per_cta <= p->rows &&
                (int64_t)l->rows_per_cta * p->n <= (int64_t)l->block_threads * FN_FWD_TILE_SLOTS * vec &&
                (int64_t)l->rows_per_cta * fn_fwd_tile_lanes(p->n) <= l->block_threads * FN_FWD_TILE_ROWS_PER_THREAD &&
                l->grid == (p->rows + l->rows_per_cta - 1) / l->rows_per_cta && l->weight_smem &&
                l->smem_bytes == (size_t)fn_fwd_tile_smem(p->n, l->rows_per_cta, xs),
            "%s: tile geometry: %s", what, s);
      inst = l->slots_per_thread == fn_fwd_tile_cols(p->n) && l->slots_per_thread <= FN_FWD_TILE_MAX_COLS &&
             (int64_t)fn_fwd_tile_lanes(p->n) * l->slots_per_thread >= p->n;
      break;
    case FUSEDNORM_KERNEL_FWD_TINY:
    case FUSEDNORM_KERNEL_BWD_TINY: {
      /* a team of fn_tiny_lanes lanes per row holding fn_tiny_cols columns each; the forward one
       * row per team and every row in the grid's one step (the lean instances have no row loop;
       * the launcher falls back to the general one otherwise), the backward one CTA for every
       * row, at most FN_TINY_BWD_ROWS per team at once and two such rounds (select.c
       * FN_AUTO_TINY_BWD_PASSES), its warps' dw in shared memory (no workspace rows) */
      static const int kcols[] = {1, 2, 4, 8};
      const int tb = l->kernel == FUSEDNORM_KERNEL_BWD_TINY;
      CHECK(bwd == tb && l->mode == FUSEDNORM_MODE_ROW_PACKED && p->n <= FN_TINY_MAX_N && team == fn_tiny_lanes(p->n),
            "%s: %s", what, s);
      if (tb)
        CHECK(l->grid == 1 && p->rows <= (int64_t)l->rows_per_cta * FN_TINY_BWD_ROWS(l->slots_per_thread) * 2 &&
                  l->smem_bytes == (p->has_weight ? (size_t)fn_tiny_bwd_smem(p->n, l->block_threads) : 0) &&
                  l->block_threads <= FN_TINY_BWD_THREADS(l->slots_per_thread),
              "%s: tiny backward geometry: %s", what, s);
      else
        CHECK(l->grid == (p->rows + l->rows_per_cta - 1) / l->rows_per_cta && l->smem_bytes == 0,
              "%s: tiny forward geometry: %s", what, s);
      inst = in_set(l->slots_per_thread, kcols, 4) && (tb || l->slots_per_thread == 1) &&
             l->slots_per_thread == fn_tiny_cols(p->n) &&
             (int64_t)team * l->slots_per_thread >= p->n;
      break;
    }
    case FUSEDNORM_KERNEL_FWD_LANES: {
      /* rows of <= FN_FWD_LANES_MAX_SLOTS whole aligned vectors, a team of fn_fwd_lanes_team lanes
       * per row holding fn_fwd_lanes_vecs vectors each (two: the plain forward only),
       * FN_FWD_LANES_ROWS rows per team, one pass: one CTA per rows_per_cta rows */
      const int lanes = fn_fwd_lanes_team(p->n / vec), k = fn_fwd_lanes_vecs(p->n / vec);
      CHECK(!bwd && l->mode == FUSEDNORM_MODE_ROW_PACKED && lay->aligned16 && p->n % vec == 0 &&
                p->n <= (int64_t)FN_FWD_LANES_MAX_SLOTS * vec,
            "%s: lanes forward outside rows of <= %d aligned vectors: %s", what, FN_FWD_LANES_MAX_SLOTS, s);
      CHECK(l->block_threads % lanes == 0 && l->rows_per_cta == l->block_threads / lanes * FN_FWD_LANES_ROWS &&
                (int64_t)lanes * k * vec >= p->n && (lanes == 1 || (int64_t)lanes / 2 * k * vec < p->n) &&
                l->smem_bytes == 0 &&
                l->grid == ((p->rows + l->rows_per_cta - 1) / l->rows_per_cta < INT_MAX
                                ? (p->rows + l->rows_per_cta - 1) / l->rows_per_cta
                                : INT_MAX),
            "%s: lanes forward geometry: %s", what, s);
      inst = l->slots_per_thread == k && (k == 1 || !p->has_residual);
      break;
    }
    case FUSEDNORM_KERNEL_FWD_THREAD: {
      /* rows narrower than a vector in dense congruent tensors, G rows (whole vectors) a thread,
       * one group each: the grid's threads cover ceil(rows / G) groups and one more (the first
       * row on a boundary may be any of the first G), with no CTA left idle */
      const int g = fn_fwd_thread_rows(p->n, vec);
      const int64_t groups = (p->rows + g - 1) / g + (g > 1);
      CHECK(!bwd && l->mode == FUSEDNORM_MODE_ROW_PACKED && lay->dense && (lay->congruent16 || lay->aligned16) &&
                p->n < vec,
            "%s: thread forward outside dense congruent rows narrower than a vector: %s", what, s);
      CHECK(l->rows_per_cta == l->block_threads * g && !l->weight_smem &&
                l->smem_bytes == (l->slots_per_thread > 1 ? (size_t)l->block_threads * l->slots_per_thread * 16 : 0) &&
                l->grid * l->block_threads >= groups && (l->grid - 1) * l->block_threads < groups &&
                (l->block_threads == FN_FWD_THREAD_THREADS || l->grid >= d->sm_count || l->block_threads == 32),
            "%s: thread forward geometry: %s", what, s);
      inst = (int64_t)l->slots_per_thread * vec == p->n * g;
      break;
    }
    case FUSEDNORM_KERNEL_FWD_WARP: {
      /* AUTO only; rows of one stride and FN_FWD_WARP_MIN_N..MAX_N columns that are not whole
       * aligned vectors; a warp a row, the CTA's warps all with a row, a grid covering the rows
       * once (no row loop) */
      static const int kcols[] = FN_FWD_WARP_INSTANCES;
      CHECK(!bwd && p->mode == FUSEDNORM_MODE_AUTO && l->mode == FUSEDNORM_MODE_ROW_PACKED && p->row_dims <= 1 &&
                p->n >= FN_FWD_WARP_MIN_N && p->n <= FN_FWD_WARP_MAX_N && !(lay->aligned16 && p->n % vec == 0) &&
                p->rows <= INT_MAX,
            "%s: warp forward outside its rows: %s", what, s);
      {
        /* one or two rows a warp; two only where built (fn_fwd_warp2_built: the plain forward);
         * sub-vector loads (load_elems 2 or 4): 16-bit plain rows on that boundary, two a warp */
        const int warps = l->block_threads / 32, rw = warps > 0 ? l->rows_per_cta / warps : 0;
        const int ve = l->load_elems, xs = (int)fusednorm_dtype_size(p->x_dtype);
        const int lal = lay->align_bytes > 0 ? lay->align_bytes : lay->aligned16 ? 16 : 1;
        CHECK(ve == 1 || ((ve == 2 || ve == 4) && rw == 2 && xs == 2 && !p->has_residual && p->n % ve == 0 &&
                          lal >= ve * xs && p->n >= FN_FWD_WARP_VEC_MIN_N && p->n <= FN_FWD_WARP_VEC_MAX_N),
              "%s: warp forward's sub-vector loads outside their rows: %s", what, s);
        CHECK(l->block_threads % 32 == 0 && warps >= 1 && warps <= FN_FWD_WARP_WARPS &&
                  (rw == 1 || (rw == 2 && !p->has_residual &&
                               (ve > 1 || fn_fwd_warp2_built(xs, l->slots_per_thread)))) &&
                  l->rows_per_cta == warps * rw && (warps == FN_FWD_WARP_WARPS || l->grid == 1) &&
                  (int64_t)(warps - 1) * rw < p->rows && l->smem_bytes == 0 && !l->weight_smem &&
                  l->grid == (p->rows + l->rows_per_cta - 1) / l->rows_per_cta,
              "%s: warp forward geometry: %s", what, s);
      }
      inst = l->load_elems > 1
                 ? l->slots_per_thread == fn_fwd_warp_vec_cols(p->n, l->load_elems) &&
                       32 * (int64_t)l->slots_per_thread * l->load_elems >= p->n
                 : in_set(l->slots_per_thread, kcols, (int)(sizeof kcols / sizeof kcols[0])) &&
                       l->slots_per_thread == fn_fwd_warp_cols(p->n) && 32 * (int64_t)l->slots_per_thread >= p->n;
      break;
    }
    case FUSEDNORM_KERNEL_BWD_WARP: {
      /* AUTO only; rows of one stride and FN_BWD_WARP_MIN_N..MAX_N columns; a warp a row at a
       * time, FN_BWD_WARP_WARPS warps a CTA, a persistent grid of at most the rows' warps; the
       * warps' dw pairs in shared memory */
      static const int kcols[] = FN_BWD_WARP_INSTANCES;
      CHECK(bwd && p->mode == FUSEDNORM_MODE_AUTO && l->mode == FUSEDNORM_MODE_ROW_PACKED && p->row_dims <= 1 &&
                p->n >= FN_BWD_WARP_MIN_N && p->n <= FN_BWD_WARP_MAX_N,
            "%s: warp backward outside its rows: %s", what, s);
      CHECK(l->block_threads == FN_BWD_WARP_THREADS && l->rows_per_cta == FN_BWD_WARP_WARPS && !l->weight_smem &&
                l->smem_bytes == (p->has_weight ? (size_t)fn_bwd_warp_smem(p->n) : 0) &&
                l->grid <= (p->rows + FN_BWD_WARP_WARPS - 1) / FN_BWD_WARP_WARPS &&
                l->grid <= (int64_t)d->sm_count * FN_BWD_WARP_MIN_CTAS(l->slots_per_thread) * 2,
            "%s: warp backward geometry: %s", what, s);
      inst = in_set(l->slots_per_thread, kcols, (int)(sizeof kcols / sizeof kcols[0])) &&
             l->slots_per_thread == fn_bwd_warp_cols(p->n) && 32 * (int64_t)l->slots_per_thread >= p->n;
      break;
    }
    default: CHECK(0, "%s: kernel %d", what, (int)l->kernel);
  }
  if (p->mode != FUSEDNORM_MODE_AUTO) CHECK(l->mode == p->mode, "%s: forced %s, plan %s", what, fusednorm_mode_name(p->mode), s);
  CHECK(inst, "%s: no such instance: %s", what, s);
  /* the CTA */
  CHECK(l->vec_elems == vec, "%s: %s", what, s);
  CHECK(l->block_threads >= 32 && l->block_threads % 32 == 0 && l->block_threads <= launch_bound(p, l) &&
            l->block_threads <= d->max_threads_per_sm,
        "%s: threads beyond the launch bound %d: %s", what, launch_bound(p, l), s);
  CHECK(l->kernel == FUSEDNORM_KERNEL_FWD_TILE || l->kernel == FUSEDNORM_KERNEL_FWD_LANES ||
            l->kernel == FUSEDNORM_KERNEL_FWD_THREAD || (l->rows_per_cta >= 1 && team * l->rows_per_cta == l->block_threads &&
             (team == l->block_threads || (team <= 32 && (team & (team - 1)) == 0))),
        "%s: teams do not tile the CTA: %s", what, s);
  CHECK(l->rows_per_cta == 1 || l->kernel == FUSEDNORM_KERNEL_FWD_PIPE || l->kernel == FUSEDNORM_KERNEL_BWD_PIPE ||
            l->kernel == FUSEDNORM_KERNEL_FWD_TILE || l->kernel == FUSEDNORM_KERNEL_FWD_TINY ||
            l->kernel == FUSEDNORM_KERNEL_BWD_TINY || l->kernel == FUSEDNORM_KERNEL_FWD_LANES ||
            l->kernel == FUSEDNORM_KERNEL_FWD_THREAD || l->kernel == FUSEDNORM_KERNEL_FWD_WARP ||
            l->kernel == FUSEDNORM_KERNEL_BWD_WARP,
        "%s: %s", what, s);
  CHECK(l->smem_bytes + FN_STATIC_SMEM_MAX <= d->smem_per_block_optin &&
            l->smem_bytes + FN_SMEM_RESERVE_PER_CTA <= d->smem_per_sm,
        "%s: shared memory beyond the device: %s", what, s);
  /* rows split over CTAs */
  CHECK(l->cluster >= 1 && l->grid % l->cluster == 0 &&
            (l->kernel != FUSEDNORM_KERNEL_FWD_WIDE || (l->cluster & (l->cluster - 1)) == 0) &&
            l->cluster <= (l->kernel == FUSEDNORM_KERNEL_FWD_WIDE ? (fn_fwd_wide_max_cluster(d->cc_major) > 1 ? fn_fwd_wide_max_cluster(d->cc_major) : 1) : FN_MAX_CLUSTER),
        "%s: %s", what, s);
  CHECK(l->cluster == 1 || (d->cc_major >= 9 && l->ctas_per_row == l->cluster &&
                            (l->kernel == FUSEDNORM_KERNEL_BWD_GENERIC || l->kernel == FUSEDNORM_KERNEL_FWD_WIDE)),
        "%s: a cluster before compute capability 9.0 or outside the cluster kernels: %s", what, s);
  CHECK(l->cluster <= 8 || d->cc_major == 9 || d->cc_major == 10, "%s: a non-portable cluster: %s", what, s);
  if (l->kernel == FUSEDNORM_KERNEL_FWD_WIDE) {
    /* >= 2 CTAs a row; the chunk streamed beyond the registers only at the widest CTA */
    const int cl = l->ctas_per_row;
    const int sb = p->has_residual ? 32 : 16, wb = fn_fwd_wide_weight_bytes(p->x_dtype, p->w_dtype);
    CHECK(cl >= 2, "%s: %s", what, s);
    /* the stage: whole slots of x (and r) for every thread and, with the weight staged, the weight
     * of each of its slots (registers' and stage's), 16-byte pieces: only on aligned rows and
     * weight, in clusters, and only where the registers and stage hold the whole chunk */
    if (l->weight_smem) {
      const int64_t st = fn_fwd_wide_staged(l->smem_bytes, l->block_threads, l->slots_per_thread, sb, wb);
      CHECK(p->has_weight && lay->aligned16 && l->cluster > 1 && wb > 0 && wb % 16 == 0 && !l->unaligned &&
                l->slots_per_thread >= 2 &&
                l->smem_bytes == (size_t)l->block_threads * (size_t)(l->slots_per_thread * wb + st * (sb + wb)) &&
                (l->slots_per_thread + st) * l->block_threads * vec >= l->chunk,
            "%s: the weight's stage: %s", what, s);
    } else {
      CHECK(l->smem_bytes % ((size_t)sb * l->block_threads) == 0, "%s: the stage not whole slots: %s", what, s);
    }
    if (l->slots_per_thread == 0) {
      /* every slot staged: FN_FWD_WIDE_WR_THREADS threads of at most FN_FWD_WIDE_WR_SLOTS slots
       * each holding the chunk, the stage exactly those slots (x, and r behind them) */
      const int64_t j = (l->chunk / vec + FN_FWD_WIDE_WR_THREADS - 1) / FN_FWD_WIDE_WR_THREADS;
      CHECK(l->block_threads == FN_FWD_WIDE_WR_THREADS && l->chunk % vec == 0 && j >= 1 &&
                j <= FN_FWD_WIDE_WR_SLOTS && l->smem_bytes == (size_t)(j * FN_FWD_WIDE_WR_THREADS * sb),
            "%s: every slot staged: %s", what, s);
    } else {
      CHECK(whole >= l->chunk || (l->block_threads == FN_FWD_WIDE_MAX_THREADS &&
                                  l->slots_per_thread == (!p->has_residual && lay->aligned16 && p->n % vec == 0 ? 4 : 2)),
            "%s: chunk streamed below the widest CTA: %s", what, s);
    }
    if (l->cluster > 1) {
      CHECK(l->cluster == cl, "%s: a cluster a row: %s", what, s);
      /* one cluster a row or, with the weight staged, at most the clusters resident at once (the
       * CTAs an SM that its threads allow), each looping over rows, its chunk's weight copied once */
      const int64_t all = (p->rows < INT_MAX / cl ? p->rows : INT_MAX / cl) * cl;
      CHECK(l->grid == all || (l->weight_smem && l->grid % cl == 0 && l->grid < all &&
                               l->grid <= (int64_t)d->sm_count * (d->max_threads_per_sm / l->block_threads)),
            "%s: one cluster per row: %s", what, s);
      /* two CTAs per SM (the launch bound's registers): a 16-CTA cluster fits 8 SMs */
      CHECK(2 * FN_FWD_WIDE_MAX_THREADS * FN_FWD_WIDE_REGS <= d->regs_per_sm &&
                2 * FN_FWD_WIDE_MAX_THREADS <= d->max_threads_per_sm,
            "%s: %s", what, s);
    } else {
      /* the grid sum (always without clusters): a cooperative grid of whole rows' CTAs, all
       * resident (one an SM), each CTA's chunk at least two whole vectors (its partial's word in
       * y); where there are clusters only AUTO's, at two or four slots a thread (the instances
       * compiled there) */
      const int64_t resident = (int64_t)d->sm_count * FN_FWD_WIDE_GRID_CTAS_PER_SM;
      CHECK(l->cluster == 1, "%s: a cluster without clusters: %s", what, s);
      CHECK(l->grid % cl == 0 && l->grid <= resident && l->grid == (p->rows < resident / cl ? p->rows : resident / cl) * cl,
            "%s: the grid sum's grid not co-resident rows of CTAs: %s", what, s);
      CHECK(p->n - (int64_t)(cl - 1) * l->chunk >= (int64_t)FN_FWD_WIDE_GRID_MIN_TAIL_VECS * vec,
            "%s: the last CTA's chunk below two vectors: %s", what, s);
      CHECK(FN_FWD_WIDE_MAX_THREADS <= d->max_threads_per_sm, "%s: %s", what, s);
      if (fn_fwd_wide_max_cluster(d->cc_major) >= 2) {
        CHECK(p->mode == FUSEDNORM_MODE_AUTO, "%s: a forced wide forward's grid sum where there are clusters: %s", what, s);
        CHECK(l->slots_per_thread >= 2, "%s: a one-slot grid sum where there are clusters (not compiled): %s", what, s);
      }
    }
  }
  CHECK(l->ctas_per_row == 1 || l->cluster > 1 || l->kernel == FUSEDNORM_KERNEL_BWD_SPLIT ||
            l->kernel == FUSEDNORM_KERNEL_FWD_WIDE,
        "%s: %s", what, s);
  CHECK(l->chunk % vec == 0 || l->ctas_per_row == 1, "%s: %s", what, s);
  CHECK((int64_t)l->ctas_per_row * l->chunk >= p->n && (int64_t)(l->ctas_per_row - 1) * l->chunk < p->n,
        "%s: chunks do not cover the row: %s", what, s);
  /* the grid, from this device's SMs */
  CHECK(l->grid >= 1 && l->grid <= INT_MAX, "%s: %s", what, s);
  if (l->kernel == FUSEDNORM_KERNEL_BWD_SPLIT) {
    CHECK(l->grid <= d->sm_count, "%s: split grid not co-resident (%d SMs): %s", what, d->sm_count, s);
  } else if (l->kernel == FUSEDNORM_KERNEL_FWD_WIDE || l->kernel == FUSEDNORM_KERNEL_FWD_TILE ||
             l->kernel == FUSEDNORM_KERNEL_FWD_TINY || l->kernel == FUSEDNORM_KERNEL_BWD_TINY ||
             l->kernel == FUSEDNORM_KERNEL_FWD_LANES || l->kernel == FUSEDNORM_KERNEL_FWD_THREAD ||
             l->kernel == FUSEDNORM_KERNEL_FWD_WARP) {
    /* (above) */
  } else if (!(l->kernel == FUSEDNORM_KERNEL_FWD_ROW ||
               (l->kernel == FUSEDNORM_KERNEL_FWD_GENERIC && l->slots_per_thread == 0))) {
    CHECK(l->grid <= (int64_t)d->sm_count * d->max_ctas_per_sm && (l->grid == (p->rows + l->rows_per_cta - 1) / l->rows_per_cta * l->ctas_per_row ||
                                                   l->grid % d->sm_count == 0 || l->grid / l->cluster < p->rows),
          "%s: persistent grid not sized from %d SMs: %s", what, d->sm_count, s);
  } else {
    CHECK(l->grid == (p->rows < INT_MAX ? (p->rows > 0 ? p->rows : 1) : INT_MAX), "%s: one CTA per row: %s", what, s);
  }
  /* what the family needs */
  if (l->kernel == FUSEDNORM_KERNEL_FWD_PIPE || l->kernel == FUSEDNORM_KERNEL_FWD_ROW ||
      l->kernel == FUSEDNORM_KERNEL_BWD_PIPE || l->kernel == FUSEDNORM_KERNEL_BWD_ROW)
    CHECK(whole >= p->n, "%s: the row is not in registers: %s", what, s);
  /* the lean kernels: the aligned instance exactly where rows are aligned and whole vectors, the
   * head-split one elsewhere on congruent rows, never on rows that are not congruent */
  if (l->kernel == FUSEDNORM_KERNEL_FWD_ROW || l->kernel == FUSEDNORM_KERNEL_BWD_ROW)
    CHECK(l->unaligned == !(lay->aligned16 && p->n % vec == 0) && (lay->aligned16 || lay->congruent16),
          "%s: lean kernel instance for the layout (aligned %d congruent %d): %s", what, lay->aligned16,
          lay->congruent16, s);
  else if (l->kernel == FUSEDNORM_KERNEL_FWD_GENERIC || l->kernel == FUSEDNORM_KERNEL_FWD_WIDE ||
           l->kernel == FUSEDNORM_KERNEL_BWD_SPLIT)
    /* the generic and wide forwards' and the split-row backward's head-split path: congruent rows
     * that are not aligned (the wide kernel's 4-slot instance is aligned-only) */
    CHECK(l->unaligned == (!lay->aligned16 && lay->congruent16) &&
              !(l->unaligned && l->kernel == FUSEDNORM_KERNEL_FWD_WIDE && l->slots_per_thread > 2),
          "%s: head-split path for the layout (aligned %d congruent %d): %s", what, lay->aligned16,
          lay->congruent16, s);
  else if (l->kernel == FUSEDNORM_KERNEL_FWD_PIPE)
    /* the row-pipelined forward's head-split instance: congruent rows that are not whole aligned
     * vectors, at least two vectors wide, at most 2 slots a lane, a lane for every edge element
     * (fwd_packed, row-packed launches); everywhere it can run, in place of element-wise reads */
    CHECK(l->unaligned == (l->mode == FUSEDNORM_MODE_ROW_PACKED && lay->congruent16 &&
                           !(lay->aligned16 && p->n % vec == 0) && p->n >= 2 * vec && l->slots_per_thread <= 2) &&
              (!l->unaligned || (l->slots_per_thread <= 2 &&
                                 l->block_threads / l->rows_per_cta >= fn_fwd_pipe_u_min_team(vec))),
          "%s: row-pipelined head-split instance for the layout (aligned %d congruent %d): %s", what,
          lay->aligned16, lay->congruent16, s);
  else
    CHECK(l->unaligned == 0,
          "%s: head-split flag outside the lean kernels, the row-pipelined, generic and wide forwards and the "
          "split-row backward: %s",
          what, s);
  /* dw summed in the kernel: AUTO's choice for the persistent and row-packed backwards with a
   * weight, exactly when the grid has at most FN_DW_IN_KERNEL_MAX_PARTIALS CTAs and either one
   * CTA or at most 8 columns per thread (FN_DW_IN_KERNEL_MAX_COLS_PER_THREAD); where dw_reduce is
   * a dependent launch (cc >= 9.0), only one CTA of at most 8 columns per thread */
  const int dep = d->cc_major >= 9;
  /* ... and for the split-row backward of one row group (one row) */
  CHECK(l->dw_in_kernel == (p->mode == FUSEDNORM_MODE_AUTO && p->has_weight &&
                            (((l->kernel == FUSEDNORM_KERNEL_BWD_ROW || l->kernel == FUSEDNORM_KERNEL_BWD_PIPE) &&
                              l->grid <= (dep ? 1 : 32) &&
                              ((!dep && l->grid == 1) || p->n <= 8 * l->grid * l->block_threads)) ||
                             (l->kernel == FUSEDNORM_KERNEL_BWD_SPLIT && l->partial_rows == 1))),
        "%s: dw in the kernel: %s", what, s);
  if (l->kernel == FUSEDNORM_KERNEL_FWD_ROW) CHECK(l->smem_bytes == 0, "%s: %s", what, s);
  if (l->kernel == FUSEDNORM_KERNEL_BWD_ROW) CHECK(p->has_weight && l->weight_smem, "%s: %s", what, s);
  if (l->kernel == FUSEDNORM_KERNEL_FWD_PIPE)
    CHECK(l->weight_smem && l->smem_bytes == (size_t)(l->unaligned ? fn_fwd_pipe_u_smem(p->n, vec)
                                                                    : (p->n + vec - 1) / vec * vec * 4),
          "%s: %s", what, s);
  if (l->weight_smem && l->kernel != FUSEDNORM_KERNEL_FWD_PIPE && l->kernel != FUSEDNORM_KERNEL_FWD_TILE &&
      l->kernel != FUSEDNORM_KERNEL_FWD_WIDE)
    /* the weight, and the head-split's dw */
    /* (8 slots a thread: the weight as fp32 or, weight_smem 2, its raw 16 bits; dw for 16-bit rows
       and the fused add) */
    CHECK(l->smem_bytes == (l->unaligned ? (size_t)fn_u_bwd_smem(l->chunk, vec)
                            : l->kernel == FUSEDNORM_KERNEL_BWD_ROW && l->slots_per_thread == 8
                                ? (size_t)(p->n * (l->weight_smem == 2 ? 2 : 4) +
                                           (fusednorm_dtype_size(p->x_dtype) == 2 || p->has_residual ? p->n * 4 : 0))
                                : (size_t)((l->chunk + vec - 1) / vec * vec * 4)) &&
              whole >= l->chunk,
          "%s: %s", what, s);
  if (l->kernel == FUSEDNORM_KERNEL_BWD_GENERIC && p->has_weight && whole < l->chunk)
    CHECK(l->dw_smem ? l->smem_bytes == (size_t)(l->chunk - whole) * 4 : l->smem_bytes == 0, "%s: %s", what, s);
  if (l->kernel == FUSEDNORM_KERNEL_BWD_SPLIT) {
    /* the ring: dy, s and the fused add's ds (unless ds_direct) of `stages` rows' chunks */
    const size_t vec_bytes = (size_t)l->chunk * (size_t)xs + (l->unaligned ? 16 : 0);
    const int64_t budget = fn_split_ring_budget(d);
    CHECK(l->stages >= 2 && l->stages <= FN_SPLIT_MAX_STAGES && l->lookahead >= 1 && l->lookahead < l->stages &&
              (l->stages != 3 || l->lookahead == FN_SPLIT_LOOKAHEAD_OF_3),
          "%s: %s", what, s);
    CHECK(l->smem_bytes == (size_t)l->stages * (size_t)(2 + (p->has_residual && !l->ds_direct ? 1 : 0)) * vec_bytes &&
              (int64_t)l->block_threads * l->slots_per_thread * vec >= l->chunk,
          "%s: %s", what, s);
    /* ds out of the ring exactly where that makes the ring hold more rows, and the ring with it
     * would hold too few, or the CTA has enough threads or few slots a thread (FN_SPLIT_DS_DIRECT_*) */
    if (p->has_residual && !l->unaligned)
      CHECK(l->ds_direct == (budget / (int64_t)(2 * vec_bytes) > budget / (int64_t)(3 * vec_bytes) &&
                             (budget / (int64_t)(3 * vec_bytes) < FN_SPLIT_DS_DIRECT_BELOW ||
                              l->block_threads >= FN_SPLIT_DS_DIRECT_MIN_THREADS ||
                              l->slots_per_thread <= FN_SPLIT_DS_DIRECT_MAX_SPT)),
            "%s: %s", what, s);
    else
      CHECK(!l->ds_direct, "%s: %s", what, s);
  } else {
    CHECK(l->stages == 0 && l->lookahead == 0 && !l->ds_direct, "%s: %s", what, s);
  }
  /* the workspace */
  if (bwd && p->has_weight && p->rows > 0) {
    const int64_t units = l->kernel == FUSEDNORM_KERNEL_BWD_SPLIT ? l->grid / l->ctas_per_row
                          : l->kernel == FUSEDNORM_KERNEL_BWD_TINY ? 0 /* dw written by the kernel */
                                                                   : l->grid / l->cluster;
    const size_t extra = l->kernel == FUSEDNORM_KERNEL_BWD_SPLIT ? (size_t)p->rows * (size_t)l->ctas_per_row * 4 : 0;
    CHECK(l->partial_rows == units && l->workspace_bytes == (size_t)units * (size_t)p->n * 4 + extra + 16,
          "%s: workspace: %s", what, s);
  } else {
    CHECK(l->partial_rows == 0 && l->workspace_bytes == 0, "%s: %s", what, s);
  }
}

/* ---- 1. pinned plans ---- */

typedef struct {
  const char *dev;
  int64_t rows, n;
  fusednorm_dtype x;
  int bwd, fused, aligned, weight;
  const char *plan;
} pinned;

#define BF FUSEDNORM_BF16
#define F32 FUSEDNORM_F32
/* Representative shapes: QK-norm rows, hidden sizes, misaligned rows, rows wider than a CTA,
 * without weight; `aligned` indexes kLayouts (0 misaligned, 1 aligned, 2 congruent). Reasons and measurements per threshold: select.c. */
static const struct {
  int64_t rows, n;
  fusednorm_dtype x;
  int bwd, fused, aligned, weight;
} kShapes[] = {
    {1048576, 128, BF, 0, 0, 1, 1}, {1048576, 128, BF, 1, 0, 1, 1}, {131072, 512, BF, 0, 0, 1, 1},
    {131072, 512, BF, 0, 1, 1, 1},  {131072, 512, BF, 1, 1, 1, 1},  {65536, 1024, BF, 0, 0, 0, 1},
    {16384, 4096, BF, 0, 0, 1, 1},  {16384, 4096, BF, 1, 0, 1, 1},  {16384, 4096, BF, 0, 0, 0, 1},
    {16384, 4096, BF, 1, 1, 0, 1},  {8192, 8192, F32, 0, 0, 1, 1},  {8192, 8192, F32, 1, 1, 1, 1},
    {4096, 16384, BF, 0, 1, 0, 1},  {2048, 32768, BF, 0, 0, 1, 1},  {2048, 32768, BF, 1, 0, 1, 1},
    {1024, 65536, BF, 1, 1, 1, 1},  {1024, 65536, BF, 1, 0, 1, 0},  {256, 1048576, BF, 0, 0, 1, 1},
    {256, 1048576, BF, 1, 0, 1, 1},
    /* few wide rows, the forward: a cluster per row from compute capability 9.0 */
    {1, 262144, BF, 0, 0, 1, 1},    {17, 262144, BF, 0, 0, 1, 1},   {64, 131072, BF, 0, 0, 1, 1},
    {1024, 65536, BF, 0, 0, 1, 1},  {17, 32768, BF, 0, 1, 1, 1},    {131, 32768, BF, 0, 0, 0, 1},
    {7, 1048576, F32, 0, 0, 1, 0},
    /* congruent rows (aligned = 2): odd widths and offset views, the head-split lean kernels */
    {4000, 2881, BF, 0, 0, 2, 1},   {4000, 2881, BF, 1, 0, 2, 1},   {32768, 2887, BF, 0, 1, 2, 1},
    {32768, 2887, BF, 1, 1, 2, 1},  {16384, 4097, BF, 1, 0, 2, 1},  {8192, 8191, F32, 0, 0, 2, 1},
    {8192, 8191, F32, 1, 0, 2, 1},  {65536, 1023, BF, 0, 0, 2, 1},  {65536, 1023, BF, 1, 0, 2, 0},
    {16384, 4100, BF, 0, 0, 1, 1},  {16384, 4100, BF, 1, 0, 1, 1},
};
#define NSHAPES ((int)(sizeof kShapes / sizeof kShapes[0]))

/* The plans of kShapes on each device of kDevices, in that order (test_select --print). */
static const char *const kPins[] = {
    "fwd_lanes/row_packed t128 r16 c1 k1 g65536 s1 ch128 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fwd 1048576x128 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g432 s1 ch128 sm8192 st0/0 w0 dw0 P432 ws221200", /* A100-80GB auto bwd 1048576x128 bf16 */
    "fwd_lanes/row_packed t128 r8 c1 k1 g16384 s2 ch512 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fwd 131072x512 bf16 */
    "fwd_row/multi_wave_cached t64 r1 c1 k1 g131072 s1 ch512 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fused fwd 131072x512 bf16 */
    "bwd_row/persistent t64 r1 c1 k1 g2160 s1 ch512 sm2048 st0/0 w1 dw1 P2160 ws4423696 nw", /* A100-80GB auto fused bwd 131072x512 bf16 */
    "fwd_pipe/persistent t64 r1 c1 k1 g1728 s2 ch1024 sm4096 st0/0 w1 dw0 P0 ws0", /* A100-80GB auto fwd misaligned 65536x1024 bf16 */
    "fwd_row/multi_wave_cached t128 r1 c1 k1 g16384 s4 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fwd 16384x4096 bf16 */
    "bwd_row/persistent t128 r1 c1 k1 g432 s4 ch4096 sm16384 st0/0 w1 dw1 P432 ws7077904", /* A100-80GB auto bwd 16384x4096 bf16 */
    "fwd_generic/multi_wave_reload t128 r1 c1 k1 g16384 s0 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fwd misaligned 16384x4096 bf16 */
    "bwd_generic/multi_wave_reload t128 r1 c1 k1 g432 s4 ch4096 sm16384 st0/0 w1 dw1 P432 ws7077904", /* A100-80GB auto fused bwd misaligned 16384x4096 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8192 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fwd 8192x8192 f32 */
    "bwd_row/persistent t512 r1 c1 k1 g108 s4 ch8192 sm32768 st0/0 w1 dw1 P108 ws3538960", /* A100-80GB auto fused bwd 8192x8192 f32 */
    "fwd_generic/multi_wave_reload t512 r1 c1 k1 g4096 s0 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fused fwd misaligned 4096x16384 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g2048 s8 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fwd 2048x32768 bf16 */
    "bwd_generic/multi_wave_reload t1024 r1 c1 k1 g108 s1 ch32768 sm98304 st0/0 w0 dw1 P108 ws14155792", /* A100-80GB auto bwd 2048x32768 bf16 */
    "bwd_split/wide t512 r1 c8 k1 g104 s2 ch8192 sm163840 st5/2 w0 dw0 P13 ws3440656 dd", /* A100-80GB auto fused bwd 1024x65536 bf16 */
    "bwd_generic/multi_wave_reload t1024 r1 c1 k1 g108 s1 ch65536 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto bwd noweight 1024x65536 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g108 s2 ch1048576 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fwd 256x1048576 bf16 */
    "bwd_generic/multi_wave_reload t1024 r1 c1 k1 g108 s1 ch1048576 sm0 st0/0 w0 dw0 P108 ws452984848", /* A100-80GB auto bwd 256x1048576 bf16 */
    "fwd_wide/wide t128 r1 c64 k1 g64 s4 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fwd 1x262144 bf16 */
    "fwd_wide/wide t512 r1 c6 k1 g102 s4 ch43696 sm57344 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fwd 17x262144 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g64 s2 ch131072 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fwd 64x131072 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g108 s2 ch65536 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fwd 1024x65536 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g17 s2 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fused fwd 17x32768 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g108 s2 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fwd misaligned 131x32768 bf16 */
    "fwd_wide/wide t512 r1 c54 k1 g108 s4 ch19420 sm49152 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fwd noweight 7x1048576 f32 */
    "fwd_row/multi_wave_cached t96 r1 c1 k1 g4000 s4 ch2881 sm0 st0/0 w0 dw0 P0 ws0 u1", /* A100-80GB auto fwd congruent 4000x2881 bf16 */
    "bwd_row/persistent t96 r1 c1 k1 g540 s4 ch2881 sm25992 st0/0 w1 dw1 P540 ws6222976 u1", /* A100-80GB auto bwd congruent 4000x2881 bf16 */
    "fwd_row/multi_wave_cached t96 r1 c1 k1 g32768 s4 ch2887 sm0 st0/0 w0 dw0 P0 ws0 u1", /* A100-80GB auto fused fwd congruent 32768x2887 bf16 */
    "bwd_row/persistent t96 r1 c1 k1 g540 s4 ch2887 sm25992 st0/0 w1 dw1 P540 ws6235936 u1", /* A100-80GB auto fused bwd congruent 32768x2887 bf16 */
    "bwd_row/persistent t160 r1 c1 k1 g324 s4 ch4097 sm36936 st0/0 w1 dw1 P324 ws5309728 u1", /* A100-80GB auto bwd congruent 16384x4097 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8191 sm0 st0/0 w0 dw0 P0 ws0 u1", /* A100-80GB auto fwd congruent 8192x8191 f32 */
    "bwd_row/persistent t512 r1 c1 k1 g108 s4 ch8191 sm81920 st0/0 w1 dw1 P108 ws3538528 u1", /* A100-80GB auto bwd congruent 8192x8191 f32 */
    "fwd_row/multi_wave_cached t64 r1 c1 k1 g65536 s2 ch1023 sm0 st0/0 w0 dw0 P0 ws0 u1", /* A100-80GB auto fwd congruent 65536x1023 bf16 */
    "bwd_generic/multi_wave_reload t64 r1 c1 k1 g1080 s2 ch1023 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto bwd congruent noweight 65536x1023 bf16 */
    "fwd_row/multi_wave_cached t160 r1 c1 k1 g16384 s4 ch4100 sm0 st0/0 w0 dw0 P0 ws0 u1", /* A100-80GB auto fwd 16384x4100 bf16 */
    "bwd_row/persistent t160 r1 c1 k1 g324 s4 ch4100 sm36936 st0/0 w1 dw1 P324 ws5313616 u1", /* A100-80GB auto bwd 16384x4100 bf16 */
    "fwd_lanes/row_packed t128 r16 c1 k1 g65536 s1 ch128 sm0 st0/0 w0 dw0 P0 ws0", /* A10 auto fwd 1048576x128 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g288 s1 ch128 sm8192 st0/0 w0 dw0 P288 ws147472", /* A10 auto bwd 1048576x128 bf16 */
    "fwd_lanes/row_packed t128 r8 c1 k1 g16384 s2 ch512 sm0 st0/0 w0 dw0 P0 ws0", /* A10 auto fwd 131072x512 bf16 */
    "fwd_row/multi_wave_cached t64 r1 c1 k1 g131072 s1 ch512 sm0 st0/0 w0 dw0 P0 ws0", /* A10 auto fused fwd 131072x512 bf16 */
    "bwd_row/persistent t64 r1 c1 k1 g1152 s1 ch512 sm2048 st0/0 w1 dw1 P1152 ws2359312", /* A10 auto fused bwd 131072x512 bf16 (16 CTAs an SM at most: not the narrow instance) */
    "fwd_pipe/persistent t64 r1 c1 k1 g1152 s2 ch1024 sm4096 st0/0 w1 dw0 P0 ws0", /* A10 auto fwd misaligned 65536x1024 bf16 */
    "fwd_row/multi_wave_cached t128 r1 c1 k1 g16384 s4 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* A10 auto fwd 16384x4096 bf16 */
    "bwd_row/persistent t128 r1 c1 k1 g288 s4 ch4096 sm16384 st0/0 w1 dw1 P288 ws4718608", /* A10 auto bwd 16384x4096 bf16 */
    "fwd_generic/multi_wave_reload t128 r1 c1 k1 g16384 s0 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* A10 auto fwd misaligned 16384x4096 bf16 */
    "bwd_generic/multi_wave_reload t128 r1 c1 k1 g288 s4 ch4096 sm16384 st0/0 w1 dw1 P288 ws4718608", /* A10 auto fused bwd misaligned 16384x4096 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8192 sm0 st0/0 w0 dw0 P0 ws0", /* A10 auto fwd 8192x8192 f32 */
    "bwd_row/persistent t512 r1 c1 k1 g72 s4 ch8192 sm32768 st0/0 w1 dw1 P72 ws2359312", /* A10 auto fused bwd 8192x8192 f32 */
    "fwd_generic/multi_wave_reload t512 r1 c1 k1 g72 s4 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* A10 auto fused fwd misaligned 4096x16384 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g2048 s8 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* A10 auto fwd 2048x32768 bf16 */
    "bwd_generic/multi_wave_reload t1024 r1 c1 k1 g72 s1 ch32768 sm98304 st0/0 w0 dw1 P72 ws9437200", /* A10 auto bwd 2048x32768 bf16 */
    "bwd_split/wide t512 r1 c16 k1 g64 s1 ch4096 sm98304 st6/3 w0 dw0 P4 ws1114128 dd", /* A10 auto fused bwd 1024x65536 bf16 */
    "bwd_generic/multi_wave_reload t1024 r1 c1 k1 g72 s1 ch65536 sm0 st0/0 w0 dw0 P0 ws0", /* A10 auto bwd noweight 1024x65536 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g72 s2 ch1048576 sm0 st0/0 w0 dw0 P0 ws0", /* A10 auto fwd 256x1048576 bf16 */
    "bwd_generic/multi_wave_reload t1024 r1 c1 k1 g72 s1 ch1048576 sm0 st0/0 w0 dw0 P72 ws301989904", /* A10 auto bwd 256x1048576 bf16 */
    "fwd_wide/wide t128 r1 c64 k1 g64 s4 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* A10 auto fwd 1x262144 bf16 */
    "fwd_wide/wide t512 r1 c7 k1 g70 s4 ch37456 sm49152 st0/0 w0 dw0 P0 ws0", /* A10 auto fwd 17x262144 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g64 s2 ch131072 sm0 st0/0 w0 dw0 P0 ws0", /* A10 auto fwd 64x131072 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g72 s2 ch65536 sm0 st0/0 w0 dw0 P0 ws0", /* A10 auto fwd 1024x65536 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g17 s2 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* A10 auto fused fwd 17x32768 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g72 s2 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* A10 auto fwd misaligned 131x32768 bf16 */
    "fwd_wide/wide t512 r1 c72 k1 g72 s4 ch14564 sm32768 st0/0 w0 dw0 P0 ws0", /* A10 auto fwd noweight 7x1048576 f32 */
    "fwd_row/multi_wave_cached t96 r1 c1 k1 g4000 s4 ch2881 sm0 st0/0 w0 dw0 P0 ws0 u1", /* A10 auto fwd congruent 4000x2881 bf16 */
    "bwd_generic/multi_wave_reload t96 r1 c1 k1 g360 s4 ch2881 sm11552 st0/0 w1 dw1 P360 ws4148656", /* A10 auto bwd congruent 4000x2881 bf16 */
    "fwd_row/multi_wave_cached t96 r1 c1 k1 g32768 s4 ch2887 sm0 st0/0 w0 dw0 P0 ws0 u1", /* A10 auto fused fwd congruent 32768x2887 bf16 */
    "bwd_generic/multi_wave_reload t96 r1 c1 k1 g360 s4 ch2887 sm11552 st0/0 w1 dw1 P360 ws4157296", /* A10 auto fused bwd congruent 32768x2887 bf16 */
    "bwd_generic/multi_wave_reload t160 r1 c1 k1 g216 s4 ch4097 sm16416 st0/0 w1 dw1 P216 ws3539824", /* A10 auto bwd congruent 16384x4097 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8191 sm0 st0/0 w0 dw0 P0 ws0 u1", /* A10 auto fwd congruent 8192x8191 f32 */
    "bwd_row/persistent t512 r1 c1 k1 g72 s4 ch8191 sm81920 st0/0 w1 dw1 P72 ws2359024 u1", /* A10 auto bwd congruent 8192x8191 f32 */
    "fwd_row/multi_wave_cached t64 r1 c1 k1 g65536 s2 ch1023 sm0 st0/0 w0 dw0 P0 ws0 u1", /* A10 auto fwd congruent 65536x1023 bf16 */
    "bwd_generic/multi_wave_reload t64 r1 c1 k1 g720 s2 ch1023 sm0 st0/0 w0 dw0 P0 ws0", /* A10 auto bwd congruent noweight 65536x1023 bf16 */
    "fwd_row/multi_wave_cached t160 r1 c1 k1 g16384 s4 ch4100 sm0 st0/0 w0 dw0 P0 ws0 u1", /* A10 auto fwd 16384x4100 bf16 */
    "bwd_generic/multi_wave_reload t160 r1 c1 k1 g216 s4 ch4100 sm16416 st0/0 w1 dw1 P216 ws3542416", /* A10 auto bwd 16384x4100 bf16 */
    "fwd_lanes/row_packed t128 r16 c1 k1 g65536 s1 ch128 sm0 st0/0 w0 dw0 P0 ws0", /* L40S auto fwd 1048576x128 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g568 s1 ch128 sm8192 st0/0 w0 dw0 P568 ws290832", /* L40S auto bwd 1048576x128 bf16 */
    "fwd_lanes/row_packed t128 r8 c1 k1 g16384 s2 ch512 sm0 st0/0 w0 dw0 P0 ws0", /* L40S auto fwd 131072x512 bf16 */
    "fwd_row/multi_wave_cached t64 r1 c1 k1 g131072 s1 ch512 sm0 st0/0 w0 dw0 P0 ws0", /* L40S auto fused fwd 131072x512 bf16 */
    "bwd_row/persistent t64 r1 c1 k1 g2840 s1 ch512 sm2048 st0/0 w1 dw1 P2840 ws5816336 nw", /* L40S auto fused bwd 131072x512 bf16 */
    "fwd_pipe/persistent t64 r1 c1 k1 g2272 s2 ch1024 sm4096 st0/0 w1 dw0 P0 ws0", /* L40S auto fwd misaligned 65536x1024 bf16 */
    "fwd_row/multi_wave_cached t128 r1 c1 k1 g16384 s4 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* L40S auto fwd 16384x4096 bf16 */
    "bwd_row/persistent t128 r1 c1 k1 g568 s4 ch4096 sm16384 st0/0 w1 dw1 P568 ws9306128", /* L40S auto bwd 16384x4096 bf16 */
    "fwd_generic/multi_wave_reload t128 r1 c1 k1 g16384 s0 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* L40S auto fwd misaligned 16384x4096 bf16 */
    "bwd_generic/multi_wave_reload t128 r1 c1 k1 g568 s4 ch4096 sm16384 st0/0 w1 dw1 P568 ws9306128", /* L40S auto fused bwd misaligned 16384x4096 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8192 sm0 st0/0 w0 dw0 P0 ws0", /* L40S auto fwd 8192x8192 f32 */
    "bwd_row/persistent t512 r1 c1 k1 g142 s4 ch8192 sm32768 st0/0 w1 dw1 P142 ws4653072", /* L40S auto fused bwd 8192x8192 f32 */
    "fwd_generic/multi_wave_reload t512 r1 c1 k1 g4096 s0 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* L40S auto fused fwd misaligned 4096x16384 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g2048 s8 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* L40S auto fwd 2048x32768 bf16 */
    "bwd_generic/multi_wave_reload t1024 r1 c1 k1 g142 s1 ch32768 sm98304 st0/0 w0 dw1 P142 ws18612240", /* L40S auto bwd 2048x32768 bf16 */
    "bwd_split/wide t512 r1 c16 k1 g128 s1 ch4096 sm98304 st6/3 w0 dw0 P8 ws2162704 dd", /* L40S auto fused bwd 1024x65536 bf16 */
    "bwd_generic/multi_wave_reload t1024 r1 c1 k1 g142 s1 ch65536 sm0 st0/0 w0 dw0 P0 ws0", /* L40S auto bwd noweight 1024x65536 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g142 s2 ch1048576 sm0 st0/0 w0 dw0 P0 ws0", /* L40S auto fwd 256x1048576 bf16 */
    "bwd_split/wide t480 r1 c142 k1 g142 s2 ch7392 sm88704 st3/2 w0 dw0 P1 ws4339728 dk", /* L40S auto bwd 256x1048576 bf16 */
    "fwd_wide/wide t128 r1 c64 k1 g64 s4 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* L40S auto fwd 1x262144 bf16 */
    "fwd_wide/wide t512 r1 c8 k1 g136 s4 ch32768 sm32768 st0/0 w0 dw0 P0 ws0", /* L40S auto fwd 17x262144 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g64 s2 ch131072 sm0 st0/0 w0 dw0 P0 ws0", /* L40S auto fwd 64x131072 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g142 s2 ch65536 sm0 st0/0 w0 dw0 P0 ws0", /* L40S auto fwd 1024x65536 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g17 s2 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* L40S auto fused fwd 17x32768 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g131 s2 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* L40S auto fwd misaligned 131x32768 bf16 */
    "fwd_wide/wide t512 r1 c71 k1 g142 s4 ch14772 sm32768 st0/0 w0 dw0 P0 ws0", /* L40S auto fwd noweight 7x1048576 f32 */
    "fwd_row/multi_wave_cached t96 r1 c1 k1 g4000 s4 ch2881 sm0 st0/0 w0 dw0 P0 ws0 u1", /* L40S auto fwd congruent 4000x2881 bf16 */
    "bwd_generic/multi_wave_reload t96 r1 c1 k1 g710 s4 ch2881 sm11552 st0/0 w1 dw1 P710 ws8182056", /* L40S auto bwd congruent 4000x2881 bf16 */
    "fwd_row/multi_wave_cached t96 r1 c1 k1 g32768 s4 ch2887 sm0 st0/0 w0 dw0 P0 ws0 u1", /* L40S auto fused fwd congruent 32768x2887 bf16 */
    "bwd_generic/multi_wave_reload t96 r1 c1 k1 g710 s4 ch2887 sm11552 st0/0 w1 dw1 P710 ws8199096", /* L40S auto fused bwd congruent 32768x2887 bf16 */
    "bwd_generic/multi_wave_reload t160 r1 c1 k1 g426 s4 ch4097 sm16416 st0/0 w1 dw1 P426 ws6981304", /* L40S auto bwd congruent 16384x4097 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8191 sm0 st0/0 w0 dw0 P0 ws0 u1", /* L40S auto fwd congruent 8192x8191 f32 */
    "bwd_row/persistent t512 r1 c1 k1 g142 s4 ch8191 sm81920 st0/0 w1 dw1 P142 ws4652504 u1", /* L40S auto bwd congruent 8192x8191 f32 */
    "fwd_row/multi_wave_cached t64 r1 c1 k1 g65536 s2 ch1023 sm0 st0/0 w0 dw0 P0 ws0 u1", /* L40S auto fwd congruent 65536x1023 bf16 */
    "bwd_generic/multi_wave_reload t64 r1 c1 k1 g1420 s2 ch1023 sm0 st0/0 w0 dw0 P0 ws0", /* L40S auto bwd congruent noweight 65536x1023 bf16 */
    "fwd_row/multi_wave_cached t160 r1 c1 k1 g16384 s4 ch4100 sm0 st0/0 w0 dw0 P0 ws0 u1", /* L40S auto fwd 16384x4100 bf16 */
    "bwd_generic/multi_wave_reload t160 r1 c1 k1 g426 s4 ch4100 sm16416 st0/0 w1 dw1 P426 ws6986416", /* L40S auto bwd 16384x4100 bf16 */
    "fwd_lanes/row_packed t128 r16 c1 k1 g65536 s1 ch128 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fwd 1048576x128 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g512 s1 ch128 sm8192 st0/0 w0 dw0 P512 ws262160", /* RTX4090 auto bwd 1048576x128 bf16 */
    "fwd_lanes/row_packed t128 r8 c1 k1 g16384 s2 ch512 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fwd 131072x512 bf16 */
    "fwd_row/multi_wave_cached t64 r1 c1 k1 g131072 s1 ch512 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fused fwd 131072x512 bf16 */
    "bwd_row/persistent t64 r1 c1 k1 g2560 s1 ch512 sm2048 st0/0 w1 dw1 P2560 ws5242896 nw", /* RTX4090 auto fused bwd 131072x512 bf16 */
    "fwd_pipe/persistent t64 r1 c1 k1 g2048 s2 ch1024 sm4096 st0/0 w1 dw0 P0 ws0", /* RTX4090 auto fwd misaligned 65536x1024 bf16 */
    "fwd_row/multi_wave_cached t128 r1 c1 k1 g16384 s4 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fwd 16384x4096 bf16 */
    "bwd_row/persistent t128 r1 c1 k1 g512 s4 ch4096 sm16384 st0/0 w1 dw1 P512 ws8388624", /* RTX4090 auto bwd 16384x4096 bf16 */
    "fwd_generic/multi_wave_reload t128 r1 c1 k1 g16384 s0 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fwd misaligned 16384x4096 bf16 */
    "bwd_generic/multi_wave_reload t128 r1 c1 k1 g512 s4 ch4096 sm16384 st0/0 w1 dw1 P512 ws8388624", /* RTX4090 auto fused bwd misaligned 16384x4096 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8192 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fwd 8192x8192 f32 */
    "bwd_row/persistent t512 r1 c1 k1 g128 s4 ch8192 sm32768 st0/0 w1 dw1 P128 ws4194320", /* RTX4090 auto fused bwd 8192x8192 f32 */
    "fwd_generic/multi_wave_reload t512 r1 c1 k1 g4096 s0 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fused fwd misaligned 4096x16384 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g2048 s8 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fwd 2048x32768 bf16 */
    "bwd_generic/multi_wave_reload t1024 r1 c1 k1 g128 s1 ch32768 sm98304 st0/0 w0 dw1 P128 ws16777232", /* RTX4090 auto bwd 2048x32768 bf16 */
    "bwd_split/wide t512 r1 c16 k1 g128 s1 ch4096 sm98304 st6/3 w0 dw0 P8 ws2162704 dd", /* RTX4090 auto fused bwd 1024x65536 bf16 */
    "bwd_generic/multi_wave_reload t1024 r1 c1 k1 g128 s1 ch65536 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto bwd noweight 1024x65536 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g128 s2 ch1048576 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fwd 256x1048576 bf16 */
    "bwd_split/wide t512 r1 c128 k1 g128 s2 ch8192 sm98304 st3/2 w0 dw0 P1 ws4325392 dk", /* RTX4090 auto bwd 256x1048576 bf16 */
    "fwd_wide/wide t128 r1 c64 k1 g64 s4 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fwd 1x262144 bf16 */
    "fwd_wide/wide t512 r1 c7 k1 g119 s4 ch37456 sm49152 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fwd 17x262144 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g64 s2 ch131072 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fwd 64x131072 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g128 s2 ch65536 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fwd 1024x65536 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g17 s2 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fused fwd 17x32768 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g128 s2 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fwd misaligned 131x32768 bf16 */
    "fwd_wide/wide t512 r1 c64 k1 g128 s4 ch16384 sm32768 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fwd noweight 7x1048576 f32 */
    "fwd_row/multi_wave_cached t96 r1 c1 k1 g4000 s4 ch2881 sm0 st0/0 w0 dw0 P0 ws0 u1", /* RTX4090 auto fwd congruent 4000x2881 bf16 */
    "bwd_generic/multi_wave_reload t96 r1 c1 k1 g640 s4 ch2881 sm11552 st0/0 w1 dw1 P640 ws7375376", /* RTX4090 auto bwd congruent 4000x2881 bf16 */
    "fwd_row/multi_wave_cached t96 r1 c1 k1 g32768 s4 ch2887 sm0 st0/0 w0 dw0 P0 ws0 u1", /* RTX4090 auto fused fwd congruent 32768x2887 bf16 */
    "bwd_generic/multi_wave_reload t96 r1 c1 k1 g640 s4 ch2887 sm11552 st0/0 w1 dw1 P640 ws7390736", /* RTX4090 auto fused bwd congruent 32768x2887 bf16 */
    "bwd_generic/multi_wave_reload t160 r1 c1 k1 g384 s4 ch4097 sm16416 st0/0 w1 dw1 P384 ws6293008", /* RTX4090 auto bwd congruent 16384x4097 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8191 sm0 st0/0 w0 dw0 P0 ws0 u1", /* RTX4090 auto fwd congruent 8192x8191 f32 */
    "bwd_row/persistent t512 r1 c1 k1 g128 s4 ch8191 sm81920 st0/0 w1 dw1 P128 ws4193808 u1", /* RTX4090 auto bwd congruent 8192x8191 f32 */
    "fwd_row/multi_wave_cached t64 r1 c1 k1 g65536 s2 ch1023 sm0 st0/0 w0 dw0 P0 ws0 u1", /* RTX4090 auto fwd congruent 65536x1023 bf16 */
    "bwd_generic/multi_wave_reload t64 r1 c1 k1 g1280 s2 ch1023 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto bwd congruent noweight 65536x1023 bf16 */
    "fwd_row/multi_wave_cached t160 r1 c1 k1 g16384 s4 ch4100 sm0 st0/0 w0 dw0 P0 ws0 u1", /* RTX4090 auto fwd 16384x4100 bf16 */
    "bwd_generic/multi_wave_reload t160 r1 c1 k1 g384 s4 ch4100 sm16416 st0/0 w1 dw1 P384 ws6297616", /* RTX4090 auto bwd 16384x4100 bf16 */
    "fwd_lanes/row_packed t128 r16 c1 k1 g65536 s1 ch128 sm0 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto fwd 1048576x128 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g528 s1 ch128 sm8192 st0/0 w0 dw0 P528 ws270352", /* H100-SXM auto bwd 1048576x128 bf16 */
    "fwd_lanes/row_packed t128 r8 c1 k1 g16384 s2 ch512 sm0 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto fwd 131072x512 bf16 */
    "fwd_row/multi_wave_cached t64 r1 c1 k1 g131072 s1 ch512 sm0 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto fused fwd 131072x512 bf16 */
    "bwd_row/persistent t64 r1 c1 k1 g2640 s1 ch512 sm2048 st0/0 w1 dw1 P2640 ws5406736 nw", /* H100-SXM auto fused bwd 131072x512 bf16 */
    "fwd_pipe/persistent t64 r1 c1 k1 g2112 s2 ch1024 sm4096 st0/0 w1 dw0 P0 ws0", /* H100-SXM auto fwd misaligned 65536x1024 bf16 */
    "fwd_row/multi_wave_cached t128 r1 c1 k1 g16384 s4 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto fwd 16384x4096 bf16 */
    "bwd_row/persistent t128 r1 c1 k1 g528 s4 ch4096 sm16384 st0/0 w1 dw1 P528 ws8650768", /* H100-SXM auto bwd 16384x4096 bf16 */
    "fwd_generic/multi_wave_reload t128 r1 c1 k1 g16384 s0 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto fwd misaligned 16384x4096 bf16 */
    "bwd_generic/multi_wave_reload t128 r1 c1 k1 g528 s4 ch4096 sm16384 st0/0 w1 dw1 P528 ws8650768", /* H100-SXM auto fused bwd misaligned 16384x4096 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8192 sm0 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto fwd 8192x8192 f32 */
    "bwd_row/persistent t512 r1 c1 k1 g132 s4 ch8192 sm32768 st0/0 w1 dw1 P132 ws4325392", /* H100-SXM auto fused bwd 8192x8192 f32 */
    "fwd_generic/multi_wave_reload t512 r1 c1 k1 g4096 s0 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto fused fwd misaligned 4096x16384 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g2048 s8 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto fwd 2048x32768 bf16 */
    "bwd_row/persistent t512 r1 c1 k1 g132 s8 ch32768 sm196608 st0/0 w2 dw1 P132 ws17301520", /* H100-SXM auto bwd 2048x32768 bf16 */
    "bwd_split/wide t512 r1 c8 k1 g128 s2 ch8192 sm229376 st7/3 w0 dw0 P16 ws4227088 dd", /* H100-SXM auto fused bwd 1024x65536 bf16 */
    "bwd_generic/wide t512 r1 c4 k4 g132 s4 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto bwd noweight 1024x65536 bf16 */
    "fwd_wide/wide t512 r1 c16 k16 g4096 s4 ch65536 sm98304 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto fwd 256x1048576 bf16 */
    "bwd_split/wide t512 r1 c132 k1 g132 s2 ch7944 sm222432 st7/3 w0 dw0 P1 ws4329488 dk", /* H100-SXM auto bwd 256x1048576 bf16 */
    "fwd_wide/wide t512 r1 c16 k16 g16 s4 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto fwd 1x262144 bf16 */
    "fwd_wide/wide t512 r1 c8 k8 g136 s4 ch32768 sm32768 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto fwd 17x262144 bf16 */
    "fwd_wide/wide t512 r1 c4 k4 g256 s4 ch32768 sm32768 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto fwd 64x131072 bf16 */
    "fwd_wide/wide t256 r1 c4 k4 g4096 s0 ch16384 sm32768 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto fwd 1024x65536 bf16 */
    "fwd_wide/wide t256 r1 c8 k8 g136 s2 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto fused fwd 17x32768 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g131 s2 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto fwd misaligned 131x32768 bf16 */
    "fwd_wide/wide t512 r1 c16 k16 g112 s4 ch65536 sm114688 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto fwd noweight 7x1048576 f32 */
    "fwd_row/multi_wave_cached t96 r1 c1 k1 g4000 s4 ch2881 sm0 st0/0 w0 dw0 P0 ws0 u1", /* H100-SXM auto fwd congruent 4000x2881 bf16 */
    "bwd_row/persistent t96 r1 c1 k1 g660 s4 ch2881 sm25992 st0/0 w1 dw1 P660 ws7605856 u1", /* H100-SXM auto bwd congruent 4000x2881 bf16 */
    "fwd_row/multi_wave_cached t96 r1 c1 k1 g32768 s4 ch2887 sm0 st0/0 w0 dw0 P0 ws0 u1", /* H100-SXM auto fused fwd congruent 32768x2887 bf16 */
    "bwd_row/persistent t96 r1 c1 k1 g660 s4 ch2887 sm25992 st0/0 w1 dw1 P660 ws7621696 u1", /* H100-SXM auto fused bwd congruent 32768x2887 bf16 */
    "bwd_row/persistent t160 r1 c1 k1 g396 s4 ch4097 sm36936 st0/0 w1 dw1 P396 ws6489664 u1", /* H100-SXM auto bwd congruent 16384x4097 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8191 sm0 st0/0 w0 dw0 P0 ws0 u1", /* H100-SXM auto fwd congruent 8192x8191 f32 */
    "bwd_row/persistent t512 r1 c1 k1 g132 s4 ch8191 sm81920 st0/0 w1 dw1 P132 ws4324864 u1", /* H100-SXM auto bwd congruent 8192x8191 f32 */
    "fwd_row/multi_wave_cached t64 r1 c1 k1 g65536 s2 ch1023 sm0 st0/0 w0 dw0 P0 ws0 u1", /* H100-SXM auto fwd congruent 65536x1023 bf16 */
    "bwd_generic/multi_wave_reload t64 r1 c1 k1 g1320 s2 ch1023 sm0 st0/0 w0 dw0 P0 ws0", /* H100-SXM auto bwd congruent noweight 65536x1023 bf16 */
    "fwd_row/multi_wave_cached t160 r1 c1 k1 g16384 s4 ch4100 sm0 st0/0 w0 dw0 P0 ws0 u1", /* H100-SXM auto fwd 16384x4100 bf16 */
    "bwd_row/persistent t160 r1 c1 k1 g396 s4 ch4100 sm36936 st0/0 w1 dw1 P396 ws6494416 u1", /* H100-SXM auto bwd 16384x4100 bf16 */
    "fwd_lanes/row_packed t128 r16 c1 k1 g65536 s1 ch128 sm0 st0/0 w0 dw0 P0 ws0", /* H200 auto fwd 1048576x128 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g528 s1 ch128 sm8192 st0/0 w0 dw0 P528 ws270352", /* H200 auto bwd 1048576x128 bf16 */
    "fwd_lanes/row_packed t128 r8 c1 k1 g16384 s2 ch512 sm0 st0/0 w0 dw0 P0 ws0", /* H200 auto fwd 131072x512 bf16 */
    "fwd_row/multi_wave_cached t64 r1 c1 k1 g131072 s1 ch512 sm0 st0/0 w0 dw0 P0 ws0", /* H200 auto fused fwd 131072x512 bf16 */
    "bwd_row/persistent t64 r1 c1 k1 g2640 s1 ch512 sm2048 st0/0 w1 dw1 P2640 ws5406736 nw", /* H200 auto fused bwd 131072x512 bf16 */
    "fwd_pipe/persistent t64 r1 c1 k1 g2112 s2 ch1024 sm4096 st0/0 w1 dw0 P0 ws0", /* H200 auto fwd misaligned 65536x1024 bf16 */
    "fwd_row/multi_wave_cached t128 r1 c1 k1 g16384 s4 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* H200 auto fwd 16384x4096 bf16 */
    "bwd_row/persistent t128 r1 c1 k1 g528 s4 ch4096 sm16384 st0/0 w1 dw1 P528 ws8650768", /* H200 auto bwd 16384x4096 bf16 */
    "fwd_generic/multi_wave_reload t128 r1 c1 k1 g16384 s0 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* H200 auto fwd misaligned 16384x4096 bf16 */
    "bwd_generic/multi_wave_reload t128 r1 c1 k1 g528 s4 ch4096 sm16384 st0/0 w1 dw1 P528 ws8650768", /* H200 auto fused bwd misaligned 16384x4096 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8192 sm0 st0/0 w0 dw0 P0 ws0", /* H200 auto fwd 8192x8192 f32 */
    "bwd_row/persistent t512 r1 c1 k1 g132 s4 ch8192 sm32768 st0/0 w1 dw1 P132 ws4325392", /* H200 auto fused bwd 8192x8192 f32 */
    "fwd_generic/multi_wave_reload t512 r1 c1 k1 g4096 s0 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* H200 auto fused fwd misaligned 4096x16384 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g2048 s8 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* H200 auto fwd 2048x32768 bf16 */
    "bwd_row/persistent t512 r1 c1 k1 g132 s8 ch32768 sm196608 st0/0 w2 dw1 P132 ws17301520", /* H200 auto bwd 2048x32768 bf16 */
    "bwd_split/wide t512 r1 c8 k1 g128 s2 ch8192 sm229376 st7/3 w0 dw0 P16 ws4227088 dd", /* H200 auto fused bwd 1024x65536 bf16 */
    "bwd_generic/wide t512 r1 c4 k4 g120 s4 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* H200 auto bwd noweight 1024x65536 bf16 */
    "fwd_wide/wide t512 r1 c16 k16 g4096 s4 ch65536 sm98304 st0/0 w0 dw0 P0 ws0", /* H200 auto fwd 256x1048576 bf16 */
    "bwd_split/wide t512 r1 c132 k1 g132 s2 ch7944 sm222432 st7/3 w0 dw0 P1 ws4329488 dk", /* H200 auto bwd 256x1048576 bf16 */
    "fwd_wide/wide t512 r1 c16 k16 g16 s4 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* H200 auto fwd 1x262144 bf16 */
    "fwd_wide/wide t512 r1 c8 k8 g136 s4 ch32768 sm32768 st0/0 w0 dw0 P0 ws0", /* H200 auto fwd 17x262144 bf16 */
    "fwd_wide/wide t256 r1 c8 k8 g512 s0 ch16384 sm32768 st0/0 w0 dw0 P0 ws0", /* H200 auto fwd 64x131072 bf16 */
    "fwd_wide/wide t256 r1 c4 k4 g4096 s0 ch16384 sm32768 st0/0 w0 dw0 P0 ws0", /* H200 auto fwd 1024x65536 bf16 */
    "fwd_wide/wide t256 r1 c8 k8 g136 s2 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* H200 auto fused fwd 17x32768 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g131 s2 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* H200 auto fwd misaligned 131x32768 bf16 */
    "fwd_wide/wide t512 r1 c16 k16 g112 s4 ch65536 sm114688 st0/0 w0 dw0 P0 ws0", /* H200 auto fwd noweight 7x1048576 f32 */
    "fwd_row/multi_wave_cached t96 r1 c1 k1 g4000 s4 ch2881 sm0 st0/0 w0 dw0 P0 ws0 u1", /* H200 auto fwd congruent 4000x2881 bf16 */
    "bwd_row/persistent t96 r1 c1 k1 g660 s4 ch2881 sm25992 st0/0 w1 dw1 P660 ws7605856 u1", /* H200 auto bwd congruent 4000x2881 bf16 */
    "fwd_row/multi_wave_cached t96 r1 c1 k1 g32768 s4 ch2887 sm0 st0/0 w0 dw0 P0 ws0 u1", /* H200 auto fused fwd congruent 32768x2887 bf16 */
    "bwd_row/persistent t96 r1 c1 k1 g660 s4 ch2887 sm25992 st0/0 w1 dw1 P660 ws7621696 u1", /* H200 auto fused bwd congruent 32768x2887 bf16 */
    "bwd_row/persistent t160 r1 c1 k1 g396 s4 ch4097 sm36936 st0/0 w1 dw1 P396 ws6489664 u1", /* H200 auto bwd congruent 16384x4097 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8191 sm0 st0/0 w0 dw0 P0 ws0 u1", /* H200 auto fwd congruent 8192x8191 f32 */
    "bwd_row/persistent t512 r1 c1 k1 g132 s4 ch8191 sm81920 st0/0 w1 dw1 P132 ws4324864 u1", /* H200 auto bwd congruent 8192x8191 f32 */
    "fwd_row/multi_wave_cached t64 r1 c1 k1 g65536 s2 ch1023 sm0 st0/0 w0 dw0 P0 ws0 u1", /* H200 auto fwd congruent 65536x1023 bf16 */
    "bwd_generic/multi_wave_reload t64 r1 c1 k1 g1320 s2 ch1023 sm0 st0/0 w0 dw0 P0 ws0", /* H200 auto bwd congruent noweight 65536x1023 bf16 */
    "fwd_row/multi_wave_cached t160 r1 c1 k1 g16384 s4 ch4100 sm0 st0/0 w0 dw0 P0 ws0 u1", /* H200 auto fwd 16384x4100 bf16 */
    "bwd_row/persistent t160 r1 c1 k1 g396 s4 ch4100 sm36936 st0/0 w1 dw1 P396 ws6494416 u1", /* H200 auto bwd 16384x4100 bf16 */
    "fwd_lanes/row_packed t128 r16 c1 k1 g65536 s1 ch128 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto fwd 1048576x128 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g592 s1 ch128 sm8192 st0/0 w0 dw0 P592 ws303120", /* B200 auto bwd 1048576x128 bf16 */
    "fwd_lanes/row_packed t128 r8 c1 k1 g16384 s2 ch512 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto fwd 131072x512 bf16 */
    "fwd_row/multi_wave_cached t64 r1 c1 k1 g131072 s1 ch512 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto fused fwd 131072x512 bf16 */
    "bwd_row/persistent t64 r1 c1 k1 g2960 s1 ch512 sm2048 st0/0 w1 dw1 P2960 ws6062096 nw", /* B200 auto fused bwd 131072x512 bf16 */
    "fwd_pipe/persistent t64 r1 c1 k1 g2368 s2 ch1024 sm4096 st0/0 w1 dw0 P0 ws0", /* B200 auto fwd misaligned 65536x1024 bf16 */
    "fwd_row/multi_wave_cached t128 r1 c1 k1 g16384 s4 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto fwd 16384x4096 bf16 */
    "bwd_row/persistent t128 r1 c1 k1 g592 s4 ch4096 sm16384 st0/0 w1 dw1 P592 ws9699344", /* B200 auto bwd 16384x4096 bf16 */
    "fwd_generic/multi_wave_reload t128 r1 c1 k1 g16384 s0 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto fwd misaligned 16384x4096 bf16 */
    "bwd_generic/multi_wave_reload t128 r1 c1 k1 g592 s4 ch4096 sm16384 st0/0 w1 dw1 P592 ws9699344", /* B200 auto fused bwd misaligned 16384x4096 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8192 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto fwd 8192x8192 f32 */
    "bwd_row/persistent t512 r1 c1 k1 g148 s4 ch8192 sm32768 st0/0 w1 dw1 P148 ws4849680", /* B200 auto fused bwd 8192x8192 f32 */
    "fwd_generic/multi_wave_reload t512 r1 c1 k1 g4096 s0 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto fused fwd misaligned 4096x16384 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g2048 s8 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto fwd 2048x32768 bf16 */
    "bwd_row/persistent t512 r1 c1 k1 g148 s8 ch32768 sm196608 st0/0 w2 dw1 P148 ws19398672", /* B200 auto bwd 2048x32768 bf16 */
    "bwd_split/wide t512 r1 c8 k1 g144 s2 ch8192 sm229376 st7/3 w0 dw0 P18 ws4751376 dd", /* B200 auto fused bwd 1024x65536 bf16 */
    "bwd_generic/wide t512 r1 c4 k4 g148 s4 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto bwd noweight 1024x65536 bf16 */
    "fwd_wide/wide t512 r1 c16 k16 g4096 s4 ch65536 sm98304 st0/0 w0 dw0 P0 ws0", /* B200 auto fwd 256x1048576 bf16 */
    "bwd_split/wide t448 r1 c148 k1 g148 s2 ch7088 sm226816 st8/4 w0 dw0 P1 ws4345872 dk", /* B200 auto bwd 256x1048576 bf16 */
    "fwd_wide/wide t512 r1 c16 k16 g16 s4 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto fwd 1x262144 bf16 */
    "fwd_wide/wide t512 r1 c16 k16 g272 s4 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto fwd 17x262144 bf16 */
    "fwd_wide/wide t512 r1 c4 k4 g256 s4 ch32768 sm32768 st0/0 w0 dw0 P0 ws0", /* B200 auto fwd 64x131072 bf16 */
    "fwd_wide/wide t256 r1 c4 k4 g4096 s0 ch16384 sm32768 st0/0 w0 dw0 P0 ws0", /* B200 auto fwd 1024x65536 bf16 */
    "fwd_wide/wide t256 r1 c8 k8 g136 s2 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto fused fwd 17x32768 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g131 s2 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto fwd misaligned 131x32768 bf16 */
    "fwd_wide/wide t512 r1 c16 k16 g112 s4 ch65536 sm114688 st0/0 w0 dw0 P0 ws0", /* B200 auto fwd noweight 7x1048576 f32 */
    "fwd_row/multi_wave_cached t96 r1 c1 k1 g4000 s4 ch2881 sm0 st0/0 w0 dw0 P0 ws0 u1", /* B200 auto fwd congruent 4000x2881 bf16 */
    "bwd_row/persistent t96 r1 c1 k1 g740 s4 ch2881 sm25992 st0/0 w1 dw1 P740 ws8527776 u1", /* B200 auto bwd congruent 4000x2881 bf16 */
    "fwd_row/multi_wave_cached t96 r1 c1 k1 g32768 s4 ch2887 sm0 st0/0 w0 dw0 P0 ws0 u1", /* B200 auto fused fwd congruent 32768x2887 bf16 */
    "bwd_row/persistent t96 r1 c1 k1 g740 s4 ch2887 sm25992 st0/0 w1 dw1 P740 ws8545536 u1", /* B200 auto fused bwd congruent 32768x2887 bf16 */
    "bwd_row/persistent t160 r1 c1 k1 g444 s4 ch4097 sm36936 st0/0 w1 dw1 P444 ws7276288 u1", /* B200 auto bwd congruent 16384x4097 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8191 sm0 st0/0 w0 dw0 P0 ws0 u1", /* B200 auto fwd congruent 8192x8191 f32 */
    "bwd_row/persistent t512 r1 c1 k1 g148 s4 ch8191 sm81920 st0/0 w1 dw1 P148 ws4849088 u1", /* B200 auto bwd congruent 8192x8191 f32 */
    "fwd_row/multi_wave_cached t64 r1 c1 k1 g65536 s2 ch1023 sm0 st0/0 w0 dw0 P0 ws0 u1", /* B200 auto fwd congruent 65536x1023 bf16 */
    "bwd_generic/multi_wave_reload t64 r1 c1 k1 g1480 s2 ch1023 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto bwd congruent noweight 65536x1023 bf16 */
    "fwd_row/multi_wave_cached t160 r1 c1 k1 g16384 s4 ch4100 sm0 st0/0 w0 dw0 P0 ws0 u1", /* B200 auto fwd 16384x4100 bf16 */
    "bwd_row/persistent t160 r1 c1 k1 g444 s4 ch4100 sm36936 st0/0 w1 dw1 P444 ws7281616 u1", /* B200 auto bwd 16384x4100 bf16 */
    "fwd_lanes/row_packed t128 r16 c1 k1 g65536 s1 ch128 sm0 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto fwd 1048576x128 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g680 s1 ch128 sm8192 st0/0 w0 dw0 P680 ws348176", /* RTX5090 auto bwd 1048576x128 bf16 */
    "fwd_lanes/row_packed t128 r8 c1 k1 g16384 s2 ch512 sm0 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto fwd 131072x512 bf16 */
    "fwd_row/multi_wave_cached t64 r1 c1 k1 g131072 s1 ch512 sm0 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto fused fwd 131072x512 bf16 */
    "bwd_row/persistent t64 r1 c1 k1 g3400 s1 ch512 sm2048 st0/0 w1 dw1 P3400 ws6963216 nw", /* RTX5090 auto fused bwd 131072x512 bf16 */
    "fwd_pipe/persistent t64 r1 c1 k1 g2720 s2 ch1024 sm4096 st0/0 w1 dw0 P0 ws0", /* RTX5090 auto fwd misaligned 65536x1024 bf16 */
    "fwd_row/multi_wave_cached t128 r1 c1 k1 g16384 s4 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto fwd 16384x4096 bf16 */
    "bwd_row/persistent t128 r1 c1 k1 g680 s4 ch4096 sm16384 st0/0 w1 dw1 P680 ws11141136", /* RTX5090 auto bwd 16384x4096 bf16 */
    "fwd_generic/multi_wave_reload t128 r1 c1 k1 g16384 s0 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto fwd misaligned 16384x4096 bf16 */
    "bwd_generic/multi_wave_reload t128 r1 c1 k1 g680 s4 ch4096 sm16384 st0/0 w1 dw1 P680 ws11141136", /* RTX5090 auto fused bwd misaligned 16384x4096 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8192 sm0 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto fwd 8192x8192 f32 */
    "bwd_row/persistent t512 r1 c1 k1 g170 s4 ch8192 sm32768 st0/0 w1 dw1 P170 ws5570576", /* RTX5090 auto fused bwd 8192x8192 f32 */
    "fwd_generic/multi_wave_reload t512 r1 c1 k1 g4096 s0 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto fused fwd misaligned 4096x16384 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g2048 s8 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto fwd 2048x32768 bf16 */
    "bwd_generic/wide t512 r1 c2 k2 g170 s4 ch16384 sm65536 st0/0 w1 dw1 P85 ws11141136", /* RTX5090 auto bwd 2048x32768 bf16 */
    "bwd_split/wide t512 r1 c16 k1 g160 s1 ch4096 sm98304 st6/3 w0 dw0 P10 ws2686992 dd", /* RTX5090 auto fused bwd 1024x65536 bf16 */
    "bwd_generic/wide t512 r1 c4 k4 g168 s4 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto bwd noweight 1024x65536 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g170 s2 ch1048576 sm0 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto fwd 256x1048576 bf16 */
    "bwd_split/wide t416 r1 c170 k1 g170 s2 ch6176 sm74112 st3/2 w0 dw0 P1 ws4368400 dk", /* RTX5090 auto bwd 256x1048576 bf16 */
    "fwd_wide/wide t512 r1 c8 k8 g8 s4 ch32768 sm32768 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto fwd 1x262144 bf16 */
    "fwd_wide/wide t512 r1 c8 k8 g136 s4 ch32768 sm32768 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto fwd 17x262144 bf16 */
    "fwd_wide/wide t256 r1 c8 k8 g512 s0 ch16384 sm32768 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto fwd 64x131072 bf16 */
    "fwd_wide/wide t256 r1 c4 k4 g4096 s0 ch16384 sm32768 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto fwd 1024x65536 bf16 */
    "fwd_wide/wide t256 r1 c8 k8 g136 s2 ch4096 sm0 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto fused fwd 17x32768 bf16 */
    "fwd_generic/multi_wave_reload t1024 r1 c1 k1 g131 s2 ch32768 sm0 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto fwd misaligned 131x32768 bf16 */
    "fwd_wide/wide t512 r1 c56 k1 g168 s4 ch18728 sm49152 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto fwd noweight 7x1048576 f32 */
    "fwd_row/multi_wave_cached t96 r1 c1 k1 g4000 s4 ch2881 sm0 st0/0 w0 dw0 P0 ws0 u1", /* RTX5090 auto fwd congruent 4000x2881 bf16 */
    "bwd_generic/multi_wave_reload t96 r1 c1 k1 g850 s4 ch2881 sm11552 st0/0 w1 dw1 P850 ws9795416", /* RTX5090 auto bwd congruent 4000x2881 bf16 */
    "fwd_row/multi_wave_cached t96 r1 c1 k1 g32768 s4 ch2887 sm0 st0/0 w0 dw0 P0 ws0 u1", /* RTX5090 auto fused fwd congruent 32768x2887 bf16 */
    "bwd_generic/multi_wave_reload t96 r1 c1 k1 g850 s4 ch2887 sm11552 st0/0 w1 dw1 P850 ws9815816", /* RTX5090 auto fused bwd congruent 32768x2887 bf16 */
    "bwd_generic/multi_wave_reload t160 r1 c1 k1 g510 s4 ch4097 sm16416 st0/0 w1 dw1 P510 ws8357896", /* RTX5090 auto bwd congruent 16384x4097 bf16 */
    "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8191 sm0 st0/0 w0 dw0 P0 ws0 u1", /* RTX5090 auto fwd congruent 8192x8191 f32 */
    "bwd_row/persistent t512 r1 c1 k1 g170 s4 ch8191 sm81920 st0/0 w1 dw1 P170 ws5569896 u1", /* RTX5090 auto bwd congruent 8192x8191 f32 */
    "fwd_row/multi_wave_cached t64 r1 c1 k1 g65536 s2 ch1023 sm0 st0/0 w0 dw0 P0 ws0 u1", /* RTX5090 auto fwd congruent 65536x1023 bf16 */
    "bwd_generic/multi_wave_reload t64 r1 c1 k1 g1700 s2 ch1023 sm0 st0/0 w0 dw0 P0 ws0", /* RTX5090 auto bwd congruent noweight 65536x1023 bf16 */
    "fwd_row/multi_wave_cached t160 r1 c1 k1 g16384 s4 ch4100 sm0 st0/0 w0 dw0 P0 ws0 u1", /* RTX5090 auto fwd 16384x4100 bf16 */
    "bwd_generic/multi_wave_reload t160 r1 c1 k1 g510 s4 ch4100 sm16416 st0/0 w1 dw1 P510 ws8364016", /* RTX5090 auto bwd 16384x4100 bf16 */
};

/* AUTO on the H200 (aligned rows) at the widths where its thresholds switch: each threshold and
 * its measurement are in select.c / launch_config.h (FN_AUTO_*, FN_SPLIT_AUTO_MIN_SLOTS). */
static const struct {
  int64_t rows, n;
  fusednorm_dtype x;
  int bwd, fused;
  const char *plan;
} kH200[] = {
    /* QK-norm, head_dim 128, millions of rows: the row-pipelined row-packed kernels, 16 lanes of
     * one slot per row, 16 teams per CTA */
    {1048576, 128, BF, 0, 0, "fwd_lanes/row_packed t128 r16 c1 k1 g65536 s1 ch128 sm0 st0/0 w0 dw0 P0 ws0"},
    {1048576, 128, BF, 1, 0, "bwd_pipe/row_packed t256 r16 c1 k1 g528 s1 ch128 sm8192 st0/0 w0 dw0 P528 ws270352"},
    {65536, 128, BF, 0, 0, "fwd_lanes/row_packed t128 r16 c1 k1 g4096 s1 ch128 sm0 st0/0 w0 dw0 P0 ws0"},
    {65536, 64, F32, 0, 0, "fwd_lanes/row_packed t128 r16 c1 k1 g4096 s1 ch64 sm0 st0/0 w0 dw0 P0 ws0"},
    /* Row-packed up to 32 slots in both directions; just above, one small CTA per row
     * (select.c: H200 runs of 2026-11-22 01:08 and 02:53 UTC). */
    {262144, 256, BF, 1, 0, "bwd_pipe/row_packed t256 r8 c1 k1 g528 s1 ch256 sm16384 st0/0 w0 dw0 P528 ws540688"}, /* 32 slots: the last row-packed width */
    {262144, 256, BF, 1, 1, "bwd_pipe/row_packed t256 r8 c1 k1 g396 s1 ch256 sm16384 st0/0 w0 dw0 P396 ws405520"},
    {262144, 256, BF, 0, 0, "fwd_lanes/row_packed t128 r8 c1 k1 g32768 s1 ch256 sm0 st0/0 w0 dw0 P0 ws0"},
    {131072, 512, BF, 0, 0, "fwd_lanes/row_packed t128 r8 c1 k1 g16384 s2 ch512 sm0 st0/0 w0 dw0 P0 ws0"}, /* 64 slots, many rows: the lanes forward, two a lane (FN_AUTO_FWD_MID_SLOTS) */
    {131072, 512, BF, 0, 1, "fwd_row/multi_wave_cached t64 r1 c1 k1 g131072 s1 ch512 sm0 st0/0 w0 dw0 P0 ws0"}, /* fused add: lean cached from 33 slots */
    {65536, 128, F32, 0, 0, "fwd_lanes/row_packed t128 r8 c1 k1 g8192 s1 ch128 sm0 st0/0 w0 dw0 P0 ws0"},
    {65536, 256, F32, 0, 0, "fwd_lanes/row_packed t128 r8 c1 k1 g8192 s2 ch256 sm0 st0/0 w0 dw0 P0 ws0"},
    {65536, 256, F32, 1, 0, "bwd_warp/row_packed t256 r8 c1 k1 g264 s8 ch256 sm16384 st0/0 w0 dw0 P264 ws270352"},
    {262144, 512, BF, 1, 0, "bwd_row/persistent t64 r1 c1 k1 g2640 s1 ch512 sm2048 st0/0 w1 dw1 P2640 ws5406736 nw"},
    {262144, 512, BF, 1, 1, "bwd_row/persistent t64 r1 c1 k1 g2640 s1 ch512 sm2048 st0/0 w1 dw1 P2640 ws5406736 nw"},
    {4096, 1024, BF, 0, 0, "fwd_row/multi_wave_cached t64 r1 c1 k1 g4096 s2 ch1024 sm0 st0/0 w0 dw0 P0 ws0"}, /* plain fwd from 65 slots: lean cached */
    {65536, 1024, BF, 0, 1, "fwd_row/multi_wave_cached t64 r1 c1 k1 g65536 s2 ch1024 sm0 st0/0 w0 dw0 P0 ws0"},
    /* 12 CTAs an SM: the lean kernel's own registers (fn_regs_estimate_bwd_row16) */
    {4096, 1000, FUSEDNORM_F16, 1, 0, "bwd_row/persistent t64 r1 c1 k1 g1584 s2 ch1000 sm4000 st0/0 w1 dw1 P1584 ws6336016"},
    {4096, 1024, F32, 1, 0, "bwd_row/persistent t64 r1 c1 k1 g1056 s4 ch1024 sm4096 st0/0 w1 dw1 P1056 ws4325392"}, /* 256 slots: one CTA per row */
    {65536, 1024, F32, 0, 0, "fwd_row/multi_wave_cached t64 r1 c1 k1 g65536 s4 ch1024 sm0 st0/0 w0 dw0 P0 ws0"},
    /* Hidden sizes: forward one CTA per row, 4 slots per thread (the lean kernel), backward keeps
     * the row in registers (one wave). */
    {16384, 4096, BF, 0, 0, "fwd_row/multi_wave_cached t128 r1 c1 k1 g16384 s4 ch4096 sm0 st0/0 w0 dw0 P0 ws0"},
    {16384, 4096, BF, 1, 0, "bwd_row/persistent t128 r1 c1 k1 g528 s4 ch4096 sm16384 st0/0 w1 dw1 P528 ws8650768"},
    {8192, 2880, BF, 0, 0, "fwd_row/multi_wave_cached t96 r1 c1 k1 g8192 s4 ch2880 sm0 st0/0 w0 dw0 P0 ws0"},
    {4096, 7168, FUSEDNORM_F16, 1, 0, "bwd_row/persistent t224 r1 c1 k1 g264 s4 ch7168 sm28672 st0/0 w1 dw1 P264 ws7569424"},
    {8192, 8192, BF, 0, 0, "fwd_row/multi_wave_cached t256 r1 c1 k1 g8192 s4 ch8192 sm0 st0/0 w0 dw0 P0 ws0"},
    {16384, 8192, BF, 1, 0, "bwd_row/persistent t256 r1 c1 k1 g264 s4 ch8192 sm32768 st0/0 w1 dw1 P264 ws8650768"},
    {8, 8192, BF, 0, 0, "fwd_row/multi_wave_cached t256 r1 c1 k1 g8 s4 ch8192 sm0 st0/0 w0 dw0 P0 ws0"},
    {8192, 16384, BF, 1, 0, "bwd_row/persistent t512 r1 c1 k1 g132 s4 ch16384 sm65536 st0/0 w1 dw1 P132 ws8650768"},
    /* Wider: forward one CTA per row (lean cached to 2048 slots, 4096 plain with a 16-bit
     * weight), beyond that the generic forward (cached + streamed), or the wide one for plain rows
     * it holds on chip past one wave of rows (select.c FN_AUTO_FWD_WIDE_MANY_*); backward clusters. */
    {8192, 16384, BF, 0, 0, "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch16384 sm0 st0/0 w0 dw0 P0 ws0"},
    {8192, 16384, BF, 0, 1, "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch16384 sm0 st0/0 w0 dw0 P0 ws0"},
    {4096, 32768, BF, 0, 1, "fwd_wide/wide t512 r1 c2 k2 g264 s2 ch16384 sm65536 st0/0 w1 dw0 P0 ws0"}, /* fused, aligned: the wide plan staging its weight, ahead of 8 slots a thread */
    {4096, 20480, BF, 0, 1, "fwd_row/multi_wave_cached t320 r1 c1 k1 g4096 s8 ch20480 sm0 st0/0 w0 dw0 P0 ws0"}, /* fused, a chunk below the stage: 8 slots a thread from 8 rows an SM */
    {4096, 32768, BF, 0, 0, "fwd_row/multi_wave_cached t512 r1 c1 k1 g4096 s8 ch32768 sm0 st0/0 w0 dw0 P0 ws0"}, /* plain, 16-bit weight: lean to 4096 slots, 8 a thread from 8 rows an SM */
    {4096, 16384, F32, 0, 0, "fwd_row/multi_wave_cached t512 r1 c1 k1 g4096 s8 ch16384 sm0 st0/0 w0 dw0 P0 ws0"},
    {2048, 65536, BF, 0, 0, "fwd_wide/wide t256 r1 c4 k4 g8192 s0 ch16384 sm32768 st0/0 w0 dw0 P0 ws0"}, /* every slot staged (fwd_wide_wr) */
    {16384, 7168, F32, 0, 0, "fwd_row/multi_wave_cached t448 r1 c1 k1 g16384 s4 ch7168 sm0 st0/0 w0 dw0 P0 ws0"},
    {16384, 7168, F32, 0, 1, "fwd_row/multi_wave_cached t448 r1 c1 k1 g16384 s4 ch7168 sm0 st0/0 w0 dw0 P0 ws0"},
    {8192, 8192, F32, 0, 0, "fwd_row/multi_wave_cached t512 r1 c1 k1 g8192 s4 ch8192 sm0 st0/0 w0 dw0 P0 ws0"},
    /* f32 fused-add backward: persistent (the lean kernel) at every width up to 2048 slots */
    {32768, 4096, F32, 1, 1, "bwd_row/persistent t256 r1 c1 k1 g264 s4 ch4096 sm16384 st0/0 w1 dw1 P264 ws4325392"},
    {16384, 7168, F32, 1, 1, "bwd_row/persistent t448 r1 c1 k1 g132 s4 ch7168 sm28672 st0/0 w1 dw1 P132 ws3784720"},
    {4096, 4096, F32, 1, 1, "bwd_row/persistent t256 r1 c1 k1 g264 s4 ch4096 sm16384 st0/0 w1 dw1 P264 ws4325392"},
    {32768, 4096, F32, 1, 0, "bwd_row/persistent t256 r1 c1 k1 g264 s4 ch4096 sm16384 st0/0 w1 dw1 P264 ws4325392"},
    {32768, 4096, BF, 1, 1, "bwd_row/persistent t128 r1 c1 k1 g528 s4 ch4096 sm16384 st0/0 w1 dw1 P528 ws8650768"},
    {1024, 65536, BF, 0, 0, "fwd_wide/wide t256 r1 c4 k4 g4096 s0 ch16384 sm32768 st0/0 w0 dw0 P0 ws0"},
    /* many rows of 8192 slots or more: the wide forward, its chunk on chip (FN_AUTO_FWD_WIDE_MANY_*) */
    {256, 1048576, BF, 0, 0, "fwd_wide/wide t512 r1 c16 k16 g4096 s4 ch65536 sm98304 st0/0 w0 dw0 P0 ws0"},
    /* few wide rows: the wide forward. One wave where the rows' clusters are resident (two
     * CTAs an SM: 14 of 16 CTAs, 30 of 8, 62 of 4, H200_CLUSTERS), widened to spread the rows;
     * 17 x 262144 narrowed from 16 to 8 CTAs a row, half of each chunk streamed; 64 x 131072 of
     * plain aligned rows: every slot staged (512 CTAs of 256 threads, one wave of 496 and a few) */
    {1, 262144, BF, 0, 0, "fwd_wide/wide t512 r1 c16 k16 g16 s4 ch16384 sm0 st0/0 w0 dw0 P0 ws0"},
    {17, 262144, BF, 0, 0, "fwd_wide/wide t512 r1 c8 k8 g136 s4 ch32768 sm32768 st0/0 w0 dw0 P0 ws0"},
    {17, 262144, BF, 0, 1, "fwd_wide/wide t512 r1 c8 k8 g136 s2 ch32768 sm98304 st0/0 w0 dw0 P0 ws0"},
    {64, 131072, BF, 0, 0, "fwd_wide/wide t256 r1 c8 k8 g512 s0 ch16384 sm32768 st0/0 w0 dw0 P0 ws0"},
    {17, 32768, BF, 0, 0, "fwd_wide/wide t128 r1 c8 k8 g136 s4 ch4096 sm0 st0/0 w0 dw0 P0 ws0"},
    {131, 32768, BF, 0, 0, "fwd_row/multi_wave_cached t1024 r1 c1 k1 g131 s4 ch32768 sm0 st0/0 w0 dw0 P0 ws0"}, /* >= SMs / 2 */
    {200, 32768, BF, 0, 0, "fwd_row/multi_wave_cached t1024 r1 c1 k1 g200 s4 ch32768 sm0 st0/0 w0 dw0 P0 ws0"}, /* >= SMs rows */
    /* ... but the grid sum (every SM) where 16-CTA clusters would fill at most half of them and a
     * row moves 80000 slots in or more (FN_AUTO_FWD_WIDE_GRID_CL_*): 4 rows of 98304 slots, not 5;
     * the fused add's 65536 x 2; not a plain 65536 */
    {1, 1048576, F32, 0, 1, "fwd_wide/wide t512 r1 c132 k1 g132 s2 ch7944 sm32768 st0/0 w0 dw0 P0 ws0"},
    {4, 786432, BF, 0, 0, "fwd_wide/wide t512 r1 c33 k1 g132 s4 ch23832 sm16384 st0/0 w0 dw0 P0 ws0"},
    {5, 786432, BF, 0, 0, "fwd_wide/wide t512 r1 c16 k16 g80 s4 ch49152 sm65536 st0/0 w0 dw0 P0 ws0"},
    {1, 262144, F32, 0, 1, "fwd_wide/wide t256 r1 c128 k1 g128 s2 ch2048 sm0 st0/0 w0 dw0 P0 ws0"},
    {1, 524288, BF, 0, 0, "fwd_wide/wide t512 r1 c16 k16 g16 s4 ch32768 sm32768 st0/0 w0 dw0 P0 ws0"},
    /* Backward, wider than one CTA's registers: up to FN_SPLIT_AUTO_MIN_SLOTS slots (16-bit
     * n <= 32768, f32 n <= 16384) the cluster kernel (<= 8 CTAs per row, unchanged), beyond it
     * the split-row kernel (rmsnorm_bwd_wide.cu: gc CTAs per row of <= 512 slots each, shown in
     * the cluster column, 512 threads (FN_SPLIT_THREADS), one CTA per SM). Evidence:
     * launch_config.h, FN_SPLIT_AUTO_MIN_SLOTS. Aligned 16-bit rows of whole vectors, from two rows
     * an SM, take the lean kernel at 8 slots a thread first (at 4096 slots with the weight's raw 16
     * bits staged: w2). */
    {2048, 32768, BF, 1, 0, "bwd_row/persistent t512 r1 c1 k1 g132 s8 ch32768 sm196608 st0/0 w2 dw1 P132 ws17301520"},
    {1024, 65536, BF, 1, 0, "bwd_split/wide t512 r1 c8 k1 g128 s2 ch8192 sm229376 st7/3 w0 dw0 P16 ws4227088"}, /* 8192 slots: split */
    {1024, 65536, BF, 1, 1, "bwd_split/wide t512 r1 c8 k1 g128 s2 ch8192 sm229376 st7/3 w0 dw0 P16 ws4227088 dd"},
    {4096, 32768, F32, 1, 0, "bwd_split/wide t512 r1 c8 k1 g128 s2 ch4096 sm229376 st7/3 w0 dw0 P16 ws2228240"},
    /* plain aligned rows of 2049-4096 slots: the lean kernel at 8 slots a thread, one CTA an SM
     * (FN_AUTO_BWD_ROW8_*: f32 from a row an SM, 16-bit up to 3072 slots from one, past it from
     * two); the f32 fused add's many rows take the split-row kernel (FN_AUTO_BWD_F32_SPLIT_*) */
    {4096, 16384, F32, 1, 0, "bwd_row/persistent t512 r1 c1 k1 g132 s8 ch16384 sm65536 st0/0 w1 dw1 P132 ws8650768"},
    {132, 8200, F32, 1, 0, "bwd_row/persistent t288 r1 c1 k1 g132 s8 ch8200 sm32800 st0/0 w1 dw1 P132 ws4329616"},
    {1000, 24576, BF, 1, 0, "bwd_row/persistent t384 r1 c1 k1 g132 s8 ch24576 sm196608 st0/0 w1 dw1 P132 ws12976144"},
    {512, 131072, BF, 1, 0, "bwd_split/wide t512 r1 c16 k1 g128 s2 ch8192 sm229376 st7/3 w0 dw0 P8 ws4227088"},
    {512, 262144, BF, 1, 0, "bwd_split/wide t512 r1 c32 k1 g128 s2 ch8192 sm229376 st7/3 w0 dw0 P4 ws4259856"}, /* 32768 slots: split */
    {512, 262144, BF, 1, 1, "bwd_split/wide t512 r1 c32 k1 g128 s2 ch8192 sm229376 st7/3 w0 dw0 P4 ws4259856 dd"},
    {256, 1048576, BF, 1, 0, "bwd_split/wide t512 r1 c132 k1 g132 s2 ch7944 sm222432 st7/3 w0 dw0 P1 ws4329488 dk"}, /* 993 slots per CTA: 512 x 2 */
    {256, 1048576, BF, 1, 1, "bwd_split/wide t512 r1 c132 k1 g132 s2 ch7944 sm222432 st7/3 w0 dw0 P1 ws4329488 dk dd"},
    {256, 1048576, F32, 1, 0, "bwd_split/wide t512 r1 c132 k1 g132 s4 ch7944 sm190656 st3/2 w0 dw0 P1 ws4329488 dk"}, /* 1986 slots per CTA: 512 x 4; a ring of 3, lookahead 2 (FN_SPLIT_LOOKAHEAD_OF_3) */
    /* the f32 fused add's ring of dy, s and ds would hold 2 rows: ds left out, 3 (FN_SPLIT_DS_DIRECT_BELOW) */
    {256, 1048576, F32, 1, 1, "bwd_split/wide t512 r1 c132 k1 g132 s4 ch7944 sm190656 st3/2 w0 dw0 P1 ws4329488 dk dd"},
    {512, 900000, F32, 1, 1, "bwd_split/wide t448 r1 c132 k1 g132 s4 ch6820 sm218240 st4/2 w0 dw0 P1 ws3870352 dk dd"},
    /* ... and from FN_SPLIT_DS_DIRECT_MIN_THREADS threads a CTA or at FN_SPLIT_DS_DIRECT_MAX_SPT slots
     * a thread; with fewer threads at more slots, ds stays in a ring of 3 or more */
    {1024, 600000, F32, 1, 1, "bwd_split/wide t288 r1 c132 k1 g132 s4 ch4548 sm218304 st4/2 w0 dw0 P1 ws2940688 dk"},
    {9384, 11020, F32, 1, 1, "bwd_split/wide t480 r1 c3 k1 g132 s2 ch3676 sm205856 st7/3 w0 dw0 P44 ws2052144 dd"}, /* 2755 slots, many rows: split-row (FN_AUTO_BWD_F32_SPLIT_*) */
    {512, 131072, F32, 1, 0, "bwd_split/wide t512 r1 c32 k1 g128 s2 ch4096 sm229376 st7/3 w0 dw0 P4 ws2162704"}, /* f32: 32768 slots, split */
};

static void test_h200(int print) {
  size_t i;
  for (i = 0; i < sizeof kH200 / sizeof kH200[0]; ++i) {
    fusednorm_problem p = prob(kH200[i].rows, kH200[i].n, kH200[i].x, FUSEDNORM_MODE_AUTO);
    fusednorm_launch l;
    char what[128], s[256];
    fusednorm_status st;
    p.has_residual = kH200[i].fused;
    st = fusednorm_select_launch(&p, kH200[i].bwd, &kDevices[5].d, &kAligned, &l);
    snprintf(what, sizeof what, "H200 auto %s%s %lldx%lld %s", kH200[i].fused ? "fused " : "", kH200[i].bwd ? "bwd" : "fwd",
             (long long)p.rows, (long long)p.n, fusednorm_dtype_name(p.x_dtype));
    CHECK(st == FUSEDNORM_OK, "%s: status %d", what, st);
    if (st != FUSEDNORM_OK) continue;
    plan_str(&l, s, sizeof s);
    if (print) printf("%s\n", s);
    CHECK(!strcmp(s, kH200[i].plan), "%s:\n   plan   %s\n   pinned %s", what, s, kH200[i].plan);
    check_plan(&p, kH200[i].bwd, &kAligned, &l, &kDevices[5].d, what);
  }
}

static void test_pinned(int print) {
  int d, i, k = 0;
  for (d = 0; d < NDEV; ++d)
    for (i = 0; i < NSHAPES; ++i) {
      fusednorm_problem p = prob(kShapes[i].rows, kShapes[i].n, kShapes[i].x, FUSEDNORM_MODE_AUTO);
      fusednorm_launch l;
      char what[160], s[256];
      fusednorm_status st;
      p.has_residual = kShapes[i].fused;
      p.has_weight = kShapes[i].weight;
      st = fusednorm_select_launch(&p, kShapes[i].bwd, &kDevices[d].d, kLayouts[kShapes[i].aligned], &l);
      snprintf(what, sizeof what, "%s auto %s%s%s%s %lldx%lld %s", kDevices[d].name, kShapes[i].fused ? "fused " : "",
               kShapes[i].bwd ? "bwd" : "fwd", kShapes[i].aligned == 1 ? "" : kShapes[i].aligned ? " congruent" : " misaligned",
               kShapes[i].weight ? "" : " noweight",
               (long long)p.rows, (long long)p.n, fusednorm_dtype_name(p.x_dtype));
      CHECK(st == FUSEDNORM_OK, "%s: status %d", what, st);
      if (st != FUSEDNORM_OK) continue;
      plan_str(&l, s, sizeof s);
      if (print) printf("    \"%s\", /* %s */\n", s, what);
      check_plan(&p, kShapes[i].bwd, kLayouts[kShapes[i].aligned], &l, &kDevices[d].d, what);
      if (k < (int)(sizeof kPins / sizeof kPins[0]))
        CHECK(!strcmp(s, kPins[k]), "%s:\n   plan   %s\n   pinned %s", what, s, kPins[k]);
      ++k;
    }
  CHECK(k == (int)(sizeof kPins / sizeof kPins[0]), "%d plans, %d pins", k, (int)(sizeof kPins / sizeof kPins[0]));
}

/* Narrow rows and few rows on four devices (A100, RTX4090: no clusters; H200, B200): q/k-norm head
 * dims with 10^4-10^6 rows, ~10^5 rows under 128 columns, an odd width, a fused add, few rows of
 * them and a few hidden-size rows (fewer rows than SMs). */
static const struct {
  int64_t rows, n;
  fusednorm_dtype x;
  int bwd, fused, aligned, weight;
} kNarrowShapes[] = {
    {65536, 128, BF, 0, 0, 1, 1},  {65536, 128, BF, 1, 0, 1, 1},  {4096, 128, BF, 1, 0, 1, 1},
    {1048576, 64, BF, 1, 0, 1, 1}, {100000, 96, BF, 0, 0, 1, 1},  {100000, 96, BF, 1, 0, 1, 1},
    {262144, 256, BF, 1, 1, 1, 1}, {65536, 128, F32, 1, 0, 0, 1}, {50000, 100, FUSEDNORM_F16, 0, 1, 0, 1},
    {256, 128, BF, 1, 0, 1, 1},    {8, 128, BF, 1, 0, 1, 1},      {8, 12288, BF, 1, 0, 1, 1},
    {4, 4096, F32, 1, 1, 1, 1},    {32, 12288, BF, 1, 0, 1, 1},   {8, 65536, BF, 1, 0, 1, 0},
};
static const int kNarrowDevices[] = {0, 3, 5, 6}; /* A100-80GB, RTX4090, H200, B200 */
/* test_select --print prints these after kPins and kH200. */
static const char *const kNarrowPins[] = {
    "fwd_lanes/row_packed t128 r16 c1 k1 g4096 s1 ch128 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fwd 65536x128 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g432 s1 ch128 sm8192 st0/0 w0 dw0 P432 ws221200", /* A100-80GB auto bwd 65536x128 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g256 s1 ch128 sm8192 st0/0 w0 dw0 P256 ws131088", /* A100-80GB auto bwd 4096x128 bf16 */
    "bwd_pipe/row_packed t256 r32 c1 k1 g432 s1 ch64 sm4096 st0/0 w0 dw0 P432 ws110608", /* A100-80GB auto bwd 1048576x64 bf16 */
    "fwd_lanes/row_packed t128 r16 c1 k1 g6250 s1 ch96 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto fwd 100000x96 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g432 s1 ch96 sm6144 st0/0 w0 dw0 P432 ws165904", /* A100-80GB auto bwd 100000x96 bf16 */
    "bwd_pipe/row_packed t256 r8 c1 k1 g324 s1 ch256 sm16384 st0/0 w0 dw0 P324 ws331792", /* A100-80GB auto fused bwd 262144x256 bf16 */
    "bwd_warp/row_packed t256 r8 c1 k1 g432 s4 ch128 sm8192 st0/0 w0 dw0 P432 ws221200", /* A100-80GB auto bwd misaligned 65536x128 f32 */
    "fwd_pipe/row_packed t256 r16 c1 k1 g432 s1 ch100 sm416 st0/0 w1 dw0 P0 ws0", /* A100-80GB auto fused fwd misaligned 50000x100 f16 */
    "bwd_row/persistent t64 r1 c1 k1 g256 s1 ch128 sm512 st0/0 w1 dw1 P256 ws131088", /* A100-80GB auto bwd 256x128 bf16 */
    "bwd_tiny/row_packed t256 r8 c1 k1 g1 s4 ch128 sm4096 st0/0 w0 dw0 P0 ws16", /* A100-80GB auto bwd 8x128 bf16 */
    "bwd_row/persistent t384 r1 c1 k1 g8 s4 ch12288 sm49152 st0/0 w1 dw1 P8 ws393232 dk", /* A100-80GB auto bwd 8x12288 bf16 */
    "bwd_row/persistent t1024 r1 c1 k1 g4 s1 ch4096 sm16384 st0/0 w1 dw1 P4 ws65552 dk", /* A100-80GB auto fused bwd 4x4096 f32 */
    "bwd_row/persistent t384 r1 c1 k1 g32 s4 ch12288 sm49152 st0/0 w1 dw1 P32 ws1572880 dk", /* A100-80GB auto bwd 32x12288 bf16 */
    "bwd_generic/multi_wave_reload t1024 r1 c1 k1 g8 s1 ch65536 sm0 st0/0 w0 dw0 P0 ws0", /* A100-80GB auto bwd noweight 8x65536 bf16 */
    "fwd_lanes/row_packed t128 r16 c1 k1 g4096 s1 ch128 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fwd 65536x128 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g512 s1 ch128 sm8192 st0/0 w0 dw0 P512 ws262160", /* RTX4090 auto bwd 65536x128 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g256 s1 ch128 sm8192 st0/0 w0 dw0 P256 ws131088", /* RTX4090 auto bwd 4096x128 bf16 */
    "bwd_pipe/row_packed t256 r32 c1 k1 g512 s1 ch64 sm4096 st0/0 w0 dw0 P512 ws131088", /* RTX4090 auto bwd 1048576x64 bf16 */
    "fwd_lanes/row_packed t128 r16 c1 k1 g6250 s1 ch96 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto fwd 100000x96 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g512 s1 ch96 sm6144 st0/0 w0 dw0 P512 ws196624", /* RTX4090 auto bwd 100000x96 bf16 */
    "bwd_pipe/row_packed t256 r8 c1 k1 g384 s1 ch256 sm16384 st0/0 w0 dw0 P384 ws393232", /* RTX4090 auto fused bwd 262144x256 bf16 */
    "bwd_warp/row_packed t256 r8 c1 k1 g512 s4 ch128 sm8192 st0/0 w0 dw0 P512 ws262160", /* RTX4090 auto bwd misaligned 65536x128 f32 */
    "fwd_pipe/row_packed t256 r16 c1 k1 g512 s1 ch100 sm416 st0/0 w1 dw0 P0 ws0", /* RTX4090 auto fused fwd misaligned 50000x100 f16 */
    "bwd_row/persistent t64 r1 c1 k1 g256 s1 ch128 sm512 st0/0 w1 dw1 P256 ws131088", /* RTX4090 auto bwd 256x128 bf16 */
    "bwd_tiny/row_packed t256 r8 c1 k1 g1 s4 ch128 sm4096 st0/0 w0 dw0 P0 ws16", /* RTX4090 auto bwd 8x128 bf16 */
    "bwd_row/persistent t384 r1 c1 k1 g8 s4 ch12288 sm49152 st0/0 w1 dw1 P8 ws393232 dk", /* RTX4090 auto bwd 8x12288 bf16 */
    "bwd_row/persistent t1024 r1 c1 k1 g4 s1 ch4096 sm16384 st0/0 w1 dw1 P4 ws65552 dk", /* RTX4090 auto fused bwd 4x4096 f32 */
    "bwd_row/persistent t384 r1 c1 k1 g32 s4 ch12288 sm49152 st0/0 w1 dw1 P32 ws1572880 dk", /* RTX4090 auto bwd 32x12288 bf16 */
    "bwd_generic/multi_wave_reload t1024 r1 c1 k1 g8 s1 ch65536 sm0 st0/0 w0 dw0 P0 ws0", /* RTX4090 auto bwd noweight 8x65536 bf16 */
    "fwd_lanes/row_packed t128 r16 c1 k1 g4096 s1 ch128 sm0 st0/0 w0 dw0 P0 ws0", /* H200 auto fwd 65536x128 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g528 s1 ch128 sm8192 st0/0 w0 dw0 P528 ws270352", /* H200 auto bwd 65536x128 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g256 s1 ch128 sm8192 st0/0 w0 dw0 P256 ws131088", /* H200 auto bwd 4096x128 bf16 */
    "bwd_pipe/row_packed t256 r32 c1 k1 g528 s1 ch64 sm4096 st0/0 w0 dw0 P528 ws135184", /* H200 auto bwd 1048576x64 bf16 */
    "fwd_lanes/row_packed t128 r16 c1 k1 g6250 s1 ch96 sm0 st0/0 w0 dw0 P0 ws0", /* H200 auto fwd 100000x96 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g528 s1 ch96 sm6144 st0/0 w0 dw0 P528 ws202768", /* H200 auto bwd 100000x96 bf16 */
    "bwd_pipe/row_packed t256 r8 c1 k1 g396 s1 ch256 sm16384 st0/0 w0 dw0 P396 ws405520", /* H200 auto fused bwd 262144x256 bf16 */
    "bwd_warp/row_packed t256 r8 c1 k1 g528 s4 ch128 sm8192 st0/0 w0 dw0 P528 ws270352", /* H200 auto bwd misaligned 65536x128 f32 */
    "fwd_pipe/row_packed t256 r16 c1 k1 g528 s1 ch100 sm416 st0/0 w1 dw0 P0 ws0", /* H200 auto fused fwd misaligned 50000x100 f16 */
    "bwd_row/persistent t64 r1 c1 k1 g256 s1 ch128 sm512 st0/0 w1 dw1 P256 ws131088", /* H200 auto bwd 256x128 bf16 */
    "bwd_tiny/row_packed t256 r8 c1 k1 g1 s4 ch128 sm4096 st0/0 w0 dw0 P0 ws16", /* H200 auto bwd 8x128 bf16 */
    "bwd_row/persistent t384 r1 c1 k1 g8 s4 ch12288 sm49152 st0/0 w1 dw1 P8 ws393232", /* H200 auto bwd 8x12288 bf16 */
    "bwd_row/persistent t1024 r1 c1 k1 g4 s1 ch4096 sm16384 st0/0 w1 dw1 P4 ws65552", /* H200 auto fused bwd 4x4096 f32 */
    "bwd_row/persistent t384 r1 c1 k1 g32 s4 ch12288 sm49152 st0/0 w1 dw1 P32 ws1572880", /* H200 auto bwd 32x12288 bf16 */
    "bwd_generic/wide t512 r1 c4 k4 g32 s4 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* H200 auto bwd noweight 8x65536 bf16 */
    "fwd_lanes/row_packed t128 r16 c1 k1 g4096 s1 ch128 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto fwd 65536x128 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g592 s1 ch128 sm8192 st0/0 w0 dw0 P592 ws303120", /* B200 auto bwd 65536x128 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g256 s1 ch128 sm8192 st0/0 w0 dw0 P256 ws131088", /* B200 auto bwd 4096x128 bf16 */
    "bwd_pipe/row_packed t256 r32 c1 k1 g592 s1 ch64 sm4096 st0/0 w0 dw0 P592 ws151568", /* B200 auto bwd 1048576x64 bf16 */
    "fwd_lanes/row_packed t128 r16 c1 k1 g6250 s1 ch96 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto fwd 100000x96 bf16 */
    "bwd_pipe/row_packed t256 r16 c1 k1 g592 s1 ch96 sm6144 st0/0 w0 dw0 P592 ws227344", /* B200 auto bwd 100000x96 bf16 */
    "bwd_pipe/row_packed t256 r8 c1 k1 g444 s1 ch256 sm16384 st0/0 w0 dw0 P444 ws454672", /* B200 auto fused bwd 262144x256 bf16 */
    "bwd_warp/row_packed t256 r8 c1 k1 g592 s4 ch128 sm8192 st0/0 w0 dw0 P592 ws303120", /* B200 auto bwd misaligned 65536x128 f32 */
    "fwd_pipe/row_packed t256 r16 c1 k1 g592 s1 ch100 sm416 st0/0 w1 dw0 P0 ws0", /* B200 auto fused fwd misaligned 50000x100 f16 */
    "bwd_row/persistent t64 r1 c1 k1 g256 s1 ch128 sm512 st0/0 w1 dw1 P256 ws131088", /* B200 auto bwd 256x128 bf16 */
    "bwd_tiny/row_packed t256 r8 c1 k1 g1 s4 ch128 sm4096 st0/0 w0 dw0 P0 ws16", /* B200 auto bwd 8x128 bf16 */
    "bwd_row/persistent t384 r1 c1 k1 g8 s4 ch12288 sm49152 st0/0 w1 dw1 P8 ws393232", /* B200 auto bwd 8x12288 bf16 */
    "bwd_row/persistent t1024 r1 c1 k1 g4 s1 ch4096 sm16384 st0/0 w1 dw1 P4 ws65552", /* B200 auto fused bwd 4x4096 f32 */
    "bwd_row/persistent t384 r1 c1 k1 g32 s4 ch12288 sm49152 st0/0 w1 dw1 P32 ws1572880", /* B200 auto bwd 32x12288 bf16 */
    "bwd_generic/wide t512 r1 c4 k4 g32 s4 ch16384 sm0 st0/0 w0 dw0 P0 ws0", /* B200 auto bwd noweight 8x65536 bf16 */
};

static void test_narrow_pinned(int print) {
  int di, i, k = 0;
  const int nshapes = (int)(sizeof kNarrowShapes / sizeof kNarrowShapes[0]);
  for (di = 0; di < (int)(sizeof kNarrowDevices / sizeof kNarrowDevices[0]); ++di)
    for (i = 0; i < nshapes; ++i) {
      const int d = kNarrowDevices[di];
      fusednorm_problem p = prob(kNarrowShapes[i].rows, kNarrowShapes[i].n, kNarrowShapes[i].x, FUSEDNORM_MODE_AUTO);
      const fusednorm_layout *lay = kNarrowShapes[i].aligned ? &kAligned : &kMisaligned;
      fusednorm_launch l;
      char what[160], s[256];
      fusednorm_status st;
      p.has_residual = kNarrowShapes[i].fused;
      p.has_weight = kNarrowShapes[i].weight;
      st = fusednorm_select_launch(&p, kNarrowShapes[i].bwd, &kDevices[d].d, lay, &l);
      snprintf(what, sizeof what, "%s auto %s%s%s%s %lldx%lld %s", kDevices[d].name, kNarrowShapes[i].fused ? "fused " : "",
               kNarrowShapes[i].bwd ? "bwd" : "fwd", kNarrowShapes[i].aligned ? "" : " misaligned",
               kNarrowShapes[i].weight ? "" : " noweight", (long long)p.rows, (long long)p.n, fusednorm_dtype_name(p.x_dtype));
      CHECK(st == FUSEDNORM_OK, "%s: status %d", what, st);
      if (st != FUSEDNORM_OK) continue;
      plan_str(&l, s, sizeof s);
      if (print) printf("    \"%s\", /* %s */\n", s, what);
      check_plan(&p, kNarrowShapes[i].bwd, lay, &l, &kDevices[d].d, what);
      if (k < (int)(sizeof kNarrowPins / sizeof kNarrowPins[0]))
        CHECK(!strcmp(s, kNarrowPins[k]), "%s:\n   plan   %s\n   pinned %s", what, s, kNarrowPins[k]);
      ++k;
    }
  CHECK(k == (int)(sizeof kNarrowPins / sizeof kNarrowPins[0]), "%d plans, %d narrow pins", k,
        (int)(sizeof kNarrowPins / sizeof kNarrowPins[0]));
}

/* The tiny kernels' domain as kernels/cuda/README.md states it: the forward rows of at most 32
 * columns, at most 2048 elements; the backward rows of at most 256 columns, as many as one CTA's
 * teams hold: a power-of-two team of >= n lanes up to 32 per row, 1024 threads up to 128
 * columns (512 beyond), 4 / 2 / 1 rows per team for rows of <= 32 / <= 64 / more columns. */
static int tiny_domain(const fusednorm_problem *p, int bwd) {
  const int64_t n = p->n, lanes = n >= 32 ? 32 : n <= 1 ? 1 : n <= 2 ? 2 : n <= 4 ? 4 : n <= 8 ? 8 : n <= 16 ? 16 : 32;
  if (!bwd) return n <= 32 && p->rows * n <= 2048;
  return n <= 256 && p->rows <= (n <= 128 ? 1024 : 512) / lanes * (n <= 32 ? 4 : n <= 64 ? 2 : 1) * 2;
}

/* AUTO's choice between two families where both were timed forced in one run (H100 SXM,
 * 2026-11-26, tools/bench, cold inputs; the us are in select.c): each case must get the family that
 * measured faster, on contiguous tensors as the bench had them (rows of a multiple of 16 bytes
 * aligned, the others all congruent).
 *   Backward, FN_AUTO_PACKED_BWD_ROWS_PER_SM: row-packed (`mode` ROW_PACKED) against persistent,
 *   19:05 UTC (bwd and fused bwd; 4096 x 128 bf16, a tie within 2%, left out; 512-2000 rows,
 *   where the one-barrier dw combine has since made the two tie, re-measured on the H200:
 *   test_measured_picks_h200); the rows marked
 *   "17:01" are the earlier full run and sweep, where row-packed won before its dw combine got
 *   faster. Without a weight the row-packed backward has no dw to combine and stays row-packed.
 *   Forward, FN_AUTO_FWD_WIDE_MIN_SLOTS: the wide forward (`mode` WIDE) against the generic one
 *   (17:01-17:18 UTC), then with the wide kernel's stage: bf16 1024 x 65536 and 512 x 262144
 *   plain, re-measured (kernels/RESULTS.md "The wide forward for many rows": 1024 x 65536 1.11x,
 *   528 x 262144 1.19x the wide kernel's way), moved to it by FN_AUTO_FWD_WIDE_MANY_*; the fused
 *   fp16 265 x 48540 and 3167 x 62359, re-measured with the cluster sum pushed (the H200 sweep of
 *   2026-11-28: wide 1.11x and 1.18x), and bf16 1024 x 65536 fused (1.00x on the H100 grid of
 *   2026-11-28 before the push, which gave many rows ~2%), moved by
 *   FN_AUTO_FWD_WIDE_MANY_FUSED_MIN_COLS; bf16 4096 x 32768 fused, which the H100 grid had at
 *   0.71-1.01x wide before the push, 1.03x wide on an H200 with it and the lean forward at 8 slots
 *   a thread 1.07x the wide one (2026-11-29 23:11 and 23:44 UTC, bench_modes; select.c
 *   FN_AUTO_FWD_ROW8_*), then the wide one's staged-weight plan 1.04x the lean forward, and the
 *   lean forward 1.16x the wide one at 20480 columns, where that plan does not stage the weight
 *   (H200 2026-12-01 03:49 UTC, bench_modes). bf16 201 x 34306 (head-split rows of 4289 slots,
 *   the H100's unstaged wide kernel slower then): wide 20.9 against the generic forward's 23.3 us
 *   on an H200 (2026-12-01 07:35 UTC, bench_modes), and its neighbours 1.08-1.23x (select.c
 *   fwd_wide_hs_pays). */
#define PK FUSEDNORM_MODE_ROW_PACKED
#define WD FUSEDNORM_MODE_WIDE
static const struct {
  int64_t rows, n;
  fusednorm_dtype x;
  int bwd, fused, weight;
  fusednorm_mode mode; /* the family in question */
  int taken;           /* measured faster: 1 that family, 0 the other */
} kMeasured[] = {
#define PK2(r, n, x, t) {r, n, x, 1, 0, 1, PK, t}, {r, n, x, 1, 1, 1, PK, t}
    PK2(3, 8, BF, 0),      PK2(300, 8, BF, 0),     PK2(3000, 8, BF, 1),     PK2(3138, 10, BF, 1),
    PK2(11122, 5, BF, 1),  PK2(20000, 10, BF, 1),  PK2(14542, 36, BF, 1),   PK2(48091, 1, BF, 1),
    PK2(132371, 1, BF, 1), PK2(65536, 64, BF, 1),  PK2(1048576, 64, BF, 1),
    PK2(3, 8, F32, 0),     PK2(300, 8, F32, 0),    PK2(1792, 9, F32, 1),
    PK2(2000, 36, F32, 1), PK2(3000, 8, F32, 1),   PK2(3138, 10, F32, 1),   PK2(4096, 128, F32, 1),
    PK2(11122, 5, F32, 1), PK2(20000, 10, F32, 1), PK2(14542, 36, F32, 1),  PK2(48091, 1, F32, 1),
    PK2(132371, 1, F32, 1), PK2(65536, 64, F32, 1), PK2(1048576, 64, F32, 1),
#undef PK2
    /* 17:01 */
    {53766, 85, BF, 1, 1, 1, PK, 1},   {65536, 128, BF, 1, 0, 1, PK, 1},  {65536, 128, FUSEDNORM_F16, 1, 1, 1, PK, 1},
    {884287, 96, BF, 1, 0, 1, PK, 1},  {21511, 212, FUSEDNORM_F16, 1, 1, 1, PK, 1},
    {26793, 82, F32, 1, 1, 1, PK, 1},  {65536, 128, F32, 1, 0, 1, PK, 1}, {262144, 256, BF, 1, 1, 1, PK, 1},
    {3, 8, FUSEDNORM_F16, 1, 0, 0, PK, 1}, {1, 1, F32, 1, 1, 0, PK, 1},
    /* 285 x 48879 f32: the H100 had the unstaged wide kernel at 141 us against 79; the staged one
     * ran the H200's 288 x 49000 f32 1.16x faster than the generic (2026-11-28 13:07 UTC) */
    {285, 48879, FUSEDNORM_F32, 0, 0, 1, WD, 1},   {687, 25445, FUSEDNORM_F32, 0, 1, 1, WD, 0},
    {265, 48540, FUSEDNORM_F16, 0, 1, 1, WD, 1},   {3167, 62359, FUSEDNORM_F16, 0, 1, 1, WD, 1},
    {1024, 65536, FUSEDNORM_BF16, 0, 1, 1, WD, 1}, {4096, 32768, FUSEDNORM_BF16, 0, 1, 1, WD, 1},
    {4096, 20480, FUSEDNORM_BF16, 0, 1, 1, FUSEDNORM_MODE_MULTI_WAVE_CACHED, 1},
    {1024, 65536, FUSEDNORM_BF16, 0, 0, 1, WD, 1}, {512, 262144, FUSEDNORM_BF16, 0, 0, 1, WD, 1},
    {201, 34306, FUSEDNORM_BF16, 0, 0, 1, WD, 1},  {2, 736015, FUSEDNORM_F32, 0, 0, 1, WD, 1},
    {20, 1025354, FUSEDNORM_F16, 0, 0, 1, WD, 1},  {1, 335202, FUSEDNORM_BF16, 0, 1, 1, WD, 1},
    {1, 127109, FUSEDNORM_F16, 0, 0, 1, WD, 1},    {1, 209928, FUSEDNORM_F32, 0, 1, 1, WD, 1},
};
#undef PK
#undef WD

/* AUTO's plan on `dev` for a benchmarked case: contiguous tensors as the bench had them (rows of
 * a multiple of 16 bytes aligned, the others congruent). Fills the problem, layout and plan, the
 * case's name (`what`) and the plan's line (`s`); 0, after a failed CHECK, where there is no plan. */
typedef struct {
  fusednorm_problem p;
  const fusednorm_layout *lay;
  fusednorm_launch l;
  char what[128], s[256];
} bench_case;

static int bench_plan(const device *dev, int64_t rows, int64_t n, fusednorm_dtype x, int bwd, int fused, int weight,
                      bench_case *c) {
  fusednorm_status st;
  c->p = prob(rows, n, x, FUSEDNORM_MODE_AUTO);
  c->p.has_residual = fused;
  c->p.has_weight = weight;
  c->lay = n * (int64_t)fusednorm_dtype_size(x) % 16 == 0 ? &kAligned : &kCongruent;
  snprintf(c->what, sizeof c->what, "%s auto %s%s%s %lldx%lld %s", dev->name, fused ? "fused " : "", bwd ? "bwd" : "fwd",
           weight ? "" : " noweight", (long long)rows, (long long)n, fusednorm_dtype_name(x));
  st = fusednorm_select_launch(&c->p, bwd, &dev->d, c->lay, &c->l);
  CHECK(st == FUSEDNORM_OK, "%s: status %d", c->what, st);
  if (st != FUSEDNORM_OK) return 0;
  plan_str(&c->l, c->s, sizeof c->s);
  return 1;
}

static void test_measured_picks(void) {
  const device *h100 = &kDevices[4];
  size_t i;
  CHECK(!strcmp(h100->name, "H100-SXM"), "kDevices[4] is %s", h100->name);
  for (i = 0; i < sizeof kMeasured / sizeof kMeasured[0]; ++i) {
    const int bwd = kMeasured[i].bwd;
    bench_case c;
    if (!bench_plan(h100, kMeasured[i].rows, kMeasured[i].n, kMeasured[i].x, bwd, kMeasured[i].fused, kMeasured[i].weight,
                    &c))
      continue;
    if (c.l.kernel == FUSEDNORM_KERNEL_BWD_TINY) {
      /* a tiny backward: its domain is pinned by test_tiny_picks */
      CHECK(tiny_domain(&c.p, bwd), "%s: %s", c.what, c.s);
    } else {
      CHECK((c.l.mode == kMeasured[i].mode) == kMeasured[i].taken, "%s: %s; measured faster: %s%s", c.what, c.s,
            kMeasured[i].taken ? "" : "not ", fusednorm_mode_name(kMeasured[i].mode));
    }
    check_plan(&c.p, bwd, c.lay, &c.l, &h100->d, c.what);
  }
}

/* AUTO's choice where the families were timed forced in one run on the H200 (2026-11-27,
 * tools/bench/results/auto_rules_h200_2026-11-27 and the sweep of that day; the us are in
 * select.c): each case must get the family that measured faster (`taken` 1: kernel/mode, 0: any
 * other), contiguous tensors as the bench had them. Forward rows that are not whole vectors
 * (FN_AUTO_FWD_HS_*): the head-split lean kernel against the row-pipelined one, and the f32 plain
 * forward of 33-64 slots row-packed with many rows; backward rows of 2049-4096 slots, few rows:
 * the split-row kernel (FN_AUTO_BWD_SPLIT_FEW_*); f32 aligned rows of 2049-7168 slots, many rows:
 * the split-row kernel (FN_AUTO_BWD_F32_SPLIT_*, 2026-11-30). The forward cases that the warp
 * forward takes (WARP) were timed on the H200 (2026-11-28) paired against the head-split and
 * row-pipelined plans (1.00-1.31x: select.c fwd_warp; 1 x 53 f32 about even with the lean one-row
 * forward). */
static void test_measured_picks_h200(void) {
#define HS FUSEDNORM_KERNEL_FWD_ROW, FUSEDNORM_MODE_MULTI_WAVE_CACHED
#define RP FUSEDNORM_KERNEL_FWD_PIPE, FUSEDNORM_MODE_ROW_PACKED
#define SPLIT FUSEDNORM_KERNEL_BWD_SPLIT, FUSEDNORM_MODE_WIDE
#define RELOAD FUSEDNORM_KERNEL_BWD_GENERIC, FUSEDNORM_MODE_MULTI_WAVE_RELOAD
#define ROW8 FUSEDNORM_KERNEL_BWD_ROW, FUSEDNORM_MODE_PERSISTENT
#define WARP FUSEDNORM_KERNEL_FWD_WARP, FUSEDNORM_MODE_ROW_PACKED
#define PIPE FUSEDNORM_KERNEL_BWD_PIPE, FUSEDNORM_MODE_ROW_PACKED
  static const struct {
    int64_t rows, n;
    fusednorm_dtype x;
    int bwd, fused;
    fusednorm_kernel kernel;
    fusednorm_mode mode;
    int taken;
  } k[] = {
      /* forward, up to 4 rows per SM (HS: the head-split lean kernel; WARP: the warp forward) */
      {1, 53, BF, 0, 0, WARP, 1},      {512, 29, BF, 0, 0, HS, 1},      {512, 29, BF, 0, 1, HS, 1},
      {64, 223, BF, 0, 0, WARP, 1},    {1, 53, F32, 0, 0, WARP, 1},     {8, 191, F32, 0, 0, WARP, 1},
      {512, 13, F32, 0, 0, HS, 0},     {512, 5, F32, 0, 0, HS, 0},      {5, 114, BF, 0, 0, WARP, 1},
      {157, 52, BF, 0, 1, WARP, 1},    {767, 198, BF, 0, 0, WARP, 1}, /* (sweep; 767 rows: n >= 128) */
      /* forward, 4096 rows: plain, the row-pipelined head-split instance (RP: its plan on these
       * rows; FN_AUTO_FWD_PIPE_U_ROWS_PER_SM) before the lean one; the fused add keeps the lean
       * head-split kernel, measured faster than the row-pipelined element-wise reads (the
       * head-split instance, faster again at 4096 rows, lost from 32768 on, so not fused); where
       * the warp forward's rules reach (f32 from 65 columns, the fused add's 16-bit from 129, the
       * plain 16-bit forward two rows a warp: 4000 rows x 52-81 columns 1.27-1.29x over RP), WARP */
      {4096, 139, BF, 0, 0, WARP, 1},  {4096, 191, BF, 0, 0, WARP, 1},  {4096, 223, BF, 0, 1, WARP, 1},
      {4096, 89, BF, 0, 1, HS, 1},     {4096, 139, F32, 0, 0, WARP, 1}, {4096, 223, F32, 0, 0, WARP, 1},
      {4096, 89, F32, 0, 1, WARP, 1},  {4096, 89, BF, 0, 0, WARP, 1},   {4096, 53, BF, 0, 0, WARP, 1},
      {4096, 53, BF, 0, 1, HS, 0},     {4096, 89, F32, 0, 0, WARP, 1},  {4096, 53, F32, 0, 1, HS, 0},
      {2112, 295, BF, 0, 0, WARP, 1},  {2111, 295, BF, 0, 0, WARP, 1},
      /* forward, 33-64 slots, many rows (200000 x 365: the warp forward, 1.36x over RP,
       * H200 2026-12-02) */
      {32768, 295, BF, 0, 0, WARP, 1}, {200000, 365, BF, 0, 0, WARP, 1},  {58551, 295, FUSEDNORM_F16, 0, 0, WARP, 1},
      {32768, 295, BF, 0, 1, WARP, 1}, {200000, 477, BF, 0, 1, HS, 1},
      {32768, 139, F32, 0, 0, WARP, 1}, {200000, 139, F32, 0, 0, WARP, 1}, {200000, 223, F32, 0, 0, WARP, 1},
      {157281, 190, F32, 0, 0, WARP, 1},
      /* backward, few rows of 2049-4096 slots */
      {16, 20408, BF, 1, 0, SPLIT, 1}, {35, 26720, BF, 1, 0, SPLIT, 1}, {66, 16400, BF, 1, 1, SPLIT, 1},
      {132, 26720, BF, 1, 0, SPLIT, 1}, {16, 12289, F32, 1, 0, SPLIT, 1}, {35, 12289, F32, 1, 1, SPLIT, 1},
      {600, 26720, BF, 1, 0, SPLIT, 0}, {2400, 20408, BF, 1, 0, SPLIT, 0}, {132, 12289, F32, 1, 0, SPLIT, 0},
      /* (head-split rows, H100) */
      {35, 22915, BF, 1, 0, SPLIT, 1},
      /* backward, 16-bit rows of 2049-4096 slots, 2026-11-28 (FN_AUTO_BWD_SPLIT16_*): rows that are
       * not whole aligned vectors at any count, the fused add's aligned rows from 4.5 a SM */
      {132, 21685, BF, 1, 1, SPLIT, 1}, {600, 23927, BF, 1, 0, SPLIT, 1}, {4020, 21685, FUSEDNORM_F16, 1, 1, SPLIT, 1},
      {2000, 23927, BF, 1, 0, SPLIT, 1}, {400, 24576, BF, 1, 1, SPLIT, 0}, {4096, 16400, FUSEDNORM_F16, 1, 1, SPLIT, 0},
      {2000, 32768, BF, 1, 0, SPLIT, 0}, {4020, 32768, BF, 1, 0, SPLIT, 0}, {4020, 16400, BF, 1, 0, SPLIT, 0},
      /* backward, f32 rows of whole vectors, many rows, 2026-11-30 (FN_AUTO_BWD_F32_SPLIT_*): the
       * split-row kernel against the persistent generic one, forced in one build, paired */
      {600, 20408, F32, 1, 0, SPLIT, 1},  {1279, 20408, F32, 1, 0, SPLIT, 1},  {2400, 26720, F32, 1, 0, SPLIT, 1},
      {600, 26720, F32, 1, 0, SPLIT, 1},  {1000, 28672, F32, 1, 0, SPLIT, 1},  {2000, 16400, F32, 1, 0, SPLIT, 1},
      {4096, 20480, F32, 1, 0, SPLIT, 1}, {9384, 11020, F32, 1, 1, SPLIT, 1},  {2000, 11020, F32, 1, 1, SPLIT, 1},
      {600, 11020, F32, 1, 1, SPLIT, 1},  {600, 20408, F32, 1, 1, SPLIT, 1},   {1279, 20408, F32, 1, 1, SPLIT, 1},
      {2400, 26720, F32, 1, 1, SPLIT, 1}, {4096, 16400, F32, 1, 1, SPLIT, 1},
      {132, 20408, F32, 1, 0, RELOAD, 0}, {1844, 69916, F32, 1, 0, RELOAD, 0}, {2400, 26720, BF, 1, 0, RELOAD, 0},
      {2400, 12289, F32, 1, 0, RELOAD, 0},
      /* backward, plain aligned rows of 2049-4096 slots, 2026-11-29 (FN_AUTO_BWD_ROW8_*): the lean
       * kernel at 8 slots a thread against AUTO before (generic, split-row or cluster) */
      {132, 12288, F32, 1, 0, ROW8, 1}, {400, 8200, F32, 1, 0, ROW8, 1},   {4096, 16384, F32, 1, 0, ROW8, 1},
      {400, 24576, BF, 1, 0, ROW8, 1},  {1000, 16400, BF, 1, 0, ROW8, 1},  {4096, 24576, BF, 1, 0, ROW8, 1},
      {8, 16384, F32, 1, 0, ROW8, 0},   {66, 12288, F32, 1, 0, ROW8, 0},   {66, 24576, BF, 1, 0, ROW8, 0},
      {8, 32768, BF, 1, 0, ROW8, 0},
      /* ... 2026-11-30, dw in shared memory: 16-bit plain and fused from a row an SM, f32 fused not
       * (the generic kernel) */
      {132, 16400, BF, 1, 0, ROW8, 1},  {264, 20480, BF, 1, 0, ROW8, 1},  {132, 16400, BF, 1, 1, ROW8, 1},
      {132, 24576, FUSEDNORM_F16, 1, 1, ROW8, 1}, {264, 20480, BF, 1, 1, ROW8, 1}, {2000, 18432, FUSEDNORM_F16, 1, 1, ROW8, 1},
      {4096, 16400, BF, 1, 1, ROW8, 1}, {66, 16400, BF, 1, 1, ROW8, 0},   {66, 16400, FUSEDNORM_F16, 1, 1, ROW8, 0},
      {1000, 8200, F32, 1, 1, ROW8, 0}, {9384, 11020, F32, 1, 1, ROW8, 0}, {4096, 11020, F32, 1, 1, ROW8, 0},
      /* ... 2026-11-30, 16-bit rows of 3648-4096 slots (the raw 16-bit weight stage) from two rows an
       * SM, plain and fused */
      {264, 29184, BF, 1, 0, ROW8, 1},  {264, 32768, FUSEDNORM_F16, 1, 0, ROW8, 1}, {4096, 32768, BF, 1, 0, ROW8, 1},
      {1000, 30720, BF, 1, 0, ROW8, 1}, {264, 29184, FUSEDNORM_F16, 1, 1, ROW8, 1}, {264, 32768, BF, 1, 1, ROW8, 1},
      /* ... 2026-11-30 23:54 UTC, the fused add's 16-bit rows of 3200-4096 slots
       * (FN_AUTO_BWD_ROW8_16_FUSED_SPLIT_ROWS_PER_SM): the split-row kernel from 1000 rows
       * (1.08-1.20x), the lean kernel at 264 and 400 (the split-row kernel 0.81-0.95x); the plain
       * backward keeps the lean kernel (1.01x) */
      {1000, 32768, BF, 1, 1, SPLIT, 1}, {2000, 32768, BF, 1, 1, SPLIT, 1}, {4096, 32768, BF, 1, 1, SPLIT, 1},
      {4096, 32768, FUSEDNORM_F16, 1, 1, SPLIT, 1}, {1000, 28672, FUSEDNORM_F16, 1, 1, SPLIT, 1},
      {4096, 25600, BF, 1, 1, SPLIT, 1}, {1000, 30000, FUSEDNORM_F16, 1, 1, SPLIT, 1},
      {400, 32768, FUSEDNORM_F16, 1, 1, ROW8, 1}, {264, 28672, FUSEDNORM_F16, 1, 1, ROW8, 1},
      {400, 32768, BF, 1, 1, ROW8, 1}, {4096, 32768, BF, 1, 1, ROW8, 0}, {4096, 32768, BF, 1, 0, SPLIT, 0},
      /* backward, row-packed (PIPE) against persistent, 2026-11-29 (FN_AUTO_PACKED_BWD_ROWS_PER_SM):
       * persistent at 256 rows (0.89-0.92x row-packed's time at 100 columns), row-packed from 2048
       * (1.13-1.51x at every width up to 128 columns); paired at 11:50 UTC: 528 rows a tie (not
       * pinned), row-packed from 700 (f32 44 columns 1.16x, bf16 128 1.12x; 942 rows f32 44 fused
       * 1.22x, bf16 128 1.20x) */
      {700, 44, F32, 1, 0, PIPE, 1},  {700, 128, BF, 1, 0, PIPE, 1},  {942, 44, F32, 1, 1, PIPE, 1},
      {942, 128, BF, 1, 0, PIPE, 1},  {942, 64, F32, 1, 0, PIPE, 1},
      {256, 100, BF, 1, 0, PIPE, 0},  {256, 100, BF, 1, 1, PIPE, 0},  {256, 100, F32, 1, 0, PIPE, 0},
      {256, 100, F32, 1, 1, PIPE, 0}, {2048, 8, BF, 1, 0, PIPE, 1},   {2048, 44, BF, 1, 1, PIPE, 1},
      {2048, 128, BF, 1, 0, PIPE, 1}, {2048, 24, F32, 1, 0, PIPE, 1}, {2048, 64, F32, 1, 1, PIPE, 1},
      {4096, 100, BF, 1, 1, PIPE, 1}, {4096, 24, F32, 1, 0, PIPE, 1},
  };
#undef HS
#undef RP
#undef SPLIT
#undef RELOAD
#undef ROW8
#undef WARP
#undef PIPE
  const device *h200 = &kDevices[5];
  size_t i;
  CHECK(!strcmp(h200->name, "H200"), "kDevices[5] is %s", h200->name);
  for (i = 0; i < sizeof k / sizeof k[0]; ++i) {
    bench_case c;
    if (!bench_plan(h200, k[i].rows, k[i].n, k[i].x, k[i].bwd, k[i].fused, 1, &c)) continue;
    CHECK((c.l.kernel == k[i].kernel && c.l.mode == k[i].mode) == k[i].taken, "%s: %s; measured faster: %s%s/%s", c.what,
          c.s, k[i].taken ? "" : "not ", fusednorm_kernel_name(k[i].kernel), fusednorm_mode_name(k[i].mode));
    check_plan(&c.p, k[i].bwd, c.lay, &c.l, &h200->d, c.what);
  }
  { /* without a weight (no dw: not what was measured) the wide f32 backward keeps the cluster */
    fusednorm_problem p = prob(2400, 26720, FUSEDNORM_F32, FUSEDNORM_MODE_AUTO);
    fusednorm_launch l;
    p.has_weight = 0;
    CHECK(fusednorm_select_launch(&p, 1, &h200->d, &kAligned, &l) == FUSEDNORM_OK &&
              l.kernel == FUSEDNORM_KERNEL_BWD_GENERIC && l.mode == FUSEDNORM_MODE_WIDE,
          "H200 auto bwd noweight 2400x26720 f32: %s/%s", fusednorm_kernel_name(l.kernel), fusednorm_mode_name(l.mode));
  }
}

/* Few rows, measured on the H100 and the H200 (select.c fwd_row, fwd_packed; tools/bench/results/
 * few_rows_fwd_h100_2026-11-27, few_rows_fwd_h200_2026-11-28): the lean forward at one slot per
 * thread below the SM count up to FN_AUTO_FWD_ROW_FEW_MAX_THREADS threads (4 slots at 1024), and
 * up to FN_AUTO_FWD_ROW_FEW_ROWS_PER_SM rows per SM up to FN_AUTO_FWD_ROW_FEW2_MAX_THREADS; one
 * warp for a row of at most 32 slots; a row-packed CTA of only the warps that have rows. */
static void test_few_rows_forward(void) {
  static const struct {
    int64_t rows, n;
    fusednorm_dtype x;
    int fused;
    fusednorm_kernel kernel;
    int threads, slots;
  } k[] = {
      {14, 2393, FUSEDNORM_BF16, 1, FUSEDNORM_KERNEL_FWD_ROW, 320, 1},
      {53, 1916, FUSEDNORM_F16, 0, FUSEDNORM_KERNEL_FWD_ROW, 256, 1},
      {11, 5264, FUSEDNORM_BF16, 0, FUSEDNORM_KERNEL_FWD_ROW, 672, 1},
      {8, 8192, FUSEDNORM_BF16, 0, FUSEDNORM_KERNEL_FWD_ROW, 256, 4},   /* 1024 threads: slower */
      {132, 2393, FUSEDNORM_BF16, 1, FUSEDNORM_KERNEL_FWD_ROW, 320, 1}, /* rows = SMs: <= 512 threads */
      {264, 2393, FUSEDNORM_BF16, 1, FUSEDNORM_KERNEL_FWD_ROW, 320, 1}, /* two rows an SM */
      {265, 2393, FUSEDNORM_BF16, 1, FUSEDNORM_KERNEL_FWD_ROW, 96, 4},  /* more: throughput */
      {132, 4800, FUSEDNORM_BF16, 0, FUSEDNORM_KERNEL_FWD_ROW, 160, 4}, /* 608 threads > 512 */
      {3, 8, FUSEDNORM_BF16, 0, FUSEDNORM_KERNEL_FWD_TINY, 32, 1}, /* (test_tiny_picks) */
      {1, 255, FUSEDNORM_F16, 0, FUSEDNORM_KERNEL_FWD_ROW, 32, 1}, /* head-split, one warp */
      {7, 200, FUSEDNORM_F16, 0, FUSEDNORM_KERNEL_FWD_PIPE, 224, 1},
      {64, 200, FUSEDNORM_F16, 0, FUSEDNORM_KERNEL_FWD_PIPE, FN_ROW_PACKED_THREADS, 1},
  };
  const device *h100 = &kDevices[4];
  size_t i;
  for (i = 0; i < sizeof k / sizeof k[0]; ++i) {
    bench_case c;
    if (!bench_plan(h100, k[i].rows, k[i].n, k[i].x, 0, k[i].fused, 1, &c)) continue;
    CHECK(c.l.kernel == k[i].kernel && c.l.block_threads == k[i].threads && c.l.slots_per_thread == k[i].slots,
          "%s: %s; expected %s t%d s%d", c.what, c.s, fusednorm_kernel_name(k[i].kernel), k[i].threads, k[i].slots);
    check_plan(&c.p, 0, c.lay, &c.l, &h100->d, c.what);
  }
}

/* The plain forward of aligned whole-vector rows of 33-64 slots (select.c FN_AUTO_FWD_MID_SLOTS,
 * H200 2026-11-27 10:56 UTC): row-packed above FN_AUTO_FWD_MID_PACKED_ROWS_PER_SM rows per SM, the
 * lean one-row kernel up to it; the fused add, misaligned rows, rows not whole vectors and wider
 * rows keep their rules (H100 figures: 132 SMs, so the cut is at 8448 rows). */
/* One forward pick: AUTO on the H100-SXM's figures (132 SMs) takes `kernel` in `mode`. */
typedef struct {
  int64_t rows, n;
  fusednorm_dtype x;
  int fused;
  const fusednorm_layout *lay;
  fusednorm_kernel kernel;
  fusednorm_mode mode;
} fwd_pick;

static void check_fwd_picks(const fwd_pick *k, size_t count) {
  const device *h100 = &kDevices[4];
  size_t i;
  for (i = 0; i < count; ++i) {
    fusednorm_problem p = prob(k[i].rows, k[i].n, k[i].x, FUSEDNORM_MODE_AUTO);
    fusednorm_launch l;
    char what[128], s[256];
    p.has_residual = k[i].fused;
    snprintf(what, sizeof what, "H100-SXM auto %sfwd %lldx%lld %s a%d c%d", k[i].fused ? "fused " : "", (long long)k[i].rows,
             (long long)k[i].n, fusednorm_dtype_name(k[i].x), k[i].lay->aligned16, k[i].lay->congruent16);
    CHECK(fusednorm_select_launch(&p, 0, &h100->d, k[i].lay, &l) == FUSEDNORM_OK, "%s: status", what);
    plan_str(&l, s, sizeof s);
    CHECK(l.kernel == k[i].kernel && l.mode == k[i].mode, "%s: %s; expected %s/%s", what, s,
          fusednorm_kernel_name(k[i].kernel), fusednorm_mode_name(k[i].mode));
    check_plan(&p, 0, k[i].lay, &l, &h100->d, what);
  }
}

static void test_mid_forward(void) {
  static const fwd_pick k[] = {
      /* whole aligned vectors, many rows: the lanes forward at two vectors a lane */
      {131072, 512, FUSEDNORM_BF16, 0, &kAligned, FUSEDNORM_KERNEL_FWD_LANES, FUSEDNORM_MODE_ROW_PACKED},
      {8449, 512, FUSEDNORM_BF16, 0, &kAligned, FUSEDNORM_KERNEL_FWD_LANES, FUSEDNORM_MODE_ROW_PACKED},
      {8448, 512, FUSEDNORM_BF16, 0, &kAligned, FUSEDNORM_KERNEL_FWD_ROW, FUSEDNORM_MODE_MULTI_WAVE_CACHED},
      {2048, 448, FUSEDNORM_BF16, 0, &kAligned, FUSEDNORM_KERNEL_FWD_ROW, FUSEDNORM_MODE_MULTI_WAVE_CACHED},
      {300000, 264, FUSEDNORM_F16, 0, &kAligned, FUSEDNORM_KERNEL_FWD_LANES, FUSEDNORM_MODE_ROW_PACKED}, /* 33 slots */
      {65536, 160, FUSEDNORM_F32, 0, &kAligned, FUSEDNORM_KERNEL_FWD_LANES, FUSEDNORM_MODE_ROW_PACKED},
      /* merely congruent or misaligned 16-bit rows: the warp forward (select.c
       * FN_AUTO_FWD_WARP_B16_ANY_ROWS_MIN_N; congruent 131072 x 512 1.04x over the row-pipelined
       * head-split instance, H200 2026-12-01); the fused add keeps the lean forward */
      {131072, 512, FUSEDNORM_BF16, 0, &kCongruent, FUSEDNORM_KERNEL_FWD_WARP, FUSEDNORM_MODE_ROW_PACKED},
      {4096, 200, FUSEDNORM_F32, 0, &kAligned, FUSEDNORM_KERNEL_FWD_ROW, FUSEDNORM_MODE_MULTI_WAVE_CACHED},
      {131072, 512, FUSEDNORM_BF16, 1, &kAligned, FUSEDNORM_KERNEL_FWD_ROW, FUSEDNORM_MODE_MULTI_WAVE_CACHED},
      {131072, 520, FUSEDNORM_BF16, 0, &kAligned, FUSEDNORM_KERNEL_FWD_ROW, FUSEDNORM_MODE_MULTI_WAVE_CACHED},
      {131072, 512, FUSEDNORM_BF16, 0, &kMisaligned, FUSEDNORM_KERNEL_FWD_WARP, FUSEDNORM_MODE_ROW_PACKED},
      {131072, 512, FUSEDNORM_BF16, 1, &kCongruent, FUSEDNORM_KERNEL_FWD_ROW, FUSEDNORM_MODE_MULTI_WAVE_CACHED},
      /* rows not whole vectors, many: the warp forward (1.07x over the row-pipelined head-split
       * instance, H200 2026-12-01); the fused add the lean forward */
      {131072, 500, FUSEDNORM_BF16, 0, &kAligned, FUSEDNORM_KERNEL_FWD_WARP, FUSEDNORM_MODE_ROW_PACKED},
      {131072, 500, FUSEDNORM_BF16, 1, &kAligned, FUSEDNORM_KERNEL_FWD_ROW, FUSEDNORM_MODE_MULTI_WAVE_CACHED},
  };
  check_fwd_picks(k, sizeof k / sizeof k[0]);
}

/* Row-packed forwards of aligned rows of at most 32 whole vectors take the lanes kernel (select.c
 * fwd_lanes) above FN_FWD_LANES_MIN_ROWS_PER_SM rows per SM (8448 on 132 SMs), the fused add and
 * f32 included, AUTO and forced, and so do the plain forward's rows of 33-64 vectors (two a lane);
 * fewer rows, the fused add's 33 vectors, 65 vectors, rows not whole vectors, misaligned or merely
 * congruent rows keep their kernels. */
static void test_lanes_forward(void) {
  static const fwd_pick k[] = {
      {8449, 128, FUSEDNORM_BF16, 0, &kAligned, FUSEDNORM_KERNEL_FWD_LANES, FUSEDNORM_MODE_ROW_PACKED},
      {8448, 128, FUSEDNORM_BF16, 0, &kAligned, FUSEDNORM_KERNEL_FWD_PIPE, FUSEDNORM_MODE_ROW_PACKED},
      {1048576, 256, FUSEDNORM_F16, 0, &kAligned, FUSEDNORM_KERNEL_FWD_LANES, FUSEDNORM_MODE_ROW_PACKED},
      {1048576, 264, FUSEDNORM_F16, 0, &kAligned, FUSEDNORM_KERNEL_FWD_LANES, FUSEDNORM_MODE_ROW_PACKED}, /* 33: two a lane */
      {1048576, 512, FUSEDNORM_F16, 0, &kAligned, FUSEDNORM_KERNEL_FWD_LANES, FUSEDNORM_MODE_ROW_PACKED}, /* 64 */
      {1048576, 520, FUSEDNORM_F16, 0, &kAligned, FUSEDNORM_KERNEL_FWD_ROW, FUSEDNORM_MODE_MULTI_WAVE_CACHED}, /* 65 */
      {1048576, 264, FUSEDNORM_F16, 1, &kAligned, FUSEDNORM_KERNEL_FWD_ROW, FUSEDNORM_MODE_MULTI_WAVE_CACHED}, /* fused */
      {100000, 128, FUSEDNORM_F32, 0, &kAligned, FUSEDNORM_KERNEL_FWD_LANES, FUSEDNORM_MODE_ROW_PACKED},
      {100000, 8, FUSEDNORM_F32, 1, &kDenseAligned, FUSEDNORM_KERNEL_FWD_LANES, FUSEDNORM_MODE_ROW_PACKED},
      {100000, 120, FUSEDNORM_BF16, 1, &kAligned, FUSEDNORM_KERNEL_FWD_LANES, FUSEDNORM_MODE_ROW_PACKED},
      {100000, 124, FUSEDNORM_BF16, 0, &kAligned, FUSEDNORM_KERNEL_FWD_WARP, FUSEDNORM_MODE_ROW_PACKED}, /* 8-byte loads */
      {100000, 128, FUSEDNORM_BF16, 0, &kMisaligned, FUSEDNORM_KERNEL_FWD_PIPE, FUSEDNORM_MODE_ROW_PACKED},
      {100000, 128, FUSEDNORM_BF16, 0, &kCongruent, FUSEDNORM_KERNEL_FWD_PIPE, FUSEDNORM_MODE_ROW_PACKED},
  };
  const device *h100 = &kDevices[4];
  fusednorm_problem p = prob(100000, 64, FUSEDNORM_BF16, FUSEDNORM_MODE_ROW_PACKED);
  fusednorm_launch l;
  char s[256];
  check_fwd_picks(k, sizeof k / sizeof k[0]);
  /* forced row-packed: the same kernel on either side of the cut */
  CHECK(fusednorm_select_launch(&p, 0, &h100->d, &kAligned, &l) == FUSEDNORM_OK && l.kernel == FUSEDNORM_KERNEL_FWD_LANES,
        "forced row_packed 100000x64: %s", (plan_str(&l, s, sizeof s), s));
  p.rows = 2000;
  CHECK(fusednorm_select_launch(&p, 0, &h100->d, &kAligned, &l) == FUSEDNORM_OK && l.kernel == FUSEDNORM_KERNEL_FWD_PIPE,
        "forced row_packed 2000x64: %s", (plan_str(&l, s, sizeof s), s));
  p.rows = 100000; /* 33 vectors: two a lane in the plain forward, past the fused add's */
  p.n = 264;
  CHECK(fusednorm_select_launch(&p, 0, &h100->d, &kAligned, &l) == FUSEDNORM_OK && l.kernel == FUSEDNORM_KERNEL_FWD_LANES &&
            l.slots_per_thread == 2,
        "forced row_packed 100000x264: %s", (plan_str(&l, s, sizeof s), s));
  check_plan(&p, 0, &kAligned, &l, &h100->d, "forced row_packed 100000x264");
  p.has_residual = 1;
  CHECK(fusednorm_select_launch(&p, 0, &h100->d, &kAligned, &l) == FUSEDNORM_OK && l.kernel == FUSEDNORM_KERNEL_FWD_PIPE,
        "forced row_packed fused 100000x264: %s", (plan_str(&l, s, sizeof s), s));
  check_plan(&p, 0, &kAligned, &l, &h100->d, "forced row_packed fused 100000x264");
  p.has_residual = 0;
  p.n = 520; /* 65 vectors: past the lanes kernel's rows */
  CHECK(fusednorm_select_launch(&p, 0, &h100->d, &kAligned, &l) == FUSEDNORM_OK && l.kernel == FUSEDNORM_KERNEL_FWD_PIPE,
        "forced row_packed 100000x520: %s", (plan_str(&l, s, sizeof s), s));
  check_plan(&p, 0, &kAligned, &l, &h100->d, "forced row_packed 100000x520");
}

/* The lean forward at eight slots a thread (select.c fwd_row8_ok, FN_AUTO_FWD_ROW8_*), on every
 * device: aligned rows of one stride with a weight of their dtype (or none), 2560-4096 slots, from
 * 8 rows an SM, plain and fused, AUTO and forced multi_wave_cached alike; one row fewer, one slot
 * fewer, N-d rows, a misaligned or congruent layout, an fp32 weight on 16-bit rows take S <= 4 or
 * another family. AUTO's fused add takes the wide forward instead where that plan stages its
 * weight (clusters, a chunk of >= 48 KB of x and r), on every device where it does; the H200's
 * measured sides of that cut are pinned. */
static void test_fwd_row8(void) {
  int d, i, nws = 0, n8fused = 0;
  for (d = 0; d < NDEV; ++d) {
    const fusednorm_device_info *dev = &kDevices[d].d;
    const int64_t r8 = 8 * (int64_t)dev->sm_count;
    const struct {
      int64_t rows, n;
      fusednorm_dtype x, w;
      int fused, weight, dims;
      const fusednorm_layout *lay;
      int want8;
    } k[] = {
        {r8, 20480, BF, BF, 0, 1, 1, &kAligned, 1},          /* 2560 slots, the first rows */
        {r8 - 1, 20480, BF, BF, 0, 1, 1, &kAligned, 0},      /* a row fewer */
        {r8, 20472, BF, BF, 0, 1, 1, &kAligned, 0},          /* a slot fewer */
        {4 * r8, 32768, FUSEDNORM_F16, FUSEDNORM_F16, 0, 1, 1, &kAligned, 1}, /* 4096 slots */
        {r8, 16384, F32, F32, 0, 1, 1, &kAligned, 1},        /* f32, 4096 slots */
        {r8, 10240, F32, F32, 0, 0, 1, &kAligned, 1},        /* no weight */
        {r8, 32768, BF, BF, 1, 1, 1, &kAligned, 1},          /* the fused add (the wide cut) */
        {r8, 20480, BF, BF, 1, 1, 1, &kAligned, 1},
        {r8, 24576, BF, BF, 1, 1, 1, &kAligned, 1},
        {4 * r8, 22000, FUSEDNORM_F16, FUSEDNORM_F16, 1, 1, 1, &kAligned, 1},
        {r8, 12288, F32, F32, 1, 1, 1, &kAligned, 1},
        {r8, 11000, F32, F32, 1, 1, 1, &kAligned, 1},
        {r8 - 1, 20480, BF, BF, 1, 1, 1, &kAligned, 0},
        {r8, 16384, F32, F32, 1, 0, 1, &kAligned, 1},        /* f32, fused, no weight */
        {r8, 32776, BF, BF, 1, 1, 1, &kAligned, 0},          /* 4097 slots */
        {r8, 20480, BF, F32, 1, 1, 1, &kAligned, 0},         /* fused, a 4-byte weight on 16-bit rows */
        {r8, 32768, BF, BF, 0, 1, 2, &kAligned, 0},          /* N-d rows */
        {r8, 32768, BF, BF, 0, 1, 1, &kCongruent, 0},        /* the head-split rows */
        {r8, 32768, BF, BF, 0, 1, 1, &kMisaligned, 0},
        {r8, 32768, BF, F32, 0, 1, 1, &kAligned, 0},         /* a 4-byte weight on 16-bit rows */
    };
    for (i = 0; i < (int)(sizeof k / sizeof k[0]); ++i) {
      int m;
      for (m = 0; m < 2; ++m) {
        fusednorm_problem p = fusednorm_problem_init(k[i].rows, k[i].n, k[i].x, k[i].w);
        fusednorm_launch l, w;
        char s[256], what[128];
        int want8 = k[i].want8, ws = 0;
        p.mode = m ? FUSEDNORM_MODE_MULTI_WAVE_CACHED : FUSEDNORM_MODE_AUTO;
        p.has_residual = k[i].fused;
        p.has_weight = k[i].weight;
        if (k[i].dims == 2) { /* [rows / 4, 4] leading dims, contiguous */
          p.row_dims = 2;
          p.row_shape[0] = k[i].rows / 4;
          p.row_shape[1] = 4;
          p.rows = k[i].rows / 4 * 4;
        }
        snprintf(what, sizeof what, "%s %s %lldx%lld %s case %d", kDevices[d].name, m ? "forced cached" : "auto",
                 (long long)p.rows, (long long)p.n, fusednorm_dtype_name(k[i].x), i);
        if (fusednorm_select_launch(&p, 0, dev, k[i].lay, &l) != FUSEDNORM_OK) {
          CHECK(m == 1 && !k[i].want8, "%s: no plan", what); /* (forced: the family may refuse) */
          continue;
        }
        plan_str(&l, s, sizeof s);
        if (m == 0 && k[i].fused && want8 && fn_fwd_wide_max_cluster(dev->cc_major) >= 2) {
          fusednorm_problem pw = p;
          pw.mode = FUSEDNORM_MODE_WIDE;
          ws = fusednorm_select_launch(&pw, 0, dev, k[i].lay, &w) == FUSEDNORM_OK && w.weight_smem;
          if (ws) {
            want8 = 0;
            ++nws;
            CHECK(l.kernel == FUSEDNORM_KERNEL_FWD_WIDE && l.weight_smem && l.grid == w.grid && l.chunk == w.chunk &&
                      l.cluster == w.cluster,
                  "%s: %s, want the wide forward's staged-weight plan", what, s);
          }
        }
        if (m == 0 && k[i].fused && want8) ++n8fused;
        CHECK((l.kernel == FUSEDNORM_KERNEL_FWD_ROW && l.slots_per_thread == 8) == want8, "%s: %s, want S %s 8",
              what, s, want8 ? "=" : "!=");
        if (want8)
          CHECK(l.block_threads == (int)((((k[i].n / fn_vec_elems(k[i].x)) + 7) / 8 + 31) / 32 * 32) &&
                    l.grid == p.rows,
                "%s: geometry %s", what, s);
        check_plan(&p, 0, k[i].lay, &l, dev, what);
      }
    }
  }
  /* both sides of the fused add's cut were planned somewhere (the cluster devices' staged-weight
   * plans and the 8-slot lean forward) */
  CHECK(nws >= 8 && n8fused >= 8, "fused rows: %d staged-weight wide plans, %d 8-slot plans", nws, n8fused);
}

/* Dense rows narrower than a vector take the thread forward (select.c fwd_thread) where its rule
 * says; other narrow dense rows that are not whole aligned vectors take flat tiles (select.c fwd_tile), full
 * tiles in whole waves when there are enough rows (the plain forward's on CTAs of
 * FN_FWD_TILE_WAVE_THREADS where as many threads stay resident and tiles keep FN_FWD_TILE_MIN_ROWS
 * rows, else larger; the fused add's on full-size CTAs), smaller
 * tiles on smaller CTAs when full-size ones would leave SMs with fewer than
 * FN_FWD_TILE_CTAS_PER_SM; the same rows not dense, or whole aligned vectors, or not congruent,
 * keep the row-pipelined kernel; the backward is unchanged by density. */
static void test_tile_forward(void) {
  static const struct {
    int64_t rows, n;
    fusednorm_dtype x;
    int fused;
    const fusednorm_layout *lay;
    fusednorm_kernel kernel;
    int threads, tile_rows;
  } k[] = {
      {366740, 15, FUSEDNORM_BF16, 0, &kDenseCongruent, FUSEDNORM_KERNEL_FWD_TILE, 128, 93}, /* 3 waves of 128-thread CTAs */
      {1025612, 1, FUSEDNORM_F16, 1, &kDenseMisaligned, FUSEDNORM_KERNEL_FWD_PIPE, 256, 256},
      /* rows narrower than a vector: a thread's rows where they are one vector (n divides it), at
       * any count past the tiny forward's; where they are three, with 1.5 CTAs on every SM
       * (405489 x 3: 50688 groups of 8 rows, 384 on each of 132 SMs), else the tiles; 5 and 7
       * vectors a thread never */
      {1025612, 1, FUSEDNORM_F16, 1, &kDenseCongruent, FUSEDNORM_KERNEL_FWD_THREAD, 256, 2048},
      {116265, 1, FUSEDNORM_F32, 0, &kDenseAligned, FUSEDNORM_KERNEL_FWD_THREAD, 192, 768}, /* every SM a CTA */
      {1500, 2, FUSEDNORM_F16, 0, &kDenseAligned, FUSEDNORM_KERNEL_FWD_THREAD, 32, 128}, /* test_tiny_picks */
      {3000, 4, FUSEDNORM_BF16, 1, &kDenseCongruent, FUSEDNORM_KERNEL_FWD_THREAD, 32, 64},
      {486416, 3, FUSEDNORM_BF16, 0, &kDenseCongruent, FUSEDNORM_KERNEL_FWD_THREAD, 256, 2048},
      {405489, 3, FUSEDNORM_BF16, 1, &kDenseCongruent, FUSEDNORM_KERNEL_FWD_THREAD, 256, 2048},
      {405488, 3, FUSEDNORM_BF16, 1, &kDenseCongruent, FUSEDNORM_KERNEL_FWD_TILE, 256, 768},
      {1048576, 7, FUSEDNORM_F16, 0, &kDenseCongruent, FUSEDNORM_KERNEL_FWD_TILE, 128, 265}, /* 7 vectors */
      {1048576, 5, FUSEDNORM_BF16, 1, &kDenseCongruent, FUSEDNORM_KERNEL_FWD_TILE, 256, 795}, /* fused: 256 */
      {202745, 6, FUSEDNORM_F16, 0, &kDenseCongruent, FUSEDNORM_KERNEL_FWD_THREAD, 256, 1024}, /* 4 rows */
      {12785, 7, FUSEDNORM_F16, 0, &kDenseCongruent, FUSEDNORM_KERNEL_FWD_TILE, 32, 25},
      {65536, 6, FUSEDNORM_BF16, 0, &kDenseCongruent, FUSEDNORM_KERNEL_FWD_TILE, 128, 125},
      {1000000, 3, FUSEDNORM_F32, 0, &kDenseAligned, FUSEDNORM_KERNEL_FWD_THREAD, 256, 1024},
      {1000000, 4, FUSEDNORM_F32, 0, &kDenseAligned, FUSEDNORM_KERNEL_FWD_LANES, 128, 256}, /* a vector */
      /* below a full wave a team per row (11 rows x 16 lanes), up to the CTA's 256 threads */
      {5601, 92, FUSEDNORM_F16, 1, &kDenseCongruent, FUSEDNORM_KERNEL_FWD_TILE, 192, 11}, /* (plain: warp) */
      {209133, 1, FUSEDNORM_BF16, 0, &kDenseCongruent, FUSEDNORM_KERNEL_FWD_THREAD, 192, 1536},
      {1, 2, FUSEDNORM_F16, 0, &kDenseAligned, FUSEDNORM_KERNEL_FWD_TINY, 32, 16}, /* tiny problems: */
      {274156, 39, FUSEDNORM_F32, 0, &kDenseAligned, FUSEDNORM_KERNEL_FWD_TILE, 128, 26},
      {274156, 39, FUSEDNORM_F32, 0, &kCongruent, FUSEDNORM_KERNEL_FWD_PIPE, 256, 16},
      {1048576, 128, FUSEDNORM_BF16, 0, &kDenseAligned, FUSEDNORM_KERNEL_FWD_LANES, 128, 16},
      /* tiles of fewer than FN_FWD_TILE_MIN_ROWS rows: only 16-bit rows narrower than two vectors
       * (wider ones: the head-split lean kernel, FN_AUTO_FWD_HS_*); 4-byte rows narrower than a
       * vector: never */
      {767, 198, FUSEDNORM_BF16, 0, &kDenseCongruent, FUSEDNORM_KERNEL_FWD_WARP, 128, 4}, /* (few rows: the warp forward) */
      {3, 13, FUSEDNORM_F16, 1, &kDenseAligned, FUSEDNORM_KERNEL_FWD_TINY, 64, 4},
      {300, 13, FUSEDNORM_F16, 1, &kDenseAligned, FUSEDNORM_KERNEL_FWD_TILE, 32, 1},
      {13, 16, FUSEDNORM_F32, 0, &kDenseAligned, FUSEDNORM_KERNEL_FWD_TINY, 224, 14},
      {130, 16, FUSEDNORM_F32, 0, &kDenseAligned, FUSEDNORM_KERNEL_FWD_PIPE, 256, 64},
  };
  const device *h100 = &kDevices[4];
  size_t i;
  for (i = 0; i < sizeof k / sizeof k[0]; ++i) {
    fusednorm_problem p = prob(k[i].rows, k[i].n, k[i].x, FUSEDNORM_MODE_AUTO);
    fusednorm_launch l, lb, lb0;
    char what[128], s[256];
    p.has_residual = k[i].fused;
    snprintf(what, sizeof what, "H100-SXM auto %sfwd %lldx%lld %s a%d c%d d%d", k[i].fused ? "fused " : "",
             (long long)k[i].rows, (long long)k[i].n, fusednorm_dtype_name(k[i].x), k[i].lay->aligned16,
             k[i].lay->congruent16, k[i].lay->dense);
    CHECK(fusednorm_select_launch(&p, 0, &h100->d, k[i].lay, &l) == FUSEDNORM_OK, "%s: status", what);
    plan_str(&l, s, sizeof s);
    CHECK(l.kernel == k[i].kernel && l.block_threads == k[i].threads && l.rows_per_cta == k[i].tile_rows,
          "%s: %s; expected %s t%d r%d", what, s, fusednorm_kernel_name(k[i].kernel), k[i].threads, k[i].tile_rows);
    check_plan(&p, 0, k[i].lay, &l, &h100->d, what);
    {
      /* density changes no backward plan */
      const fusednorm_layout nd = {k[i].lay->aligned16, k[i].lay->congruent16, 0, k[i].lay->align_bytes};
      memset(&lb, 0, sizeof lb), memset(&lb0, 0, sizeof lb0); /* (the struct's tail padding) */
      CHECK(fusednorm_select_launch(&p, 1, &h100->d, k[i].lay, &lb) == FUSEDNORM_OK &&
                fusednorm_select_launch(&p, 1, &h100->d, &nd, &lb0) == FUSEDNORM_OK &&
                memcmp(&lb, &lb0, sizeof lb) == 0,
            "%s: the backward plan depends on density", what);
    }
  }
}

/* Tiny problems take the tiny kernels (select.c fwd_tiny / bwd_tiny), by the measurements in
 * select.c (H100, 2026-11-27 08:09-08:13 UTC): the forward for rows of <= 32 columns up to 2048
 * elements, the backward for rows of <= 256 columns that one CTA holds; just past either edge the
 * other kernels. Any layout; with the fused add and without a weight alike (H100 figures). */
static void test_tiny_picks(void) {
  static const struct {
    int64_t rows, n;
    fusednorm_dtype x;
    int bwd;
    fusednorm_kernel kernel;
    int threads;
  } k[] = {
      {22, 1, FUSEDNORM_BF16, 0, FUSEDNORM_KERNEL_FWD_TINY, 32},   {22, 1, FUSEDNORM_BF16, 1, FUSEDNORM_KERNEL_BWD_TINY, 32},
      {68, 1, FUSEDNORM_F32, 0, FUSEDNORM_KERNEL_FWD_TINY, 96},    {68, 1, FUSEDNORM_F32, 1, FUSEDNORM_KERNEL_BWD_TINY, 96},
      {2048, 1, FUSEDNORM_F32, 0, FUSEDNORM_KERNEL_FWD_TINY, 256}, {2049, 1, FUSEDNORM_F32, 0, FUSEDNORM_KERNEL_FWD_PIPE, 256},
      {8192, 1, FUSEDNORM_F32, 1, FUSEDNORM_KERNEL_BWD_TINY, 1024}, {8193, 1, FUSEDNORM_F32, 1, FUSEDNORM_KERNEL_BWD_PIPE, 256},
      {300, 8, FUSEDNORM_BF16, 1, FUSEDNORM_KERNEL_BWD_TINY, 1024}, {300, 8, FUSEDNORM_BF16, 0, FUSEDNORM_KERNEL_FWD_PIPE, 256},
      {1, 223, FUSEDNORM_BF16, 1, FUSEDNORM_KERNEL_BWD_TINY, 32},  {1, 224, FUSEDNORM_BF16, 0, FUSEDNORM_KERNEL_FWD_PIPE, 32},
      {7, 200, FUSEDNORM_F16, 1, FUSEDNORM_KERNEL_BWD_TINY, 224},  {32, 256, FUSEDNORM_F16, 1, FUSEDNORM_KERNEL_BWD_TINY, 512},
      {33, 256, FUSEDNORM_F16, 1, FUSEDNORM_KERNEL_BWD_ROW, 64},    {1, 257, FUSEDNORM_F32, 1, FUSEDNORM_KERNEL_BWD_ROW, 96},
      {64, 128, FUSEDNORM_BF16, 1, FUSEDNORM_KERNEL_BWD_TINY, 1024}, {65, 128, FUSEDNORM_BF16, 1, FUSEDNORM_KERNEL_BWD_ROW, 64},
  };
  const device *h100 = &kDevices[4];
  size_t i;
  int v;
  for (i = 0; i < sizeof k / sizeof k[0]; ++i)
    for (v = 0; v < 4; ++v) { /* plain; fused add; no weight; misaligned */
      fusednorm_problem p = prob(k[i].rows, k[i].n, k[i].x, FUSEDNORM_MODE_AUTO);
      const fusednorm_layout *lay =
          v == 3 ? &kMisaligned : k[i].n * (int64_t)fusednorm_dtype_size(k[i].x) % 16 == 0 ? &kAligned : &kCongruent;
      const int tiny = k[i].kernel == FUSEDNORM_KERNEL_FWD_TINY || k[i].kernel == FUSEDNORM_KERNEL_BWD_TINY;
      fusednorm_launch l;
      char what[128], s[256];
      p.has_residual = v == 1;
      p.has_weight = v != 2;
      snprintf(what, sizeof what, "H100-SXM auto %s %lldx%lld %s v%d", k[i].bwd ? "bwd" : "fwd", (long long)k[i].rows,
               (long long)k[i].n, fusednorm_dtype_name(k[i].x), v);
      CHECK(fusednorm_select_launch(&p, k[i].bwd, &h100->d, lay, &l) == FUSEDNORM_OK, "%s: status", what);
      plan_str(&l, s, sizeof s);
      check_plan(&p, k[i].bwd, lay, &l, &h100->d, what);
      CHECK(tiny == tiny_domain(&p, k[i].bwd), "%s: the table and the documented domain disagree", what);
      if (tiny || v == 0)
        CHECK(l.kernel == k[i].kernel && (!tiny || l.block_threads == k[i].threads), "%s: %s; expected %s t%d", what, s,
              fusednorm_kernel_name(k[i].kernel), k[i].threads);
      else
        CHECK(l.kernel != FUSEDNORM_KERNEL_FWD_TINY && l.kernel != FUSEDNORM_KERNEL_BWD_TINY, "%s: %s", what, s);
    }
}

/* The wide forward's rows (select.c FN_AUTO_FWD_WIDE_*), each pair measured on an H100 SXM
 * (2026-11-27 17:44 UTC): taken where it was faster than the generic or lean forward, not where
 * it was slower; and both sides of the half-the-SMs cut. */
/* A forward measured with and without the wide kernel on the H100 SXM: `wide` 1 where the wide
 * kernel was faster (AUTO must take it), 0 where it was not. */
typedef struct {
  int64_t rows, n;
  fusednorm_dtype x;
  int fused, wide;
} wide_pick;

static void check_wide_picks(const wide_pick *k, size_t count) {
  const device *h100 = &kDevices[4];
  size_t i;
  for (i = 0; i < count; ++i) {
    bench_case c;
    if (!bench_plan(h100, k[i].rows, k[i].n, k[i].x, 0, k[i].fused, 1, &c)) continue;
    CHECK((c.l.kernel == FUSEDNORM_KERNEL_FWD_WIDE) == k[i].wide, "%s: %s; measured %s", c.what, c.s,
          k[i].wide ? "faster wide" : "slower wide");
    check_plan(&c.p, 0, c.lay, &c.l, &h100->d, c.what);
  }
}

static void test_wide_fwd_picks(void) {
  static const wide_pick k[] = {
      /* (16-bit rows the head-split lean forward holds: the wide kernel only at most one row
       * every 8 SMs, FN_AUTO_FWD_WIDE_FEW_U_SMS_PER_ROW; the H100 had measured the wide kernel
       * against the generic one at 18-65 x 25734, the H200 the lean one against it, 2026-11-29) */
      {8, 16411, FUSEDNORM_BF16, 0, 1},   {18, 25734, FUSEDNORM_BF16, 0, 0},  {45, 25734, FUSEDNORM_BF16, 0, 0},
      {8, 24576, FUSEDNORM_BF16, 1, 1},   {45, 40003, FUSEDNORM_BF16, 0, 1},  {45, 369199, FUSEDNORM_BF16, 0, 1},
      {90, 369199, FUSEDNORM_F32, 0, 1},  {8, 16384, FUSEDNORM_BF16, 0, 0},   {90, 24576, FUSEDNORM_BF16, 1, 0},
      {90, 40003, FUSEDNORM_BF16, 0, 0},  {90, 109347, FUSEDNORM_BF16, 0, 0}, {90, 369199, FUSEDNORM_BF16, 0, 0},
      {90, 16411, FUSEDNORM_F32, 0, 0},   {90, 40003, FUSEDNORM_F32, 0, 0},   {65, 25734, FUSEDNORM_BF16, 0, 0},
      {66, 25734, FUSEDNORM_BF16, 0, 0},  {65, 65536, FUSEDNORM_BF16, 0, 1},  {66, 65536, FUSEDNORM_BF16, 0, 0},
      {66, 524288, FUSEDNORM_BF16, 0, 1},   {65, 14223, FUSEDNORM_F32, 1, 0}, /* (the sweep, 17:27 UTC) */
  };
  check_wide_picks(k, sizeof k / sizeof k[0]);
}

/* AUTO's wide forward without clusters (the grid sum, select.c FN_AUTO_FWD_WIDE_GRID_*): on every
 * device of the table seen without clusters (its compute capability 8.0: a pre-Hopper GPU, or a
 * build with only compute_80 PTX), over rows 1 .. SMs and widths around both thresholds, both
 * dtypes, plain and fused, aligned and congruent: the forward is the wide kernel exactly where the
 * rule says, and its plan is the grid sum. Then the cases of the H200 grid that set it (run from
 * compute_80 PTX, 132 SMs, 2026-11-28 12:45 UTC; ratio old AUTO / grid sum): each side of it. */
static void test_wide_grid_picks(void) {
  static const int64_t kN[] = {16384, 32768, 65535, 65536, 131072, 262144, 262147, 1048576};
  const fusednorm_layout *lays[] = {&kAligned, &kCongruent};
  int d, li, ni, xi, fused, wide = 0, other = 0;
  for (d = 0; d < NDEV; ++d) {
    fusednorm_device_info dev = kDevices[d].d;
    const int64_t sm = dev.sm_count;
    const int64_t rows[] = {1, sm / 4, sm / 4 + 1, sm / 3, sm / 3 + 1, sm - 1};
    size_t ri;
    dev.cc_major = 8, dev.cc_minor = 0;
    for (li = 0; li < 2; ++li)
      for (ri = 0; ri < sizeof rows / sizeof rows[0]; ++ri)
        for (ni = 0; ni < (int)(sizeof kN / sizeof kN[0]); ++ni)
          for (xi = 0; xi < 2; ++xi)
            for (fused = 0; fused < 2; ++fused) {
              const fusednorm_dtype x = xi ? FUSEDNORM_F32 : FUSEDNORM_BF16;
              const int64_t vec = fn_vec_elems(x), slots = (kN[ni] + vec - 1) / vec;
              fusednorm_problem p = fusednorm_problem_init(rows[ri], kN[ni], x, x);
              fusednorm_launch a;
              int want;
              p.has_residual = fused;
              if (fusednorm_select_launch(&p, 0, &dev, lays[li], &a) != FUSEDNORM_OK) {
                CHECK(0, "%s cc 8.0 %lldx%lld: no AUTO plan", kDevices[d].name, (long long)p.rows, (long long)p.n);
                continue;
              }
              want = slots >= 8192 && (slots >= 32768 ? 3 : 4) * p.rows <= sm;
              CHECK((a.kernel == FUSEDNORM_KERNEL_FWD_WIDE) == want && (want ? a.cluster == 1 : 1),
                    "%s cc 8.0 %lldx%lld %s%s layout %d: AUTO %s (cluster %d), want %s", kDevices[d].name,
                    (long long)p.rows, (long long)p.n, fusednorm_dtype_name(x), fused ? " fused" : "", li,
                    fusednorm_kernel_name(a.kernel), a.cluster, want ? "the grid sum" : "not wide");
              check_plan(&p, 0, lays[li], &a, &dev, "grid-sum pick");
              wide += want, other += !want;
            }
  }
  CHECK(wide > 100 && other > 100, "%d grid-sum and %d other plans checked", wide, other);
  /* Forced WIDE over every narrow width (where the CTAs' chunks are fewest vectors and the last
   * one's remainder smallest): runs from six vectors a row, never below three, and every plan
   * keeps each CTA two vectors (check_plan). */
  for (d = 0; d < NDEV; ++d)
    for (xi = 0; xi < 2; ++xi)
      for (ni = 1; ni <= 3000; ++ni) {
        fusednorm_device_info dev = kDevices[d].d;
        const fusednorm_dtype x = xi ? FUSEDNORM_F32 : FUSEDNORM_BF16;
        const int64_t vec = fn_vec_elems(x);
        fusednorm_problem p = fusednorm_problem_init(1 + ni % 3, ni, x, x);
        fusednorm_launch a;
        fusednorm_status st;
        dev.cc_major = 8, dev.cc_minor = 0;
        p.mode = FUSEDNORM_MODE_WIDE;
        st = fusednorm_select_launch(&p, 0, &dev, lays[ni % 2], &a);
        CHECK(ni >= 6 * vec ? st == FUSEDNORM_OK : ni < 3 * vec ? st == FUSEDNORM_ERR_MODE_UNSUPPORTED : 1,
              "%s cc 8.0 forced wide %lldx%d %s: status %d", kDevices[d].name, (long long)p.rows, ni,
              fusednorm_dtype_name(x), (int)st);
        if (st == FUSEDNORM_OK) check_plan(&p, 0, lays[ni % 2], &a, &dev, "forced grid sum");
      }
  {
    static const struct { int64_t rows, n; fusednorm_dtype x; int fused, wide; } kH200[] = {
        {17, 65536, FUSEDNORM_BF16, 0, 1},  /* 14.5 -> 11.7 us */
        {17, 65536, FUSEDNORM_BF16, 1, 1},  /* 16.4 -> 12.6 */
        {40, 65536, FUSEDNORM_BF16, 1, 0},  /* 17.8 vs 17.1: 1.04x, within noise of the rule */
        {66, 65536, FUSEDNORM_BF16, 0, 0},  /* 15.8 vs 17.1 */
        {40, 262144, FUSEDNORM_BF16, 0, 1}, /* 43.2 -> 37.2 */
        {66, 262144, FUSEDNORM_BF16, 1, 0}, /* 63.6 vs 71.5 */
        {100, 262144, FUSEDNORM_F32, 0, 0}, /* 103.0 vs 117.1 */
        {1, 32768, FUSEDNORM_BF16, 0, 0},   /* 6.8 vs 9.0 */
        {17, 32768, FUSEDNORM_F32, 0, 1},   /* 13.7 -> 11.3 */
        {40, 65536, FUSEDNORM_F32, 1, 0},   /* 27.1 vs 28.9 */
        {1, 1048576, FUSEDNORM_F32, 0, 1},  /* 258.0 -> 13.7 */
    };
    fusednorm_device_info h200 = kDevices[5].d;
    size_t i;
    CHECK(!strcmp(kDevices[5].name, "H200"), "kDevices[5] is %s", kDevices[5].name);
    h200.cc_major = 8, h200.cc_minor = 0;
    for (i = 0; i < sizeof kH200 / sizeof kH200[0]; ++i) {
      fusednorm_problem p = fusednorm_problem_init(kH200[i].rows, kH200[i].n, kH200[i].x, kH200[i].x);
      fusednorm_launch a;
      p.has_residual = kH200[i].fused;
      CHECK(fusednorm_select_launch(&p, 0, &h200, &kAligned, &a) == FUSEDNORM_OK &&
                (a.kernel == FUSEDNORM_KERNEL_FWD_WIDE) == kH200[i].wide,
            "H200 at cc 8.0 %lldx%lld %s%s: AUTO %s, measured %s", (long long)p.rows, (long long)p.n,
            fusednorm_dtype_name(p.x_dtype), p.has_residual ? " fused" : "", fusednorm_kernel_name(a.kernel),
            kH200[i].wide ? "faster as the grid sum" : "slower as the grid sum");
    }
  }
}

/* The wide forward's shared-memory stage (select.c fwd_wide), on every device with clusters, WIDE
 * forced over few rows of 16K-1M columns, odd widths, both dtypes, plain and fused, each layout:
 *   - only whole-vector slots are staged (aligned or congruent rows), never beyond what the
 *     registers leave of the chunk (less than one more slot a thread), and within half the SM's
 *     shared memory (two CTAs per SM, the launch bound);
 *   - the fused add stages a chunk only whole (with streamed slots behind it, 0.99x over 44
 *     cases, down to 0.89x on an H200 and an H100);
 * and, on the H100's figures, the picks measured there (kernels/RESULTS.md, "The wide forward's
 * stage in shared memory"): 45 x 109347 staged on clusters of 4 (one wave: f32 1.67x, bf16 1.72x
 * against clusters of 16 streaming), the fused 20 x 1025354 not staged (0.90x staged). */
/* AUTO's wide forward for many rows (select.c FN_AUTO_FWD_WIDE_MANY_*), on every device of the
 * table and both row layouts it can stage: with at least as many rows as SMs, AUTO's forward is
 * the wide kernel exactly where the rule says (clusters: without them a grid barrier a round of
 * rows; more rows than SMs; plain rows of >= 6000 slots, fused rows of >= 48000 columns, or of
 * >= 24576 where they are aligned whole vectors; the
 * forced wide plan holding its whole chunk in registers and stage), and every such plan reads
 * nothing twice. Then the H100 cases measured on either side of it. */
/* AUTO's plan of p on dev (a failed check if there is none: returns 0) and, in *w, the plan forced
 * WIDE gives (*have_w 0 if none); p is left in mode WIDE. */
static int auto_and_wide(const device *dv, fusednorm_problem *p, const fusednorm_layout *lay, fusednorm_launch *a,
                         fusednorm_launch *w, int *have_w) {
  if (fusednorm_select_launch(p, 0, &dv->d, lay, a) != FUSEDNORM_OK) {
    CHECK(0, "%s %lldx%lld: no AUTO plan", dv->name, (long long)p->rows, (long long)p->n);
    return 0;
  }
  p->mode = FUSEDNORM_MODE_WIDE;
  *have_w = fusednorm_select_launch(p, 0, &dv->d, lay, w) == FUSEDNORM_OK;
  return 1;
}

static void test_wide_many_rows(void) {
  static const int64_t kN[] = {23999, 24000, 24568, 24576, 32768, 47992, 48000, 49152, 65536, 98303, 131072, 262144, 577174, 1048576};
  const fusednorm_layout *lays[] = {&kAligned, &kCongruent};
  int d, li, ri, ni, xi, fused, wide = 0, other = 0;
  for (d = 0; d < NDEV; ++d) {
    const fusednorm_device_info *dev = &kDevices[d].d;
    const int64_t sm = dev->sm_count;
    const int64_t rows[] = {sm, sm + 1, 3 * sm / 2 - 1, (3 * sm + 1) / 2, 4 * sm, 7 * sm - 1, 7 * sm, 4096};
    for (li = 0; li < 2; ++li)
      for (ri = 0; ri < (int)(sizeof rows / sizeof rows[0]); ++ri)
        for (ni = 0; ni < (int)(sizeof kN / sizeof kN[0]); ++ni)
          for (xi = 0; xi < 2; ++xi)
            for (fused = 0; fused < 2; ++fused) {
              const fusednorm_dtype x = xi ? FUSEDNORM_F32 : FUSEDNORM_BF16;
              const int64_t vec = fn_vec_elems(x), slots = (kN[ni] + vec - 1) / vec;
              fusednorm_problem p = fusednorm_problem_init(rows[ri], kN[ni], x, x);
              fusednorm_launch a, w, l8;
              int holds = 0, have_w, want;
              p.has_residual = fused;
              if (!auto_and_wide(&kDevices[d], &p, lays[li], &a, &w, &have_w)) continue;
              if (have_w)
                holds = ((int64_t)w.slots_per_thread * w.block_threads + (int64_t)w.smem_bytes / (fused ? 32 : 16)) *
                            vec >= w.chunk;
              /* (aligned fused rows of 2560-4096 slots from 8 rows an SM: the lean forward at 8
               * slots a thread where the wide plan does not stage its weight, test_fwd_row8) */
              const int range8 =
                  fused && li == 0 && kN[ni] % vec == 0 && slots >= 2560 && slots <= 4096 && p.rows >= 8 * sm;
              const int row8 = range8 && !(holds && w.weight_smem);
              /* (aligned plain rows past 4096 slots, or of 2560-4096 from 3 to 8 rows an SM: the
               * every-slot-staged plan where it applies, test_wide_fwd_wr_mid) */
              /* (head-split rows past the lean forward, the 16-bit fused add's included:
               * fwd_wide_hs_pays) */
              p.mode = FUSEDNORM_MODE_MULTI_WAVE_CACHED;
              const int lean = fusednorm_select_launch(&p, 0, dev, lays[li], &l8) == FUSEDNORM_OK;
              p.mode = FUSEDNORM_MODE_WIDE;
              const int hs = (li == 1 || kN[ni] % vec != 0) && !lean && (!fused || x != FUSEDNORM_F32);
              const int wr_mid = holds && !fused && w.kernel == FUSEDNORM_KERNEL_FWD_WIDE && w.slots_per_thread == 0 &&
                                 (slots > 4096 || (slots >= 2560 && p.rows >= 3 * sm && p.rows < 8 * sm));
              want = holds && fn_fwd_wide_max_cluster(dev->cc_major) >= 2 && p.rows > sm && !row8 &&
                     (range8 || wr_mid || hs || (fused ? kN[ni] >= (li == 0 && kN[ni] % vec == 0 ? 24576 : 48000) : slots >= 6000));
              CHECK((a.kernel == FUSEDNORM_KERNEL_FWD_WIDE) == want, "%s %lldx%lld %s%s layout %d: AUTO %s, want %s",
                    kDevices[d].name, (long long)p.rows, (long long)p.n, fusednorm_dtype_name(x), fused ? " fused" : "",
                    li, fusednorm_kernel_name(a.kernel), want ? "wide" : "not wide");
              if (a.kernel == FUSEDNORM_KERNEL_FWD_WIDE)
                CHECK(a.smem_bytes == w.smem_bytes && a.chunk == w.chunk, "%s %lldx%lld: AUTO's wide plan is not the forced one",
                      kDevices[d].name, (long long)p.rows, (long long)p.n);
              wide += want, other += !want;
            }
  }
  CHECK(wide > 100 && other > 100, "%d wide and %d other plans checked", wide, other);
  {
    /* H100 SXM, cold, us ratio generic / wide (kernels/RESULTS.md "The wide forward for many
     * rows"; the fused add before the cluster sum was pushed): taken where >= 1.05, kept generic
     * below 1.0, except plain rows of 6000-12287 slots, which the H200 measured 1.08-1.22x faster
     * wide (2026-11-28 13:07 UTC; the H100's 0.95-0.99x here is the rule's known cost) */
    static const wide_pick k[] = {
        {200, 98303, FUSEDNORM_BF16, 0, 1},  /* 1.06 */
        {400, 262144, FUSEDNORM_BF16, 0, 1}, /* 1.33 */
        {200, 49152, FUSEDNORM_F32, 0, 1},   /* 1.05 */
        {2048, 65536, FUSEDNORM_BF16, 0, 1}, /* 1.17 */
        {1024, 32768, FUSEDNORM_F32, 0, 1},  /* 1.08 */
        {528, 65536, FUSEDNORM_BF16, 0, 1},  /* 0.99 (H200 fp16 400 and 530 x 65536: 1.18x, 1.20x) */
        {264, 32768, FUSEDNORM_F32, 0, 1},   /* 0.95 (H200 f32 288 x 24576: 1.16x) */
        {1024, 24577, FUSEDNORM_F32, 0, 1},  /* 0.96 (H200 f32 530 x 24576: 1.20x) */
        {200, 12288, FUSEDNORM_BF16, 0, 0},  /* 0.80 */
        {200, 12288, FUSEDNORM_BF16, 1, 0},  /* 0.75 fused */
        {400, 24577, FUSEDNORM_F32, 1, 0},   /* 0.94 fused */
        {400, 131072, FUSEDNORM_BF16, 1, 1}, /* 1.13 fused */
        {2048, 49152, FUSEDNORM_F32, 1, 1},  /* 1.11 fused */
    };
    check_wide_picks(k, sizeof k / sizeof k[0]);
  }
}

/* AUTO's plan of a rows x n problem on device d in layout `lay` (a CHECK failure where there is
 * none). */
static int auto_plan(int d, const fusednorm_layout *lay, int64_t rows, int64_t n, fusednorm_dtype x, int bwd, int fused,
                     int weight, fusednorm_launch *l) {
  fusednorm_problem p = fusednorm_problem_init(rows, n, x, x);
  p.has_residual = fused;
  p.has_weight = weight;
  if (fusednorm_select_launch(&p, bwd, &kDevices[d].d, lay, l) == FUSEDNORM_OK) return 1;
  CHECK(0, "%s %lldx%lld: no AUTO plan", kDevices[d].name, (long long)rows, (long long)n);
  return 0;
}

/* AUTO's backward of narrow rows from FN_AUTO_BWD_WARP_ROWS_PER_SM (= FN_AUTO_PACKED_BWD2_ROWS_PER_SM)
 * rows an SM (kernels/RESULTS.md "The warp backward"): rows of one stride take the warp backward
 * (bwd_warp) where they are not whole aligned vectors (16-bit from FN_AUTO_BWD_WARP_B16_MIN_N
 * columns) and f32 rows of whole aligned vectors from FN_AUTO_BWD_WARP_F32_ALIGNED_MIN_N columns,
 * up to FN_BWD_WARP_MAX_N, the instance of fn_bwd_warp_cols(n) columns a lane; N-d rows (which it
 * does not address) keep the row-packed kernel at two slots a lane for f32 rows of 33-64 slots
 * that are not whole aligned vectors ("Two slots a lane in the row-pipelined backward"); fewer
 * rows, and everything else, neither. */
static void test_warp_bwd(void) {
  static const int64_t kN[] = {32, 33, 45, 63, 64, 65, 100, 120, 128, 129, 136, 139, 178, 200, 255, 256, 257, 264, 512};
  static const fusednorm_dtype kX[] = {FUSEDNORM_BF16, FUSEDNORM_F16, FUSEDNORM_F32};
  const fusednorm_layout *lays[] = {&kAligned, &kCongruent, &kMisaligned};
  int d, li, ri, ni, xi, w, f, nd, warp = 0, two = 0, other = 0;
  for (d = 0; d < NDEV; ++d) {
    const fusednorm_device_info *dev = &kDevices[d].d;
    const int64_t sm = dev->sm_count;
    const int64_t rows[] = {1000, 96 * sm - 1, 96 * sm, 643392};
    for (li = 0; li < 3; ++li)
      for (ri = 0; ri < 4; ++ri)
        for (ni = 0; ni < (int)(sizeof kN / sizeof kN[0]); ++ni)
          for (xi = 0; xi < 3; ++xi)
            for (w = 0; w < 2; ++w)
              for (f = 0; f < 2; ++f)
                for (nd = 0; nd < 2; ++nd) {
                  const fusednorm_dtype x = kX[xi];
                  const int64_t n = kN[ni], vec = fn_vec_elems(x), slots = (n + vec - 1) / vec;
                  const int f32 = x == FUSEDNORM_F32, whole = lays[li]->aligned16 && n % vec == 0;
                  const int many = rows[ri] >= 96 * sm, in = n >= 33 && n <= 256;
                  const int want_warp = !nd && many && in && (whole ? f32 && n >= 129 : f32 || n >= 64);
                  const int want_two = nd && many && f32 && !whole && slots > 32 && slots <= 64;
                  fusednorm_problem p = fusednorm_problem_init(rows[ri], n, x, x);
                  fusednorm_launch a;
                  p.has_residual = f;
                  p.has_weight = w;
                  if (nd) { /* the same rows as two leading dims */
                    p.row_dims = 2;
                    p.row_shape[0] = 2;
                    p.row_shape[1] = rows[ri] / 2;
                    p.rows = 2 * (rows[ri] / 2);
                  }
                  if (fusednorm_select_launch(&p, 1, dev, lays[li], &a) != FUSEDNORM_OK) {
                    CHECK(0, "%s %lldx%lld: no AUTO plan", kDevices[d].name, (long long)p.rows, (long long)n);
                    continue;
                  }
                  CHECK((a.kernel == FUSEDNORM_KERNEL_BWD_WARP) == want_warp &&
                            (a.kernel != FUSEDNORM_KERNEL_BWD_WARP || a.slots_per_thread == fn_bwd_warp_cols(n)) &&
                            (a.kernel == FUSEDNORM_KERNEL_BWD_PIPE && a.slots_per_thread == 2) == want_two,
                        "%s %lldx%lld %s w%d f%d nd%d layout %d: AUTO %s s%d, want %s", kDevices[d].name,
                        (long long)p.rows, (long long)n, fusednorm_dtype_name(x), w, f, nd, li,
                        fusednorm_kernel_name(a.kernel), a.slots_per_thread,
                        want_warp ? "bwd_warp" : want_two ? "bwd_pipe at two slots" : "neither");
                  warp += want_warp, two += want_two, other += !want_warp && !want_two;
                }
  }
  CHECK(warp > 500 && two > 50 && other > 2000, "%d warp, %d two-slot and %d other plans checked", warp, two, other);
}

/* The lean backward's persistent grid at S <= 4 (select.c bwd_persistent, ctas_per_sm), H200:
 * 16-bit rows by the kernel's own registers (fn_regs_estimate_bwd_row16: 74-80 at S = 2, 12 CTAs
 * of 64 threads an SM), f32 rows by the generic estimate (96: 10 CTAs); registers counted per
 * sub-partition (102 at S = 4: 8 CTAs an SM, where the whole register file over a CTA's would
 * give 9). Measured: kernels/RESULTS.md "The lean backward's grid by its own registers". */
static void test_bwd_row_grid(void) {
  /* u: head-split rows (congruent, not whole aligned vectors): 16-bit rows by the head-split
   * kernels' own registers (fn_regs_estimate_bwd_row_u16: S = 2 plain 12 CTAs of 64 threads an
   * SM, fused 10), f32 rows by the generic estimate (S = 4 at 64 threads: 8); never narrow. */
  static const struct {
    int64_t rows, n;
    fusednorm_dtype x;
    int fused, slots, per_sm, u;
  } kCases[] = {
      {65536, 1024, FUSEDNORM_BF16, 0, 2, 12, 0}, {65536, 1024, FUSEDNORM_BF16, 1, 2, 12, 0},
      {65536, 576, FUSEDNORM_F16, 1, 2, 12, 0},   {65536, 2048, FUSEDNORM_BF16, 0, 4, 8, 0},
      {65536, 512, FUSEDNORM_BF16, 0, 1, 20, 0},  {65536, 512, FUSEDNORM_F32, 0, 2, 10, 0},
      {65536, 1024, FUSEDNORM_F32, 1, 4, 8, 0},   {13200, 384, FUSEDNORM_F16, 1, 1, 20, 0},
      {13199, 384, FUSEDNORM_F16, 1, 1, 16, 0},   {4096, 512, FUSEDNORM_BF16, 0, 1, 16, 0},
      {65536, 1023, FUSEDNORM_BF16, 0, 2, 12, 1}, {65536, 1023, FUSEDNORM_BF16, 1, 2, 10, 1},
      {65536, 1021, FUSEDNORM_F16, 0, 2, 12, 1},  {65536, 1023, FUSEDNORM_F32, 0, 4, 8, 1},
  };
  size_t i;
  for (i = 0; i < sizeof kCases / sizeof kCases[0]; ++i) {
    fusednorm_launch a;
    if (!auto_plan(5, kCases[i].u ? &kCongruent : &kAligned, kCases[i].rows, kCases[i].n, kCases[i].x, 1,
                   kCases[i].fused, 1, &a))
      continue;
    /* one slot a thread: the narrow instance (20 CTAs an SM) from FN_AUTO_BWD_ROW_NARROW_ROWS_PER_SM rows an SM */
    const int narrow = !kCases[i].u && kCases[i].slots == 1 && kCases[i].rows >= 132 * 100; /* (select.c FN_AUTO_BWD_ROW_NARROW_ROWS_PER_SM) */
    CHECK(a.kernel == FUSEDNORM_KERNEL_BWD_ROW && a.unaligned == kCases[i].u && a.block_threads == 64 &&
              a.slots_per_thread == kCases[i].slots && a.grid == 132 * kCases[i].per_sm && a.narrow == narrow,
          "H200 %s%s%lldx%lld %s: AUTO %s u%d t%d s%d g%lld narrow %d, want bwd_row u%d t64 s%d g%d narrow %d",
          kCases[i].u ? "head-split " : "", kCases[i].fused ? "fused " : "", (long long)kCases[i].rows,
          (long long)kCases[i].n, fusednorm_dtype_name(kCases[i].x), fusednorm_kernel_name(a.kernel), a.unaligned,
          a.block_threads, a.slots_per_thread, (long long)a.grid, a.narrow, kCases[i].u, kCases[i].slots,
          132 * kCases[i].per_sm, narrow);
  }
  {
    /* Every device: the narrow instance only where the device holds its bound's CTAs an SM (not
     * cc 8.6's 16, where ptxas ignores the bound), at 100 rows an SM of 512 bf16 columns. */
    int d, nw = 0;
    for (d = 0; d < NDEV; ++d) {
      const fusednorm_device_info *dev = &kDevices[d].d;
      const int want = dev->max_ctas_per_sm >= FN_BWD_ROW_NARROW_MIN_CTAS;
      fusednorm_launch a;
      if (!auto_plan(d, &kAligned, 100 * (int64_t)dev->sm_count, 512, FUSEDNORM_BF16, 1, 0, 1, &a)) continue;
      CHECK(a.kernel == FUSEDNORM_KERNEL_BWD_ROW && a.narrow == want, "%s bwd %lldx512 bf16: AUTO %s narrow %d, want %d",
            kDevices[d].name, (long long)(100 * (int64_t)dev->sm_count), fusednorm_kernel_name(a.kernel), a.narrow, want);
      nw += a.narrow;
    }
    CHECK(nw >= NDEV - 2, "the narrow instance on %d of %d devices", nw, NDEV);
  }
  {
    /* The residue classes of the head-split backward (fn_bwd_row_period, fn_bwd_row_by_residue):
     * the row addresses modulo 16 bytes repeat every 16 / gcd(16, stride bytes) rows, and every
     * class needs a CTA unless the grid covers the rows. */
    static const struct {
      int64_t stride, xs;
      int period;
    } kP[] = {{1023, 2, 8}, {1022, 2, 4}, {1020, 2, 2}, {1024, 2, 1}, {1021, 4, 4},
              {1022, 4, 2}, {1020, 4, 1}, {3, 2, 8},    {12, 2, 2},   {0, 2, 1}};
    for (i = 0; i < sizeof kP / sizeof kP[0]; ++i)
      CHECK(fn_bwd_row_period(kP[i].stride, kP[i].xs) == kP[i].period, "period of stride %lld x %lld bytes: %d, want %d",
            (long long)kP[i].stride, (long long)kP[i].xs, fn_bwd_row_period(kP[i].stride, kP[i].xs), kP[i].period);
    CHECK(fn_bwd_row_by_residue(8, 100, 1023, 2) && !fn_bwd_row_by_residue(7, 100, 1023, 2) &&
              fn_bwd_row_by_residue(7, 7, 1023, 2) && fn_bwd_row_by_residue(4, 100, 1022, 2) &&
              !fn_bwd_row_by_residue(3, 100, 1022, 2) && fn_bwd_row_by_residue(1, 100, 1024, 2),
          "fn_bwd_row_by_residue: a grid of at least the period, or covering the rows");
  }
}

/* The 8-slot lean backward's weight stage (select.c bwd_row8, fn_bwd_row8_smem): fp32 wherever
 * the weight and dw fit a CTA's shared memory that way, else for 16-bit rows with a 16-bit weight
 * its raw 16 bits (weight_smem 2, 6n bytes), else no 8-slot plan (forced `persistent` answers
 * MODE_UNSUPPORTED). */
static void test_row8_stage(void) {
  static const int64_t kN[] = {16392, 24576, 28928, 28936, 32768};
  int d, ni, xi, wi, fused, w16 = 0, f32s = 0;
  for (d = 0; d < NDEV; ++d) {
    const fusednorm_device_info *dev = &kDevices[d].d;
    for (ni = 0; ni < (int)(sizeof kN / sizeof kN[0]); ++ni)
      for (xi = 0; xi < 2; ++xi)
        for (wi = 0; wi < 2; ++wi)
          for (fused = 0; fused < 2; ++fused) {
            const fusednorm_dtype x = xi ? FUSEDNORM_F16 : FUSEDNORM_BF16;
            const int64_t n = kN[ni], room = (int64_t)dev->smem_per_block_optin - FN_STATIC_SMEM_MAX;
            fusednorm_problem p = prob(4 * dev->sm_count, n, x, FUSEDNORM_MODE_PERSISTENT);
            fusednorm_launch l;
            fusednorm_status st;
            p.w_dtype = wi ? FUSEDNORM_F32 : x;
            p.has_residual = fused;
            st = fusednorm_select_launch(&p, 1, dev, &kAligned, &l);
            if (8 * n <= room) {
              CHECK(st == FUSEDNORM_OK && l.slots_per_thread == 8 && l.weight_smem == 1 && l.smem_bytes == (size_t)(8 * n),
                    "%s %lld %s w %s: fp32 stage, got status %d S %d weight_smem %d smem %zu", kDevices[d].name,
                    (long long)n, fusednorm_dtype_name(x), fusednorm_dtype_name(p.w_dtype), st, l.slots_per_thread,
                    l.weight_smem, l.smem_bytes);
              f32s++;
            } else if (!wi && 6 * n <= room) {
              CHECK(st == FUSEDNORM_OK && l.slots_per_thread == 8 && l.weight_smem == 2 && l.smem_bytes == (size_t)(6 * n),
                    "%s %lld %s: raw 16-bit stage, got status %d S %d weight_smem %d smem %zu", kDevices[d].name,
                    (long long)n, fusednorm_dtype_name(x), st, l.slots_per_thread, l.weight_smem, l.smem_bytes);
              w16++;
            } else {
              CHECK(st == FUSEDNORM_ERR_MODE_UNSUPPORTED, "%s %lld %s w %s: no 8-slot plan fits, got status %d",
                    kDevices[d].name, (long long)n, fusednorm_dtype_name(x), fusednorm_dtype_name(p.w_dtype), st);
            }
            /* AUTO (four rows an SM) takes the same plan, either stage */
            {
              const int forced = st == FUSEDNORM_OK, stage = l.weight_smem;
              p.mode = FUSEDNORM_MODE_AUTO;
              st = fusednorm_select_launch(&p, 1, dev, &kAligned, &l);
              CHECK(st == FUSEDNORM_OK && (l.kernel == FUSEDNORM_KERNEL_BWD_ROW && l.slots_per_thread == 8) == forced &&
                        (!forced || l.weight_smem == stage),
                    "%s %lld %s w %s: AUTO status %d %s S %d weight_smem %d, forced %d stage %d", kDevices[d].name,
                    (long long)n, fusednorm_dtype_name(x), fusednorm_dtype_name(p.w_dtype), st,
                    fusednorm_kernel_name(l.kernel), l.slots_per_thread, l.weight_smem, forced, stage);
            }
          }
  }
  CHECK(w16 > 20 && f32s > 20, "%d raw 16-bit and %d fp32 stages checked", w16, f32s);
}

/* AUTO's backward of f32 aligned whole-vector rows of 2049-7168 slots from four rows an SM (those
 * the lean kernel at 8 slots a thread does not take): the split-row kernel where its ring holds
 * FN_AUTO_BWD_F32_SPLIT_MIN_STAGES (select.c) rows or more (what was measured faster, on the H200), else the
 * persistent generic kernel. Per device: the H100, H200 and B200 (228 KB an SM) get rings of 7-8
 * rows; the A100 5 (8 for fused 4096 x 16400, whose chunks are narrower); the GPUs of 100 KB 6. */
static void test_f32_split_bwd(void) {
  static const struct {
    int64_t rows, n;
    int fused;
    const char *split_on; /* the devices whose AUTO plan is the split-row kernel */
  } kCases[] = {
      {1279, 20408, 0, "H100-SXM H200 B200"},
      {9384, 11020, 1, "H100-SXM H200 B200"},
      {4096, 16400, 1, "A100-80GB H100-SXM H200 B200"},
      {5000, 28672, 0, "H100-SXM H200 B200"},
  };
  int d, i, split = 0, generic = 0;
  for (d = 0; d < NDEV; ++d)
    for (i = 0; i < (int)(sizeof kCases / sizeof kCases[0]); ++i) {
      const char *on = kCases[i].split_on, *name = kDevices[d].name;
      const size_t len = strlen(name);
      const char *hit = strstr(on, name);
      const int want = hit != NULL && (hit[len] == ' ' || hit[len] == '\0') && (hit == on || hit[-1] == ' ');
      fusednorm_launch a;
      if (!auto_plan(d, &kAligned, kCases[i].rows, kCases[i].n, FUSEDNORM_F32, 1, kCases[i].fused, 1, &a)) continue;
      /* (rings of 7 rows or more: those measured, select.c FN_AUTO_BWD_F32_SPLIT_MIN_STAGES) */
      CHECK(want ? a.kernel == FUSEDNORM_KERNEL_BWD_SPLIT && a.stages >= 7
                 : a.kernel == FUSEDNORM_KERNEL_BWD_GENERIC && a.mode == FUSEDNORM_MODE_MULTI_WAVE_RELOAD,
            "%s %lldx%lld f32%s: AUTO %s (ring %d), want %s", name, (long long)kCases[i].rows, (long long)kCases[i].n,
            kCases[i].fused ? " fused" : "", fusednorm_kernel_name(a.kernel), a.stages,
            want ? "bwd_split" : "bwd_generic");
      split += want, generic += !want;
    }
  CHECK(split == 13 && generic == 19, "%d split-row and %d generic plans checked", split, generic);
}

/* AUTO's backward of 16-bit rows of 2049-4096 slots with a weight on devices with clusters
 * (FN_AUTO_BWD_SPLIT16_*, kernels/RESULTS.md "The split-row backward below its AUTO width"): the
 * split-row kernel for congruent rows that are not whole aligned vectors at any row count, and
 * for the fused add's aligned rows from 4.5 rows a SM; the cluster kernel for aligned plain rows
 * past one a SM, aligned fused rows between one and 4.5 a SM, and rows that are not congruent;
 * without clusters, never (the persistent generic kernel there). Before all of these, aligned
 * rows of whole vectors up to 3072 slots from a row an SM take the lean kernel at 8 slots a
 * thread where its weight and dw fit shared memory, and up to 4096 from two (the fused add's
 * below 7 an SM) (FN_AUTO_BWD_ROW8_16_*). */
static void test_split16_bwd(void) {
  static const int64_t kN[] = {16392, 16400, 21685, 23927, 32760, 32768};
  const fusednorm_layout *lays[] = {&kAligned, &kCongruent, &kMisaligned};
  int d, li, ri, ni, xi, fused, split = 0, other = 0;
  for (d = 0; d < NDEV; ++d) {
    const fusednorm_device_info *dev = &kDevices[d].d;
    const int64_t sm = dev->sm_count;
    const int64_t rows[] = {sm + 1, (9 * sm - 1) / 2, (9 * sm + 1) / 2, 4020};
    for (li = 0; li < 3; ++li)
      for (ri = 0; ri < 4; ++ri)
        for (ni = 0; ni < (int)(sizeof kN / sizeof kN[0]); ++ni)
          for (xi = 0; xi < 2; ++xi)
            for (fused = 0; fused < 2; ++fused) {
              const fusednorm_dtype x = xi ? FUSEDNORM_F16 : FUSEDNORM_BF16;
              const int whole = lays[li]->aligned16 && kN[ni] % 8 == 0;
              /* (the lean kernel at 8 slots a thread first: FN_AUTO_BWD_ROW8_16_*, from a row an SM up
                 to 3072 slots, from two past it (the fused add there below 7 an SM), where the weight
                 (as fp32, else as its raw 16 bits) and dw fit shared memory) */
              const int row8 = whole && rows[ri] >= (kN[ni] / 8 <= 3072 ? sm : 2 * sm) &&
                               !(fused && kN[ni] / 8 > 3072 && rows[ri] >= 7 * sm) &&
                               kN[ni] * 6 + FN_STATIC_SMEM_MAX <= (int64_t)dev->smem_per_block_optin;
              const int want = dev->cc_major >= 9 && lays[li]->congruent16 && !row8 &&
                               (!whole || (fused && 2 * rows[ri] >= 9 * sm));
              fusednorm_launch a;
              if (!auto_plan(d, lays[li], rows[ri], kN[ni], x, 1, fused, 1, &a)) continue;
              CHECK((a.kernel == FUSEDNORM_KERNEL_BWD_SPLIT) == want, "%s %lldx%lld %s%s layout %d: AUTO %s, want %s",
                    kDevices[d].name, (long long)rows[ri], (long long)kN[ni], fusednorm_dtype_name(x),
                    fused ? " fused" : "", li, fusednorm_kernel_name(a.kernel), want ? "bwd_split" : "not");
              split += want, other += !want;
            }
  }
  CHECK(split > 100 && other > 100, "%d split-row and %d other plans checked", split, other);
}

static void test_wide_fwd_stage(void) {
  static const int64_t kRows[] = {1, 2, 8, 17, 45, 64, 90, 131};
  static const int64_t kN[] = {16384, 25734, 65536, 109347, 131072, 215342, 262144, 736015, 1025354, 1048576};
  const fusednorm_layout *lays[] = {&kAligned, &kCongruent, &kMisaligned};
  int d, li, ri, ni, xi, fused, checked = 0;
  for (d = 0; d < NDEV; ++d) {
    const fusednorm_device_info *dev = &kDevices[d].d;
    for (li = 0; li < 3; ++li)
      for (ri = 0; ri < (int)(sizeof kRows / sizeof kRows[0]); ++ri)
        for (ni = 0; ni < (int)(sizeof kN / sizeof kN[0]); ++ni)
          for (xi = 0; xi < 2; ++xi)
            for (fused = 0; fused < 2; ++fused) {
              const fusednorm_dtype x = xi ? FUSEDNORM_F32 : FUSEDNORM_BF16;
              fusednorm_problem p = fusednorm_problem_init(kRows[ri], kN[ni], x, x);
              fusednorm_launch l;
              p.has_residual = fused;
              p.mode = FUSEDNORM_MODE_WIDE;
              if (fusednorm_select_launch(&p, 0, dev, lays[li], &l) != FUSEDNORM_OK) continue;
              {
                const int64_t vec = fn_vec_elems(x), slot = fused ? 32 : 16;
                const int64_t chunk_slots = (l.chunk + vec - 1) / vec;
                const int64_t regs = (int64_t)l.slots_per_thread * l.block_threads;
                const int wb = l.weight_smem ? fn_fwd_wide_weight_bytes(x, x) : 0;
                const int64_t staged = /* slots per CTA */
                    fn_fwd_wide_staged(l.smem_bytes, l.block_threads, l.slots_per_thread, (int)slot, wb) * l.block_threads;
                const int64_t half = (int64_t)dev->smem_per_sm / 2 - FN_SMEM_RESERVE_PER_CTA;
                ++checked;
                CHECK(wb > 0 || l.smem_bytes % ((size_t)slot * l.block_threads) == 0, "%s %lldx%lld %s%s layout %d: smem %zu",
                      kDevices[d].name, (long long)p.rows, (long long)p.n, fusednorm_dtype_name(x), fused ? " fused" : "",
                      li, l.smem_bytes);
                CHECK(li < 2 || l.smem_bytes == 0, "%s %lldx%lld: misaligned rows staged (%zu bytes)", kDevices[d].name,
                      (long long)p.rows, (long long)p.n, l.smem_bytes);
                CHECK(staged == 0 || staged < chunk_slots - regs + l.block_threads,
                      "%s %lldx%lld %s%s: %lld slots staged for %lld past the registers", kDevices[d].name,
                      (long long)p.rows, (long long)p.n, fusednorm_dtype_name(x), fused ? " fused" : "",
                      (long long)staged, (long long)(chunk_slots - regs));
                CHECK((int64_t)l.smem_bytes <= half && l.smem_bytes + FN_STATIC_SMEM_MAX <= dev->smem_per_block_optin,
                      "%s %lldx%lld: stage of %zu bytes beyond half the SM", kDevices[d].name, (long long)p.rows,
                      (long long)p.n, l.smem_bytes);
                CHECK(!fused || staged == 0 || regs + staged >= chunk_slots,
                      "%s %lldx%lld %s fused: a stage with streamed slots behind it (%lld + %lld of %lld)",
                      kDevices[d].name, (long long)p.rows, (long long)p.n, fusednorm_dtype_name(x), (long long)regs,
                      (long long)staged, (long long)chunk_slots);
              }
            }
  }
  CHECK(checked > 1000, "only %d wide plans checked", checked);
  {
    static const struct {
      int64_t rows, n;
      fusednorm_dtype x;
      int fused, cluster, staged;
    } k[] = {
        {45, 109347, FUSEDNORM_F32, 0, 4, 1},
        {45, 109347, FUSEDNORM_BF16, 0, 4, 1},
        {20, 1025354, FUSEDNORM_BF16, 1, 8, 0},
    };
    const device *h100 = &kDevices[4];
    size_t i;
    for (i = 0; i < sizeof k / sizeof k[0]; ++i) {
      bench_case c;
      if (!bench_plan(h100, k[i].rows, k[i].n, k[i].x, 0, k[i].fused, 1, &c)) continue;
      CHECK(c.l.kernel == FUSEDNORM_KERNEL_FWD_WIDE && c.l.cluster == k[i].cluster && (c.l.smem_bytes > 0) == k[i].staged,
            "%s: %s; measured cluster %d, %s", c.what, c.s, k[i].cluster, k[i].staged ? "staged" : "not staged");
    }
  }
}

/* Every forced-wide forward plan of the wide family over a grid: each device of kDevices, the
 * aligned, congruent and misaligned layouts, rows x n, bf16 and f32 rows with a bf16, f32 or f16
 * weight or none, plain and fused. `visit` gets each plan whose family is FWD_WIDE. */
typedef struct {
  const device *dev;
  int layout; /* 0 aligned, 1 congruent, 2 misaligned */
  fusednorm_problem p;
  fusednorm_launch l;
} wide_plan;

static void for_wide_fwd_plans(const int64_t *rows, int nr, const int64_t *ns, int nn,
                               void (*visit)(const wide_plan *w, void *ctx), void *ctx) {
  static const fusednorm_dtype kW[] = {FUSEDNORM_BF16, FUSEDNORM_F32, FUSEDNORM_F16};
  const fusednorm_layout *lays[] = {&kAligned, &kCongruent, &kMisaligned};
  int d, li, ri, ni, xi, wi, fused;
  for (d = 0; d < NDEV; ++d)
    for (li = 0; li < 3; ++li)
      for (ri = 0; ri < nr; ++ri)
        for (ni = 0; ni < nn; ++ni)
          for (xi = 0; xi < 2; ++xi)
            for (wi = 0; wi < 4; ++wi)
              for (fused = 0; fused < 2; ++fused) {
                const fusednorm_dtype x = xi ? FUSEDNORM_F32 : FUSEDNORM_BF16;
                wide_plan w;
                w.dev = &kDevices[d];
                w.layout = li;
                w.p = fusednorm_problem_init(rows[ri], ns[ni], x, wi < 3 ? kW[wi] : x);
                w.p.has_residual = fused;
                w.p.has_weight = wi < 3;
                w.p.mode = FUSEDNORM_MODE_WIDE;
                if (fusednorm_select_launch(&w.p, 0, &w.dev->d, lays[li], &w.l) == FUSEDNORM_OK &&
                    w.l.kernel == FUSEDNORM_KERNEL_FWD_WIDE)
                  visit(&w, ctx);
              }
}

/* The plans a visit took (staged) and the wide plans it passed over (other). */
typedef struct {
  int staged, other;
} ws_count;

static void visit_wide_fwd_weight(const wide_plan *w, void *ctx) {
  ws_count *n = ctx;
  const int64_t kMinBytes = 49152; /* select.c FN_AUTO_FWD_WIDE_WS_MIN_CTA_BYTES */
  const fusednorm_problem *p = &w->p;
  const fusednorm_dtype x = p->x_dtype;
  const int fused = p->has_residual;
  if (!w->l.weight_smem) {
    ++n->other;
    return;
  }
  ++n->staged;
  const int64_t cl = w->l.cluster, bytes = w->l.chunk * (int64_t)fusednorm_dtype_size(x) * (fused ? 2 : 1);
  CHECK(w->layout == 0 && p->has_weight && cl > 1 && fn_fwd_wide_weight_bytes(x, p->w_dtype) > 0 &&
            w->l.grid < p->rows * cl && bytes >= kMinBytes,
        "%s %lldx%lld %s w %s%s layout %d: the weight staged: %s%s", w->dev->name, (long long)p->rows,
        (long long)p->n, fusednorm_dtype_name(x), fusednorm_dtype_name(p->w_dtype), fused ? " fused" : "", w->layout,
        w->l.grid < p->rows * cl ? "" : "a cluster a row, ", bytes < kMinBytes ? "a short chunk" : "");
}

/* The wide forward's weight staged in shared memory (select.c fwd_wide, weight_smem): on every
 * device and layout, only on aligned rows with a weight whose slots are 16-byte blocks, in clusters,
 * where the CTAs loop over rows (a grid of the resident clusters: the weight copied once a CTA), and
 * where a CTA's chunk moves at least FN_AUTO_FWD_WIDE_WS_MIN_CTA_BYTES. Then the H200 cases
 * measured (kernels/RESULTS.md "The wide forward's weight, once a CTA"). */
static void test_wide_fwd_weight(void) {
  static const int64_t kRows[] = {1, 16, 133, 200, 300, 512, 1024, 1500, 4096};
  /* 44000 and 88000: chunks of 40-48 KB at two and four CTAs a row, where the byte bound decides
   * (plain rows with a weight of other pieces than x's, and the fused add: the plans the instance
   * with every slot staged leaves to this one) */
  static const int64_t kN[] = {24576, 40000, 44000, 65536, 88000, 98312, 160000, 262144, 1048576};
  ws_count n = {0, 0};
  for_wide_fwd_plans(kRows, (int)(sizeof kRows / sizeof kRows[0]), kN, (int)(sizeof kN / sizeof kN[0]),
                     visit_wide_fwd_weight, &n);
  const int staged = n.staged, other = n.other;
  CHECK(staged > 100 && other > 100, "%d plans with the weight staged, %d without", staged, other);
  {
    /* H200, AUTO, paired against the build without the staged weight (us, 2026-11-30): taken where
     * it was faster, not where slower */
    static const struct {
      int64_t rows, n;
      fusednorm_dtype x;
      int fused, ws, cluster, wr;
    } k[] = {
        /* the plain rows below now take every slot staged (wr: test_wide_fwd_wr) */
        {512, 262144, FUSEDNORM_BF16, 0, 0, 16, 1},  /* staged: 204.2 -> 169.6; every slot staged 170.4 -> 164.8 */
        {1024, 65536, FUSEDNORM_BF16, 0, 0, 4, 1},   /* 91.7 -> 83.6; 83.6 -> 81.0 */
        {1024, 65536, FUSEDNORM_F32, 0, 0, 8, 1},    /* 188.2 -> 168.3; 167.0 -> 147.7 */
        {1024, 65536, FUSEDNORM_BF16, 1, 1, 4, 0},   /* fused: every slot staged 149.7 -> 151.6, not taken */
        {200, 98312, FUSEDNORM_F32, 1, 1, 16, 0},    /* 115.2 -> 92.0 */
        {300, 160000, FUSEDNORM_F32, 0, 0, 8, 0},    /* staged at 16 CTAs a row: 145.1 -> 163.7 */
        {1500, 40000, FUSEDNORM_F32, 0, 0, 8, 1},    /* staged at 4: 173.3 -> 180.4; every slot 138.2 -> 140.1 */
        {1, 262144, FUSEDNORM_BF16, 0, 0, 16, 0},    /* one row, staged: 9.8 -> 10.1, 11.4 -> 12.1 */
        {1, 262144, FUSEDNORM_F32, 0, 0, 16, 0},     /* 12.7 -> 13.1, 13.8 -> 14.6 */
        {256, 1048576, FUSEDNORM_BF16, 0, 0, 16, 0}, /* the chunk with its weight past the cluster */
    };
    const device *h200 = &kDevices[5];
    size_t i;
    for (i = 0; i < sizeof k / sizeof k[0]; ++i) {
      bench_case c;
      if (!bench_plan(h200, k[i].rows, k[i].n, k[i].x, 0, k[i].fused, 1, &c)) continue;
      CHECK(c.l.kernel == FUSEDNORM_KERNEL_FWD_WIDE && c.l.weight_smem == k[i].ws && c.l.cluster == k[i].cluster &&
                (c.l.slots_per_thread == 0) == k[i].wr,
            "%s: %s; measured %s at %d CTAs a row", c.what, c.s,
            k[i].wr ? "every slot staged" : k[i].ws ? "the weight staged" : "not staged", k[i].cluster);
    }
  }
}

static void visit_wide_fwd_wr(const wide_plan *w, void *ctx) {
  ws_count *n = ctx; /* staged: the plans with every slot staged */
  const fusednorm_problem *p = &w->p;
  const fusednorm_launch *l = &w->l;
  const fusednorm_device_info *dev = &w->dev->d;
  const fusednorm_dtype x = p->x_dtype;
  const int vec = fn_vec_elems(x), fused = p->has_residual;
  const int64_t per_cta = (int64_t)FN_FWD_WIDE_WR_THREADS * FN_FWD_WIDE_WR_SLOTS;
  char s[256];
  if (l->slots_per_thread != 0) {
    ++n->other;
    return;
  }
  ++n->staged;
  plan_str(l, s, sizeof s);
  const int64_t cl = l->cluster, slots = p->n / vec;
  const int64_t j = (l->chunk / vec + FN_FWD_WIDE_WR_THREADS - 1) / FN_FWD_WIDE_WR_THREADS;
  CHECK(fn_fwd_wide_max_cluster(dev->cc_major) >= 2 && w->layout == 0 && !fused &&
            (!p->has_weight || fn_fwd_wide_weight_bytes(x, p->w_dtype) == 16) && cl >= 2 && l->ctas_per_row == cl &&
            l->block_threads == FN_FWD_WIDE_WR_THREADS && !l->weight_smem && !l->unaligned &&
            l->smem_bytes == (size_t)(j * FN_FWD_WIDE_WR_THREADS * 16) &&
            2 * (l->smem_bytes + FN_SMEM_RESERVE_PER_CTA) <= dev->smem_per_sm,
        "%s %lldx%lld %s w %s%s layout %d: every slot staged: %s", w->dev->name, (long long)p->rows, (long long)p->n,
        fusednorm_dtype_name(x), p->has_weight ? fusednorm_dtype_name(p->w_dtype) : "none", fused ? " fused" : "",
        w->layout, s);
  CHECK(cl * per_cta >= slots && cl / 2 * per_cta < slots && l->chunk == fn_cluster_chunk(p->n, (int)cl, vec) &&
            (cl - 1) * l->chunk < p->n,
        "%s %lldx%lld %s: not the fewest CTAs a row that hold it: %s", w->dev->name, (long long)p->rows,
        (long long)p->n, fusednorm_dtype_name(x), s);
  CHECK(l->grid == (p->rows < INT_MAX / cl ? p->rows : INT_MAX / cl) * cl && p->rows * cl >= dev->sm_count,
        "%s %lldx%lld %s: not one CTA a (row, chunk) past a CTA an SM: %s", w->dev->name, (long long)p->rows,
        (long long)p->n, fusednorm_dtype_name(x), s);
}

/* The wide forward of many plain rows with every slot staged and the weight in registers (select.c
 * fwd_wide_wr, the plan's slots_per_thread 0): on every device, layout, dtype, weight and op, only
 * where there are clusters, on aligned plain rows whose slot's weight is one 16-byte piece (or no
 * weight), at FN_FWD_WIDE_WR_THREADS threads over the fewest power-of-two CTAs a row that hold
 * the chunk at FN_FWD_WIDE_WR_SLOTS slots a thread, two CTAs an SM or more (by shared memory),
 * one CTA a (row, chunk) (the grid rows x cluster, capped at INT_MAX) and at least a CTA an SM;
 * and on the H200 the picks measured against the plans before it, where the wave rule shows
 * (H200, 2026-11-30, bench_modes AUTO, paired, us). */
static void test_wide_fwd_wr(void) {
  static const int64_t kRows[] = {1, 16, 100, 133, 140, 200, 300, 1024, 4096};
  static const int64_t kN[] = {24576, 40000, 65536, 98312, 131072, 262144, 524288, 1048576};
  ws_count n = {0, 0};
  for_wide_fwd_plans(kRows, (int)(sizeof kRows / sizeof kRows[0]), kN, (int)(sizeof kN / sizeof kN[0]),
                     visit_wide_fwd_wr, &n);
  const int wr = n.staged, other = n.other;
  CHECK(wr > 100 && other > 100, "%d plans with every slot staged, %d without", wr, other);
  {
    static const struct {
      int64_t rows, n;
      fusednorm_dtype x;
      int fused, wr, cluster;
    } k[] = {
        {140, 65536, FUSEDNORM_BF16, 0, 1, 4},   /* 23.7 -> 20.4 (from one wave; from two it kept 23.7) */
        {200, 65536, FUSEDNORM_BF16, 0, 1, 4},   /* 27.1 -> 24.9 */
        {300, 65536, FUSEDNORM_BF16, 0, 1, 4},   /* 34.0 -> 31.4 */
        {700, 98304, FUSEDNORM_BF16, 0, 1, 8},   /* 94.5 -> 84.9 */
        {4096, 49152, FUSEDNORM_BF16, 0, 1, 4},  /* 245.9 -> 219.4 */
        {1024, 131072, FUSEDNORM_BF16, 0, 1, 8}, /* 163.2 -> 149.9 */
        {200, 98312, FUSEDNORM_F32, 0, 1, 16},   /* 64.0 -> 55.0 */
        {264, 65536, FUSEDNORM_F32, 0, 1, 8},    /* 52.9 -> 46.5 */
        {300, 65536, FUSEDNORM_BF16, 1, 0, 0},   /* fused: 50.2 -> 53.5, not taken */
        {512, 262144, FUSEDNORM_BF16, 1, 0, 0},  /* fused: 294.8 -> 325.8, not taken */
        {512, 131072, FUSEDNORM_F32, 1, 0, 0},   /* fused: 289.4 -> 320.5, not taken */
        {100, 65536, FUSEDNORM_BF16, 0, 0, 0},   /* below one wave (400 CTAs of 528): not measured */
        {300, 160000, FUSEDNORM_F32, 0, 0, 0},   /* past 16 CTAs a row */
    };
    const device *h200 = &kDevices[5];
    size_t i;
    {
      /* an H200 with a third of its shared memory an SM: one such CTA an SM (its 32 KB stage and
       * the reserve twice past it), so not this plan */
      fusednorm_device_info small = h200->d;
      fusednorm_problem p = prob(1024, 65536, FUSEDNORM_BF16, FUSEDNORM_MODE_AUTO);
      fusednorm_launch l;
      small.smem_per_sm = 2 * 32768 + 2 * FN_SMEM_RESERVE_PER_CTA - 1;
      small.smem_per_block_optin = small.smem_per_sm;
      CHECK(fusednorm_select_launch(&p, 0, &small, &kAligned, &l) == FUSEDNORM_OK &&
                !(l.kernel == FUSEDNORM_KERNEL_FWD_WIDE && l.slots_per_thread == 0),
            "H200 figures, %zu bytes of shared memory an SM: every slot staged at one CTA an SM", small.smem_per_sm);
    }
    for (i = 0; i < sizeof k / sizeof k[0]; ++i) {
      bench_case c;
      if (!bench_plan(h200, k[i].rows, k[i].n, k[i].x, 0, k[i].fused, 1, &c)) continue;
      CHECK(k[i].wr ? c.l.kernel == FUSEDNORM_KERNEL_FWD_WIDE && c.l.slots_per_thread == 0 && c.l.cluster == k[i].cluster
                    : c.l.kernel != FUSEDNORM_KERNEL_FWD_WIDE || c.l.slots_per_thread != 0,
            "%s: %s; measured %s", c.what, c.s, k[i].wr ? "faster with every slot staged" : "not taken");
    }
  }
}

/* AUTO's every-slot-staged wide forward below the many-rows cut (select.c fwd_wide_wr_pays): on
 * every device, dtype and weight, aligned plain rows past the SMs take the plan forced WIDE gives
 * where that plan has every slot staged and the row is past 4096 slots, or of 2560-4096 slots at
 * 3 to 8 rows an SM; nowhere else below 6000 slots (the fused add, rows up to the SMs, congruent
 * rows that are not aligned, 2048-2559 slots, two rows an SM, the 8-slot lean forward's rows);
 * and on the H200 the picks of the measured grid (2026-12-01 07:49 UTC, bench_modes, us, AUTO then
 * / forced wide, tools/bench/results/fwd_wide_wr_mid_h200_2026-12-01). */
static void test_wide_fwd_wr_mid(void) {
  static const int64_t kSlots[] = {2048, 2559, 2560, 3072, 4096, 4097, 5120, 5999};
  const fusednorm_layout *lays[] = {&kAligned, &kCongruent};
  const fusednorm_dtype xs[] = {FUSEDNORM_BF16, FUSEDNORM_F16, FUSEDNORM_F32};
  int d, li, ri, si, xi, fused, wr = 0, other = 0;
  for (d = 0; d < NDEV; ++d) {
    const fusednorm_device_info *dev = &kDevices[d].d;
    const int64_t sm = dev->sm_count;
    const int64_t rows[] = {sm, sm + 1, 2 * sm, 3 * sm - 1, 3 * sm, 5 * sm, 8 * sm - 1, 8 * sm, 12 * sm};
    for (li = 0; li < 2; ++li)
      for (ri = 0; ri < (int)(sizeof rows / sizeof rows[0]); ++ri)
        for (si = 0; si < (int)(sizeof kSlots / sizeof kSlots[0]); ++si)
          for (xi = 0; xi < 3; ++xi)
            for (fused = 0; fused < 2; ++fused) {
              const fusednorm_dtype x = xs[xi];
              const int64_t vec = fn_vec_elems(x), slots = kSlots[si];
              /* congruent rows: one element short of whole vectors */
              fusednorm_problem p = fusednorm_problem_init(rows[ri], slots * vec - li, x, x);
              fusednorm_launch a, w;
              int forced_wr = 0, have_w, want;
              char s[256];
              p.has_residual = fused;
              if (!auto_and_wide(&kDevices[d], &p, lays[li], &a, &w, &have_w)) continue;
              if (have_w)
                forced_wr = w.kernel == FUSEDNORM_KERNEL_FWD_WIDE && w.slots_per_thread == 0;
              want = forced_wr && !fused && li == 0 && p.rows > sm &&
                     (slots > 4096 || (slots >= 2560 && p.rows >= 3 * sm && p.rows < 8 * sm));
              plan_str(&a, s, sizeof s);
              CHECK((a.kernel == FUSEDNORM_KERNEL_FWD_WIDE && a.slots_per_thread == 0) == want,
                    "%s %lldx%lld %s%s layout %d: AUTO %s, want %severy slot staged", kDevices[d].name,
                    (long long)p.rows, (long long)p.n, fusednorm_dtype_name(x), fused ? " fused" : "", li, s,
                    want ? "" : "not ");
              if (want)
                CHECK(a.cluster == w.cluster && a.chunk == w.chunk && a.grid == w.grid && a.smem_bytes == w.smem_bytes,
                      "%s %lldx%lld: AUTO's plan is not the forced one", kDevices[d].name, (long long)p.rows,
                      (long long)p.n);
              wr += want, other += !want;
            }
  }
  CHECK(wr > 100 && other > 100, "%d every-slot-staged plans and %d others checked", wr, other);
  {
    static const struct {
      int64_t rows, n;
      fusednorm_dtype x;
      int wr, cluster;
    } k[] = {
        {2048, 40960, FUSEDNORM_BF16, 1, 4}, /* generic 138.1 -> 102.8 */
        {140, 40960, FUSEDNORM_BF16, 1, 4},  /* 22.6 -> 16.9 */
        {2048, 20480, FUSEDNORM_F32, 1, 4},  /* 130.6 -> 97.0 */
        {400, 32768, FUSEDNORM_BF16, 1, 2},  /* lean S = 4: 24.6 -> 23.3 */
        {776, 32768, FUSEDNORM_BF16, 1, 2},  /* 37.9 -> 34.7 */
        {776, 24576, FUSEDNORM_F16, 1, 2},   /* 32.6 -> 29.8 */
        {528, 10240, FUSEDNORM_F32, 1, 2},   /* 22.2 -> 20.3 */
        {264, 24576, FUSEDNORM_BF16, 0, 0},  /* two rows an SM: 16.5, wide 16.9 */
        {776, 16384, FUSEDNORM_BF16, 0, 0},  /* 2048 slots: 21.2, wide 23.6 */
        {1056, 32768, FUSEDNORM_BF16, 0, 0}, /* the 8-slot lean forward: 47.2, wide 45.3 (not taken: 8 rows an SM) */
        {2048, 16384, FUSEDNORM_F32, 0, 0},  /* 76.3, wide 79.2 */
    };
    const device *h200 = &kDevices[5];
    size_t i;
    for (i = 0; i < sizeof k / sizeof k[0]; ++i) {
      bench_case c;
      if (!bench_plan(h200, k[i].rows, k[i].n, k[i].x, 0, 0, 1, &c)) continue;
      CHECK(k[i].wr ? c.l.kernel == FUSEDNORM_KERNEL_FWD_WIDE && c.l.slots_per_thread == 0 && c.l.cluster == k[i].cluster
                    : c.l.kernel != FUSEDNORM_KERNEL_FWD_WIDE || c.l.slots_per_thread != 0,
            "%s: %s; measured %s", c.what, c.s, k[i].wr ? "faster with every slot staged" : "not taken");
    }
  }
}

/* The split-row backward's chunk (launch_config.h fn_split_bwd) on the H200's figures, AUTO, where
 * the two targets were measured against each other (kernels/RESULTS.md, "The split-row
 * backward's larger chunks"): the larger
 * chunks where they were faster (bf16 1024 x 65536 1.35x, f32 1844 x 69916 1.69x, bf16 36 x
 * 296932 1.69x, f32 8 x 131072 1.10x, bf16 45 x 109347 1.23x), the smaller where they were
 * slower (bf16 8 x 131072 0.78x: one row a CTA; f32 36 x 296932 0.93x: 73 CTAs instead of 132;
 * bf16 16 x 1048576 0.97x: 128 instead of 132); and every split plan on every device keeps a ring
 * of at least 2 rows (the larger target only with 4). */
static void test_split_chunk(void) {
  static const struct {
    int64_t rows, n;
    fusednorm_dtype x;
    int large;
  } k[] = {
      {1024, 65536, FUSEDNORM_BF16, 1}, {1844, 69916, FUSEDNORM_F32, 1}, {36, 296932, FUSEDNORM_BF16, 1},
      {8, 131072, FUSEDNORM_F32, 1},    {45, 109347, FUSEDNORM_BF16, 1}, {8, 131072, FUSEDNORM_BF16, 0},
      {36, 296932, FUSEDNORM_F32, 0},   {16, 1048576, FUSEDNORM_BF16, 0},
  };
  const device *h200 = &kDevices[5];
  size_t i;
  int d;
  for (i = 0; i < sizeof k / sizeof k[0]; ++i) {
    int fused;
    for (fused = 0; fused < 2; ++fused) {
      bench_case c;
      fn_split_geom g;
      if (!bench_plan(h200, k[i].rows, k[i].n, k[i].x, 1, fused, 1, &c)) continue;
      CHECK(fn_split_bwd_target(k[i].rows, k[i].n, k[i].x, 1, fused, 1, c.l.unaligned, &h200->d,
                                k[i].large ? FN_SPLIT_SLOTS_PER_CTA_LARGE : FN_SPLIT_SLOTS_PER_CTA, &g) &&
                c.l.kernel == FUSEDNORM_KERNEL_BWD_SPLIT && c.l.chunk == g.chunk && c.l.ctas_per_row == g.gc,
            "%s: %s; measured faster with the %s chunks", c.what, c.s, k[i].large ? "larger" : "smaller");
    }
  }
  for (d = 0; d < NDEV; ++d) {
    static const int64_t kN[] = {40836, 65536, 131072, 296932, 1048576};
    static const int64_t kR[] = {1, 8, 45, 1024};
    size_t a, b;
    for (a = 0; a < sizeof kN / sizeof kN[0]; ++a)
      for (b = 0; b < sizeof kR / sizeof kR[0]; ++b) {
        fusednorm_problem p = fusednorm_problem_init(kR[b], kN[a], FUSEDNORM_BF16, FUSEDNORM_BF16);
        fusednorm_launch l;
        p.mode = FUSEDNORM_MODE_WIDE;
        p.has_residual = 1;
        if (fusednorm_select_launch(&p, 1, &kDevices[d].d, &kAligned, &l) != FUSEDNORM_OK ||
            l.kernel != FUSEDNORM_KERNEL_BWD_SPLIT)
          continue;
        fn_split_geom g;
        CHECK(fn_split_bwd_target(p.rows, p.n, p.x_dtype, 1, 1, 0, 0, &kDevices[d].d, FN_SPLIT_SLOTS_PER_CTA, &g) &&
                  l.stages >= 2 && (l.chunk == g.chunk || l.stages >= 4),
              "%s fused bwd %lldx%lld: chunk %lld with a ring of %d", kDevices[d].name, (long long)p.rows,
              (long long)p.n, (long long)l.chunk, l.stages);
      }
  }
}

/* dw in the backward kernel (select.c with_dw_in_kernel), H100 figures, bf16 unless named, twice:
 * at cc 8.0 (what a compute_80 PTX build reports on it: dw_reduce is an ordinary launch) one CTA
 * always (it writes dw itself), a few CTAs with at most 8 columns per thread of the grid, not 2 x
 * 16384 (2 CTAs of 512 threads: 16 columns each, the ratio measured on H100, 2026-11-27, 2 x 4096
 * in 2 CTAs of 128 threads: 12.1 us in the kernel against 9.5 with the second launch), not above
 * 32 CTAs (`dk8`); at cc 9.0 (dw_reduce a programmatic dependent launch) only one CTA of at most 8
 * columns per thread (`dk9`). The threads: one slot per thread below one row per SM
 * (bwd_persistent), up to 1024; from one row per SM on, 4 slots per thread again (132 x 4096). */
static void test_dw_in_kernel_picks(void) {
  static const struct {
    int64_t rows, n;
    fusednorm_dtype x;
    int grid, threads, dk8, dk9;
  } k[] = {
      {1, 4096, FUSEDNORM_BF16, 1, 512, 1, 1},    {2, 16384, FUSEDNORM_BF16, 2, 512, 0, 0},
      {8, 1024, FUSEDNORM_BF16, 8, 128, 1, 0},    {4, 1000, FUSEDNORM_F32, 4, 256, 1, 0},
      {32, 4096, FUSEDNORM_BF16, 32, 512, 1, 0},  {1, 16384, FUSEDNORM_BF16, 1, 512, 1, 0},
      {4, 8192, FUSEDNORM_BF16, 4, 1024, 1, 0},   {3, 8192, FUSEDNORM_BF16, 3, 1024, 1, 0},
      {33, 4096, FUSEDNORM_BF16, 33, 512, 0, 0},  {131, 4096, FUSEDNORM_BF16, 131, 512, 0, 0},
      {132, 4096, FUSEDNORM_BF16, 132, 128, 0, 0}, {1, 1024, FUSEDNORM_F32, 1, 256, 1, 1},
  };
  size_t i;
  for (int cc = 8; cc <= 9; ++cc) {
    fusednorm_device_info d = kDevices[4].d;
    d.cc_major = cc;
    for (i = 0; i < sizeof k / sizeof k[0]; ++i) {
      fusednorm_problem p = prob(k[i].rows, k[i].n, k[i].x, FUSEDNORM_MODE_AUTO);
      fusednorm_launch l;
      char what[128], s[256];
      const int dk = cc == 8 ? k[i].dk8 : k[i].dk9;
      snprintf(what, sizeof what, "H100-SXM at cc %d.0 auto bwd %lldx%lld %s", cc, (long long)k[i].rows,
               (long long)k[i].n, fusednorm_dtype_name(k[i].x));
      CHECK(fusednorm_select_launch(&p, 1, &d, &kAligned, &l) == FUSEDNORM_OK, "%s: status", what);
      plan_str(&l, s, sizeof s);
      CHECK(l.kernel == FUSEDNORM_KERNEL_BWD_ROW && l.grid == k[i].grid && l.block_threads == k[i].threads &&
                l.dw_in_kernel == dk,
            "%s: %s; expected bwd_row g%d t%d dk%d", what, s, k[i].grid, k[i].threads, dk);
      check_plan(&p, 1, &kAligned, &l, &d, what);
    }
  }
}

/* The warp forward's AUTO rules (select.c fwd_warp, fwd_warp_rows, FN_AUTO_FWD_WARP*) on the H200's
 * figures (132 SMs), at both edges of each: rows an SM (16 for any width with one row a warp; the
 * plain 16-bit forward's two rows a warp at 64 and 160 rows an SM up to 128 columns, past 256 from
 * 129 to 320 columns; 256 for one row a warp of 16-bit rows of 129-256 columns, and of the fused
 * add's past 320), the dense rows' wider domain (16-bit 65-128 columns two rows a warp at any
 * count, the fused add's 97-128 one row a warp up to 256 rows an SM; f32 45-64 two rows a warp,
 * the fused add's 49-64 one, up to 4096 rows an SM), the f32 widths and
 * counts of one and of two rows a warp, whole aligned vectors (declined), one row (declined past
 * 128 columns), N-d rows (declined) and widths outside 33..512. `rw` 1 or 2: the warp forward with
 * a lane holding `cols` columns of `rw` rows, a grid covering the rows in CTAs of up to 4 warps;
 * 0: another family. */
static void test_warp_picks(void) {
  static const struct {
    int64_t rows, n;
    fusednorm_dtype x;
    int fused, nd;
    const fusednorm_layout *lay;
    int rw, cols, ve; /* ve: elements a load (0 read as 1) */
  } k[] = {
      /* sub-vector loads: 16-bit plain rows of 65-320 columns on 8- / 4-byte boundaries past 16
       * rows an SM, two rows a warp, at any count; not with the fused add, f32, or fewer rows */
      {2113, 140, BF, 0, 0, &kAlign8, 2, 2, 4},     {2112, 140, BF, 0, 0, &kAlign8, 1, 5, 1},
      {1000000, 140, FUSEDNORM_F16, 0, 0, &kAlign8, 2, 2, 4}, {1000000, 142, BF, 0, 0, &kAlign8, 2, 3, 2},
      {1000000, 140, BF, 0, 0, &kAlign4, 2, 3, 2},  {1000000, 142, BF, 0, 0, &kAlign2, 2, 5, 1},  {1000000, 141, BF, 0, 0, &kAlign8, 2, 5, 1},
      {33793, 65, BF, 0, 0, &kAlign4, 2, 3, 1},     {33793, 66, BF, 0, 0, &kAlign4, 2, 2, 2},
      {33793, 64, BF, 0, 0, &kAlign4, 0, 0, 0},     {4096, 68, FUSEDNORM_F16, 0, 0, &kAlign8, 2, 1, 4},
      {33793, 320, BF, 0, 0, &kAlign8, 2, 3, 4},    {33793, 318, BF, 0, 0, &kAlign8, 2, 5, 2},
      {33793, 324, BF, 0, 0, &kAlign8, 1, 12, 0},    {33793, 140, BF, 1, 0, &kAlign8, 0, 0, 0},
      {33793, 140, F32, 0, 0, &kAlign8, 1, 5, 1},   {1000000, 90, F32, 0, 0, &kAlign8, 2, 3, 1},
      /* one row a warp up to 16 rows an SM, any width */
      {2112, 33, BF, 0, 0, &kCongruent, 1, 2, 0},      {2112, 511, BF, 1, 0, &kMisaligned, 1, 16, 0},
      {2113, 511, BF, 1, 0, &kMisaligned, 1, 16, 0}, {33793, 511, BF, 1, 0, &kMisaligned, 0, 0, 0},    {2112, 52, F32, 0, 0, &kCongruent, 1, 2, 0},
      /* 16-bit plain rows of at most 128 columns: two rows a warp, the bands */
      {2113, 33, BF, 0, 0, &kCongruent, 2, 2, 0},      {8448, 33, BF, 0, 0, &kCongruent, 2, 2, 0},
      {8449, 33, BF, 0, 0, &kCongruent, 0, 0, 0},      {8449, 59, BF, 0, 0, &kCongruent, 0, 0, 0},
      {8449, 60, FUSEDNORM_F16, 0, 0, &kMisaligned, 2, 2, 0}, {21120, 60, BF, 0, 0, &kCongruent, 2, 2, 0},
      {21120, 128, BF, 0, 0, &kCongruent, 2, 4, 0},    {21121, 128, BF, 0, 0, &kCongruent, 0, 0, 0},
      {8448, 128, BF, 0, 0, &kAligned, 0, 0, 0},       {100, 32, BF, 0, 0, &kCongruent, 0, 0, 0},
      /* ... dense rows (the flat tiles' domain) of 65-128 columns at any count */
      {21121, 65, BF, 0, 0, &kDenseCongruent, 2, 3, 0}, {21121, 64, BF, 0, 0, &kDenseCongruent, 0, 0, 0},
      {1000000, 127, FUSEDNORM_F16, 0, 0, &kDenseMisaligned, 2, 4, 0}, {1000000, 127, FUSEDNORM_F16, 0, 0, &kCongruent, 0, 0, 0},
      /* the fused add's dense 16-bit rows of 97-128 columns, one row a warp up to 256 rows an SM */
      {33792, 97, BF, 1, 0, &kDenseCongruent, 1, 4, 0}, {33793, 97, BF, 1, 0, &kDenseCongruent, 0, 0, 0},
      {33792, 96, BF, 1, 0, &kDenseCongruent, 0, 0, 0}, {33792, 97, BF, 1, 0, &kCongruent, 0, 0, 0},
      /* 16-bit rows of 129-320 columns: one row a warp up to 256 rows an SM, then (plain) two; of
       * 257-512 at any count (the fused add up to 320 columns past 256 rows an SM; 256 columns and
       * fewer there keep the flat tiles) */
      {2113, 320, FUSEDNORM_F16, 0, 0, &kCongruent, 1, 10, 0}, {33792, 129, BF, 0, 0, &kCongruent, 1, 5, 0},
      {33793, 129, BF, 0, 0, &kCongruent, 2, 5, 0},    {33793, 320, FUSEDNORM_F16, 0, 0, &kCongruent, 2, 10, 0},
      {1000000, 320, FUSEDNORM_F16, 0, 0, &kMisaligned, 2, 10, 0}, {33793, 321, FUSEDNORM_F16, 0, 0, &kCongruent, 1, 12, 0},
      {8448, 321, FUSEDNORM_F16, 0, 0, &kCongruent, 1, 12, 0}, {1000000, 512, FUSEDNORM_F16, 0, 0, &kCongruent, 1, 16, 0},
      {200000, 365, BF, 0, 0, &kCongruent, 1, 12, 0},  {100, 513, BF, 0, 0, &kCongruent, 0, 0, 0},
      {33792, 200, BF, 1, 0, &kCongruent, 1, 8, 0},    {33793, 200, BF, 1, 0, &kCongruent, 0, 0, 0},
      {33792, 128, BF, 1, 0, &kCongruent, 0, 0, 0},    {33792, 321, FUSEDNORM_F16, 1, 0, &kCongruent, 1, 12, 0},
      {33793, 321, FUSEDNORM_F16, 1, 0, &kCongruent, 0, 0, 0}, {300000, 320, FUSEDNORM_F16, 1, 0, &kCongruent, 1, 10, 0},
      {300000, 257, BF, 1, 0, &kCongruent, 1, 10, 0},  {300000, 256, BF, 1, 0, &kCongruent, 0, 0, 0},
      /* f32: two rows a warp at 49-64 columns (from 33 up to 64 rows an SM), at 65-96 past 1024;
       * one row a warp at 65-384 */
      {1000000, 49, F32, 0, 0, &kCongruent, 2, 2, 0},  {1000000, 48, F32, 0, 0, &kCongruent, 0, 0, 0},
      {8448, 33, F32, 0, 0, &kMisaligned, 2, 2, 0},    {8449, 48, F32, 0, 0, &kCongruent, 0, 0, 0},
      {8449, 64, F32, 0, 0, &kMisaligned, 2, 2, 0},    {135168, 65, F32, 0, 0, &kCongruent, 1, 3, 0},
      {135169, 96, F32, 0, 0, &kCongruent, 2, 3, 0},   {1000000, 65, F32, 0, 0, &kCongruent, 2, 3, 0},
      {1000000, 97, F32, 0, 0, &kCongruent, 1, 4, 0},  {1000000, 65, F32, 1, 0, &kCongruent, 1, 3, 0},
      {1000000, 384, F32, 1, 0, &kMisaligned, 1, 12, 0}, {1000000, 385, F32, 0, 0, &kCongruent, 0, 0, 0},
      {1000000, 100, F32, 0, 0, &kAligned, 0, 0, 0},   {1000000, 100, F32, 0, 0, &kMisaligned, 1, 4, 0},
      {100, 513, F32, 0, 0, &kCongruent, 0, 0, 0},
      /* f32 dense rows up to 4096 rows an SM: two rows a warp from 45 columns, the fused add one
       * row a warp from 49 */
      {540672, 45, F32, 0, 0, &kDenseCongruent, 2, 2, 0}, {540672, 44, F32, 0, 0, &kDenseCongruent, 0, 0, 0},
      {540673, 45, F32, 0, 0, &kDenseCongruent, 0, 0, 0}, {540672, 45, F32, 0, 0, &kCongruent, 0, 0, 0},
      {540672, 49, F32, 1, 0, &kDenseMisaligned, 1, 2, 0}, {540673, 49, F32, 1, 0, &kDenseMisaligned, 0, 0, 0},
      {540672, 48, F32, 1, 0, &kDenseCongruent, 0, 0, 0}, {540672, 49, F32, 1, 0, &kCongruent, 0, 0, 0},
      /* one row, a few rows, N-d rows */
      {1, 255, FUSEDNORM_F16, 0, 0, &kCongruent, 0, 0, 0}, {1, 128, BF, 0, 0, &kCongruent, 1, 4, 0},
      {2, 255, FUSEDNORM_F16, 0, 0, &kCongruent, 1, 8, 0}, {3, 97, F32, 0, 0, &kCongruent, 1, 4, 0},
      {4096, 139, BF, 0, 1, &kCongruent, 0, 0, 0},
  };
  const device *h200 = &kDevices[5];
  size_t i;
  for (i = 0; i < sizeof k / sizeof k[0]; ++i) {
    fusednorm_problem p = prob(k[i].rows, k[i].n, k[i].x, FUSEDNORM_MODE_AUTO);
    fusednorm_launch l;
    char what[160], s[256];
    p.has_residual = k[i].fused;
    if (k[i].nd) p.row_dims = 2, p.row_shape[0] = 2, p.row_shape[1] = k[i].rows / 2;
    snprintf(what, sizeof what, "H200 auto %sfwd %lldx%lld %s a%d c%d%s", k[i].fused ? "fused " : "", (long long)k[i].rows,
             (long long)k[i].n, fusednorm_dtype_name(k[i].x), k[i].lay->aligned16, k[i].lay->congruent16,
             k[i].nd ? " 2-d rows" : "");
    CHECK(fusednorm_select_launch(&p, 0, &h200->d, k[i].lay, &l) == FUSEDNORM_OK, "%s: status", what);
    plan_str(&l, s, sizeof s);
    if (k[i].rw) {
      const int64_t warps = (k[i].rows + k[i].rw - 1) / k[i].rw;
      CHECK(l.kernel == FUSEDNORM_KERNEL_FWD_WARP && l.slots_per_thread == k[i].cols &&
                l.load_elems == (k[i].ve > 1 ? k[i].ve : 1) &&
                l.block_threads == (warps < 4 ? 32 * (int)warps : 128) &&
                l.rows_per_cta == l.block_threads / 32 * k[i].rw && (int64_t)l.grid * l.rows_per_cta >= k[i].rows &&
                (int64_t)(l.grid - 1) * l.rows_per_cta < k[i].rows,
            "%s: %s; expected fwd_warp s%d, %d rows a warp, %d elements a load", what, s, k[i].cols, k[i].rw,
            k[i].ve > 1 ? k[i].ve : 1);
    } else
      CHECK(l.kernel != FUSEDNORM_KERNEL_FWD_WARP, "%s: %s; expected another family", what, s);
    check_plan(&p, 0, k[i].lay, &l, &h200->d, what);
  }
}

/* dw_reduce's CTA shape (launch_config.h fn_dw_reduce_shape) at both edges of each rule: the
 * width past which dw takes 32 columns a CTA, and the partial rows past which narrow dw takes 64
 * slices. */
static void test_dw_reduce_shape(void) {
  static const struct {
    int64_t P, n;
    int cols, slices;
  } k[] = {
      {33, 153, 8, 32},    {512, 1536, 8, 32}, {513, 1536, 8, 64},  {513, 17, 8, 64},
      {2112, 420, 8, 64},  {33, 1537, 32, 32}, {2112, 1537, 32, 32}, {132, 1048576, 32, 32},
  };
  size_t i;
  for (i = 0; i < sizeof k / sizeof k[0]; ++i) {
    int c = 0, s = 0;
    fn_dw_reduce_shape(k[i].P, k[i].n, &c, &s);
    CHECK(c == k[i].cols && s == k[i].slices, "dw_reduce shape P=%lld n=%lld: %d x %d, expected %d x %d",
          (long long)k[i].P, (long long)k[i].n, c, s, k[i].cols, k[i].slices);
  }
}

/* ---- 2. every AUTO plan valid on every device; workspace independent of the layout ---- */

static const int64_t kRows[] = {1, 7, 8, 9, 199, 256, 257, 4096, 1048576, 2147483647LL};
static const int64_t kNs[] = {1, 7, 64, 96, 100, 127, 128, 200, 256, 512, 1000, 1024, 1025, 2880, 4096, 7168, 8192,
                              16384, 16392, 32768, 65536, 262144, 1048576};
#define NROWS ((int)(sizeof kRows / sizeof kRows[0]))
#define NNS ((int)(sizeof kNs / sizeof kNs[0]))

static void test_all_valid(void) {
  int d, r, c, x, bwd, f, w, a;
  for (d = 0; d < NDEV; ++d)
    for (r = 0; r < NROWS; ++r)
      for (c = 0; c < NNS; ++c)
        for (x = 0; x < 3; ++x)
          for (bwd = 0; bwd < 2; ++bwd)
            for (f = 0; f < 2; ++f)
              for (w = 0; w < 2; ++w) {
                fusednorm_launch l[NLAYOUTS];
                for (a = 0; a < NLAYOUTS; ++a) {
                  fusednorm_problem p = prob(kRows[r], kNs[c], (fusednorm_dtype)x, FUSEDNORM_MODE_AUTO);
                  char what[160];
                  fusednorm_status st;
                  p.has_residual = f;
                  p.has_weight = w;
                  st = fusednorm_select_launch(&p, bwd, &kDevices[d].d, kLayouts[a], &l[a]);
                  snprintf(what, sizeof what, "%s auto %s%s %lldx%lld %s w%d a%d", kDevices[d].name, f ? "fused " : "",
                           bwd ? "bwd" : "fwd", (long long)kRows[r], (long long)kNs[c], fusednorm_dtype_name(p.x_dtype), w, a);
                  CHECK(st == FUSEDNORM_OK, "%s: status %d", what, st);
                  if (st != FUSEDNORM_OK) break;
                  check_plan(&p, bwd, kLayouts[a], &l[a], &kDevices[d].d, what);
                  if (bwd) { /* the workspace query serves every layout: the largest plan's */
                    size_t q = 0;
                    CHECK(fusednorm_select_workspace(&p, &kDevices[d].d, &q) == FUSEDNORM_OK && l[a].workspace_bytes <= q,
                          "%s: workspace %zu above the query's %zu", what, l[a].workspace_bytes, q);
                    if (a == 2) /* (the dense layouts plan the backward as the others) */
                      CHECK(q == l[0].workspace_bytes || q == l[1].workspace_bytes || q == l[2].workspace_bytes,
                            "%s: workspace query %zu is no layout's", what, q);
                    if (a >= 3) { /* (the dense layouts' counterparts; sub-vector alignment: congruent rows') */
                      const int b = a <= 5 ? a - 3 : 2;
                      CHECK(l[a].workspace_bytes == l[b].workspace_bytes && l[a].kernel == l[b].kernel,
                            "%s: the dense layout's backward plan differs", what);
                    }
                    /* the layouts differ only where congruent rows take the split-row kernel,
                     * aligned f32 rows the split-row kernel (FN_AUTO_BWD_F32_SPLIT_*),
                     * aligned rows the lean kernel at 8 slots a thread (FN_AUTO_BWD_ROW8_*), or
                     * f32 rows that are not aligned the row-packed one (FN_AUTO_PACKED_BWD2_*) */
                    if (a >= 1 && l[a].kernel != FUSEDNORM_KERNEL_BWD_SPLIT && l[0].kernel != FUSEDNORM_KERNEL_BWD_SPLIT &&
                        (l[a].kernel == FUSEDNORM_KERNEL_BWD_ROW && l[a].slots_per_thread == 8) ==
                            (l[0].kernel == FUSEDNORM_KERNEL_BWD_ROW && l[0].slots_per_thread == 8) &&
                        (l[a].mode == FUSEDNORM_MODE_MULTI_WAVE_RELOAD) ==
                            (l[0].mode == FUSEDNORM_MODE_MULTI_WAVE_RELOAD) &&
                        (l[a].kernel == FUSEDNORM_KERNEL_BWD_PIPE) == (l[0].kernel == FUSEDNORM_KERNEL_BWD_PIPE))
                      CHECK(l[0].workspace_bytes == l[a].workspace_bytes && l[0].partial_rows == l[a].partial_rows,
                            "%s: workspace %zu misaligned vs %zu", what, l[0].workspace_bytes, l[a].workspace_bytes);
                  }
                }
              }
}

/* ---- 3. forced modes: the family, or unsupported exactly where documented ---- */

static void test_forced(void) {
  int d, m, r, c, x, bwd, w, a;
  for (d = 0; d < NDEV; ++d)
    for (m = 1; m < FUSEDNORM_MODE_COUNT_; ++m)
      for (r = 0; r < NROWS; ++r)
        for (c = 0; c < NNS; ++c)
          for (x = 0; x < 3; ++x)
            for (bwd = 0; bwd < 2; ++bwd)
              for (w = 0; w < 2; ++w)
                for (a = 0; a < NLAYOUTS; ++a) {
                  const fusednorm_device_info *dv = &kDevices[d].d;
                  const fusednorm_layout *lay = kLayouts[a];
                  const int al = lay->aligned16, cg = lay->aligned16 || lay->congruent16;
                  fusednorm_problem p = prob(kRows[r], kNs[c], (fusednorm_dtype)x, (fusednorm_mode)m);
                  const int vec = fn_vec_elems(p.x_dtype);
                  const int64_t slots = (p.n + vec - 1) / vec;
                  const int whole_vecs = p.n % vec == 0;
                  fusednorm_launch l;
                  char what[160];
                  fusednorm_status st;
                  int must_run = 0, must_not = 0;
                  p.has_weight = w;
                  st = fusednorm_select_launch(&p, bwd, dv, kLayouts[a], &l);
                  snprintf(what, sizeof what, "%s %s %s %lldx%lld %s w%d a%d", kDevices[d].name,
                           fusednorm_mode_name(p.mode), bwd ? "bwd" : "fwd", (long long)p.rows, (long long)p.n,
                           fusednorm_dtype_name(p.x_dtype), w, a);
                  /* fusednorm.h's limits of each family */
                  switch (p.mode) {
                    case FUSEDNORM_MODE_ROW_PACKED:
                      /* (the backward: f32 up to 64 slots, two a lane) */
                      must_run = (bwd ? slots <= (p.x_dtype == FUSEDNORM_F32 ? 64 : 32) : slots <= 128) ||
                                 tiny_domain(&p, bwd);
                      must_not = !must_run;
                      break;
                    case FUSEDNORM_MODE_PERSISTENT:
                      if (bwd) { /* (congruent: where the weight and dw fit shared memory; 8 slots a
                                    thread: aligned whole vectors, the weight staged, and dw beside
                                    it for 16-bit rows and the fused add) */
                        const int s8 = al && whole_vecs && slots <= 4096;
                        /* (the fp32 weight stage, else for a 16-bit weight of 16-bit rows its raw bits) */
                        const int xs16 = fusednorm_dtype_size(p.x_dtype) == 2;
                        const int64_t s8_dw = xs16 || p.has_residual ? p.n * 4 : 0;
                        const int64_t s8_smem = s8_dw + p.n * (xs16 && p.w_dtype != FUSEDNORM_F32 ? 2 : 4);
                        must_run = al && w && whole_vecs &&
                                   (slots <= 2048 ||
                                    (s8 && s8_smem + FN_STATIC_SMEM_MAX <= (int64_t)dv->smem_per_block_optin));
                        must_not = !(cg && w && (slots <= 2048 || s8));
                      } else {
                        must_run = slots <= 512; /* the row at <= 4 slots per thread in 128 threads */
                        must_not = slots > 2048;
                      }
                      break;
                    case FUSEDNORM_MODE_MULTI_WAVE_CACHED:
                      must_run = !bwd && cg && slots <= 2048; /* aligned, or head-split */
                      must_not = bwd || !cg || slots > 4096;
                      break;
                    case FUSEDNORM_MODE_MULTI_WAVE_RELOAD: must_run = 1; break;
                    case FUSEDNORM_MODE_WIDE: {
                      fn_split_geom g;
                      const int split = bwd && w && fn_split_bwd(p.rows, p.n, p.x_dtype, 1, 0, 0, !al && cg, dv, &g);
                      /* the forward: clusters, else the grid sum where two CTAs keep two vectors
                       * each (n >= 6 vectors always does, n < 3 never); the backward: the
                       * split-row kernel, else clusters */
                      if (bwd) {
                        must_run = split || (dv->cc_major >= 9 && slots >= 2);
                        must_not = !split && (dv->cc_major < 9 || slots < 2);
                      } else if (dv->cc_major >= 9) {
                        must_run = slots >= 2;
                        must_not = slots < 2;
                      } else {
                        must_run = p.n >= 6 * vec;
                        must_not = p.n < 3 * vec;
                      }
                      break;
                    }
                    default: break;
                  }
                  if (must_run) CHECK(st == FUSEDNORM_OK, "%s: status %d, documented to run", what, st);
                  if (must_not) CHECK(st == FUSEDNORM_ERR_MODE_UNSUPPORTED, "%s: status %d, documented unsupported", what, st);
                  CHECK(st == FUSEDNORM_OK || st == FUSEDNORM_ERR_MODE_UNSUPPORTED, "%s: status %d", what, st);
                  if (st == FUSEDNORM_OK) check_plan(&p, bwd, kLayouts[a], &l, dv, what);
                }
}

/* The wide backward without a weight has no workspace for the split-row kernel's partial dots:
 * the cluster kernel runs it from compute capability 9.0, the persistent generic kernel before. */
static void test_wide_no_weight(void) {
  static const int64_t ns[] = {32768, 65536, 1048576};
  int i, d;
  for (d = 0; d < NDEV; ++d)
    for (i = 0; i < 3; ++i) {
      fusednorm_problem p = prob(1024, ns[i], FUSEDNORM_BF16, FUSEDNORM_MODE_AUTO);
      fusednorm_launch l;
      p.has_weight = 0;
      CHECK(fusednorm_select_launch(&p, 1, &kDevices[d].d, &kAligned, &l) == FUSEDNORM_OK, "no weight n %lld",
            (long long)ns[i]);
      if (kDevices[d].d.cc_major >= 9)
        CHECK(l.kernel == FUSEDNORM_KERNEL_BWD_GENERIC && l.cluster >= 2 && l.cluster <= FN_MAX_CLUSTER,
              "%s no weight n %lld: cluster %d", kDevices[d].name, (long long)ns[i], l.cluster);
      else
        CHECK(l.kernel == FUSEDNORM_KERNEL_BWD_GENERIC && l.cluster == 1 && l.block_threads == 1024,
              "%s no weight n %lld: cluster %d", kDevices[d].name, (long long)ns[i], l.cluster);
    }
}

/* AUTO's forward takes the lean kernel where it can run: the aligned instance on rows and weight
 * 16-byte aligned with n a multiple of the vector width, the head-split one on other congruent
 * rows; otherwise the rules for misaligned rows (H200). `aligned` indexes kLayouts. */
static void test_alignment(void) {
  static const struct {
    int64_t rows, n;
    fusednorm_dtype x;
    int fused, aligned;
    fusednorm_kernel kernel;
    int slots;
  } cases[] = {
      {16384, 4096, BF, 0, 1, FUSEDNORM_KERNEL_FWD_ROW, 4},
      {16384, 4096, BF, 0, 0, FUSEDNORM_KERNEL_FWD_GENERIC, 0}, /* reload */
      {16384, 4100, BF, 0, 1, FUSEDNORM_KERNEL_FWD_ROW, 4},     /* n % 8 != 0: the tail alone */
      {16384, 4096, BF, 0, 2, FUSEDNORM_KERNEL_FWD_ROW, 4},     /* congruent: head-split */
      {4000, 2881, BF, 0, 2, FUSEDNORM_KERNEL_FWD_ROW, 4},
      {4000, 2881, BF, 0, 0, FUSEDNORM_KERNEL_FWD_GENERIC, 0},  /* not congruent: reload */
      {8192, 16384, BF, 0, 0, FUSEDNORM_KERNEL_FWD_GENERIC, 4}, /* beyond reload: persistent */
      {8192, 16384, BF, 1, 0, FUSEDNORM_KERNEL_FWD_GENERIC, 0},
      {131072, 512, BF, 1, 0, FUSEDNORM_KERNEL_FWD_PIPE, 1},
      {65536, 1024, BF, 0, 0, FUSEDNORM_KERNEL_FWD_PIPE, 2},
      {65536, 1022, F32, 0, 1, FUSEDNORM_KERNEL_FWD_ROW, 4},    /* n % 4 != 0: the tail alone */
      {65536, 1022, F32, 0, 0, FUSEDNORM_KERNEL_FWD_GENERIC, 0}, /* not congruent: reload */
      {1048576, 128, BF, 0, 0, FUSEDNORM_KERNEL_FWD_PIPE, 1}, /* narrow rows: any layout, */
      {1048576, 128, BF, 0, 2, FUSEDNORM_KERNEL_FWD_PIPE, 1},
      {1048576, 128, BF, 0, 1, FUSEDNORM_KERNEL_FWD_LANES, 1}, /* aligned rows of whole vectors */
      {1048576, 124, BF, 0, 1, FUSEDNORM_KERNEL_FWD_WARP, 1}, /* n % 8 != 0: 8-byte loads, a warp two rows */
      {65536, 96, BF, 1, 1, FUSEDNORM_KERNEL_FWD_LANES, 1},
      /* congruent 16-bit rows of up to 4096 slots: the lean head-split forward at 1024 threads;
       * past what it holds (plain past 4096 slots, the 16-bit fused add past 16384 columns) with
       * more rows than SMs the wide forward's head-split path (fwd_wide_hs_pays), the f32 fused
       * add the generic forward's (its plan's `unaligned`); element by element where the rows
       * are not congruent; fewer rows than SMs: the wide forward's head-split path */
      {4096, 20001, BF, 0, 2, FUSEDNORM_KERNEL_FWD_ROW, 4},
      {4096, 20001, BF, 1, 2, FUSEDNORM_KERNEL_FWD_WIDE, 2},
      {4096, 20001, BF, 0, 0, FUSEDNORM_KERNEL_FWD_GENERIC, 2},
      {288, 32390, FUSEDNORM_F16, 0, 2, FUSEDNORM_KERNEL_FWD_ROW, 4},
      {288, 40003, FUSEDNORM_F16, 0, 2, FUSEDNORM_KERNEL_FWD_WIDE, 2},
      {1024, 20001, F32, 0, 2, FUSEDNORM_KERNEL_FWD_WIDE, 2},
      {1024, 10001, F32, 1, 2, FUSEDNORM_KERNEL_FWD_GENERIC, 2},
      {20, 1025354, FUSEDNORM_F16, 0, 2, FUSEDNORM_KERNEL_FWD_WIDE, 2},
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    fusednorm_problem p = prob(cases[i].rows, cases[i].n, cases[i].x, FUSEDNORM_MODE_AUTO);
    const fusednorm_layout *lay = kLayouts[cases[i].aligned];
    fusednorm_launch l;
    char what[96], s[256];
    p.has_residual = cases[i].fused;
    snprintf(what, sizeof what, "auto%s fwd %lldx%lld %s aligned=%d", cases[i].fused ? " fused" : "",
             (long long)p.rows, (long long)p.n, fusednorm_dtype_name(p.x_dtype), cases[i].aligned);
    CHECK(fusednorm_select_launch(&p, 0, &kDevices[5].d, lay, &l) == FUSEDNORM_OK, "%s", what);
    plan_str(&l, s, sizeof s);
    CHECK(l.kernel == cases[i].kernel && l.slots_per_thread == cases[i].slots, "%s: %s", what, s);
    if (l.kernel == FUSEDNORM_KERNEL_FWD_GENERIC || l.kernel == FUSEDNORM_KERNEL_FWD_WIDE)
      CHECK(l.unaligned == (cases[i].aligned == 2), "%s: head-split path: %s", what, s);
    check_plan(&p, 0, lay, &l, &kDevices[5].d, what);
  }
}

/* fusednorm_layout.dense: rows back to back in every row tensor the launch touches (strides of
 * n, N-d strides of a contiguous block, a stride never stepped by one row), nothing else. */
static void test_density(void) {
  fusednorm_problem p = prob(10, 15, FUSEDNORM_BF16, FUSEDNORM_MODE_AUTO);
  fusednorm_fwd_args fa;
  fusednorm_bwd_args ba;
  fusednorm_layout lay;
  memset(&fa, 0, sizeof fa);
  memset(&ba, 0, sizeof ba);
  fa.x = (const void *)(uintptr_t)4096, fa.x_stride = 15, fa.y = (void *)(uintptr_t)8192, fa.y_stride = 15;
  fa.weight = (const void *)(uintptr_t)16384;
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && lay.dense, "dense forward");
  fa.y_stride = 16;
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && !lay.dense, "y padded: not dense");
  p.rows = 1;
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && lay.dense, "one row: any stride");
  p.rows = 10, fa.y_stride = 15, p.has_residual = 1;
  fa.residual = (const void *)(uintptr_t)32768, fa.residual_stride = 15;
  fa.residual_out = (void *)(uintptr_t)65536, fa.residual_out_stride = 30; /* a column slice */
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && !lay.dense, "residual_out a slice");
  fa.residual_out_stride = 15;
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && lay.dense, "dense fused forward");
  /* N-d: [2, 5] leading dims contiguous (outer stride 5 n), then a transposed view, then a dim of
   * size 1 whose stride is never stepped */
  p.row_dims = 2, p.row_shape[0] = 2, p.row_shape[1] = 5;
  fa.x_outer[0] = fa.y_outer[0] = fa.residual_outer[0] = fa.residual_out_outer[0] = 75;
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && lay.dense, "N-d contiguous");
  fa.x_stride = 30, fa.x_outer[0] = 15; /* [5, 2] storage seen as [2, 5] */
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && !lay.dense, "N-d transposed");
  fa.x_stride = 15, fa.x_outer[0] = 75;
  p.row_shape[0] = 1, p.row_shape[1] = 10, fa.y_outer[0] = 7;
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && lay.dense, "N-d size-1 dim");
  /* backward: dy, s, dx and (fused) ds */
  p = prob(10, 15, FUSEDNORM_BF16, FUSEDNORM_MODE_AUTO);
  ba.dy = fa.x, ba.dy_stride = 15, ba.s = fa.y, ba.s_stride = 15, ba.dx = fa.residual_out, ba.dx_stride = 15;
  ba.ds = fa.residual, ba.ds_stride = 17;
  CHECK(fusednorm_backward_layout(&p, &ba, &lay) == FUSEDNORM_OK && lay.dense, "dense backward, ds not read");
  p.has_residual = 1;
  CHECK(fusednorm_backward_layout(&p, &ba, &lay) == FUSEDNORM_OK && !lay.dense, "ds padded");
}

/* fusednorm_layout.align_bytes from made-up addresses: the largest of 16, 8, 4, 2, 1 dividing every
 * row start (each tensor's base and every stride a row index steps by) and the weight's address,
 * capped at the rows' element size by a weight of another dtype; the backward's the same way. */
static void test_align_bytes(void) {
  fusednorm_problem p = prob(10, 140, FUSEDNORM_BF16, FUSEDNORM_MODE_AUTO);
  fusednorm_fwd_args fa;
  fusednorm_bwd_args ba;
  fusednorm_layout lay;
  memset(&fa, 0, sizeof fa);
  memset(&ba, 0, sizeof ba);
  fa.x = (const void *)(uintptr_t)4096, fa.x_stride = 140, fa.y = (void *)(uintptr_t)8192, fa.y_stride = 140;
  fa.weight = (const void *)(uintptr_t)16384;
#define ALIGN_IS(want, text) \
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && lay.align_bytes == (want), "%s: align_bytes %d, expected %d", \
        text, lay.align_bytes, want)
  ALIGN_IS(8, "280-byte rows");
  fa.y_stride = 144;
  ALIGN_IS(8, "y's rows 288 bytes apart");
  fa.y_stride = 142;
  ALIGN_IS(4, "y's rows 284 bytes apart");
  fa.y_stride = 140, fa.weight = (const void *)(uintptr_t)16388;
  ALIGN_IS(4, "the weight at 4 bytes past 16");
  fa.weight = (const void *)(uintptr_t)16386;
  ALIGN_IS(2, "the weight at 2 bytes past 16");
  fa.weight = (const void *)(uintptr_t)16384, p.w_dtype = FUSEDNORM_F32;
  ALIGN_IS(2, "an f32 weight with bf16 rows");
  p.w_dtype = FUSEDNORM_BF16, p.has_weight = 0, fa.weight = NULL;
  ALIGN_IS(8, "no weight");
  p.has_weight = 1, fa.weight = (const void *)(uintptr_t)16384, fa.x = (const void *)(uintptr_t)4100;
  ALIGN_IS(4, "x at 4 bytes past 16");
  fa.x = (const void *)(uintptr_t)4096, fa.x_stride = fa.y_stride = 144;
  ALIGN_IS(16, "rows 288 bytes apart");
  p.rows = 1, fa.x_stride = 141;
  ALIGN_IS(16, "one row: its stride never stepped");
  p.rows = 10, fa.x_stride = 144, p.has_residual = 1, fa.residual = (const void *)(uintptr_t)32768, fa.residual_stride = 144;
  fa.residual_out = (void *)(uintptr_t)65538, fa.residual_out_stride = 144;
  ALIGN_IS(2, "residual_out at 2 bytes past 16");
  fa.residual_out = (void *)(uintptr_t)65536, fa.residual_out_stride = 146;
  ALIGN_IS(4, "residual_out's rows 292 bytes apart");
  /* N-d: a leading dim of 2 whose stride (in elements) is 142: its step is 284 bytes */
  fa.residual_out_stride = 144, fa.x_stride = 144;
  p.row_dims = 2, p.row_shape[0] = 2, p.row_shape[1] = 5;
  fa.x_outer[0] = 142, fa.y_outer[0] = fa.residual_outer[0] = fa.residual_out_outer[0] = 720;
  ALIGN_IS(4, "N-d: x's outer step 284 bytes");
  p.row_shape[0] = 1;
  ALIGN_IS(16, "N-d: a dim of size 1 is never stepped");
#undef ALIGN_IS
  /* backward: dy, s, dx and (fused) ds */
  p = prob(10, 140, FUSEDNORM_BF16, FUSEDNORM_MODE_AUTO);
  ba.dy = (const void *)(uintptr_t)4096, ba.dy_stride = 140, ba.s = (const void *)(uintptr_t)8192, ba.s_stride = 140;
  ba.dx = (void *)(uintptr_t)12288, ba.dx_stride = 140, ba.weight = (const void *)(uintptr_t)16384;
  ba.ds = (const void *)(uintptr_t)20482, ba.ds_stride = 140;
  CHECK(fusednorm_backward_layout(&p, &ba, &lay) == FUSEDNORM_OK && lay.align_bytes == 8, "backward: %d, expected 8 (ds not read)",
        lay.align_bytes);
  p.has_residual = 1;
  CHECK(fusednorm_backward_layout(&p, &ba, &lay) == FUSEDNORM_OK && lay.align_bytes == 2, "backward, ds at 2 bytes past 16: %d",
        lay.align_bytes);
}

/* The wide forward's clusters against the H200's resident clusters (H200_CLUSTERS): 16 rows of
 * 215344 bf16 at 16 CTAs a row are 16 clusters where 14 are resident at two CTAs an SM (two
 * waves: 18.7 us, against 16.0 at 8 CTAs a row, H200 2026-11-29), so the plan takes 8; without
 * the figures it counts 264 resident CTAs and takes 16. Over few-row shapes, a plan leaves a
 * second wave less than a third full only where one wave would stream more than 1/8 of a plain
 * row's chunk (select.c fwd_wide), by the test's own count of CTAs an SM.
 * Figures above what the SMs hold, or negative, are rejected. */
static void test_cluster_capacity(void) {
  const fusednorm_device_info *h200 = &kDevices[5].d;
  fusednorm_device_info blind = *h200, bad = *h200;
  fusednorm_launch l;
  fusednorm_problem p = prob(16, 215344, BF, FUSEDNORM_MODE_AUTO);
  static const int rows[] = {1, 2, 3, 4, 6, 8, 12, 14, 15, 16, 17, 24, 31, 32, 33, 48, 64, 100};
  static const int64_t ns[] = {32768, 65536, 98304, 131072, 215344, 262144, 524288, 1048576};
  memset(blind.max_clusters, 0, sizeof blind.max_clusters);
  CHECK(fusednorm_select_launch(&p, 0, h200, &kAligned, &l) == FUSEDNORM_OK && l.kernel == FUSEDNORM_KERNEL_FWD_WIDE &&
            l.cluster == 8 && l.grid == 128,
        "H200 16x215344 bf16: cluster %d grid %lld, want 8 and 128", l.cluster, (long long)l.grid);
  CHECK(fusednorm_select_launch(&p, 0, &blind, &kAligned, &l) == FUSEDNORM_OK && l.kernel == FUSEDNORM_KERNEL_FWD_WIDE &&
            l.cluster == 16 && l.grid == 256,
        "H200 without cluster figures 16x215344 bf16: cluster %d grid %lld, want 16 and 256", l.cluster, (long long)l.grid);
  /* 128-thread CTAs fit 8 an SM, so 16 clusters of 16 are resident: 16 x 65536 keeps 16 a row;
   * but the rows are spread only within two CTAs an SM: 24 x 65536 at 8 a row, not 16 */
  p = prob(16, 65536, BF, FUSEDNORM_MODE_AUTO);
  CHECK(fusednorm_select_launch(&p, 0, h200, &kAligned, &l) == FUSEDNORM_OK && l.kernel == FUSEDNORM_KERNEL_FWD_WIDE &&
            l.cluster == 16 && l.block_threads == 128,
        "H200 16x65536 bf16: cluster %d threads %d, want 16 and 128", l.cluster, l.block_threads);
  p = prob(24, 65536, BF, FUSEDNORM_MODE_AUTO);
  CHECK(fusednorm_select_launch(&p, 0, h200, &kAligned, &l) == FUSEDNORM_OK && l.kernel == FUSEDNORM_KERNEL_FWD_WIDE &&
            l.cluster == 8,
        "H200 24x65536 bf16: cluster %d, want 8", l.cluster);
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r)
    for (size_t j = 0; j < sizeof ns / sizeof ns[0]; ++j)
      for (int v = 0; v < 3; ++v) {
        char what[96];
        p = prob(rows[r], ns[j], v == 1 ? F32 : BF, FUSEDNORM_MODE_AUTO);
        p.has_residual = v == 2;
        snprintf(what, sizeof what, "H200 %dx%lld %s%s", rows[r], (long long)ns[j], v == 1 ? "f32" : "bf16",
                 v == 2 ? " fused" : "");
        if (fusednorm_select_launch(&p, 0, h200, &kAligned, &l) != FUSEDNORM_OK) {
          CHECK(0, "%s: no plan", what);
          continue;
        }
        /* (not the plan with every slot staged, test_wide_fwd_wr: its CTAs are one row-chunk each,
         * so a second wave is one short CTA's time; 140 x 65536 bf16, 560 CTAs on 496 resident,
         * measured 1.16x the one-wave plan) */
        if (l.kernel != FUSEDNORM_KERNEL_FWD_WIDE || l.cluster < 2 || l.slots_per_thread == 0) continue;
        /* CTAs an SM: threads, 64 registers (the launch bound), shared memory with the reserve */
        int per = FN_FWD_WIDE_MAX_THREADS * 2 / l.block_threads;
        if ((int64_t)per * ((int64_t)l.smem_bytes + FN_SMEM_RESERVE_PER_CTA) > (int64_t)h200->smem_per_sm)
          per = (int)((int64_t)h200->smem_per_sm / ((int64_t)l.smem_bytes + FN_SMEM_RESERVE_PER_CTA));
        if (per > 16) per = 16;
        int k = 0;
        while ((2 << k) < l.cluster) ++k;
        const int64_t res = (int64_t)h200->max_clusters[(per < 4 ? per : 4) - 1][k] * (per > 4 ? per : 4) / 4 * l.cluster;
        /* a second wave under a third full only where half the cluster would stream more than
         * 1/8 of a plain row's chunk: its CTAs (512 threads) hold 4 slots a thread (aligned rows)
         * and what half the SM's shared memory stages */
        const int64_t holds = (int64_t)FN_FWD_WIDE_MAX_THREADS * (4 + fn_fwd_wide_stage_per_thread(h200, FN_FWD_WIDE_MAX_THREADS, 16));
        const int64_t half_chunk = (ns[j] / fn_vec_elems(p.x_dtype) + l.cluster / 2 - 1) / (l.cluster / 2);
        CHECK(l.grid <= res || 3 * l.grid >= 4 * res || (v != 2 && 8 * holds < 7 * half_chunk),
              "%s: %lld CTAs in clusters of %d, %lld resident (%d an SM): a second wave under a third full",
              what, (long long)l.grid, l.cluster, (long long)res, per);
      }
  p = prob(16, 215344, BF, FUSEDNORM_MODE_AUTO);
  bad.max_clusters[1][3] = 17; /* 17 x 16 CTAs > 132 SMs x 2 */
  CHECK(fusednorm_select_launch(&p, 0, &bad, &kAligned, &l) == FUSEDNORM_ERR_NO_DEVICE, "clusters beyond the SMs accepted");
  bad = *h200;
  bad.max_clusters[0][0] = -1;
  CHECK(fusednorm_select_launch(&p, 0, &bad, &kAligned, &l) == FUSEDNORM_ERR_NO_DEVICE, "a negative cluster count accepted");
}

static void test_bad_args(void) {
  fusednorm_problem p = prob(10, 100, FUSEDNORM_BF16, FUSEDNORM_MODE_AUTO);
  fusednorm_launch l;
  const fusednorm_device_info *h200 = &kDevices[5].d;
  fusednorm_device_info bad = *h200;
  fusednorm_layout lay;
  fusednorm_fwd_args fa;
  CHECK(fusednorm_select_launch(NULL, 0, h200, &kAligned, &l) == FUSEDNORM_ERR_NULL_POINTER, "null problem");
  CHECK(fusednorm_select_launch(&p, 0, NULL, &kAligned, &l) == FUSEDNORM_ERR_NULL_POINTER, "null device");
  CHECK(fusednorm_select_launch(&p, 0, h200, NULL, &l) == FUSEDNORM_ERR_NULL_POINTER, "null layout");
  CHECK(fusednorm_select_launch(&p, 0, h200, &kAligned, NULL) == FUSEDNORM_ERR_NULL_POINTER, "null out");
  bad.sm_count = 0;
  CHECK(fusednorm_select_launch(&p, 0, &bad, &kAligned, &l) == FUSEDNORM_ERR_NO_DEVICE, "no SMs");
  bad = *h200;
  bad.max_ctas_per_sm = 0;
  CHECK(fusednorm_select_launch(&p, 0, &bad, &kAligned, &l) == FUSEDNORM_ERR_NO_DEVICE, "no CTAs per SM");
  bad = *h200;
  bad.smem_per_block_optin = bad.smem_per_sm + 1;
  CHECK(fusednorm_select_launch(&p, 0, &bad, &kAligned, &l) == FUSEDNORM_ERR_NO_DEVICE, "opt-in above the SM");
  p.mode = (fusednorm_mode)99;
  CHECK(fusednorm_select_launch(&p, 0, h200, &kAligned, &l) == FUSEDNORM_ERR_BAD_MODE, "bad mode");
  p.mode = FUSEDNORM_MODE_AUTO;
  p.n = 0;
  CHECK(fusednorm_select_launch(&p, 0, h200, &kAligned, &l) == FUSEDNORM_ERR_BAD_SHAPE, "n = 0");
  p.n = (int64_t)INT_MAX;
  CHECK(fusednorm_select_launch(&p, 0, h200, &kAligned, &l) == FUSEDNORM_ERR_MODE_UNSUPPORTED, "n >= 2^31 - 2^16");
  CHECK(fusednorm_kernel_name(FUSEDNORM_KERNEL_COUNT_) == NULL && fusednorm_kernel_name(FUSEDNORM_KERNEL_BWD_SPLIT) != NULL &&
            fusednorm_kernel_name(FUSEDNORM_KERNEL_FWD_WIDE) != NULL,
        "kernel names");
  /* layouts: a pointer or a stride off 16 bytes, the weight included, the same in both directions */
  p = prob(10, 64, FUSEDNORM_BF16, FUSEDNORM_MODE_AUTO);
  memset(&fa, 0, sizeof fa);
  fa.x = (const void *)(uintptr_t)4096, fa.x_stride = 64, fa.y = (void *)(uintptr_t)8192, fa.y_stride = 64;
  fa.weight = (const void *)(uintptr_t)16384;
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && lay.aligned16 == 1, "aligned forward");
  fa.y_stride = 65;
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && lay.aligned16 == 0, "stride off 16 bytes");
  fa.y_stride = 64, fa.weight = (const void *)(uintptr_t)16386;
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && lay.aligned16 == 0, "weight off 16 bytes");
  p.has_weight = 0;
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && lay.aligned16 == 1, "no weight: not read");
  {
    fusednorm_bwd_args ba;
    memset(&ba, 0, sizeof ba);
    ba.dy = fa.x, ba.dy_stride = 64, ba.s = fa.x, ba.s_stride = 64, ba.dx = fa.y, ba.dx_stride = 64;
    ba.ds = (const void *)(uintptr_t)2, ba.ds_stride = 64; /* ignored without the fused add */
    CHECK(fusednorm_backward_layout(&p, &ba, &lay) == FUSEDNORM_OK && lay.aligned16 == 1, "aligned backward");
    p.has_residual = 1;
    CHECK(fusednorm_backward_layout(&p, &ba, &lay) == FUSEDNORM_OK && lay.aligned16 == 0, "ds off 16 bytes");
    CHECK(fusednorm_backward_layout(&p, NULL, &lay) == FUSEDNORM_ERR_NULL_POINTER, "null args");
    ba.ds = (const void *)(uintptr_t)(4096 + 32), ba.ds_stride = 64;
    CHECK(fusednorm_backward_layout(&p, &ba, &lay) == FUSEDNORM_OK && lay.aligned16 && lay.congruent16, "aligned ds");
    /* congruent: every row tensor 6 bytes off and strides of 2881 elements (5762 bytes) */
    ba.dy = (const void *)(uintptr_t)(4096 + 6), ba.s = (const void *)(uintptr_t)(65536 + 6);
    ba.dx = (void *)(uintptr_t)(8192 + 6), ba.ds = (const void *)(uintptr_t)(16384 + 6);
    ba.dy_stride = ba.s_stride = ba.dx_stride = 2881, ba.ds_stride = 2881 + 8;
    CHECK(fusednorm_backward_layout(&p, &ba, &lay) == FUSEDNORM_OK && !lay.aligned16 && lay.congruent16,
          "congruent backward");
    ba.ds_stride = 2882;
    CHECK(fusednorm_backward_layout(&p, &ba, &lay) == FUSEDNORM_OK && !lay.congruent16, "ds stride not congruent");
    ba.ds_stride = 2881, ba.ds = (const void *)(uintptr_t)(16384 + 8);
    CHECK(fusednorm_backward_layout(&p, &ba, &lay) == FUSEDNORM_OK && !lay.congruent16, "ds base not congruent");
    p.has_residual = 0; /* ds not read */
    CHECK(fusednorm_backward_layout(&p, &ba, &lay) == FUSEDNORM_OK && lay.congruent16, "ds ignored unfused");
    ba.weight = (const void *)(uintptr_t)(32768 + 2); /* the weight may lie anywhere element-aligned */
    p.has_weight = 1;
    CHECK(fusednorm_backward_layout(&p, &ba, &lay) == FUSEDNORM_OK && lay.congruent16 && !lay.aligned16, "weight");
    ba.weight = (const void *)(uintptr_t)(32768 + 1);
    CHECK(fusednorm_backward_layout(&p, &ba, &lay) == FUSEDNORM_OK && !lay.congruent16, "weight not element-aligned");
  }
  /* forward: an odd element offset shared by x and y (congruent), y one element further (not) */
  p = prob(10, 2887, FUSEDNORM_BF16, FUSEDNORM_MODE_AUTO);
  fa.x = (const void *)(uintptr_t)(4096 + 2), fa.x_stride = 2887, fa.y = (void *)(uintptr_t)(8192 + 2), fa.y_stride = 2887;
  fa.weight = (const void *)(uintptr_t)16384;
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && !lay.aligned16 && lay.congruent16, "congruent forward");
  fa.y = (void *)(uintptr_t)(8192 + 4);
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && !lay.congruent16, "y base not congruent");
  fa.y = (void *)(uintptr_t)(8192 + 2), fa.residual = fa.x, fa.residual_stride = 2887;
  fa.residual_out = (void *)(uintptr_t)(65536 + 2), fa.residual_out_stride = 2887 + 16;
  p.has_residual = 1;
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && lay.congruent16, "congruent fused forward");
  fa.residual_out = (void *)(uintptr_t)(65536 + 3);
  CHECK(fusednorm_forward_layout(&p, &fa, &lay) == FUSEDNORM_OK && !lay.congruent16, "odd byte address");
  test_density();
}

int main(int argc, char **argv) {
  /* --print: the current plans in kPins' format, to review and pin a deliberate change. */
  const int print = argc > 1 && !strcmp(argv[1], "--print");
  if (argc > 1 && !print) {
    fprintf(stderr, "usage: %s [--print]\n", argv[0]);
    return 2;
  }
  test_pinned(print);
  test_h200(print);
  test_narrow_pinned(print);
  if (print) return 0;
  test_measured_picks();
  test_measured_picks_h200();
  test_few_rows_forward();
  test_tile_forward();
  test_mid_forward();
  test_lanes_forward();
  test_fwd_row8();
  test_tiny_picks();
  test_dw_in_kernel_picks();
  test_dw_reduce_shape();
  test_align_bytes();
  test_warp_picks();
  test_wide_fwd_picks();
  test_wide_fwd_stage();
  test_wide_fwd_weight();
  test_wide_fwd_wr();
  test_wide_fwd_wr_mid();
  test_wide_many_rows();
  test_wide_grid_picks();
  test_warp_bwd();
  test_bwd_row_grid();
  test_split16_bwd();
  test_f32_split_bwd();
  test_row8_stage();
  test_split_chunk();
  test_all_valid();
  test_forced();
  test_wide_no_weight();
  test_alignment();
  test_bad_args();
  test_cluster_capacity();
  printf("test_select: %s (%d failure%s)\n", failures ? "FAILED" : "OK", failures, failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}
