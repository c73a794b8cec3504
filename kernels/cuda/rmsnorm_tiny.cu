/*
 * rmsnorm_tiny.cu — the tiny kernels: problems whose time is one kernel's latency, not its bytes.
 *
 *   rms_norm_fwd_tiny<T, J, FUSED>  a team of p.team lanes per row (launch_config.h
 *       fn_tiny_lanes: the smallest power of two >= n, at most 32), lane l holding columns
 *       l, l + team, ... (J of them, fn_tiny_cols) in registers; every load of the row and of
 *       the lane's weights issued at once, the team's xor tree, the stores. No shared memory,
 *       no barrier, no row loop beyond the grid's rows. Taken for N-d rows (fn_row_dims > 1).
 *   rms_norm_fwd_tiny_lean<T, LANES, FUSED>  the same for rows of one stride, one column a lane,
 *       with the lanes fixed at compile time and its own packed parameter block (below).
 *   rms_norm_bwd_tiny<T, J, HAS_DS>  one CTA for the whole problem: each team holds up to
 *       FN_TINY_BWD_ROWS(J) rows at once (rows team, team + teams, ...), computes dx, and keeps
 *       its lanes' dw in registers; the CTA then sums dw itself (the teams of a warp by a
 *       butterfly over the lanes holding the same columns, the warps in warp order in shared
 *       memory) and writes it in the weight's dtype: one launch, no partial-dw workspace, no
 *       grid-wide barrier.
 *   rms_norm_bwd_tiny_lean<T, J, LANES, HAS_DS>  the same for rows of one stride that the CTA
 *       holds at once, one row a team, with the lanes fixed at compile time and its own packed
 *       parameter block; a one-warp CTA writes dw from its registers.
 *
 * Why: below a few thousand elements a launch of the row-based kernels spent its time on
 * staging the weight in shared memory, barriers, the row loop's bookkeeping and (backward) a
 * grid-wide barrier or a second launch for dw; ncu counted 1660 instructions for a 3 x 8
 * forward where Triton's kernel ran 252 (kernels/RESULTS.md). Every access here is element-wise
 * (any layout, any alignment: rows through fn::row_offset), which costs nothing at these sizes.
 *
 * Contract (kernels/README.md): s = RN(x + r) (fused add, written to residual_out), rstd =
 * 1/sqrt(mean(s^2) + eps) with a true division and sqrtf, y = RN(s*rstd*w_eff) or LLAMA
 * RN(RN_T(s*rstd)*w_eff); the backward's per-element formulas are elem_dot / elem_dx
 * (rmsnorm_unaligned.cuh), those of every other family. Sum orders, fixed by the launch: a
 * row's sums lane by lane in column order, then the team's xor tree; dw per column over a
 * team's rows in row order, the butterfly over the teams of a warp, then the warps in order.
 */
#include "kernels/cuda/rmsnorm_bwd_slot.cuh"
#include "kernels/cuda/rmsnorm_common.cuh"
#include "kernels/cuda/rmsnorm_launch.cuh"
#include "kernels/cuda/rmsnorm_unaligned.cuh"

namespace fn {

template <typename T, int J, bool FUSED>
__global__ void __launch_bounds__(FN_TINY_FWD_THREADS) rms_norm_fwd_tiny(const FwdParams p) {
  const int lanes = p.team, n = p.n;
  const int lg = __ffs(lanes) - 1; /* lanes is a power of two: shifts, not a division */
  const int team = (int)threadIdx.x >> lg, lane = (int)threadIdx.x & (lanes - 1);
  const int teams = (int)blockDim.x >> lg;
  /* Rows in steps uniform over the CTA (the team's shuffles need every lane of the warp; the
   * plan's grid gives each CTA one step). The weight is loaded in each step with the row. */
  for (int64_t base = (int64_t)blockIdx.x * teams; base < p.rows; base += (int64_t)gridDim.x * teams) {
    const int64_t row = base + team;
    const bool on = row < p.rows;
    const int64_t rl = on ? row : p.rows - 1; /* the row loaded: one that exists */
    const T *xr = static_cast<const T *>(p.x) + row_offset(p.nd, rl, p.x_stride, p.x_outer);
    const T *rr = static_cast<const T *>(p.r) + (FUSED ? row_offset(p.nd, rl, p.r_stride, p.r_outer) : 0);
    float s[J];
#pragma unroll
    for (int j = 0; j < J; ++j) {
      const float v = ld_elem(xr, tiny_col(lane + j * lanes, n));
      s[j] = lane + j * lanes < n ? v : 0.0f;
    }
    float r[J];
    if (FUSED) {
#pragma unroll
      for (int j = 0; j < J; ++j) {
        const float v = ld_elem(rr, tiny_col(lane + j * lanes, n));
        r[j] = lane + j * lanes < n ? v : 0.0f;
      }
    }
    uint32_t wb[J];
    float w[J];
    tiny_wbits<J>(wb, p.w, p.w_dtype, xr, lane, lanes, n);
    tiny_weff<J>(w, wb, p.w != nullptr, p.w_dtype, p.offset, lane, lanes, n);
    if (FUSED) {
      T *ror = static_cast<T *>(p.ro) + row_offset(p.nd, rl, p.ro_stride, p.ro_outer);
#pragma unroll
      for (int j = 0; j < J; ++j) {
        const int c = lane + j * lanes;
        s[j] = round_to<T>(s[j] + r[j]);
        if (on && c < n) st_elem(ror, c, s[j]);
      }
    }
    float ss = 0.0f; /* (past the row s is +0: adds nothing) */
#pragma unroll
    for (int j = 0; j < J; ++j) ss = fmaf(s[j], s[j], ss);
    for (int off = lanes >> 1; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
    if (on) {
      const float rstd = rstd_of(ss, n, p.eps);
      if (p.rstd != nullptr && lane == 0) p.rstd[row] = rstd;
      T *yr = static_cast<T *>(p.y) + row_offset(p.nd, row, p.y_stride, p.y_outer);
      with_llama(p.llama, [&](auto llama_c) {
        constexpr bool L = decltype(llama_c)::value;
#pragma unroll
        for (int j = 0; j < J; ++j) {
          const int c = lane + j * lanes;
          if (c < n) st_elem(yr, c, normalize_elem<T, L>(s[j], w[j], rstd));
        }
      });
    }
  }
}

/* The same forward, one column a lane, for rows of one stride (fn_row_dims 1; N-d rows take
 * rms_norm_fwd_tiny): the team's lanes a compile-time power of two (shifts, masks and the xor
 * tree unrolled), one row a team with no row loop (the plan's grid covers the rows: select.c
 * fwd_tiny), 32-bit row indices (at most FN_TINY_FWD_MAX_ELEMS elements), a row's offset one
 * multiply, and the parameter block LeanFwdParams. Each of those was a few dependent
 * instructions ahead of the first load or after the last, on a kernel whose time is that chain
 * (kernels/RESULTS.md, "The tiny forward's lean instances"). Results bit for bit those of
 * rms_norm_fwd_tiny<T, 1, FUSED>: the same operations in the same order. */
template <int L> __host__ __device__ constexpr int log2_of() { return L <= 1 ? 0 : 1 + log2_of<L / 2>(); }

template <typename T, int LANES, bool FUSED>
__global__ void __launch_bounds__(FN_TINY_FWD_THREADS) rms_norm_fwd_tiny_lean(const LeanFwdParams p) {
  constexpr int LG = log2_of<LANES>();
  const int n = p.n, rows = p.rows;
  const int tid = (int)threadIdx.x, lane = tid & (LANES - 1);
  const int row = (int)blockIdx.x * ((int)blockDim.x >> LG) + (tid >> LG);
  const bool on = row < rows, in = lane < n;
  const int rl = on ? row : rows - 1; /* the row loaded: one that exists */
  const int c = in ? lane : n - 1;    /* the column loaded: one that exists */
  const T *xr = static_cast<const T *>(p.x) + (int64_t)rl * p.x_stride;
  float s = ld_elem(xr, c);
  float r = 0.0f;
  if (FUSED) r = ld_elem(static_cast<const T *>(p.r) + (int64_t)rl * p.r_stride, c);
  uint32_t wb[1];
  float w[1];
  tiny_wbits<1>(wb, p.w, p.w_dtype, xr, lane, LANES, n);
  tiny_weff<1>(w, wb, p.w != nullptr, p.w_dtype, p.offset, lane, LANES, n);
  s = in ? s : 0.0f;
  if (FUSED) {
    r = in ? r : 0.0f;
    s = round_to<T>(s + r);
    if (on && in) st_elem(static_cast<T *>(p.ro) + (int64_t)rl * p.ro_stride, c, s);
  }
  float ss = fmaf(s, s, 0.0f); /* (past the row s is +0: adds nothing) */
#pragma unroll
  for (int off = LANES >> 1; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
  if (on) {
    const float rstd = rstd_of(ss, n, p.eps);
    if (p.rstd != nullptr && lane == 0) p.rstd[row] = rstd;
    T *yr = static_cast<T *>(p.y) + (int64_t)row * p.y_stride;
    if (in) {
      with_llama(p.llama, [&](auto llama_c) {
        constexpr bool L = decltype(llama_c)::value;
        st_elem(yr, c, normalize_elem<T, L>(s, w[0], rstd));
      });
    }
  }
}

/* The tiny backward's dw after the butterfly: the first team of each warp writes its columns to
 * the warp's row of `smem` ((blockDim.x / 32) x n floats), then each column is summed over the
 * warps in warp order and written in the weight's dtype. */
template <int J>
__device__ __forceinline__ void tiny_dw_warps(float *smem, const float (&dw)[J], int lanes, int n, void *dwp,
                                              int w_dtype) {
  const int warp = (int)threadIdx.x >> 5, wl = (int)threadIdx.x & 31, warps = (int)blockDim.x >> 5;
  if (wl < lanes) {
#pragma unroll
    for (int j = 0; j < J; ++j) {
      const int c = wl + j * lanes;
      if (c < n) smem[warp * n + c] = dw[j];
    }
  }
  __syncthreads();
  for (int c = (int)threadIdx.x; c < n; c += (int)blockDim.x) {
    float t = smem[c];
    for (int i = 1; i < warps; ++i) t += smem[i * n + c];
    store_dw(dwp, w_dtype, c, t);
  }
}

template <typename T, int J, bool HAS_DS>
__global__ void __launch_bounds__(FN_TINY_BWD_THREADS(J)) rms_norm_bwd_tiny(const BwdParams p) {
  constexpr int R = FN_TINY_BWD_ROWS(J);
  extern __shared__ float dyn_smem[]; /* (blockDim.x / 32) x n: the warps' dw sums */
  const int lanes = p.team, n = p.n;
  const int lg = __ffs(lanes) - 1;
  const int team = (int)threadIdx.x >> lg, lane = (int)threadIdx.x & (lanes - 1);
  const int teams = (int)blockDim.x >> lg;
  float dw[J];
#pragma unroll
  for (int j = 0; j < J; ++j) dw[j] = 0.0f;
  /* R rows per team at a time, every load of them issued before any is used (the plan gives a
   * team at most FN_AUTO_TINY_BWD_PASSES x R rows, select.c: one or two rounds; the loop is
   * uniform over the CTA, and each lane's dw chain visits its rows in order). */
  for (int64_t base = 0; base < p.rows; base += (int64_t)R * teams) {
    float dy[R][J], s[R][J], ds[R][J], rs[R];
    /* Every row's addresses first: row_offset branches on the layout, and a value used before a
     * branch is waited for there, which would put the rows' loads one round trip after another. */
    const T *dyr[R], *sr[R], *dsr[R];
    int64_t rl[R];
#pragma unroll
    for (int u = 0; u < R; ++u) {
      const int64_t row = base + team + (int64_t)u * teams;
      rl[u] = row < p.rows ? row : p.rows - 1; /* the row loaded: one that exists */
      dyr[u] = static_cast<const T *>(p.dy) + row_offset(p.nd, rl[u], p.dy_stride, p.dy_outer);
      sr[u] = static_cast<const T *>(p.s) + row_offset(p.nd, rl[u], p.s_stride, p.s_outer);
      dsr[u] = static_cast<const T *>(p.ds) + (HAS_DS ? row_offset(p.nd, rl[u], p.ds_stride, p.ds_outer) : 0);
    }
#pragma unroll
    for (int u = 0; u < R; ++u) {
      rs[u] = p.rstd[rl[u]];
#pragma unroll
      for (int j = 0; j < J; ++j) {
        const int c = tiny_col(lane + j * lanes, n);
        dy[u][j] = ld_elem(dyr[u], c);
        s[u][j] = ld_elem(sr[u], c);
        ds[u][j] = HAS_DS ? ld_elem(dsr[u], c) : 0.0f;
      }
    }
    uint32_t wb[J];
    float w[J]; /* loaded in each round with its rows (one or two rounds) */
    tiny_wbits<J>(wb, p.w, p.w_dtype, p.dy, lane, lanes, n);
    tiny_weff<J>(w, wb, p.w != nullptr, p.w_dtype, p.offset, lane, lanes, n);
#pragma unroll
    for (int u = 0; u < R; ++u) {
      const int64_t row = base + team + (int64_t)u * teams;
      float dot = 0.0f;
#pragma unroll
      for (int j = 0; j < J; ++j) {
        const float d = elem_dot(dy[u][j], s[u][j], w[j], rs[u], dot);
        /* past the row w is 0 and dy the row's last: dy * 0 is NaN where that dy is infinite */
        dot = lane + j * lanes < n ? d : dot;
      }
      for (int off = lanes >> 1; off > 0; off >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, off);
      if (row < p.rows) {
        const float mean_gn = dot / (float)n;
        T *dxr = static_cast<T *>(p.dx) + row_offset(p.nd, row, p.dx_stride, p.dx_outer);
#pragma unroll
        for (int j = 0; j < J; ++j) {
          const int c = lane + j * lanes;
          if (c < n)
            st_elem(dxr, c, elem_dx<T>(dy[u][j], s[u][j], ds[u][j], HAS_DS, w[j], rs[u], mean_gn, p.llama, dw[j]));
        }
      }
    }
  }
  if (p.dw == nullptr) return; /* no weight */
  /* The teams of a warp hold the same columns in lanes lane, lane + lanes, ...: a butterfly over
   * them (a + b in both lanes of a pair: the same bits), then the warps in order. */
  for (int off = lanes; off < 32; off <<= 1) {
#pragma unroll
    for (int j = 0; j < J; ++j) dw[j] += __shfl_xor_sync(0xffffffffu, dw[j], off);
  }
  tiny_dw_warps<J>(dyn_smem, dw, lanes, n, p.dw, p.w_dtype);
}

/* dw of a lane's J columns (c = lane + j * lanes, those < n), the weight's dtype switched once. */
template <int J>
__device__ __forceinline__ void store_dw_cols(void *dw, int w_dtype, int lane, int lanes, int n, const float (&v)[J]) {
  switch (w_dtype) {
    case FUSEDNORM_F32:
#pragma unroll
      for (int j = 0; j < J; ++j)
        if (lane + j * lanes < n) static_cast<float *>(dw)[lane + j * lanes] = v[j];
      break;
    case FUSEDNORM_F16:
#pragma unroll
      for (int j = 0; j < J; ++j)
        if (lane + j * lanes < n) static_cast<__half *>(dw)[lane + j * lanes] = __float2half_rn(v[j]);
      break;
    default:
#pragma unroll
      for (int j = 0; j < J; ++j)
        if (lane + j * lanes < n) static_cast<__nv_bfloat16 *>(dw)[lane + j * lanes] = __float2bfloat16_rn(v[j]);
      break;
  }
}

/* The tiny backward for rows of one stride whose rows the CTA holds at once, one row a team
 * (fn_row_dims 1, rows <= the CTA's teams, at most FN_TINY_BWD_LEAN_THREADS threads: the launcher
 * checks all three): the team's lanes a compile-time power of two, no row loop and no rows held
 * side by side, a row's offset one multiply, 32-bit row indices, the parameter block
 * LeanBwdParams, and a one-warp CTA writing dw from its registers (no shared memory, no barrier;
 * store_dw_cols switches on the weight's dtype once, where store_dw per column did not hoist it:
 * sm_90a SASS). ncu counted 803 instructions for fp16 1 x 255 in
 * rms_norm_bwd_tiny, a launch bound by that dependent chain (kernels/RESULTS.md "Known gaps").
 * Results bit for bit those of rms_norm_bwd_tiny<T, J, HAS_DS> on the same problem: with one row
 * a team its dw chain is one fmaf from +0, and the butterfly and the warps' order are the same. */
template <typename T, int J, int LANES, bool HAS_DS>
__global__ void __launch_bounds__(FN_TINY_BWD_LEAN_THREADS(J), 1) rms_norm_bwd_tiny_lean(const LeanBwdParams p) {
  constexpr int LG = log2_of<LANES>();
  extern __shared__ float dyn_smem[]; /* (blockDim.x / 32) x n: the warps' dw sums, several warps */
  const int n = p.n, rows = p.rows;
  const int tid = (int)threadIdx.x, lane = tid & (LANES - 1), row = tid >> LG;
  const bool on = row < rows;
  const int rl = on ? row : rows - 1; /* the row loaded: one that exists */
  const T *dyr = static_cast<const T *>(p.dy) + (int64_t)rl * p.dy_stride;
  const T *sr = static_cast<const T *>(p.s) + (int64_t)rl * p.s_stride;
  const T *dsr = static_cast<const T *>(p.ds) + (HAS_DS ? (int64_t)rl * p.ds_stride : 0);
  const float rs = p.rstd[rl];
  float dy[J], s[J], ds[J];
#pragma unroll
  for (int j = 0; j < J; ++j) {
    const int c = tiny_col(lane + j * LANES, n);
    dy[j] = ld_elem(dyr, c);
    s[j] = ld_elem(sr, c);
    ds[j] = HAS_DS ? ld_elem(dsr, c) : 0.0f;
  }
  uint32_t wb[J];
  float w[J];
  tiny_wbits<J>(wb, p.w, p.w_dtype, p.dy, lane, LANES, n);
  tiny_weff<J>(w, wb, p.w != nullptr, p.w_dtype, p.offset, lane, LANES, n);
  float dot = 0.0f;
#pragma unroll
  for (int j = 0; j < J; ++j) {
    const float d = elem_dot(dy[j], s[j], w[j], rs, dot);
    /* past the row w is 0 and dy the row's last: dy * 0 is NaN where that dy is infinite */
    dot = lane + j * LANES < n ? d : dot;
  }
#pragma unroll
  for (int off = LANES >> 1; off > 0; off >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, off);
  float dw[J];
#pragma unroll
  for (int j = 0; j < J; ++j) dw[j] = 0.0f;
  if (on) {
    const float mean_gn = dot / (float)n;
    T *dxr = static_cast<T *>(p.dx) + (int64_t)row * p.dx_stride;
#pragma unroll
    for (int j = 0; j < J; ++j) {
      const int c = lane + j * LANES;
      if (c < n) st_elem(dxr, c, elem_dx<T>(dy[j], s[j], ds[j], HAS_DS, w[j], rs, mean_gn, p.llama, dw[j]));
    }
  }
  if (p.dw == nullptr) return; /* no weight */
  /* The teams of a warp hold the same columns: the butterfly over them, as rms_norm_bwd_tiny. */
#pragma unroll
  for (int off = LANES; off < 32; off <<= 1) {
#pragma unroll
    for (int j = 0; j < J; ++j) dw[j] += __shfl_xor_sync(0xffffffffu, dw[j], off);
  }
  if (blockDim.x == 32) { /* one warp: its first team's lanes hold dw */
    if (tid < LANES) store_dw_cols<J>(p.dw, p.w_dtype, tid, LANES, n, dw);
    return;
  }
  tiny_dw_warps<J>(dyn_smem, dw, LANES, n, p.dw, p.w_dtype);
}

#define FN_TINY_LOOKUP(name, T, flag)                                                          \
  switch (cols) {                                                                            \
    case 1: return flag ? (const void *)&name<T, 1, true> : (const void *)&name<T, 1, false>; \
    case 2: return flag ? (const void *)&name<T, 2, true> : (const void *)&name<T, 2, false>; \
    case 4: return flag ? (const void *)&name<T, 4, true> : (const void *)&name<T, 4, false>; \
    case 8: return flag ? (const void *)&name<T, 8, true> : (const void *)&name<T, 8, false>; \
  }                                                                                          \
  return nullptr;

template <typename T> static const void *fwd_tiny_for(int cols, bool fused) {
  if (cols != 1) return nullptr; /* (FN_TINY_FWD_MAX_N) */
  return fused ? (const void *)&rms_norm_fwd_tiny<T, 1, true> : (const void *)&rms_norm_fwd_tiny<T, 1, false>;
}
template <typename T> static const void *bwd_tiny_for(int cols, bool has_ds) { FN_TINY_LOOKUP(rms_norm_bwd_tiny, T, has_ds) }
#undef FN_TINY_LOOKUP

template <typename T> static const void *fwd_tiny_lean_for(int lanes, bool fused) {
#define FN_TINY_LEAN(L)                                                 \
  case L:                                                               \
    return fused ? (const void *)&rms_norm_fwd_tiny_lean<T, L, true>    \
                 : (const void *)&rms_norm_fwd_tiny_lean<T, L, false>;
  switch (lanes) {
    FN_TINY_LEAN(1) FN_TINY_LEAN(2) FN_TINY_LEAN(4) FN_TINY_LEAN(8) FN_TINY_LEAN(16) FN_TINY_LEAN(32)
  }
#undef FN_TINY_LEAN
  return nullptr;
}

template <typename T> static const void *bwd_tiny_lean_for(int cols, int lanes, bool has_ds) {
#define FN_TINY_BWD_LEAN(J, L) \
  return has_ds ? (const void *)&rms_norm_bwd_tiny_lean<T, J, L, true> : (const void *)&rms_norm_bwd_tiny_lean<T, J, L, false>;
  if (cols == 1) {
    switch (lanes) {
      case 1: FN_TINY_BWD_LEAN(1, 1)
      case 2: FN_TINY_BWD_LEAN(1, 2)
      case 4: FN_TINY_BWD_LEAN(1, 4)
      case 8: FN_TINY_BWD_LEAN(1, 8)
      case 16: FN_TINY_BWD_LEAN(1, 16)
      case 32: FN_TINY_BWD_LEAN(1, 32)
    }
    return nullptr;
  }
  if (lanes != 32) return nullptr; /* (fn_tiny_lanes: 32 past one column a lane) */
  switch (cols) {
    case 2: FN_TINY_BWD_LEAN(2, 32)
    case 4: FN_TINY_BWD_LEAN(4, 32)
    case 8: FN_TINY_BWD_LEAN(8, 32)
  }
#undef FN_TINY_BWD_LEAN
  return nullptr;
}

const void *bwd_tiny_lean_kernel(fusednorm_dtype x, int cols, int lanes, bool has_ds) {
  switch (x) {
    case FUSEDNORM_F32: return bwd_tiny_lean_for<float>(cols, lanes, has_ds);
    case FUSEDNORM_F16: return bwd_tiny_lean_for<__half>(cols, lanes, has_ds);
    case FUSEDNORM_BF16: return bwd_tiny_lean_for<__nv_bfloat16>(cols, lanes, has_ds);
  }
  return nullptr;
}

const void *fwd_tiny_lean_kernel(fusednorm_dtype x, int lanes, bool fused) {
  switch (x) {
    case FUSEDNORM_F32: return fwd_tiny_lean_for<float>(lanes, fused);
    case FUSEDNORM_F16: return fwd_tiny_lean_for<__half>(lanes, fused);
    case FUSEDNORM_BF16: return fwd_tiny_lean_for<__nv_bfloat16>(lanes, fused);
  }
  return nullptr;
}

const void *fwd_tiny_kernel(fusednorm_dtype x, int cols, bool fused) {
  switch (x) {
    case FUSEDNORM_F32: return fwd_tiny_for<float>(cols, fused);
    case FUSEDNORM_F16: return fwd_tiny_for<__half>(cols, fused);
    case FUSEDNORM_BF16: return fwd_tiny_for<__nv_bfloat16>(cols, fused);
  }
  return nullptr;
}

const void *bwd_tiny_kernel(fusednorm_dtype x, int cols, bool has_ds) {
  switch (x) {
    case FUSEDNORM_F32: return bwd_tiny_for<float>(cols, has_ds);
    case FUSEDNORM_F16: return bwd_tiny_for<__half>(cols, has_ds);
    case FUSEDNORM_BF16: return bwd_tiny_for<__nv_bfloat16>(cols, has_ds);
  }
  return nullptr;
}

}  // namespace fn
