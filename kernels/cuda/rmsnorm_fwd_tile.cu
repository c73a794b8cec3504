/*
 * rmsnorm_fwd_tile.cu — the flat-tile forward for narrow rows stored back to back.
 *
 *   rms_norm_fwd_tile<T, K, FUSED>  a CTA takes a tile of whole consecutive rows, which for dense
 *       row tensors (fusednorm_layout.dense: row i at element i*n) is one contiguous run of
 *       memory. The run is read into shared memory as 16-byte vectors from the first 16-byte
 *       boundary in it (FN_FWD_TILE_SLOTS per thread), its head and tail (fewer than a vector
 *       each) one element per thread, whatever n and the rows' alignment. Then a team of
 *       p.team lanes per row (launch_config.h fn_fwd_tile_lanes) holds the row's s in K
 *       registers per lane, sums, and writes y over s in the tile; the tile goes out as vectors
 *       the same way it came in.
 *
 * Why: for rows of a few to a few hundred bytes that are not whole 16-byte vectors, every
 * row-based kernel reads element by element (a row's start is not a vector boundary), and for
 * rows narrower than a vector its lanes idle; the memory system then sees 2-4-byte requests, and
 * the narrow forwards ran at a third to half of the best peer (tools/bench/RESULTS.md). Here
 * every global access of the interior is a full 16-byte vector of a contiguous run, like a copy,
 * and a lane's columns are the same in every row.
 *
 * Contract per row (kernels/README.md): s = RN(x + r) (fused add, written to residual_out), rstd
 * = 1/sqrt(mean(s^2) + eps) in fp32 with a true division and sqrtf, y = RN(s*rstd*(w+offset)) or,
 * LLAMA, RN(RN_T(s*rstd)*(w+offset)); the sum of squares in a fixed order (lane c of a row's team
 * sums columns c, c + lanes, ... in order, then the team's xor tree). No allocation, no host
 * synchronization: graph-capturable.
 */
#include "kernels/cuda/rmsnorm_common.cuh"
#include "kernels/cuda/rmsnorm_launch.cuh"
#include "kernels/cuda/rmsnorm_unaligned.cuh"

namespace fn {

template <typename T, int K, bool FUSED>
__global__ void __launch_bounds__(FN_FWD_TILE_THREADS, FN_FWD_TILE_MIN_CTAS) rms_norm_fwd_tile(const FwdParams p) {
  using V = Vec<T>;
  /* Rows whose sums a team carries side by side where a row is a few columns per lane (a row's
   * loads, shuffles and rstd are a long dependent chain; with more columns the registers run out). */
  constexpr int kRowIlp = K <= 2 ? 2 : 1;
  constexpr int N = V::N;
  const int n = p.n;
  const int R = p.tile_rows;
  const int nt = blockDim.x, tid = threadIdx.x;
  const int lanes = p.team;
  const int team = tid / lanes, lane = tid - team * lanes, teams = nt / lanes;

  /* The tile, with the interior's first vector at element N (16-byte aligned); then the weight. */
  extern __shared__ __align__(16) float dyn_smem[];
  T *const ts = reinterpret_cast<T *>(dyn_smem);

  const T *const x = static_cast<const T *>(p.x);
  const T *const r = static_cast<const T *>(p.r);
  T *const ro = static_cast<T *>(p.ro);
  T *const y = static_cast<T *>(p.y);
  /* Elements from x's base to its first 16-byte boundary; the same in every row tensor (the
   * layout is congruent). */
  const int h0 = (int)(((16u - ((unsigned)reinterpret_cast<uintptr_t>(x) & 15u)) & 15u) / sizeof(T));

  /* The effective weight in fp32, after the tile (registers ran out with a lane's weights kept in
   * them: ptxas spilled from 5 columns per lane on). Staged with the first tile: column tid's
   * bits loaded right after the tile's loads are issued and stored after them (converted before
   * the tile, the weight would cost a CTA a memory round trip of its own); columns past the CTA's
   * threads (n > nt, forced plans only) after that. */
  float *const wsm = reinterpret_cast<float *>(ts + ((R * n + N - 1) / N + 2) * N); /* fn_fwd_tile_smem */
  const bool w32 = p.w_dtype == FUSEDNORM_F32, wbf16 = p.w_dtype == FUSEDNORM_BF16, has_w = p.w != nullptr;
  bool staged = false;

  for (int64_t r0 = (int64_t)blockIdx.x * R; r0 < p.rows; r0 += (int64_t)gridDim.x * R) {
    const int rows = (int)min((int64_t)R, p.rows - r0);
    const int64_t f0 = r0 * n; /* the tile's first element */
    const int len = rows * n;
    /* The interior: whole vectors from a0 (the first boundary at or after f0) to a1; the head
     * [0, min(a0, len)) and the tail [a1, len) go element by element. */
    const int a0 = (int)(((int64_t)h0 - f0 % N + N) % N);
    const int head = min(a0, len);
    const int nv = (len - head) / N;
    const int a1 = head + nv * N;
    const int edges = head + (len - a1);
    const int eq = tid < head ? tid : a1 + (tid - head); /* this thread's edge element (edges < 2N <= nt) */
    T *const tsq = ts + (N - a0);                         /* tsq[q]: element q of the tile */
    uint32_t wb; /* the bits of weight column tid */

    {
      V sv[FN_FWD_TILE_SLOTS], rv[FN_FWD_TILE_SLOTS];
#pragma unroll
      for (int j = 0; j < FN_FWD_TILE_SLOTS; ++j) {
        const int k = tid + j * nt;
        if (k < nv) {
          ld16(sv[j].w, x + f0 + a0 + (int64_t)k * N);
          if (FUSED) ld16(rv[j].w, r + f0 + a0 + (int64_t)k * N);
        }
      }
      /* (without a weight, the bits of x's first element, ignored: no branch around the load) */
      const int wc = has_w ? min(tid, n - 1) : 0;
      wb = has_w && w32 ? ld_wbits<true>(p.w, wc) : ld_wbits<false>(has_w ? p.w : p.x, wc);
#pragma unroll
      for (int j = 0; j < FN_FWD_TILE_SLOTS; ++j) {
        const int k = tid + j * nt;
        if (k < nv) {
          if (FUSED) {
            add_residual(sv[j], rv[j]);
            st16(ro + f0 + a0 + (int64_t)k * N, sv[j].w);
          }
          st16(tsq + a0 + k * N, sv[j].w);
        }
      }
    }
    if (tid < edges) {
      T s = x[f0 + eq];
      if (FUSED) {
        s = from_f<T>(to_f(s) + to_f(r[f0 + eq]));
        ro[f0 + eq] = s;
      }
      tsq[eq] = s;
    }
    /* The weight's bits are loaded with every tile (an L1 hit after the first): loaded once ahead
     * of the loop, or behind a branch, the compiler waits for them before the tile's loads go
     * out. They are converted and stored with the first tile only. */
    if (!staged) {
      if (tid < n) wsm[tid] = w32 ? wbits_eff<true>(wb, has_w, false, p.offset) : wbits_eff<false>(wb, has_w, wbf16, p.offset);
      for (int c = tid + nt; c < n; c += nt) {
        float w1[1];
        load_weight<1>(w1, p.w, p.w_dtype, p.offset, c, n, false);
        wsm[c] = w1[0];
      }
      staged = true;
    }
    __syncthreads();

    /* Rows: team `team` takes rows team, team + teams, ..., kRowIlp at a time (the loop is
     * uniform over the CTA: the team's shuffles need every lane of the warp); y replaces s. A
     * lane's columns lane + k * lanes are in the row for k < K - 1 (K = ceil(n / lanes)), so
     * only the last one is checked, and it is read from a clamped column (no branch before the
     * loads); a team past the last row reads row 0 and stores nothing. */
    const int clast = min(lane + (K - 1) * lanes, n - 1);
    const bool last_in = lane + (K - 1) * lanes < n;
    with_llama(p.llama, [&](auto llama_c) {
      constexpr bool L = decltype(llama_c)::value;
      for (int i0 = 0; i0 < rows; i0 += kRowIlp * teams) {
        float v[kRowIlp][K], ss[kRowIlp];
#pragma unroll
        for (int u = 0; u < kRowIlp; ++u) {
          const int i = i0 + u * teams + team;
          const T *const row = tsq + (i < rows ? i : 0) * n;
          ss[u] = 0.0f;
#pragma unroll
          for (int k = 0; k < K; ++k) {
            const float f = to_f(row[k < K - 1 ? lane + k * lanes : clast]);
            v[u][k] = k < K - 1 || last_in ? f : 0.0f;
            ss[u] = fmaf(v[u][k], v[u][k], ss[u]);
          }
        }
        for (int off = lanes >> 1; off > 0; off >>= 1) {
#pragma unroll
          for (int u = 0; u < kRowIlp; ++u) ss[u] += __shfl_xor_sync(0xffffffffu, ss[u], off);
        }
#pragma unroll
        for (int u = 0; u < kRowIlp; ++u) {
          const int i = i0 + u * teams + team;
          if (i < rows) {
            const float rstd = rstd_of(ss[u], n, p.eps);
            if (p.rstd != nullptr && lane == 0) p.rstd[r0 + i] = rstd;
            T *const row = tsq + i * n;
#pragma unroll
            for (int k = 0; k < K; ++k) {
              const int c = k < K - 1 ? lane + k * lanes : clast;
              const float nrm = v[u][k] * rstd;
              if (k < K - 1 || last_in) row[c] = from_f<T>((L ? round_to<T>(nrm) : nrm) * wsm[c]);
            }
          }
        }
      }
    });
    __syncthreads();

#pragma unroll
    for (int j = 0; j < FN_FWD_TILE_SLOTS; ++j) {
      const int k = tid + j * nt;
      if (k < nv) {
        uint32_t w[4];
        ld16(w, tsq + a0 + k * N);
        st16(y + f0 + a0 + (int64_t)k * N, w);
      }
    }
    if (tid < edges) y[f0 + eq] = tsq[eq];
    __syncthreads(); /* the next tile overwrites this one */
  }
}

template <typename T, int K>
static const void *fwd_tile_kernel_k(bool fused) {
  return fused ? reinterpret_cast<const void *>(&rms_norm_fwd_tile<T, K, true>)
               : reinterpret_cast<const void *>(&rms_norm_fwd_tile<T, K, false>);
}

template <typename T>
static const void *fwd_tile_kernel_for(int cols, bool fused) {
  switch (cols) {
    case 1: return fwd_tile_kernel_k<T, 1>(fused);
    case 2: return fwd_tile_kernel_k<T, 2>(fused);
    case 3: return fwd_tile_kernel_k<T, 3>(fused);
    case 4: return fwd_tile_kernel_k<T, 4>(fused);
    case 5: return fwd_tile_kernel_k<T, 5>(fused);
    case 6: return fwd_tile_kernel_k<T, 6>(fused);
    case 7: return fwd_tile_kernel_k<T, 7>(fused);
    case 8: return fwd_tile_kernel_k<T, 8>(fused);
  }
  return nullptr;
}

const void *fwd_tile_kernel(fusednorm_dtype x, int cols, bool fused) {
  switch (x) {
    case FUSEDNORM_F32: return fwd_tile_kernel_for<float>(cols, fused);
    case FUSEDNORM_F16: return fwd_tile_kernel_for<__half>(cols, fused);
    case FUSEDNORM_BF16: return fwd_tile_kernel_for<__nv_bfloat16>(cols, fused);
  }
  return nullptr;
}

}  // namespace fn
