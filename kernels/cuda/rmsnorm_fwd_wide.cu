/*
 * rmsnorm_fwd_wide.cu — the wide forward (the WIDE mode's forward family, FUSEDNORM_KERNEL_FWD_WIDE):
 * a row split over a thread-block cluster, for few wide rows (fewer rows than SMs: one CTA per
 * row leaves most SMs idle) and rows wider than one CTA's registers. The row's CTAs are a cluster
 * and their sums meet in distributed shared memory (FN_HAS_CLUSTERS, rmsnorm_common.cuh: sm_90
 * and later), or (GS) they are consecutive CTAs of a cooperative grid and their sums meet in
 * global memory (the grid sum, grid_push_sum below): always where the code has no clusters, and
 * where it has them for a few very wide rows, whose clusters of at most 16 CTAs would leave most
 * SMs idle (select.c FN_AUTO_FWD_WIDE_GRID_CL_*).
 *
 * Geometry (select.c fwd_wide, launch_config.h): `cluster` CTAs a row (p.cluster: the plan's
 * ctas_per_row), one cluster per row (grid-stride beyond 2^31 CTAs; the grid sum: as many rows
 * at once as one CTA an SM holds, in rounds; WS: the clusters resident at once, each looping over
 * rows); CTA rank c owns the columns [c*chunk, (c+1)*chunk), chunk
 * a multiple of the vector width so that every CTA's slots start aligned where the row does. Thread
 * t owns the slots t, t + T, t + 2T, ... of its chunk (T = blockDim.x): the first S in registers
 * (loaded with the weight before the reduction), the rest (only where the plan's cluster is at its
 * largest and the chunk still exceeds T*S) streamed: read once for the sum, and once more, from L2,
 * for y (residual_out for the fused add: the value this thread wrote, in program order).
 *
 * Per row, exactly the contract (kernels/README.md): s = RN(x + r) (fused add: written to
 * residual_out by the CTA owning the column), ss = the fp32 sum of s^2 in a fixed order: each
 * thread over its slots in order (cached, then streamed; elements in order), the warp's xor tree,
 * the CTA's warps in order, the cluster's CTAs in rank order (cluster_push_sum: each CTA's
 * partial stored into every CTA's shared memory; the grid sum: lane-strided over the row's CTAs
 * in warp 0, then its xor tree, grid_push_sum); rstd = 1/sqrt(ss/n + eps) (true division and
 * sqrtf), written once per row by rank 0; y = RN(s*rstd*w_eff) or, LLAMA, RN(RN(s*rstd)*w_eff).
 * The order depends on the plan (cluster size, threads, slots per thread), i.e. on the shape,
 * dtype and device figures only: bitwise deterministic run to run, but not bitwise equal to
 * another mode or cluster size (the contract allows that; every plan meets the accuracy rules).
 *
 * The weight: with the plan's weight_smem (WS: aligned rows and weight, p.wstage bytes a slot, a
 * grid of the resident clusters looping over rows), each slot's weight is copied into shared memory
 * by cp.async with its x on the CTA's first row, and y's loop reads it there on every row: it
 * crosses from L2 once a CTA. Otherwise it is read from global memory (L2) every row, after the
 * row's sum (a round trip per batch of slots; the 4-slot instance loads the next batch's weight
 * before this batch's stores, weight_pieces) or (S <= 2) into registers with x.
 *
 * Head-split (U, the plan's `unaligned`: rows congruent modulo 16 bytes but not aligned, or n not a
 * multiple of the vector; S <= 2): the chunks tile the row's interior from its
 * first 16-byte boundary h (per row, from its address), so every slot is a whole 16-byte vector;
 * the head and tail elements go one per thread of rank 0 (rmsnorm_unaligned.cuh), added to its sum
 * after its slots; a slot's weight is read as wide_weight says.
 * Otherwise a misaligned row goes element by element. U is a template flag so that the aligned
 * instances carry none of it: with a runtime flag the aligned fp32 fused-add instance (S = 2)
 * measured 24% slower (H200, 100 x 49152: 51.8 us against 41.7).
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

/* A slot's effective weight after the row's sum. The plain head-split instance of 16-bit rows
 * reads it with load_weight_u (a 16-bit weight as the shifted 16-byte blocks that cover the slot:
 * 1.02-1.23x on 16-1024 rows, H200 2026-11-29); the others as load_weight does (element by element
 * where not aligned: with the blocks ptxas spilled 8-32 bytes in the fused add's at the launch
 * bound's 64 registers, nvcc 13.0, sm_90a, and f32 rows gained nothing). */
template <bool U, bool FUSED, typename T, int N>
__device__ __forceinline__ void wide_weight(float (&w)[N], const FwdWideParams &p, int col, int c1, bool alw) {
  if constexpr (U && !FUSED && sizeof(T) == 2) load_weight_u<N>(w, p.w, p.w_dtype, p.offset, col, p.n);
  else load_weight<N>(w, p.w, p.w_dtype, p.offset, col, c1, alw);
}

/* The weight of the slot at `col` (its first min(N, c1 - col) elements, the rest zero) copied into
 * the thread's stage: `wsb` bytes (fn_fwd_wide_weight_bytes), one 16-byte piece at dst and, at 32,
 * the second `blockDim.x` pieces later (the stage interleaves the threads, as smem_get's slots). The
 * weight is 16-byte aligned and col a multiple of N: every piece starts aligned. A piece past the
 * row's end copies nothing (zero bytes, from the slot's own address). */
template <int N>
__device__ __forceinline__ void cp_weight(uint4 *dst, const void *w, int col, int c1, int wsb) {
  const int es = wsb / N;
  const int bytes = min(N, c1 - col) * es;
  const char *src = static_cast<const char *>(w) + (size_t)col * es;
  cp_async16_part(dst, src, min(bytes, 16));
  if (wsb == 32) cp_async16_part(dst + blockDim.x, bytes > 16 ? src + 16 : src, max(0, bytes - 16));
}

/* The 8 elements of one 16-byte piece of a 16-bit weight (bf16 or f16), in fp32. */
template <int N> __device__ __forceinline__ void packed16_weight(float (&out)[N], const uint4 u, int w_dtype) {
  const uint32_t wd[4] = {u.x, u.y, u.z, u.w};
  if (w_dtype == FUSEDNORM_BF16) {
#pragma unroll
    for (int e = 0; e < N; ++e) out[e] = bf16_packed(wd, e);
  } else {
#pragma unroll
    for (int e = 0; e < N; ++e) out[e] = f16_packed(wd, e);
  }
}

/* A slot's effective weight (w + offset in fp32, as load_weight gives it) from the pieces cp_weight
 * staged. */
template <int N>
__device__ __forceinline__ void staged_weight(float (&out)[N], const uint4 *q, int w_dtype, float offset) {
  if (w_dtype == FUSEDNORM_F32) {
#pragma unroll
    for (int i = 0; i < N / 4; ++i) {
      const uint4 u = q[(size_t)i * blockDim.x];
      out[4 * i + 0] = __uint_as_float(u.x); out[4 * i + 1] = __uint_as_float(u.y);
      out[4 * i + 2] = __uint_as_float(u.z); out[4 * i + 3] = __uint_as_float(u.w);
    }
  } else {
    packed16_weight<N>(out, q[0], w_dtype);
  }
#pragma unroll
  for (int e = 0; e < N; ++e) out[e] += offset;
}

/* A slot's effective weight from one 16-byte piece (weight_pieces below: 4 f32 elements of an f32
 * x's slot, or 8 of a 16-bit x's). */
template <int N>
__device__ __forceinline__ void piece_weight(float (&out)[N], const uint4 u, int w_dtype, float offset) {
  static_assert(N == 4 || N == 8, "a piece holds 4 f32 or 8 16-bit elements");
  if constexpr (N == 4) {
    out[0] = __uint_as_float(u.x); out[1] = __uint_as_float(u.y);
    out[2] = __uint_as_float(u.z); out[3] = __uint_as_float(u.w);
  } else {
    packed16_weight<N>(out, u, w_dtype);
  }
#pragma unroll
  for (int e = 0; e < N; ++e) out[e] += offset;
}

/* The staged slots' weight read from global memory after the row's sum, where each slot's weight
 * is one aligned 16-byte piece (piece_weight: a 16-bit x with a 16-bit weight, f32 with f32): the
 * raw pieces of the next batch loaded before this batch's stores of y. Loaded beside the stores
 * that use them, each batch waited on its own L2 round trip (the compiler does not move a load
 * above a store it cannot tell apart): at a CTA-row of a 16-CTA cluster (bf16 256 x 1048576: 12
 * staged slots a thread, 6 batches) they were 17% of the kernel's warp-stall samples (Nsight
 * Compute, H200, 2026-11-30). */
template <typename T> __device__ __forceinline__ bool weight_pieces(const FwdWideParams &p, bool alw) {
  return p.w != nullptr && alw && ((sizeof(T) == 2) == (p.w_dtype != FUSEDNORM_F32));
}
template <typename T> __device__ __forceinline__ uint4 ld_piece(const FwdWideParams &p, int col) {
  return __ldg(reinterpret_cast<const uint4 *>(static_cast<const T *>(p.w) + col));
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

/* The cluster's sum of one row, pushed: each CTA's thread 0 stores its partial into slot [rank]
 * of every CTA's `all` (its own included) by st.async, which counts the bytes on the receiver's
 * mbarrier; each CTA waits on its own mbarrier for the cluster's 4 * cluster bytes, then every
 * thread sums `all` in rank order. No cluster barrier per row (one round trip of remote stores in
 * place of a barrier and a round of remote loads), and none at exit: a CTA's shared memory is
 * written only with partials it waits for. Slots and mbarriers by row parity: a peer is at most
 * one row ahead (it cannot finish a row without this CTA's partial of it). The same order as
 * team_sum's cluster sum, so the same bits. */
struct WideRed {
  float warp[2][32];
  float all[2][16];
  unsigned long long bar[2];
};

#if FN_HAS_CLUSTERS /* used by the cluster code only */
__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
#endif

/* Before the first row: the mbarriers initialized (one arrival a phase: the local expect_tx) and
 * made visible to the cluster; the wait (cluster_push_ready) before the first remote store. */
__device__ __forceinline__ void cluster_push_init(WideRed &r) {
#if FN_HAS_CLUSTERS
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem_u32(&r.bar[0])) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem_u32(&r.bar[1])) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  /* relaxed: fence.mbarrier_init above publishes the mbarriers, the only state a peer touches
   * before its first wait. The release form put a MEMBAR.GPU at every CTA's start, waited on
   * while the SM's earlier CTAs' stores drained: 4-7% of the warp-stall samples of a 16-CTA
   * cluster launch a row (bf16 256 x 1048576; Nsight Compute, H200, 2026-11-30). */
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
#else
  __trap();
#endif
}
__device__ __forceinline__ void cluster_push_ready() {
#if FN_HAS_CLUSTERS
  asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
  __trap();
#endif
}

/* Every thread of the CTA calls it; `use` counts this CTA's rows (the mbarrier phase). */
__device__ __forceinline__ float cluster_push_sum(float v, int cl, int crank, int parity, unsigned use, WideRed &r) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) r.warp[parity][threadIdx.x >> 5] = v;
  __syncthreads();
#if FN_HAS_CLUSTERS
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int i = 0; i < (int)(blockDim.x >> 5); ++i) s += r.warp[parity][i];
    const unsigned bar = smem_u32(&r.bar[parity]), slot = smem_u32(&r.all[parity][crank]);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(4 * cl) : "memory");
    for (int k = 0; k < cl; ++k) {
      unsigned rs, rb;
      asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(rs) : "r"(slot), "r"(k));
      asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(rb) : "r"(bar), "r"(k));
      asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];\n" ::"r"(rs),
                   "r"(__float_as_uint(s)), "r"(rb)
                   : "memory");
    }
  }
  {
    const unsigned bar = smem_u32(&r.bar[parity]), phase = (use >> 1) & 1u;
    asm volatile(
        "{\n .reg .pred p;\n WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT_%=;\n}\n" ::"r"(bar),
        "r"(phase)
        : "memory");
  }
  float t = 0.0f;
  for (int k = 0; k < cl; ++k) t += r.all[parity][k];
  return t;
#else
  __trap();
  return v;
#endif
}

/* The grid sum (GS, the plan's `grid_sum`: cluster 1; the plan sizes the grid to be co-resident
 * and it is launched cooperatively): a row's CTAs are `cl` consecutive ones and
 * their partial sums meet in global memory, in the row's own y: each CTA's thread 0 stores its
 * partial (fp32 bits) into the first 4-byte-aligned word of its own chunk's first slot of y
 * (grid_slot), a grid-wide barrier follows, and warp 0 of every CTA of the row loads the cl
 * partials (through L2: a peer SM wrote them) and sums them in one fixed order (lane-strided, then
 * the xor tree), so every CTA gets the same bits. y is free scratch there: the CTA that owns that
 * slot has already loaded its x (and r) into registers (thread 0's first cached slot; y may be x
 * or r in place), and it writes that slot's y only after the next barrier (HeldSlot), when every
 * peer has read the partial. One barrier per row, one more at the end. The plan guarantees every
 * CTA at least one whole vector of the row (select.c fwd_wide_grid_ctas), so the word lies inside
 * thread 0's first slot. */
template <typename T> __device__ __forceinline__ float *grid_slot(T *y, int col) {
  return reinterpret_cast<float *>((reinterpret_cast<uintptr_t>(y + col) + 3) & ~uintptr_t(3));
}

/* Thread 0's first slot of y, held back while it carries the partial (see grid_slot). */
template <typename T> struct HeldSlot {
  Vec<T> v;
  T *row;
  int col, lim, al;
};

template <bool AL, typename T> __device__ __forceinline__ void flush_held(HeldSlot<T> &h) {
  if (threadIdx.x == 0 && h.row != nullptr) {
    st_slot<AL>(h.row, h.v, h.col, h.lim, h.al != 0);
    h.row = nullptr;
  }
}

/* Every thread of the CTA calls it (grid-wide barrier inside). `y` is the row's y, `c0` the first
 * column of this CTA's chunk and `c0_of_0` that of rank 0 (the chunks `chunk` columns apart). */
template <bool AL, typename T>
__device__ __forceinline__ float grid_push_sum(float v, int cl, T *y, int c0, int c0_of_0, int chunk, WideRed &r,
                                               HeldSlot<T> &held) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) r.warp[0][threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int i = 0; i < (int)(blockDim.x >> 5); ++i) s += r.warp[0][i];
    __stcg(grid_slot(y, c0), s);
  }
  cg::this_grid().sync();
  flush_held<AL>(held); /* the previous row's partials are read by now */
  if (threadIdx.x < 32) {
    float t = 0.0f;
    for (int k = threadIdx.x; k < cl; k += 32) t += __ldcg(grid_slot(y, c0_of_0 + k * chunk));
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) t += __shfl_xor_sync(0xffffffffu, t, off);
    if (threadIdx.x == 0) r.all[0][0] = t;
  }
  __syncthreads();
  return r.all[0][0];
}

}  // namespace

/* The body of rms_norm_fwd_wide (below): GS, the grid sum, or the cluster's. */
template <typename T, int S, bool FUSED, bool U, bool GS, bool WS>
__device__ __forceinline__ void fwd_wide_row_loop(const FwdWideParams &p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  /* The cached slots' fp32 weight loaded with x (its latency hidden behind the reduction) where
   * it fits the 64 registers of the launch bound: S <= 2. At S = 4 it is 32 more registers and
   * ptxas spilled 20-264 bytes (nvcc 13.0, sm_90a), so there it is read after the reduction; so
   * it is in the head-split fused add (spilled 64 bytes, 16-bit, S = 2) and in the head-split
   * instances of 16-bit rows, whose weight comes as shifted blocks (wide_weight: spilled 8-40 bytes
   * loaded with x; read after the sum they measured 1.02-1.23x on 16-1024 rows, 0.93-1.06x on 1-8
   * rows, H200 2026-11-29). */
  constexpr bool PRE_W = S <= 2 && !(U && (FUSED || sizeof(T) == 2)) && !WS;
  /* S = 4 is the aligned-only instance without the fused add (the plan gives it only plain
   * aligned rows, n a multiple of the vector width): with the element-wise fallback ptxas spilled
   * 28-100 bytes at 64 registers, and with the fused add's r slots 28-32 bytes. */
  constexpr bool AL = S == 4;
  constexpr int SW = PRE_W ? S : 1;
  __shared__ WideRed red;
  __shared__ HeldSlot<T> held;
  extern __shared__ uint4 stage[];
  const int cl = p.cluster;
  constexpr bool gs = GS;
  if (p.grid_sum != (gs ? 1 : 0) || (p.wstage != 0) != WS) __trap(); /* the instance the plan named */
  const int crank = gs ? (int)(blockIdx.x % cl) : cluster_rank();
  if (gs) {
    if (threadIdx.x == 0) held.row = nullptr;
  } else {
    cluster_push_init(red);
  }
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
  /* WS, the weight staged (aligned rows and weight; its instances are neither head-split nor the
   * grid sum's): `wq` 16-byte pieces a slot, the thread's slot i (registers 0 .. S-1, then the
   * stage's) at stw[i * wq * T], behind the stage's x and r. Each thread reads only what it copied
   * (no barrier). A template flag: at run time its pointers and branches cost the instances without
   * it 8-64 bytes of spills at the launch bound's 64 registers (ptxas, nvcc 13.0, sm_90a). */
  static_assert(!(WS && (U || GS)), "the staged weight is the aligned cluster instances'");
  const int wsb = WS ? p.wstage : 0;
  const int wq = wsb >> 4;
  uint4 *const stw = stx + (size_t)sj * (FUSED ? 2 : 1) * blockDim.x;
  int parity = 0;
  unsigned use = 0;
  /* Grid sum: every CTA passes the same number of grid barriers, one per round of `units` rows,
   * its own row or not (the rounds while row - (its first row) < rows). */
  for (int64_t row = blockIdx.x / cl; row - (gs ? blockIdx.x / cl : 0) < p.rows; row += units, parity ^= 1, ++use) {
    if (gs && row >= p.rows) { /* no row this round: the barrier only */
      cg::this_grid().sync();
      flush_held<AL>(held);
      continue;
    }
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
          if (wsb) { /* the chunk's columns are the same every row: its weight copied once */
            if (use == 0) cp_weight<N>(stw + (size_t)k * wq * blockDim.x, p.w, col, c1, wsb);
          } else if (PRE_W) {
            load_weight<N>(wv[PRE_W ? k : 0], p.w, p.w_dtype, p.offset, col, c1, alw);
          }
        }
      }
      /* The staged slots' copies, right behind the registers' loads: the whole chunk in flight at
       * once, where streaming them waits a round trip per slot. */
      for (int j = 0; j < jn; ++j) {
        const int col = cs + j * step;
        const int bytes = min(N, c1 - col) * (int)sizeof(T);
        cp_async16_part(stx + (size_t)j * blockDim.x, rp.x + col, bytes);
        if (FUSED) cp_async16_part(str + (size_t)j * blockDim.x, rp.r + col, bytes);
        if (wsb && use == 0) cp_weight<N>(stw + (size_t)(S + j) * wq * blockDim.x, p.w, col, c1, wsb);
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
    if (jn > 0 || wsb) cp_async_wait_all();
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
    /* The cluster's or the grid's sum (every CTA gets the same value: the same order in every CTA). */
    float total;
    if (gs) {
      total = grid_push_sum<AL>(ss, cl, rp.y, c0, c0 - crank * p.chunk, p.chunk, red, held);
    } else {
      if (use == 0) cluster_push_ready(); /* the peers' mbarriers initialized */
      total = cluster_push_sum(ss, cl, crank, parity, use, red);
    }
    const float rstd = rstd_of(total, p.n, p.eps);
    if (p.rstd != nullptr && crank == 0 && threadIdx.x == 0) p.rstd[row] = rstd;
    with_llama(p.llama, [&](auto llama_c) {
      constexpr bool L = decltype(llama_c)::value;
#pragma unroll
      for (int k = 0; k < S; ++k) {
        const int col = col0 + k * step;
        if (col < c1) {
          V yv;
          if (wsb) {
            float w[N];
            staged_weight<N>(w, stw + (size_t)k * wq * blockDim.x, p.w_dtype, p.offset);
            normalize_slot<T, L>(yv, xv[k], w, rstd);
          } else {
            if (!PRE_W) wide_weight<U, FUSED, T, N>(wv[0], p, col, c1, alw);
            normalize_slot<T, L>(yv, xv[k], wv[PRE_W ? k : 0], rstd);
          }
          if (k == 0 && gs && threadIdx.x == 0) /* it holds this CTA's partial until the next barrier */
            held = HeldSlot<T>{yv, rp.y, col, c1, al ? 1 : 0};
          else
            st_slot<AL>(rp.y, yv, col, c1, al);
        }
      }
      if (wsb) {
        for (int j = 0; j < jn; ++j) {
          float w[N];
          V yv;
          staged_weight<N>(w, stw + (size_t)(S + j) * wq * blockDim.x, p.w_dtype, p.offset);
          normalize_slot<T, L>(yv, smem_get<T>(stx + (size_t)j * blockDim.x), w, rstd);
          st_slot<AL>(rp.y, yv, cs + j * step, c1, al);
        }
      }
      /* Without the staged weight: the staged slots B at a time, their weights loaded first (an L2
       * round trip per batch, not per slot: the loads may not pass the stores of y, which the
       * compiler cannot tell apart). One at a time in the fused and head-split instances of 16-bit
       * rows: a batch of two spilled 16-132 bytes there at the launch bound's 64 registers (ptxas,
       * nvcc 13.0, sm_90a). */
      constexpr int B = U || FUSED ? (N == 4 ? 2 : 1) : N == 8 ? 2 : 4;
      /* The 4-slot instance (aligned-only: every slot below c1 whole) with weight pieces
       * (weight_pieces): two slots a batch, the next batch's pieces loaded before this batch's
       * stores, so that one round trip is waited on where there was one a batch: paired on an
       * H200 (2026-11-30, kernels/RESULTS.md) 1.055-1.16x on 64-300 rows of 0.5-1M columns,
       * 0.98-1.10x on one-wave shapes of 8-64 rows. The 16-bit
       * instance spills 16 bytes with it at the 64-register bound, the others' instances spilled
       * 32-136 bytes (nvcc 13.0, sm_90a), so they keep the batches above. */
      constexpr bool PIPE = AL && !WS;
      const bool pipe = PIPE && weight_pieces<T>(p, alw);
      if constexpr (PIPE) if (pipe) {
        constexpr int BP = 2;
        uint4 cur[BP], nxt[BP];
#pragma unroll
        for (int b = 0; b < BP; ++b) cur[b] = b < jn ? ld_piece<T>(p, cs + b * step) : make_uint4(0, 0, 0, 0);
        for (int j = 0; j < jn; j += BP) {
#pragma unroll
          for (int b = 0; b < BP; ++b)
            nxt[b] = j + BP + b < jn ? ld_piece<T>(p, cs + (j + BP + b) * step) : make_uint4(0, 0, 0, 0);
#pragma unroll
          for (int b = 0; b < BP; ++b) {
            if (j + b < jn) {
              float w[N];
              V yv;
              piece_weight<N>(w, cur[b], p.w_dtype, p.offset);
              normalize_slot<T, L>(yv, smem_get<T>(stx + (size_t)(j + b) * blockDim.x), w, rstd);
              st_slot<AL>(rp.y, yv, cs + (j + b) * step, c1, al);
            }
            cur[b] = nxt[b];
          }
        }
      }
      for (int j = 0; j < (wsb || pipe ? 0 : jn); j += B) {
        float w[B][N];
#pragma unroll
        for (int b = 0; b < B; ++b)
          if (j + b < jn) wide_weight<U, FUSED, T, N>(w[b], p, cs + (j + b) * step, c1, alw);
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
        wide_weight<U, FUSED, T, N>(w, p, col, c1, alw);
        normalize_slot<T, L>(yv, sv, w, rstd);
        st_slot<AL>(rp.y, yv, col, c1, al);
      }
      if (U && ecol >= 0) edge_y<T, L>(rp.y, ecol, es, rstd, p.w, p.w_dtype, p.offset, p.n);
    });
  }
  if (gs) {
    cg::this_grid().sync(); /* the last row's partials read */
    flush_held<AL>(held);
  } else if (use == 0) {
    cluster_push_ready(); /* a CTA without rows still waits once, as it arrived once */
  }
}

/* The instances compiled for real: the grid sum (GS) everywhere but its one-slot instances where
 * there are clusters (the plan takes the grid sum there only for rows of 80000 slots and more, at
 * two or four slots a thread: select.c FN_AUTO_FWD_WIDE_GRID_CL_*), the cluster's only where there
 * are clusters. The others trap: the plan never names them. */
template <int S, bool GS> __device__ constexpr bool fwd_wide_compiled() {
  return GS ? !(FN_HAS_CLUSTERS && S == 1) : FN_HAS_CLUSTERS != 0;
}

/* The partials meet in global memory (the grid sum, GS) or in the cluster's shared memory: a
 * template flag, so that neither kind of instance carries the other's registers (with a runtime
 * flag ptxas spilled 44-104 bytes at the 64-register bound, nvcc 13.0, sm_90a). The grid sum runs
 * one CTA per SM (FN_FWD_WIDE_GRID_CTAS_PER_SM): every CTA of the grid waits at the same barrier,
 * so a second one per SM hides nothing, and at two the barrier's registers made ptxas spill 4-80
 * bytes at the 64-register bound (nvcc 13.0, sm_80). p.grid_sum says which the plan made; WS
 * (p.wstage), whether the weight is staged. */
template <typename T, int S, bool FUSED, bool U, bool GS, bool WS = false>
__global__ void __launch_bounds__(FN_FWD_WIDE_MAX_THREADS, GS ? FN_FWD_WIDE_GRID_CTAS_PER_SM : FN_FWD_WIDE_MIN_CTAS)
    rms_norm_fwd_wide(const FwdWideParams p) {
  if constexpr (fwd_wide_compiled<S, GS>()) fwd_wide_row_loop<T, S, FUSED, U, GS, WS>(p);
  else __trap();
}

/* Many wide plain rows, every slot staged (the plan's slots_per_thread 0, select.c fwd_wide_wr):
 * one CTA of FN_FWD_WIDE_WR_THREADS threads a (row, chunk), the grid rows x cluster CTAs (a row
 * loop only past 2^31 CTAs). Thread t's slots t, t + T, ... (at most FN_FWD_WIDE_WR_SLOTS) all go
 * to shared memory by cp.async, and right behind those copies its slots' weight, one raw 16-byte
 * piece a slot (weight_pieces: a 16-bit x with a 16-bit weight, f32 with f32), into registers,
 * where it stays for every row the CTA takes: the weight's L2 latency hides behind x's, and no
 * shared memory holds it, so four CTAs an SM fit (the launch bound's 64 registers) and their
 * copies overlap one another's sums. The cluster's push sum as in the kernel above; y from the
 * stage and the registers' weight. The per-row operations and sum order of the kernel above with
 * S = 0 (each thread's slots in order, the warp's xor tree, the warps in order, the CTAs in rank
 * order). Against the staged-weight plan (the resident clusters looping over rows, half a
 * thread's x in registers, the weight copied into shared memory once a CTA) and the plain plan of
 * one wave or two: 1.03-1.16x (H200, 2026-11-30, kernels/RESULTS.md "The wide forward of many
 * rows: every slot staged, the weight in registers"). Not the fused add: with x and r staged (64
 * KB a CTA, three CTAs an SM) it measured 0.90-1.04x there. */
template <typename T>
__global__ void __launch_bounds__(FN_FWD_WIDE_WR_THREADS, FN_FWD_WIDE_WR_MIN_CTAS)
    rms_norm_fwd_wide_wr(const FwdWideParams p) {
#if FN_HAS_CLUSTERS
  using V = Vec<T>;
  constexpr int N = V::N, J = FN_FWD_WIDE_WR_SLOTS, NT = FN_FWD_WIDE_WR_THREADS;
  constexpr int step = NT * N; /* columns between a thread's consecutive slots */
  __shared__ WideRed red;
  extern __shared__ uint4 stage[];
  const int cl = p.cluster, crank = cluster_rank();
  /* the plan's instance: clusters, no staged weight, at most J slots a thread, whole weight pieces,
   * the launch's threads the instance's */
  if (p.grid_sum != 0 || p.wstage != 0 || p.staged > J || (p.w != nullptr && !weight_pieces<T>(p, p.aligned != 0)) ||
      blockDim.x != NT)
    __trap();
  cluster_push_init(red);
  const int c1 = min(p.n, crank * p.chunk + p.chunk);
  const int col0 = crank * p.chunk + (int)threadIdx.x * N;
  const bool hw = p.w != nullptr;
  /* thread t's slot j at stage[j * NT + t]: its shared-window address, once */
  const unsigned sx = (unsigned)__cvta_generic_to_shared(stage + threadIdx.x);
  /* Every thread's J slots inside the chunk (uniform over the CTA): that instance drops the
   * per-slot guards, whose branches and the addresses recomputed behind each were most of the
   * kernel's instructions (Nsight Compute, H200, 2026-12-01: 1368 a warp at 64 columns a thread,
   * the SM issuing 3 of its 4 per cycle). */
  const bool whole = c1 - crank * p.chunk >= J * step;
  auto run = [&](auto whole_c) {
    constexpr bool W = decltype(whole_c)::value;
    uint4 wr[J];
    int parity = 0;
    unsigned use = 0;
    for (int64_t row = blockIdx.x / cl; row < p.rows; row += gridDim.x / cl, parity ^= 1, ++use) {
      const WideRow<T> rp = wide_row<T>(p, row);
      const T *const xs = rp.x + col0;
#pragma unroll
      for (int j = 0; j < J; ++j)
        if (W || col0 + j * step < c1) cp_async16_sa(sx + j * NT * 16, xs + j * step);
      cp_async_commit();
      if (use == 0) {
#pragma unroll
        for (int j = 0; j < J; ++j)
          wr[j] = (W || col0 + j * step < c1) && hw ? ld_piece<T>(p, col0 + j * step) : make_uint4(0, 0, 0, 0);
      }
      cp_async_wait_all(); /* each thread reads only the slots it copied */
      float ss = 0.0f;
#pragma unroll
      for (int j = 0; j < J; ++j)
        if (W || col0 + j * step < c1) ss = add_squares(lds_slot<T>(sx + j * NT * 16), ss);
      if (use == 0) cluster_push_ready();
      const float total = cluster_push_sum(ss, cl, crank, parity, use, red);
      const float rstd = rstd_of(total, p.n, p.eps);
      if (p.rstd != nullptr && crank == 0 && threadIdx.x == 0) p.rstd[row] = rstd;
      T *const ys = rp.y + col0;
      with_llama(p.llama, [&](auto llama_c) {
        constexpr bool L = decltype(llama_c)::value;
#pragma unroll
        for (int j = 0; j < J; ++j) {
          if (W || col0 + j * step < c1) {
            float w[N];
            V yv;
            if (hw) {
              piece_weight<N>(w, wr[j], p.w_dtype, p.offset);
            } else {
#pragma unroll
              for (int e = 0; e < N; ++e) w[e] = 1.0f;
            }
            normalize_slot<T, L>(yv, lds_slot<T>(sx + j * NT * 16), w, rstd);
            st16(ys + j * step, yv.w);
          }
        }
      });
    }
    if (use == 0) cluster_push_ready(); /* a CTA without rows still waits once, as it arrived once */
  };
  if (whole) run(std::true_type{});
  else run(std::false_type{});
#else
  __trap();
#endif
}

template <typename T, int S, bool U, bool GS>
static const void *fwd_wide_kernel_s(bool fused, bool ws) {
  if constexpr (U || GS) {
    if (ws) return nullptr;
  } else if (ws) {
    /* not at one slot a thread: the plan stages the weight only for chunks of >= 48 KB, which take
     * 512 threads at two slots or more */
    if constexpr (S == 4)
      return fused ? nullptr : reinterpret_cast<const void *>(&rms_norm_fwd_wide<T, 4, false, false, false, true>);
    else if constexpr (S == 2)
      return fused ? reinterpret_cast<const void *>(&rms_norm_fwd_wide<T, 2, true, false, false, true>)
                   : reinterpret_cast<const void *>(&rms_norm_fwd_wide<T, 2, false, false, false, true>);
    else
      return nullptr;
  }
  if constexpr (S == 4)
    return fused || U ? nullptr : reinterpret_cast<const void *>(&rms_norm_fwd_wide<T, 4, false, false, GS>);
  else
    return fused ? reinterpret_cast<const void *>(&rms_norm_fwd_wide<T, S, true, U, GS>)
                 : reinterpret_cast<const void *>(&rms_norm_fwd_wide<T, S, false, U, GS>);
}

template <typename T, bool U, bool GS>
static const void *fwd_wide_kernel_for(int spt, bool fused, bool ws) {
  switch (spt) {
    case 1: return fwd_wide_kernel_s<T, 1, U, GS>(fused, ws);
    case 2: return fwd_wide_kernel_s<T, 2, U, GS>(fused, ws);
    case 4: return fwd_wide_kernel_s<T, 4, U, GS>(fused, ws);
  }
  return nullptr;
}

template <typename T, bool GS>
static const void *fwd_wide_kernel_u(int spt, bool fused, bool unaligned, bool ws) {
  return unaligned ? fwd_wide_kernel_for<T, true, GS>(spt, fused, ws) : fwd_wide_kernel_for<T, false, GS>(spt, fused, ws);
}

template <typename T>
static const void *fwd_wide_kernel_g(int spt, bool fused, bool unaligned, bool grid_sum, bool ws) {
  return grid_sum ? fwd_wide_kernel_u<T, true>(spt, fused, unaligned, ws) : fwd_wide_kernel_u<T, false>(spt, fused, unaligned, ws);
}

const void *fwd_wide_kernel(fusednorm_dtype x, int spt, bool fused, bool unaligned, bool grid_sum, bool wstage) {
  if (spt == 0) { /* every slot staged, the weight in registers: aligned plain cluster rows only */
    if (fused || unaligned || grid_sum || wstage) return nullptr;
    switch (x) {
      case FUSEDNORM_F32: return reinterpret_cast<const void *>(&rms_norm_fwd_wide_wr<float>);
      case FUSEDNORM_F16: return reinterpret_cast<const void *>(&rms_norm_fwd_wide_wr<__half>);
      case FUSEDNORM_BF16: return reinterpret_cast<const void *>(&rms_norm_fwd_wide_wr<__nv_bfloat16>);
    }
    return nullptr;
  }
  switch (x) {
    case FUSEDNORM_F32: return fwd_wide_kernel_g<float>(spt, fused, unaligned, grid_sum, wstage);
    case FUSEDNORM_F16: return fwd_wide_kernel_g<__half>(spt, fused, unaligned, grid_sum, wstage);
    case FUSEDNORM_BF16: return fwd_wide_kernel_g<__nv_bfloat16>(spt, fused, unaligned, grid_sum, wstage);
  }
  return nullptr;
}

}  // namespace fn
