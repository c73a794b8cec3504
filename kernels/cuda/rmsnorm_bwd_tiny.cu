/*
 * rmsnorm_bwd_tiny.cu — the backward of a few rows in one launch: one CTA, or one thread-block
 * cluster (compute capability >= 9.0; FN_HAS_CLUSTERS), owns every column, so dx and dw come out of
 * the same kernel with no partial-dw rows and no dw_reduce launch. A few rows of a hidden size are
 * latency: two launches and a workspace round trip cost more than the work (kernels/README.md;
 * a few rows of 12K took 9.5 us backward that way against the best peer's 4.4 us on an H200).
 *
 * CTA c of the cluster owns the columns [c*chunk, min(n, (c+1)*chunk)); its thread t the slots
 * t, t + blockDim, ... of that chunk. Rows go FN_TINY_BATCH_ROWS at a time:
 *   1. every thread's partial dot product of each row of the batch (its slots in order);
 *   2. per row, the warps' xor trees, the warps in order, then the CTAs of the cluster in rank order
 *      through distributed shared memory: one CTA barrier and one cluster barrier per batch;
 *   3. dx of each slot of each row of the batch (dy and s re-read: L1 / L2 hits), and dw of the
 *      slot's columns accumulated over the batch's rows in row order into the CTA's fp32 dw in
 *      shared memory (each thread only its own columns: no barrier).
 * At the end each CTA writes its columns of dw in the weight dtype. Same per-slot arithmetic as every
 * backward (slot_dot / slot_dx); dw is the plain fp32 sum over the rows in row order (the naive
 * order, for the few rows this kernel takes). Deterministic: fixed trees and orders.
 * The reduction buffers are double-buffered by batch parity: a CTA writing batch i+2's partials has
 * passed batch i+1's cluster barrier, which every reader of batch i's reached after reading.
 */
#include "kernels/cuda/rmsnorm_bwd_slot.cuh"
#include "kernels/cuda/rmsnorm_common.cuh"
#include "kernels/cuda/rmsnorm_launch.cuh"

namespace fn {

namespace {

/* Row `row` of a tensor: the element offset from row_offset, as in every kernel. */
template <typename T> __device__ __forceinline__ T *tiny_row(const void *base, int64_t off) {
  return const_cast<T *>(static_cast<const T *>(base)) + off;
}

}  // namespace

template <typename T, bool HAS_DS>
__global__ void __launch_bounds__(FN_TINY_MAX_THREADS) rms_norm_bwd_tiny(const NarrowBwdParams p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  constexpr int B = FN_TINY_BATCH_ROWS;
  extern __shared__ float dyn_smem[]; /* the CTA's dw, chunk floats (with a weight) */
  __shared__ float warp_part[2][B][FN_TINY_MAX_THREADS / 32]; /* FN_TINY_STATIC_SMEM in all */
  __shared__ float cta_part[2][B];
  const bool al = p.aligned != 0;
  const bool has_w = p.dw != nullptr;
  int crank = 0;
  if (p.cluster > 1) {
#if FN_HAS_CLUSTERS
    crank = (int)cg::this_cluster().block_rank();
#else
    __trap();
#endif
  }
  const int c0 = crank * p.chunk, c1 = min(p.n, c0 + p.chunk);
  const int step = blockDim.x * N, col0 = c0 + threadIdx.x * N;
  const int warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  float *const dws = dyn_smem; /* column col at dws[col - c0] */
  if (has_w)
    for (int col = col0; col < c1; col += step)
#pragma unroll
      for (int e = 0; e < N; ++e) dws[col - c0 + e] = 0.0f;

  int parity = 0;
  for (int64_t r0 = 0; r0 < p.rows; r0 += B, parity ^= 1) {
    float rs[B], dot[B];
#pragma unroll
    for (int i = 0; i < B; ++i) {
      rs[i] = r0 + i < p.rows ? p.rstd[r0 + i] : 0.0f;
      dot[i] = 0.0f;
    }
    for (int col = col0; col < c1; col += step) {
      float wv[N];
      load_weight<N>(wv, p.w, p.w_dtype, p.offset, col, c1, al);
      V dv[B], sv[B];
#pragma unroll
      for (int i = 0; i < B; ++i) {
        if (r0 + i < p.rows) {
          load_slot(dv[i], tiny_row<T>(p.dy, row_offset(p.nd, r0 + i, p.dy_stride, p.dy_outer)), col, c1, al);
          load_slot(sv[i], tiny_row<T>(p.s, row_offset(p.nd, r0 + i, p.s_stride, p.s_outer)), col, c1, al);
        }
      }
#pragma unroll
      for (int i = 0; i < B; ++i)
        if (r0 + i < p.rows) dot[i] = slot_dot(dv[i], sv[i], wv, rs[i], p.llama, dot[i]);
    }
    /* The batch's sums: warps, then the CTA's warps in order, then the cluster's CTAs in order. */
#pragma unroll
    for (int i = 0; i < B; ++i) {
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) dot[i] += __shfl_xor_sync(0xffffffffu, dot[i], off);
    }
    if ((threadIdx.x & 31) == 0) {
#pragma unroll
      for (int i = 0; i < B; ++i) warp_part[parity][i][warp] = dot[i];
    }
    __syncthreads();
    if (threadIdx.x < B) {
      float s = 0.0f;
      for (int w = 0; w < nwarps; ++w) s += warp_part[parity][threadIdx.x][w];
      cta_part[parity][threadIdx.x] = s;
    }
    float total[B];
    if (p.cluster > 1) {
#if FN_HAS_CLUSTERS
      cg::cluster_group cl = cg::this_cluster();
      cl.sync(); /* also a CTA barrier */
#pragma unroll
      for (int i = 0; i < B; ++i) total[i] = 0.0f;
      for (int r = 0; r < p.cluster; ++r) {
        const float *peer = cl.map_shared_rank(&cta_part[parity][0], r);
#pragma unroll
        for (int i = 0; i < B; ++i) total[i] += peer[i];
      }
#else
      __trap();
#endif
    } else {
      __syncthreads();
#pragma unroll
      for (int i = 0; i < B; ++i) total[i] = cta_part[parity][i];
    }

    for (int col = col0; col < c1; col += step) {
      float wv[N], dwv[N];
      load_weight<N>(wv, p.w, p.w_dtype, p.offset, col, c1, al);
#pragma unroll
      for (int e = 0; e < N; ++e) dwv[e] = has_w ? dws[col - c0 + e] : 0.0f;
#pragma unroll
      for (int i = 0; i < B; ++i) {
        const int64_t row = r0 + i;
        if (row >= p.rows) continue;
        V dv, sv, dsv, dxv;
        load_slot(dv, tiny_row<T>(p.dy, row_offset(p.nd, row, p.dy_stride, p.dy_outer)), col, c1, al);
        load_slot(sv, tiny_row<T>(p.s, row_offset(p.nd, row, p.s_stride, p.s_outer)), col, c1, al);
        if (HAS_DS) load_slot(dsv, tiny_row<T>(p.ds, row_offset(p.nd, row, p.ds_stride, p.ds_outer)), col, c1, al);
        slot_dx(dxv, dv, sv, dsv, HAS_DS, wv, rs[i], total[i] / (float)p.n, p.llama, dwv);
        store_slot(tiny_row<T>(p.dx, row_offset(p.nd, row, p.dx_stride, p.dx_outer)), dxv, col, c1, al);
      }
      if (has_w) {
#pragma unroll
        for (int e = 0; e < N; ++e) dws[col - c0 + e] = dwv[e];
      }
    }
  }

  if (has_w) {
    for (int col = col0; col < c1; col += step)
      for (int e = 0; e < N && col + e < c1; ++e) {
        const float v = dws[col - c0 + e];
        switch (p.w_dtype) {
          case FUSEDNORM_F32: static_cast<float *>(p.dw)[col + e] = v; break;
          case FUSEDNORM_F16: static_cast<__half *>(p.dw)[col + e] = __float2half_rn(v); break;
          default: static_cast<__nv_bfloat16 *>(p.dw)[col + e] = __float2bfloat16_rn(v); break;
        }
      }
  }
  /* No CTA leaves while a peer may still read its partials. */
  if (p.cluster > 1) cluster_sync();
}

const void *bwd_tiny_kernel(fusednorm_dtype x, bool has_ds) {
  switch (x) {
    case FUSEDNORM_F32: return has_ds ? reinterpret_cast<const void *>(&rms_norm_bwd_tiny<float, true>)
                                      : reinterpret_cast<const void *>(&rms_norm_bwd_tiny<float, false>);
    case FUSEDNORM_F16: return has_ds ? reinterpret_cast<const void *>(&rms_norm_bwd_tiny<__half, true>)
                                      : reinterpret_cast<const void *>(&rms_norm_bwd_tiny<__half, false>);
    case FUSEDNORM_BF16: return has_ds ? reinterpret_cast<const void *>(&rms_norm_bwd_tiny<__nv_bfloat16, true>)
                                       : reinterpret_cast<const void *>(&rms_norm_bwd_tiny<__nv_bfloat16, false>);
  }
  return nullptr;
}

}  // namespace fn
