/*
 * select.c — fusednorm_select_launch: one pure function (no CUDA, no globals) from
 * (rows, n, dtypes, direction, SM count, architecture) to a mode and its launch configuration.
 * The CUDA launchers call it, kernels/tests/test_select.c pins its decisions on a table of
 * shapes, and the bench prints what it picked. The facts about the compiled kernels it relies on
 * (cache sizes, launch bounds, register estimates) live in kernels/cuda/launch_config.h.
 *
 * Every threshold below carries the measurement behind it (kernels/RESULTS.md has the tables).
 */
#include <limits.h>
#include <stddef.h>

#include "kernels/cuda/launch_config.h"
#include "kernels/include/fusednorm.h"
#include "kernels/src/common.h"

/* Slots per thread of the one-CTA-per-row modes: 4 (threads = slots / 4, at least 64). H200 bf16,
 * fwd 16384 x 4096: 128 threads x 4 slots (reload) 3090 GB/s vs 512 threads x 1 slot 1667 GB/s;
 * small CTAs with several loads in flight per thread beat wide CTAs whose every row pays a
 * 16-warp barrier (kernels/RESULTS.md, runs 1 and 2). */
#define FN_TARGET_CACHE 4
#ifndef FN_TARGET_CACHE_FWD /* dev builds may override it to compare (kernels/cuda/dev/build.sh) */
#define FN_TARGET_CACHE_FWD FN_TARGET_CACHE
#endif
/* Slots per thread of the multi-wave cached forward (the lean kernel, rmsnorm_fwd_row.cu). */
#ifndef FN_TARGET_CACHE_FWD_ROW
#define FN_TARGET_CACHE_FWD_ROW FN_TARGET_CACHE
#endif
/* Slots one CTA of the wide mode holds: 512 threads x CACHE 4. bwd 2048 x 32768: cluster 2 of
 * 2048 slots 1710 GB/s vs cluster 4 of 1024 slots (1024 x CACHE 1) 806 GB/s. */
#define FN_WIDE_SLOTS_PER_CTA 2048
/* AUTO: rows of at most this many slots are row-packed (a team of <= 32 lanes per row, several
 * rows per CTA). Forward up to 64 slots (16-bit n <= 512, f32 n <= 256), backward up to 32
 * (16-bit n <= 256, f32 n <= 128). H200, 2026-11-22 01:08 UTC, tools/bench full run (bench.json,
 * GB/s bf16 / fp16): row-packed wins by 1.5-4x up to 32 slots (bf16 262144 x 256 fwd 2441 vs
 * persistent 1256, bwd 2623 vs 1668; 1048576 x 128 fwd 2571 vs 644; f32 65536 x 128 = 32 slots
 * fwd 2364 vs 1434, bwd 2519 vs 1826); at 64 slots (bf16 131072 x 512) it still wins the forward
 * (3194 vs reload 2359 / persistent 2322; fused add 3810 vs reload 3731) but loses the backward
 * (2372 vs persistent 2929, fused add 2388 vs 3157); at 128 slots (65536 x 1024) it loses both
 * (fwd 2300 / 2336 vs persistent 3127 / 3155, bwd 2182 / 2218 vs 2828 / 2830; fused add fwd
 * 2590 vs reload 4007). Earlier runs (kernels/RESULTS.md, runs 2-3) had row-packed ahead at
 * 128 slots too; the persistent and reload kernels have improved since. */
/* With the row-pipelined forward (rmsnorm_fwd.cu rms_norm_fwd_pipe; H200, 2026-11-22 02:41 and
 * 02:53 UTC, bench_modes --fwd-only, two runs) row-packed stays far ahead up to 32 slots (bf16
 * 1048576 x 128 3600 vs persistent 958, 262144 x 256 3445 vs 1814; fused add 3841 / 3740 vs
 * 1492 / 2730) and persistent takes 64 slots: 131072 x 512 3351 vs 3204, fused add 3791 vs
 * 3743. So both directions are row-packed up to 32 slots. */
#define FN_AUTO_ROW_PACKED_FWD_SLOTS 32
#define FN_AUTO_ROW_PACKED_BWD_SLOTS 32
/* AUTO forward without fused add, just above row-packed (<= 128 slots, 16-bit n <= 1024):
 * persistent (64-thread CTAs, <= 2 slots per thread, 16 CTAs per SM) beats reload there,
 * 65536 x 1024 bf16 3127 vs 2967, fp16 3155 vs 2988 GB/s (same run), while at 360 slots
 * (32768 x 2880) reload wins 3085 vs 2151. The fused-add forward keeps reload: 4007 vs 3794
 * (bf16), 4016 vs 3800 (fp16). */
#define FN_AUTO_FWD_PERSISTENT_NARROW_SLOTS 128
/* Fused add: persistent (pipelined) at 64 slots, reload from there on: H200 2026-11-22 02:53 UTC
 * bf16 131072 x 512 persistent 3791 vs reload 3676 vs row-packed 3743; 65536 x 1024 reload 3925
 * vs persistent 3751 GB/s. */
#define FN_AUTO_FWD_PERSISTENT_NARROW_SLOTS_FUSED 64
/* AUTO forward: one CTA per row, row re-read from L2, up to this many slots (bf16 n <= 8192):
 * H200 bf16 fwd, reload vs persistent (cached): n=2880 3047/2984, 4096 3090/2530, 5120 3071/2845,
 * 7168 2884/2697, 8192 2962/1805 GB/s (run 1). Beyond it the 1024-thread persistent CTA (partly
 * cached, the rest streamed) beats the wide mode: 4096 x 16384 2227 vs 1198, 1024 x 65536 2420
 * vs 591, 256 x 1048576 2355 vs 1354 GB/s (run 2). Rechecked after the run-6 kernels (persistent
 * forward pipelined where <= 3 CTAs share an SM): reload vs persistent 32768 x 2880 3019/1918,
 * 16384 x 4096 3077/2781, 8192 x 8192 2930/2681; 4096 x 16384 reload 2408 vs persistent 2811. */
/* Raised from 1024 slots by the full bench run (H200, 2026-11-22 01:08 UTC, reload vs persistent
 * GB/s): plain f32 16384 x 7168 (1792 slots) 3630 vs 3385, but bf16 8192 x 16384 (2048 slots)
 * 2763 persistent vs 2564 reload: plain forward reload up to 1792 slots. Fused add: f32
 * 16384 x 7168 4068 vs 3815, bf16 8192 x 16384 (2048 slots) 3531 vs 3345, bf16 4096 x 32768
 * (4096 slots) 3028 vs 3214 persistent: fused-add forward reload up to 2048 slots. */
#define FN_AUTO_FWD_RELOAD_SLOTS 1792
#define FN_AUTO_FWD_RELOAD_SLOTS_FUSED 2048
/* AUTO forward with 16-byte aligned rows and weight and n a multiple of the vector width (the
 * launcher's run-time check; fn_fwd_row in launch_config.h): from just above row-packed (fused
 * add) or persistent (plain) up to the whole row in one CTA's registers at 4 slots per thread
 * (16-bit n <= 32768 plain with a 16-bit weight, else 16384), the lean multi-wave cached kernel
 * (rmsnorm_fwd_row.cu). H200, 2026-11-22 04:23 UTC, kernels/cuda/dev/compare.sh --fwd-only, forced modes in
 * one run, GB/s lean cached vs the best other mode: bf16 65536 x 1024 3694 vs persistent 3178,
 * 32768 x 2880 3980 vs 3048, 32768 x 4096 3999 vs reload 3307, 16384 x 5120 3872 vs 3081,
 * 16384 x 7168 3863 vs 2881, 16384 x 8192 4032 vs 3153, 8192 x 16384 3759 vs persistent 2751;
 * f32 65536 x 1024 4019 vs 3599, 16384 x 4096 3951 vs 3621, 16384 x 7168 3997 vs 3565,
 * 8192 x 8192 3958 vs 3492; fused add bf16 131072 x 512 4009 vs persistent 3818, 65536 x 1024
 * 3999 vs reload 3944, 32768 x 4096 4043 vs 3987, 8192 x 16384 4006 vs persistent 3620. At 64
 * slots the plain forward keeps the pipelined persistent kernel: 131072 x 512 3391 vs 3116.
 * (4 slots per thread rather than 2, same run: 32768 x 2880 3980 vs 3331, 16384 x 8192 4032 vs
 * 3163.) Misaligned rows keep the rules below (the generic cached kernel is slower than reload). */
#define FN_AUTO_FWD_ROW_MIN_SLOTS 65
#define FN_AUTO_FWD_ROW_MIN_SLOTS_FUSED (FN_AUTO_ROW_PACKED_FWD_SLOTS + 1)
/* AUTO backward: one CTA per row with the row in registers up to this many slots (n <= 16384
 * bf16), the wide mode beyond: bwd 2048 x 32768 wide 1710 vs persistent 1413, 256 x 262144 720
 * vs 376 GB/s. Persistent (one wave, P = SMs x resident CTAs partial-dw rows) rather than
 * multi-wave cached (4 waves): the multi-wave P = 2112 partial rows of 4096 floats add 69 MB of
 * workspace traffic to a 403 MB backward (16384 x 4096 bf16, 1703 GB/s in run 3); run 1's
 * persistent numbers were taken with a register estimate that left it one CTA per SM. Rechecked
 * after the run-6 kernels (weight staged in shared memory): persistent vs multi-wave cached vs
 * wide, bf16 bwd 32768 x 2880 2748/2411/2316, 16384 x 4096 2731/2118/2457, 8192 x 8192
 * 2599/2006/2317, 4096 x 16384 2432/1787/2204 GB/s. */
#define FN_AUTO_BWD_CACHED_SLOTS 2048
/* (A rule sent the f32 fused-add backward of >= 16384 rows of >= 1024 slots to the reload kernel,
 * which beat the generic persistent kernel there: bench.py, H200 2026-11-22 04:53 UTC, 32768 x
 * 4096 3439 vs 3260 GB/s. The lean persistent backward (rmsnorm_bwd_row.cu) loads ds with dy and
 * s and reverses it: bench_modes with ds, 05:19 UTC, 4216 vs 3386, 16384 x 7168 4208 vs 3178. So
 * the rule is gone.) */
/* Grid of the multi-wave backward, in waves: bounded because each CTA owns a partial-dw row. */
#define FN_BWD_MULTI_WAVES 4

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }
static int pow2_ceil(int64_t v) {
  int p = 1;
  while (p < v && p < (1 << 30)) p <<= 1;
  return p;
}
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* CTA threads of the lean forward (rmsnorm_fwd_row.cu, its own launch bounds) holding a row of
 * `slots` vector slots at FN_TARGET_CACHE_FWD_ROW slots per thread; 0 where it cannot. */
static int lean_fwd_threads(const fusednorm_problem *p, int64_t slots) {
  const int w32 = p->has_weight && p->w_dtype == FUSEDNORM_F32, xs = (int)fusednorm_dtype_size(p->x_dtype);
  const int64_t t = max64(64, round_up(ceil_div(slots, FN_TARGET_CACHE_FWD_ROW), 32));
  return t <= 1024 && fn_fwd_row_cache(slots, (int)t, p->has_residual, w32, xs) > 0 ? (int)t : 0;
}

/* CTA threads for a chunk of `slots` vector slots held by one CTA. */
static int cta_threads(int64_t slots, int backward, fusednorm_mode mode) {
  int64_t t;
  if (mode == FUSEDNORM_MODE_MULTI_WAVE_RELOAD) {
    /* Streaming: as many threads as the cached modes would use, nothing kept. */
    t = round_up(ceil_div(slots, FN_TARGET_CACHE), 32);
    return (int)max64(64, min64(t, 1024));
  }
  if (slots > FN_MAX_CACHED_SLOTS) return 1024; /* partly streamed: widest team */
  {
    const int target = backward ? FN_TARGET_CACHE : FN_TARGET_CACHE_FWD;
    t = round_up(ceil_div(slots, target), 32);
    t = max64(64, t);
    if (t > fn_max_threads(backward, target)) t = 1024;
  }
  return (int)t;
}

/* Resident CTAs per SM of `threads`-thread CTAs of the instance with cache size `cache`. */
static int ctas_per_sm(const fusednorm_device_info *d, int threads, int regs_per_thread, int64_t smem) {
  int by_threads = d->max_threads_per_sm / threads;
  int regs = (regs_per_thread + 7) / 8 * 8;
  int by_regs = d->regs_per_sm / (regs * threads);
  int c = by_threads < by_regs ? by_threads : by_regs;
  if (smem > 0 && (int64_t)c * (smem + FN_SMEM_RESERVE_PER_CTA) > (int64_t)d->smem_per_sm)
    c = (int)((int64_t)d->smem_per_sm / (smem + FN_SMEM_RESERVE_PER_CTA));
  if (c > 32) c = 32;
  return c < 1 ? 1 : c;
}

static fusednorm_status fill(const fusednorm_problem *p, int backward, const fusednorm_device_info *d,
                             fusednorm_mode mode, int cluster, int aligned, fusednorm_launch *out) {
  const int vec = fn_vec_elems(p->x_dtype);
  const int64_t slots = ceil_div(p->n, vec);
  int64_t units, grid_cap;
  int threads, teams = 1, team, cache, occ;

  if (mode == FUSEDNORM_MODE_WIDE && backward) {
    /* The split-row backward (rmsnorm_bwd_wide.cu; geometry and its reasons: fn_split_bwd in
     * launch_config.h): gc CTAs per row, gr row groups, one CTA per SM, cooperative. Without a
     * weight (no workspace for its partial dots), beyond its geometry, or from AUTO for rows of
     * <= FN_SPLIT_AUTO_MIN_SLOTS slots (measurements there): the cluster kernel. */
    fn_split_geom g;
    if (fn_split_bwd(p->rows, p->n, p->x_dtype, p->has_weight, p->has_residual, p->mode == FUSEDNORM_MODE_AUTO,
                     d->sm_count, d->smem_per_sm, &g)) {
      out->mode = mode;
      out->block_threads = g.threads;
      out->rows_per_cta = 1;
      out->ctas_per_row = g.gc;
      out->grid = (int64_t)g.gc * g.gr;
      out->vec_elems = vec;
      return FUSEDNORM_OK;
    }
  }
  if (mode == FUSEDNORM_MODE_ROW_PACKED) {
    if (p->n > FN_ROW_PACKED_MAX_N) return FUSEDNORM_ERR_MODE_UNSUPPORTED;
    /* One slot per lane; capped at a warp (f32 n = 1024: 32 lanes x CACHE 8). */
    team = pow2_ceil(slots);
    if (team > 32) team = 32;
    threads = FN_ROW_PACKED_THREADS;
    teams = threads / team;
    cluster = 1;
    cache = fn_cache_for(mode, backward, slots, team);
  } else {
    int64_t chunk_slots = slots;
    if (mode == FUSEDNORM_MODE_WIDE) {
      chunk_slots = ceil_div(fn_cluster_chunk(p->n, cluster, vec), vec);
    } else {
      cluster = 1;
    }
    threads = !backward && mode == FUSEDNORM_MODE_MULTI_WAVE_CACHED && aligned && p->n % vec == 0
                  ? lean_fwd_threads(p, chunk_slots)
                  : 0;
    if (threads == 0) threads = cta_threads(chunk_slots, backward, mode);
    team = threads;
    cache = fn_cache_for(mode, backward, chunk_slots, team);
  }
  {
    /* (The pipelined kernels never run the wide mode, so `slots`, the whole row, is right here.) */
    int64_t smem;
    const int regs = fn_launch_regs(backward, mode, cluster, cache, team, slots, p->n, p->x_dtype,
                                    p->has_residual, &smem);
    occ = ctas_per_sm(d, threads, regs, smem);
  }
  units = ceil_div(p->rows, teams); /* row-processing units with one row per team */
  if (mode == FUSEDNORM_MODE_PERSISTENT || mode == FUSEDNORM_MODE_ROW_PACKED ||
      mode == FUSEDNORM_MODE_WIDE) {
    grid_cap = max64(1, (int64_t)d->sm_count * occ / cluster);
  } else if (backward) {
    grid_cap = (int64_t)FN_BWD_MULTI_WAVES * d->sm_count * occ; /* bounded partial-dw rows */
  } else {
    grid_cap = INT_MAX; /* one CTA per row (grid-stride beyond 2^31-1) */
  }
  units = min64(units, grid_cap);
  units = min64(units, (INT_MAX / cluster));
  if (units < 1) units = 1;

  out->mode = mode;
  out->block_threads = threads;
  out->rows_per_cta = teams;
  out->ctas_per_row = cluster;
  out->grid = units * cluster;
  out->vec_elems = vec;
  return FUSEDNORM_OK;
}

/* Cluster size of the wide mode: enough CTAs that each slice fits one CTA's register cache,
 * at least 2, at most FN_MAX_CLUSTER (slices beyond the cache are streamed). */
static int wide_cluster(const fusednorm_problem *p) {
  const int64_t slots = ceil_div(p->n, fn_vec_elems(p->x_dtype));
  int c = pow2_ceil(ceil_div(slots, FN_WIDE_SLOTS_PER_CTA));
  if (c < 2) c = 2;
  if (c > FN_MAX_CLUSTER) c = FN_MAX_CLUSTER;
  while (c > 1 && slots < c) c >>= 1; /* every CTA gets at least one slot */
  return c;
}

static fusednorm_mode auto_mode(const fusednorm_problem *p, int backward, int aligned,
                                const fusednorm_device_info *d) {
  const int64_t slots = ceil_div(p->n, fn_vec_elems(p->x_dtype));
  if (slots <= (backward ? FN_AUTO_ROW_PACKED_BWD_SLOTS : FN_AUTO_ROW_PACKED_FWD_SLOTS))
    return FUSEDNORM_MODE_ROW_PACKED;
  if (!backward && aligned && p->n % fn_vec_elems(p->x_dtype) == 0 &&
      slots >= (p->has_residual ? FN_AUTO_FWD_ROW_MIN_SLOTS_FUSED : FN_AUTO_FWD_ROW_MIN_SLOTS) &&
      lean_fwd_threads(p, slots) > 0)
    return FUSEDNORM_MODE_MULTI_WAVE_CACHED;
  if (!backward) {
    if (slots <= (p->has_residual ? FN_AUTO_FWD_PERSISTENT_NARROW_SLOTS_FUSED : FN_AUTO_FWD_PERSISTENT_NARROW_SLOTS))
      return FUSEDNORM_MODE_PERSISTENT;
    return slots <= (p->has_residual ? FN_AUTO_FWD_RELOAD_SLOTS_FUSED : FN_AUTO_FWD_RELOAD_SLOTS)
               ? FUSEDNORM_MODE_MULTI_WAVE_RELOAD
               : FUSEDNORM_MODE_PERSISTENT;
  }
  if (slots <= FN_AUTO_BWD_CACHED_SLOTS) return FUSEDNORM_MODE_PERSISTENT;
  /* Thread-block clusters need sm_90. */
  return d->cc_major >= 9 ? FUSEDNORM_MODE_WIDE : FUSEDNORM_MODE_PERSISTENT;
}

fusednorm_status fusednorm_select_launch(const fusednorm_problem *p, int backward,
                                         const fusednorm_device_info *dev, fusednorm_launch *out) {
  return fn_select_launch(p, backward, dev, 1, out);
}

fusednorm_status fn_select_launch(const fusednorm_problem *p, int backward, const fusednorm_device_info *dev,
                                  int aligned, fusednorm_launch *out) {
  fusednorm_status st;
  fusednorm_mode mode;
  if (p == NULL || dev == NULL || out == NULL) return FUSEDNORM_ERR_NULL_POINTER;
  st = fn_validate_problem(p);
  if (st != FUSEDNORM_OK) return st;
  if (dev->sm_count < 1 || dev->max_threads_per_sm < 1024 || dev->regs_per_sm < 65536)
    return FUSEDNORM_ERR_NO_DEVICE;
  mode = p->mode == FUSEDNORM_MODE_AUTO ? auto_mode(p, backward, aligned, dev) : p->mode;
  /* Thread-block clusters need sm_90 (Hopper). */
  if (mode == FUSEDNORM_MODE_WIDE && dev->cc_major < 9) return FUSEDNORM_ERR_MODE_UNSUPPORTED;
  return fill(p, backward, dev, mode, mode == FUSEDNORM_MODE_WIDE ? wide_cluster(p) : 1, aligned, out);
}
