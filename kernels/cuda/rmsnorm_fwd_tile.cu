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
 *   rms_norm_fwd_thread<T, NC, FUSED>  rows of NC < one vector's columns: a thread owns the
 *       consecutive rows whose elements are whole vectors of the run (at the kernel, below).
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
            stg16(ro + f0 + a0 + (int64_t)k * N, sv[j].w);
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
     * loads); a team past the last row reads the staged weight instead (n floats: at least a
     * row's bytes; read-only after the first barrier, where any row of the tile may be being
     * overwritten with its y by its team) and stores nothing. */
    const int clast = min(lane + (K - 1) * lanes, n - 1);
    const bool last_in = lane + (K - 1) * lanes < n;
    with_llama(p.llama, [&](auto llama_c) {
      constexpr bool L = decltype(llama_c)::value;
      for (int i0 = 0; i0 < rows; i0 += kRowIlp * teams) {
        float v[kRowIlp][K], ss[kRowIlp];
#pragma unroll
        for (int u = 0; u < kRowIlp; ++u) {
          const int i = i0 + u * teams + team;
          const T *const row = i < rows ? tsq + i * n : reinterpret_cast<const T *>(wsm);
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
        float rs[kRowIlp]; /* two rows a team: under one range check (rstd_of_rows) */
        if constexpr (kRowIlp > 1) rstd_of_rows<kRowIlp>(ss, n, p.eps, rs);
#pragma unroll
        for (int u = 0; u < kRowIlp; ++u) {
          const int i = i0 + u * teams + team;
          if (i < rows) {
            const float rstd = kRowIlp > 1 ? rs[u] : rstd_of(ss[u], n, p.eps);
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
        stg16(y + f0 + a0 + (int64_t)k * N, w);
      }
    }
    if (tid < edges) y[f0 + eq] = tsq[eq];
    __syncthreads(); /* the next tile overwrites this one */
  }
}

/* Element e of a vector as T, and set from T (16-bit values packed two per word, element 2i in
 * the low half of word i, as Vec keeps them). */
template <typename T> __device__ __forceinline__ T get_elem(const Vec<T> &v, int e) {
  if constexpr (sizeof(T) == 4) return __uint_as_float(v.w[e]);
  else {
    const unsigned short b = (unsigned short)(v.w[e >> 1] >> ((e & 1) * 16));
    return *reinterpret_cast<const T *>(&b);
  }
}
template <typename T> __device__ __forceinline__ void set_elem(Vec<T> &v, int e, T s) {
  if constexpr (sizeof(T) == 4) v.w[e] = __float_as_uint(s);
  else {
    const uint32_t b = *reinterpret_cast<const unsigned short *>(&s);
    v.w[e >> 1] = (e & 1) ? (v.w[e >> 1] & 0xffffu) | (b << 16) : (v.w[e >> 1] & 0xffff0000u) | b;
  }
}

/* Rows narrower than a 16-byte vector (select.c fwd_thread): a thread owns G = V::N / gcd(NC, V::N)
 * consecutive rows, whose NC * G elements are NV = NC * G / V::N whole vectors of one contiguous
 * run. One vector (NC divides V::N) is read and written straight, as a copy kernel would; more
 * (NV = 3: the instances) go through the warp's own shared memory, so that every global access is
 * a warp's 512 contiguous bytes (below). No CTA barrier: the tile's round trip through shared
 * memory and its two barriers were much of the time of these problems (kernels/RESULTS.md).
 * Threads' groups start at row i0 - G + g*G where i0 (0 <= i0 < G) is the first row whose start
 * is a 16-byte boundary; the partial groups at either end, or every group where no row starts on
 * a boundary (an even width at an odd element offset), go element by element. The per-row
 * arithmetic is the tile's with one lane a row (columns summed in order): the same bits by
 * construction. */
template <typename T, int NC, bool FUSED>
__global__ void __launch_bounds__(FN_FWD_THREAD_THREADS) rms_norm_fwd_thread(const FwdParams p) {
  using V = Vec<T>;
  constexpr int VN = V::N;
  constexpr int G = VN / ((NC & -NC) < VN ? (NC & -NC) : VN); /* rows a thread owns (fn_fwd_thread_rows) */
  constexpr int E = G * NC;                      /* their elements */
  constexpr int NV = E / VN;                     /* their vectors */
  static_assert(NC < VN && E % VN == 0, "rows narrower than a vector");

  const T *const x = static_cast<const T *>(p.x);
  const T *const r = static_cast<const T *>(p.r);
  T *const ro = static_cast<T *>(p.ro);
  T *const y = static_cast<T *>(p.y);
  const int64_t rows = p.rows;

  /* The first row on a 16-byte boundary (the same in every row tensor: dense and congruent). */
  const int h0 = (int)(((16u - ((unsigned)reinterpret_cast<uintptr_t>(x) & 15u)) & 15u) / sizeof(T));
  int i0 = -1;
#pragma unroll
  for (int j = 0; j < G; ++j)
    if ((j * NC) % VN == h0) i0 = j;
  const int64_t base = i0 > 0 ? i0 - G : 0; /* group 0's first row */
  const int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t rs = base + g * G; /* this thread's first row (may be < 0) */
  const auto full_at = [&](int64_t grp) {
    const int64_t a = base + grp * G;
    return i0 >= 0 && a >= 0 && a + G <= rows;
  };
  const bool full = full_at(g);
  const int64_t e0 = rs * NC; /* its first element */
  /* NV > 1: a thread's vectors are NV apart in a warp's access, so the warp's run of 32 groups
   * goes through its own NV * 512 bytes of shared memory: read and written as vectors j * 32 +
   * lane (whole 512-byte runs an instruction, as a copy), taken by each thread as its own NV
   * (conflict-free: NV is odd). No barrier but the warp's own. */
  const int lane = (int)(threadIdx.x & 31u);
  const int64_t g0 = g - lane;
  const int64_t run0 = (base + g0 * G) * NC;
  extern __shared__ __align__(16) float dyn_smem[];
  uint32_t *const wsm = reinterpret_cast<uint32_t *>(dyn_smem) + (threadIdx.x >> 5) * (32 * NV * 4);
  if constexpr (NV == 1) {
    if (rs >= rows) return;
  }

  V sv[NV];
  if constexpr (NV > 1) {
    V xv[NV], rv[NV];
    bool ok[NV];
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      const int q = j * 32 + lane;
      ok[j] = full_at(g0 + q / NV);
      if (ok[j]) {
        ld16(xv[j].w, x + run0 + (int64_t)q * VN);
        if (FUSED) ld16(rv[j].w, r + run0 + (int64_t)q * VN);
      }
    }
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      const int q = j * 32 + lane;
      if (ok[j]) {
        if (FUSED) {
          add_residual(xv[j], rv[j]);
          stg16(ro + run0 + (int64_t)q * VN, xv[j].w);
        }
        st16(wsm + q * 4, xv[j].w);
      }
    }
    __syncwarp();
  }
  if (full) {
    if constexpr (NV > 1) {
#pragma unroll
      for (int j = 0; j < NV; ++j) ld16(sv[j].w, wsm + (lane * NV + j) * 4);
    } else {
      V rv[NV];
#pragma unroll
      for (int j = 0; j < NV; ++j) {
        ld16(sv[j].w, x + e0 + j * VN);
        if (FUSED) ld16(rv[j].w, r + e0 + j * VN);
      }
      if (FUSED) {
#pragma unroll
        for (int j = 0; j < NV; ++j) {
          add_residual(sv[j], rv[j]);
          stg16(ro + e0 + j * VN, sv[j].w);
        }
      }
    }
  } else {
    /* Element by element, the rows outside [0, rows) as zeros (computed, never stored). */
#pragma unroll
    for (int j = 0; j < NV; ++j) sv[j].w[0] = sv[j].w[1] = sv[j].w[2] = sv[j].w[3] = 0u;
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const int64_t row = rs + e / NC;
      const bool in = row >= 0 && row < rows;
      T s = in ? x[e0 + e] : from_f<T>(0.0f);
      if (FUSED && in) {
        s = from_f<T>(to_f(s) + to_f(r[e0 + e]));
        ro[e0 + e] = s;
      }
      set_elem(sv[e / VN], e % VN, s);
    }
  }

  float wv[NC];
  {
    const bool w32 = p.w_dtype == FUSEDNORM_F32, wbf16 = p.w_dtype == FUSEDNORM_BF16, has_w = p.w != nullptr;
    uint32_t wb[NC];
#pragma unroll
    for (int c = 0; c < NC; ++c) wb[c] = !has_w ? 0u : w32 ? ld_wbits<true>(p.w, c) : ld_wbits<false>(p.w, c);
#pragma unroll
    for (int c = 0; c < NC; ++c)
      wv[c] = w32 ? wbits_eff<true>(wb[c], has_w, false, p.offset) : wbits_eff<false>(wb[c], has_w, wbf16, p.offset);
  }

  float rstd[G];
  with_llama(p.llama, [&](auto llama_c) {
    constexpr bool L = decltype(llama_c)::value;
    float yf[E];
#pragma unroll
    for (int i = 0; i < G; ++i) {
      float ss = 0.0f;
#pragma unroll
      for (int c = 0; c < NC; ++c) {
        const float f = elem_f(sv[(i * NC + c) / VN], (i * NC + c) % VN);
        ss = fmaf(f, f, ss);
      }
      rstd[i] = ss;
    }
    rstd_of_rows<G>(rstd, NC, p.eps, rstd);
#pragma unroll
    for (int i = 0; i < G; ++i) {
#pragma unroll
      for (int c = 0; c < NC; ++c) {
        const float nrm = elem_f(sv[(i * NC + c) / VN], (i * NC + c) % VN) * rstd[i];
        yf[i * NC + c] = (L ? round_to<T>(nrm) : nrm) * wv[c];
      }
    }
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      float f[VN];
#pragma unroll
      for (int e = 0; e < VN; ++e) f[e] = yf[j * VN + e];
      from_floats(sv[j], f);
    }
  });

  if (full) {
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      if constexpr (NV > 1) st16(wsm + (lane * NV + j) * 4, sv[j].w);
      else stg16(y + e0 + j * VN, sv[j].w);
    }
  } else {
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const int64_t row = rs + e / NC;
      if (row >= 0 && row < rows) y[e0 + e] = get_elem<T>(sv[e / VN], e % VN);
    }
  }
  if constexpr (NV > 1) {
    __syncwarp();
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      const int q = j * 32 + lane;
      if (full_at(g0 + q / NV)) {
        uint32_t w[4];
        ld16(w, wsm + q * 4);
        stg16(y + run0 + (int64_t)q * VN, w);
      }
    }
    if (rs >= rows) return;
  }
  if (p.rstd != nullptr) {
    float *const rp = p.rstd + rs;
    bool done = false;
    if constexpr (G % 4 == 0) {
      if (full && (reinterpret_cast<uintptr_t>(rp) & 15u) == 0) {
#pragma unroll
        for (int i = 0; i < G; i += 4)
          *reinterpret_cast<float4 *>(rp + i) = make_float4(rstd[i], rstd[i + 1], rstd[i + 2], rstd[i + 3]);
        done = true;
      }
    }
    if (!done) {
#pragma unroll
      for (int i = 0; i < G; ++i)
        if (rs + i >= 0 && rs + i < rows) rp[i] = rstd[i];
    }
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

template <typename T, int NC>
static const void *fwd_thread_kernel_k(bool fused) {
  return fused ? reinterpret_cast<const void *>(&rms_norm_fwd_thread<T, NC, true>)
               : reinterpret_cast<const void *>(&rms_norm_fwd_thread<T, NC, false>);
}

template <typename T>
static const void *fwd_thread_kernel_for(int n, bool fused) {
  if constexpr (sizeof(T) == 4) {
    switch (n) {
      case 1: return fwd_thread_kernel_k<T, 1>(fused);
      case 2: return fwd_thread_kernel_k<T, 2>(fused);
      case 3: return fwd_thread_kernel_k<T, 3>(fused);
    }
  } else {
    switch (n) {
      case 1: return fwd_thread_kernel_k<T, 1>(fused);
      case 2: return fwd_thread_kernel_k<T, 2>(fused);
      case 3: return fwd_thread_kernel_k<T, 3>(fused);
      case 4: return fwd_thread_kernel_k<T, 4>(fused);
      case 6: return fwd_thread_kernel_k<T, 6>(fused);
    }
  }
  return nullptr;
}

const void *fwd_thread_kernel(fusednorm_dtype x, int n, bool fused) {
  switch (x) {
    case FUSEDNORM_F32: return fwd_thread_kernel_for<float>(n, fused);
    case FUSEDNORM_F16: return fwd_thread_kernel_for<__half>(n, fused);
    case FUSEDNORM_BF16: return fwd_thread_kernel_for<__nv_bfloat16>(n, fused);
  }
  return nullptr;
}

}  // namespace fn
