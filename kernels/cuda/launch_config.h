/*
 * launch_config.h — the facts about the compiled kernels that the launch plan (kernels/src/select.c,
 * plain C) relies on: launch bounds, register counts, the template instances that exist, the
 * split-row geometry. The kernels include it for their launch bounds, so a bound and the plan's
 * view of it cannot drift apart.
 *
 * Register-cache instances: a thread of a "team" owns the 16-byte vector slots k*team + lane
 * (k < CACHE) of its row chunk and keeps them in registers between the reduction and the
 * normalize / dx pass; slots beyond team*CACHE are streamed (read twice, the second time from L2).
 * The families and their instances: kernels/cuda/README.md.
 */
#ifndef FUSEDNORM_CUDA_LAUNCH_CONFIG_H_
#define FUSEDNORM_CUDA_LAUNCH_CONFIG_H_

#include "kernels/include/fusednorm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Register-cache sizes of the generic kernels' instances (rmsnorm_fwd.cu rms_norm_fwd,
 * rmsnorm_bwd.cu rms_norm_bwd), ascending. The forward's 0 is the pure reload kernel; the plan
 * never needs the forward's 1 (rows that small run the row-pipelined kernel) or either
 * direction's 8 (only the generic row-packed launch, now the row-pipelined kernels', used it). */
#define FN_FWD_GENERIC_CACHES {0, 2, 4}
#define FN_BWD_GENERIC_CACHES {1, 2, 4}
#define FN_NUM_GENERIC_CACHES 3

/* __launch_bounds__ of the generic kernels per (direction, cache size). They cap the registers
 * per thread at 65536 / threads; with these bounds ptxas (nvcc 13.0, sm_90a) reports no spills
 * (kernels/RESULTS.md). Every configuration caches at most 2048 slots per CTA (threads x CACHE). */
#define FN_MAX_THREADS(backward, cache) \
  ((cache) <= 1 ? 1024 : (cache) == 2 ? ((backward) ? 512 : 1024) : (cache) == 4 ? 512 : 256)
static inline int fn_max_threads(int backward, int cache) { return FN_MAX_THREADS(backward, cache); }

/* Register cap of the backward CACHE 2 instance (rmsnorm_bwd.cu: __maxnreg__, below its launch
 * bound; spill-free under ptxas, nvcc 13.0, sm_90a). */
#define FN_BWD_C2_REGS 96

/* Registers per thread of the generic instances reported by ptxas (nvcc 13.0, sm_90a;
 * bazel build --define=cuda_ptxas_verbose=1), used to size the persistent grids (resident CTAs per
 * SM). Update with the kernels; a stale value costs a partial second wave or an idle slot, not
 * correctness. The lean backward (rmsnorm_bwd_row.cu) of f32 rows runs on the grid sized with
 * these (its registers stay within them, kernels/RESULTS.md); of 16-bit rows, on its own
 * (fn_regs_estimate_bwd_row16). */
static inline int fn_regs_estimate(int backward, int cache, int x_size) {
  /* index: cache 0, 1, 2, 4 */
  static const int regs[2][2][4] = {
      {{45, 64, 64, 94}, {35, 50, 63, 64}},                          /* forward: 16-bit x, f32 x */
      {{63, 64, FN_BWD_C2_REGS, 128}, {54, 62, FN_BWD_C2_REGS, 128}}, /* backward */
  };
  const int i = cache <= 2 ? cache : 3;
  return regs[backward ? 1 : 0][x_size == 4 ? 1 : 0][i];
}

/* Registers of the row-pipelined forward (rmsnorm_fwd.cu rms_norm_fwd_pipe; ptxas, nvcc 13.0,
 * sm_90a), by cache size 1, 2, 4: plain / fused add, 16-bit / f32 x. (An instance for aligned
 * rows without the element-wise fallback was tried: H200 2026-11-22 04:38 UTC, bench_modes, bf16
 * row-packed 1048576 x 128 3572 -> 3439 GB/s, 262144 x 256 3383 -> 3259, 65536 x 128 1859 ->
 * 1949, fused add within 1%: no consistent gain, dropped.) */
static inline int fn_regs_estimate_fwd_pipe(int cache, int x_size, int fused) {
  static const int regs[2][2][3] = {
      {{40, 59, 73}, {32, 56, 64}},   /* plain: 16-bit x, f32 x */
      {{56, 64, 128}, {58, 62, 110}}, /* fused add */
  };
  const int i = cache <= 1 ? 0 : cache == 2 ? 1 : 2;
  return regs[fused ? 1 : 0][x_size == 4 ? 1 : 0][i];
}

/* Registers of its head-split instance (rms_norm_fwd_pipe_u; ptxas, nvcc 13.0, sm_90a), by cache
 * size 1, 2: plain / fused add, 16-bit / f32 x. */
static inline int fn_regs_estimate_fwd_pipe_u(int cache, int x_size, int fused) {
  static const int regs[2][2][2] = {
      {{51, 64}, {41, 62}}, /* plain: 16-bit x, f32 x */
      {{64, 83}, {60, 70}}, /* fused add */
  };
  return regs[fused ? 1 : 0][x_size == 4 ? 1 : 0][cache <= 1 ? 0 : 1];
}

/* The row-pipelined forward's dynamic shared memory: the fp32 effective weight, padded to whole
 * vectors; and its launch bound. */
static inline int64_t fn_fwd_pipe_smem(int64_t n, int vec) { return (n + vec - 1) / vec * vec * 4; }
/* Its head-split instance's (rms_norm_fwd_pipe_u): the weight padded to N + 1 floats a vector. */
static inline int64_t fn_fwd_pipe_u_smem(int64_t n, int vec) { return (n + vec - 1) / vec * (vec + 1) * 4; }
/* Lanes a team of that instance needs: one per head and tail element, up to 2 (N - 1). */
static inline int fn_fwd_pipe_u_min_team(int vec) { return vec == 8 ? 16 : 8; }
#define FN_FWD_PIPE_MAX_THREADS(cache, fused) ((cache) <= 1 ? 1024 : (cache) == 2 && !(fused) ? 1024 : 512)

/* Can the row-pipelined forward run `team` threads per row with `cache` slots per thread over a
 * row of `slots` slots? Cache 1, 2 or 4 holding the whole row, within the launch bound, and two
 * teams' registers fit an SM's 64K: with one CTA per SM, a CTA's barrier leaves the SM without
 * loads in flight, and the generic kernel is the better choice (H200, 2026-11-22 02:53 UTC,
 * bench_modes bf16 fwd 4096 x 16384, 512 x 4 slots: 73-register pipelined 2100 vs 2712 GB/s;
 * f32 8192 x 8192, 64 registers, two CTAs: 3351 vs 3257). */
static inline int fn_fwd_pipe_fits(int cache, int team, int64_t slots, int fused, int x_size) {
  return (cache == 1 || cache == 2 || cache == 4) && (int64_t)cache * team >= slots &&
         team <= FN_FWD_PIPE_MAX_THREADS(cache, fused) &&
         2 * team * ((fn_regs_estimate_fwd_pipe(cache, x_size, fused) + 7) / 8 * 8) <= 65536;
}

/* The lean one-row-per-CTA forward (rmsnorm_fwd_row.cu): launch bound per slots per thread S,
 * fused add and 4-byte weight (w32). Spill-free under ptxas (nvcc 13.0, sm_90a): S = 4 without
 * the fused add and with a 16-bit weight fits 1024 threads (64 registers; 16-bit n <= 32768 in
 * one CTA; f32 x with an f32 weight too, 57 registers), the fused add or a 16-bit x with an fp32
 * weight does not (24-80 bytes of spills), so 512 there. `w32`: a 4-byte weight; `xsize`: bytes
 * per x element. */
#define FN_FWD_ROW_MAX_THREADS(s, fused, w32, xsize) \
  ((s) == 8 ? FN_FWD_ROW8_MAX_THREADS : (s) <= 2 || (!(fused) && (!(w32) || (xsize) == 4)) ? 1024 : 512)
/* S = 8 (aligned rows, plain and fused, each slot's weight loaded in the output loop): at most
 * FN_FWD_ROW8_MAX_THREADS threads, two CTAs an SM (64 registers), so that an SM holds two rows of
 * 2049-4096 slots where the S = 4 instance at 1024 threads holds one. */
#define FN_FWD_ROW8_MAX_THREADS 512
#define FN_FWD_ROW_MIN_CTAS(s) ((s) == 8 ? 2 : 1)
/* The head-split instances (U, rmsnorm_fwd_row.cu with rmsnorm_unaligned.cuh), which read the
 * weight element-wise, take the same bounds (ptxas, nvcc 13.0, sm_90a, S = 4 without the fused add
 * at 1024 threads: 16-bit x with a 16-bit weight 60-63 registers, f32 x 53, no spills; 16-bit x
 * with an f32 weight spilled 24-44 bytes, which the bound above keeps at 512). */
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

/* Dynamic shared memory of the head-split lean backward (rmsnorm_bwd_row.cu rms_norm_bwd_row_u):
 * the fp32 effective weight and the CTA's dw, column c of each at c + c/vec (bank-conflict
 * padding), each slots x (vec + 1) floats. */
static inline int64_t fn_u_bwd_smem(int64_t n, int vec) { return 2 * ((n + vec - 1) / vec) * (vec + 1) * 4; }

/* The row-pipelined row-packed backward's resident CTAs asked of ptxas (its launch bound): at one
 * slot a lane 4 (<= 64 registers, no spills; unbounded, the bf16 instance without ds needs 72: 3
 * CTAs per SM), but 3 for the 16-bit instances with ds (at 64, bf16 spills 44 bytes; with no CTA
 * count given, ptxas gives them 91-95); at two slots a lane (f32 only) 2 (<= 128). And its
 * registers (ptxas, nvcc 13.0, sm_90a) by slots a lane, with and without the fused add's ds. */
#define FN_BWD_PIPE_MIN_CTAS(s, has_ds, x_size) ((s) > 1 ? 2 : (has_ds) && (x_size) == 2 ? 3 : 4)
static inline int fn_regs_estimate_bwd_pipe(int x_size, int fused, int spt) {
  if (spt > 1) return fused ? 118 : 94;
  return x_size == 4 ? 64 : (fused ? 78 : 64);
}

/* The lean backward (rmsnorm_bwd_row.cu rms_norm_bwd_row) at S slots a thread: S <= 4 under the
 * generic kernels' bounds; S = 8 (aligned rows: select.c bwd_row8) at most
 * FN_BWD_ROW8_MAX_THREADS threads, one CTA an SM at FN_BWD_ROW8_REGS registers. Every dtype has
 * one, plain and fused. Where FN_BWD_ROW8_DW_SMEM holds (16-bit rows, and the fused add), a
 * thread's running dw lives in shared memory beside the staged weight (n more floats) instead of
 * in registers. ptxas (nvcc 13.0, sm_90a), dw in registers: plain f32 128 registers and 4 bytes of
 * spills, plain 16-bit 316-380 bytes (16-bit dw takes 64 registers), fused f32 300; dw in shared
 * memory: fused f32 125 registers and no spill, plain 16-bit no spill, fused 16-bit 52-72 bytes.
 * H200, 2026-11-30, bench_modes cold, plain bf16 dw in registers / in shared memory
 * (tools/bench/results/fused_row8_h200_2026-11-30): 4096 x 16400 211 -> 164 us, 1000 x 20480 78
 * -> 70, 400 x 16400 45 -> 40, 4096 x 24576 249 -> 232; f32 keeps dw in registers (no spill to
 * remove). 16-bit rows past 3616 slots (8n bytes past the 227 KiB of an H200's CTA) have an S = 8
 * plan only with a 16-bit weight (its raw 16 bits staged: fn_bwd_row8_smem). */
#define FN_BWD_ROW8_MAX_THREADS 512
#define FN_BWD_ROW8_REGS 128
#define FN_BWD_ROW8_DW_SMEM(x_size, fused) ((fused) || (x_size) == 2)
/* Its dynamic shared memory: the weight (fp32 effective values, or with w16 its raw 16 bits: a
 * 16-bit weight of 16-bit rows where the fp32 stage does not fit, the plan's weight_smem 2; each
 * read then converts and adds the offset as load_weight does, the same bits), then dw where
 * FN_BWD_ROW8_DW_SMEM holds. w16 has instances of its own, planned only where nothing else fits
 * (16-bit rows of 3617-4096 slots on an H200): read as a flag inside the one instance it raises the
 * fused 16-bit spill from 52-72 to 96 bytes and costs 12-13% where the fp32 stage fits (H200
 * 2026-11-30, tools/bench/results/fused_row8_h200_2026-11-30). */
static inline int64_t fn_bwd_row8_smem(int64_t n, int w16, int x_size, int fused) {
  return n * (w16 ? 2 : 4) + (FN_BWD_ROW8_DW_SMEM(x_size, fused) ? n * 4 : 0);
}
/* Registers of the lean backward's 16-bit instances at S <= 4 (rms_norm_bwd_row; ptxas, nvcc
 * 13.0, sm_90a; the larger of bf16's and fp16's), index S 1, 2, 4, plain / fused add: 16-bit rows
 * size its persistent grid with these rather than the generic kernel's estimate, which at S = 2
 * (96 against 74-80) left two CTAs an SM out: 12 CTAs of 64 threads an SM instead of 10 ran bf16 /
 * fp16 rows of 576-1024 columns 1.02-1.11x faster, plain and fused (H200, 2026-12-01,
 * kernels/RESULTS.md "The lean backward's grid by its own registers"). f32 rows keep the generic
 * estimate: their larger grids (S = 2: 10 -> 16 CTAs an SM, S = 4: 8 -> 12) ran 0.89-1.15x,
 * most of them slower. */
static inline int fn_regs_estimate_bwd_row16(int cache, int fused) {
  static const int regs[2][3] = {{64, 74, 102}, {64, 80, 128}};
  return regs[fused ? 1 : 0][cache <= 1 ? 0 : cache == 2 ? 1 : 2];
}
/* Registers of the head-split lean backward's 16-bit instances (rms_norm_bwd_row_hs and
 * rms_norm_bwd_row_u; ptxas, nvcc 13.0, sm_90a; the largest of the four at each S), index as
 * fn_regs_estimate_bwd_row16: their grid, as the aligned kernel's, by their own registers (S = 2
 * plain: 12 CTAs of 64 threads an SM where the generic estimate gives 10: bf16 65536 x 1023
 * 126 -> 119 us, H200 2026-12-03, kernels/RESULTS.md). f32 rows keep the
 * generic estimate, as the aligned kernel's do. */
static inline int fn_regs_estimate_bwd_row_u16(int cache, int fused) {
  static const int regs[2][3] = {{64, 80, 128}, {64, 96, 128}};
  return regs[fused ? 1 : 0][cache <= 1 ? 0 : cache == 2 ? 1 : 2];
}
/* The lean backward's one-slot 16-bit instance for CTAs of 64 threads (the plan's `narrow`: rows
 * of 33-64 slots, many of them), bounded to FN_BWD_ROW_NARROW_MIN_CTAS CTAs an SM (48 registers;
 * the general one-slot instance, bounded at 1024 threads, takes 64 and fits 16): H200,
 * 2026-12-01, bench_modes AUTO backward, paired, 16-bit rows of 264-512 columns from 124 rows an
 * SM 0.98-1.06x at 20 CTAs (bf16 131072 x 512 121.2 -> 114.3 us; 24 CTAs, 40 registers: 0.97-1.09x,
 * 32 CTAs spill and lose 0.76-0.95x), at 31 rows an SM 0.94-0.99x (kernels/RESULTS.md "The lean
 * backward's one-slot instance at 20 CTAs an SM"). */
#define FN_BWD_ROW_NARROW_MIN_CTAS 20
#define FN_BWD_ROW_NARROW_REGS (65536 / (FN_BWD_ROW_NARROW_MIN_CTAS * 64) / 8 * 8)
#define FN_BWD_ROW_THREADS(s) ((s) == 8 ? FN_BWD_ROW8_MAX_THREADS : FN_MAX_THREADS(1, s))

/* Whether the head-split backward of rows of one stride can give each CTA (the lean kernel,
 * rms_norm_bwd_row_hs; `grid` its CTAs) or each row group (the split-row kernel's RES instance;
 * `grid` its row groups) rows of one head: the rows' addresses modulo 16 bytes repeat every
 * `period` rows (16 / gcd(16, the stride in bytes)), and the CTAs or groups of each residue class
 * take that class's rows, so every class needs one: at least `period` of them, or as many as the
 * rows (one row each, its own head). */
static inline int fn_bwd_row_period(int64_t stride, int64_t x_size) {
  const unsigned b = (unsigned)(((uint64_t)stride * (uint64_t)x_size) & 15u);
  int period = 16;
  if (b == 0) return 1;
  for (unsigned v = b; (v & 1u) == 0; v >>= 1) period >>= 1;
  return period;
}
static inline int fn_bwd_row_by_residue(int64_t grid, int64_t rows, int64_t stride, int64_t x_size) {
  return grid >= rows || grid >= fn_bwd_row_period(stride, x_size);
}

/* The head-split row backward without staging (rms_norm_bwd_row_u1: every CTA at most one row, one
 * slot per thread), up to this many slots a row: each thread loads its own columns' weight element
 * by element, 16 bytes apart across a warp, where the staged instance's loads are coalesced; past
 * these widths that cost more than the staging saved. H200, 2026-11-28, bench.py cold, us, staged
 * vs not, paired (kernels/RESULTS.md): 16-bit n 59-871 (8-109 slots) 1.03-1.11x, n 1025 (129)
 * 0.99-1.01x, 1750-6732 0.92-0.98x, 3001 0.83-0.85x; f32 n 59-1750 (15-438 slots) 1.03-1.13x, 2746
 * (687) 1.01-1.02x, 3001 (751) 0.97x. */
#define FN_BWD_ROW_U1_MAX_SLOTS(x_size) ((x_size) == 4 ? 512 : 128)

/* dw_reduce is launched as a programmatic dependent of the backward (fusednorm_cuda.cu
 * launch_dw_reduce, griddepcontrol) where the kernels carry code of compute capability >= 9.0:
 * device_info's cc_major is the compiled architecture's. */
#define FN_DW_REDUCE_DEPENDENT(cc_major) ((cc_major) >= 9)
/* The most partial-dw rows (CTAs) a backward sums in the kernel itself (plan dw_in_kernel,
 * rmsnorm_bwd_slot.cuh dw_reduce_in_kernel: a thread per column, P dependent steps). */
#define FN_DW_IN_KERNEL_MAX_PARTIALS 32
/* ... and for at most this many columns per thread of the grid (a grid of one CTA writes dw
 * itself, whatever the width): H100, us a backward, bf16 2 x 4096 (16 columns per thread) 12.1 in
 * the kernel against 9.5 with dw_reduce_chain's launch; at 2-4 columns per thread the kernel's
 * 8.6 (f32 4 x 1000), 10.2 (f16 5 x 918), 7.7 (bf16 8 x 1024) against two launches' 9.0, 10.7,
 * 8.4. Each pair is two measurements against their own baselines, and the cut between 4 and 16
 * columns is not a measured crossover (kernels/RESULTS.md, "dw of a few CTAs"). */
#define FN_DW_IN_KERNEL_MAX_COLS_PER_THREAD 8

/* dw_reduce's CTA (rmsnorm_bwd.cu): columns x slices of the P > FN_DW_IN_KERNEL_MAX_PARTIALS
 * partial rows, from (P, n) alone, so the sum's order (the slices) is fixed by the problem. Dw of
 * more than FN_DW_REDUCE_NARROW_MAX_N columns: 32 x 32 (128-byte rows of a warp, n / 32 CTAs).
 * Narrower: 8 columns a CTA, so that the few columns still spread over n / 8 CTAs, and 64 slices
 * instead of 32 past FN_DW_REDUCE_SLICES_32_MAX_P rows, so that each thread's rows stay a few loads
 * in flight (backward grids stop at 16 CTAs an SM: P <= 2112 on an H200). H200, 2026-11-28,
 * us a launch (CUDA graph of 200), this shape against 32 x 32 slices chained
 * (tools/bench/results/warp_fwd_dw_reduce_h200_2026-11-28/probes): P x n 34 x 153 1.71 vs 2.32, 171 x 69 2.62 vs
 * 3.26, 617 x 178 2.65 vs 3.79, 1230 x 17 3.36 vs 4.92, 2112 x 420 3.84 vs 6.03, 5273 x 39 6.70
 * vs 11.07; n 1750 (P 43) 8 columns 1.88, 32 columns 2.23; n 2459-8192 32 columns 3.17-3.51 where
 * 8 took 3.65-4.08; 64 slices against 32: P 171-230 2.34-2.52 vs 2.62-2.92, P 303-405 2.74-3.29
 * vs 2.35-3.21. */
#define FN_DW_REDUCE_NARROW_MAX_N 1536
#define FN_DW_REDUCE_SLICES_32_MAX_P 512
static inline void fn_dw_reduce_shape(int64_t P, int64_t n, int *cols, int *slices) {
  if (n > FN_DW_REDUCE_NARROW_MAX_N) {
    *cols = 32, *slices = 32;
    return;
  }
  *cols = 8;
  *slices = P <= FN_DW_REDUCE_SLICES_32_MAX_P ? 32 : 64;
}

/* The warp forward (rmsnorm_fwd_warp.cu): a warp a row or two, FN_FWD_WARP_WARPS warps a CTA (its
 * launch bound), rows of FN_FWD_WARP_MIN_N..FN_FWD_WARP_MAX_N columns, lane l holding columns
 * l + 32 k for k < fn_fwd_warp_cols(n): the instance, the fewest of FN_FWD_WARP_INSTANCES that
 * cover the row. Two rows a warp are built for the plain forward only, up to
 * FN_FWD_WARP2_B16_MAX_COLS (16-bit) / FN_FWD_WARP2_F32_MAX_COLS (f32) columns a lane
 * (fn_fwd_warp2_built). */
#define FN_FWD_WARP_WARPS 4
#define FN_FWD_WARP_THREADS (32 * FN_FWD_WARP_WARPS)
#define FN_FWD_WARP_MIN_N 33
#define FN_FWD_WARP_MAX_N 512
#define FN_FWD_WARP_INSTANCES {2, 3, 4, 5, 6, 8, 10, 12, 16}
#define FN_FWD_WARP2_B16_MAX_COLS 10
#define FN_FWD_WARP2_F32_MAX_COLS 3
static inline int fn_fwd_warp2_built(int x_size, int cols) {
  return cols <= (x_size == 2 ? FN_FWD_WARP2_B16_MAX_COLS : FN_FWD_WARP2_F32_MAX_COLS);
}
/* Sub-vector loads (the plain 16-bit forward, two rows a warp: rms_norm_fwd_warp_vec<T,V,K>): rows
 * of FN_FWD_WARP_VEC_MIN_N..FN_FWD_WARP_VEC_MAX_N columns, V = 2 or 4 elements a load, lane l
 * holding loads l + 32 k for k < fn_fwd_warp_vec_cols(n, V) (every count there is an instance). */
#define FN_FWD_WARP_VEC_MIN_N 65
#define FN_FWD_WARP_VEC_MAX_N 320
static inline int fn_fwd_warp_vec_cols(int64_t n, int v) { return (int)((n / v + 31) / 32); }
static inline int fn_fwd_warp_cols(int64_t n) {
  static const int inst[] = FN_FWD_WARP_INSTANCES;
  const int64_t need = (n + 31) / 32;
  for (int i = 0; i < (int)(sizeof inst / sizeof inst[0]); ++i)
    if (inst[i] >= need) return inst[i];
  return 0;
}

/* The warp backward (rmsnorm_bwd_warp.cu): a warp a row at a time, FN_BWD_WARP_WARPS warps a CTA
 * (its launch bound, FN_BWD_WARP_MIN_CTAS of them resident), rows of
 * FN_BWD_WARP_MIN_N..FN_BWD_WARP_MAX_N columns, lane l holding columns l + 32 k for
 * k < fn_bwd_warp_cols(n): the instance, the fewest of FN_BWD_WARP_INSTANCES that cover the row.
 * Its dynamic shared memory with a weight: the combine's pairs of every warp in rows of their own
 * (combine_team_dw<..., true>), 2 x warps x n floats. Registers (ptxas, nvcc 13.0, sm_90a) by
 * columns a lane, with and without the fused add's ds: fn_regs_estimate_bwd_warp (test_regs.py).
 * Three CTAs an SM up to 5 columns a lane (<= 80 registers), two from 6 (the 8-column fused
 * instance needs 116-122: at 80 it spilled 136-204 bytes). */
#define FN_BWD_WARP_WARPS 8
#define FN_BWD_WARP_THREADS (32 * FN_BWD_WARP_WARPS)
#define FN_BWD_WARP_MIN_CTAS(cols) ((cols) >= 6 ? 2 : 3)
#define FN_BWD_WARP_MIN_N 33
#define FN_BWD_WARP_MAX_N 256
#define FN_BWD_WARP_INSTANCES {2, 3, 4, 5, 6, 8}
static inline int fn_bwd_warp_cols(int64_t n) {
  static const int inst[] = FN_BWD_WARP_INSTANCES;
  const int64_t need = (n + 31) / 32;
  for (int i = 0; i < (int)(sizeof inst / sizeof inst[0]); ++i)
    if (inst[i] >= need) return inst[i];
  return 0;
}
static inline int64_t fn_bwd_warp_smem(int64_t n) { return 2 * FN_BWD_WARP_WARPS * n * 4; }
static inline int fn_regs_estimate_bwd_warp(int x_size, int fused, int cols) {
  (void)x_size; /* (the dtypes' counts differ by at most 6, within one step of 8) */
  if (cols <= 3) return 64;
  if (cols == 4) return fused ? 72 : 64;
  if (cols == 5) return fused ? 80 : 72;
  if (cols == 6) return fused ? 96 : 80;
  return fused ? 128 : 104;
}

/* Threads per row-packed CTA (a multiple of every team size; <= every row-packed launch bound). */
#define FN_ROW_PACKED_THREADS 256

/* Dynamic shared memory of the row-pipelined backward with a weight: the combine's pairs of every
 * group (a warp, or a team of 32 lanes) in rows of their own (rmsnorm_bwd_slot.cuh
 * combine_team_dw<..., true>): 2 x groups x n floats (16 KB at 256 columns). */
static inline int64_t fn_bwd_pipe_smem(int64_t n) { return 2 * (FN_ROW_PACKED_THREADS / 32) * n * 4; }

/* The flat-tile forward (rmsnorm_fwd_tile.cu): CTA size bound, 16-byte vectors per thread (a tile
 * holds up to FN_FWD_TILE_THREADS * FN_FWD_TILE_SLOTS vectors of whole rows), resident CTAs of the
 * launch bound, rows per thread in the row phase at most, and the row phase's geometry: a row over
 * fn_fwd_tile_lanes(n) lanes (the fewest, a power of two up to 32, with at most
 * FN_FWD_TILE_MAX_COLS columns each), each lane holding fn_fwd_tile_cols(n) of its columns in
 * registers (the instance); the dynamic shared memory of a tile of `rows` rows (the rows' elements
 * rounded up to whole vectors with a vector's room on either side, then the fp32 effective weight,
 * 16-byte aligned). */
#define FN_FWD_TILE_THREADS 256
#define FN_FWD_TILE_SLOTS 2
#define FN_FWD_TILE_MIN_CTAS 5 /* <= 48 registers (ptxas, nvcc 13.0): no spills in the 48
                                  instances on sm_80, sm_90a and sm_100, 8 bytes in one on sm_120
                                  (f32, fused, 3 columns a lane); at 6 CTAs (40 registers) sm_90a
                                  spilled 16-32 bytes in 10 of them */
#define FN_FWD_TILE_ROWS_PER_THREAD 4 /* a tile of rows of a few elements is rows-bound, not bytes-bound */
#define FN_FWD_TILE_MAX_COLS 8
static inline int fn_fwd_tile_lanes(int64_t n) {
  int l = 1;
  while (l < 32 && (int64_t)l * FN_FWD_TILE_MAX_COLS < n) l *= 2;
  return l;
}
static inline int fn_fwd_tile_cols(int64_t n) {
  const int l = fn_fwd_tile_lanes(n);
  return (int)((n + l - 1) / l);
}
static inline int64_t fn_fwd_tile_smem(int64_t n, int64_t rows, int x_size) {
  return ((rows * n * x_size + 15) / 16 + 2) * 16 + n * 4;
}

/* The forward of rows narrower than a vector (rmsnorm_fwd_tile.cu rms_norm_fwd_thread): a thread
 * owns fn_fwd_thread_rows(n, vec) consecutive rows (their elements whole 16-byte vectors, at most
 * FN_FWD_THREAD_MAX_VECS: the instances, 16-bit n in {1, 2, 3, 4, 6}, f32 n in {1, 2, 3}), CTAs
 * of up to FN_FWD_THREAD_THREADS threads (its launch bound). */
#define FN_FWD_THREAD_THREADS 256
#define FN_FWD_THREAD_MAX_VECS 3
static inline int fn_fwd_thread_rows(int64_t n, int vec) {
  /* vec / gcd(n, vec): vec is a power of two, so the gcd is n's lowest set bit, at most vec */
  const int64_t low = n & -n;
  return vec / (int)(low < vec ? low : vec);
}

/* Lanes of a team that sums by xor shuffles within a warp: the smallest power of two >= x, at
 * most 32. */
static inline int fn_warp_team(int64_t x) {
  int l = 1;
  while (l < 32 && l < x) l *= 2;
  return l;
}

/* The forward of rows of at most 32 whole aligned vectors (rmsnorm_fwd.cu rms_norm_fwd_lanes), or
 * of up to FN_FWD_LANES_MAX_SLOTS at two vectors a lane (the plain forward): CTAs of up to
 * FN_FWD_LANES_THREADS threads (its launch bound), a row over fn_fwd_lanes_team lanes (one per
 * vector of the row, or per two), FN_FWD_LANES_ROWS rows per team loaded at once. */
#define FN_FWD_LANES_THREADS 128
/* Its resident CTAs asked of ptxas: 12 (<= 40 registers) for the single-stride instances, where
 * the probe measured 1.05x over the unbounded N-d kernel (45 registers, 10 CTAs; 16 CTAs, 32
 * registers, spill and ran 0.86-0.91x; H200, kernels/RESULTS.md "The narrow backward's dw
 * combine"); the N-d instances keep ptxas's own choice (0: no count asked; 45-47 registers). At
 * two vectors a lane (twice the registers of x and of the weight) FN_FWD_LANES_MIN_CTAS2. */
#define FN_FWD_LANES_MIN_CTAS2 8
#define FN_FWD_LANES_MIN_CTAS(nd, k) ((nd) ? 0 : (k) == 1 ? 12 : FN_FWD_LANES_MIN_CTAS2)
#define FN_FWD_LANES_ROWS 2
#define FN_FWD_LANES_MAX_SLOTS 64
/* Vectors a lane for rows of `slots` vectors (1 up to a warp's 32, else 2). */
static inline int fn_fwd_lanes_vecs(int64_t slots) { return slots > 32 ? 2 : 1; }
static inline int fn_fwd_lanes_team(int64_t slots) {
  const int k = fn_fwd_lanes_vecs(slots);
  return fn_warp_team((slots + k - 1) / k);
}

/* The tiny kernels (rmsnorm_tiny.cu): a row over fn_tiny_lanes(n) lanes (the smallest power of
 * two >= n, at most 32), each lane holding fn_tiny_cols(n) columns (the instance: 1, 2, 4 or 8)
 * read element by element, so rows of up to FN_TINY_MAX_N columns of any layout. The forward has
 * the one-column instance only (rows of <= 32 columns; wider rows ran slower than the vector
 * kernels, kernels/RESULTS.md): CTAs of at most FN_TINY_FWD_THREADS. The backward: one CTA of at
 * most fn_tiny_bwd_threads(cols) threads (its launch bound: the registers of `cols` columns of
 * dy, s, ds, w and dw), each team holding fn_tiny_bwd_rows(cols) rows at once, and the warps' dw
 * sums in fn_tiny_bwd_smem bytes of dynamic shared memory. */
#define FN_TINY_MAX_COLS 8
#define FN_TINY_MAX_N (32 * FN_TINY_MAX_COLS)
#define FN_TINY_FWD_MAX_N 32
#define FN_TINY_FWD_THREADS 256
#define FN_TINY_BWD_THREADS(cols) ((cols) <= 4 ? 1024 : 512)
#define FN_TINY_BWD_ROWS(cols) ((cols) <= 1 ? 4 : (cols) <= 2 ? 2 : 1)
/* The lean tiny backward (rows of one stride, one row a team: rms_norm_bwd_tiny_lean) at 8 columns a
 * lane holds fewer rows a CTA: at the 512-thread bound (128 registers) ptxas spilled 4-36 bytes
 * (sm_90a, nvcc 13.0), at 256 none; wider CTAs take rms_norm_bwd_tiny. */
#define FN_TINY_BWD_LEAN_THREADS(cols) ((cols) >= 8 ? 256 : FN_TINY_BWD_THREADS(cols))
static inline int fn_tiny_lanes(int64_t n) { return fn_warp_team(n); }
static inline int fn_tiny_cols(int64_t n) {
  const int l = fn_tiny_lanes(n);
  const int64_t per = (n + l - 1) / l;
  int c = 1;
  while (c < per) c *= 2;
  return c;
}
static inline int fn_tiny_bwd_threads(int cols) { return FN_TINY_BWD_THREADS(cols); }
static inline int fn_tiny_bwd_rows(int cols) { return FN_TINY_BWD_ROWS(cols); }
static inline int64_t fn_tiny_bwd_smem(int64_t n, int threads) { return (int64_t)(threads / 32) * n * 4; }

/* Elements per 16-byte vector. */
static inline int fn_vec_elems(fusednorm_dtype x) { return x == FUSEDNORM_F32 ? 4 : 8; }

/* Shared memory per CTA that residency estimates add to a kernel's dynamic shared memory: the
 * driver's reservation (1 KB) and the kernels' static reduction buffers (< 1 KB). */
#define FN_SMEM_RESERVE_PER_CTA 2048
/* Static shared memory of any of our kernels is below this (reduction buffers, the split-row
 * ring's bookkeeping): dynamic + this must fit the device's per-block opt-in limit. */
#define FN_STATIC_SMEM_MAX 1024

/* Largest number of vector slots one CTA keeps in registers (all cache sizes agree). */
#define FN_MAX_CACHED_SLOTS 2048
/* Largest cluster (CTAs per row) the wide backward uses: 8 is the portable maximum (the wide
 * forward's: fn_fwd_wide_max_cluster). */
#define FN_MAX_CLUSTER 8

/* Columns of a row that one CTA of a cluster handles: a multiple of the vector width so that
 * every CTA's slice starts aligned. */
static inline int64_t fn_cluster_chunk(int64_t n, int ctas_per_row, int vec) {
  int64_t c = (n + ctas_per_row - 1) / ctas_per_row;
  return (c + vec - 1) / vec * vec;
}

/* ---- Wide forward (rmsnorm_fwd_wide.cu) ----
 * A row over a thread-block cluster of `cluster` CTAs (compute capability >= 9.0): CTA rank c
 * owns the columns [c*chunk, (c+1)*chunk) (fn_cluster_chunk), holds S = 1, 2 or 4 vector slots per
 * thread of them in registers (the rest of the chunk, where the cluster is at its largest, is
 * streamed: re-read from L2), and the CTAs' partial sums of squares meet in distributed shared
 * memory (without clusters: CTAs of a cooperative grid, the sums through global memory,
 * FN_FWD_WIDE_GRID_*). One read of x (and r), one write of y (and residual_out): the copy's traffic.
 * Launch bound: FN_FWD_WIDE_MAX_THREADS threads and FN_FWD_WIDE_MIN_CTAS CTAs per SM (so at most
 * 64 registers per thread): two CTAs per SM let a 16-CTA cluster fit a GPC of 8 SMs, and give
 * every SM a second CTA's loads while one waits at the cluster barrier. */
#define FN_FWD_WIDE_MAX_THREADS 512
#define FN_FWD_WIDE_MIN_CTAS 2
/* The wide forward of many rows with every slot staged and the weight in registers (the plan's
 * slots_per_thread 0, rmsnorm_fwd_wide.cu rms_norm_fwd_wide_wr): CTAs of
 * FN_FWD_WIDE_WR_THREADS threads, at most FN_FWD_WIDE_WR_SLOTS 16-byte slots a thread (their
 * weight pieces are 4 registers each), FN_FWD_WIDE_WR_MIN_CTAS CTAs an SM (the launch bound: 64
 * registers; ptxas, nvcc 13.0, sm_90a: 64, no spills). Quack's geometry for these rows (256
 * threads, 64 columns a thread of 16-bit rows). In the probe (tools/kerneldev/probes/fwd_wide_q.cu,
 * H200 2026-11-30, against the plans before it) 512 threads at 4 slots (two CTAs an SM) measured
 * 0.93-1.10x where 256 at 8 measured 0.99-1.16x. */
#define FN_FWD_WIDE_WR_THREADS 256
#define FN_FWD_WIDE_WR_SLOTS 8
#define FN_FWD_WIDE_WR_MIN_CTAS 4
/* CTAs per SM of the wide forward where the code has no clusters (compute capability < 9.0): the
 * row's CTAs sum through global memory across a cooperative grid (rmsnorm_fwd_wide.cu
 * grid_push_sum), all resident at once. */
#define FN_FWD_WIDE_GRID_CTAS_PER_SM 1
/* Whole vectors every CTA of such a row keeps at least: a congruent row's head-split interior then
 * still gives each CTA one, whose first word of y carries the CTA's partial sum. */
#define FN_FWD_WIDE_GRID_MIN_TAIL_VECS 2
/* Registers of every instance: the launch bound caps them at 64 (ptxas, nvcc 13.0, sm_90a: 54-56
 * at S = 1, 64 at S = 2, 56-64 at S = 4, no spills). */
#define FN_FWD_WIDE_REGS 64
/* Slots one CTA keeps in registers (512 threads x 4): the cluster is sized to this first. */
#define FN_FWD_WIDE_SLOTS_PER_CTA (FN_FWD_WIDE_MAX_THREADS * 4)
/* Fewest slots per CTA when a cluster is widened to spread few rows over more SMs (128 threads x
 * 4 slots; below it the per-row cluster barrier dominates a CTA's time). A model, not measured. */
#define FN_FWD_WIDE_MIN_SPREAD_SLOTS 512
/* Slots per thread (of `threads`) that a wide-forward CTA may stage in shared memory beyond its
 * registers, `per_slot` bytes each (16; 32 with the fused add's r): half the SM's shared memory
 * less the per-CTA reserve, so that the launch bound's two CTAs per SM stay resident (a 16-CTA
 * cluster must fit a GPC of 8 SMs), within the opt-in limit. */
static inline int64_t fn_fwd_wide_stage_per_thread(const fusednorm_device_info *d, int threads, int per_slot) {
  int64_t b = (int64_t)d->smem_per_sm / FN_FWD_WIDE_MIN_CTAS - FN_SMEM_RESERVE_PER_CTA;
  const int64_t optin = (int64_t)d->smem_per_block_optin - FN_STATIC_SMEM_MAX;
  if (b > optin) b = optin;
  return b <= 0 ? 0 : b / ((int64_t)threads * per_slot);
}
/* Slots per thread that stage past `spt` in registers where the weight of every slot of the thread
 * is staged too (`wb` bytes a slot; 0: fn_fwd_wide_stage_per_thread's). */
static inline int64_t fn_fwd_wide_stage_left(const fusednorm_device_info *d, int threads, int spt, int slot_bytes,
                                             int wb) {
  if (wb == 0) return fn_fwd_wide_stage_per_thread(d, threads, slot_bytes);
  const int64_t b = fn_fwd_wide_stage_per_thread(d, threads, 1) - (int64_t)spt * wb; /* bytes a thread */
  return b <= 0 ? 0 : b / (slot_bytes + wb);
}
/* The wide forward's weight staged in shared memory (the plan's weight_smem): the weight bytes of
 * one vector slot, copied by cp.async with the slot's x on a CTA's first row and read there on
 * every row after (the CTAs loop over rows: select.c fwd_wide), so that the weight crosses from L2
 * once a CTA, not once a row (its bytes, as many as x's where the dtypes match, were what it cost:
 * without a weight the forward of bf16 512 x 262144 ran 157 us against 204; H200, 2026-11-30). 16
 * or 32 (16-byte copies: a 16-bit x's 8 elements of a 16- or 32-bit weight, an f32 x's 4 of an f32
 * weight); 0 where the slot's weight is not whole 16-byte blocks (f32 x, 16-bit weight). */
static inline int fn_fwd_wide_weight_bytes(fusednorm_dtype x, fusednorm_dtype w) {
  const int b = fn_vec_elems(x) * (w == FUSEDNORM_F32 ? 4 : 2);
  return b % 16 == 0 ? b : 0;
}
/* Slots a thread stages past its registers, from the plan's shared memory: per thread, `staged`
 * slots of x (and r) of `slot_bytes` each and, where the weight is staged (`wb` bytes a slot, 0:
 * not), the weight of all its `spt + staged` slots. */
static inline int64_t fn_fwd_wide_staged(size_t smem, int threads, int spt, int slot_bytes, int wb) {
  const int64_t per = (int64_t)(smem / (size_t)threads) - (wb > 0 ? (int64_t)spt * wb : 0);
  return per <= 0 ? 0 : per / (slot_bytes + wb);
}
/* Largest cluster of the wide forward on a device: 16 (non-portable, opted into per kernel with
 * cudaFuncAttributeNonPortableClusterSizeAllowed) on compute capability 9.x and 10.x, whose GPCs
 * hold 16 of these CTAs (two per SM); 8 (the portable maximum) on other cc >= 9 devices; 0 (no
 * clusters) below 9.0. */
static inline int fn_fwd_wide_max_cluster(int cc_major) {
  return cc_major == 9 || cc_major == 10 ? 16 : cc_major > 10 ? 8 : 0;
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
/* Target vector slots per CTA: a CTA's time per row is mostly the exchange's latency chain, so
 * larger chunks move more bytes per exchange, while smaller ones use more SMs and give each CTA
 * more rows to pipeline. fn_split_bwd takes FN_SPLIT_SLOTS_PER_CTA_LARGE (8192 columns bf16) where
 * it uses at least as many CTAs as FN_SPLIT_SLOTS_PER_CTA, leaves every CTA two rows or more and
 * keeps a ring of 4 rows or more (the fewest measured: the fused add on 228 KB of shared memory;
 * devices of 100 KB would get 2); else FN_SPLIT_SLOTS_PER_CTA. Measured on an H200
 * (kernels/RESULTS.md, "The split-row backward's larger chunks"; AUTO, bf16 and fp32, plain and
 * fused, cold and hot): the large target everywhere gave 1.25x over 80 measurements (bf16 1024 x
 * 65536 bwd 287.9 -> 212.6 us, f32 1844 x 69916 1215.6 -> 719.3, bf16 36 x 296932 123.0 -> 73.3),
 * but 0.78x at bf16 8 x 131072 (one row a CTA), 0.93x at f32 36 x 296932 (73 CTAs instead of 132)
 * and 0.96-0.98x at bf16 16 x 1048576 (128 instead of 132): the cases the rule keeps on the
 * smaller target. */
#define FN_SPLIT_SLOTS_PER_CTA 512
#define FN_SPLIT_SLOTS_PER_CTA_LARGE 1024
/* Target threads per CTA (more slots per thread beyond it). 512 rather than 256: H200,
 * 2026-11-22 03:31 UTC, bench_modes --bwd, same run: bf16 1024x65536 1217 -> 1417 GB/s,
 * 512x262144 1219 -> 1412, 256x1048576 1379 -> 1693; fused add 1620 -> 1873, 1626 -> 1876,
 * 1839 -> 2238; f32 1024x65536 1498 -> 1700, 256x1048576 1489 -> 1487 (twice the warps per SM to
 * hide the per-row exchange latency). test_cuda --quick --mode=wide and its memcheck passed with it. */
#define FN_SPLIT_THREADS 512
#define FN_SPLIT_MAX_STAGES 8
/* The lookahead of a ring of 3 rows (else half the ring): 2, so that a row's partial dots are
 * published a whole row before their total is needed. With 1 (half of 3, rounded down) the total
 * is needed right after the CTA publishes its own part, and every row waits out the exchange's
 * round trip across the row's CTAs. A ring of 3 is what rows of 55-74 KB a CTA get (f32 rows of
 * ~0.9-1.2M columns, the fused add's of ~0.6-0.8M, over 132 CTAs on an H200); there 2 measured
 * 1.53-1.67x (H200 2026-11-30, bench_modes AUTO, paired: f32 256 x 1048576 bwd 2045.6 -> 1228.0
 * us, 300 x 1000000 2287.7 -> 1370.3, fused 512 x 786432 3745.8 -> 2445.6;
 * tools/bench/results/split_lookahead_h200_2026-11-30), the copies then one row ahead of their
 * dot instead of two. Forcing a ring of 3 everywhere (FN_SPLIT_MAX_STAGES 3) with it passed
 * test_cuda --mode=wide and its memcheck. */
#define FN_SPLIT_LOOKAHEAD_OF_3 2
/* The fused add leaves ds out of the ring (plan ds_direct; rows not head-split, where that makes
 * the ring hold more rows): the dx pass loads ds from global memory itself, issued before the
 * row's exchange wait. Taken where the ring of dy, s and ds would hold fewer rows than
 * FN_SPLIT_DS_DIRECT_BELOW (a ring of 2 can only have a lookahead of 1, and every row waits out the
 * exchange, see FN_SPLIT_LOOKAHEAD_OF_3; e.g. f32 rows of ~0.8-1.2M columns over 132 CTAs, whose
 * ring then holds 3: 1.62-1.70x), and in CTAs of FN_SPLIT_DS_DIRECT_MIN_THREADS threads or more
 * (the deeper ring, its longer lookahead and fewer copies a row: 1.08-1.23x on nine such fused
 * shapes, bf16 and f32, 16 to 4096 rows of 65536 to 1048576 columns; H200 2026-11-30, bench_modes
 * AUTO, paired: tools/bench/results/split_ds_direct_h200_2026-11-30) or of at most
 * FN_SPLIT_DS_DIRECT_MAX_SPT slots a thread (f32 fused rows of 11020-26720 columns over 3-7 CTAs,
 * 416-480 threads at two slots: 1.003-1.17x, 600 x 11020 61.0 -> 52.1 us, 4096 x 16400 391.9 ->
 * 354.2; tools/bench/results/f32_many_rows_h200_2026-11-30). The one CTA measured slower with it,
 * ds out of a ring of 4, had both fewer threads and four slots a thread, whose four ds loads then
 * wait in the dx pass (f32 1024 x 600000, 288 threads: 0.90x), so such CTAs keep ds in the ring. */
#define FN_SPLIT_DS_DIRECT_BELOW 3
#define FN_SPLIT_DS_DIRECT_MIN_THREADS 512
#define FN_SPLIT_DS_DIRECT_MAX_SPT 2
/* CTAs per row at most (warp 0 sums a row's partials, 32 x 8 per warp; H200: 132 SMs). */
#define FN_SPLIT_MAX_CTAS_PER_ROW 256
/* Launch bound per instance (slots per thread 1, 2, 4; x element size): spill-free under ptxas
 * (nvcc 13.0, sm_90a; bazel build --define=cuda_ptxas_verbose=1): 16-bit SPT 4 (64 fp32
 * weight + dw registers) spilled 156 bytes at 128 registers (512 threads), none at 256 threads. */
#define FN_SPLIT_MAX_THREADS(spt, xsize) ((spt) == 1 ? 1024 : (spt) == 2 || (xsize) == 4 ? 512 : 256)

typedef struct {
  int gc, gr;          /* CTAs per row (column chunks) and row groups: grid = gc x gr */
  int threads, spt;    /* threads per CTA, vector slots per thread (1, 2 or 4) */
  int64_t chunk;       /* columns per CTA (a multiple of the vector width) */
  int stages, lookahead;
  size_t smem;         /* dynamic shared memory of the ring */
  int ds_direct;       /* the fused add's ds not in the ring (FN_SPLIT_DS_DIRECT_*) */
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
/* f32 congruent rows that are not aligned keep the same threshold: between 2048 and 4096 slots
 * the cluster kernel (element by element on them) was faster with many rows than the split-row
 * kernel's head-split ring (H100, 2026-11-27 00:16 UTC, bench harness, AUTO: f32 4000 x 8195 262
 * vs 544 us). The 16-bit ones measured so then too (bf16 2174 x 22915 425 vs 465 us, 4000 x 16391
 * 575 vs 680, fused 132 x 16391 40.5 vs 46.6), but the split-row kernel's larger chunks that
 * followed turned that round (H200, 2026-11-28: 1.11-1.68x the split-row kernel's way) and select.c
 * takes it for them below this width (FN_AUTO_BWD_SPLIT16_*). */

/* Shared memory the split-row ring may take in one CTA: the SM's less the driver's per-CTA reserve,
 * within the per-block opt-in limit less the static shared memory. */
static inline int64_t fn_split_ring_budget(const fusednorm_device_info *d) {
  const int64_t sm = (int64_t)d->smem_per_sm - 4096, optin = (int64_t)d->smem_per_block_optin - FN_STATIC_SMEM_MAX;
  return sm < optin ? sm : optin;
}

/* 1 and the geometry if the split-row backward handles this problem on device `d`, else 0.
 * `auto_mode`: the problem's mode is AUTO (then only rows of more than FN_SPLIT_AUTO_MIN_SLOTS).
 * `head_split`: congruent rows that are not
 * aligned, staged as whole 16-byte vectors from each row's head, one vector more per chunk
 * (rmsnorm_bwd_wide.cu). The ring takes what one CTA may have (fn_split_ring_budget). */
static inline int fn_split_bwd_target(int64_t rows, int64_t n, fusednorm_dtype x, int has_weight,
                                      int has_residual, int auto_mode, int head_split,
                                      const fusednorm_device_info *d, int64_t target, fn_split_geom *g) {
  const int sm_count = d->sm_count;
  const int vec = fn_vec_elems(x);
  const int64_t xs = x == FUSEDNORM_F32 ? 4 : 2;
  const int64_t slots = (n + vec - 1) / vec;
  int64_t gc, chunk_slots, per, budget, stage;
  int spt;
  if (!has_weight || rows < 1 || sm_count < 1) return 0; /* no workspace without a weight */
  if (auto_mode && slots <= FN_SPLIT_AUTO_MIN_SLOTS) return 0;
  gc = (slots + target - 1) / target;
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
  stage = (2 + (has_residual ? 1 : 0)) * (g->chunk * xs + (head_split ? 16 : 0));
  budget = fn_split_ring_budget(d);
  g->ds_direct = 0;
  if (has_residual && !head_split && budget / (2 * g->chunk * xs) > budget / stage &&
      (budget / stage < FN_SPLIT_DS_DIRECT_BELOW || g->threads >= FN_SPLIT_DS_DIRECT_MIN_THREADS ||
       g->spt <= FN_SPLIT_DS_DIRECT_MAX_SPT)) {
    g->ds_direct = 1;
    stage = 2 * g->chunk * xs;
  }
  g->stages = (int)(budget / stage);
  if (g->stages > FN_SPLIT_MAX_STAGES) g->stages = FN_SPLIT_MAX_STAGES;
  if (g->stages < 2) return 0;
  g->lookahead = g->stages == 3 ? FN_SPLIT_LOOKAHEAD_OF_3 : g->stages / 2;
  g->smem = (size_t)g->stages * (size_t)stage;
  return 1;
}

static inline int fn_split_bwd(int64_t rows, int64_t n, fusednorm_dtype x, int has_weight,
                               int has_residual, int auto_mode, int head_split, const fusednorm_device_info *d,
                               fn_split_geom *g) {
  fn_split_geom large;
  const int ok = fn_split_bwd_target(rows, n, x, has_weight, has_residual, auto_mode, head_split, d,
                                     FN_SPLIT_SLOTS_PER_CTA, g);
  if (fn_split_bwd_target(rows, n, x, has_weight, has_residual, auto_mode, head_split, d,
                          FN_SPLIT_SLOTS_PER_CTA_LARGE, &large) &&
      (!ok || (int64_t)large.gc * large.gr >= (int64_t)g->gc * g->gr) && rows >= 2 * (int64_t)large.gr &&
      large.stages >= 4) {
    *g = large;
    return 1;
  }
  return ok;
}

/* Workspace bytes of the split-row backward beyond the partial dw: the partial dots. */
static inline int64_t fn_split_extra_bytes(int64_t rows, const fn_split_geom *g) {
  return rows * (int64_t)g->gc * 4;
}

#ifdef __cplusplus
}
#endif
#endif /* FUSEDNORM_CUDA_LAUNCH_CONFIG_H_ */
