/*
 * rmsnorm_narrow.cu — narrow rows (q/k-norm head dims, 16-bit n <= 256 / f32 n <= 128 in AUTO;
 * up to 128 vector slots forced): the forward rms_norm_fwd_narrow and the backward
 * rms_norm_bwd_narrow. Geometry (launch_config.h fn_narrow): a team of `team` lanes (a power of
 * two <= 32) owns a row, lane l the slots l + k*team (k < S), and the fp32 effective weight of
 * those columns stays in registers for the whole persistent loop (no shared-memory reads per
 * row). A team loads R consecutive rows at once (R*S = FN_NARROW_SLOTS_IN_FLIGHT forward,
 * FN_NARROW_BWD_SLOTS_IN_FLIGHT backward), and the next R rows' loads are issued before the
 * current ones are reduced and written (two register sets, used alternately), so a lane always
 * has R*S 16-byte loads per tensor in flight.
 *
 * Numerics (kernels/README.md): per row the same formulas as every family; the sum of squares and
 * the backward's dot are summed per lane in slot order, then over the team by an xor tree (fixed).
 * dw accumulates per lane over its rows in visiting order (fp32, in registers), then the CTA's
 * teams are combined in team order (compensated, combine_team_dw) into one partial row per CTA,
 * summed by dw_reduce; a one-CTA launch (dw_direct) writes dw itself from that combined row.
 * Deterministic for any grid. Row addressing: row_at below.
 */
#include "kernels/cuda/rmsnorm_bwd_slot.cuh"
#include "kernels/cuda/rmsnorm_common.cuh"
#include "kernels/cuda/rmsnorm_launch.cuh"

namespace fn {

namespace {

/* Row `row` of a tensor: the element offset from row_offset, as in every kernel. */
template <typename T> __device__ __forceinline__ T *row_at(const void *base, int64_t off) {
  return const_cast<T *>(static_cast<const T *>(base)) + off;
}

/* Sum over the team's lanes (xor tree; every lane gets the sum). All 32 lanes of the warp call it. */
__device__ __forceinline__ float narrow_team_sum(float v, int team) {
  for (int off = team >> 1; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

}  // namespace

/* Forward: 16-byte aligned rows and weight, n a multiple of the vector width (whole 16-byte
 * slots only; the plan sends other layouts to the row-pipelined row-packed kernel). */
template <typename T, int S, int R, bool FUSED>
__global__ void __launch_bounds__(FN_ROW_PACKED_THREADS) rms_norm_fwd_narrow(const FwdParams p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  const int team = p.team, teams = blockDim.x / team;
  const int team_idx = threadIdx.x / team, lane = threadIdx.x - team_idx * team;
  const int step = team * N, col0 = lane * N;
  const int64_t gstep = (int64_t)gridDim.x * teams; /* row groups (of R rows) per grid step */

  float wv[S][N];
#pragma unroll
  for (int k = 0; k < S; ++k) {
    const int col = col0 + k * step;
    if (col < p.n) load_weight<N>(wv[k], p.w, p.w_dtype, p.offset, col, p.n, true);
  }

  struct Set {
    V x[R][S], r[R][S];
  };
  /* Issue the loads of row group g (rows g*R ... g*R + R - 1). */
  auto fetch = [&](Set &st, int64_t g) {
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const int64_t row = g * R + i;
      if (row < p.rows) {
        const T *xr = row_at<T>(p.x, row_offset(p.nd, row, p.x_stride, p.x_outer));
        const T *rr = row_at<T>(p.r, row_offset(p.nd, row, p.r_stride, p.r_outer));
#pragma unroll
        for (int k = 0; k < S; ++k) {
          const int col = col0 + k * step;
          if (col < p.n) {
            ld16(st.x[i][k].w, xr + col);
            if (FUSED) ld16(st.r[i][k].w, rr + col);
          }
        }
      }
    }
  };
  auto process = [&](Set &st, int64_t g) {
    float ss[R];
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const int64_t row = g * R + i;
      ss[i] = 0.0f;
      if (row < p.rows) {
        T *ror = row_at<T>(p.ro, row_offset(p.nd, row, p.ro_stride, p.ro_outer));
#pragma unroll
        for (int k = 0; k < S; ++k) {
          const int col = col0 + k * step;
          if (col < p.n) {
            if (FUSED) {
              add_residual(st.x[i][k], st.r[i][k]); /* s replaces x */
              st16(ror + col, st.x[i][k].w);
            }
            ss[i] = add_squares(st.x[i][k], ss[i]); /* columns past the end were loaded as 0 */
          }
        }
      }
    }
#pragma unroll
    for (int i = 0; i < R; ++i) ss[i] = narrow_team_sum(ss[i], team);
    with_llama(p.llama, [&](auto llama_c) {
      constexpr bool L = decltype(llama_c)::value;
#pragma unroll
      for (int i = 0; i < R; ++i) {
        const int64_t row = g * R + i;
        if (row >= p.rows) continue;
        const float rstd = rstd_of(ss[i], p.n, p.eps);
        if (p.rstd != nullptr && lane == 0) p.rstd[row] = rstd;
        T *yr = row_at<T>(p.y, row_offset(p.nd, row, p.y_stride, p.y_outer));
#pragma unroll
        for (int k = 0; k < S; ++k) {
          const int col = col0 + k * step;
          if (col < p.n) {
            V yv;
            normalize_slot<T, L>(yv, st.x[i][k], wv[k], rstd);
            st16(yr + col, yv.w);
          }
        }
      }
    });
  };

  /* The loop bound is the CTA's first group (uniform over the CTA), so every lane of a warp takes
   * the same iterations and the shuffles see the whole warp. */
  Set a, b;
  const int64_t groups = (p.rows + R - 1) / R;
  int64_t g = (int64_t)blockIdx.x * teams + team_idx;
  fetch(a, g);
  for (int64_t base = (int64_t)blockIdx.x * teams; base < groups; base += 2 * gstep, g += 2 * gstep) {
    fetch(b, g + gstep);
    process(a, g);
    if (base + gstep >= groups) break;
    fetch(a, g + 2 * gstep);
    process(b, g + gstep);
  }
}

/* Backward. ALIGNED: 16-byte aligned rows and weight and n a multiple of the vector width (whole
 * slots, 16-byte loads and stores only); else the element-wise path of load_slot / store_slot
 * (ptxas: the forward's bf16 S = 2 instance took 222 registers with it, 78 without). The plan is
 * the same for both (the workspace must not depend on the layout); the launcher picks the
 * instance from the layout. */
template <typename T, int S, int R, bool HAS_DS, bool ALIGNED>
__global__ void __launch_bounds__(FN_ROW_PACKED_THREADS) rms_norm_bwd_narrow(const NarrowBwdParams p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  extern __shared__ float dyn_smem[]; /* the teams' combine: n sums + n compensations */
  const int team = p.team, teams = blockDim.x / team;
  const int team_idx = threadIdx.x / team, lane = threadIdx.x - team_idx * team;
  const bool al = ALIGNED || p.aligned != 0;
  const bool has_w = p.ws != nullptr || p.dw != nullptr;
  auto ld = [&](V &v, const T *row, int col) {
    if (ALIGNED) ld16(v.w, row + col);
    else load_slot(v, row, col, p.n, al);
  };
  const int step = team * N, col0 = lane * N;
  const int64_t gstep = (int64_t)gridDim.x * teams;

  float wv[S][N], dwc[S][N];
#pragma unroll
  for (int k = 0; k < S; ++k) {
    const int col = col0 + k * step;
    if (col < p.n) load_weight<N>(wv[k], p.w, p.w_dtype, p.offset, col, p.n, al);
#pragma unroll
    for (int e = 0; e < N; ++e) dwc[k][e] = 0.0f;
  }

  struct Set {
    V dy[R][S], s[R][S], ds[R][S];
    float rs[R];
  };
  auto fetch = [&](Set &st, int64_t g) {
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const int64_t row = g * R + i;
      if (row < p.rows) {
        st.rs[i] = p.rstd[row];
        const T *dyr = row_at<T>(p.dy, row_offset(p.nd, row, p.dy_stride, p.dy_outer));
        const T *sr = row_at<T>(p.s, row_offset(p.nd, row, p.s_stride, p.s_outer));
        const T *dsr = row_at<T>(p.ds, row_offset(p.nd, row, p.ds_stride, p.ds_outer));
#pragma unroll
        for (int k = 0; k < S; ++k) {
          const int col = col0 + k * step;
          if (col < p.n) {
            ld(st.dy[i][k], dyr, col);
            ld(st.s[i][k], sr, col);
            if (HAS_DS) ld(st.ds[i][k], dsr, col);
          }
        }
      }
    }
  };
  auto process = [&](Set &st, int64_t g) {
    float dot[R];
#pragma unroll
    for (int i = 0; i < R; ++i) {
      dot[i] = 0.0f;
      if (g * R + i < p.rows) {
#pragma unroll
        for (int k = 0; k < S; ++k)
          if (col0 + k * step < p.n) dot[i] = slot_dot(st.dy[i][k], st.s[i][k], wv[k], st.rs[i], p.llama, dot[i]);
      }
    }
#pragma unroll
    for (int i = 0; i < R; ++i) dot[i] = narrow_team_sum(dot[i], team);
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const int64_t row = g * R + i;
      if (row >= p.rows) continue;
      const float mean_gn = dot[i] / (float)p.n;
      T *dxr = row_at<T>(p.dx, row_offset(p.nd, row, p.dx_stride, p.dx_outer));
#pragma unroll
      for (int k = 0; k < S; ++k) {
        const int col = col0 + k * step;
        if (col < p.n) {
          V dxv;
          slot_dx(dxv, st.dy[i][k], st.s[i][k], st.ds[i][k], HAS_DS, wv[k], st.rs[i], mean_gn, p.llama, dwc[k]);
          if (ALIGNED) st16(dxr + col, dxv.w);
          else store_slot(dxr, dxv, col, p.n, al);
        }
      }
    }
  };

  Set a, b;
  const int64_t groups = (p.rows + R - 1) / R;
  int64_t g = (int64_t)blockIdx.x * teams + team_idx;
  fetch(a, g);
  for (int64_t base = (int64_t)blockIdx.x * teams; base < groups; base += 2 * gstep, g += 2 * gstep) {
    fetch(b, g + gstep);
    process(a, g);
    if (base + gstep >= groups) break;
    fetch(a, g + 2 * gstep);
    process(b, g + gstep);
  }
  if (!has_w) return;

  /* The teams' dw in team order: into the CTA's partial row, or (one CTA: dw_direct) into shared
   * memory and from there to dw in the weight dtype. */
  Place pl;
  pl.team = team, pl.lane = lane, pl.team_idx = team_idx, pl.teams = teams;
  pl.crank = 0, pl.unit = blockIdx.x, pl.units = gridDim.x, pl.c0 = 0, pl.c1 = p.n;
  float *const dst = p.dw_direct ? dyn_smem : p.ws + (int64_t)blockIdx.x * p.n;
  combine_team_dw<N, S>(dwc, pl, col0, step, dyn_smem, dst);
  if (p.dw_direct) {
    __syncthreads();
    for (int j = threadIdx.x; j < p.n; j += blockDim.x) {
      const float v = dyn_smem[j];
      switch (p.w_dtype) {
        case FUSEDNORM_F32: static_cast<float *>(p.dw)[j] = v; break;
        case FUSEDNORM_F16: static_cast<__half *>(p.dw)[j] = __float2half_rn(v); break;
        default: static_cast<__nv_bfloat16 *>(p.dw)[j] = __float2bfloat16_rn(v); break;
      }
    }
  }
}

/* Instances: forward S in {1, 2, 4} with R = FN_NARROW_SLOTS_IN_FLIGHT / S, backward S in {1, 2}
 * with R = FN_NARROW_BWD_SLOTS_IN_FLIGHT / S. */
template <typename T>
static const void *fwd_narrow_for(int spl, int rpt, bool fused) {
  if (spl * rpt != FN_NARROW_SLOTS_IN_FLIGHT) return nullptr;
  switch (spl) {
    case 1: return fused ? reinterpret_cast<const void *>(&rms_norm_fwd_narrow<T, 1, 4, true>)
                         : reinterpret_cast<const void *>(&rms_norm_fwd_narrow<T, 1, 4, false>);
    case 2: return fused ? reinterpret_cast<const void *>(&rms_norm_fwd_narrow<T, 2, 2, true>)
                         : reinterpret_cast<const void *>(&rms_norm_fwd_narrow<T, 2, 2, false>);
    case 4: return fused ? reinterpret_cast<const void *>(&rms_norm_fwd_narrow<T, 4, 1, true>)
                         : reinterpret_cast<const void *>(&rms_norm_fwd_narrow<T, 4, 1, false>);
  }
  return nullptr;
}

template <typename T, bool A>
static const void *bwd_narrow_for(int spl, int rpt, bool has_ds) {
  if (spl * rpt != FN_NARROW_BWD_SLOTS_IN_FLIGHT) return nullptr;
  switch (spl) {
    case 1: return has_ds ? reinterpret_cast<const void *>(&rms_norm_bwd_narrow<T, 1, 2, true, A>)
                          : reinterpret_cast<const void *>(&rms_norm_bwd_narrow<T, 1, 2, false, A>);
    case 2: return has_ds ? reinterpret_cast<const void *>(&rms_norm_bwd_narrow<T, 2, 1, true, A>)
                          : reinterpret_cast<const void *>(&rms_norm_bwd_narrow<T, 2, 1, false, A>);
  }
  return nullptr;
}

const void *fwd_narrow_kernel(fusednorm_dtype x, int spl, int rpt, bool fused) {
  switch (x) {
    case FUSEDNORM_F32: return fwd_narrow_for<float>(spl, rpt, fused);
    case FUSEDNORM_F16: return fwd_narrow_for<__half>(spl, rpt, fused);
    case FUSEDNORM_BF16: return fwd_narrow_for<__nv_bfloat16>(spl, rpt, fused);
  }
  return nullptr;
}

const void *bwd_narrow_kernel(fusednorm_dtype x, int spl, int rpt, bool has_ds, bool aligned) {
  switch (x) {
    case FUSEDNORM_F32: return aligned ? bwd_narrow_for<float, true>(spl, rpt, has_ds) : bwd_narrow_for<float, false>(spl, rpt, has_ds);
    case FUSEDNORM_F16: return aligned ? bwd_narrow_for<__half, true>(spl, rpt, has_ds) : bwd_narrow_for<__half, false>(spl, rpt, has_ds);
    case FUSEDNORM_BF16:
      return aligned ? bwd_narrow_for<__nv_bfloat16, true>(spl, rpt, has_ds)
                     : bwd_narrow_for<__nv_bfloat16, false>(spl, rpt, has_ds);
  }
  return nullptr;
}

}  // namespace fn
