/*
 * rmsnorm_bwd_warp.cu — the warp backward: a warp a row at a time, element by element, for rows
 * of FN_BWD_WARP_MIN_N..FN_BWD_WARP_MAX_N columns of one stride (select.c bwd_warp says which).
 *
 *   rms_norm_bwd_warp<T, K, HAS_DS>  lane l holds columns l, l + 32, ..., l + 32 (K - 1) of its
 *       warp's row (K = fn_bwd_warp_cols(n)), each loaded as one predicated load at a constant
 *       offset from the lane's pointer, 0 past the row (rmsnorm_warp.cuh); FN_BWD_WARP_WARPS
 *       warps a CTA on a persistent grid, warp w of CTA b taking rows b * warps + w + i * G
 *       (G: the grid's warps) with the next row's loads in flight while the current one is
 *       reduced and written (two register sets, as rms_norm_bwd_pipe); the lane's effective
 *       weights loaded once, after its first two rows' loads; dw per column in the lane's
 *       registers over its rows, then the CTA's warps combined in warp order into the CTA's
 *       partial row (combine_team_dw), reduced by dw_reduce.
 *
 * Why: rows that are not whole aligned 16-byte vectors (odd widths, rows at 2- or 4-byte
 * boundaries) run the row-pipelined backward's element-wise slot loads there: a lane's four (f32)
 * or eight (16-bit) consecutive elements each behind a guard and its own address, a warp's load
 * instruction touching 4 or 8 times the bytes it uses, and at two slots a lane (f32 129-256
 * columns) 94-118 registers, two CTAs an SM. Here a warp's load is one contiguous run of 32
 * elements and a column one instruction; the warp forward showed what that is worth on such rows
 * (kernels/RESULTS.md "The warp forward's loads predicated").
 *
 * Contract (kernels/README.md): per row, with rstd from the forward, h = s*rstd, g = dy*w_eff,
 * dx = RN_T(rstd*(g - h*mean(g*h)) [+ ds]) and dw += dy*n (n = h, LLAMA RN_T(h)): elem_dot /
 * elem_dx, the arithmetic of every family. Sum orders, fixed by the launch: a row's dot lane by
 * lane in column order, then the warp's xor tree (offsets 16, 8, 4, 2, 1); dw per column over a
 * lane's rows in row order, then the CTA's warps in warp order as compensated pairs, then the
 * CTAs' partial rows by dw_reduce. Deterministic for a given grid (the plan's, from the SMs).
 */
#include "kernels/cuda/rmsnorm_bwd_slot.cuh"
#include "kernels/cuda/rmsnorm_common.cuh"
#include "kernels/cuda/rmsnorm_launch.cuh"
#include "kernels/cuda/rmsnorm_unaligned.cuh"
#include "kernels/cuda/rmsnorm_warp.cuh"

namespace fn {

/* One row's loaded bits (dy, s and the fused add's ds) and its rstd. */
template <int K> struct WarpBwdRow {
  uint32_t dy[K], s[K], ds[K];
  float rs;
};

template <typename T, int K, bool HAS_DS>
__global__ void __launch_bounds__(FN_BWD_WARP_THREADS, FN_BWD_WARP_MIN_CTAS(K)) rms_norm_bwd_warp(const BwdParams p) {
  extern __shared__ float dyn_smem[]; /* fn_bwd_warp_smem(n): the warps' dw pairs */
  const int lane = (int)threadIdx.x & 31, warp = (int)threadIdx.x >> 5;
  const int n = p.n;
  const int64_t rows = p.rows;
  const int64_t rstep = (int64_t)gridDim.x * FN_BWD_WARP_WARPS;
  /* A row's loads (none for a warp past the rows: the whole warp skips them), in column order. */
  auto fetch = [&](WarpBwdRow<K> &r, int64_t row) {
    if (row >= rows) return;
    r.rs = p.rstd[row];
    warp_row_bits<T, K>(r.dy, static_cast<const T *>(p.dy) + row * p.dy_stride, lane, n);
    warp_row_bits<T, K>(r.s, static_cast<const T *>(p.s) + row * p.s_stride, lane, n);
    if (HAS_DS) warp_row_bits<T, K>(r.ds, static_cast<const T *>(p.ds) + row * p.ds_stride, lane, n);
  };
  float w[K], dw[K];
#pragma unroll
  for (int k = 0; k < K; ++k) dw[k] = 0.0f;
  auto process = [&](const WarpBwdRow<K> &r, int64_t row) {
    float dy[K], s[K];
    elems_of_bits<T, K>(dy, r.dy);
    elems_of_bits<T, K>(s, r.s);
    float dot = 0.0f;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const float d = elem_dot(dy[k], s[k], w[k], r.rs, dot);
      dot = lane + 32 * k < n ? d : dot; /* past the row: nothing (0 * rstd is NaN for an infinite rstd) */
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, off);
    const float mean_gn = dot / (float)n;
    T *dxl = lane_ptr(static_cast<T *>(p.dx) + row * p.dx_stride + lane);
#pragma unroll
    for (int k = 0; k < K; ++k) {
      /* (past the row dw takes dy * n = 0 and is never written out) */
      const float d = elem_dx<T>(dy[k], s[k], HAS_DS ? elem_of_bits<T>(r.ds[k]) : 0.0f, HAS_DS, w[k], r.rs, mean_gn,
                                 p.llama != 0, dw[k]);
      st_elem_if<T>(dxl + 32 * k, d, lane + 32 * k < n);
    }
  };

  WarpBwdRow<K> a, b;
  int64_t row = (int64_t)blockIdx.x * FN_BWD_WARP_WARPS + warp;
  /* The weight after the first two rows' loads are in flight: converted before them, the CTA would
   * wait for it first (two memory round trips, not one). */
  fetch(a, row);
  fetch(b, row + rstep);
  {
    uint32_t wb[K];
    warp_wbits<K>(wb, p.w, p.w_dtype, p.dy, lane, n);
    tiny_weff<K>(w, wb, p.w != nullptr, p.w_dtype, p.offset, lane, 32, n);
  }
  for (; row < rows; row += 2 * rstep) {
    process(a, row);
    if (row + rstep >= rows) break;
    fetch(a, row + 2 * rstep);
    process(b, row + rstep);
    fetch(b, row + 3 * rstep);
  }
  if (p.ws == nullptr) return; /* no weight: no dw (the whole CTA returns here) */
  /* The CTA's Place for combine_team_dw, a team a warp (the warps in warp order), set field by
   * field: make_place's general team arithmetic costs some instances 2-6 registers (ptxas). */
  Place pl;
  pl.team = 32;
  pl.lane = lane;
  pl.team_idx = warp;
  pl.teams = FN_BWD_WARP_WARPS;
  pl.crank = 0;
  pl.unit = blockIdx.x;
  pl.units = gridDim.x;
  pl.c0 = 0;
  pl.c1 = n;
  float dwc[K][1];
#pragma unroll
  for (int k = 0; k < K; ++k) dwc[k][0] = dw[k];
  /* (the plan never sums dw in this kernel: dw_reduce does, so no dw here) */
  combine_team_dw<1, K, true>(dwc, pl, lane, 32, dyn_smem, p.ws + (int64_t)blockIdx.x * n);
}

template <typename T, int K> static const void *bwd_warp_kernel_k(bool has_ds) {
  return has_ds ? reinterpret_cast<const void *>(&rms_norm_bwd_warp<T, K, true>)
                : reinterpret_cast<const void *>(&rms_norm_bwd_warp<T, K, false>);
}

/* FN_BWD_WARP_INSTANCES (launch_config.h) */
template <typename T> static const void *bwd_warp_kernel_for(int cols, bool has_ds) {
  switch (cols) {
    case 2: return bwd_warp_kernel_k<T, 2>(has_ds);
    case 3: return bwd_warp_kernel_k<T, 3>(has_ds);
    case 4: return bwd_warp_kernel_k<T, 4>(has_ds);
    case 5: return bwd_warp_kernel_k<T, 5>(has_ds);
    case 6: return bwd_warp_kernel_k<T, 6>(has_ds);
    case 8: return bwd_warp_kernel_k<T, 8>(has_ds);
  }
  return nullptr;
}

const void *bwd_warp_kernel(fusednorm_dtype x, int cols, bool has_ds) {
  switch (x) {
    case FUSEDNORM_F32: return bwd_warp_kernel_for<float>(cols, has_ds);
    case FUSEDNORM_F16: return bwd_warp_kernel_for<__half>(cols, has_ds);
    case FUSEDNORM_BF16: return bwd_warp_kernel_for<__nv_bfloat16>(cols, has_ds);
  }
  return nullptr;
}

}  // namespace fn
