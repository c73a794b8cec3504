/*
 * launch_config.h — the facts about the compiled kernels that the pure selection heuristic
 * (kernels/src/select.c, plain C) and the CUDA launchers (kernels/cuda/ files) must agree on.
 *
 * A kernel instance is (x dtype) x (register-cache size CACHE): each thread of a "team" owns the
 * 16-byte vector slots k*team + lane (k < CACHE) of its row chunk and keeps them in registers
 * between the reduction and the normalize pass; slots beyond team*CACHE are streamed (read
 * twice, the second time from L2). CACHE = 0 is the pure reload variant. Everything else (team
 * size, rows per CTA, cluster size, fused add, weight, casting, alignment) is a run-time argument,
 * so the whole family is 3 x 5 instances per direction.
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
 * sm_90a), by cache size 1, 2, 4: plain / fused add, 16-bit / f32 x. */
static inline int fn_regs_estimate_fwd_pipe(int cache, int x_size, int fused) {
  static const int regs[2][2][3] = {
      {{32, 58, 74}, {30, 53, 64}},   /* plain: 16-bit x, f32 x */
      {{56, 64, 128}, {40, 60, 107}}, /* fused add */
  };
  int i = cache <= 1 ? 0 : cache == 2 ? 1 : 2;
  return regs[fused ? 1 : 0][x_size == 4 ? 1 : 0][i];
}

/* Does the forward launch run the row-pipelined kernel? The persistent and row-packed modes (a
 * team visits several rows) without a cluster, with the whole row in a register cache of 1, 2 or
 * 4 slots per thread. The launcher and select.c both ask, so they size the grid alike. */
/* Its dynamic shared memory: the fp32 effective weight, padded to whole vectors. */
static inline int64_t fn_fwd_pipe_smem(int64_t n, int vec) { return (n + vec - 1) / vec * vec * 4; }
#define FN_FWD_PIPE_MAX_THREADS(cache, fused) ((cache) <= 1 ? 1024 : (cache) == 2 && !(fused) ? 1024 : 512)
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

/* Rows of fp32 partial dw the backward writes (one per CTA, or per cluster in the wide mode). */
static inline int64_t fn_partial_rows(const fusednorm_launch *l) {
  return l->grid / (l->ctas_per_row > 0 ? l->ctas_per_row : 1);
}

#ifdef __cplusplus
}
#endif
#endif /* FUSEDNORM_CUDA_LAUNCH_CONFIG_H_ */
