/*
 * launch_config.h — the facts about the compiled kernels that the pure selection heuristic
 * (kernels/src/select.c, plain C) and the CUDA launchers (kernels/cuda/ files) must agree on.
 *
 * A kernel instance is (x dtype) x (register-cache size CACHE): each thread of a "team" owns the
 * 16-byte vector slots k*team + lane (k < CACHE) of its row chunk and keeps them in registers
 * between the reduction and the normalize pass; slots beyond team*CACHE are streamed (read
 * twice, the second time from L2). CACHE = 0 is the pure reload variant. Everything else (team
 * size, rows per CTA, cluster size, fused add, weight, casting, alignment) is a run-time argument,
 * so the generic family is 3 x 5 instances per direction. Beside it, specialised families with
 * some of those arguments as template flags: the row-pipelined forward and row-packed backward
 * (rmsnorm_fwd.cu, rmsnorm_bwd.cu), the split-row wide backward (rmsnorm_bwd_wide.cu), and the
 * lean kernels for aligned, fully cached rows (rmsnorm_fwd_row.cu, rmsnorm_bwd_row.cu).
 */
#ifndef FUSEDNORM_CUDA_LAUNCH_CONFIG_H_
#define FUSEDNORM_CUDA_LAUNCH_CONFIG_H_

#include "kernels/include/fusednorm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Register-cache sizes that exist as template instances (index = position in the table). */
#define FN_NUM_CACHE 5
static const int fn_cache_sizes[FN_NUM_CACHE] = {0, 1, 2, 4, 8};

/* __launch_bounds__ per (direction, cache size). They cap the registers per thread at
 * 65536 / threads; with these bounds ptxas (nvcc 13.0, sm_90a) reports no spills (kernels/RESULTS.md).
 * Every configuration caches at most 2048 slots per CTA (threads x CACHE). */
#define FN_MAX_THREADS(backward, cache) \
  ((cache) <= 1 ? 1024 : (cache) == 2 ? ((backward) ? 512 : 1024) : (cache) == 4 ? 512 : 256)
static inline int fn_max_threads(int backward, int cache) { return FN_MAX_THREADS(backward, cache); }

/* Register cap of the backward CACHE 2 instance (rmsnorm_bwd.cu: __maxnreg__, below its launch
 * bound; spill-free under ptxas, nvcc 13.0, sm_90a). */
#define FN_BWD_C2_REGS 96

/* Registers per thread reported by ptxas (nvcc 13.0, sm_90a; the .ptxas logs of
 * kernels/cuda/dev/build.sh), used to size the persistent grid (resident CTAs per SM). Update
 * with the kernels; a stale value costs a partial second wave or an idle slot, not correctness. */
static inline int fn_regs_estimate(int backward, int cache, int x_size) {
  /* index: cache 0, 1, 2, 4, 8 */
  static const int regs[2][2][FN_NUM_CACHE] = {
      {{45, 64, 62, 94, 236}, {32, 50, 63, 64, 173}},    /* forward: 16-bit x, f32 x */
      {{63, 64, FN_BWD_C2_REGS, 128, 226}, {54, 62, FN_BWD_C2_REGS, 128, 191}}, /* backward */
  };
  int i = cache <= 2 ? cache : cache == 4 ? 3 : 4;
  return regs[backward ? 1 : 0][x_size == 4 ? 1 : 0][i];
}

/* Registers of the row-pipelined forward (rmsnorm_fwd.cu rms_norm_fwd_pipe; ptxas, nvcc 13.0,
 * sm_90a), by cache size 1, 2, 4: plain / fused add, 16-bit / f32 x. (An instance for aligned
 * rows without the element-wise fallback was tried: H200 2026-11-22 04:38 UTC, bench_modes, bf16
 * row-packed 1048576 x 128 3572 -> 3439 GB/s, 262144 x 256 3383 -> 3259, 65536 x 128 1859 ->
 * 1949, fused add within 1%: no consistent gain, dropped.) */
static inline int fn_regs_estimate_fwd_pipe(int cache, int x_size, int fused) {
  static const int regs[2][2][3] = {
      {{32, 58, 74}, {30, 53, 64}},   /* plain: 16-bit x, f32 x */
      {{56, 64, 128}, {40, 60, 107}}, /* fused add */
  };
  int i = cache <= 1 ? 0 : cache == 2 ? 1 : 2;
  return regs[fused ? 1 : 0][x_size == 4 ? 1 : 0][i];
}

/* The row-pipelined forward's dynamic shared memory: the fp32 effective weight, padded to whole
 * vectors; and its launch bound. */
static inline int64_t fn_fwd_pipe_smem(int64_t n, int vec) { return (n + vec - 1) / vec * vec * 4; }
#define FN_FWD_PIPE_MAX_THREADS(cache, fused) ((cache) <= 1 ? 1024 : (cache) == 2 && !(fused) ? 1024 : 512)

/* Does the forward launch run the row-pipelined kernel? The persistent and row-packed modes (a
 * team visits several rows) without a cluster, with the whole row in a register cache of 1, 2 or
 * 4 slots per thread. The launcher and select.c both ask (fn_launch_regs), so they size the grid
 * alike. */
static inline int fn_fwd_pipelined(fusednorm_mode mode, int cluster, int cache, int team, int64_t slots,
                                   int fused, int x_size) {
  return (mode == FUSEDNORM_MODE_PERSISTENT || mode == FUSEDNORM_MODE_ROW_PACKED) && cluster <= 1 &&
         (cache == 1 || cache == 2 || cache == 4) && (int64_t)cache * team >= slots &&
         team <= FN_FWD_PIPE_MAX_THREADS(cache, fused) &&
         /* At least two CTAs per SM (64K registers): with one, a CTA's barrier leaves the SM
          * without loads in flight, and the plain kernel's shared-memory row pipelining is the
          * better choice (H200, 2026-11-22 02:53 UTC, bench_modes bf16 fwd 4096 x 16384,
          * 512 x 4 slots: 73-register pipelined 2100 vs 2712 GB/s; f32 8192 x 8192, 64
          * registers, two CTAs: 3351 vs 3257). */
         2 * team * ((fn_regs_estimate_fwd_pipe(cache, x_size, fused) + 7) / 8 * 8) <= 65536;
}

/* The lean one-row-per-CTA forward (rmsnorm_fwd_row.cu): launch bound per slots per thread S,
 * fused add and 4-byte weight (w32). Spill-free under ptxas (nvcc 13.0, sm_90a): S = 4 without
 * the fused add and with a 16-bit weight fits 1024 threads (64 registers; 16-bit n <= 32768 in
 * one CTA; f32 x with an f32 weight too, 57 registers), the fused add or a 16-bit x with an fp32
 * weight does not (24-80 bytes of spills), so 512 there. `w32`: a 4-byte weight; `xsize`: bytes
 * per x element. */
#define FN_FWD_ROW_MAX_THREADS(s, fused, w32, xsize) \
  ((s) <= 2 || (!(fused) && (!(w32) || (xsize) == 4)) ? 1024 : 512)
/* Slots per thread of the lean forward for a row of `slots` vector slots over `team` threads:
 * the smallest S in {1, 2, 4} that holds the whole row within the launch bound, else 0. (No
 * S = 8: 101-172 registers, and 4 per thread at up to 1024 threads already covers what AUTO
 * gives it.) */
static inline int fn_fwd_row_cache(int64_t slots, int team, int fused, int w32, int xsize) {
  int s;
  for (s = 1; s <= 4; s *= 2)
    if ((int64_t)s * team >= slots && team <= FN_FWD_ROW_MAX_THREADS(s, fused, w32, xsize)) return s;
  return 0;
}
/* Does the forward launch run the lean kernel? The multi-wave cached mode (one CTA per row) when
 * the rows and the weight are 16-byte aligned (`aligned`: the launcher's run-time check of every
 * pointer and stride), n is a multiple of the vector width and the whole row fits the registers.
 * Its grid is one CTA per row, so its registers do not size anything in select.c. */
static inline int fn_fwd_row(fusednorm_mode mode, int cluster, int rows_per_cta, int team, int64_t n, int vec,
                             int fused, int w32, int aligned) {
  return mode == FUSEDNORM_MODE_MULTI_WAVE_CACHED && cluster <= 1 && rows_per_cta <= 1 && aligned &&
         n % vec == 0 && fn_fwd_row_cache(n / vec, team, fused, w32, vec == 4 ? 4 : 2) > 0;
}

/* Does the backward launch run the lean kernel (rmsnorm_bwd_row.cu)? One row per CTA at a time
 * (persistent or multi-wave cached, no cluster, one team), every column in the register cache of
 * 1, 2 or 4 slots, the weight staged in shared memory (`w_smem`: the launcher found room for it),
 * aligned rows and n a multiple of the vector width. Same grid as the generic kernel it replaces:
 * its registers stay within fn_regs_estimate's (kernels/RESULTS.md, session 3). */
static inline int fn_bwd_row(fusednorm_mode mode, int cluster, int rows_per_cta, int cache, int64_t n, int vec,
                             int w_smem, int aligned) {
  return (mode == FUSEDNORM_MODE_PERSISTENT || mode == FUSEDNORM_MODE_MULTI_WAVE_CACHED) && cluster <= 1 &&
         rows_per_cta <= 1 && (cache == 1 || cache == 2 || cache == 4) && w_smem && aligned && n % vec == 0;
}

/* Threads per row-packed CTA (a multiple of every team size; <= the CACHE=8 launch bound). */
#define FN_ROW_PACKED_THREADS 256

/* Does the backward launch run the row-pipelined row-packed kernel (rmsnorm_bwd.cu
 * rms_norm_bwd_pipe)? Row-packed teams with one slot per lane, i.e. every AUTO row-packed
 * backward (<= 32 slots). Its registers (ptxas, nvcc 13.0, sm_90a), with and without the fused add's ds. */
static inline int fn_bwd_pipelined(fusednorm_mode mode, int cache) {
  return mode == FUSEDNORM_MODE_ROW_PACKED && cache == 1;
}
static inline int fn_regs_estimate_bwd_pipe(int x_size, int fused) {
  return x_size == 4 ? (fused ? 62 : 54) : (fused ? 74 : 64);
}

/* Elements per 16-byte vector. */
static inline int fn_vec_elems(fusednorm_dtype x) { return x == FUSEDNORM_F32 ? 4 : 8; }

/* Shared memory per CTA that residency estimates add to a kernel's dynamic shared memory: the
 * driver's reservation (1 KB) and the kernels' static reduction buffers (< 1 KB). */
#define FN_SMEM_RESERVE_PER_CTA 2048

/* Registers per thread of the kernel instance a launch runs, and in *smem the dynamic shared
 * memory per CTA that bounds its residency (the pipelined forward's staged weight; else 0).
 * select.c sizes the persistent grid with it and the launcher re-derives the residency from it,
 * so both see the same kernel. `slots`: vector slots of the CTA's chunk of the row. */
static inline int fn_launch_regs(int backward, fusednorm_mode mode, int cluster, int cache, int team,
                                 int64_t slots, int64_t n, fusednorm_dtype x, int fused, int64_t *smem) {
  const int xs = x == FUSEDNORM_F32 ? 4 : 2;
  *smem = 0;
  if (!backward && fn_fwd_pipelined(mode, cluster, cache, team, slots, fused, xs)) {
    *smem = fn_fwd_pipe_smem(n, fn_vec_elems(x));
    return fn_regs_estimate_fwd_pipe(cache, xs, fused);
  }
  if (backward && fn_bwd_pipelined(mode, cache)) return fn_regs_estimate_bwd_pipe(xs, fused);
  return fn_regs_estimate(backward, cache, xs);
}

/* Largest number of vector slots one CTA keeps in registers (all cache sizes agree). */
#define FN_MAX_CACHED_SLOTS 2048
/* Row-packed teams are at most a warp; n <= 1024 (the header's documented limit). */
#define FN_ROW_PACKED_MAX_N 1024
/* Largest cluster (CTAs per row) the wide mode uses: 8 is the portable maximum on sm_90. */
#define FN_MAX_CLUSTER 8

/* The cache size the kernel uses for a chunk of `slots` vector slots over `team` threads:
 * the smallest instance that holds the whole chunk, or 8-or-less if it cannot (the rest streams);
 * 0 for the reload mode. The launcher and select.c both call this, so they agree on what runs. */
static inline int fn_cache_for(fusednorm_mode mode, int backward, int64_t slots, int team) {
  int64_t per_thread;
  int i;
  if (mode == FUSEDNORM_MODE_MULTI_WAVE_RELOAD) return 0;
  per_thread = (slots + team - 1) / team;
  for (i = 1; i < FN_NUM_CACHE; ++i)
    if (per_thread <= fn_cache_sizes[i] && team <= fn_max_threads(backward, fn_cache_sizes[i]))
      return fn_cache_sizes[i];
  /* Does not fit: the largest cache this team size allows; the remainder is streamed. */
  for (i = FN_NUM_CACHE - 1; i > 0; --i)
    if (team <= fn_max_threads(backward, fn_cache_sizes[i])) return fn_cache_sizes[i];
  return 0;
}

/* Columns of a row that one CTA of a cluster handles: a multiple of the vector width so that
 * every CTA's slice starts aligned. */
static inline int64_t fn_cluster_chunk(int64_t n, int ctas_per_row, int vec) {
  int64_t c = (n + ctas_per_row - 1) / ctas_per_row;
  return (c + vec - 1) / vec * vec;
}

/* ---- Split-row wide backward (rmsnorm_bwd_wide.cu) ----
 * Rows too wide for one CTA (the WIDE mode's backward with a weight): every row is split over
 * `gc` CTAs (column chunks of `chunk` columns, a multiple of the vector width), and the grid is
 * gc x gr CTAs, at most one per SM, launched cooperatively so that all are co-resident (the CTAs of
 * a row wait for each other's partial dot products through the workspace). CTA (g, c) owns the
 * columns of chunk c of every row g, g + gr, g + 2 gr, ...: its dw stays in registers and is
 * written once, as row g of the gr partial rows that dw_reduce sums. Rows are staged in a ring of
 * `stages` shared-memory buffers (dy, s and, for the fused add, ds of the CTA's chunk), loaded with
 * cp.async `stages - lookahead` rows ahead of their dot product, whose CTA partial is published
 * `lookahead` rows before the row's dx pass needs the total (the cross-CTA latency hides behind
 * the other rows' loads). Workspace (after the gr x n fp32 partial dw): rows x gc fp32 partial
 * dots, reset to an "unpublished" bit pattern by a cudaMemsetAsync before every launch. */
#ifndef FN_SPLIT_SLOTS_PER_CTA
#define FN_SPLIT_SLOTS_PER_CTA 512 /* target vector slots per CTA (4096 columns bf16) */
#endif
#ifndef FN_SPLIT_THREADS
/* Target threads per CTA (more slots per thread beyond it). 512 rather than 256: H200,
 * 2026-11-22 03:31 UTC, bench_modes --bwd, same run: bf16 1024x65536 1217 -> 1417 GB/s,
 * 512x262144 1219 -> 1412, 256x1048576 1379 -> 1693; fused add 1620 -> 1873, 1626 -> 1876,
 * 1839 -> 2238; f32 1024x65536 1498 -> 1700, 256x1048576 1489 -> 1487 (twice the warps per SM to
 * hide the per-row exchange latency). test_cuda --quick --mode=wide and its memcheck passed with it. */
#define FN_SPLIT_THREADS 512
#endif
#define FN_SPLIT_MAX_STAGES 8
/* CTAs per row at most (warp 0 sums a row's partials, 32 x 8 per warp; H200: 132 SMs). */
#define FN_SPLIT_MAX_CTAS_PER_ROW 256
/* Launch bound per instance (slots per thread 1, 2, 4; x element size): spill-free under ptxas
 * (nvcc 13.0, sm_90a; the .ptxas logs of kernels/cuda/dev/build.sh): 16-bit SPT 4 (64 fp32
 * weight + dw registers) spilled 156 bytes at 128 registers (512 threads), none at 256 threads. */
#define FN_SPLIT_MAX_THREADS(spt, xsize) ((spt) == 1 ? 1024 : (spt) == 2 || (xsize) == 4 ? 512 : 256)

typedef struct {
  int gc, gr;          /* CTAs per row (column chunks) and row groups: grid = gc x gr */
  int threads, spt;    /* threads per CTA, vector slots per thread (1, 2 or 4) */
  int64_t chunk;       /* columns per CTA (a multiple of the vector width) */
  int stages, lookahead;
  size_t smem;         /* dynamic shared memory of the ring */
} fn_split_geom;

/* AUTO takes the split-row kernel only for rows of more than this many vector slots (16-bit
 * n > 32768, f32 n > 16384); narrower wide rows keep the cluster kernel (rmsnorm_bwd.cu), which
 * is much faster there (bf16 2048 x 32768: 2047 vs 1203 GB/s). Lowered from 16384 slots by the
 * bench run of 2026-11-22 03:13 UTC (tools/bench/RESULTS.md, H200, bench.py kernel time, forced
 * modes): bf16 1024 x 65536 backward split 1233 vs cluster 1202 GB/s, fused add 1586 vs 1227.
 * Earlier, bench_modes measured these two within 3% of each other: H200, 2026-11-22 02:46 UTC,
 * bench_modes --bwd, GB/s cluster vs split, same run (kernels/RESULTS.md): bf16 2048x32768
 * 2047 vs 1203, 1024x65536 1190 vs
 * 1219 (fused 1593 vs 1619), f32 4096x16384 2931 vs 1558, f32 1024x65536 1560 vs 1535; wider,
 * split: bf16 512x262144 774 vs 1222, 256x1048576 385 vs 1377 (fused 513 vs 1829, f32 839 vs
 * 1420). A forced WIDE backward with a weight always takes the split-row kernel (what
 * test_cuda --mode=wide exercises). */
#define FN_SPLIT_AUTO_MIN_SLOTS 4096

/* 1 and the geometry if the split-row backward handles this problem on a device of `sm_count`
 * SMs with `smem_per_sm` bytes of shared memory, else 0 (the cluster kernel runs instead).
 * `auto_mode`: the problem's mode is AUTO (which then picked WIDE). Pure: select.c (grid,
 * threads, ctas_per_row = gc) and the launcher (ring, workspace) both call it. */
static inline int fn_split_bwd(int64_t rows, int64_t n, fusednorm_dtype x, int has_weight,
                               int has_residual, int auto_mode, int sm_count, size_t smem_per_sm,
                               fn_split_geom *g) {
  const int vec = fn_vec_elems(x);
  const int64_t xs = x == FUSEDNORM_F32 ? 4 : 2;
  const int64_t slots = (n + vec - 1) / vec;
  int64_t gc, chunk_slots, per, budget, stage;
  int spt;
  if (!has_weight || rows < 1 || sm_count < 1) return 0; /* no workspace without a weight */
  if (auto_mode && slots <= FN_SPLIT_AUTO_MIN_SLOTS) return 0;
  gc = (slots + FN_SPLIT_SLOTS_PER_CTA - 1) / FN_SPLIT_SLOTS_PER_CTA;
  if (gc > sm_count) gc = sm_count;
  if (gc > FN_SPLIT_MAX_CTAS_PER_ROW) gc = FN_SPLIT_MAX_CTAS_PER_ROW;
  if (gc < 1) gc = 1;
  g->chunk = fn_cluster_chunk(n, (int)gc, vec);
  gc = (n + g->chunk - 1) / g->chunk; /* no empty chunk */
  chunk_slots = g->chunk / vec;
  for (spt = 1; spt <= 4; spt *= 2) {
    per = (chunk_slots + spt - 1) / spt;
    if (per <= FN_SPLIT_MAX_THREADS(spt, xs) && (per <= FN_SPLIT_THREADS || spt == 4)) break;
  }
  if (spt > 4) return 0;
  g->spt = spt;
  g->threads = (int)((per + 31) / 32 * 32);
  if (g->threads < 64) g->threads = 64;
  g->gc = (int)gc;
  g->gr = (int)(sm_count / gc);
  if (g->gr < 1) g->gr = 1;
  if (g->gr > rows) g->gr = (int)rows;
  stage = (2 + (has_residual ? 1 : 0)) * g->chunk * xs;
  budget = (int64_t)smem_per_sm - 4096; /* the driver's per-CTA reserve and the static smem */
  if (budget > 227 * 1024) budget = 227 * 1024;
  g->stages = (int)(budget / stage);
  if (g->stages > FN_SPLIT_MAX_STAGES) g->stages = FN_SPLIT_MAX_STAGES;
  if (g->stages < 2) return 0;
  g->lookahead = g->stages / 2;
  g->smem = (size_t)g->stages * (size_t)stage;
  return 1;
}

/* Workspace bytes of the split-row backward beyond the partial dw: the partial dots. */
static inline int64_t fn_split_extra_bytes(int64_t rows, const fn_split_geom *g) {
  return rows * (int64_t)g->gc * 4;
}

/* Rows of fp32 partial dw the backward writes (one per CTA, or per cluster in the wide mode). */
static inline int64_t fn_partial_rows(const fusednorm_launch *l) {
  return l->grid / (l->ctas_per_row > 0 ? l->ctas_per_row : 1);
}

#ifdef __cplusplus
}
#endif
#endif /* FUSEDNORM_CUDA_LAUNCH_CONFIG_H_ */
