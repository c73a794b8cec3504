/*
 * rmsnorm_fwd_warp.cu — the warp forward: a warp a row, element by element, for rows of 33-512
 * columns of one stride (select.c fwd_warp says which).
 *
 *   rms_norm_fwd_warp<T, K, FUSED>  lane l holds columns l, l + 32, ..., l + 32 (K - 1) of its
 *       row in registers (K = fn_fwd_warp_cols(n), an instance of at least ceil(n / 32)): every
 *       load of the row, and the lane's weight bits, issued at once (unconditional, from a column
 *       that exists, zeroed past the row); the warp's xor tree; the stores. FN_FWD_WARP_WARPS
 *       warps a CTA, a warp a row, a grid that covers the rows: no row loop, no shared memory, no
 *       barrier, 32-bit column offsets from one row pointer.
 *
 * Why: for rows that are not whole aligned 16-byte vectors (odd widths, rows at 2- or 4-byte
 * boundaries) the vector families' head-split instances and the flat tiles pay per row for the
 * head and tail, staging and the N-d row index; Inductor's kernel for such rows reads them
 * element by element with a warp a row. Measured on an H200 (kernels/RESULTS.md, "The warp
 * forward"): with 16 rows an SM or fewer this kernel took 0.57-0.94x the time of those families;
 * f32 rows of 65-384 columns 0.67-1.02x at any row count (about even with the fused
 * add's head-split rows); 16-bit rows of 129-320 columns up to 1024 rows an SM (256 with the
 * fused add) 0.77-1.01x. Where the rows are whole vectors, or 16-bit rows are many and narrow,
 * the vector families move more bytes a load and stay.
 *
 * Contract (kernels/README.md): s = RN(x + r) (fused add, written to residual_out), rstd =
 * 1/sqrt(mean(s^2) + eps) with a true division and sqrtf, y = RN(s*rstd*w_eff) or LLAMA
 * RN(RN_T(s*rstd)*w_eff). Sum order: a lane's squares in column order, then the warp's xor tree
 * (offsets 16, 8, 4, 2, 1), as in rms_norm_fwd_tiny's teams; the instance's columns past the row
 * add +0 and change nothing, so the bits do not depend on which instance covers the row.
 */
#include "kernels/cuda/rmsnorm_common.cuh"
#include "kernels/cuda/rmsnorm_launch.cuh"
#include "kernels/cuda/rmsnorm_unaligned.cuh"

namespace fn {

template <typename T, int K, bool FUSED>
__global__ void __launch_bounds__(FN_FWD_WARP_THREADS) rms_norm_fwd_warp(const LeanFwdParams p) {
  const int lane = (int)threadIdx.x & 31;
  const int64_t row = (int64_t)blockIdx.x * FN_FWD_WARP_WARPS + ((int)threadIdx.x >> 5);
  if (row >= p.rows) return; /* a whole warp: the xor tree below needs every lane */
  const int n = p.n;
  const T *xr = static_cast<const T *>(p.x) + row * p.x_stride;
  float s[K], r[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int c = lane + 32 * k;
    const float v = ld_elem(xr, tiny_col(c, n));
    s[k] = c < n ? v : 0.0f;
  }
  if (FUSED) {
    const T *rr = static_cast<const T *>(p.r) + row * p.r_stride;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int c = lane + 32 * k;
      const float v = ld_elem(rr, tiny_col(c, n));
      r[k] = c < n ? v : 0.0f;
    }
  }
  uint32_t wb[K];
  float w[K];
  tiny_wbits<K>(wb, p.w, p.w_dtype, xr, lane, 32, n);
  tiny_weff<K>(w, wb, p.w != nullptr, p.w_dtype, p.offset, lane, 32, n);
  if (FUSED) {
    T *ror = static_cast<T *>(p.ro) + row * p.ro_stride;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int c = lane + 32 * k;
      s[k] = round_to<T>(s[k] + r[k]);
      if (c < n) st_elem(ror, c, s[k]);
    }
  }
  float ss = 0.0f; /* (past the row s is +0: adds nothing) */
#pragma unroll
  for (int k = 0; k < K; ++k) ss = fmaf(s[k], s[k], ss);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
  const float rstd = rstd_of(ss, n, p.eps);
  if (p.rstd != nullptr && lane == 0) p.rstd[row] = rstd;
  T *yr = static_cast<T *>(p.y) + row * p.y_stride;
  with_llama(p.llama, [&](auto llama_c) {
    constexpr bool L = decltype(llama_c)::value;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int c = lane + 32 * k;
      if (c < n) st_elem(yr, c, normalize_elem<T, L>(s[k], w[k], rstd));
    }
  });
}

template <typename T, int K>
static const void *fwd_warp_kernel_k(bool fused) {
  return fused ? reinterpret_cast<const void *>(&rms_norm_fwd_warp<T, K, true>)
               : reinterpret_cast<const void *>(&rms_norm_fwd_warp<T, K, false>);
}

/* FN_FWD_WARP_INSTANCES (launch_config.h) */
template <typename T>
static const void *fwd_warp_kernel_for(int cols, bool fused) {
  switch (cols) {
    case 2: return fwd_warp_kernel_k<T, 2>(fused);
    case 3: return fwd_warp_kernel_k<T, 3>(fused);
    case 4: return fwd_warp_kernel_k<T, 4>(fused);
    case 5: return fwd_warp_kernel_k<T, 5>(fused);
    case 6: return fwd_warp_kernel_k<T, 6>(fused);
    case 8: return fwd_warp_kernel_k<T, 8>(fused);
    case 10: return fwd_warp_kernel_k<T, 10>(fused);
    case 12: return fwd_warp_kernel_k<T, 12>(fused);
    case 16: return fwd_warp_kernel_k<T, 16>(fused);
  }
  return nullptr;
}

const void *fwd_warp_kernel(fusednorm_dtype x, int cols, bool fused) {
  switch (x) {
    case FUSEDNORM_F32: return fwd_warp_kernel_for<float>(cols, fused);
    case FUSEDNORM_F16: return fwd_warp_kernel_for<__half>(cols, fused);
    case FUSEDNORM_BF16: return fwd_warp_kernel_for<__nv_bfloat16>(cols, fused);
  }
  return nullptr;
}

}  // namespace fn
