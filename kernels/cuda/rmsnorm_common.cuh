/*
 * rmsnorm_common.cuh — device building blocks shared by the forward and backward families:
 * dtype conversion (round-to-nearest-even), 16-byte vector slots with an element-wise path for
 * misaligned rows and the partial last vector, run-time weight dtype, and the fixed-order team /
 * CTA / cluster sum (deterministic: the same tree for every run).
 *
 * Work decomposition used by every kernel (see launch_config.h):
 *   team  = `team` consecutive threads normalizing one row chunk (team <= 32: a sub-warp, several
 *           rows per CTA = row-packed; team == blockDim.x: one row per CTA);
 *   chunk = the columns [c0, c1) of the row that this CTA handles (the whole row unless a
 *           thread-block cluster of `cluster` CTAs splits it: the generic backward's wide launch);
 *
 * Thread-block clusters and distributed shared memory exist from compute capability 9.0: their
 * code is compiled only there (FN_HAS_CLUSTERS); elsewhere a cluster branch traps, and the plan
 * never launches a cluster on such a device (kernels/src/select.c, bwd_cluster).
 *   slot  = 16 bytes of x; thread `lane` of a team owns slots lane, lane+team, lane+2*team, ...
 *           of the chunk: the first CACHE of them live in registers, the rest are streamed.
 */
#ifndef FUSEDNORM_CUDA_RMSNORM_COMMON_CUH_
#define FUSEDNORM_CUDA_RMSNORM_COMMON_CUH_

#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

#include "kernels/cuda/launch_config.h"
#include "kernels/cuda/row_dims.h"
#include "kernels/include/fusednorm.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define FN_HAS_CLUSTERS 0
#else
#define FN_HAS_CLUSTERS 1 /* sm_90+ device code, and the host pass (which compiles no device code) */
#endif

namespace fn {

namespace cg = cooperative_groups;

/* Every thread of a cluster arrives before any leaves (no CTA may exit while a peer can still
 * read its shared memory). */
__device__ __forceinline__ void cluster_sync() {
#if FN_HAS_CLUSTERS
  cg::this_cluster().sync();
#else
  __trap();
#endif
}

/* The element offset of row `row` of one tensor: `stride` for its innermost leading dim, `outer`
 * its other strides (fn_row_outer_make order). Every kernel addresses every row through this one
 * function. nd.dims is uniform over the launch, so the single-stride case (dims 1) is one
 * predicated branch and the multiply it always was; the N-d case is three 32-bit magic-number
 * divisions (row_dims.h), shared by the tensors of one row (the same row and divisors: the
 * compiler computes them once). */
__device__ __forceinline__ int64_t row_offset(const fn_row_dims &nd, int64_t row, int64_t stride,
                                              const int64_t (&outer)[3]) {
  return fn_row_offset_dims(&nd, row, stride, outer);
}

/* row_offset with the N-d path compiled in (ND) or out: the instances of a few latency-bound
 * kernels for single-stride rows (nd.dims 1, every contiguous tensor) leave out the divisions'
 * code, 3-5% of their time (H200, kernels/RESULTS.md "The narrow backward's dw combine"). */
template <bool ND>
__device__ __forceinline__ int64_t row_offset_nd(const fn_row_dims &nd, int64_t row, int64_t stride,
                                                 const int64_t (&outer)[3]) {
  return ND ? row_offset(nd, row, stride, outer) : row * stride;
}

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ float from_f<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_f<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
/* Round an fp32 value to T and back (the LLAMA casting's intermediate rounding). */
template <typename T> __device__ __forceinline__ float round_to(float v) { return to_f(from_f<T>(v)); }

/* 16 bytes of T as four 32-bit words: keeping 16-bit data packed in 32-bit registers (rather
 * than arrays of __nv_bfloat16) is what lets ptxas keep the register cache out of local memory. */
template <typename T> struct Vec {
  static constexpr int N = 16 / sizeof(T);
  uint32_t w[4];
};

/* Element e of a slot as fp32 / the slot from N fp32 values rounded to T (RN-even). */
__device__ __forceinline__ float elem_f(const Vec<float> &v, int e) { return __uint_as_float(v.w[e]); }
/* Element e of 16-bit values packed two per 32-bit word (element 2i in the low half of word i). */
__device__ __forceinline__ float bf16_packed(const uint32_t *w, int e) {
  return __uint_as_float((e & 1) ? (w[e >> 1] & 0xffff0000u) : (w[e >> 1] << 16));
}
__device__ __forceinline__ float f16_packed(const uint32_t *w, int e) {
  return __half2float(__ushort_as_half((unsigned short)(w[e >> 1] >> ((e & 1) * 16))));
}
__device__ __forceinline__ float elem_f(const Vec<__nv_bfloat16> &v, int e) { return bf16_packed(v.w, e); }
__device__ __forceinline__ float elem_f(const Vec<__half> &v, int e) { return f16_packed(v.w, e); }
__device__ __forceinline__ void set_pair(Vec<float> &v, int i, float a, float b) {
  v.w[2 * i] = __float_as_uint(a);
  v.w[2 * i + 1] = __float_as_uint(b);
}
__device__ __forceinline__ void set_pair(Vec<__nv_bfloat16> &v, int i, float a, float b) {
  __nv_bfloat162 h = __floats2bfloat162_rn(a, b); /* .x = a (low half), .y = b */
  v.w[i] = *reinterpret_cast<uint32_t *>(&h);
}
__device__ __forceinline__ void set_pair(Vec<__half> &v, int i, float a, float b) {
  __half2 h = __floats2half2_rn(a, b);
  v.w[i] = *reinterpret_cast<uint32_t *>(&h);
}
template <typename T>
__device__ __forceinline__ void from_floats(Vec<T> &v, const float (&f)[Vec<T>::N]) {
#pragma unroll
  for (int i = 0; i < Vec<T>::N / 2; ++i) set_pair(v, i, f[2 * i], f[2 * i + 1]);
}

/* Load the slot starting at column `col` of `row` (elements col..col+N-1, those >= lim read as 0).
 * `aligned`: every row start is 16-byte aligned, so a full slot is one 16-byte load; otherwise
 * (misaligned pointer or stride, or the partial last slot) element by element. */
template <typename T>
__device__ __forceinline__ void load_slot(Vec<T> &out, const T *row, int col, int lim, bool aligned) {
  constexpr int N = Vec<T>::N;
  if (aligned && col + N <= lim) {
    const uint4 u = *reinterpret_cast<const uint4 *>(row + col);
    out.w[0] = u.x; out.w[1] = u.y; out.w[2] = u.z; out.w[3] = u.w;
  } else if (sizeof(T) == 4) {
    const uint32_t *p = reinterpret_cast<const uint32_t *>(row + col);
#pragma unroll
    for (int e = 0; e < 4; ++e) out.w[e] = col + e < lim ? p[e] : 0u;
  } else {
    const uint16_t *p = reinterpret_cast<const uint16_t *>(row + col);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const uint32_t lo = col + 2 * i < lim ? p[2 * i] : 0u;
      const uint32_t hi = col + 2 * i + 1 < lim ? p[2 * i + 1] : 0u;
      out.w[i] = lo | (hi << 16);
    }
  }
}

/* One full 16-byte slot of a 16-byte aligned row (the kernels' aligned-only paths). */
__device__ __forceinline__ void ld16(uint32_t (&w)[4], const void *p) {
  const uint4 u = *reinterpret_cast<const uint4 *>(p);
  w[0] = u.x; w[1] = u.y; w[2] = u.z; w[3] = u.w;
}
__device__ __forceinline__ void st16(void *p, const uint32_t (&w)[4]) {
  *reinterpret_cast<uint4 *>(p) = make_uint4(w[0], w[1], w[2], w[3]);
}
/* The same store to global memory, as one 16-byte instruction whatever the compiler makes of the
 * registers' other uses: where they also went to shared memory or came from it (the flat tiles'
 * and the thread forward's staging), nvcc 13.0 wrote st16's store as four 4-byte stores (PTX
 * st.global.u32 at +0, +4, +8, +12): four store instructions a vector, each a quarter of its
 * sectors. */
__device__ __forceinline__ void stg16(void *p, const uint32_t (&w)[4]) {
  asm volatile(
      "{\n\t.reg .u64 g;\n\tcvta.to.global.u64 g, %0;\n\tst.global.v4.b32 [g], {%1, %2, %3, %4};\n\t}\n" ::"l"(p),
      "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3])
      : "memory");
}

template <typename T>
__device__ __forceinline__ void store_slot(T *row, const Vec<T> &in, int col, int lim, bool aligned) {
  constexpr int N = Vec<T>::N;
  if (aligned && col + N <= lim) {
    *reinterpret_cast<uint4 *>(row + col) = make_uint4(in.w[0], in.w[1], in.w[2], in.w[3]);
  } else if (sizeof(T) == 4) {
    uint32_t *p = reinterpret_cast<uint32_t *>(row + col);
#pragma unroll
    for (int e = 0; e < 4; ++e)
      if (col + e < lim) p[e] = in.w[e];
  } else {
    uint16_t *p = reinterpret_cast<uint16_t *>(row + col);
#pragma unroll
    for (int e = 0; e < 8; ++e)
      if (col + e < lim) p[e] = (uint16_t)(in.w[e >> 1] >> ((e & 1) * 16));
  }
}

/* The effective weight (w + offset) of N columns starting at `col`, in fp32; the weight dtype is
 * a run-time argument (any x dtype with any w dtype without 9 template instances). No weight:
 * 1 exactly, so y = RN(s * rstd) and g = dy need no separate code path. */
template <int N>
__device__ __forceinline__ void load_weight(float (&out)[N], const void *w, int w_dtype, float offset,
                                            int col, int lim, bool aligned) {
  if (w == nullptr) {
#pragma unroll
    for (int e = 0; e < N; ++e) out[e] = 1.0f;
    return;
  }
  const bool full = aligned && col + N <= lim;
  if (w_dtype == FUSEDNORM_F32) {
    const float *wp = static_cast<const float *>(w) + col;
    if (full) {
#pragma unroll
      for (int q = 0; q < N / 4; ++q) {
        float4 f = __ldg(reinterpret_cast<const float4 *>(wp) + q);
        out[4 * q + 0] = f.x; out[4 * q + 1] = f.y; out[4 * q + 2] = f.z; out[4 * q + 3] = f.w;
      }
    } else {
#pragma unroll
      for (int e = 0; e < N; ++e) out[e] = col + e < lim ? wp[e] : 0.0f;
    }
  } else {
    /* 16-bit weight: N * 2 bytes = 16 (N = 8) or 8 (N = 4) bytes per slot. The conversion sits
     * inside the dtype branch: a per-element select issued both conversions (16 instructions per
     * slot, predicated) on every pass of every row. */
    const uint16_t *wp = static_cast<const uint16_t *>(w) + col;
    uint16_t raw[N];
    if (full && N == 8) {
      *reinterpret_cast<uint4 *>(raw) = __ldg(reinterpret_cast<const uint4 *>(wp));
    } else if (full && N == 4) {
      *reinterpret_cast<uint2 *>(raw) = __ldg(reinterpret_cast<const uint2 *>(wp));
    } else {
#pragma unroll
      for (int e = 0; e < N; ++e) raw[e] = col + e < lim ? wp[e] : 0;
    }
    if (w_dtype == FUSEDNORM_BF16) {
#pragma unroll
      for (int e = 0; e < N; ++e) out[e] = __uint_as_float((uint32_t)raw[e] << 16);
    } else {
#pragma unroll
      for (int e = 0; e < N; ++e) out[e] = __half2float(__ushort_as_half(raw[e]));
    }
  }
#pragma unroll
  for (int e = 0; e < N; ++e) out[e] += offset;
}

/* The casting mode as a compile-time flag of the forward's per-element normalize code, dispatched
 * once per pass by a uniform branch: a run-time flag there is a predicated rounding on every
 * element, issued whether or not it applies. (The backward keeps the run-time flag: see
 * slot_weight in rmsnorm_bwd.cu.) */
template <typename F> __device__ __forceinline__ void with_llama(bool llama, F &&f) {
  if (llama) f(std::true_type{});
  else f(std::false_type{});
}

/* RN(x + r) of two pairs of fp16 values packed in a word, in one instruction. It is the correctly
 * rounded sum, as the fp32 sum rounded to fp16 is (24 >= 2p + 2 bits: the double rounding is
 * innocuous), so the two give the same bits; kernels/tests/rstd_check.cu (test_rstd) compares them
 * for every pair of operands on the GPU. bf16 keeps the fp32 sum: its packed add (HADD2.BF16_V2)
 * made some fused forwards slower on the H200 (the thread forward of bf16 209133 x 1 0.89-0.93x,
 * tools/bench/results/add16_h200_2026-12-03/); fp16's measured within the runs' noise
 * (0.98-1.04x on the flat-tile forward), for 4 instructions a vector instead of 28. */
__device__ __forceinline__ uint32_t add2_rn_f16(uint32_t a, uint32_t b) {
  uint32_t d;
  asm("add.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}

/* The fused add of one slot in place: x becomes s = RN(x + r). */
template <typename T> __device__ __forceinline__ void add_residual(Vec<T> &xv, const Vec<T> &rv) {
  if constexpr (std::is_same<T, __half>::value) {
#pragma unroll
    for (int i = 0; i < 4; ++i) xv.w[i] = add2_rn_f16(xv.w[i], rv.w[i]);
  } else {
    float f[Vec<T>::N];
#pragma unroll
    for (int e = 0; e < Vec<T>::N; ++e) f[e] = elem_f(xv, e) + elem_f(rv, e);
    from_floats(xv, f);
  }
}

/* ss plus the squares of a slot's elements, in element order (the forward's reduction). */
template <typename T> __device__ __forceinline__ float add_squares(const Vec<T> &v, float ss) {
#pragma unroll
  for (int e = 0; e < Vec<T>::N; ++e) {
    const float f = elem_f(v, e);
    ss = fmaf(f, f, ss);
  }
  return ss;
}

/* rstd of a row from its sum of squares (kernels/README.md): 1/sqrt(ss/n + eps) with a true division and
 * sqrtf, both correctly rounded (rsqrtf is ~2 ulp). Where n is a power of two, ss/n is the
 * product with 2^-k, exactly representable: the same correctly rounded value (both round the
 * same real number once, subnormals included) for a multiply instead of a division. n is uniform:
 * that branch does not diverge. rstd_of (below) computes one row's as nvcc compiles the
 * expressions; rstd_of_rows the same bits for the several rows a thread owns.
 *
 * rstd_of_rows writes out nvcc's own correctly rounded sequences (the fast paths it emits for `/`,
 * sqrtf and 1.0f / s, the same on sm_80 to sm_120) under one range check for all of a thread's
 * rows: nvcc guards each operation with its own branch and reconvergence region, which keeps a
 * thread's rows' ~25-instruction chains from interleaving (the thread forward holds 2-8 rows a
 * thread). The fast paths hold where ss (divided) is +0 or lies in
 * [2^-101, 2^128) with n <= FN_RSTD_FAST_DIV_MAX_N, and v = q + eps in [2^-101, 2^128): the
 * square root's there (nvcc's own bound), the reciprocal's for every square root of such v, and
 * the division's as the exhaustive check found it (every such ss against every n <=
 * FN_RSTD_FAST_DIV_MAX_N that is not a power of two, bit for bit: kernels/tests/rstd_check.cu,
 * run by test_rstd on a GPU). A row outside them (zeros with eps 0, subnormals, infinities, NaN,
 * negative eps) sends the thread's rows through rstd_of's expressions. */
#define FN_RSTD_FAST_DIV_MAX_N 1024
__device__ __forceinline__ bool fn_rstd_fast_range(float v) {
  return __float_as_uint(v) - 0x0d000000u <= 0x727fffffu; /* [2^-101, 2^128): finite, normal */
}
__device__ __forceinline__ float fn_rcp_approx(float v) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}
__device__ __forceinline__ float fn_rsqrt_approx(float v) {
  float r;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}
/* RN(1 / d) for d whose exponent field is not 0 or 253-255 (every d below). */
__device__ __forceinline__ float fn_rcp_rn_fast(float d) {
  const float r0 = fn_rcp_approx(d);
  return __fmaf_rn(r0, -__fmaf_rn(r0, d, -1.0f), r0);
}
/* RN(1 / RN(sqrt(v))) for v in fn_rstd_fast_range (the caller checks). */
__device__ __forceinline__ float fn_rstd_fast(float v) {
  const float y = fn_rsqrt_approx(v);
  const float s0 = __fmul_rn(v, y), h = __fmul_rn(y, 0.5f);
  return fn_rcp_rn_fast(__fmaf_rn(__fmaf_rn(-s0, s0, v), h, s0)); /* 1 / RN(sqrt(v)) */
}
/* RN(a / n) where fn_div_fast_ok(a, n), from y = fn_rcp_rn_fast(n). */
__device__ __forceinline__ bool fn_div_fast_ok(float a, int n) {
  return n <= FN_RSTD_FAST_DIV_MAX_N && (fn_rstd_fast_range(a) || __float_as_uint(a) == 0u); /* +0, not -0 */
}
__device__ __forceinline__ float fn_div_fast(float a, float fn, float y) {
  const float q0 = __fmul_rn(a, y);
  return __fmaf_rn(__fmaf_rn(-fn, q0, a), y, q0);
}

/* One row's. With one row a thread there are no chains to interleave, and the written-out fast
 * paths cost registers (the row-pipelined forward's f32 instance a CTA an SM; kernels/RESULTS.md
 * "The thread forward's rstd under one range check"). */
__device__ __forceinline__ float rstd_of(float ss, int n, float eps) {
  float q;
  if ((n & (n - 1)) == 0) q = __fmul_rn(ss, __int_as_float((127 - (31 - __clz(n))) << 23)); /* no fma with eps */
  else q = ss / (float)n;
  return 1.0f / sqrtf(__fadd_rn(q, eps));
}

/* rstd of R rows (a thread's rows of one width; r may be ss_in). */
template <int R>
__device__ __forceinline__ void rstd_of_rows(const float (&ss_in)[R], int n, float eps, float (&r)[R]) {
  float ss[R]; /* r may be ss_in: the slow path needs the sums after r is written */
#pragma unroll
  for (int i = 0; i < R; ++i) ss[i] = ss_in[i];
  const bool pow2 = (n & (n - 1)) == 0;
  const float fn = (float)n;
  const float p2 = __int_as_float((127 - (31 - __clz(n))) << 23); /* 2^-k where n = 2^k */
  const float y = pow2 ? 0.0f : fn_rcp_rn_fast(fn);
  bool ok = true;
#pragma unroll
  for (int i = 0; i < R; ++i) {
    float q;
    if (pow2) q = __fmul_rn(ss[i], p2); /* no fma with eps */
    else {
      q = fn_div_fast(ss[i], fn, y);
      ok = ok && fn_div_fast_ok(ss[i], n);
    }
    const float v = __fadd_rn(q, eps);
    r[i] = fn_rstd_fast(v);
    ok = ok && fn_rstd_fast_range(v);
  }
  if (!ok) {
#pragma unroll
    for (int i = 0; i < R; ++i) r[i] = rstd_of(ss[i], n, eps);
  }
}
/* y of one slot from s, the fp32 effective weight and rstd (the forward's normalize pass):
 * RN(s*rstd*w), or LLAMA RN(RN_T(s*rstd)*w). */
template <typename T, bool LLAMA>
__device__ __forceinline__ void normalize_slot(Vec<T> &yv, const Vec<T> &sv, const float (&wv)[Vec<T>::N],
                                               float rstd) {
  constexpr int N = Vec<T>::N;
  float f[N];
#pragma unroll
  for (int e = 0; e < N; ++e) {
    const float nrm = elem_f(sv, e) * rstd;
    f[e] = (LLAMA ? round_to<T>(nrm) : nrm) * wv[e];
  }
  from_floats(yv, f);
}

/* cp.async (sm_80+; the split-row backward's ring, rmsnorm_bwd_wide.cu): each thread copies
 * exactly the 16-byte slots it later reads, so cp.async.wait_group orders the copy before the read
 * without a barrier. cp_async16_sa takes the 32-bit shared-window address (its read: lds_slot). */
__device__ __forceinline__ void cp_async16_sa(unsigned d, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async16(void *dst, const void *src) {
  cp_async16_sa((unsigned)__cvta_generic_to_shared(dst), src);
}
__device__ __forceinline__ void cp_async4(void *dst, const void *src) {
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(d), "l"(src) : "memory");
}
/* A slot's read by a 32-bit shared-window address computed once, as cp_async16_sa copies it (the
 * wide forward's every-slot-staged instance): through a generic pointer, a cluster kernel's code
 * re-derived the window's base (S2UR of the CTA's cluster id and three uniform operations) at every
 * slot. Volatile, so that no read moves above the cp.async.wait_group that orders it. */
template <typename T> __device__ __forceinline__ Vec<T> lds_slot(unsigned a) {
  Vec<T> v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.w[0]), "=r"(v.w[1]), "=r"(v.w[2]), "=r"(v.w[3])
               : "r"(a));
  return v;
}
/* A slot held in 16 bytes of shared memory (the split-row backward's ring, the wide forward's
 * stage) as a slot, and back. */
template <typename T> __device__ __forceinline__ Vec<T> smem_get(const uint4 *q) {
  const uint4 u = *q;
  Vec<T> v;
  v.w[0] = u.x; v.w[1] = u.y; v.w[2] = u.z; v.w[3] = u.w;
  return v;
}
template <typename T> __device__ __forceinline__ void smem_put(uint4 *q, const Vec<T> &v) {
  *q = make_uint4(v.w[0], v.w[1], v.w[2], v.w[3]);
}

/* The first `bytes` (<= 16) of a 16-byte slot, the rest of it zero-filled (a row's partial last
 * slot reads as load_slot's zeros past the end). */
__device__ __forceinline__ void cp_async16_part(void *dst, const void *src, int bytes) {
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }

/* Shared memory of the reductions: warp partials and the CTA's value for the cluster exchange,
 * double-buffered by row parity so that one barrier per row suffices (a CTA writing the buffer of
 * row i+2 has passed the barrier of row i+1, which every reader of row i also reached). */
struct ReduceSmem {
  float warp[2][32];
  float cta[2];
};

/* Sum `v` over the team, then over the cluster, in a fixed order; every thread of the team gets
 * the result. All threads of the CTA (cluster) must call it together (inactive teams pass 0). */
__device__ __forceinline__ float team_sum(float v, int team, int cluster, int parity, ReduceSmem &sm) {
  if (team <= 32) {
    for (int off = team >> 1; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v; /* sub-warp teams never span CTAs (row-packed is never clustered) */
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  const int warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  if ((threadIdx.x & 31) == 0) sm.warp[parity][warp] = v;
  if (cluster > 1) {
    __syncthreads();
    float s = 0.0f;
    for (int i = 0; i < nwarps; ++i) s += sm.warp[parity][i];
    if (threadIdx.x == 0) sm.cta[parity] = s;
#if FN_HAS_CLUSTERS
    cg::cluster_group cl = cg::this_cluster();
    cl.sync(); /* also a CTA barrier */
    float t = 0.0f;
    for (int r = 0; r < cluster; ++r) t += *cl.map_shared_rank(&sm.cta[parity], r);
    return t;
#else
    __trap();
    return v;
#endif
  }
  __syncthreads();
  float s = 0.0f;
  for (int i = 0; i < nwarps; ++i) s += sm.warp[parity][i];
  return s;
}

/* The one-team-per-CTA sum of the lean kernels (rmsnorm_fwd_row.cu, rmsnorm_bwd_row.cu): the
 * warp partials by row parity (one barrier per row, as ReduceSmem), zero past the last warp so
 * that they are summed four at a time; adding +0 leaves the in-order sum bitwise unchanged, so
 * the order is team_sum's for a one-team CTA (xor tree in the warp, then the warps in order). */
struct PaddedRed {
  __align__(16) float w[2][32];
  /* Before the first sum; the caller's next __syncthreads() publishes the zeros. Warp 0 zeroes
   * both parities, so a CTA of one warp (the few-row forward's) has them too. */
  __device__ __forceinline__ void zero() {
    if (threadIdx.x < 32) {
      w[0][threadIdx.x] = 0.0f;
      w[1][threadIdx.x] = 0.0f;
    }
  }
  /* Every thread of the CTA calls it; every thread gets the CTA's sum. */
  __device__ __forceinline__ float sum(float v, int parity) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) w[parity][threadIdx.x >> 5] = v;
    __syncthreads();
    float t = 0.0f;
    const int nwarps = blockDim.x >> 5;
#pragma unroll 1
    for (int i = 0; i < nwarps; i += 4) {
      const float4 q = *reinterpret_cast<const float4 *>(&w[parity][i]);
      t += q.x; t += q.y; t += q.z; t += q.w;
    }
    return t;
  }
};

/* The CTA sum of PaddedRed, for a kernel that sums once (one row per CTA): no zeroing and
 * barrier ahead of the kernel's loads. Warp 0's lanes past the last warp write the zeros the
 * float4 reads need, in the same barrier interval as the warps' sums; the reads and adds are
 * PaddedRed::sum's, so the result is bitwise the same. */
struct LeanRed {
  __align__(16) float w[32];
  __device__ __forceinline__ float sum(float v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    const int nwarps = blockDim.x >> 5, tid = (int)threadIdx.x;
    if (nwarps == 1) return v; /* PaddedRed's 0 + v + 0 + 0 + 0: v itself (v >= 0 or NaN) */
    if ((tid & 31) == 0) w[tid >> 5] = v;
    if (tid >= nwarps && tid < ((nwarps + 3) & ~3)) w[tid] = 0.0f;
    __syncthreads();
    float t = 0.0f;
#pragma unroll 1
    for (int i = 0; i < nwarps; i += 4) {
      const float4 q = *reinterpret_cast<const float4 *>(&w[i]);
      t += q.x; t += q.y; t += q.z; t += q.w;
    }
    return t;
  }
};

/* Stage the effective weight of the N columns from `col` (load_weight's arguments) in fp32 at dst
 * (shared memory, 16-byte aligned), for smem_weight to read back on every row. */
template <int N>
__device__ __forceinline__ void stage_weight(float *dst, const void *w, int w_dtype, float offset, int col, int lim,
                                             bool aligned) {
  float wv[N];
  load_weight<N>(wv, w, w_dtype, offset, col, lim, aligned);
  float4 *q = reinterpret_cast<float4 *>(dst);
#pragma unroll
  for (int i = 0; i < N / 4; ++i) q[i] = make_float4(wv[4 * i], wv[4 * i + 1], wv[4 * i + 2], wv[4 * i + 3]);
}

/* N fp32 weights of a slot from a CTA's staged copy in shared memory (16-byte aligned). */
template <int N> __device__ __forceinline__ void smem_weight(float (&wv)[N], const float *wsm, int col) {
  const float4 *q = reinterpret_cast<const float4 *>(wsm + col);
#pragma unroll
  for (int i = 0; i < N / 4; ++i) {
    const float4 f = q[i];
    wv[4 * i] = f.x; wv[4 * i + 1] = f.y; wv[4 * i + 2] = f.z; wv[4 * i + 3] = f.w;
  }
}

/* N fp32 values from 16-byte aligned memory (shared or global), four at a time. */
template <int N> __device__ __forceinline__ void load_floats(float (&v)[N], const float *src) {
  const float4 *q = reinterpret_cast<const float4 *>(src);
#pragma unroll
  for (int i = 0; i < N / 4; ++i) {
    const float4 f = q[i];
    v[4 * i] = f.x; v[4 * i + 1] = f.y; v[4 * i + 2] = f.z; v[4 * i + 3] = f.w;
  }
}

/* N fp32 values to 16-byte aligned memory (shared or global), four at a time. */
template <int N> __device__ __forceinline__ void store_floats(float *dst, const float (&v)[N]) {
  float4 *q = reinterpret_cast<float4 *>(dst);
#pragma unroll
  for (int i = 0; i < N / 4; ++i) q[i] = make_float4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
}

/* Where a CTA stands in the decomposition. */
struct Place {
  int team, lane, team_idx, teams; /* team size, thread within team, team within CTA */
  int crank;                       /* CTA rank within its cluster (0 without clusters) */
  int64_t unit, units;             /* row-processing unit (CTA or cluster) and their count */
  int c0, c1;                      /* columns of this CTA */
};

__device__ __forceinline__ Place make_place(int team, int cluster, int chunk, int n) {
  Place pl;
  pl.team = team;
  pl.team_idx = threadIdx.x / team;
  pl.lane = threadIdx.x - pl.team_idx * team;
  pl.teams = blockDim.x / team;
  if (cluster > 1) {
#if FN_HAS_CLUSTERS
    pl.crank = (int)cg::this_cluster().block_rank();
#else
    __trap();
#endif
    pl.unit = blockIdx.x / cluster;
    pl.units = gridDim.x / cluster;
  } else {
    pl.crank = 0;
    pl.unit = blockIdx.x;
    pl.units = gridDim.x;
  }
  pl.c0 = pl.crank * chunk;
  pl.c1 = min(n, pl.c0 + chunk);
  return pl;
}

}  // namespace fn

#endif /* FUSEDNORM_CUDA_RMSNORM_COMMON_CUH_ */
