/*
 * rmsnorm_bwd_wide.cu — the split-row backward of the WIDE mode (rows too wide for one CTA).
 *
 * Geometry (fn_split_bwd, launch_config.h): a cooperative grid of gc x gr CTAs, at most one per
 * SM. CTA (g, c) handles the columns [c*chunk, (c+1)*chunk) of rows g, g+gr, g+2gr, ... ("its
 * rows", local index j). Its compute warps own fixed columns; one more warp, the sync warp, only
 * gathers the rows' totals. Per row (the row's total dot(g*n) is needed before any dx):
 *   1. the row's chunk of dy, s (and ds for the fused add) and its rstd are copied into a ring of
 *      `stages` shared-memory buffers with cp.async, `stages - lookahead` rows ahead of step 2;
 *   2. the CTA's partial dot is reduced (fixed order: thread, warp xor tree, warps in order) and
 *      published in the workspace with one relaxed store (the value is its own ready flag, see
 *      kUnpublished);
 *   3. the sync warp, independently of the compute warps, waits for the row's gc partials, sums
 *      them in a fixed order and leaves the row's mean in a shared-memory ring;
 *   4. `lookahead` rows after step 2 the compute warps take the mean from the ring, compute dx of
 *      their slots from the staged row and add dy*n to their dw registers.
 * So the cross-CTA latency (a store becoming visible in L2, the sync warp's loads) hides behind
 * the next rows' loads instead of sitting in every row's critical path. The first version of
 * this kernel did step 3 in warp 0 between the rows and ran at ~1.2 TB/s, bound by that latency
 * (kernels/RESULTS.md). dy and s are read once from HBM.
 * dw: every compute thread owns the same columns for every row, accumulates them in registers in
 * row order and writes them once, as row g of the gr partial rows that dw_reduce sums in a fixed
 * order. Everything depends only on (shape, SM count): bitwise deterministic run to run.
 *
 * Progress: every CTA publishes the partials of its first `lookahead` rows before it needs any
 * total, and the partial of row j + lookahead right after finishing row j; the sync warp's teams
 * take their rows in order and never wait for a row whose partials need a later row's total. So
 * the CTAs of a row group never wait on each other in a cycle, provided all are co-resident,
 * which the cooperative launch guarantees (a plain grid does not). Capturable: the partial-dot
 * slots are reset to kUnpublished by a cudaMemsetAsync on the same stream; nothing is allocated.
 */
#include "kernels/cuda/rmsnorm_bwd_slot.cuh"
#include "kernels/cuda/rmsnorm_common.cuh"
#include "kernels/cuda/rmsnorm_launch.cuh"

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

template <typename T> __device__ __forceinline__ Vec<T> ring_get(const uint4 *q) {
  const uint4 u = *q;
  Vec<T> v;
  v.w[0] = u.x; v.w[1] = u.y; v.w[2] = u.z; v.w[3] = u.w;
  return v;
}

}  // namespace

/* Mean ring: rows whose total the sync warp has finished and the compute warps not yet used.
 * Slot j % kMeanRing is rewritten for row j + kMeanRing only once every CTA of the row group,
 * this one included, has published that row's dot, which this CTA does `lookahead` (< stages <=
 * 8 < kMeanRing) rows after it finished row j: so no reader of row j is left. */
constexpr int kMeanRing = 16;
/* Partials each sync-warp lane loads per row: gc <= 32 x kPartialsPerLane. */
constexpr int kPartialsPerLane = FN_SPLIT_MAX_CTAS_PER_ROW / 32 * 2;

__device__ __forceinline__ void named_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

template <typename T, int SPT>
__device__ __forceinline__ void split_body(const SplitParams &p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  extern __shared__ __align__(16) unsigned char ring_raw[];
  __shared__ float warp_part[2][32];                       /* by parity of j: see dot_publish */
  __shared__ float rs_w[FN_SPLIT_MAX_STAGES][32];          /* rstd of each stage, per warp */
  __shared__ float mean_ring[kMeanRing];
  __shared__ unsigned flag_ring[kMeanRing];                /* local row index whose mean is in the slot */
  __shared__ unsigned published;                           /* rows whose partial this CTA published */
  uint4 *const ring = reinterpret_cast<uint4 *>(ring_raw);

  const int c = (int)(blockIdx.x % (unsigned)p.gc), g = (int)(blockIdx.x / (unsigned)p.gc);
  const int c0 = c * p.chunk, c1 = min(p.n, c0 + p.chunk);
  /* The last warp is the sync warp; the others ("compute warps") own the columns. */
  const int nthr = blockDim.x - 32, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nwarps = nthr >> 5;
  const bool al = p.aligned != 0, has_ds = p.ds != nullptr;
  const int tensors = has_ds ? 3 : 2;
  const int cslots = p.chunk / N; /* ring slots per tensor and stage */
  const int64_t mg = (p.rows - g + p.gr - 1) / p.gr; /* g < gr <= rows: at least one */
  const int D = p.stages, L = p.lookahead;

  if (tid < kMeanRing) flag_ring[tid] = 0xffffffffu;
  if (tid == 0) published = 0;
  __syncthreads(); /* the only CTA-wide barrier: the two roles never wait for each other's barriers */

  if (warp == nwarps) {
    /* Sync warp: teams of `team` lanes each finish rows tix, tix + nteams, ... independently
     * (lanes of different teams diverge; a team reconverges at its shuffles). Per row a team
     * loads all gc partials at once (lane tl: partials tl, tl + team, ...), re-polls the ones not
     * yet published, and sums them in a fixed order (per lane in index order, then a fixed xor
     * tree over the team), so the total does not depend on timing. */
    int team = 1;
    while (team * kPartialsPerLane < p.gc) team <<= 1;
    const int tl = lane & (team - 1), tix = lane / team, nteams = 32 / team;
    const unsigned mask = team == 32 ? 0xffffffffu : ((1u << team) - 1u) << (tix * team);
    for (int64_t j = tix; j < mg; j += nteams) {
      const float *d = p.dots + (g + j * p.gr) * p.gc;
      /* Poll the workspace only once this CTA has published its own partial of the row (the
       * CTAs of a row advance together): rows far ahead are not polled over and over in L2. */
      while (*reinterpret_cast<volatile unsigned *>(&published) <= (unsigned)j) __nanosleep(64);
      unsigned v[kPartialsPerLane];
#pragma unroll
      for (int q = 0; q < kPartialsPerLane; ++q) {
        const int i = tl + team * q;
        v[q] = i < p.gc ? ld_relaxed_gpu(d + i) : 0u;
      }
      for (;;) {
        bool ready = true;
#pragma unroll
        for (int q = 0; q < kPartialsPerLane; ++q) ready &= v[q] != kUnpublished;
        if (ready) break;
        __nanosleep(32);
#pragma unroll
        for (int q = 0; q < kPartialsPerLane; ++q)
          if (v[q] == kUnpublished) v[q] = ld_relaxed_gpu(d + tl + team * q);
      }
      float t = 0.0f;
#pragma unroll
      for (int q = 0; q < kPartialsPerLane; ++q) t += __uint_as_float(v[q]);
      for (int off = team >> 1; off > 0; off >>= 1) t += __shfl_xor_sync(mask, t, off);
      if (tl == 0) {
        const int slot = (int)(j % kMeanRing);
        mean_ring[slot] = t / (float)p.n;
        __threadfence_block(); /* the mean before its flag */
        *reinterpret_cast<volatile unsigned *>(&flag_ring[slot]) = (unsigned)j;
      }
    }
    return;
  }

  /* ---- compute warps ---- */
  /* The effective weight of this thread's columns, fp32, for every row; dw accumulators. */
  float wv[SPT][N], dw[SPT][N];
#pragma unroll
  for (int k = 0; k < SPT; ++k) {
    const int col = c0 + (tid + k * nthr) * N;
    if (col < c1) {
      load_weight<N>(wv[k], p.w, p.w_dtype, p.offset, col, c1, al);
    } else {
#pragma unroll
      for (int e = 0; e < N; ++e) wv[k][e] = 0.0f;
    }
#pragma unroll
    for (int e = 0; e < N; ++e) dw[k][e] = 0.0f;
  }

  /* Stage the chunk of local row j, and (lane 0 of each warp) its rstd: every thread copies
   * exactly the slots it later reads, so cp.async.wait_group orders copy and use without a CTA
   * barrier; the warp's rstd copy is ordered for the other lanes by __syncwarp after the wait.
   * One commit group per row, also when empty, so that group q always holds row q. */
  auto issue = [&](int64_t j) {
    __syncwarp(); /* every lane has read rs_w of the stage's previous row */
    if (j < mg) {
      const int64_t row = g + j * p.gr;
      const int st = (int)(j % D);
      if (lane == 0) cp_async4(&rs_w[st][warp], p.rstd + row);
#pragma unroll
      for (int k = 0; k < SPT; ++k) {
        const int sl = tid + k * nthr, col = c0 + sl * N;
        if (col < c1) {
          for (int t = 0; t < tensors; ++t) {
            const T *base = t == 0   ? static_cast<const T *>(p.dy) + row * p.dy_stride
                            : t == 1 ? static_cast<const T *>(p.s) + row * p.s_stride
                                     : static_cast<const T *>(p.ds) + row * p.ds_stride;
            uint4 *dst = ring + (st * tensors + t) * cslots + sl;
            if (al && col + N <= c1) {
              cp_async16(dst, base + col);
            } else { /* misaligned rows or the partial last slot: element-wise, synchronous */
              V v;
              load_slot(v, base, col, c1, al);
              *dst = make_uint4(v.w[0], v.w[1], v.w[2], v.w[3]);
            }
          }
        }
      }
    }
    cp_async_commit();
  };

  /* Partial dot of local row j (its stage landed: the caller waited), published for the other
   * CTAs of the row. warp_part[j & 1]: rewritten for row j + 2 only after the barrier of row
   * j + 1, which thread 0 reaches after reading it for row j. */
  auto dot_publish = [&](int64_t j) {
    const int64_t row = g + j * p.gr;
    const int st = (int)(j % D);
    __syncwarp();
    const float rs = rs_w[st][warp];
    float dot = 0.0f;
#pragma unroll
    for (int k = 0; k < SPT; ++k) {
      const int sl = tid + k * nthr, col = c0 + sl * N;
      if (col < c1) {
        const V dv = ring_get<T>(ring + (st * tensors + 0) * cslots + sl);
        const V sv = ring_get<T>(ring + (st * tensors + 1) * cslots + sl);
        dot = slot_dot(dv, sv, wv[k], rs, p.llama, dot);
      }
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, off);
    if (lane == 0) warp_part[j & 1][warp] = dot;
    named_sync(1, nthr);
    if (tid == 0) {
      float s = 0.0f;
      for (int i = 0; i < nwarps; ++i) s += warp_part[j & 1][i];
      if (s != s) s = __uint_as_float(0x7fffffffu); /* never the unpublished pattern */
      st_relaxed_gpu(p.dots + row * p.gc + c, s);
      *reinterpret_cast<volatile unsigned *>(&published) = (unsigned)(j + 1); /* rows go in order */
    }
  };

  /* Row j's total from the sync warp, then dx of this thread's slots and dw. */
  auto finish = [&](int64_t j) {
    const int64_t row = g + j * p.gr;
    const int st = (int)(j % D);
    const int slot = (int)(j % kMeanRing);
    const volatile unsigned *fl = &flag_ring[slot];
    while (*fl != (unsigned)j) {
    }
    __threadfence_block(); /* the flag before the mean */
    const float mean_gn = *reinterpret_cast<const volatile float *>(&mean_ring[slot]);
    const float rs = rs_w[st][warp];
    T *dxr = static_cast<T *>(p.dx) + row * p.dx_stride;
#pragma unroll
    for (int k = 0; k < SPT; ++k) {
      const int sl = tid + k * nthr, col = c0 + sl * N;
      if (col < c1) {
        const V dv = ring_get<T>(ring + (st * tensors + 0) * cslots + sl);
        const V sv = ring_get<T>(ring + (st * tensors + 1) * cslots + sl);
        V dsv, dxv;
        if (has_ds) dsv = ring_get<T>(ring + (st * tensors + 2) * cslots + sl);
        slot_dx(dxv, dv, sv, dsv, has_ds, wv[k], rs, mean_gn, p.llama, dw[k]);
        store_slot(dxr, dxv, col, c1, al);
      }
    }
  };

  for (int64_t q = 0; q < D; ++q) issue(q); /* groups 0 .. D-1 */
  for (int64_t q = 0; q < L && q < mg; ++q) {
    cp_async_wait_pending(D - 1 - (int)q); /* group q landed */
    dot_publish(q);
  }
  for (int64_t j = 0; j < mg; ++j) {
    finish(j);
    issue(j + D); /* into the buffer row j just left (this thread's own slots, already read) */
    if (j + L < mg) {
      cp_async_wait_pending(D - L); /* D + j + 1 groups committed; group j + L landed */
      dot_publish(j + L);
    }
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");

  /* This CTA's partial dw: row g of the workspace, its chunk's columns. */
  float *const wsrow = p.ws + (int64_t)g * p.n;
#pragma unroll
  for (int k = 0; k < SPT; ++k) {
    const int col = c0 + (tid + k * nthr) * N;
#pragma unroll
    for (int e = 0; e < N; ++e)
      if (col + e < c1) wsrow[col + e] = dw[k][e];
  }
}

template <typename T, int SPT>
__global__ void __launch_bounds__(FN_SPLIT_MAX_THREADS(SPT, sizeof(T)) + 32) rms_norm_bwd_split(const SplitParams p) {
  split_body<T, SPT>(p);
}

template <typename T>
static const void *split_kernel_for(int spt) {
  switch (spt) {
    case 1: return reinterpret_cast<const void *>(&rms_norm_bwd_split<T, 1>);
    case 2: return reinterpret_cast<const void *>(&rms_norm_bwd_split<T, 2>);
    case 4: return reinterpret_cast<const void *>(&rms_norm_bwd_split<T, 4>);
  }
  return nullptr;
}
/* f32 rows of 2^20 (1986 slots per CTA on 132 SMs) need 8 slots per thread (fn_split_bwd). */
template <>
const void *split_kernel_for<float>(int spt) {
  switch (spt) {
    case 1: return reinterpret_cast<const void *>(&rms_norm_bwd_split<float, 1>);
    case 2: return reinterpret_cast<const void *>(&rms_norm_bwd_split<float, 2>);
    case 4: return reinterpret_cast<const void *>(&rms_norm_bwd_split<float, 4>);
    case 8: return reinterpret_cast<const void *>(&rms_norm_bwd_split<float, 8>);
  }
  return nullptr;
}

const void *bwd_split_kernel(fusednorm_dtype x, int spt) {
  switch (x) {
    case FUSEDNORM_F32: return split_kernel_for<float>(spt);
    case FUSEDNORM_F16: return split_kernel_for<__half>(spt);
    case FUSEDNORM_BF16: return split_kernel_for<__nv_bfloat16>(spt);
  }
  return nullptr;
}

}  // namespace fn
