/*
 * rmsnorm_fwd_row.cu — the lean one-row-per-CTA forward: the multi-wave cached mode's kernel
 * wherever it applies (fn_fwd_row in launch_config.h: every row start, the weight and n
 * 16-byte aligned, the whole row in S <= 4 register slots per thread, up to 1024 threads; S = 8
 * at up to 512 threads and two CTAs an SM for many aligned rows of one stride, plain and fused, select.c
 * FN_AUTO_FWD_ROW8_*: a 1024-thread CTA at S = 4 holds 55-64 registers, one CTA and one row an
 * SM, whose loads and stores then do not overlap another row's).
 *
 * Same contract and the same arithmetic in the same order as rms_norm_fwd with CACHE = S and one
 * team per CTA (rmsnorm_fwd.cu): the outputs are bitwise those of the generic kernel (S = 8 has no
 * generic counterpart: its row's sum splits over other threads, judged by the float64 rules). What it
 * drops is what made that kernel instruction- and register-heavy on large rows (ncu, H200
 * 2026-11-22 02:53 UTC, kernels/RESULTS.md: ~90 instructions per 16-byte slot, 94 registers at
 * 4 slots per thread): the per-element fallback of misaligned rows and partial slots, the
 * streamed columns, cluster and cp.async pipelining code, and the weight's dtype branch, which
 * is a template flag here (W32: a 4-byte weight; else a 16-bit one, or none). The weight's bytes
 * are loaded together with x, before the reduction, so a row pays one memory latency instead of
 * two (x, then the weight after the barrier; loading it after the barrier measured 1-2% slower,
 * H200 2026-11-22 04:23 UTC, kernels/RESULTS.md).
 *
 * Two instances of each row body (fwd_row_one): rms_norm_fwd_row for any rows (N-d through
 * fn::row_offset, a row loop over the grid, FwdParams) and rms_norm_fwd_row_lean for rows of one
 * stride with one row per CTA (LeanFwdParams), which a few-row launch's latency is (kernels/
 * RESULTS.md, "The lean one-row forward").
 */
#include "kernels/cuda/rmsnorm_common.cuh"
#include "kernels/cuda/rmsnorm_launch.cuh"
#include "kernels/cuda/rmsnorm_unaligned.cuh"

namespace fn {

/* The raw weight bits of one slot's N columns: N fp32 words (W32) or N 16-bit halves. */
template <typename T, bool W32> struct WRaw {
  static constexpr int W = Vec<T>::N * (W32 ? 4 : 2) / 4;
  uint32_t w[W];
};

template <typename T, bool W32>
__device__ __forceinline__ void load_wraw(WRaw<T, W32> &o, const void *w, int col) {
  constexpr int W = WRaw<T, W32>::W;
  const uint32_t *q = static_cast<const uint32_t *>(w) + (int64_t)col * W / Vec<T>::N;
  if constexpr (W == 8) {
    const uint4 a = __ldg(reinterpret_cast<const uint4 *>(q)), b = __ldg(reinterpret_cast<const uint4 *>(q) + 1);
    o.w[0] = a.x; o.w[1] = a.y; o.w[2] = a.z; o.w[3] = a.w;
    o.w[4] = b.x; o.w[5] = b.y; o.w[6] = b.z; o.w[7] = b.w;
  } else if constexpr (W == 4) {
    const uint4 a = __ldg(reinterpret_cast<const uint4 *>(q));
    o.w[0] = a.x; o.w[1] = a.y; o.w[2] = a.z; o.w[3] = a.w;
  } else {
    const uint2 a = __ldg(reinterpret_cast<const uint2 *>(q));
    o.w[0] = a.x; o.w[1] = a.y;
  }
}

/* The effective weight w + offset of a slot from its raw bits (1 exactly without a weight, as
 * load_weight in rmsnorm_common.cuh). */
template <typename T, bool W32>
__device__ __forceinline__ void weight_of(float (&wv)[Vec<T>::N], const WRaw<T, W32> &r, bool has_w, bool wbf16,
                                          float offset) {
  constexpr int N = Vec<T>::N;
  if (!has_w) {
#pragma unroll
    for (int e = 0; e < N; ++e) wv[e] = 1.0f;
    return;
  }
  if constexpr (W32) {
#pragma unroll
    for (int e = 0; e < N; ++e) wv[e] = __uint_as_float(r.w[e]);
  } else if (wbf16) {
#pragma unroll
    for (int e = 0; e < N; ++e) wv[e] = bf16_packed(r.w, e);
  } else {
#pragma unroll
    for (int e = 0; e < N; ++e) wv[e] = f16_packed(r.w, e);
  }
#pragma unroll
  for (int e = 0; e < N; ++e) wv[e] += offset;
}

/* The raw weight bits of a slot read element-wise (the U instances: the slot's columns start
 * wherever the row's head puts them), in WRaw's layout. */
template <typename T, bool W32>
__device__ __forceinline__ void load_wraw_elems(WRaw<T, W32> &o, const void *w, int col) {
  constexpr int N = Vec<T>::N;
  if constexpr (W32) {
#pragma unroll
    for (int e = 0; e < N; ++e) o.w[e] = ld_wbits<true>(w, col + e);
  } else {
#pragma unroll
    for (int i = 0; i < N / 2; ++i) o.w[i] = ld_wbits<false>(w, col + 2 * i) | (ld_wbits<false>(w, col + 2 * i + 1) << 16);
  }
}

/* The same, as wide as the slot's weight address allows: `wal` is its alignment in bytes (16, 8,
 * 4 or 2), the same for every slot of a row (slots are 16-byte steps of x, N weight elements
 * apart). A row's weight bytes then take W/4 16-byte, W/2 8-byte or W 4-byte loads rather than N
 * element loads (each touches the same cache lines; fewer L1 wavefronts per slot). A 16-bit
 * weight of 16-bit rows below 16-byte alignment comes as the shifted 16-byte blocks that cover the
 * slot (ld_words_shifted: two 16-byte loads, against 2-8 at the weight's own alignment) where
 * those lie inside the weight's n elements; a 4-byte weight keeps its 8- or 4-byte loads (with the
 * blocks, f32 rows measured 0.93-0.95x, H200 2026-11-29). */
template <typename T, bool W32>
__device__ __forceinline__ void load_wraw_u(WRaw<T, W32> &o, const void *w, int col, int wal, int n) {
  constexpr int W = WRaw<T, W32>::W;
  /* The slot's first weight byte (col may be odd: no word arithmetic on the weight pointer). */
  const uint32_t *q = reinterpret_cast<const uint32_t *>(static_cast<const char *>(w) + (int64_t)col * (W32 ? 4 : 2));
  if (wal >= 16 && W % 4 == 0) {
#pragma unroll
    for (int i = 0; i < W / 4; ++i) {
      const uint4 a = __ldg(reinterpret_cast<const uint4 *>(q) + i);
      o.w[4 * i] = a.x; o.w[4 * i + 1] = a.y; o.w[4 * i + 2] = a.z; o.w[4 * i + 3] = a.w;
    }
    return;
  }
  if constexpr (!W32 && W == 4) {
    const uintptr_t lo = reinterpret_cast<uintptr_t>(w);
    if (ld_words_shifted<W>(o.w, q, lo, lo + (uintptr_t)n * 2u)) return;
  }
  if (wal >= 8) {
#pragma unroll
    for (int i = 0; i < W / 2; ++i) {
      const uint2 a = __ldg(reinterpret_cast<const uint2 *>(q) + i);
      o.w[2 * i] = a.x; o.w[2 * i + 1] = a.y;
    }
  } else if (wal >= 4) {
#pragma unroll
    for (int i = 0; i < W; ++i) o.w[i] = __ldg(q + i);
  } else {
    load_wraw_elems(o, w, col);
  }
}

/* One row of the forward, for both kernels below: the row's x (and r), residual_out and y from
 * their first elements, rstd to rstd_out (NULL: not stored) by thread 0. `sum` is the CTA's sum
 * of a value every thread passes (each kernel's reduction: the same order, so the same bits).
 * U: the head-split instance (rmsnorm_unaligned.cuh) for congruent rows that are not 16-byte
 * aligned or whose n is not a multiple of the vector; U = false is the aligned row, unchanged
 * (every U addition below is a constexpr branch). */
template <typename T, int S, bool FUSED, bool W32, bool U, typename Sum>
__device__ __forceinline__ void fwd_row_one(const T *xr, const T *rr, T *ror, T *yr, const void *w, int n, bool wbf16,
                                            float offset, float eps, int llama, float *rstd_out, Sum sum) {
  using V = Vec<T>;
  constexpr int N = V::N;
  const int step = blockDim.x * N, col0 = threadIdx.x * N;
  const bool has_w = w != nullptr;
  /* U: the interior starts at the row's head h; a slot is whole or not there. */
  RowSplit sp = {0, -1};
  if constexpr (U) sp = row_split<T>(xr, n);
  const int c0 = sp.h + col0;
  int wal = 16; /* U: the alignment of the row's slots' weight (load_wraw_u) */
  if constexpr (U) {
    const unsigned a = (unsigned)((uintptr_t)w + (uintptr_t)sp.h * (W32 ? 4u : 2u)) & 15u;
    wal = a == 0 ? 16 : (a & 7) == 0 ? 8 : (a & 3) == 0 ? 4 : 2;
  }
  /* S = 8 (aligned rows of one stride, two CTAs an SM: select.c FN_AUTO_FWD_ROW8_*) loads each
   * slot's weight in the output loop, and the fused add's residual two slots at a time (the next
   * two once the last two are folded into s): held from the start, the weight would take 32-64
   * more registers and r 32 (ptxas, sm_90a, at 64 registers: r held four slots at a time spilled
   * 180-360 bytes, two at a time 68-100; the plain rows 0-32). */
  constexpr bool kLateW = S == 8;
  constexpr int SR = kLateW ? S / 4 : S; /* residual slots held at once */
  static_assert(!kLateW || !U, "S = 8: aligned rows only");
  V xv[S], rv[SR];
  WRaw<T, W32> wr[S];
  float ex = 0.0f, er = 0.0f; /* U: this thread's edge element */
  uint32_t ew = 0;
  /* Every load of the row (x, r, the weight) is issued before the first use. A U row with a
   * 16-bit weight issues every slot's x and r before any weight: its element-wise weight reads
   * (a 2-byte aligned weight) pack their halves as they come, which waits for them, and between
   * two slots' x loads that would put one memory latency per slot in a row (kernels/RESULTS.md,
   * "First loads in one round trip"). The others keep a slot's loads together (split, they
   * only hold more registers: f32-weight rows measured 3-4% slower). */
  constexpr bool kSplitW = U && !W32;
#pragma unroll
  for (int k = 0; k < S; ++k) {
    const int col = c0 + k * step;
    if (U ? col + N <= n : col < n) {
      ld16(xv[k].w, xr + col);
      if (FUSED && k < SR) ld16(rv[k].w, rr + col);
      if (!kSplitW && !kLateW && has_w) {
        if constexpr (U) load_wraw_u(wr[k], w, col, wal, n);
        else load_wraw(wr[k], w, col);
      }
    }
  }
  if constexpr (kSplitW) {
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int col = c0 + k * step;
      if (has_w && col + N <= n) load_wraw_u(wr[k], w, col, wal, n);
    }
  }
  if constexpr (U) {
    if (sp.ecol >= 0) {
      ex = ld_elem(xr, sp.ecol);
      if (FUSED) er = ld_elem(rr, sp.ecol);
      if (has_w) ew = ld_wbits<W32>(w, sp.ecol);
    }
  }
  float ss = 0.0f;
#pragma unroll
  for (int k = 0; k < S; ++k) {
    if (FUSED && kLateW && k > 0 && k % SR == 0) { /* the next residual slots, into the last ones' registers */
#pragma unroll
      for (int j = k; j < k + SR; ++j) {
        const int cj = c0 + j * step;
        if (cj < n) ld16(rv[j - k].w, rr + cj);
      }
    }
    const int col = c0 + k * step;
    if (U ? col + N <= n : col < n) {
      if (FUSED) {
        add_residual(xv[k], rv[k % SR]); /* s replaces x */
        st16(ror + col, xv[k].w);
      }
      ss = add_squares(xv[k], ss);
    }
  }
  if constexpr (U) {
    if (sp.ecol >= 0) {
      if (FUSED) {
        ex = round_to<T>(ex + er);
        st_elem(ror, sp.ecol, ex);
      }
      ss = fmaf(ex, ex, ss);
    }
  }
  const float rstd = rstd_of(sum(ss), n, eps);
  if (rstd_out != nullptr && threadIdx.x == 0) *rstd_out = rstd;
  with_llama(llama, [&](auto llama_c) {
    constexpr bool L = decltype(llama_c)::value;
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int col = c0 + k * step;
      if (U ? col + N <= n : col < n) {
        V yv;
        float wv[N];
        if (kLateW && has_w) load_wraw(wr[k], w, col);
        weight_of<T, W32>(wv, wr[k], has_w, wbf16, offset);
        normalize_slot<T, L>(yv, xv[k], wv, rstd);
        st16(yr + col, yv.w);
      }
    }
    if constexpr (U) {
      if (sp.ecol >= 0)
        st_elem(yr, sp.ecol, normalize_elem<T, L>(ex, wbits_eff<W32>(ew, has_w, wbf16, offset), rstd));
    }
  });
}

/* Any rows (N-d through fn::row_offset, any count: a row loop over the grid). */
template <typename T, int S, bool FUSED, bool W32, bool U>
__global__ void __launch_bounds__(FN_FWD_ROW_MAX_THREADS(S, FUSED, W32, sizeof(T)), FN_FWD_ROW_MIN_CTAS(S))
    rms_norm_fwd_row(const FwdParams p) {
  __shared__ PaddedRed red;
  red.zero();
  __syncthreads();
  const bool wbf16 = p.w_dtype == FUSEDNORM_BF16;
  int parity = 0;
  for (int64_t row = blockIdx.x; row < p.rows; row += gridDim.x, parity ^= 1) {
    const T *xr = static_cast<const T *>(p.x) + row_offset(p.nd, row, p.x_stride, p.x_outer);
    const T *rr = static_cast<const T *>(p.r) + row_offset(p.nd, row, p.r_stride, p.r_outer);
    T *ror = static_cast<T *>(p.ro) + row_offset(p.nd, row, p.ro_stride, p.ro_outer);
    T *yr = static_cast<T *>(p.y) + row_offset(p.nd, row, p.y_stride, p.y_outer);
    fwd_row_one<T, S, FUSED, W32, U>(xr, rr, ror, yr, p.w, p.n, wbf16, p.offset, p.eps, p.llama,
                                     p.rstd == nullptr ? nullptr : p.rstd + row,
                                     [&](float v) { return red.sum(v, parity); });
  }
}

/* Rows of one stride, one row per CTA (the plan's grid covers them: select.c fwd_row), a row's
 * offset one multiply, and the packed LeanFwdParams: no row loop, no shared-memory zeroing and
 * barrier ahead of the loads (LeanRed pads its own sum), at most two 64-byte lines of the
 * parameter bank read before the loads. Results bit for bit those of rms_norm_fwd_row. */
template <typename T, int S, bool FUSED, bool W32, bool U>
__global__ void __launch_bounds__(FN_FWD_ROW_MAX_THREADS(S, FUSED, W32, sizeof(T)), FN_FWD_ROW_MIN_CTAS(S))
    rms_norm_fwd_row_lean(const LeanFwdParams p) {
  __shared__ LeanRed red;
  const int row = (int)blockIdx.x;
  const T *xr = static_cast<const T *>(p.x) + (int64_t)row * p.x_stride;
  const T *rr = static_cast<const T *>(p.r) + (int64_t)row * p.r_stride;
  T *ror = static_cast<T *>(p.ro) + (int64_t)row * p.ro_stride;
  T *yr = static_cast<T *>(p.y) + (int64_t)row * p.y_stride;
  fwd_row_one<T, S, FUSED, W32, U>(xr, rr, ror, yr, p.w, p.n, p.w_dtype == FUSEDNORM_BF16, p.offset, p.eps, p.llama,
                                   p.rstd == nullptr ? nullptr : p.rstd + row, [&](float v) { return red.sum(v); });
}

#define FN_ROW_K(F, W) (lean ? reinterpret_cast<const void *>(&rms_norm_fwd_row_lean<T, S, F, W, U>) \
                          : reinterpret_cast<const void *>(&rms_norm_fwd_row<T, S, F, W, U>))
template <typename T, int S, bool U>
static const void *fwd_row_kernel_s(bool fused, bool w32, bool lean) {
  if (fused) return w32 ? FN_ROW_K(true, true) : FN_ROW_K(true, false);
  return w32 ? FN_ROW_K(false, true) : FN_ROW_K(false, false);
}
#undef FN_ROW_K

template <typename T, bool U>
static const void *fwd_row_kernel_for(int cache, bool fused, bool w32, bool lean) {
  switch (cache) {
    case 1: return fwd_row_kernel_s<T, 1, U>(fused, w32, lean);
    case 2: return fwd_row_kernel_s<T, 2, U>(fused, w32, lean);
    case 4: return fwd_row_kernel_s<T, 4, U>(fused, w32, lean);
  }
  return nullptr;
}

/* S = 8: aligned rows of one stride, the lean instance only (the N-d one spilled 76-872 bytes at
 * S = 8: not built), and not 16-bit rows with an f32 weight (the plan never takes S = 8 there:
 * select.c fwd_row8_ok). */
template <typename T>
static const void *fwd_row8_kernel(bool fused, bool w32, bool lean) {
  if (!lean || (w32 && sizeof(T) == 2)) return nullptr;
  if (fused) return w32 ? reinterpret_cast<const void *>(&rms_norm_fwd_row_lean<T, 8, true, true, false>)
                        : reinterpret_cast<const void *>(&rms_norm_fwd_row_lean<T, 8, true, false, false>);
  return w32 ? reinterpret_cast<const void *>(&rms_norm_fwd_row_lean<T, 8, false, true, false>)
             : reinterpret_cast<const void *>(&rms_norm_fwd_row_lean<T, 8, false, false, false>);
}

template <typename T>
static const void *fwd_row_kernel_u(int cache, bool fused, bool w32, bool unaligned, bool lean) {
  if (cache == 8) return unaligned ? nullptr : fwd_row8_kernel<T>(fused, w32, lean);
  return unaligned ? fwd_row_kernel_for<T, true>(cache, fused, w32, lean)
                   : fwd_row_kernel_for<T, false>(cache, fused, w32, lean);
}

const void *fwd_row_kernel(fusednorm_dtype x, int cache, bool fused, bool w32, bool unaligned, bool lean) {
  switch (x) {
    case FUSEDNORM_F32: return fwd_row_kernel_u<float>(cache, fused, w32, unaligned, lean);
    case FUSEDNORM_F16: return fwd_row_kernel_u<__half>(cache, fused, w32, unaligned, lean);
    case FUSEDNORM_BF16: return fwd_row_kernel_u<__nv_bfloat16>(cache, fused, w32, unaligned, lean);
  }
  return nullptr;
}

}  // namespace fn
