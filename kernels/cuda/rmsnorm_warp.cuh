/*
 * rmsnorm_warp.cuh — element-wise row access for a warp a row (the warp forward,
 * rmsnorm_fwd_warp.cu, and the warp backward, rmsnorm_bwd_warp.cu): lane l holds columns
 * l + 32 k of a row, each one predicated load or store at a constant offset from the lane's
 * pointer, 0 past the row.
 */
#ifndef FUSEDNORM_CUDA_RMSNORM_WARP_CUH_
#define FUSEDNORM_CUDA_RMSNORM_WARP_CUH_

#include <type_traits>

#include "kernels/cuda/rmsnorm_common.cuh"

namespace fn {

/* An element's value from its bits as loaded (zero-extended into 32): 0 bits are +0 in every dtype. */
template <typename T> __device__ __forceinline__ float elem_of_bits(uint32_t b) {
  if constexpr (sizeof(T) == 4) return __uint_as_float(b);
  else if constexpr (std::is_same<T, __nv_bfloat16>::value) return __uint_as_float(b << 16);
  else return __half2float(__ushort_as_half((unsigned short)b));
}

/* The bits of *p where `on` (else 0) as one predicated load: 2 or 4 bytes. Written as PTX because
 * nvcc 13.0 wraps a guarded C++ load in a jump (bra.uni over the ld in the PTX), which ptxas
 * need not turn back into predication; volatile so that the loads keep their program order
 * (a row's, then the weight's: test_load_order). */
template <int BYTES, bool NC> __device__ __forceinline__ uint32_t ld_bits_if(const void *p, bool on) {
  uint32_t v;
  if constexpr (BYTES == 4 && NC)
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %2, 0; mov.b32 %0, 0; @q ld.global.nc.u32 %0, [%1]; }" : "=r"(v) : "l"(p), "r"((int)on));
  else if constexpr (BYTES == 4)
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %2, 0; mov.b32 %0, 0; @q ld.global.u32 %0, [%1]; }" : "=r"(v) : "l"(p), "r"((int)on));
  else if constexpr (NC)
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %2, 0; mov.b32 %0, 0; @q ld.global.nc.u16 %0, [%1]; }" : "=r"(v) : "l"(p), "r"((int)on));
  else
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %2, 0; mov.b32 %0, 0; @q ld.global.u16 %0, [%1]; }" : "=r"(v) : "l"(p), "r"((int)on));
  return v;
}

/* *p = v where `on`, as one predicated store (the stores' counterpart of ld_bits_if). */
template <typename T> __device__ __forceinline__ void st_elem_if(T *p, float v, bool on) {
  const T t = from_f<T>(v);
  if constexpr (sizeof(T) == 4)
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %2, 0; @q st.global.b32 [%0], %1; }" ::"l"(p), "r"(__float_as_uint(to_f(t))), "r"((int)on));
  else
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %2, 0; @q st.global.b16 [%0], %1; }" ::"l"(p), "h"(*reinterpret_cast<const unsigned short *>(&t)), "r"((int)on));
}

/* p, opaque to the compiler's address arithmetic: the lane's pointer is computed once and its
 * columns 32 k elements on are constant offsets from it (folded into each load and store), where
 * otherwise nvcc merged the row's 64-bit index with each column's and computed every address
 * whole (4 instructions a load). */
template <typename P> __device__ __forceinline__ P *lane_ptr(P *p) {
  asm("" : "+l"(p));
  return p;
}

/* A lane's K columns of one row as loaded bits, zero past the row: one predicated load a column
 * (guarded by the column) from one pointer, the row's plus the lane, at constant offsets of 32 k
 * elements. Clamping the column into the row instead (an unconditional load a column) costs each
 * load its own 64-bit address: the clamp, a sign extension, a 64-bit add and two LEAs, 7
 * instructions, and the kernel is bound by the instructions it executes (the fp16 10-column
 * instance's SASS and Nsight Compute, H200 2026-12-01; kernels/RESULTS.md). The bits are converted
 * (elem_of_bits) only after the weight's loads are in flight: a value converted ahead of
 * warp_wbits's dtype test is waited for there (test_load_order). */
template <typename T, int K>
__device__ __forceinline__ void warp_row_bits(uint32_t (&b)[K], const T *row, int lane, int n) {
  const T *rl = lane_ptr(row + lane);
#pragma unroll
  for (int k = 0; k < K; ++k) b[k] = ld_bits_if<sizeof(T), false>(rl + 32 * k, lane + 32 * k < n);
}

template <typename T, int K> __device__ __forceinline__ void elems_of_bits(float (&s)[K], const uint32_t (&b)[K]) {
#pragma unroll
  for (int k = 0; k < K; ++k) s[k] = elem_of_bits<T>(b[k]);
}

/* A lane's weight bits for its K columns (what tiny_wbits gives, 0 past the row), loaded as
 * warp_row_bits loads a row, under a test of the dtype, uniform over the warp (a 4-byte and a
 * 16-bit load a column, merged, made ptxas wait for the weight before the row's loads were all in
 * flight:
 * test_load_order). Without a weight, none (tiny_weff gives 1); `any` (a row of the problem) stands
 * in for the pointer then, never read. */
template <int K>
__device__ __forceinline__ void warp_wbits(uint32_t (&b)[K], const void *wp, int w_dtype, const void *any, int lane,
                                           int n) {
  const bool has = wp != nullptr;
  if (!has) wp = any;
  if (w_dtype == FUSEDNORM_F32) {
    const unsigned int *w4 = static_cast<const unsigned int *>(wp) + lane;
#pragma unroll
    for (int k = 0; k < K; ++k) b[k] = ld_bits_if<4, true>(w4 + 32 * k, has && lane + 32 * k < n);
  } else {
    const unsigned short *w2 = static_cast<const unsigned short *>(wp) + lane;
#pragma unroll
    for (int k = 0; k < K; ++k) b[k] = ld_bits_if<2, true>(w2 + 32 * k, has && lane + 32 * k < n);
  }
}

}  // namespace fn

#endif /* FUSEDNORM_CUDA_RMSNORM_WARP_CUH_ */
