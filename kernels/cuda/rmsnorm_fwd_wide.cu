/*
 * rmsnorm_fwd_wide.cu — the wide forward (the WIDE mode's forward family, FUSEDNORM_KERNEL_FWD_WIDE):
 * a row split over a thread-block cluster, for few wide rows (fewer rows than SMs: one CTA per
 * row leaves most SMs idle) and rows wider than one CTA's registers. Compute capability >= 9.0
 * (clusters, distributed shared memory); the plan never launches it below (select.c fwd_wide),
 * and its cluster code traps there (FN_HAS_CLUSTERS, rmsnorm_common.cuh).
 *
 * Geometry (select.c fwd_wide, launch_config.h): a grid of clusters of `cluster` CTAs, one cluster
 * per row (grid-stride beyond 2^31 CTAs); CTA rank c owns the columns [c*chunk, (c+1)*chunk), chunk
 * a multiple of the vector width so that every CTA's slots start aligned where the row does. Thread
 * t owns the slots t, t + T, t + 2T, ... of its chunk (T = blockDim.x): the first S in registers
 * (loaded with the weight before the reduction), the rest (only where the plan's cluster is at its
 * largest and the chunk still exceeds T*S) streamed: read once for the sum, and once more, from L2,
 * for y (residual_out for the fused add: the value this thread wrote, in program order).
 *
 * Per row, exactly the contract (kernels/README.md): s = RN(x + r) (fused add: written to
 * residual_out by the CTA owning the column), ss = the fp32 sum of s^2 in a fixed order: each
 * thread over its slots in order (cached, then streamed; elements in order), the warp's xor tree,
 * the CTA's warps in order, the cluster's CTAs in rank order (team_sum, through distributed shared
 * memory); rstd = 1/sqrt(ss/n + eps) (true division and sqrtf), written once per row by rank 0;
 * y = RN(s*rstd*w_eff) or, LLAMA, RN(RN(s*rstd)*w_eff). The order depends on the plan (cluster
 * size, threads, slots per thread), i.e. on the shape, dtype and device figures only: bitwise
 * deterministic run to run, but not bitwise equal to another mode or cluster size (the contract
 * allows that; every plan meets the accuracy rules).
 *
 * Head-split (U, the plan's `unaligned`: rows congruent modulo 16 bytes but not aligned, or n not a
 * multiple of the vector; S <= 2): the chunks tile the row's interior from its
 * first 16-byte boundary h (per row, from its address), so every slot is a whole 16-byte vector;
 * the head and tail elements go one per thread of rank 0 (rmsnorm_unaligned.cuh), added to its sum
 * after its slots; the weight is read element-wise. Otherwise a misaligned row goes element by
 * element. U is a template flag so that the aligned instances carry none of it: with a runtime
 * flag the aligned fp32 fused-add instance (S = 2) measured 24% slower (H200, 100 x 49152: 51.8 us
 * against 41.7).
 *
 * Memory traffic: x (and r) read once, y (and residual_out) written once: the copy's bytes, where
 * the generic persistent forward that AUTO ran on these shapes before re-read the columns beyond
 * its registers from L2 with one CTA per row. No workspace, no allocation, no host sync: capturable.
 */
#include "kernels/cuda/rmsnorm_common.cuh"
#include "kernels/cuda/rmsnorm_launch.cuh"
#include "kernels/cuda/rmsnorm_unaligned.cuh"

namespace fn {

namespace {

/* One row's tensors, addressed through row_offset as in every kernel. */
template <typename T> struct WideRow {
  const T *x, *r;
  T *y, *ro;
};
template <typename T> __device__ __forceinline__ WideRow<T> wide_row(const FwdWideParams &p, int64_t row) {
  WideRow<T> w;
  w.x = static_cast<const T *>(p.x) + row_offset(p.nd, row, p.x_stride, p.x_outer);
  w.r = static_cast<const T *>(p.r) + row_offset(p.nd, row, p.r_stride, p.r_outer);
  w.y = static_cast<T *>(p.y) + row_offset(p.nd, row, p.y_stride, p.y_outer);
  w.ro = static_cast<T *>(p.ro) + row_offset(p.nd, row, p.ro_stride, p.ro_outer);
  return w;
}

/* A slot of the chunk: 16-byte loads and stores where the instance is aligned-only (AL: every row
 * start and the weight 16-byte aligned, n a multiple of the vector width, so every slot below c1
 * is whole), else load_slot / store_slot with their element-wise path. */
template <bool AL, typename T>
__device__ __forceinline__ void ld_slot(Vec<T> &v, const T *row, int col, int lim, bool al) {
  if (AL) ld16(v.w, row + col);
  else load_slot(v, row, col, lim, al);
}
template <bool AL, typename T>
__device__ __forceinline__ void st_slot(T *row, const Vec<T> &v, int col, int lim, bool al) {
  if (AL) st16(row + col, v.w);
  else store_slot(row, v, col, lim, al);
}

/* CTA rank within the cluster (cluster code exists from sm_90 only). */
__device__ __forceinline__ int cluster_rank() {
#if FN_HAS_CLUSTERS
  return (int)cg::this_cluster().block_rank();
#else
  __trap();
  return 0;
#endif
}

}  // namespace

template <typename T, int S, bool FUSED, bool U>
__global__ void __launch_bounds__(FN_FWD_WIDE_MAX_THREADS, FN_FWD_WIDE_MIN_CTAS)
    rms_norm_fwd_wide(const FwdWideParams p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  /* The cached slots' fp32 weight loaded with x (its latency hidden behind the reduction) where
   * it fits the 64 registers of the launch bound: S <= 2. At S = 4 it is 32 more registers and
   * ptxas spilled 20-264 bytes (nvcc 13.0, sm_90a), so there it is read after the reduction. */
  constexpr bool PRE_W = S <= 2 && !(U && FUSED); /* U, fused: ptxas spilled 64 bytes (16-bit, S = 2) */
  /* S = 4 is the aligned-only instance without the fused add (the plan gives it only plain
   * aligned rows, n a multiple of the vector width): with the element-wise fallback ptxas spilled
   * 28-100 bytes at 64 registers, and with the fused add's r slots 28-32 bytes. */
  constexpr bool AL = S == 4;
  constexpr int SW = PRE_W ? S : 1;
  __shared__ ReduceSmem red;
  extern __shared__ uint4 stage[];
  const int cl = p.cluster;
  const int crank = cluster_rank();
  const int64_t units = gridDim.x / cl;
  static_assert(!(AL && U), "the 4-slot instance is aligned-only");
  const int cc0 = crank * p.chunk, cc1 = min(p.n, cc0 + p.chunk);
  const bool al = p.aligned != 0 || U;      /* the row tensors' slots (head-split: the interior's) */
  const bool alw = AL || p.aligned != 0;    /* the weight's */
  const int step = blockDim.x * N;          /* columns between one thread's consecutive slots */
  /* Staged slots: thread t's j-th at stage[j*T + t] (x, or s after the fused add), the fused
   * add's r slots after them; 16-byte copies, so only where the slots are whole vectors. */
  const int sj = al ? p.staged : 0;
  uint4 *const stx = stage + threadIdx.x;
  uint4 *const str = stx + (size_t)sj * blockDim.x;
  int parity = 0;
  for (int64_t row = blockIdx.x / cl; row < p.rows; row += units, parity ^= 1) {
    const WideRow<T> rp = wide_row<T>(p, row);
    int c0 = cc0, c1 = cc1, ecol = -1;
    if constexpr (U) {
      const RowSplit sp = row_split<T>(rp.x, p.n);
      c0 += sp.h;
      c1 = min(sp.h + (p.n - sp.h) / N * N, c0 + p.chunk);
      if (crank == 0) ecol = sp.ecol;
    }
    const int col0 = c0 + threadIdx.x * N;  /* this thread's first slot */
    /* This thread's staged slots S .. S+jn-1: those that start below c1 (the division only where
     * the plan stages: it would delay every launch's first loads). */
    const int cs = col0 + S * step;
    const int jn = sj > 0 && cs < c1 ? min(sj, (c1 - cs + step - 1) / step) : 0;
    V xv[S];
    float wv[SW][N];
    /* Every load of the cached slots (x, r, the weight) issued before the first use. */
    {
      V rv[S];
#pragma unroll
      for (int k = 0; k < S; ++k) {
        const int col = col0 + k * step;
        if (col < c1) {
          ld_slot<AL>(xv[k], rp.x, col, c1, al);
          if (FUSED) ld_slot<AL>(rv[k], rp.r, col, c1, al);
          if (PRE_W) load_weight<N>(wv[PRE_W ? k : 0], p.w, p.w_dtype, p.offset, col, c1, alw);
        }
      }
      /* The staged slots' copies, right behind the registers' loads: the whole chunk in flight at
       * once, where streaming them waits a round trip per slot. */
      for (int j = 0; j < jn; ++j) {
        const int col = cs + j * step;
        const int bytes = min(N, c1 - col) * (int)sizeof(T);
        cp_async16_part(stx + (size_t)j * blockDim.x, rp.x + col, bytes);
        if (FUSED) cp_async16_part(str + (size_t)j * blockDim.x, rp.r + col, bytes);
      }
      cp_async_commit();
      if (FUSED) {
#pragma unroll
        for (int k = 0; k < S; ++k) {
          const int col = col0 + k * step;
          if (col < c1) {
            add_residual(xv[k], rv[k]); /* s replaces x */
            st_slot<AL>(rp.ro, xv[k], col, c1, al);
          }
        }
      }
    }
    float ss = 0.0f;
#pragma unroll
    for (int k = 0; k < S; ++k)
      if (col0 + k * step < c1) ss = add_squares(xv[k], ss); /* columns past the end were loaded as 0 */
    if (jn > 0) cp_async_wait_all();
    for (int j = 0; j < jn; ++j) {
      uint4 *const q = stx + (size_t)j * blockDim.x;
      V sv = smem_get<T>(q);
      if (FUSED) {
        add_residual(sv, smem_get<T>(str + (size_t)j * blockDim.x));
        smem_put(q, sv);
        st_slot<AL>(rp.ro, sv, cs + j * step, c1, al);
      }
      ss = add_squares(sv, ss);
    }
    for (int col = cs + jn * step; col < c1; col += step) {
      V sv;
      ld_slot<AL>(sv, rp.x, col, c1, al);
      if (FUSED) {
        V rv;
        ld_slot<AL>(rv, rp.r, col, c1, al);
        add_residual(sv, rv);
        st_slot<AL>(rp.ro, sv, col, c1, al);
      }
      ss = add_squares(sv, ss);
    }
    float es = 0.0f; /* head-split: this thread's edge element's s, added after its slots */
    if (U && ecol >= 0) {
      es = edge_s(rp.x, rp.r, rp.ro, ecol, FUSED);
      ss = fmaf(es, es, ss);
    }
    /* The cluster's sum (every CTA gets the same value: the same order in every CTA). */
    const float rstd = rstd_of(team_sum(ss, blockDim.x, cl, parity, red), p.n, p.eps);
    if (p.rstd != nullptr && crank == 0 && threadIdx.x == 0) p.rstd[row] = rstd;
    with_llama(p.llama, [&](auto llama_c) {
      constexpr bool L = decltype(llama_c)::value;
#pragma unroll
      for (int k = 0; k < S; ++k) {
        const int col = col0 + k * step;
        if (col < c1) {
          V yv;
          if (!PRE_W) load_weight<N>(wv[0], p.w, p.w_dtype, p.offset, col, c1, alw);
          normalize_slot<T, L>(yv, xv[k], wv[PRE_W ? k : 0], rstd);
          st_slot<AL>(rp.y, yv, col, c1, al);
        }
      }
      /* The staged slots B at a time, their weights loaded first (an L2 round trip per batch, not
       * per slot: the loads may not pass the stores of y, which the compiler cannot tell apart).
       * One at a time in the fused and head-split instances of 16-bit rows: a batch of two spilled
       * 16-132 bytes there at the launch bound's 64 registers (ptxas, nvcc 13.0, sm_90a). */
      constexpr int B = U || FUSED ? (N == 4 ? 2 : 1) : N == 8 ? 2 : 4;
      for (int j = 0; j < jn; j += B) {
        float w[B][N];
#pragma unroll
        for (int b = 0; b < B; ++b)
          if (j + b < jn) load_weight<N>(w[b], p.w, p.w_dtype, p.offset, cs + (j + b) * step, c1, alw);
#pragma unroll
        for (int b = 0; b < B; ++b) {
          if (j + b < jn) {
            V yv;
            normalize_slot<T, L>(yv, smem_get<T>(stx + (size_t)(j + b) * blockDim.x), w[b], rstd);
            st_slot<AL>(rp.y, yv, cs + (j + b) * step, c1, al);
          }
        }
      }
      for (int col = cs + jn * step; col < c1; col += step) {
        V sv, yv;
        float w[N];
        ld_slot<AL>(sv, FUSED ? static_cast<const T *>(rp.ro) : rp.x, col, c1, al);
        load_weight<N>(w, p.w, p.w_dtype, p.offset, col, c1, alw);
        normalize_slot<T, L>(yv, sv, w, rstd);
        st_slot<AL>(rp.y, yv, col, c1, al);
      }
      if (U && ecol >= 0) edge_y<T, L>(rp.y, ecol, es, rstd, p.w, p.w_dtype, p.offset, p.n);
    });
  }
  cluster_exit_sync(); /* no CTA exits while a peer may still read its shared memory */
}

template <typename T, int S, bool U>
static const void *fwd_wide_kernel_s(bool fused) {
  if constexpr (S == 4)
    return fused || U ? nullptr : reinterpret_cast<const void *>(&rms_norm_fwd_wide<T, 4, false, false>);
  else
    return fused ? reinterpret_cast<const void *>(&rms_norm_fwd_wide<T, S, true, U>)
                 : reinterpret_cast<const void *>(&rms_norm_fwd_wide<T, S, false, U>);
}

template <typename T, bool U>
static const void *fwd_wide_kernel_for(int spt, bool fused) {
  switch (spt) {
    case 1: return fwd_wide_kernel_s<T, 1, U>(fused);
    case 2: return fwd_wide_kernel_s<T, 2, U>(fused);
    case 4: return fwd_wide_kernel_s<T, 4, U>(fused);
  }
  return nullptr;
}

template <typename T>
static const void *fwd_wide_kernel_u(int spt, bool fused, bool unaligned) {
  return unaligned ? fwd_wide_kernel_for<T, true>(spt, fused) : fwd_wide_kernel_for<T, false>(spt, fused);
}

const void *fwd_wide_kernel(fusednorm_dtype x, int spt, bool fused, bool unaligned) {
  switch (x) {
    case FUSEDNORM_F32: return fwd_wide_kernel_u<float>(spt, fused, unaligned);
    case FUSEDNORM_F16: return fwd_wide_kernel_u<__half>(spt, fused, unaligned);
    case FUSEDNORM_BF16: return fwd_wide_kernel_u<__nv_bfloat16>(spt, fused, unaligned);
  }
  return nullptr;
}

}  // namespace fn
