/*
 * rmsnorm_bwd.cu — the RMSNorm backward's generic kernel, its row-pipelined row-packed kernel and
 * the deterministic dw reduction (the lean persistent kernel is rmsnorm_bwd_row.cu, the split-row
 * kernel rmsnorm_bwd_wide.cu; which runs is the plan's decision, kernels/src/select.c, table in
 * kernels/cuda/README.md).
 *
 * The generic kernel rms_norm_bwd<T, CACHE> runs one team per CTA on a persistent grid, or a row
 * split over a thread-block cluster (compute capability >= 9.0). Every backward grid is bounded
 * (one wave) because each row-processing unit (CTA, or cluster) owns one fp32 row of partial dw
 * in the workspace: P = units rows of n floats.
 *
 * Per row, with rstd from the forward, h_j = s_j*rstd (the true point, every casting),
 * n_j = h_j (LLAMA: RN_T(h_j), as the forward used it) and g_j = dy_j*(w_j+offset) (no weight: g = dy):
 *   dx_j = RN_T(rstd*(g_j - h_j*mean(g*h)) [+ ds_j])      one rounding, ds only for fused add
 *   dw_j += dy_j*n_j                                        fp32, in registers per thread
 * dy and s of the cached slots stay in registers between the reduction and the dx pass; streamed
 * slots are re-read (L2) and their dw accumulates in shared memory (or, for very wide chunks, in
 * the unit's own workspace row). Every accumulation has a fixed order: a thread owns the same
 * columns for every row and visits its rows in grid-stride order; row-packed teams are combined
 * in team order; dw_reduce sums the P partial rows in fixed slices combined by a fixed tree (both
 * with compensated sums).
 * The row-packed backward runs rms_norm_bwd_pipe (the next row's loads in flight, same
 * arithmetic); rows too wide for a cluster's registers, the split-row kernel (rmsnorm_bwd_wide.cu).
 * Hence bitwise run-to-run determinism for a given device (P depends on the SM count).
 */
#include "kernels/cuda/rmsnorm_bwd_slot.cuh"
#include "kernels/cuda/rmsnorm_common.cuh"
#include "kernels/cuda/rmsnorm_launch.cuh"

namespace fn {

/* The effective weight of a cached slot: from the CTA's fp32 copy in shared memory (staged once
 * per CTA, see the kernel) or from global memory (loaded and converted on both passes of every
 * row: with the 16-bit conversions and the offset, ~26 of the ~140 SASS instructions of a bf16
 * slot's dx pass). The casting mode stays a run-time flag here: making it a template parameter
 * of the per-element code (one uniform branch per pass) pushed the bf16 CACHE 4 instance past
 * its 128-register bound (448 bytes of spills), so it was dropped. */
template <int N>
__device__ __forceinline__ void slot_weight(float (&wv)[N], const float *wsm, const BwdParams &p, int col,
                                           int c0, int lim, bool al) {
  if (wsm != nullptr) {
    smem_weight<N>(wv, wsm, col - c0);
  } else {
    load_weight<N>(wv, p.w, p.w_dtype, p.offset, col, lim, al);
  }
}

template <typename T, int CACHE>
__device__ __forceinline__ void bwd_body(const BwdParams &p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  constexpr int C = CACHE > 0 ? CACHE : 1;
  extern __shared__ float dyn_smem[];
  __shared__ ReduceSmem red;
  const Place pl = make_place(p.team, p.cluster, p.chunk, p.n);
  const bool al = p.aligned != 0;
  const bool has_w = p.ws != nullptr;
  const int step = pl.team * N;
  const int col0 = pl.c0 + pl.lane * N;
  const int sbeg = pl.c0 + CACHE * step;         /* first streamed column of the chunk */
  float *const wsrow = has_w ? p.ws + pl.unit * (int64_t)p.n : nullptr;
  /* Streamed columns' dw, indexed by column - sbeg (only teams == 1 streams: select.c). */
  float *const acc = !has_w || sbeg >= pl.c1 ? nullptr : (p.dw_smem ? dyn_smem : wsrow + sbeg);
  if (acc != nullptr) {
    for (int col = col0 + CACHE * step; col < pl.c1; col += step)
      for (int e = 0; e < N && col + e < pl.c1; ++e) acc[col + e - sbeg] = 0.0f; /* own columns */
  }

  /* p.w_smem (one row per CTA, every column of the chunk cached, no streamed dw in shared
   * memory): the effective weight w + offset of this thread's cached columns, converted to fp32
   * once per CTA instead of loaded and converted twice per row. Each thread stages and later
   * reads only its own columns, so no barrier is needed. It is staged in the thread's first row,
   * after that row's loads are issued: staged before the row loop, the CTA would wait for the
   * weight before its first row's loads go out (two memory round trips where the few-row
   * backward has time for one). */
  float *const wsm = CACHE > 0 && p.w_smem ? dyn_smem : nullptr;
  bool staged = wsm == nullptr;

  float dwc[C][N];
#pragma unroll
  for (int k = 0; k < C; ++k)
#pragma unroll
    for (int e = 0; e < N; ++e) dwc[k][e] = 0.0f;

  int parity = 0;
  for (int64_t base = pl.unit * pl.teams; base < p.rows; base += pl.units * pl.teams, parity ^= 1) {
    const int64_t row = base + pl.team_idx;
    const bool active = row < p.rows;
    const T *dyr = static_cast<const T *>(p.dy) + row_offset(p.nd, row, p.dy_stride, p.dy_outer);
    const T *sr = static_cast<const T *>(p.s) + row_offset(p.nd, row, p.s_stride, p.s_outer);
    const T *dsr = static_cast<const T *>(p.ds) + row_offset(p.nd, row, p.ds_stride, p.ds_outer);
    T *dxr = static_cast<T *>(p.dx) + row_offset(p.nd, row, p.dx_stride, p.dx_outer);

    V cdy[C], cs[C];
    float dot = 0.0f, rs = 0.0f;
    if (active) {
      rs = p.rstd[row];
#pragma unroll
      for (int k = 0; k < CACHE; ++k) {
        const int col = col0 + k * step;
        if (col < pl.c1) {
          load_slot(cdy[k], dyr, col, pl.c1, al);
          load_slot(cs[k], sr, col, pl.c1, al);
        }
      }
      if (!staged) {
#pragma unroll
        for (int k = 0; k < CACHE; ++k) {
          const int col = col0 + k * step;
          if (col < pl.c1) stage_weight<N>(wsm + (col - pl.c0), p.w, p.w_dtype, p.offset, col, pl.c1, al);
        }
        staged = true;
      }
#pragma unroll
      for (int k = 0; k < CACHE; ++k) {
        const int col = col0 + k * step;
        if (col < pl.c1) {
          float wv[N];
          slot_weight<N>(wv, wsm, p, col, pl.c0, pl.c1, al);
          dot = slot_dot(cdy[k], cs[k], wv, rs, p.llama, dot);
        }
      }
      for (int col = col0 + CACHE * step; col < pl.c1; col += step) {
        V dv, sv;
        float wv[N];
        load_slot(dv, dyr, col, pl.c1, al);
        load_slot(sv, sr, col, pl.c1, al);
        load_weight<N>(wv, p.w, p.w_dtype, p.offset, col, pl.c1, al);
        dot = slot_dot(dv, sv, wv, rs, p.llama, dot);
      }
    }
    dot = team_sum(dot, pl.team, p.cluster, parity, red);
    const float mean_gn = dot / (float)p.n;
    if (!active) continue;

#pragma unroll
    for (int k = 0; k < CACHE; ++k) {
      const int col = col0 + k * step;
      if (col < pl.c1) {
        float wv[N];
        slot_weight<N>(wv, wsm, p, col, pl.c0, pl.c1, al);
        V dsv, dxv;
        if (p.ds != nullptr) load_slot(dsv, dsr, col, pl.c1, al);
        slot_dx(dxv, cdy[k], cs[k], dsv, p.ds != nullptr, wv, rs, mean_gn, p.llama, dwc[k]);
        store_slot(dxr, dxv, col, pl.c1, al);
      }
    }
    for (int col = col0 + CACHE * step; col < pl.c1; col += step) {
      V dv, sv, dsv, dxv;
      float wv[N], dwv[N];
      load_slot(dv, dyr, col, pl.c1, al);
      load_slot(sv, sr, col, pl.c1, al);
      if (p.ds != nullptr) load_slot(dsv, dsr, col, pl.c1, al);
      load_weight<N>(wv, p.w, p.w_dtype, p.offset, col, pl.c1, al);
#pragma unroll
      for (int e = 0; e < N; ++e) dwv[e] = 0.0f;
      slot_dx(dxv, dv, sv, dsv, p.ds != nullptr, wv, rs, mean_gn, p.llama, dwv);
      if (acc != nullptr) {
#pragma unroll
        for (int e = 0; e < N; ++e)
          if (col + e < pl.c1) acc[col + e - sbeg] += dwv[e];
      }
      store_slot(dxr, dxv, col, pl.c1, al);
    }
  }

  if (has_w) {
    if (pl.teams == 1) {
#pragma unroll
      for (int k = 0; k < CACHE; ++k) {
        const int col = col0 + k * step;
#pragma unroll
        for (int e = 0; e < N; ++e)
          if (col + e < pl.c1) wsrow[col + e] = dwc[k][e];
      }
      if (acc != nullptr && p.dw_smem) {
        for (int col = col0 + CACHE * step; col < pl.c1; col += step)
          for (int e = 0; e < N && col + e < pl.c1; ++e) wsrow[col + e] = acc[col + e - sbeg];
      }
    } else {
      combine_team_dw<N, C>(dwc, pl, col0, step, dyn_smem, wsrow);
    }
  }
  if (p.cluster > 1) cluster_sync();
}

template <typename T, int CACHE>
__global__ void __launch_bounds__(FN_MAX_THREADS(1, CACHE)) rms_norm_bwd(const BwdParams p) {
  bwd_body<T, CACHE>(p);
}

/* CACHE 2 (16-bit n = 520 ... 1024 backward: 64-thread CTAs, persistent) with a register cap
 * below its launch bound: ptxas (nvcc 13.0, sm_90a) fits it in 96 registers without spills
 * (120 under the bound alone), so 10 CTAs share an SM instead of 8. H200, 2026-11-22 01:25 UTC,
 * bench_modes bf16 forced persistent 65536 x 1024 bwd 2748 -> 2938 GB/s, fused add 3671 -> 3967
 * (kernels/RESULTS.md). FN_BWD_C2_REGS is also in fn_regs_estimate (launch_config.h), which sizes
 * the persistent grid. The same cap was tried on CACHE 4 (the n >= 2880 backward, 126
 * registers): 96 spilled 172 bytes; moving its 32 fp32 dw accumulators to shared memory made
 * 96 spill-free but measured slower (32768 x 2880 2742 -> 2007, 4096 x 16384 2406 -> 2291 GB/s;
 * capped at 80: slower still), so it was dropped. */
template <typename T>
__global__ void __maxnreg__(FN_BWD_C2_REGS) rms_norm_bwd_c2(const BwdParams p) {
  bwd_body<T, 2>(p);
}

/* Row-pipelined row-packed backward (teams of <= 32 lanes, S slots per lane: 16-bit n <= 256,
 * f32 n <= 128 * S; lane l holds the slots l, l + team, ..., so each of a warp's loads is one
 * contiguous run): the loads of a team's next row (dy, s, ds and rstd) are issued before the
 * current row's reduction and dx pass, in a second register set, as in the forward's
 * rms_norm_fwd_pipe (rmsnorm_fwd.cu, which says why); a lane's effective weights are loaded once.
 * Per row and per column the same operations as bwd_body with CACHE = S (a lane's dot over its
 * slots in slot order, then the team's xor tree), and the same team-order combine of dw. S = 2
 * (f32 only) serves rows of 129-256 columns that are not whole aligned vectors, where the
 * persistent backward's head-split instance moves ~1.8 TB/s against ~2.6 for aligned rows; the
 * 16-bit instances, at 126-128 registers (two CTAs a SM), measured slower than the persistent
 * backward everywhere and are not built (kernels/RESULTS.md, "Two slots a lane in the
 * row-pipelined backward"). ND: rows addressed through every leading stride (row_offset_nd); the
 * launch takes the instance without it for rows of one stride. The CTA's dw: combine_team_dw's
 * one-barrier form (every warp's pairs in rows of their own: fn_bwd_pipe_smem). */
template <typename T, int S, bool HAS_DS, bool ND>
__global__ void __launch_bounds__(FN_ROW_PACKED_THREADS, FN_BWD_PIPE_MIN_CTAS(S, HAS_DS, (int)sizeof(T)))
    rms_norm_bwd_pipe(const BwdParams p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  extern __shared__ float dyn_smem[];
  __shared__ ReduceSmem red;
  const Place pl = make_place(p.team, 1, p.n, p.n);
  const bool al = p.aligned != 0;
  const bool has_w = p.ws != nullptr;
  const int step = pl.team * N;
  const int col0 = pl.lane * N;
  const bool mine = col0 < p.n; /* this lane holds a slot of the row (its first) */
  const int64_t rstep = pl.units * pl.teams;
  float wv[S][N]; /* a lane owns the same slots for every row: their effective weights, loaded once */

  struct Row {
    V dy[S], s[S], ds[S];
    float rs;
  };
  auto fetch = [&](Row &r, int64_t row) {
    if (row >= p.rows || !mine) return;
    r.rs = p.rstd[row];
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int col = col0 + k * step;
      if (k > 0 && col >= p.n) break;
      load_slot(r.dy[k], static_cast<const T *>(p.dy) + row_offset_nd<ND>(p.nd, row, p.dy_stride, p.dy_outer), col, p.n, al);
      load_slot(r.s[k], static_cast<const T *>(p.s) + row_offset_nd<ND>(p.nd, row, p.s_stride, p.s_outer), col, p.n, al);
      if (HAS_DS)
        load_slot(r.ds[k], static_cast<const T *>(p.ds) + row_offset_nd<ND>(p.nd, row, p.ds_stride, p.ds_outer), col, p.n, al);
    }
  };
  float dwc[S][N];
#pragma unroll
  for (int k = 0; k < S; ++k)
#pragma unroll
    for (int e = 0; e < N; ++e) dwc[k][e] = 0.0f;
  auto process = [&](Row &r, int64_t row, int parity) {
    const bool active = row < p.rows && mine;
    float dot = 0.0f;
    if (active) {
      dot = slot_dot(r.dy[0], r.s[0], wv[0], r.rs, p.llama, 0.0f);
#pragma unroll
      for (int k = 1; k < S; ++k)
        if (col0 + k * step < p.n) dot = slot_dot(r.dy[k], r.s[k], wv[k], r.rs, p.llama, dot);
    }
    dot = team_sum(dot, pl.team, 1, parity, red);
    const float mean_gn = dot / (float)p.n;
    if (!active) return;
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int col = col0 + k * step;
      if (k > 0 && col >= p.n) break;
      V dxv;
      slot_dx(dxv, r.dy[k], r.s[k], r.ds[k], HAS_DS, wv[k], r.rs, mean_gn, p.llama, dwc[k]);
      store_slot(static_cast<T *>(p.dx) + row_offset_nd<ND>(p.nd, row, p.dx_stride, p.dx_outer), dxv, col, p.n, al);
    }
  };

  Row a, b;
  int64_t row = pl.unit * pl.teams + pl.team_idx;
  /* The weight after the first two rows' loads are issued (converting it before them would make
   * the CTA wait for it first: two memory round trips, not one). */
  fetch(a, row);
  fetch(b, row + rstep);
#pragma unroll
  for (int k = 0; k < S; ++k) {
    const int col = col0 + k * step;
    if (mine && (k == 0 || col < p.n)) load_weight<N>(wv[k], p.w, p.w_dtype, p.offset, col, p.n, al);
  }
  for (int64_t base = pl.unit * pl.teams; base < p.rows; base += 2 * rstep, row += 2 * rstep) {
    process(a, row, 0);
    if (base + rstep >= p.rows) break;
    fetch(a, row + 2 * rstep);
    process(b, row + rstep, 1);
    fetch(b, row + 3 * rstep);
  }
  if (has_w) combine_team_dw<N, S, true>(dwc, pl, col0, step, dyn_smem, p.ws + pl.unit * (int64_t)p.n, p.dw, p.w_dtype);
  if (p.dw != nullptr) dw_reduce_in_kernel(p.ws, (int)gridDim.x, p.n, p.dw, p.w_dtype);
}

/* The reductions below are launched as programmatic dependents of the backward that wrote the
 * partial rows where the kernels have sm_90 code (fusednorm_cuda.cu launch_dw_reduce): their
 * launch overlaps the backward grid's completion, and griddepcontrol.wait holds them until that
 * grid has completed and its writes are visible. Launched otherwise, the wait returns at once. */
__device__ __forceinline__ void wait_for_primary() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* dw[j] = sum_u ws[u][j] over the P partial rows (P > FN_DW_IN_KERNEL_MAX_PARTIALS): a CTA of
 * COLS columns x SL fixed slices of the rows; each slice summed in row order, then the slices
 * combined by a fixed pairwise tree (slice i takes in slice i + h, h = 1, 2, 4, ...), every step
 * compensated (Kahan: the partner's sum, then its lost low-order part). The bits depend on (P,
 * SL) only, and fn_dw_reduce_shape picks SL from (P, n): deterministic for a given problem.
 * Narrow dw (few columns) takes 8 columns a CTA, so that its few columns still spread over
 * n / 8 CTAs, and more slices for more rows, so that each thread's rows are few loads in flight;
 * the tree costs log2(SL) barriers where a chain over the slices would cost SL dependent steps
 * (launch_config.h FN_DW_REDUCE_* has the measurements). */
template <int COLS, int SL>
__global__ void __launch_bounds__(COLS *SL) dw_reduce(const float *ws, int64_t P, int n, void *dw, int w_dtype) {
  wait_for_primary();
  __shared__ float part[SL][COLS + 1];
  __shared__ float pcomp[SL][COLS + 1];
  const int lane = (int)threadIdx.x % COLS, slice = (int)threadIdx.x / COLS;
  const int64_t p0 = P * slice / SL, p1 = P * (slice + 1) / SL;
  for (int64_t cb = (int64_t)blockIdx.x * COLS; cb < n; cb += (int64_t)gridDim.x * COLS) {
    const int64_t col = cb + lane;
    Kahan k;
    if (col < n) {
      const float *src = ws + col;
#pragma unroll 8
      for (int64_t u = p0; u < p1; ++u) k.add(src[u * n]);
    }
    part[slice][lane] = k.s;
    pcomp[slice][lane] = k.c;
#pragma unroll
    for (int h = 1; h < SL; h *= 2) {
      __syncthreads();
      if ((slice & (2 * h - 1)) == 0) {
        Kahan t;
        t.s = part[slice][lane];
        t.c = pcomp[slice][lane];
        t.add(part[slice + h][lane]);
        t.add(-pcomp[slice + h][lane]); /* the partner's own lost low-order part */
        part[slice][lane] = t.s;
        pcomp[slice][lane] = t.c;
      }
    }
    if (slice == 0 && col < n) store_dw(dw, w_dtype, col, part[0][lane]);
    __syncthreads();
  }
}

/* dw from P <= FN_DW_IN_KERNEL_MAX_PARTIALS partial rows (dw_chain, a thread per column): the
 * sum that dw_reduce_in_kernel makes, as its own launch. */
__global__ void __launch_bounds__(kDwChainThreads) dw_reduce_chain(const float *ws, int P, int n, void *dw, int w_dtype) {
  wait_for_primary();
  const int threads = (int)(gridDim.x * blockDim.x);
  for (int col = (int)(blockIdx.x * blockDim.x + threadIdx.x); col < n; col += threads)
    store_dw(dw, w_dtype, col, dw_chain(ws, P, n, col));
}

/* FN_BWD_GENERIC_CACHES (launch_config.h). */
template <typename T>
static const void *bwd_kernel_for(int cache) {
  switch (cache) {
    case 1: return reinterpret_cast<const void *>(&rms_norm_bwd<T, 1>);
    case 2: return reinterpret_cast<const void *>(&rms_norm_bwd_c2<T>);
    case 4: return reinterpret_cast<const void *>(&rms_norm_bwd<T, 4>);
  }
  return nullptr;
}

const void *bwd_kernel(fusednorm_dtype x, int cache) {
  switch (x) {
    case FUSEDNORM_F32: return bwd_kernel_for<float>(cache);
    case FUSEDNORM_F16: return bwd_kernel_for<__half>(cache);
    case FUSEDNORM_BF16: return bwd_kernel_for<__nv_bfloat16>(cache);
  }
  return nullptr;
}

template <typename T, bool ND>
static const void *bwd_pipe_kernel_for(int slots, bool has_ds) {
  switch (slots) {
    case 1: return has_ds ? reinterpret_cast<const void *>(&rms_norm_bwd_pipe<T, 1, true, ND>)
                          : reinterpret_cast<const void *>(&rms_norm_bwd_pipe<T, 1, false, ND>);
    case 2: /* f32 only: the 16-bit instances measured 0.57-0.95x the persistent backward (RESULTS) */
      if constexpr (sizeof(T) == 4)
        return has_ds ? reinterpret_cast<const void *>(&rms_norm_bwd_pipe<T, 2, true, ND>)
                      : reinterpret_cast<const void *>(&rms_norm_bwd_pipe<T, 2, false, ND>);
      break;
  }
  return nullptr;
}

template <typename T> static const void *bwd_pipe_kernel_nd(int slots, bool has_ds, bool nd) {
  return nd ? bwd_pipe_kernel_for<T, true>(slots, has_ds) : bwd_pipe_kernel_for<T, false>(slots, has_ds);
}

const void *bwd_pipe_kernel(fusednorm_dtype x, int slots, bool has_ds, bool nd) {
  switch (x) {
    case FUSEDNORM_F32: return bwd_pipe_kernel_nd<float>(slots, has_ds, nd);
    case FUSEDNORM_F16: return bwd_pipe_kernel_nd<__half>(slots, has_ds, nd);
    case FUSEDNORM_BF16: return bwd_pipe_kernel_nd<__nv_bfloat16>(slots, has_ds, nd);
  }
  return nullptr;
}

const void *dw_reduce_kernel(int cols, int slices) {
  if (cols == 32 && slices == 32) return reinterpret_cast<const void *>(&dw_reduce<32, 32>);
  if (cols == 8 && slices == 32) return reinterpret_cast<const void *>(&dw_reduce<8, 32>);
  if (cols == 8 && slices == 64) return reinterpret_cast<const void *>(&dw_reduce<8, 64>);
  return nullptr;
}
const void *dw_reduce_chain_kernel() { return reinterpret_cast<const void *>(&dw_reduce_chain); }

}  // namespace fn
