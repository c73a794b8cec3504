/*
 * rmsnorm_unaligned.cuh — the head-split of a row for the lean kernels' U instances
 * (rmsnorm_fwd_row.cu, rmsnorm_bwd_row.cu): rows whose tensors are congruent modulo 16 bytes
 * (fusednorm_layout.congruent16: every tensor's row r starts the same number of bytes off a
 * 16-byte boundary) but not aligned, or whose length is not a multiple of the vector.
 *
 * A row of n elements splits into
 *   head     [0, h)             h = elements before the first 16-byte boundary (< one vector),
 *                               from the row's own address, so it may change from row to row
 *                               (a row stride that is not a multiple of 16 bytes);
 *   interior [h, h + m*N)       m whole 16-byte vectors, loaded and stored as in the aligned
 *                               kernels (slot k of thread t: column h + (k*blockDim + t)*N);
 *   tail     [h + m*N, n)       fewer than N elements.
 * The head and tail ("edge") elements, at most 2(N-1), go one per thread: head element e to
 * thread e, tail element e to thread blockDim-1-e (blockDim >= 32 > 2(N-1): no thread gets two). Each
 * edge element is handled with the same per-element formulas as a slot element, so the numerics
 * are the aligned kernels' (kernels/README.md); only the summation order of the row's reduction
 * differs (each thread adds its edge element after its slots), fixed by the row's address, hence
 * the same on every run.
 *
 * The weight cannot be read as vectors: a slot's columns start at h + k*N, and h moves with the
 * row while the weight stays put. The forward reads it element-wise (L1-resident); the backward
 * stages it in shared memory in fp32 and reads it element-wise there.
 */
#ifndef FUSEDNORM_CUDA_RMSNORM_UNALIGNED_CUH_
#define FUSEDNORM_CUDA_RMSNORM_UNALIGNED_CUH_

#include "kernels/cuda/rmsnorm_common.cuh"

namespace fn {

/* Where a row's vectors start and which edge element (if any) this thread owns. */
struct RowSplit {
  int h;    /* head elements (<= n) */
  int ecol; /* this thread's edge column, or -1 */
};

template <typename T> __device__ __forceinline__ RowSplit row_split(const void *row, int n) {
  constexpr int N = Vec<T>::N;
  RowSplit r;
  r.h = (int)(((16u - ((unsigned)(uintptr_t)row & 15u)) & 15u) / sizeof(T));
  if (r.h > n) r.h = n;
  const int tail0 = r.h + (n - r.h) / N * N, tail = n - tail0;
  const int back = (int)blockDim.x - 1 - (int)threadIdx.x;
  r.ecol = (int)threadIdx.x < r.h ? (int)threadIdx.x : back < tail ? tail0 + back : -1;
  return r;
}

/* Rows apart in which a row tensor's addresses modulo 16 bytes repeat: 16 / gcd(16, the row
 * stride in bytes), 1 to 8 (fn_bwd_row_period's value, on the device). The head-split backwards
 * of rows of one stride give each CTA or row group the rows of one residue class of it. */
template <typename T> __device__ __forceinline__ int row_period(int64_t stride) {
  const unsigned sb = (unsigned)((uint64_t)stride * sizeof(T)) & 15u;
  return sb == 0u ? 1 : 16 >> (__ffs((int)sb) - 1);
}

/* One element of a row as fp32 / stored from fp32 (RN-even). */
template <typename T> __device__ __forceinline__ float ld_elem(const T *row, int col) { return to_f(row[col]); }
template <typename T> __device__ __forceinline__ void st_elem(T *row, int col, float v) { row[col] = from_f<T>(v); }

/* The raw weight bits of one column: a 4-byte weight (W32) or a 16-bit one in the low half. */
template <bool W32> __device__ __forceinline__ uint32_t ld_wbits(const void *w, int col) {
  if constexpr (W32) return __ldg(static_cast<const unsigned int *>(w) + col);
  else return (uint32_t)__ldg(static_cast<const unsigned short *>(w) + col);
}

/* NW 4-byte words from p, at any byte alignment, as the 16-byte blocks that cover them, where
 * those blocks lie inside [lo, hi) (the tensor's bytes, so that no load leaves it); false (and
 * nothing loaded) otherwise. A head-split slot's weight starts wherever the row's head puts it:
 * read element by element that is N loads of 2 or 4 bytes a slot, each a warp-wide access of 32
 * lanes 16 bytes apart (4 L1 wavefronts apiece, 32 a slot for a 16-bit weight), where the
 * covering blocks are 2-3 16-byte loads (8-12 wavefronts). The byte shift is branch-free: two
 * word selects (by 2, then by 1 word) and a funnel shift, the same instructions for any offset. */
template <int NW>
__device__ __forceinline__ bool ld_words_shifted(uint32_t (&o)[NW], const void *p, uintptr_t lo, uintptr_t hi) {
  constexpr int NB = (NW * 4 + 15) / 16 + 1; /* blocks at the most (a misaligned start) */
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const unsigned off = (unsigned)a & 15u;
  const uintptr_t b0 = a - off;
  const int nb = (int)((off + 4u * NW + 15u) >> 4); /* blocks this start needs */
  if (b0 < lo || b0 + 16u * (unsigned)nb > hi) return false;
  uint32_t W[NB * 4];
#pragma unroll
  for (int i = 0; i < NB; ++i) {
    uint4 v = make_uint4(0u, 0u, 0u, 0u);
    if (i < nb) v = __ldg(reinterpret_cast<const uint4 *>(b0) + i);
    W[4 * i] = v.x; W[4 * i + 1] = v.y; W[4 * i + 2] = v.z; W[4 * i + 3] = v.w;
  }
  const unsigned q = off >> 2, sh = (off & 3u) * 8u;
  uint32_t W2[NW + 2], W1[NW + 1];
#pragma unroll
  for (int i = 0; i < NW + 2; ++i) W2[i] = (q & 2u) ? W[i + 2] : W[i];
#pragma unroll
  for (int i = 0; i < NW + 1; ++i) W1[i] = (q & 1u) ? W2[i + 1] : W2[i];
#pragma unroll
  for (int j = 0; j < NW; ++j) o[j] = __funnelshift_r(W1[j], W1[j + 1], sh);
  return true;
}

/* The effective weight of one column from its raw bits (1 exactly without a weight). */
template <bool W32> __device__ __forceinline__ float wbits_eff(uint32_t b, bool has_w, bool wbf16, float offset) {
  if (!has_w) return 1.0f;
  float v;
  if constexpr (W32) v = __uint_as_float(b);
  else v = wbf16 ? __uint_as_float(b << 16) : __half2float(__ushort_as_half((unsigned short)b));
  return v + offset;
}

/* The CTA's effective weight, element by element: put(c, w_eff) for every column c < n, K loads
 * of a thread in flight at once (one at a time, a row of 1750 columns over 64 threads waits ~28
 * memory round trips). Without a weight, 1. The first K columns of a thread are straight-line
 * code ahead of the loop for the rest: ptxas waits for every load in flight on entering a loop
 * that issues loads, so a loop here would make the caller's row loads, issued just before, land
 * before the weight's go out (two memory round trips, not one). */
template <int K, typename Put>
__device__ __forceinline__ void stage_weight_elems(const void *w, int w_dtype, float offset, int n, Put put) {
  const bool w32 = w_dtype == FUSEDNORM_F32, wbf16 = w_dtype == FUSEDNORM_BF16;
  if (w == nullptr) {
    for (int c = (int)threadIdx.x; c < n; c += (int)blockDim.x) put(c, 1.0f);
    return;
  }
  auto batch = [&](int c0) {
    uint32_t b[K];
    /* Columns past the row load the last one (unused): no select on a loaded value. */
#pragma unroll
    for (int i = 0; i < K; ++i) {
      const int c = min(c0 + i * (int)blockDim.x, n - 1);
      b[i] = w32 ? ld_wbits<true>(w, c) : ld_wbits<false>(w, c);
    }
#pragma unroll
    for (int i = 0; i < K; ++i) {
      const int c = c0 + i * (int)blockDim.x;
      if (c < n) put(c, w32 ? wbits_eff<true>(b[i], true, false, offset) : wbits_eff<false>(b[i], true, wbf16, offset));
    }
  };
  batch((int)threadIdx.x);
  for (int c0 = (int)threadIdx.x + K * (int)blockDim.x; c0 < n; c0 += K * (int)blockDim.x) batch(c0);
}

/* load_weight (rmsnorm_common.cuh) for a head-split slot: the N columns from `col`, all inside
 * the row (col + N <= n, the weight's n elements), whatever the weight's alignment there. A 16-bit
 * weight of 16-bit rows (16 bytes a slot, 8 element loads) comes as the shifted 16-byte blocks
 * that cover the slot (ld_words_shifted) where those lie inside the weight, else (the weight's
 * ends: a row's first or last slot) element by element; a 4-byte weight, or a 16-bit one of f32
 * rows (4 element loads a slot), element by element (with the blocks, f32 rows measured 0.93-0.96x,
 * H200 2026-11-29). */
template <int N>
__device__ __forceinline__ void load_weight_u(float (&out)[N], const void *w, int w_dtype, float offset, int col,
                                              int n) {
  if (w == nullptr) {
#pragma unroll
    for (int e = 0; e < N; ++e) out[e] = 1.0f;
    return;
  }
  if (w_dtype == FUSEDNORM_F32) {
    const float *wp = static_cast<const float *>(w) + col;
#pragma unroll
    for (int e = 0; e < N; ++e) out[e] = __ldg(wp + e) + offset;
    return;
  }
  uint32_t o[N / 2];
  const unsigned short *wp = static_cast<const unsigned short *>(w) + col;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(w);
  if (N != 8 || !ld_words_shifted<N / 2>(o, wp, lo, lo + (uintptr_t)n * 2u)) {
#pragma unroll
    for (int i = 0; i < N / 2; ++i) o[i] = (uint32_t)__ldg(wp + 2 * i) | ((uint32_t)__ldg(wp + 2 * i + 1) << 16);
  }
  if (w_dtype == FUSEDNORM_BF16) {
#pragma unroll
    for (int e = 0; e < N; ++e) out[e] = bf16_packed(o, e) + offset;
  } else {
#pragma unroll
    for (int e = 0; e < N; ++e) out[e] = f16_packed(o, e) + offset;
  }
}

/* The forward's y of one element (normalize_slot's formula). */
template <typename T, bool LLAMA> __device__ __forceinline__ float normalize_elem(float s, float w, float rstd) {
  const float nrm = s * rstd;
  return (LLAMA ? round_to<T>(nrm) : nrm) * w;
}

/* The forward's s of an edge element: x, or with the fused add RN(x + r), stored to residual_out
 * (the generic and wide forwards; the lean kernel issues these loads with its slots'). */
template <typename T>
__device__ __forceinline__ float edge_s(const T *xr, const T *rr, T *ror, int col, bool fused) {
  float s = ld_elem(xr, col);
  if (fused) {
    s = round_to<T>(s + ld_elem(rr, col));
    st_elem(ror, col, s);
  }
  return s;
}

/* The forward's y of an edge element, its weight read on its own (load_weight's arguments). */
template <typename T, bool LLAMA>
__device__ __forceinline__ void edge_y(T *yr, int col, float s, float rstd, const void *w, int w_dtype, float offset,
                                       int n) {
  float we[1];
  load_weight<1>(we, w, w_dtype, offset, col, n, false);
  st_elem(yr, col, normalize_elem<T, LLAMA>(s, we[0], rstd));
}

/* The backward's dot-product term and dx / dw of one element (slot_dot, slot_dx). */
__device__ __forceinline__ float elem_dot(float dy, float s, float w, float rs, float dot) {
  return fmaf(__fmul_rn(dy, w), s * rs, dot);
}
template <typename T>
__device__ __forceinline__ float elem_dx(float dy, float s, float ds, bool has_ds, float w, float rs, float mean_gn,
                                         bool llama, float &dw) {
  const float h = s * rs;
  float d = __fmul_rn(rs, __fsub_rn(__fmul_rn(dy, w), __fmul_rn(h, mean_gn)));
  if (has_ds) d = __fadd_rn(d, ds);
  dw = fmaf(dy, llama ? round_to<T>(h) : h, dw);
  return d;
}

/* The element-wise forwards (rmsnorm_tiny.cu, rmsnorm_fwd_warp.cu): a lane's columns c = lane +
 * j * lanes. Loads are unconditional, from a column that exists (past the row: its last one), and
 * the values past the row are zeroed after the load: a load under a branch is issued only when the
 * branch is reached, which puts a row's loads one after another instead of all in flight. */
__device__ __forceinline__ int tiny_col(int c, int n) { return c < n ? c : n - 1; }

/* A lane's weight bits for its J columns, loaded and not yet used; without a weight, bits of
 * `any` (a row of the problem, at a column that exists), ignored. Branch-free, so that the
 * compiler issues these loads together with the rows' and converts them (tiny_weff) after: a
 * value converted before a branch is waited for there, and loading the weight behind one after
 * the rows' loads (or converting it before issuing them) puts two memory latencies in a row on a
 * kernel whose time is one latency. */
template <int J>
__device__ __forceinline__ void tiny_wbits(uint32_t (&b)[J], const void *wp, int w_dtype, const void *any, int lane,
                                           int lanes, int n) {
  const void *src = wp != nullptr ? wp : any;
  const bool w32 = wp != nullptr && w_dtype == FUSEDNORM_F32;
#pragma unroll
  for (int j = 0; j < J; ++j) {
    const int c = tiny_col(lane + j * lanes, n);
    b[j] = w32 ? ld_wbits<true>(src, c) : ld_wbits<false>(src, c);
  }
}

/* The effective weights of a lane's J columns from their bits (0 past the row; 1 without a
 * weight). */
template <int J>
__device__ __forceinline__ void tiny_weff(float (&w)[J], const uint32_t (&b)[J], bool has_w, int w_dtype,
                                          float offset, int lane, int lanes, int n) {
  const bool w32 = w_dtype == FUSEDNORM_F32, wbf16 = w_dtype == FUSEDNORM_BF16;
#pragma unroll
  for (int j = 0; j < J; ++j) {
    const float v = w32 ? wbits_eff<true>(b[j], has_w, false, offset) : wbits_eff<false>(b[j], has_w, wbf16, offset);
    w[j] = lane + j * lanes < n ? v : 0.0f;
  }
}

}  // namespace fn

#endif /* FUSEDNORM_CUDA_RMSNORM_UNALIGNED_CUH_ */
