/*
 * rmsnorm_bwd_slot.cuh — the backward's per-slot arithmetic, shared by the one-CTA / cluster
 * family (rmsnorm_bwd.cu), the lean persistent backward (rmsnorm_bwd_row.cu) and the split-row
 * wide backward (rmsnorm_bwd_wide.cu), so that every mode rounds exactly the same way; and the
 * row-packed teams' dw combine.
 */
#ifndef FUSEDNORM_CUDA_RMSNORM_BWD_SLOT_CUH_
#define FUSEDNORM_CUDA_RMSNORM_BWD_SLOT_CUH_

#include "kernels/cuda/rmsnorm_common.cuh"

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

/* Row-packed backward: every team covers the whole row in its cached slots (C per thread); add
 * the teams' dw up in team order in shared memory (n sums + n compensations at `smem`: Kahan,
 * since with narrow rows this sequential sum over up to 256 teams is most of the dw sum), then
 * write the CTA's partial row. Called by every thread of the CTA. */
template <int N, int C>
__device__ __forceinline__ void combine_team_dw(const float (&dwc)[C][N], const Place &pl, int col0, int step,
                                                float *smem, float *wsrow) {
  float *sum = smem, *comp = smem + pl.c1;
  for (int t = 0; t < pl.teams; ++t) {
    if (pl.team_idx == t) {
#pragma unroll
      for (int k = 0; k < C; ++k) {
        const int col = col0 + k * step;
#pragma unroll
        for (int e = 0; e < N; ++e) {
          if (col + e < pl.c1) {
            if (t == 0) {
              sum[col + e] = dwc[k][e];
              comp[col + e] = 0.0f;
            } else {
              const float y = __fsub_rn(dwc[k][e], comp[col + e]);
              const float u = __fadd_rn(sum[col + e], y);
              comp[col + e] = __fsub_rn(__fsub_rn(u, sum[col + e]), y);
              sum[col + e] = u;
            }
          }
        }
      }
    }
    __syncthreads();
  }
  for (int j = threadIdx.x; j < pl.c1; j += blockDim.x) wsrow[j] = sum[j];
}

}  // namespace fn

#endif /* FUSEDNORM_CUDA_RMSNORM_BWD_SLOT_CUH_ */
