/*
 * rmsnorm_fwd_warp.cu — the warp forward: a warp a row (or two), element by element, for rows of
 * 33-512 columns of one stride (select.c fwd_warp says which).
 *
 *   rms_norm_fwd_warp<T, K, FUSED, R>  lane l holds columns l, l + 32, ..., l + 32 (K - 1) of
 *       each of its warp's R rows in registers (K = fn_fwd_warp_cols(n), an instance of at least
 *       ceil(n / 32)): the rows' loads, then the lane's weight bits, issued before any is used
 *       (each predicated by its column, 0 past the row); per row the warp's xor
 *       tree and the stores. FN_FWD_WARP_WARPS warps a CTA, a grid that covers the rows: no row
 *       loop, no shared memory, no barrier, 32-bit column offsets from one row pointer. R = 2
 *       (two rows a warp) only for the plain forward, up to FN_FWD_WARP2_B16_MAX_COLS /
 *       FN_FWD_WARP2_F32_MAX_COLS columns a lane (fn_fwd_warp2_built).
 *
 * Why: for rows that are not whole aligned 16-byte vectors (odd widths, rows at 2- or 4-byte
 * boundaries) the vector families' head-split instances and the flat tiles pay per row for the
 * head and tail, staging and the N-d row index; Inductor's kernel for such rows reads them
 * element by element, a warp for one or two rows. Measured on an H200 (kernels/RESULTS.md, "The
 * warp forward", "Two rows a warp"): with 16 rows an SM or fewer one row a warp took 0.57-0.94x
 * the time of those families; f32 rows of 65-384 columns 0.67-1.02x at any row count (about even
 * with the fused add's head-split rows). Two rows a warp keep twice the bytes in flight a warp and
 * load the weight once for both; where select.c fwd_warp_rows takes them they ran 1.02-1.23x (35
 * held-out cases, 1.10x). Not built: 12 and 16 columns a lane, where ptxas waits for the first
 * row's values before issuing the second row's loads (0.75-0.81x at 450 columns), nor the fused
 * add (x and r of two rows, 92-144 registers). Where the rows are whole vectors, or are many and
 * narrow, the vector families move more bytes a load and stay.
 *
 * Contract (kernels/README.md): s = RN(x + r) (fused add, written to residual_out), rstd =
 * 1/sqrt(mean(s^2) + eps) with a true division and sqrtf, y = RN(s*rstd*w_eff) or LLAMA
 * RN(RN_T(s*rstd)*w_eff). Sum order: a lane's squares in column order, then the warp's xor tree
 * (offsets 16, 8, 4, 2, 1), as in rms_norm_fwd_tiny's teams; the instance's columns past the row
 * add +0 and change nothing, so the bits depend neither on which instance covers the row nor on R.
 */
#include "kernels/cuda/rmsnorm_common.cuh"
#include "kernels/cuda/rmsnorm_launch.cuh"
#include "kernels/cuda/rmsnorm_unaligned.cuh"
#include "kernels/cuda/rmsnorm_warp.cuh"

namespace fn {

/* A row's outputs from its s (and r) in registers: residual_out, rstd, y. */
template <typename T, int K, bool FUSED>
__device__ __forceinline__ void warp_row_out(const LeanFwdParams &p, int64_t row, int lane, int n, float (&s)[K],
                                             const float (&r)[K], const float (&w)[K]) {
  if (FUSED) {
    T *rol = lane_ptr(static_cast<T *>(p.ro) + row * p.ro_stride + lane);
#pragma unroll
    for (int k = 0; k < K; ++k) {
      s[k] = round_to<T>(s[k] + r[k]);
      st_elem_if<T>(rol + 32 * k, s[k], lane + 32 * k < n);
    }
  }
  float ss = 0.0f; /* (past the row s is +0: adds nothing) */
#pragma unroll
  for (int k = 0; k < K; ++k) ss = fmaf(s[k], s[k], ss);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
  const float rstd = rstd_of(ss, n, p.eps);
  if (p.rstd != nullptr && lane == 0) p.rstd[row] = rstd;
  T *yl = lane_ptr(static_cast<T *>(p.y) + row * p.y_stride + lane);
  with_llama(p.llama, [&](auto llama_c) {
    constexpr bool L = decltype(llama_c)::value;
#pragma unroll
    for (int k = 0; k < K; ++k) st_elem_if<T>(yl + 32 * k, normalize_elem<T, L>(s[k], w[k], rstd), lane + 32 * k < n);
  });
}

template <typename T, int K, bool FUSED, int R>
__global__ void __launch_bounds__(FN_FWD_WARP_THREADS) rms_norm_fwd_warp(const LeanFwdParams p) {
  static_assert(R == 1 || (R == 2 && !FUSED), "two rows a warp: the plain forward only");
  const int lane = (int)threadIdx.x & 31;
  const int64_t row = ((int64_t)blockIdx.x * FN_FWD_WARP_WARPS + ((int)threadIdx.x >> 5)) * R;
  if (row >= p.rows) return; /* a whole warp: the xor tree below needs every lane */
  const int n = p.n;
  const T *xr = static_cast<const T *>(p.x) + row * p.x_stride;
  float s[K], r[K], w[K];
  uint32_t wb[K], xb[K];
  warp_row_bits<T, K>(xb, xr, lane, n);
  if constexpr (R == 1) {
    uint32_t rb[K];
    if (FUSED) warp_row_bits<T, K>(rb, static_cast<const T *>(p.r) + row * p.r_stride, lane, n);
    warp_wbits<K>(wb, p.w, p.w_dtype, xr, lane, n);
    elems_of_bits<T, K>(s, xb);
    if (FUSED) elems_of_bits<T, K>(r, rb);
    tiny_weff<K>(w, wb, p.w != nullptr, p.w_dtype, p.offset, lane, 32, n);
    warp_row_out<T, K, FUSED>(p, row, lane, n, s, r, w);
  } else {
    /* the second row (the last one again past the rows: loaded, unused) before the weight */
    float s2[K];
    uint32_t xb2[K];
    const bool two = row + 1 < p.rows;
    warp_row_bits<T, K>(xb2, two ? xr + p.x_stride : xr, lane, n);
    warp_wbits<K>(wb, p.w, p.w_dtype, xr, lane, n);
    elems_of_bits<T, K>(s, xb);
    elems_of_bits<T, K>(s2, xb2);
    tiny_weff<K>(w, wb, p.w != nullptr, p.w_dtype, p.offset, lane, 32, n);
    warp_row_out<T, K, false>(p, row, lane, n, s, r, w);
    if (two) warp_row_out<T, K, false>(p, row + 1, lane, n, s2, r, w);
  }
}

/* V elements of T as one load: 4 or 8 bytes. */
template <int BYTES> struct WarpLoad;
template <> struct WarpLoad<4> { using type = uint32_t; };
template <> struct WarpLoad<8> { using type = uint2; };

/* The sub-vector instance: rows (every start) and the weight on a boundary of V elements of T, n a
 * multiple of V; lane l holds loads l + 32 k of each of its warp's two rows (V consecutive columns
 * each), the rows' loads then the weight's before any is used; per row the lane's squares in
 * column order, the warp's xor tree, the stores as whole loads. The plain forward only. */
template <typename T, int V, int K>
__global__ void __launch_bounds__(FN_FWD_WARP_THREADS) rms_norm_fwd_warp_vec(const LeanFwdParams p) {
  using U = typename WarpLoad<V * sizeof(T)>::type;
  const int lane = (int)threadIdx.x & 31;
  const int64_t row = ((int64_t)blockIdx.x * FN_FWD_WARP_WARPS + ((int)threadIdx.x >> 5)) * 2;
  if (row >= p.rows) return; /* a whole warp: the xor tree below needs every lane */
  const int n = p.n, nv = n / V;
  const bool two = row + 1 < p.rows;
  const U *x0 = reinterpret_cast<const U *>(static_cast<const T *>(p.x) + row * p.x_stride);
  const U *x1 = two ? reinterpret_cast<const U *>(static_cast<const T *>(p.x) + (row + 1) * p.x_stride) : x0;
  /* without a weight, bits of the row (unused): no branch between the loads */
  const U *wv = p.w != nullptr ? static_cast<const U *>(p.w) : x0;
  U a[K], b[K], wu[K];
#pragma unroll
  for (int k = 0; k < K; ++k) a[k] = x0[min(lane + 32 * k, nv - 1)];
#pragma unroll
  for (int k = 0; k < K; ++k) b[k] = x1[min(lane + 32 * k, nv - 1)];
#pragma unroll
  for (int k = 0; k < K; ++k) wu[k] = __ldg(wv + min(lane + 32 * k, nv - 1));
  float w[K][V];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const T *e = reinterpret_cast<const T *>(&wu[k]);
#pragma unroll
    for (int i = 0; i < V; ++i) w[k][i] = p.w != nullptr ? to_f(e[i]) + p.offset : 1.0f;
  }
  auto out = [&](int64_t r, const U (&u)[K]) {
    float s[K][V];
    float ss = 0.0f;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const T *e = reinterpret_cast<const T *>(&u[k]);
      const bool in = lane + 32 * k < nv; /* past the row: +0, adds nothing */
#pragma unroll
      for (int i = 0; i < V; ++i) {
        s[k][i] = in ? to_f(e[i]) : 0.0f;
        ss = fmaf(s[k][i], s[k][i], ss);
      }
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
    const float rstd = rstd_of(ss, n, p.eps);
    if (p.rstd != nullptr && lane == 0) p.rstd[r] = rstd;
    U *yr = reinterpret_cast<U *>(static_cast<T *>(p.y) + r * p.y_stride);
    with_llama(p.llama, [&](auto llama_c) {
      constexpr bool L = decltype(llama_c)::value;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (lane + 32 * k < nv) {
          U o;
          T *e = reinterpret_cast<T *>(&o);
#pragma unroll
          for (int i = 0; i < V; ++i) e[i] = from_f<T>(normalize_elem<T, L>(s[k][i], w[k][i], rstd));
          yr[lane + 32 * k] = o;
        }
      }
    });
  };
  out(row, a);
  if (two) out(row + 1, b);
}

/* FN_FWD_WARP_VEC_MIN_N..MAX_N: V = 2, K = 2..5; V = 4, K = 1..3 */
template <typename T>
static const void *fwd_warp_vec_kernel_for(int v, int cols) {
  if (v == 2) switch (cols) {
      case 2: return reinterpret_cast<const void *>(&rms_norm_fwd_warp_vec<T, 2, 2>);
      case 3: return reinterpret_cast<const void *>(&rms_norm_fwd_warp_vec<T, 2, 3>);
      case 4: return reinterpret_cast<const void *>(&rms_norm_fwd_warp_vec<T, 2, 4>);
      case 5: return reinterpret_cast<const void *>(&rms_norm_fwd_warp_vec<T, 2, 5>);
    }
  if (v == 4) switch (cols) {
      case 1: return reinterpret_cast<const void *>(&rms_norm_fwd_warp_vec<T, 4, 1>);
      case 2: return reinterpret_cast<const void *>(&rms_norm_fwd_warp_vec<T, 4, 2>);
      case 3: return reinterpret_cast<const void *>(&rms_norm_fwd_warp_vec<T, 4, 3>);
    }
  return nullptr;
}

const void *fwd_warp_vec_kernel(fusednorm_dtype x, int load_elems, int cols) {
  switch (x) {
    case FUSEDNORM_F16: return fwd_warp_vec_kernel_for<__half>(load_elems, cols);
    case FUSEDNORM_BF16: return fwd_warp_vec_kernel_for<__nv_bfloat16>(load_elems, cols);
    default: return nullptr; /* 16-bit rows only (select.c fwd_warp_load_elems) */
  }
}

template <typename T, int K>
static const void *fwd_warp_kernel_k(bool fused, int rows_per_warp) {
  if (fused) return rows_per_warp == 1 ? reinterpret_cast<const void *>(&rms_norm_fwd_warp<T, K, true, 1>) : nullptr;
  if (rows_per_warp == 1) return reinterpret_cast<const void *>(&rms_norm_fwd_warp<T, K, false, 1>);
  if constexpr (K <= (sizeof(T) == 2 ? FN_FWD_WARP2_B16_MAX_COLS : FN_FWD_WARP2_F32_MAX_COLS)) /* fn_fwd_warp2_built */
    if (rows_per_warp == 2) return reinterpret_cast<const void *>(&rms_norm_fwd_warp<T, K, false, 2>);
  return nullptr;
}

/* FN_FWD_WARP_INSTANCES (launch_config.h) */
template <typename T>
static const void *fwd_warp_kernel_for(int cols, bool fused, int rows_per_warp) {
  switch (cols) {
    case 2: return fwd_warp_kernel_k<T, 2>(fused, rows_per_warp);
    case 3: return fwd_warp_kernel_k<T, 3>(fused, rows_per_warp);
    case 4: return fwd_warp_kernel_k<T, 4>(fused, rows_per_warp);
    case 5: return fwd_warp_kernel_k<T, 5>(fused, rows_per_warp);
    case 6: return fwd_warp_kernel_k<T, 6>(fused, rows_per_warp);
    case 8: return fwd_warp_kernel_k<T, 8>(fused, rows_per_warp);
    case 10: return fwd_warp_kernel_k<T, 10>(fused, rows_per_warp);
    case 12: return fwd_warp_kernel_k<T, 12>(fused, rows_per_warp);
    case 16: return fwd_warp_kernel_k<T, 16>(fused, rows_per_warp);
  }
  return nullptr;
}

const void *fwd_warp_kernel(fusednorm_dtype x, int cols, bool fused, int rows_per_warp) {
  switch (x) {
    case FUSEDNORM_F32: return fwd_warp_kernel_for<float>(cols, fused, rows_per_warp);
    case FUSEDNORM_F16: return fwd_warp_kernel_for<__half>(cols, fused, rows_per_warp);
    case FUSEDNORM_BF16: return fwd_warp_kernel_for<__nv_bfloat16>(cols, fused, rows_per_warp);
  }
  return nullptr;
}

}  // namespace fn
