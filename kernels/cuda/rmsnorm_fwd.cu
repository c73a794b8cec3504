/*
 * rmsnorm_fwd.cu — the RMSNorm forward's row-pipelined kernel and its generic kernel (plain and
 * fused residual add); the lean one-CTA-per-row kernel is rmsnorm_fwd_row.cu. Which one runs,
 * with which launch, is the plan's decision (kernels/src/select.c; the table of families:
 * kernels/cuda/README.md).
 *
 *   rms_norm_fwd_pipe<T, S, FUSED>  the whole row in S = 1, 2, 4 register slots per thread, the
 *       next row's loads in flight while the current row is reduced and written; teams of <= 32
 *       lanes (row-packed, several rows per CTA) or one team per CTA (persistent).
 *   rms_norm_fwd_pipe_u<T, S, FUSED>  its head-split instance (S = 1, 2): congruent rows that are
 *       not whole aligned vectors, each row's interior as 16-byte vectors from the row's own head,
 *       the head and tail elements one per lane of the team (rmsnorm_unaligned.cuh's split, per
 *       team).
 *   rms_norm_fwd_lanes<T, FUSED, ND, K>  rows of at most 32 x K whole aligned 16-byte vectors: a
 *       team of p.team lanes (a power of two >= the row's vectors over K) per row, K vectors per
 *       lane (K = 2: the plain forward), FN_FWD_LANES_ROWS rows per team loaded at once, the
 *       lane's effective weights in registers; no shared memory, no barrier, one pass per CTA
 *       (the row-packed family's kernel for such rows).
 *   rms_norm_fwd<T, CACHE>  any alignment and width: CACHE slots per thread kept in registers, the
 *       rest of the row streamed (read, then re-read from L2); CACHE = 0 reads the whole row twice
 *       (one CTA per row, the reload launch). One team per CTA. With p.head_split (rows congruent
 *       modulo 16 bytes but not aligned, or n not a multiple of the vector: the plan's
 *       `unaligned`) each row's interior is read and written as 16-byte vectors from the row's own
 *       head, its head and tail one element per thread (rmsnorm_unaligned.cuh), a slot's weight
 *       read as fwd_weight says; otherwise misaligned rows go element by element.
 *
 * Contract per row (kernels/README.md): s = RN(x + r) (fused add; written to residual_out), rstd =
 * 1/sqrt(mean(s^2) + eps) in fp32 (a true division and sqrtf, both correctly rounded, instead of
 * rsqrtf's ~2 ulp), y = RN(s*rstd*(w+offset)) or, LLAMA, RN(RN_T(s*rstd)*(w+offset)).
 * Rows are visited grid-stride with 64-bit row offsets; columns are int (n < 2^31 - 2^16).
 * The generic kernel reads the weight per row through the read-only cache (n elements,
 * L1/L2-resident): holding it in registers across rows doubled the registers of the cached
 * instances and halved their occupancy, which cost more than the L1 reads (kernels/RESULTS.md).
 * No allocation, no host synchronization: graph-capturable.
 */
#include "kernels/cuda/rmsnorm_common.cuh"
#include "kernels/cuda/rmsnorm_launch.cuh"
#include "kernels/cuda/rmsnorm_unaligned.cuh"

namespace fn {

/* s of one slot: x, or for the fused add RN(x + r), which is also stored to residual_out. */
template <typename T>
__device__ __forceinline__ void load_s(Vec<T> &sv, const FwdParams &p, const T *xr, const T *rr, T *ror,
                                       int col, int lim, bool al) {
  load_slot(sv, xr, col, lim, al);
  if (p.fused) {
    Vec<T> rv;
    load_slot(rv, rr, col, lim, al);
    add_residual(sv, rv);
    store_slot(ror, sv, col, lim, al);
  }
}

/* A slot's effective weight. Head-split slots start wherever the row's head puts them: the
 * two-slot instance (AUTO's for such rows past the lean kernel's) reads them as the shifted
 * 16-byte blocks that cover them (load_weight_u); the others element by element (with the blocks,
 * ptxas spilled 8 bytes at four slots and took the reload instance from 41 to 64 registers, nvcc
 * 13.0, sm_90a). */
template <int CACHE, int N>
__device__ __forceinline__ void fwd_weight(float (&wv)[N], const FwdParams &p, int col, int c1, bool alw, bool hs) {
  if (CACHE == 2 && hs) load_weight_u<N>(wv, p.w, p.w_dtype, p.offset, col, p.n);
  else load_weight<N>(wv, p.w, p.w_dtype, p.offset, col, c1, alw);
}

/* Slots a thread loads together in the generic forward's streamed sum (pass 1), and with their
 * weight before writing their y (pass 2). */
#define FN_FWD_STREAM_BATCH 4
#define FN_FWD_STREAM_BATCH_Y 2

template <typename T, int CACHE>
__global__ void __launch_bounds__(FN_MAX_THREADS(0, CACHE))
    rms_norm_fwd(const FwdParams p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  constexpr int C = CACHE > 0 ? CACHE : 1; /* array extents must be > 0 */
  __shared__ ReduceSmem red;
  const Place pl = make_place(p.team, 1, p.n, p.n);
  const bool hs = p.head_split != 0;       /* one team per CTA whenever the plan sets it */
  const bool al = p.aligned != 0 || hs;    /* the row tensors' slots (head-split: the interior's) */
  const bool alw = p.aligned != 0;         /* the weight's */
  const int step = pl.team * N;            /* columns between one thread's consecutive slots */
  /* Streamed slots loaded together (below): the CACHE 2 instance only, AUTO's generic forward.
   * At CACHE 0 the batches took the registers from 35-41 to 56-62 (fewer CTAs an SM for narrow
   * launches), and the 16-bit CACHE 4 instance spilled (ptxas, nvcc 13.0, sm_90a). */
  constexpr int SB = CACHE == 2 ? FN_FWD_STREAM_BATCH : 1;
  constexpr int SBY = CACHE == 2 ? FN_FWD_STREAM_BATCH_Y : 1;

  int parity = 0;
  for (int64_t base = pl.unit * pl.teams; base < p.rows; base += pl.units * pl.teams, parity ^= 1) {
    const int64_t row = base + pl.team_idx;
    const bool active = row < p.rows;
    const T *xr = static_cast<const T *>(p.x) + row_offset(p.nd, row, p.x_stride, p.x_outer);
    const T *rr = static_cast<const T *>(p.r) + row_offset(p.nd, row, p.r_stride, p.r_outer);
    T *ror = static_cast<T *>(p.ro) + row_offset(p.nd, row, p.ro_stride, p.ro_outer);
    T *yr = static_cast<T *>(p.y) + row_offset(p.nd, row, p.y_stride, p.y_outer);
    /* Head-split: the slots cover the interior [h, c1), whole vectors from the row's first 16-byte
     * boundary; this thread's edge element (head or tail, if any) is ecol. */
    int col0 = pl.lane * N, c1 = pl.c1, ecol = -1;
    if (hs && active) {
      const RowSplit sp = row_split<T>(xr, p.n);
      col0 += sp.h;
      c1 = sp.h + (p.n - sp.h) / N * N;
      ecol = sp.ecol;
    }

    V cache[C];
    float ss = 0.0f, es = 0.0f; /* es: the edge element's s */
    if (active) {
      /* Pass 1: s and the sum of squares. All cached slots' loads are issued before first use. */
#pragma unroll
      for (int k = 0; k < CACHE; ++k) {
        const int col = col0 + k * step;
        if (col < c1) load_s(cache[k], p, xr, rr, ror, col, c1, al);
      }
#pragma unroll
      for (int k = 0; k < CACHE; ++k) {
        if (col0 + k * step < c1) ss = add_squares(cache[k], ss); /* columns past the end were loaded as 0 */
      }
      /* The streamed slots FN_FWD_STREAM_BATCH at a time: their loads issued together, then summed
       * in slot order (the same bits as one at a time, which left one 16-byte load a thread in
       * flight: rows past the cache ran at ~72% of the DRAM's peak, ncu, H200). Not on head-split
       * rows: there the batches measured 2-5% slower (kernels/RESULTS.md). */
      int col = col0 + CACHE * step;
      for (; !hs && col + (SB - 1) * step < c1; col += SB * step) {
        V sv[SB];
#pragma unroll
        for (int u = 0; u < SB; ++u) load_s(sv[u], p, xr, rr, ror, col + u * step, c1, al);
#pragma unroll
        for (int u = 0; u < SB; ++u) ss = add_squares(sv[u], ss);
      }
      for (; col < c1; col += step) {
        V sv;
        load_s(sv, p, xr, rr, ror, col, c1, al);
        ss = add_squares(sv, ss);
      }
      if (ecol >= 0) { /* after the slots: a fixed order per row address */
        es = edge_s(xr, rr, ror, ecol, p.fused != 0);
        ss = fmaf(es, es, ss);
      }
    }
    ss = team_sum(ss, pl.team, 1, parity, red);
    const float rstd = rstd_of(ss, p.n, p.eps);
    if (!active) continue;
    if (p.rstd != nullptr && pl.lane == 0) p.rstd[row] = rstd;

    /* Pass 2: y from the cached slots ... */
    const T *sr = p.fused ? ror : xr;
    with_llama(p.llama, [&](auto llama_c) {
      constexpr bool L = decltype(llama_c)::value;
#pragma unroll
      for (int k = 0; k < CACHE; ++k) {
        const int col = col0 + k * step;
        if (col < c1) {
          V yv;
          float wv[N];
          fwd_weight<CACHE>(wv, p, col, c1, alw, hs);
          normalize_slot<T, L>(yv, cache[k], wv, rstd);
          store_slot(yr, yv, col, c1, al);
        }
      }
      /* ... and from the streamed ones, re-read (fused add: the s this thread just stored), two
       * slots' x and weight loaded before either is written (more would pass the 64 registers of
       * the 1024-thread instance). */
      int col = col0 + CACHE * step;
      for (; !hs && col + (SBY - 1) * step < c1; col += SBY * step) {
        V sv[SBY];
        float wv[SBY][N];
#pragma unroll
        for (int u = 0; u < SBY; ++u) load_slot(sv[u], sr, col + u * step, c1, al);
#pragma unroll
        for (int u = 0; u < SBY; ++u) fwd_weight<CACHE>(wv[u], p, col + u * step, c1, alw, hs);
#pragma unroll
        for (int u = 0; u < SBY; ++u) {
          V yv;
          normalize_slot<T, L>(yv, sv[u], wv[u], rstd);
          store_slot(yr, yv, col + u * step, c1, al);
        }
      }
      for (; col < c1; col += step) {
        V sv, yv;
        float wv[N];
        load_slot(sv, sr, col, c1, al);
        fwd_weight<CACHE>(wv, p, col, c1, alw, hs);
        normalize_slot<T, L>(yv, sv, wv, rstd);
        store_slot(yr, yv, col, c1, al);
      }
      if (ecol >= 0) edge_y<T, L>(yr, ecol, es, rstd, p.w, p.w_dtype, p.offset, p.n);
    });
  }
}

/* Row-pipelined forward (the persistent and row-packed launches with the whole row in registers):
 * while a team reduces, waits at its barrier and writes row i, the loads of its next row are
 * already in flight in a second register set. The generic kernel above issues a row's loads only
 * after the previous row's stores, so per row the CTA pays the full memory latency once with
 * nothing else in flight. That latency bounded the narrow rows (row-packed bf16 1048576 x 128:
 * 2513 -> 3512 GB/s with this kernel); on large rows the instructions per row bound it as well,
 * so there it only matches the reload kernel (ncu evidence: kernels/RESULTS.md,
 * kernels/results/ncu_fwd_h200_2026-11-22.txt).
 * Two register sets are S x 16 bytes (x 2 with the residual) more per
 * thread; FUSED is a template flag so that the plain instance does not carry the residual's.
 * Same per-row arithmetic, in the same order, as rms_norm_fwd with CACHE = S. */
template <typename T, int S, bool FUSED>
__global__ void __launch_bounds__(FN_FWD_PIPE_MAX_THREADS(S, FUSED)) rms_norm_fwd_pipe(const FwdParams p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  __shared__ ReduceSmem red;
  const Place pl = make_place(p.team, 1, p.n, p.n);
  const bool al = p.aligned != 0;
  const int step = pl.team * N;
  const int col0 = pl.lane * N;
  const int64_t rstep = pl.units * pl.teams;

  /* The effective weight w + offset in fp32, staged once per CTA in dynamic shared memory
   * (fn_fwd_pipe_smem bytes): the normalize pass then reads two float4 per slot instead of
   * loading and converting the weight on every row, and the weight dtype's branch leaves the
   * row loop. Team 0 stages the columns its lanes own, which are the columns every team reads. */
  extern __shared__ float dyn_smem[];
  float *const wsm = dyn_smem;

  /* Issue the loads of `row` (nothing past the end of the matrix or the row). */
  auto fetch = [&](V (&xv)[S], V (&rv)[S], int64_t row) {
    if (row >= p.rows) return;
    const T *xr = static_cast<const T *>(p.x) + row_offset(p.nd, row, p.x_stride, p.x_outer);
    const T *rr = static_cast<const T *>(p.r) + row_offset(p.nd, row, p.r_stride, p.r_outer);
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int col = col0 + k * step;
      if (col < p.n) {
        load_slot(xv[k], xr, col, p.n, al);
        if (FUSED) load_slot(rv[k], rr, col, p.n, al);
      }
    }
  };
  /* Normalize `row` from (xv, rv); parity selects the reduction buffer. */
  auto process = [&](V (&xv)[S], V (&rv)[S], int64_t row, int parity) {
    const bool active = row < p.rows;
    T *ror = static_cast<T *>(p.ro) + row_offset(p.nd, row, p.ro_stride, p.ro_outer);
    T *yr = static_cast<T *>(p.y) + row_offset(p.nd, row, p.y_stride, p.y_outer);
    float ss = 0.0f;
    if (active) {
#pragma unroll
      for (int k = 0; k < S; ++k) {
        const int col = col0 + k * step;
        if (col < p.n) {
          if (FUSED) {
            add_residual(xv[k], rv[k]); /* s replaces x */
            store_slot(ror, xv[k], col, p.n, al);
          }
          ss = add_squares(xv[k], ss); /* columns past the end were loaded as 0 */
        }
      }
    }
    ss = team_sum(ss, pl.team, 1, parity, red);
    const float rstd = rstd_of(ss, p.n, p.eps);
    if (!active) return;
    if (p.rstd != nullptr && pl.lane == 0) p.rstd[row] = rstd;
    with_llama(p.llama, [&](auto llama_c) {
      constexpr bool L = decltype(llama_c)::value;
#pragma unroll
      for (int k = 0; k < S; ++k) {
        const int col = col0 + k * step;
        if (col < p.n) {
          V yv;
          float wv[N];
          smem_weight<N>(wv, wsm, col);
          normalize_slot<T, L>(yv, xv[k], wv, rstd);
          store_slot(yr, yv, col, p.n, al);
        }
      }
    });
  };

  /* Two register sets, used alternately (unrolled by hand so that no copy between them waits
   * for the prefetch before its first use). */
  V xa[S], ra[S], xb[S], rb[S];
  int64_t row = pl.unit * pl.teams + pl.team_idx;
  fetch(xa, ra, row);
  /* Staged after the first row's loads are issued: a CTA with one row's worth of work (small
   * problems) then waits for one memory round trip, not two. */
  if (pl.team_idx == 0) {
    for (int col = col0; col < p.n; col += step) stage_weight<N>(wsm + col, p.w, p.w_dtype, p.offset, col, p.n, al);
  }
  __syncthreads();
  for (int64_t base = pl.unit * pl.teams; base < p.rows; base += 2 * rstep, row += 2 * rstep) {
    fetch(xb, rb, row + rstep);
    process(xa, ra, row, 0);
    if (base + rstep >= p.rows) break;
    fetch(xa, ra, row + 2 * rstep);
    process(xb, rb, row + rstep, 1);
  }
}

/* The row-pipelined forward's head-split instance (plan `unaligned`, S = 1 or 2): congruent rows
 * that are not whole aligned vectors, in teams of at least 2(N - 1) lanes (select.c fwd_packed).
 * A team splits each row as rmsnorm_unaligned.cuh does for a CTA: the interior as 16-byte vectors
 * from the row's own head h (slot k of lane l: column h + (k * team + l) * N), the head element e
 * on lane e and the tail element e on lane team - 1 - e, each lane adding its edge element after
 * its slots (a fixed order per row address). The weight's columns move with h, so its fp32 value
 * is staged element-wise by the whole CTA, column c at c + c / N (an odd stride of N + 1 floats
 * between the lanes' slots: no bank conflicts on the element-wise reads). Otherwise the
 * row-pipelined kernel's structure: two register sets, the next row's loads in flight while the
 * team reduces and writes the current one. Per-element formulas are the other kernels'. */
template <typename T, int S, bool FUSED>
__global__ void __launch_bounds__(FN_FWD_PIPE_MAX_THREADS(S, FUSED)) rms_norm_fwd_pipe_u(const FwdParams p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  __shared__ ReduceSmem red;
  const Place pl = make_place(p.team, 1, p.n, p.n);
  const int n = p.n;
  const int step = pl.team * N;
  const int col0 = pl.lane * N;
  const int64_t rstep = pl.units * pl.teams;
  extern __shared__ float dyn_smem[];
  float *const wsm = dyn_smem; /* fn_fwd_pipe_u_smem bytes */
  auto at = [](int c) { return c + c / N; };

  struct Buf {
    V x[S], r[S];
    T ex, er;     /* the edge element's x and r, as loaded */
    int h, ecol;  /* the row's head, this lane's edge column (or -1) */
  };
  auto fetch = [&](Buf &b, int64_t row) {
    if (row >= p.rows) return;
    const T *xr = static_cast<const T *>(p.x) + row_offset(p.nd, row, p.x_stride, p.x_outer);
    const T *rr = static_cast<const T *>(p.r) + row_offset(p.nd, row, p.r_stride, p.r_outer);
    int h = (int)(((16u - ((unsigned)(uintptr_t)xr & 15u)) & 15u) / sizeof(T));
    if (h > n) h = n;
    const int tail0 = h + (n - h) / N * N, back = pl.team - 1 - pl.lane;
    b.h = h;
    b.ecol = pl.lane < h ? pl.lane : back < n - tail0 ? tail0 + back : -1;
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int col = h + col0 + k * step;
#pragma unroll
      for (int q = 0; q < 4; ++q) b.x[k].w[q] = b.r[k].w[q] = 0u;
      if (col + N <= n) {
        ld16(b.x[k].w, xr + col);
        if (FUSED) ld16(b.r[k].w, rr + col);
      }
    }
    /* Loaded by every lane (column 0 where it has none, unused) and converted where used: a
     * branch around these loads, or converting them here, makes the first row's loads wait before
     * the weight's staging issues its own (two memory round trips, not one). */
    const int ec = b.ecol >= 0 ? b.ecol : 0;
    b.ex = xr[ec];
    if (FUSED) b.er = rr[ec];
  };
  auto process = [&](Buf &b, int64_t row, int parity) {
    const bool active = row < p.rows;
    T *ror = static_cast<T *>(p.ro) + row_offset(p.nd, row, p.ro_stride, p.ro_outer);
    T *yr = static_cast<T *>(p.y) + row_offset(p.nd, row, p.y_stride, p.y_outer);
    float ss = 0.0f, es = 0.0f;
    if (active) {
#pragma unroll
      for (int k = 0; k < S; ++k) {
        const int col = b.h + col0 + k * step;
        if (col + N <= n) {
          if (FUSED) {
            add_residual(b.x[k], b.r[k]); /* s replaces x */
            st16(ror + col, b.x[k].w);
          }
          ss = add_squares(b.x[k], ss);
        }
      }
      if (b.ecol >= 0) { /* after the slots */
        es = to_f(b.ex);
        if (FUSED) {
          es = round_to<T>(es + to_f(b.er));
          st_elem(ror, b.ecol, es);
        }
        ss = fmaf(es, es, ss);
      }
    }
    ss = team_sum(ss, pl.team, 1, parity, red);
    const float rstd = rstd_of(ss, n, p.eps);
    if (!active) return;
    if (p.rstd != nullptr && pl.lane == 0) p.rstd[row] = rstd;
    with_llama(p.llama, [&](auto llama_c) {
      constexpr bool L = decltype(llama_c)::value;
#pragma unroll
      for (int k = 0; k < S; ++k) {
        const int col = b.h + col0 + k * step;
        if (col + N <= n) {
          V yv;
          float wv[N];
#pragma unroll
          for (int e = 0; e < N; ++e) wv[e] = wsm[at(col + e)];
          normalize_slot<T, L>(yv, b.x[k], wv, rstd);
          st16(yr + col, yv.w);
        }
      }
      if (b.ecol >= 0) st_elem(yr, b.ecol, normalize_elem<T, L>(es, wsm[at(b.ecol)], rstd));
    });
  };

  Buf ba, bb;
  int64_t row = pl.unit * pl.teams + pl.team_idx;
  fetch(ba, row);
  /* Staged after the first row's loads are issued (as in rms_norm_fwd_pipe). */
  stage_weight_elems<2>(p.w, p.w_dtype, p.offset, n, [&](int c, float v) { wsm[at(c)] = v; });
  __syncthreads();
  for (int64_t base = pl.unit * pl.teams; base < p.rows; base += 2 * rstep, row += 2 * rstep) {
    fetch(bb, row + rstep);
    process(ba, row, 0);
    if (base + rstep >= p.rows) break;
    fetch(ba, row + 2 * rstep);
    process(bb, row + rstep, 1);
  }
}

/* Rows of at most 32 whole aligned vectors, K = 1 (select.c fwd_lanes), or of 33-64 at K = 2
 * vectors a lane (the plain forward only). Against the row-pipelined kernel on such rows it drops
 * the weight's staging and barrier, the per-row alignment and bounds branches and the run-time team
 * loop, and puts all FN_FWD_LANES_ROWS rows' loads of a team in flight before any is reduced, on a
 * grid of one pass (more CTAs in flight than a persistent grid of register-limited residency;
 * kernels/RESULTS.md). A team's rows are `teams` apart, so a warp's loads of one step cover
 * consecutive rows. Per-row arithmetic and sum order are the row-pipelined kernel's with S = K and
 * the same team (lane l's vectors l, l + team, ... each in element order, then the team's xor
 * tree; the unrolled tree's steps beyond the team are not added), so which of the two kernels
 * takes a row does not change its result. ND as rms_norm_bwd_pipe's (rmsnorm_bwd.cu); the
 * single-stride instances are bounded at FN_FWD_LANES_MIN_CTAS CTAs an SM. */
template <typename T, bool FUSED, bool ND, int K>
__global__ void __launch_bounds__(FN_FWD_LANES_THREADS, FN_FWD_LANES_MIN_CTAS(ND, K))
    rms_norm_fwd_lanes(const FwdParams p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  constexpr int R = FN_FWD_LANES_ROWS;
  static_assert(K == 1 || (K == 2 && !FUSED), "two vectors a lane: the plain forward's instances");
  const int lanes = p.team;
  const int lg = __ffs(lanes) - 1; /* lanes is a power of two */
  const int team = (int)threadIdx.x >> lg, lane = (int)threadIdx.x & (lanes - 1);
  const int teams = (int)blockDim.x >> lg;
  int col[K];
  bool has[K]; /* lanes past the row's vectors hold zeros and store nothing */
#pragma unroll
  for (int k = 0; k < K; ++k) {
    col[k] = (lane + k * lanes) * N;
    has[k] = col[k] < p.n;
  }
  const int64_t step = (int64_t)teams * R;
  for (int64_t base = (int64_t)blockIdx.x * step; base < p.rows; base += (int64_t)gridDim.x * step) {
    V sv[R][K], rv[R][K];
    /* Every load before any store: a store could alias a later row's input for all the compiler
     * knows, which would keep that row's loads behind it. */
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int64_t row = base + (int64_t)r * teams + team;
#pragma unroll
      for (int k = 0; k < K; ++k) {
#pragma unroll
        for (int q = 0; q < 4; ++q) sv[r][k].w[q] = rv[r][k].w[q] = 0u;
        if (has[k] && row < p.rows) {
          ld16(sv[r][k].w, static_cast<const T *>(p.x) + row_offset_nd<ND>(p.nd, row, p.x_stride, p.x_outer) + col[k]);
          if (FUSED)
            ld16(rv[r][k].w, static_cast<const T *>(p.r) + row_offset_nd<ND>(p.nd, row, p.r_stride, p.r_outer) + col[k]);
        }
      }
    }
    /* The weight after the rows' loads are issued, in each step (the grid is one pass): converted
     * before them, it would make a CTA wait two memory round trips instead of one. */
    float wv[K][N];
#pragma unroll
    for (int k = 0; k < K; ++k) load_weight<N>(wv[k], p.w, p.w_dtype, p.offset, has[k] ? col[k] : 0, p.n, true);
    if (FUSED) {
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const int64_t row = base + (int64_t)r * teams + team;
#pragma unroll
        for (int k = 0; k < K; ++k) {
          add_residual(sv[r][k], rv[r][k]); /* s replaces x (zeros stay zeros) */
          if (has[k] && row < p.rows)
            st16(static_cast<T *>(p.ro) + row_offset_nd<ND>(p.nd, row, p.ro_stride, p.ro_outer) + col[k], sv[r][k].w);
        }
      }
    }
    float ss[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      ss[r] = 0.0f;
#pragma unroll
      for (int k = 0; k < K; ++k) ss[r] = add_squares(sv[r][k], ss[r]);
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const float o = __shfl_xor_sync(0xffffffffu, ss[r], off);
        if (off < lanes) ss[r] += o;
      }
    }
    float rs[R];
    rstd_of_rows<R>(ss, p.n, p.eps, rs);
    with_llama(p.llama, [&](auto llama_c) {
      constexpr bool L = decltype(llama_c)::value;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const int64_t row = base + (int64_t)r * teams + team;
        if (row >= p.rows) continue;
        const float rstd = rs[r];
        if (p.rstd != nullptr && lane == 0) p.rstd[row] = rstd;
#pragma unroll
        for (int k = 0; k < K; ++k) {
          if (!has[k]) continue;
          V yv;
          normalize_slot<T, L>(yv, sv[r][k], wv[k], rstd);
          st16(static_cast<T *>(p.y) + row_offset_nd<ND>(p.nd, row, p.y_stride, p.y_outer) + col[k], yv.w);
        }
      }
    });
  }
}

/* The instance of `kernel` for cache size S, plain or fused. */
#define FN_PIPE_CASE(kernel, S)                                                  \
  case S:                                                                        \
    return fused ? reinterpret_cast<const void *>(&kernel<T, S, true>)           \
                 : reinterpret_cast<const void *>(&kernel<T, S, false>);

template <typename T>
static const void *fwd_pipe_kernel_for(int cache, bool fused) {
  switch (cache) {
    FN_PIPE_CASE(rms_norm_fwd_pipe, 1)
    FN_PIPE_CASE(rms_norm_fwd_pipe, 2)
    FN_PIPE_CASE(rms_norm_fwd_pipe, 4)
  }
  return nullptr;
}

template <typename T>
static const void *fwd_pipe_u_kernel_for(int cache, bool fused) {
  switch (cache) {
    FN_PIPE_CASE(rms_norm_fwd_pipe_u, 1)
    FN_PIPE_CASE(rms_norm_fwd_pipe_u, 2)
  }
  return nullptr;
}
#undef FN_PIPE_CASE

const void *fwd_pipe_kernel(fusednorm_dtype x, int cache, bool fused, bool unaligned) {
  switch (x) {
    case FUSEDNORM_F32: return unaligned ? fwd_pipe_u_kernel_for<float>(cache, fused) : fwd_pipe_kernel_for<float>(cache, fused);
    case FUSEDNORM_F16:
      return unaligned ? fwd_pipe_u_kernel_for<__half>(cache, fused) : fwd_pipe_kernel_for<__half>(cache, fused);
    case FUSEDNORM_BF16:
      return unaligned ? fwd_pipe_u_kernel_for<__nv_bfloat16>(cache, fused)
                       : fwd_pipe_kernel_for<__nv_bfloat16>(cache, fused);
  }
  return nullptr;
}

template <typename T, bool ND> static const void *fwd_lanes_kernel_for(int k, bool fused) {
  if (k == 2) return fused ? nullptr : reinterpret_cast<const void *>(&rms_norm_fwd_lanes<T, false, ND, 2>);
  if (k != 1) return nullptr;
  return fused ? reinterpret_cast<const void *>(&rms_norm_fwd_lanes<T, true, ND, 1>)
               : reinterpret_cast<const void *>(&rms_norm_fwd_lanes<T, false, ND, 1>);
}

template <typename T> static const void *fwd_lanes_kernel_nd(int k, bool fused, bool nd) {
  return nd ? fwd_lanes_kernel_for<T, true>(k, fused) : fwd_lanes_kernel_for<T, false>(k, fused);
}

const void *fwd_lanes_kernel(fusednorm_dtype x, int k, bool fused, bool nd) {
  switch (x) {
    case FUSEDNORM_F32: return fwd_lanes_kernel_nd<float>(k, fused, nd);
    case FUSEDNORM_F16: return fwd_lanes_kernel_nd<__half>(k, fused, nd);
    case FUSEDNORM_BF16: return fwd_lanes_kernel_nd<__nv_bfloat16>(k, fused, nd);
  }
  return nullptr;
}

/* FN_FWD_GENERIC_CACHES (launch_config.h). */
template <typename T>
static const void *fwd_kernel_for(int cache) {
  switch (cache) {
    case 0: return reinterpret_cast<const void *>(&rms_norm_fwd<T, 0>);
    case 2: return reinterpret_cast<const void *>(&rms_norm_fwd<T, 2>);
    case 4: return reinterpret_cast<const void *>(&rms_norm_fwd<T, 4>);
  }
  return nullptr;
}

const void *fwd_kernel(fusednorm_dtype x, int cache) {
  switch (x) {
    case FUSEDNORM_F32: return fwd_kernel_for<float>(cache);
    case FUSEDNORM_F16: return fwd_kernel_for<__half>(cache);
    case FUSEDNORM_BF16: return fwd_kernel_for<__nv_bfloat16>(cache);
  }
  return nullptr;
}

}  // namespace fn
