/*
 * rmsnorm_bwd_row.cu — the lean persistent backward: one row per CTA at a time, grid-stride over
 * rows, the whole row in S <= 4 register slots per thread, for 16-byte aligned rows with n a
 * multiple of the vector width and a weight (select.c bwd_persistent decides). S = 8 (at most 512
 * threads, one CTA an SM: FN_BWD_ROW_THREADS) for rows of 2049-4096 slots (select.c bwd_row8),
 * which otherwise read the columns beyond the generic kernel's registers twice. At S = 8, for
 * 16-bit rows and the fused add, a thread's running dw lives in shared memory beside the staged
 * weight instead of in registers (kDwSmem, FN_BWD_ROW8_DW_SMEM: there the held rows fill the
 * registers). A thread reads and writes only its own columns' dw there, so no barrier guards it,
 * and each column is the same fmaf chain over the CTA's rows as in registers: the same bits.
 * NARROW64 (S = 1, 16-bit rows, CTAs of 64 threads; the plan's `narrow`) is the same code bounded
 * to FN_BWD_ROW_NARROW_MIN_CTAS CTAs an SM, where the general one-slot instance's 1024-thread bound
 * leaves it 64 registers and 16 CTAs: the same bits at fewer registers.
 *
 * Same arithmetic in the same order as bwd_body in rmsnorm_bwd.cu with CACHE = S, one team per
 * CTA and the weight staged in shared memory (slot_dot / slot_dx of rmsnorm_bwd_slot.cuh; the
 * team sum's order): dx and the partial dw rows are bitwise those of the generic kernel. What it
 * drops is the generic kernel's element-wise fallback for misaligned rows and partial slots, its
 * streamed columns and cluster code; and it loads ds together with dy and s, before the row's
 * reduction, instead of after its barrier (H200 2026-11-22 05:11 UTC, bench_modes, fused add
 * bf16 32768 x 4096: 3990 vs 3276 GB/s with ds loaded after the barrier; kernels/RESULTS.md).
 */
#include "kernels/cuda/rmsnorm_bwd_slot.cuh"
#include "kernels/cuda/rmsnorm_common.cuh"
#include "kernels/cuda/rmsnorm_launch.cuh"
#include "kernels/cuda/rmsnorm_unaligned.cuh"

namespace fn {

/* The body of rms_norm_bwd_row (U false) and of rms_norm_bwd_row_hs (U true: rows of one stride,
 * congruent, not aligned; see there). */
template <typename T, int S, bool HAS_DS, bool W16, bool NARROW64, bool U>
__device__ __forceinline__ void bwd_row_body(const BwdParams &p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  static_assert(!W16 || (S == 8 && N == 8), "the raw 16-bit stage is the 8-slot 16-bit instance's");
  static_assert(!NARROW64 || (S == 1 && N == 8 && !W16), "the 64-thread instance is the one-slot 16-bit one's");
  static_assert(!U || (S <= 4 && !W16 && !NARROW64), "the head-split body is the S <= 4 instances'");
  /* The row's weight: its fp32 effective values (n floats), or with W16 its raw 16 bits (n
   * halves); then with kDwSmem the CTA's dw (n floats): fn_bwd_row8_smem. */
  constexpr bool kDwSmem = S == 8 && FN_BWD_ROW8_DW_SMEM((int)sizeof(T), HAS_DS);
  extern __shared__ float dyn_smem[];
  float *const wsm = dyn_smem;
  uint16_t *const wsm16 = reinterpret_cast<uint16_t *>(dyn_smem);
  float *const dwsm = dyn_smem + (W16 ? p.n / 2 : p.n); /* (16-byte aligned: n % N == 0, N = 8 with W16) */
  /* A slot's effective weight from the stage; with W16 load_weight's conversion and offset add on
   * the raw bits, so the same bits as the fp32 stage would hold. */
  auto weight_of = [&](float (&wv)[N], int col) {
    if constexpr (W16) {
      uint16_t raw[N];
      *reinterpret_cast<uint4 *>(raw) = *reinterpret_cast<const uint4 *>(wsm16 + col);
      if (p.w_dtype == FUSEDNORM_BF16) {
#pragma unroll
        for (int e = 0; e < N; ++e) wv[e] = __uint_as_float((uint32_t)raw[e] << 16) + p.offset;
      } else {
#pragma unroll
        for (int e = 0; e < N; ++e) wv[e] = __half2float(__ushort_as_half(raw[e])) + p.offset;
      }
    } else {
      smem_weight<N>(wv, wsm, col);
    }
  };
  __shared__ PaddedRed red;
  const int step = blockDim.x * N, col0 = threadIdx.x * N;
  red.zero();
  V cdy[S], cs[S], cds[S];
  float rs = 0.0f;
  /* U: the CTA's rows all start `h` elements before a 16-byte boundary (the row order below), so
   * slot k of a thread covers columns h + col0 + k*step + [0, N) on every row, and its weight and
   * dw stay where the aligned kernel keeps them (the stage at col0 + k*step, dw in registers). The
   * row's head and tail (`ecol`: this thread's element of them, if any) go element by element. */
  int h = 0, ecol = -1;
  T edy{}, es{}, eds{};
  float ew = 0.0f, edw = 0.0f;
  /* Rows in grid-stride order; U: the rows congruent to this CTA's first (blockIdx.x) modulo the
   * period P of the row addresses modulo 16 bytes, in order: the CTAs of class c = blockIdx.x % P
   * (Gc of them) take rows c + P * (blockIdx.x / P + Gc * i). Every row is taken once where the
   * grid has at least P CTAs or covers the rows (the launcher's rule). */
  int64_t rstep = gridDim.x;
  auto row_ptr = [&](const void *base, int64_t row, int64_t stride, const int64_t(&outer)[3]) {
    return static_cast<const T *>(base) + (U ? row * stride : row_offset(p.nd, row, stride, outer));
  };
  if constexpr (U) {
    const int period = row_period<T>(p.dy_stride);
    const int cls = (int)blockIdx.x % period;
    rstep = (int64_t)period * (((int)gridDim.x - cls + period - 1) / period);
    const RowSplit sp = row_split<T>(row_ptr(p.dy, blockIdx.x, p.dy_stride, p.dy_outer), p.n);
    h = sp.h;
    ecol = sp.ecol;
  }
  auto fetch = [&](int64_t row) {
    const T *dyr = row_ptr(p.dy, row, p.dy_stride, p.dy_outer);
    const T *sr = row_ptr(p.s, row, p.s_stride, p.s_outer);
    const T *dsr = row_ptr(p.ds, row, p.ds_stride, p.ds_outer);
    if (!U) rs = p.rstd[row];
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int col = h + col0 + k * step;
      if (U ? col + N <= p.n : col < p.n) {
        ld16(cdy[k].w, dyr + col);
        ld16(cs[k].w, sr + col);
        if (HAS_DS) ld16(cds[k].w, dsr + col);
      }
    }
    if constexpr (U) {
      /* loaded whether or not the thread has an edge element (column 0 then, unused), and
       * converted where used: a branch around these loads would wait for the row's */
      const int ec = ecol >= 0 ? ecol : 0;
      edy = dyr[ec];
      es = sr[ec];
      if (HAS_DS) eds = dsr[ec];
    }
  };
  /* The first row's loads go out before the weight is staged, so that a CTA with one or two rows
   * (small problems, where the kernel's latency is its time) waits for one memory round trip, not
   * two; later rows are loaded right after the previous row's stores. U loads rstd after the
   * staging (rms_norm_bwd_row_u's reason). */
  int64_t row = blockIdx.x;
  if (row < p.rows) fetch(row);
  if constexpr (U) {
    /* the edge element's effective weight (its raw bits, as stage_weight_elems converts them) */
    if (ecol >= 0) {
      const bool w32 = p.w_dtype == FUSEDNORM_F32;
      const uint32_t b = w32 ? ld_wbits<true>(p.w, ecol) : ld_wbits<false>(p.w, ecol);
      ew = w32 ? wbits_eff<true>(b, true, false, p.offset)
               : wbits_eff<false>(b, true, p.w_dtype == FUSEDNORM_BF16, p.offset);
    }
  }
  /* Each thread stages and later reads only its own columns of the weight. */
#pragma unroll
  for (int k = 0; k < S; ++k) {
    const int col = col0 + k * step;
    if (U ? h + col + N <= p.n : col < p.n) {
      if constexpr (U) {
        float wv[N];
        load_weight_u<N>(wv, p.w, p.w_dtype, p.offset, h + col, p.n);
        store_floats<N>(wsm + col, wv);
      } else if constexpr (W16)
        *reinterpret_cast<uint4 *>(wsm16 + col) = __ldg(reinterpret_cast<const uint4 *>(static_cast<const uint16_t *>(p.w) + col));
      else
        stage_weight<N>(wsm + col, p.w, p.w_dtype, p.offset, col, p.n, true);
      if (kDwSmem) {
        float z[N];
#pragma unroll
        for (int e = 0; e < N; ++e) z[e] = 0.0f;
        store_floats<N>(dwsm + col, z);
      }
    }
  }
  if (U && row < p.rows) rs = p.rstd[row];
  __syncthreads();

  float dwc[kDwSmem ? 1 : S][N]; /* (unused with kDwSmem; indexed [kDwSmem ? 0 : k] below, so the
                                    discarded side of each if stays in bounds) */
#pragma unroll
  for (int k = 0; k < (kDwSmem ? 1 : S); ++k)
#pragma unroll
    for (int e = 0; e < N; ++e) dwc[k][e] = 0.0f;

  for (int parity = 0; row < p.rows; parity ^= 1) {
    T *dxr = const_cast<T *>(row_ptr(p.dx, row, p.dx_stride, p.dx_outer));
    float dot = 0.0f;
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int col = col0 + k * step;
      if (U ? h + col + N <= p.n : col < p.n) {
        float wv[N];
        weight_of(wv, col);
        dot = slot_dot(cdy[k], cs[k], wv, rs, p.llama, dot);
      }
    }
    if (U && ecol >= 0) dot = elem_dot(to_f(edy), to_f(es), ew, rs, dot);
    const float mean_gn = red.sum(dot, parity) / (float)p.n;
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int col = col0 + k * step;
      if (U ? h + col + N <= p.n : col < p.n) {
        float wv[N];
        weight_of(wv, col);
        V dxv;
        if (kDwSmem) {
          float dw[N];
          load_floats<N>(dw, dwsm + col);
          slot_dx(dxv, cdy[k], cs[k], cds[k], HAS_DS, wv, rs, mean_gn, p.llama, dw);
          store_floats<N>(dwsm + col, dw);
        } else {
          slot_dx(dxv, cdy[k], cs[k], cds[k], HAS_DS, wv, rs, mean_gn, p.llama, dwc[kDwSmem ? 0 : k]);
        }
        st16(dxr + h + col, dxv.w);
      }
    }
    if (U && ecol >= 0)
      st_elem(dxr, ecol,
              elem_dx<T>(to_f(edy), to_f(es), HAS_DS ? to_f(eds) : 0.0f, HAS_DS, ew, rs, mean_gn, p.llama, edw));
    row += rstep;
    if (row < p.rows) {
      fetch(row);
      if (U) rs = p.rstd[row];
    }
  }
  /* This CTA's partial dw row (16-byte aligned: the workspace is, and n % N == 0); a grid of
   * this one CTA summing dw in the kernel writes dw itself (partial_out). U: its columns h + col
   * are not 16-byte aligned, and a thread's scattered 4-byte stores (lanes 32 bytes apart, one
   * sector each) cost a CTA of a few rows more than its rows; the row goes through shared memory
   * (the second array of fn_u_bwd_smem, padded as in rms_norm_bwd_row_u: column c at c + c/N, so
   * that lanes N columns apart fall on distinct banks) and out in column order. */
  float *const dwu = dyn_smem + (p.n + N - 1) / N * (N + 1);
  auto u_at = [](int c) { return c + c / N; };
  float *const wsrow = p.ws + (int64_t)blockIdx.x * p.n;
  const bool direct = p.dw != nullptr && gridDim.x == 1;
#pragma unroll
  for (int k = 0; k < S; ++k) {
    const int col = col0 + k * step;
    if (U ? h + col + N > p.n : col >= p.n) continue;
    float dv[N];
    if (kDwSmem) {
      load_floats<N>(dv, dwsm + col); /* (this thread's own columns: no barrier) */
    } else {
#pragma unroll
      for (int e = 0; e < N; ++e) dv[e] = dwc[kDwSmem ? 0 : k][e];
    }
    if constexpr (U) {
#pragma unroll
      for (int e = 0; e < N; ++e) dwu[u_at(h + col + e)] = dv[e];
    } else if (direct) {
#pragma unroll
      for (int e = 0; e < N; ++e) partial_out(wsrow, p.dw, p.w_dtype, col + e, dv[e]);
    } else {
      store_floats<N>(wsrow + col, dv);
    }
  }
  if constexpr (U) {
    if (ecol >= 0) dwu[u_at(ecol)] = edw;
    __syncthreads();
    for (int c = threadIdx.x; c < p.n; c += blockDim.x) partial_out(wsrow, p.dw, p.w_dtype, c, dwu[u_at(c)]);
  }
  if (p.dw != nullptr) dw_reduce_in_kernel(p.ws, (int)gridDim.x, p.n, p.dw, p.w_dtype);
}

template <typename T, int S, bool HAS_DS, bool W16 = false, bool NARROW64 = false>
__global__ void __launch_bounds__(NARROW64 ? 64 : FN_BWD_ROW_THREADS(S), NARROW64 ? FN_BWD_ROW_NARROW_MIN_CTAS : 0)
    rms_norm_bwd_row(const BwdParams p) {
  bwd_row_body<T, S, HAS_DS, W16, NARROW64, false>(p);
}

/* The head-split instance for rows of one stride (nd.dims 1; rmsnorm_unaligned.cuh): congruent
 * rows that are not 16-byte aligned, or n not a multiple of the vector. A row's head h (its
 * elements before the first 16-byte boundary) is fixed by its address modulo 16, which repeats
 * every P rows (P = 16 / gcd(16, the row stride in bytes): 8 for 16-bit rows of an odd stride).
 * Each CTA takes rows of one residue (bwd_row_body's row order), so its slots sit at one offset h
 * on every row: the aligned kernel's arithmetic on whole vectors of the interior, the weight
 * staged once per CTA at the slots' columns and dw in registers, plus one edge element a thread
 * at most (its weight and dw in registers too). The other head-split instance,
 * rms_norm_bwd_row_u, moves a thread's columns with every row's head and so keeps the weight and
 * dw in shared memory, read and written element by element (N-d rows, or grids of fewer CTAs than
 * P that do not cover the rows). dx is that kernel's bit for bit (the same formulas, the slots'
 * dot then the edge's); the partial dw rows hold other sets of rows unless P divides the grid,
 * still summed in their fixed order. */
template <typename T, int S, bool HAS_DS>
__global__ void __launch_bounds__(FN_BWD_ROW_THREADS(S)) rms_norm_bwd_row_hs(const BwdParams p) {
  bwd_row_body<T, S, HAS_DS, false, false, true>(p);
}

/* The head-split instance (rmsnorm_unaligned.cuh): congruent rows that are not 16-byte aligned,
 * or n not a multiple of the vector. A thread's columns move with each row's head, so neither the
 * weight nor dw can stay in a thread's registers: the fp32 effective weight (n floats) and the
 * CTA's dw live in shared memory, read and updated element by element, column c at c + c/N
 * (fn_u_smem_index): the lanes of a warp read element e of slots N columns apart, which unpadded
 * would put every fourth (N = 8) or eighth (N = 4) lane on one bank; padded, they are N + 1
 * floats apart, an odd stride, on distinct banks. Each column of dw is still the fmaf chain over the CTA's rows in
 * grid-stride order (what the registers of the aligned kernel hold): a thread updates a column in
 * row i's dx pass, before it reaches row i+1's reduction barrier, after which another thread
 * may update it; the partial row is then written in column order. The grid is the aligned plan's
 * (no rounding), and the partial rows are summed in their fixed order as always. */
template <typename T, int S, bool HAS_DS>
__global__ void __launch_bounds__(FN_MAX_THREADS(1, S)) rms_norm_bwd_row_u(const BwdParams p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  extern __shared__ float dyn_smem[];
  float *const wsm = dyn_smem;
  float *const dwsm = dyn_smem + (p.n + N - 1) / N * (N + 1); /* fn_u_bwd_smem: two padded arrays */
  auto at = [](int c) { return c + c / N; };
  __shared__ PaddedRed red;
  const int step = blockDim.x * N, col0 = threadIdx.x * N;
  red.zero();
  V cdy[S], cs[S], cds[S];
  T edy, es, eds; /* this thread's head or tail element, as loaded (converted where used) */
  float rs = 0.0f;
  RowSplit sp;
  auto fetch = [&](int64_t row) {
    const T *dyr = static_cast<const T *>(p.dy) + row_offset(p.nd, row, p.dy_stride, p.dy_outer);
    const T *sr = static_cast<const T *>(p.s) + row_offset(p.nd, row, p.s_stride, p.s_outer);
    const T *dsr = static_cast<const T *>(p.ds) + row_offset(p.nd, row, p.ds_stride, p.ds_outer);
    sp = row_split<T>(dyr, p.n);
    const int c0 = sp.h + col0;
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int col = c0 + k * step;
      if (col + N <= p.n) {
        ld16(cdy[k].w, dyr + col);
        ld16(cs[k].w, sr + col);
        if (HAS_DS) ld16(cds[k].w, dsr + col);
      }
    }
    /* Loaded whether or not the thread has one (column 0 then, unused), and not converted here:
     * a branch around the loads, or a use of them before the weight's staging loop, makes the
     * thread wait for this row before loading the weight (two memory round trips, not one). */
    const int ec = sp.ecol >= 0 ? sp.ecol : 0;
    edy = dyr[ec];
    es = sr[ec];
    if (HAS_DS) eds = dsr[ec];
  };
  /* The first row's loads before the staging, as in rms_norm_bwd_row, and its rstd after it: the
   * compiler moves rstd (the same for the whole CTA) into a uniform register as soon as it is
   * loaded, which waits for it; ahead of the staging, that would hold the weight's loads back. */
  int64_t row = blockIdx.x;
  if (row < p.rows) fetch(row);
  stage_weight_elems<8>(p.w, p.w_dtype, p.offset, p.n, [&](int c, float v) {
    wsm[at(c)] = v;
    dwsm[at(c)] = 0.0f;
  });
  if (row < p.rows) rs = p.rstd[row];
  __syncthreads();

  for (int parity = 0; row < p.rows; parity ^= 1) {
    T *dxr = static_cast<T *>(p.dx) + row_offset(p.nd, row, p.dx_stride, p.dx_outer);
    const int c0 = sp.h + col0;
    float dot = 0.0f;
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int col = c0 + k * step;
      if (col + N <= p.n) {
        float wv[N];
#pragma unroll
        for (int e = 0; e < N; ++e) wv[e] = wsm[at(col + e)];
        dot = slot_dot(cdy[k], cs[k], wv, rs, p.llama, dot);
      }
    }
    if (sp.ecol >= 0) dot = elem_dot(to_f(edy), to_f(es), wsm[at(sp.ecol)], rs, dot);
    const float mean_gn = red.sum(dot, parity) / (float)p.n;
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int col = c0 + k * step;
      if (col + N <= p.n) {
        float wv[N], dw[N];
#pragma unroll
        for (int e = 0; e < N; ++e) {
          wv[e] = wsm[at(col + e)];
          dw[e] = dwsm[at(col + e)];
        }
        V dxv;
        slot_dx(dxv, cdy[k], cs[k], cds[k], HAS_DS, wv, rs, mean_gn, p.llama, dw);
        st16(dxr + col, dxv.w);
#pragma unroll
        for (int e = 0; e < N; ++e) dwsm[at(col + e)] = dw[e];
      }
    }
    if (sp.ecol >= 0) {
      float dw = dwsm[at(sp.ecol)];
      st_elem(dxr, sp.ecol,
              elem_dx<T>(to_f(edy), to_f(es), HAS_DS ? to_f(eds) : 0.0f, HAS_DS, wsm[at(sp.ecol)], rs, mean_gn, p.llama, dw));
      dwsm[at(sp.ecol)] = dw;
    }
    row += gridDim.x;
    if (row < p.rows) {
      fetch(row);
      rs = p.rstd[row];
    }
  }
  __syncthreads(); /* the last row's dw updates, made by whichever threads owned the columns */
  float *const wsrow = p.ws + (int64_t)blockIdx.x * p.n;
  for (int c = threadIdx.x; c < p.n; c += blockDim.x) partial_out(wsrow, p.dw, p.w_dtype, c, dwsm[at(c)]);
  if (p.dw != nullptr) dw_reduce_in_kernel(p.ws, (int)gridDim.x, p.n, p.dw, p.w_dtype);
}

/* The head-split instance when every CTA has at most one row (the plan's grid >= rows, one slot
 * per thread: small problems), where staging serves nothing: with one row, a CTA uses each column
 * of the weight once and its dw column is that row's product alone. Each thread loads the raw bits
 * of its own columns' weight (and its edge element's) element by element with its row's loads,
 * converts them after, and writes its partial dw columns straight from registers; the only
 * barrier is the row's sum. The same formulas in the same order as rms_norm_bwd_row_u (the
 * effective weight, slot_dot / slot_dx, dw from +0: RN(dy * h)). The launcher runs it for
 * head-split one-slot plans whose grid covers the rows, up to FN_BWD_ROW_U1_MAX_SLOTS a row; the
 * staged instance runs the rest (more rows than one wave of CTAs, wider rows). Measured against it
 * on the H200: kernels/RESULTS.md. */
template <typename T, bool HAS_DS>
__global__ void __launch_bounds__(FN_MAX_THREADS(1, 1)) rms_norm_bwd_row_u1(const BwdParams p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  __shared__ PaddedRed red;
  const int64_t row = blockIdx.x;
  float *const wsrow = p.ws + (int64_t)blockIdx.x * p.n;
  /* red.sum reads its slots four at a time: the padding past the warps' slots zeroed here (the
   * warps' own slots are written in the sum, and nothing else writes them) */
  {
    const int nw = (int)(blockDim.x >> 5);
    if ((int)threadIdx.x >= nw && (int)threadIdx.x < ((nw + 3) & ~3)) red.w[0][threadIdx.x] = 0.0f;
  }
  if (row < p.rows) {
    const T *dyr = static_cast<const T *>(p.dy) + row_offset(p.nd, row, p.dy_stride, p.dy_outer);
    const T *sr = static_cast<const T *>(p.s) + row_offset(p.nd, row, p.s_stride, p.s_outer);
    const T *dsr = static_cast<const T *>(p.ds) + row_offset(p.nd, row, p.ds_stride, p.ds_outer);
    const RowSplit sp = row_split<T>(dyr, p.n);
    const int col = sp.h + (int)threadIdx.x * N;
    const bool has_slot = col + N <= p.n;
    V cdy, cs, cds;
    float wv[N], we[1];
    if (has_slot) {
      ld16(cdy.w, dyr + col);
      ld16(cs.w, sr + col);
      if (HAS_DS) ld16(cds.w, dsr + col);
    }
    /* the edge element loaded whether or not the thread has one (column 0 then, unused), as in
     * rms_norm_bwd_row_u: a branch around it would wait for the row's loads */
    const int ec = sp.ecol >= 0 ? sp.ecol : 0;
    const T edy = dyr[ec], es = sr[ec], eds = HAS_DS ? dsr[ec] : T();
    /* The weight's raw bits, the slot's and the edge's, loaded together and converted after
     * (stage_weight_elems' effective weight, bit for bit): behind a dtype branch per load, the
     * edge's load waited for the slot's (one more memory round trip). */
    const bool has_w = p.w != nullptr, w32 = p.w_dtype == FUSEDNORM_F32, wbf16 = p.w_dtype == FUSEDNORM_BF16;
    uint32_t wb[N + 1];
#pragma unroll
    for (int e = 0; e <= N; ++e) {
      const int c = e < N ? min(has_slot ? col + e : 0, p.n - 1) : ec;
      wb[e] = !has_w ? 0u : w32 ? ld_wbits<true>(p.w, c) : ld_wbits<false>(p.w, c);
    }
    const float rs = p.rstd[row];
#pragma unroll
    for (int e = 0; e <= N; ++e) {
      const float v = w32 ? wbits_eff<true>(wb[e], has_w, false, p.offset) : wbits_eff<false>(wb[e], has_w, wbf16, p.offset);
      if (e < N) wv[e] = v;
      else we[0] = v;
    }
    float dot = 0.0f;
    if (has_slot) dot = slot_dot(cdy, cs, wv, rs, p.llama, dot);
    if (sp.ecol >= 0) dot = elem_dot(to_f(edy), to_f(es), we[0], rs, dot);
    const float mean_gn = red.sum(dot, 0) / (float)p.n;
    T *dxr = static_cast<T *>(p.dx) + row_offset(p.nd, row, p.dx_stride, p.dx_outer);
    if (has_slot) {
      float dw[N];
#pragma unroll
      for (int e = 0; e < N; ++e) dw[e] = 0.0f;
      V dxv;
      slot_dx(dxv, cdy, cs, cds, HAS_DS, wv, rs, mean_gn, p.llama, dw);
      st16(dxr + col, dxv.w);
#pragma unroll
      for (int e = 0; e < N; ++e) partial_out(wsrow, p.dw, p.w_dtype, col + e, dw[e]);
    }
    if (sp.ecol >= 0) {
      float dw = 0.0f;
      st_elem(dxr, sp.ecol,
              elem_dx<T>(to_f(edy), to_f(es), HAS_DS ? to_f(eds) : 0.0f, HAS_DS, we[0], rs, mean_gn, p.llama, dw));
      partial_out(wsrow, p.dw, p.w_dtype, sp.ecol, dw);
    }
  } else { /* no row: a partial row of zeros (dw sums every CTA's row) */
    for (int c = threadIdx.x; c < p.n; c += blockDim.x) partial_out(wsrow, p.dw, p.w_dtype, c, 0.0f);
  }
  if (p.dw != nullptr) dw_reduce_in_kernel(p.ws, (int)gridDim.x, p.n, p.dw, p.w_dtype);
}

#define FN_BWD_ROW_INSTANCE(name)                                                                   \
  template <typename T> static const void *name##_for(int cache, bool has_ds) {                    \
    switch (cache) {                                                                              \
      case 1: return has_ds ? reinterpret_cast<const void *>(&name<T, 1, true>)                   \
                            : reinterpret_cast<const void *>(&name<T, 1, false>);                 \
      case 2: return has_ds ? reinterpret_cast<const void *>(&name<T, 2, true>)                   \
                            : reinterpret_cast<const void *>(&name<T, 2, false>);                 \
      case 4: return has_ds ? reinterpret_cast<const void *>(&name<T, 4, true>)                   \
                            : reinterpret_cast<const void *>(&name<T, 4, false>);                 \
    }                                                                                             \
    return nullptr;                                                                               \
  }
FN_BWD_ROW_INSTANCE(rms_norm_bwd_row)
FN_BWD_ROW_INSTANCE(rms_norm_bwd_row_u)
FN_BWD_ROW_INSTANCE(rms_norm_bwd_row_hs)
#undef FN_BWD_ROW_INSTANCE

/* S = 8: aligned rows only (select.c bwd_row8); w16 (the plan's weight_smem 2): 16-bit rows only. */
template <typename T> static const void *rms_norm_bwd_row8_for(bool has_ds, bool unaligned, bool w16) {
  if (unaligned) return nullptr;
  if constexpr (sizeof(T) == 2) {
    if (w16)
      return has_ds ? reinterpret_cast<const void *>(&rms_norm_bwd_row<T, 8, true, true>)
                    : reinterpret_cast<const void *>(&rms_norm_bwd_row<T, 8, false, true>);
  } else if (w16) {
    return nullptr;
  }
  return has_ds ? reinterpret_cast<const void *>(&rms_norm_bwd_row<T, 8, true>)
                : reinterpret_cast<const void *>(&rms_norm_bwd_row<T, 8, false>);
}

template <typename T>
static const void *bwd_row_kernel_for(int cache, bool has_ds, bool unaligned, bool one_row, bool w16, bool narrow64,
                                      bool by_residue) {
  if (cache == 8) return rms_norm_bwd_row8_for<T>(has_ds, unaligned, w16);
  if constexpr (sizeof(T) == 2) { /* (the plan's `narrow`: 16-bit rows only) */
    if (narrow64)
      return cache == 1 && !unaligned && !w16
                 ? (has_ds ? reinterpret_cast<const void *>(&rms_norm_bwd_row<T, 1, true, false, true>)
                           : reinterpret_cast<const void *>(&rms_norm_bwd_row<T, 1, false, false, true>))
                 : nullptr;
  } else if (narrow64) {
    return nullptr;
  }
  if (w16) return nullptr;
  if (unaligned && one_row && cache == 1)
    return has_ds ? reinterpret_cast<const void *>(&rms_norm_bwd_row_u1<T, true>)
                  : reinterpret_cast<const void *>(&rms_norm_bwd_row_u1<T, false>);
  if (!unaligned) return rms_norm_bwd_row_for<T>(cache, has_ds);
  return by_residue ? rms_norm_bwd_row_hs_for<T>(cache, has_ds) : rms_norm_bwd_row_u_for<T>(cache, has_ds);
}

const void *bwd_row_kernel(fusednorm_dtype x, int cache, bool has_ds, bool unaligned, bool one_row, bool w16,
                           bool narrow64, bool by_residue) {
  switch (x) {
    case FUSEDNORM_F32: return bwd_row_kernel_for<float>(cache, has_ds, unaligned, one_row, w16, narrow64, by_residue);
    case FUSEDNORM_F16: return bwd_row_kernel_for<__half>(cache, has_ds, unaligned, one_row, w16, narrow64, by_residue);
    case FUSEDNORM_BF16:
      return bwd_row_kernel_for<__nv_bfloat16>(cache, has_ds, unaligned, one_row, w16, narrow64, by_residue);
  }
  return nullptr;
}

}  // namespace fn
