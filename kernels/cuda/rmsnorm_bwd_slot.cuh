/*
 * rmsnorm_bwd_slot.cuh — the backward's per-slot arithmetic, shared by the one-CTA / cluster
 * family (rmsnorm_bwd.cu), the lean persistent backward (rmsnorm_bwd_row.cu) and the split-row
 * wide backward (rmsnorm_bwd_wide.cu), so that every mode rounds exactly the same way; and the
 * row-packed teams' dw combine.
 */
#ifndef FUSEDNORM_CUDA_RMSNORM_BWD_SLOT_CUH_
#define FUSEDNORM_CUDA_RMSNORM_BWD_SLOT_CUH_

#include <cooperative_groups.h>

#include "kernels/cuda/rmsnorm_common.cuh"
#include "kernels/cuda/rmsnorm_launch.cuh"

namespace fn {

/* The roundings follow the naive fp32 formula exactly (g = RN(dy*w), RN(n*mean), RN(g - .),
 * RN(rstd * .), RN(. + ds)), with intrinsics so that nvcc cannot contract them into FMAs: an
 * FMA's exact dy*w minus the rounded g of the dot product leaves a spurious residual where the
 * formula cancels (n = +-1, e.g. n = 1 or LLAMA rounding), measured as failures at N = 1. */
/* dx is evaluated at the true point h = s*rstd in every casting (the gradient of the forward
 * with its roundings passed straight through); only dw takes LLAMA's RN_T(h), the value y was
 * made from. `llama` is therefore unused in the dot product. */
template <typename T>
__device__ __forceinline__ float slot_dot(const Vec<T> &dv, const Vec<T> &sv, const float (&wv)[Vec<T>::N],
                                          float rs, bool llama, float dot) {
  (void)llama;
#pragma unroll
  for (int e = 0; e < Vec<T>::N; ++e) {
    const float h = elem_f(sv, e) * rs;
    dot = fmaf(__fmul_rn(elem_f(dv, e), wv[e]), h, dot);
  }
  return dot;
}

/* dx of a slot, and dy*n added to dw. */
template <typename T>
__device__ __forceinline__ void slot_dx(Vec<T> &dxv, const Vec<T> &dv, const Vec<T> &sv, const Vec<T> &dsv,
                                        bool has_ds, const float (&wv)[Vec<T>::N], float rs, float mean_gn,
                                        bool llama, float (&dw)[Vec<T>::N]) {
  constexpr int N = Vec<T>::N;
  float f[N];
#pragma unroll
  for (int e = 0; e < N; ++e) {
    const float dy = elem_f(dv, e);
    const float h = elem_f(sv, e) * rs;
    float d = __fmul_rn(rs, __fsub_rn(__fmul_rn(dy, wv[e]), __fmul_rn(h, mean_gn)));
    if (has_ds) d = __fadd_rn(d, elem_f(dsv, e));
    f[e] = d;
    dw[e] = fmaf(dy, llama ? round_to<T>(h) : h, dw[e]); /* unused (and dead) without weight */
  }
  from_floats(dxv, f);
}

/* A compensated partial sum: the value is s - c (c holds the rounding errors committed so far,
 * the convention of a Kahan sum: y = v - c; t = s + y; c = (t - s) - y; s = t). */
struct Comp2 {
  float s, c;
};

/* A compensation stays finite: once the sum is +-Inf or NaN its error term would be
 * Inf - Inf = NaN, and the next term would turn an infinite sum (float64's answer for an
 * infinite dy, or for a sum past FLT_MAX) into NaN. The sum alone then carries the value, as
 * in an uncompensated sum; finite sums keep every bit. */
__device__ __forceinline__ float finite_comp(float sum, float c) { return fabsf(sum) < INFINITY ? c : 0.0f; }

/* (a.s - a.c) + (b.s - b.c) as a pair: the sums' exact TwoSum error joins the compensations.
 * Symmetric in a and b, bit for bit (fp addition commutes and TwoSum's error is the exact
 * residual), so both lanes of a butterfly exchange hold the same pair afterwards. Intrinsics
 * keep nvcc from reassociating. */
__device__ __forceinline__ Comp2 comp2_add(Comp2 a, Comp2 b) {
  const float t = __fadd_rn(a.s, b.s);
  const float bb = __fsub_rn(t, a.s);
  const float err = __fadd_rn(__fsub_rn(a.s, __fsub_rn(t, bb)), __fsub_rn(b.s, bb)); /* a.s + b.s - t */
  return Comp2{t, finite_comp(t, __fsub_rn(__fadd_rn(a.c, b.c), err))};
}

/* A compensated running sum (Kahan), with intrinsics so that nvcc cannot fuse or reorder it. */
struct Kahan {
  float s = 0.0f, c = 0.0f;
  __device__ __forceinline__ void add(float v) {
    const float y = __fsub_rn(v, c);
    const float t = __fadd_rn(s, y);
    c = finite_comp(t, __fsub_rn(__fsub_rn(t, s), y));
    s = t;
  }
};

/* dw[col] = v in the weight's dtype (RN-even). */
__device__ __forceinline__ void store_dw(void *dw, int w_dtype, int64_t col, float v) {
  switch (w_dtype) {
    case FUSEDNORM_F32: static_cast<float *>(dw)[col] = v; break;
    case FUSEDNORM_F16: static_cast<__half *>(dw)[col] = __float2half_rn(v); break;
    default: static_cast<__nv_bfloat16 *>(dw)[col] = __float2bfloat16_rn(v); break;
  }
}

/* dw of one column from P <= FN_DW_IN_KERNEL_MAX_PARTIALS partial rows: their sum in row order,
 * compensated (Kahan), before the one rounding to the weight's dtype. With so few rows,
 * dw_reduce's 32 slices would hold at most one row each, and combining them costs a barrier and
 * dependent steps per level of its tree, which a grid of a few CTAs pays column block after
 * column block; this chain costs P.
 * Used by dw_reduce_chain and by dw_reduce_in_kernel alike, so both give the same bits. */
__device__ __forceinline__ float dw_chain(const float *ws, int P, int n, int col) {
  constexpr int kBatch = 8; /* loads in flight, then their adds in order */
  Kahan k;
  const float *src = ws + col;
  for (int u = 0; u < P; u += kBatch) {
    float v[kBatch];
#pragma unroll
    for (int i = 0; i < kBatch; ++i) v[i] = u + i < P ? src[(int64_t)(u + i) * n] : 0.0f;
#pragma unroll
    for (int i = 0; i < kBatch; ++i)
      if (u + i < P) k.add(v[i]);
  }
  return k.s;
}

/* Column `col` of a CTA's partial dw row: to its workspace row, or, where the kernel sums dw
 * itself (dw non-NULL) and the grid is this one CTA, straight to dw in the weight's dtype: the
 * one-row sum dw_chain would make of it is the value itself, bit for bit (a Kahan sum from +0
 * adds it exactly), so this skips a global round trip and a barrier, not a rounding. */
__device__ __forceinline__ void partial_out(float *wsrow, void *dw, int w_dtype, int col, float v) {
  if (dw != nullptr && gridDim.x == 1) store_dw(dw, w_dtype, col, v);
  else wsrow[col] = v;
}

/* The partial rows' sum into dw inside the backward kernel itself (BwdParams.dw set: the plan's
 * dw_in_kernel, a cooperative launch of at most FN_DW_IN_KERNEL_MAX_PARTIALS CTAs), for small
 * problems, where a second launch would be a large part of the time: after a grid-wide barrier
 * (every CTA's partial row written), dw_chain's sum per column. Where every thread has two
 * columns or more, kDwCols of them at once: a column at a time waited one memory round trip per
 * column (H100, 2026-11-27, us a backward, one column at a time -> four: f32 4 x 1000 9.7 ->
 * 8.6, bf16 8 x 1024 8.0 -> 7.7, 2 x 4096 13.7 -> 12.1; but with a column per thread 10-12%
 * slower: bf16 32 x 4096 11.2 -> 12.6, f32 16 x 5000 10.0 -> 11.3). Not inlined: its registers
 * stay out of the row loop's allocation. Called by every thread of the grid. */
static __device__ __noinline__ void dw_reduce_in_kernel(const float *ws, int P, int n, void *dw, int w_dtype) {
  constexpr int kDwCols = 4, kBatch = 8; /* columns, and rows of each, loaded before their adds */
  if (gridDim.x == 1) return; /* the CTA wrote dw itself (partial_out) */
  cooperative_groups::this_grid().sync();
  const int threads = (int)(gridDim.x * blockDim.x), t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (n < 2 * threads) {
    for (int col = t; col < n; col += threads) store_dw(dw, w_dtype, col, dw_chain(ws, P, n, col));
    return;
  }
  for (int c0 = t; c0 < n; c0 += kDwCols * threads) {
    Kahan k[kDwCols];
    for (int u = 0; u < P; u += kBatch) {
      float v[kDwCols][kBatch];
#pragma unroll
      for (int i = 0; i < kDwCols; ++i) {
        const int col = c0 + i * threads;
#pragma unroll
        for (int b = 0; b < kBatch; ++b) v[i][b] = col < n && u + b < P ? ws[(int64_t)(u + b) * n + col] : 0.0f;
      }
#pragma unroll
      for (int i = 0; i < kDwCols; ++i)
#pragma unroll
        for (int b = 0; b < kBatch; ++b)
          if (u + b < P) k[i].add(v[i][b]); /* dw_chain's order: the same bits */
    }
#pragma unroll
    for (int i = 0; i < kDwCols; ++i)
      if (c0 + i * threads < n) store_dw(dw, w_dtype, c0 + i * threads, k[i].s);
  }
}

/* Row-packed backward: every team covers the whole row in its cached slots (C per thread); add
 * the teams' dw up in a fixed order, then write the CTA's partial row. Called by every thread of
 * the CTA.
 *   Teams narrower than a warp (team a power of two, as team_sum needs): first the teams of a
 *   warp, by a butterfly over the lanes that hold the same columns (log2(32 / team) shuffle
 *   steps, no barrier), then the warps in warp order. With narrow rows a CTA holds up to 256
 *   teams: a barrier per team would cost ~20-100 us in a kernel that moves a few bytes (measured
 *   on an H100).
 *   Teams of a warp or more: the teams in team order.
 * The groups (warps, or teams) are then added in group order, as compensated pairs (the sum over
 * up to 256 teams is most of a narrow row's dw sum), one of two ways with the same bits (the
 * same chain of comp2_add from group 0 on):
 *   ROWS = false: one running pair per column in `smem` (n sums and n compensations), a group
 *     after the other, a barrier each;
 *   ROWS = true: every group's pairs to its own rows of `smem` (2 x groups x n floats: the
 *     row-pipelined backward's fn_bwd_pipe_smem), one barrier, then a thread per column runs the
 *     chain. A barrier per group costs the row-pipelined backward ~5 us of a 24 us bf16
 *     65536 x 128 backward, most of its combine (H200, kernels/RESULTS.md).
 * Deterministic: the order depends on the launch only. */
template <int N, int C, bool ROWS = false>
__device__ __forceinline__ void combine_team_dw(const float (&dwc)[C][N], const Place &pl, int col0, int step,
                                                float *smem, float *wsrow, void *dw = nullptr, int w_dtype = 0) {
  Comp2 acc[C][N];
#pragma unroll
  for (int k = 0; k < C; ++k)
#pragma unroll
    for (int e = 0; e < N; ++e) acc[k][e] = Comp2{dwc[k][e], 0.0f};
  int groups = pl.teams, group = pl.team_idx;
  bool leader = true; /* this thread writes its group's pair */
  if (pl.team < 32 && (blockDim.x & 31u) == 0) { /* (whole warps: the shuffles' full mask) */
    for (int off = pl.team; off < 32; off <<= 1) {
#pragma unroll
      for (int k = 0; k < C; ++k)
#pragma unroll
        for (int e = 0; e < N; ++e) {
          const Comp2 o{__shfl_xor_sync(0xffffffffu, acc[k][e].s, off), __shfl_xor_sync(0xffffffffu, acc[k][e].c, off)};
          acc[k][e] = comp2_add(acc[k][e], o);
        }
    }
    groups = (int)(blockDim.x >> 5);
    group = (int)(threadIdx.x >> 5);
    leader = (int)(threadIdx.x & 31) < pl.team;
  }
  if (ROWS) {
    float *sum = smem + (int64_t)group * pl.c1, *comp = smem + (int64_t)(groups + group) * pl.c1;
    if (leader) {
#pragma unroll
      for (int k = 0; k < C; ++k) {
        const int col = col0 + k * step;
#pragma unroll
        for (int e = 0; e < N; ++e)
          if (col + e < pl.c1) {
            sum[col + e] = acc[k][e].s;
            comp[col + e] = acc[k][e].c;
          }
      }
    }
    __syncthreads();
    for (int j = threadIdx.x; j < pl.c1; j += blockDim.x) {
      Comp2 v{smem[j], smem[(int64_t)groups * pl.c1 + j]};
      for (int g = 1; g < groups; ++g) v = comp2_add(v, Comp2{smem[(int64_t)g * pl.c1 + j], smem[(int64_t)(groups + g) * pl.c1 + j]});
      partial_out(wsrow, dw, w_dtype, j, __fsub_rn(v.s, v.c));
    }
    return;
  }
  float *sum = smem, *comp = smem + pl.c1;
  for (int g = 0; g < groups; ++g) {
    if (group == g && leader) {
#pragma unroll
      for (int k = 0; k < C; ++k) {
        const int col = col0 + k * step;
#pragma unroll
        for (int e = 0; e < N; ++e) {
          if (col + e < pl.c1) {
            Comp2 v = acc[k][e];
            if (g > 0) v = comp2_add(Comp2{sum[col + e], comp[col + e]}, v);
            sum[col + e] = v.s;
            comp[col + e] = v.c;
          }
        }
      }
    }
    __syncthreads();
  }
  for (int j = threadIdx.x; j < pl.c1; j += blockDim.x) partial_out(wsrow, dw, w_dtype, j, __fsub_rn(sum[j], comp[j]));
}

}  // namespace fn

#endif /* FUSEDNORM_CUDA_RMSNORM_BWD_SLOT_CUH_ */
