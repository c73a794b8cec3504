/*
 * rmsnorm_bwd_wide.cu — the split-row backward (the WIDE family with a weight: rows too wide for
 * one CTA). Needs no thread-block cluster: it runs on every architecture (cp.async: sm_80).
 *
 * Geometry (fn_split_bwd, launch_config.h): a cooperative grid of gc x gr CTAs, at most one per
 * SM. CTA (g, c) handles the columns [c*chunk, (c+1)*chunk) of rows g, g+gr, g+2gr, ... ("its
 * rows", local index j). Per row, with the row's total dot(g*n) needed before any dx:
 *   1. the row's chunk of dy, s (and ds for the fused add, unless DD: then the dx pass loads ds
 *      itself) is copied into a ring of `stages` shared-memory buffers with cp.async,
 *      `stages - lookahead` rows ahead of step 2;
 *   2. the CTA's partial dot is reduced (fixed order: thread, warp xor tree, warps in order) and
 *      published in the workspace (one relaxed store: the value is its own ready flag, see
 *      kUnpublished);
 *   3. `lookahead` rows later, warp 0 has the row's gc partials (loaded while the previous row's
 *      dx ran, re-polled if any was missing), sums them in a fixed order (lane-strided, then a
 *      fixed xor tree), and every thread computes dx of its own slots from the ring and adds
 *      dy*n to its dw registers.
 * While a CTA waits for a row's partials, the loads of the next rows are in flight, so the
 * cross-CTA latency hides behind HBM traffic instead of stalling it (the cluster kernel held one
 * row per cluster and re-read slices beyond its registers). dy and s are read once from HBM.
 * dw: every thread owns the same columns for every row, accumulates them in registers in row
 * order and writes them once, as row g of the gr partial rows that dw_reduce sums in a fixed
 * order. Everything depends only on (shape, SM count): bitwise deterministic run to run.
 *
 * Progress: every CTA publishes the dots of its first `lookahead` rows before it waits for any,
 * and the dot of row j + lookahead right after finishing row j, so the CTAs of a row group never
 * wait on a row that a co-resident CTA cannot reach; the cooperative launch guarantees that all
 * of them are co-resident (a plain grid does not). Capturable: the partial-dot slots are reset
 * to kUnpublished by a cudaMemsetAsync on the same stream; nothing is allocated.
 *
 * Speed (H200, kernels/RESULTS.md): bound by its instructions a row, not by bytes or by memory
 * latency (ncu 2026-11-30: ~560 warp instructions a row for 8 f32 elements a thread, 4 warps a
 * scheduler, long-scoreboard stalls 0.02 an instruction); hence chunks of 1024 slots where rows are
 * many (fn_split_bwd), the ring's stages by counters rather than j % D (a 64-bit division, three a
 * row) and a row's tensor bases computed once a row (H200 2026-11-30, 1.01-1.37x at two slots a
 * thread, one not measured: bf16 1024 x 65536 217.1 -> 179.5 us, f32 1844 x 69916 726.3 -> 528.9),
 * and a lookahead of 2 on a ring of 3 (FN_SPLIT_LOOKAHEAD_OF_3: with 1, every row waits out the
 * exchange; f32 256 x 1048576 2045.6 -> 1228.0 us). It
 * replaces the cluster kernel from AUTO only where that one fell off (FN_SPLIT_AUTO_MIN_SLOTS), and
 * runs wherever clusters do not exist (compute capability < 9.0). Polling the partials two rows
 * ahead instead of one measured 0.82-0.97x (H200 2026-11-30,
 * tools/bench/results/split_poll2_h200_2026-11-30: the other CTAs had mostly not published that row
 * yet, and the re-poll costs a round trip), so the poll's latency is not what bounds a row. Moving
 * step 3 into a dedicated "sync warp" whose lanes poll several
 * rows independently took 1024x65536 from 1219 to 1305 GB/s (1563 with 1024-slot chunks) but
 * hung in test_cuda (divergent spin loops inside one warp are the prime suspect), so it is not
 * here.
 */
#include "kernels/cuda/rmsnorm_bwd_slot.cuh"
#include "kernels/cuda/rmsnorm_common.cuh"
#include "kernels/cuda/rmsnorm_launch.cuh"
#include "kernels/cuda/rmsnorm_unaligned.cuh"

namespace fn {

namespace {

/* A partial dot not yet published: the workspace is filled with this bit pattern (a NaN that
 * no fp32 arithmetic produces: NaN results are the canonical 0x7fffffff, and the publisher
 * canonicalizes anyway) by a cudaMemsetAsync before each launch, so the value is its own flag:
 * one L2 round trip tells both whether and what, with no counter and no fence. */
constexpr unsigned kUnpublished = 0xffffffffu;

__device__ __forceinline__ unsigned ld_relaxed_gpu(const float *p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_relaxed_gpu(float *p, float v) {
  asm volatile("st.relaxed.gpu.global.b32 [%0], %1;\n" ::"l"(p), "r"(__float_as_uint(v)) : "memory");
}

/* cp.async.wait_group takes an immediate: at most `n` of this thread's groups still pending. */
__device__ __forceinline__ void cp_async_wait_pending(int n) {
  switch (n) {
    case 1: asm volatile("cp.async.wait_group 1;\n" ::: "memory"); break;
    case 2: asm volatile("cp.async.wait_group 2;\n" ::: "memory"); break;
    case 3: asm volatile("cp.async.wait_group 3;\n" ::: "memory"); break;
    case 4: asm volatile("cp.async.wait_group 4;\n" ::: "memory"); break;
    case 5: asm volatile("cp.async.wait_group 5;\n" ::: "memory"); break;
    case 6: asm volatile("cp.async.wait_group 6;\n" ::: "memory"); break;
    case 7: asm volatile("cp.async.wait_group 7;\n" ::: "memory"); break;
    default: asm volatile("cp.async.wait_group 0;\n" ::: "memory"); break; /* 0, or conservative */
  }
}

/* Head-split ring (the HS instances): the 16 bytes at `byte_off` (0..16) of the 32 bytes of
 * ring vectors q[0] and q[1]: a thread's slot of absolute columns, which straddles two of the
 * ring's vectors when they are the row's own 16-byte vectors from its head. */
template <int WO>
__device__ __forceinline__ void shift_words(uint32_t (&o)[4], const uint32_t (&w)[8], int sh) {
#pragma unroll
  for (int i = 0; i < 4; ++i) o[i] = WO + i + 1 < 8 ? __funnelshift_r(w[WO + i], w[WO + i + 1], sh) : w[WO + i];
}
template <typename T> __device__ __forceinline__ Vec<T> shifted16(const uint32_t (&w)[8], int byte_off) {
  const int sh = (byte_off & 3) * 8;
  Vec<T> v;
  switch (byte_off >> 2) { /* uniform over the CTA: one row's head */
    case 0: shift_words<0>(v.w, w, sh); break;
    case 1: shift_words<1>(v.w, w, sh); break;
    case 2: shift_words<2>(v.w, w, sh); break;
    case 3: shift_words<3>(v.w, w, sh); break;
    default: shift_words<4>(v.w, w, sh); break;
  }
  return v;
}
template <typename T> __device__ __forceinline__ Vec<T> ring_get_shifted(const uint4 *q, int byte_off) {
  const uint4 a = q[0], b = q[1];
  const uint32_t w[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  return shifted16<T>(w, byte_off);
}

/* dx of a head-split row (h head elements): the thread's slot (columns col .. col + N of the
 * weight's alignment; zeros where col >= c1) written as the row's own 16-byte vectors. The vector
 * from col + h is this slot's elements [h, N) and the next slot's [0, h), which lane + 1 holds
 * (slot sl + 1 of the same k); every other element, at the warp's and the chunk's ends and the
 * row's head and tail, is written one by one by the thread that computed it. iend: the end of the
 * row's whole vectors from its head (0 if the row ends inside its head). Called by every lane of
 * the warp (a shuffle). */
template <typename T>
__device__ __forceinline__ void store_slot_hs(T *row, const Vec<T> &v, int col, int c1, int h, int iend, int lane) {
  constexpr int N = Vec<T>::N;
  uint32_t w[8];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    w[i] = v.w[i];
    w[4 + i] = __shfl_down_sync(0xffffffffu, v.w[i], 1);
  }
  if (col >= c1) return;
  const bool mine = lane < 31 && col + N < c1 && col + N + h <= iend; /* the vector from col + h */
  const bool prev = lane > 0 && col + h <= iend;                      /* lane - 1's, from col - N + h */
  if (mine) {
    const Vec<T> o = shifted16<T>(w, h * (int)sizeof(T));
    *reinterpret_cast<uint4 *>(row + col + h) = make_uint4(o.w[0], o.w[1], o.w[2], o.w[3]);
  }
  if (mine && prev) return;
  if (sizeof(T) == 4) {
    uint32_t *p = reinterpret_cast<uint32_t *>(row + col);
#pragma unroll
    for (int e = 0; e < 4; ++e)
      if (col + e < c1 && !(e < h ? prev : mine)) p[e] = v.w[e];
  } else {
    uint16_t *p = reinterpret_cast<uint16_t *>(row + col);
#pragma unroll
    for (int e = 0; e < 8; ++e)
      if (col + e < c1 && !(e < h ? prev : mine)) p[e] = (uint16_t)(v.w[e >> 1] >> ((e & 1) * 16));
  }
}

}  // namespace

/* Partials per lane of warp 0 when it sums a row's gc partials: gc <= 32 * kMaxPartialsPerLane
 * (fn_split_bwd caps gc at FN_SPLIT_MAX_CTAS_PER_ROW). */
constexpr int kMaxPartialsPerLane = FN_SPLIT_MAX_CTAS_PER_ROW / 32;

template <typename T, int SPT, bool HS, bool DD, bool RES>
__device__ __forceinline__ void split_body(const SplitParams &p) {
  static_assert(!((HS || RES) && DD), "head-split rows stage ds in the ring");
  static_assert(!(HS && RES), "one head-split arrangement");
  using V = Vec<T>;
  constexpr int N = V::N;
  constexpr int PL = kMaxPartialsPerLane;
  extern __shared__ __align__(16) unsigned char ring_raw[];
  __shared__ float warp_part[2][32]; /* by parity of j: see the barrier notes below */
  __shared__ float row_mean[2];
  __shared__ float rs_ring[FN_SPLIT_MAX_STAGES];
  uint4 *const ring = reinterpret_cast<uint4 *>(ring_raw);

  const int c = (int)(blockIdx.x % (unsigned)p.gc), g = (int)(blockIdx.x / (unsigned)p.gc);
  const int c0 = c * p.chunk, c1 = min(p.n, c0 + p.chunk);
  const int nthr = blockDim.x, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nwarps = nthr >> 5;
  const bool al = p.aligned != 0, has_ds = p.ds != nullptr;
  /* DD (the plan's ds_direct; the fused add's rows not head-split): ds is not staged, the dx pass
   * loads it from global memory, issued before the row's exchange wait so that its latency hides
   * behind that wait; a template flag, so that the other instances' registers stay as they were */
  constexpr bool ds_direct = DD;
  const int tensors = has_ds && !ds_direct ? 3 : 2; /* tensors in the ring */
  const int cslots = p.chunk / N; /* the chunk's vector slots */
  /* Head-split rows (congruent, not aligned): ring vector v of a row with head h holds the row's
   * own 16-byte vector at columns [c0 - N + h + v*N, + N), v = 0 .. cslots, so that thread slot sl
   * (columns c0 + sl*N ...) is the 16 bytes at byte 16 - h*sizeof(T) of vectors sl and sl + 1: the
   * weight and dw stay in registers over the same columns as with aligned rows, and every
   * column's arithmetic is the aligned kernel's. The row's edge vectors are copied asynchronously
   * too (a synchronous load here would stall the thread, and with it the CTA's next barrier and
   * its row group's exchange, by one memory round trip per row): the head as the whole 16-byte
   * vector that holds the row's first elements (its bytes before the row lie in the same
   * allocation, whose start is 16-byte aligned, and no slot reads them); the tail's whole 32-bit
   * words by 4-byte copies and the rest of its vector as zeros (as load_slot pads a partial slot;
   * nothing past the row is read, memcheck counts a zero-filling 16-byte copy as 16 bytes read),
   * except a 16-bit tail's odd last element, loaded into a register and stored into the ring by
   * the thread's next issue(), which comes before that row's dot (stages > lookahead); a vector
   * wholly outside the row as zeros. A ring vector is read by two threads, so a barrier
   * separates its copy from its reads and its reads from the next copy into it. */
  constexpr bool hs = HS; /* a template flag: as a run-time one it cost the aligned rows 4-14% */
  /* RES (rows of one stride, the launcher's fn_bwd_row_by_residue): every row group takes rows of
   * one residue class modulo the period P of the row addresses modulo 16 bytes (the CTAs of
   * groups g with g % P = cls take rows cls + P * (g / P + Gc * i), Gc of them), so the group's
   * rows share one head `hres`. The chunks then sit on the rows' own vectors: thread slot sl
   * holds columns hres + c0 + sl*N .. + N, ring vector sl + 1 (copied as the HS ring copies it,
   * the row's tail vector included), read by the thread that copied it: no barrier and no shifted
   * read. The weight is loaded once at those columns and dw stays in registers over them; chunk
   * 0's thread 0 also takes the row's head (ring vector 0's elements from the row's start, those
   * before it skipped), its weight and dw in shared memory, element by element (elem_dot /
   * elem_dx: slot_dot's and slot_dx's formulas). The last chunk's columns reach past the row
   * (zeros). */
  constexpr bool res = RES;
  const int rslots = cslots + (hs || res ? 1 : 0); /* ring vectors per tensor and stage */
  auto head_of = [&](int64_t row) {
    const T *dyr = static_cast<const T *>(p.dy) + row_offset(p.nd, row, p.dy_stride, p.dy_outer);
    return (int)(((16u - ((unsigned)(uintptr_t)dyr & 15u)) & 15u) / sizeof(T));
  };
  auto rget = [&](int st, int t, int sl, int boff) {
    const uint4 *q = ring + (st * tensors + t) * rslots + sl;
    return hs ? ring_get_shifted<T>(q, boff) : smem_get<T>(q);
  };
  int64_t rstep = p.gr; /* local row j is row g + j * rstep */
  int hres = 0;
  if constexpr (RES) {
    const int period = row_period<T>(p.dy_stride);
    const int cls = g % period;
    rstep = (int64_t)period * ((p.gr - cls + period - 1) / period);
    hres = head_of(g);
  }
  /* ring vector 0's element e is column e - (N - hres): the head's, those of them inside the row
   * (a row may end inside its head) */
  auto head_col = [&](int e) { return e - (N - hres) >= 0 && e - (N - hres) < p.n; };
  __shared__ float head_w[N], head_dw[N]; /* RES: the row's head (chunk 0, thread 0) */
  const bool head_mine = res && c == 0 && tid == 0;
  const int64_t mg = (p.rows - g + rstep - 1) / rstep; /* g < gr <= rows: at least one */
  const int D = p.stages, L = p.lookahead;

  /* The effective weight of this thread's columns, fp32, for every row; dw accumulators. */
  float wv[SPT][N], dw[SPT][N];
#pragma unroll
  for (int k = 0; k < SPT; ++k) {
    const int col = c0 + (tid + k * nthr) * N;
    const int rcol = hres + col; /* RES: the slot's columns */
    if (res && tid + k * nthr < cslots && rcol < p.n) {
      if (rcol + N <= p.n) load_weight_u<N>(wv[k], p.w, p.w_dtype, p.offset, rcol, p.n);
      else load_weight<N>(wv[k], p.w, p.w_dtype, p.offset, rcol, p.n, false); /* (0 past the row) */
    } else if (!res && col < c1) {
      load_weight<N>(wv[k], p.w, p.w_dtype, p.offset, col, c1, al);
    } else {
#pragma unroll
      for (int e = 0; e < N; ++e) wv[k][e] = 0.0f;
    }
#pragma unroll
    for (int e = 0; e < N; ++e) dw[k][e] = 0.0f;
  }
  if (head_mine) {
    float hw[N];
    load_weight<N>(hw, p.w, p.w_dtype, p.offset, 0, min(hres, p.n), false); /* the head's columns */
#pragma unroll
    for (int e = 0; e < N; ++e) {
      const int i = e - (N - hres); /* ring vector 0's element e is column i */
      head_w[e] = head_col(e) ? hw[i < 0 ? 0 : i] : 0.0f;
      head_dw[e] = 0.0f;
    }
  }

  /* Stage the chunk of local row j (every thread copies exactly the slots it later reads, so
   * cp.async.wait_group orders copy and use without a barrier). One commit group per row, also
   * when empty, so that group q always holds row q. */
  uint32_t pend_val[3] = {0u, 0u, 0u}; /* a 16-bit tail's odd last element, per tensor, and where */
  uint32_t *pend_dst[3] = {nullptr, nullptr, nullptr};
  bool pend = false;
  auto issue = [&](int64_t j, int st) {
    if ((hs || res) && pend) {
#pragma unroll
      for (int t = 0; t < 3; ++t)
        if (t < tensors) *pend_dst[t] = pend_val[t];
      pend = false;
    }
    if (j < mg && (hs || res)) {
      const int64_t row = g + j * rstep;
      const int h = res ? hres : head_of(row);
      /* the row's three bases once a row (not once a vector and tensor) */
      const T *const bases[3] = {
          static_cast<const T *>(p.dy) + row_offset(p.nd, row, p.dy_stride, p.dy_outer),
          static_cast<const T *>(p.s) + row_offset(p.nd, row, p.s_stride, p.s_outer),
          has_ds ? static_cast<const T *>(p.ds) + row_offset(p.nd, row, p.ds_stride, p.ds_outer) : nullptr};
      auto copy_vec = [&](int v) {
        const int gs = c0 - N + h + v * N;
#pragma unroll
        for (int t = 0; t < 3; ++t) {
          if (t >= tensors) break;
          const T *base = bases[t];
          uint4 *dst = ring + (st * tensors + t) * rslots + v;
          if (gs + N <= 0 || gs >= p.n) {
            *dst = make_uint4(0u, 0u, 0u, 0u);
          } else if (gs + N <= p.n) { /* the interior, or the head (gs = h - N) */
            cp_async16(dst, base + gs);
          } else { /* the row's end: its last vector, or a head it ends inside (n < h) */
            const int kb = (p.n - gs) * (int)sizeof(T);
            uint32_t *d32 = reinterpret_cast<uint32_t *>(dst);
            const uint32_t *s32 = reinterpret_cast<const uint32_t *>(base + gs);
#pragma unroll
            for (int i = 0; i < 4; ++i) {
              if (4 * i + 4 <= kb) {
                cp_async4(d32 + i, s32 + i);
              } else if (4 * i < kb) {
                pend_val[t] = *reinterpret_cast<const uint16_t *>(s32 + i);
                pend_dst[t] = d32 + i;
                pend = true;
              } else {
                d32[i] = 0u;
              }
            }
          }
        }
      };
      if (res) { /* the vectors this thread reads: its slots' (and chunk 0's thread 0 the head's) */
#pragma unroll
        for (int k = 0; k < SPT; ++k)
          if (tid + k * nthr < cslots) copy_vec(tid + k * nthr + 1);
        if (head_mine) copy_vec(0);
      } else {
        for (int v = tid; v <= cslots; v += nthr) copy_vec(v);
      }
    } else if (j < mg) {
      const int64_t row = g + j * rstep;
      /* the row's three bases once a row (not once a slot and tensor) */
      const T *const bases[3] = {
          static_cast<const T *>(p.dy) + row_offset(p.nd, row, p.dy_stride, p.dy_outer),
          static_cast<const T *>(p.s) + row_offset(p.nd, row, p.s_stride, p.s_outer),
          has_ds ? static_cast<const T *>(p.ds) + row_offset(p.nd, row, p.ds_stride, p.ds_outer) : nullptr};
      uint4 *const dst0 = ring + st * tensors * rslots;
#pragma unroll
      for (int k = 0; k < SPT; ++k) {
        const int sl = tid + k * nthr, col = c0 + sl * N;
        if (col < c1) {
#pragma unroll
          for (int t = 0; t < 3; ++t) {
            if (t >= tensors) break;
            const T *base = bases[t];
            uint4 *dst = dst0 + t * rslots + sl;
            if (al && col + N <= c1) {
              cp_async16(dst, base + col);
            } else { /* misaligned rows or the partial last slot: element-wise, synchronous */
              V v;
              load_slot(v, base, col, c1, al);
              smem_put(dst, v);
            }
          }
        }
      }
    }
    cp_async_commit();
  };

  /* Partial dot of local row j (its rstd in `rs`), published for the other CTAs of the row.
   * warp_part[j & 1]: rewritten for row j + 2 only after a later barrier, which thread 0 reaches
   * after reading it for row j. rs_ring[j % D]: read in finish(j) after its barrier, rewritten by
   * dot_publish(j + D), which comes after the barrier of finish(j + 1). */
  /* RES: ring vector v of tensor t as loaded (the slot's own vector is v = sl + 1) */
  auto rown = [&](int st, int t, int v) { return smem_get<T>(ring + (st * tensors + t) * rslots + v); };
  auto dot_publish = [&](int64_t j, int st, float rs) {
    const int64_t row = g + j * rstep;
    int boff = 0;
    if (hs) {
      __syncthreads(); /* every thread's copies of the row landed (each waited for its own) */
      boff = 16 - head_of(row) * (int)sizeof(T);
    }
    float dot = 0.0f;
#pragma unroll
    for (int k = 0; k < SPT; ++k) {
      const int sl = tid + k * nthr, col = c0 + sl * N;
      if (res ? sl < cslots : col < c1) {
        const V dv = res ? rown(st, 0, sl + 1) : rget(st, 0, sl, boff);
        const V sv = res ? rown(st, 1, sl + 1) : rget(st, 1, sl, boff);
        dot = slot_dot(dv, sv, wv[k], rs, p.llama, dot);
      }
    }
    if (head_mine) { /* ring vector 0's elements from N - hres: the row's columns 0 .. hres - 1 */
      const V dv = rown(st, 0, 0), sv = rown(st, 1, 0);
#pragma unroll
      for (int e = 0; e < N; ++e)
        if (head_col(e)) dot = elem_dot(elem_f(dv, e), elem_f(sv, e), head_w[e], rs, dot);
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, off);
    if (lane == 0) warp_part[j & 1][warp] = dot;
    __syncthreads();
    if (tid == 0) {
      float s = 0.0f;
      for (int i = 0; i < nwarps; ++i) s += warp_part[j & 1][i];
      if (s != s) s = __uint_as_float(0x7fffffffu); /* never the unpublished pattern */
      st_relaxed_gpu(p.dots + row * p.gc + c, s);
      rs_ring[st] = rs;
    }
  };

  /* Warp 0 keeps the next row's partials in flight (`part`, loaded right after the previous row
   * was summed, while the CTA works on dx): when the row is finished they are usually there. */
  unsigned part[PL];
  auto poll = [&](int64_t j) {
    const float *d = p.dots + (g + j * rstep) * p.gc;
#pragma unroll
    for (int q = 0; q < PL; ++q) {
      const int i = lane + 32 * q;
      part[q] = i < p.gc ? ld_relaxed_gpu(d + i) : 0u;
    }
  };

  /* Row j's total, then dx of this thread's slots and dw. row_mean[j & 1]: rewritten for row
   * j + 2 only after the barrier of row j + 1, which every reader of row j reaches after reading. */
  auto finish = [&](int64_t j, int st) {
    const int64_t row = g + j * rstep;
    V dsd[SPT];
    if (ds_direct && has_ds) {
      const T *dsr = static_cast<const T *>(p.ds) + row_offset(p.nd, row, p.ds_stride, p.ds_outer);
#pragma unroll
      for (int k = 0; k < SPT; ++k) {
        const int col = c0 + (tid + k * nthr) * N;
        if (col < c1) load_slot(dsd[k], dsr, col, c1, al);
      }
    }
    if (warp == 0) {
      const float *d = p.dots + row * p.gc;
      for (;;) {
        bool ready = true;
#pragma unroll
        for (int q = 0; q < PL; ++q) ready &= part[q] != kUnpublished;
        if (__all_sync(0xffffffffu, ready)) break;
        __nanosleep(20);
#pragma unroll
        for (int q = 0; q < PL; ++q) {
          const int i = lane + 32 * q;
          if (part[q] == kUnpublished) part[q] = ld_relaxed_gpu(d + i);
        }
      }
      float t = 0.0f; /* fixed order: lane-strided in q, then the xor tree */
#pragma unroll
      for (int q = 0; q < PL; ++q) t += __uint_as_float(part[q]);
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) t += __shfl_xor_sync(0xffffffffu, t, off);
      if (lane == 0) row_mean[j & 1] = t / (float)p.n;
      if (j + 1 < mg) poll(j + 1);
    }
    __syncthreads();
    const float mean_gn = row_mean[j & 1];
    const float rs = rs_ring[st];
    const int h = hs ? head_of(row) : 0, boff = hs ? 16 - h * (int)sizeof(T) : 0;
    T *dxr = static_cast<T *>(p.dx) + row_offset(p.nd, row, p.dx_stride, p.dx_outer);
    if constexpr (RES) {
#pragma unroll
      for (int k = 0; k < SPT; ++k) {
        const int sl = tid + k * nthr, rcol = hres + c0 + sl * N;
        if (sl < cslots && rcol < p.n) {
          V dxv, dsv;
          const V dv = rown(st, 0, sl + 1), sv = rown(st, 1, sl + 1);
          if (has_ds) dsv = rown(st, 2, sl + 1);
          slot_dx(dxv, dv, sv, dsv, has_ds, wv[k], rs, mean_gn, p.llama, dw[k]);
          if (rcol + N <= p.n) stg16(dxr + rcol, dxv.w);
          else store_slot(dxr, dxv, rcol, p.n, false);
        }
      }
      if (head_mine) { /* element by element (slot_dx's formulas: elem_dx), few registers */
        const V dv = rown(st, 0, 0), sv = rown(st, 1, 0);
        V dsv = dv;
        if (has_ds) dsv = rown(st, 2, 0);
#pragma unroll
        for (int e = 0; e < N; ++e) {
          if (!head_col(e)) continue;
          float hd = head_dw[e];
          const float d = elem_dx<T>(elem_f(dv, e), elem_f(sv, e), has_ds ? elem_f(dsv, e) : 0.0f, has_ds, head_w[e],
                                     rs, mean_gn, p.llama, hd);
          head_dw[e] = hd;
          st_elem(dxr, e - (N - hres), d);
        }
      }
    } else {
#pragma unroll
      for (int k = 0; k < SPT; ++k) {
        const int sl = tid + k * nthr, col = c0 + sl * N;
        V dxv = {{0u, 0u, 0u, 0u}};
        if (col < c1) {
          const V dv = rget(st, 0, sl, boff);
          const V sv = rget(st, 1, sl, boff);
          V dsv;
          if (ds_direct && has_ds) dsv = dsd[k];
          else if (has_ds) dsv = rget(st, 2, sl, boff);
          slot_dx(dxv, dv, sv, dsv, has_ds, wv[k], rs, mean_gn, p.llama, dw[k]);
          if (!hs) store_slot(dxr, dxv, col, c1, al);
        }
        if (hs) store_slot_hs(dxr, dxv, col, c1, h, p.n >= h ? h + (p.n - h) / N * N : 0, lane);
      }
    }
  };

  /* Ring stages by counters (j % D of a 64-bit j is a division a call, three times a row). */
  for (int q = 0; q < D; ++q) issue(q, q); /* groups 0 .. D-1 */
  for (int64_t q = 0; q < L && q < mg; ++q) {
    const float rs = p.rstd[g + q * rstep];
    cp_async_wait_pending(D - 1 - (int)q); /* group q landed */
    dot_publish(q, (int)q, rs);
  }
  if (warp == 0) poll(0);
  int st_j = 0, st_l = L; /* j % D and (j + L) % D (L < D) */
  for (int64_t j = 0; j < mg; ++j) {
    /* rstd of the row whose dot comes at the end of this iteration: loaded now, used later. */
    const float rs_next = j + L < mg ? p.rstd[g + (j + L) * rstep] : 0.0f;
    finish(j, st_j);
    if (hs) __syncthreads(); /* row j's ring vectors read by both of their readers (not RES: one) */
    issue(j + D, st_j); /* into the buffer row j just left (this thread's own slots, already read) */
    if (j + L < mg) {
      cp_async_wait_pending(D - L); /* D + j + 1 groups committed; group j + L landed */
      dot_publish(j + L, st_l, rs_next);
    }
    st_j = st_j + 1 == D ? 0 : st_j + 1;
    st_l = st_l + 1 == D ? 0 : st_l + 1;
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");

  /* This CTA's partial dw: row g of the workspace, its chunk's columns. With one row group (p.dw
   * given: select.c dw_in_kernel, gr == 1) the CTA's chunk of dw is its own: written as dw in the
   * weight's dtype, with no second launch. The same bits as dw_reduce_chain's sum of the one
   * partial row: a Kahan sum from +0 adds it exactly, and a partial is never -0 (its chain starts
   * at +0). */
  if constexpr (RES) { /* columns hres + c0 + sl*N: one float at a time (not 16-byte aligned) */
    float *const wsr = p.ws + (int64_t)g * p.n;
    auto out = [&](int col, float v) {
      if (p.dw != nullptr) store_dw(p.dw, p.w_dtype, col, v);
      else wsr[col] = v;
    };
#pragma unroll
    for (int k = 0; k < SPT; ++k) {
      const int sl = tid + k * nthr, rcol = hres + c0 + sl * N;
#pragma unroll
      for (int e = 0; e < N; ++e)
        if (sl < cslots && rcol + e < p.n) out(rcol + e, dw[k][e]);
    }
    if (head_mine)
#pragma unroll
      for (int e = 0; e < N; ++e)
        if (head_col(e)) out(e - (N - hres), head_dw[e]);
    return;
  }
  if (p.dw != nullptr) {
#pragma unroll
    for (int k = 0; k < SPT; ++k) {
      const int col = c0 + (tid + k * nthr) * N;
#pragma unroll
      for (int e = 0; e < N; ++e)
        if (col + e < c1) store_dw(p.dw, p.w_dtype, col + e, dw[k][e]);
    }
    return;
  }
  /* The partial row: a slot's N floats as N / 4 16-byte stores where the row is 16-byte aligned
   * (the workspace's start and g * n floats; a slot's first column is a multiple of N), else (and
   * for the chunk's partial last slot) one float at a time. Stored one float at a time, a 16-bit
   * slot was eight 4-byte stores, each a quarter of every sector it touched. */
  float *const wsrow = p.ws + (int64_t)g * p.n;
  const bool wvec = ((uintptr_t)wsrow & 15u) == 0;
#pragma unroll
  for (int k = 0; k < SPT; ++k) {
    const int col = c0 + (tid + k * nthr) * N;
    if (wvec && col + N <= c1) {
#pragma unroll
      for (int q = 0; q < N / 4; ++q) {
        const uint32_t w[4] = {__float_as_uint(dw[k][4 * q]), __float_as_uint(dw[k][4 * q + 1]),
                               __float_as_uint(dw[k][4 * q + 2]), __float_as_uint(dw[k][4 * q + 3])};
        stg16(wsrow + col + 4 * q, w);
      }
    } else {
#pragma unroll
      for (int e = 0; e < N; ++e)
        if (col + e < c1) wsrow[col + e] = dw[k][e];
    }
  }
}

template <typename T, int SPT, bool HS, bool DD, bool RES = false>
__global__ void __launch_bounds__(FN_SPLIT_MAX_THREADS(SPT, sizeof(T))) rms_norm_bwd_split(const SplitParams p) {
  split_body<T, SPT, HS, DD, RES>(p);
}

template <typename T, bool HS, bool DD, bool RES = false>
static const void *split_kernel_for(int spt) {
  switch (spt) {
    case 1: return reinterpret_cast<const void *>(&rms_norm_bwd_split<T, 1, HS, DD, RES>);
    case 2: return reinterpret_cast<const void *>(&rms_norm_bwd_split<T, 2, HS, DD, RES>);
    case 4: return reinterpret_cast<const void *>(&rms_norm_bwd_split<T, 4, HS, DD, RES>);
  }
  return nullptr;
}

template <typename T>
static const void *split_kernel_for(int spt, bool head_split, bool ds_direct, bool by_residue) {
  if (head_split && ds_direct) return nullptr;
  if (head_split) return by_residue ? split_kernel_for<T, false, false, true>(spt) : split_kernel_for<T, true, false>(spt);
  return ds_direct ? split_kernel_for<T, false, true>(spt) : split_kernel_for<T, false, false>(spt);
}

const void *bwd_split_kernel(fusednorm_dtype x, int spt, bool head_split, bool ds_direct, bool by_residue) {
  switch (x) {
    case FUSEDNORM_F32: return split_kernel_for<float>(spt, head_split, ds_direct, by_residue);
    case FUSEDNORM_F16: return split_kernel_for<__half>(spt, head_split, ds_direct, by_residue);
    case FUSEDNORM_BF16: return split_kernel_for<__nv_bfloat16>(spt, head_split, ds_direct, by_residue);
  }
  return nullptr;
}

}  // namespace fn
