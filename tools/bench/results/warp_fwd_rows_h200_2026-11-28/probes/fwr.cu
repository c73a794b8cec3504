// Probe: variants of the warp forward (kernels/cuda/rmsnorm_fwd_warp.cu) for rows of 33-511
// columns that are not whole aligned vectors, against the library's AUTO plan on the same buffers.
//   ship   the shipped kernel: a warp a row, element by element, the weight loaded with each row
//   r2     two rows a warp: both rows' loads at once, the weight's once (Inductor's kernel for
//          fp16 58551 x 295 runs 2 rows a one-warp CTA)
//   p1/p2  16-bit rows as 4-byte pairs from each row's first 4-byte boundary (head and tail
//          elements on lanes 0 and 1), the weight element-wise; one / two rows a warp
//   r4     four rows a warp (grid 2: plain rows only)
// `fwr SEED 1`: grid 1 (fwr_1.txt), `fwr SEED 2`: grid 2 (fwr_2.txt).
// Timing: a CUDA graph of 200 launches over rotating input sets, per-launch mean, best of 5.
// Checked: every variant's rstd and y against the shipped kernel's (max ulp difference).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "kernels/cuda/rmsnorm_fwd_warp.cu"
#include "kernels/include/fusednorm.h"
using namespace fn;

template <typename T, int K, bool FUSED, int R>
__global__ void __launch_bounds__(128) fwd_rows(const LeanFwdParams p) {
  const int lane = (int)threadIdx.x & 31;
  const int64_t row0 = ((int64_t)blockIdx.x * 4 + ((int)threadIdx.x >> 5)) * R;
  if (row0 >= p.rows) return;
  const int n = p.n;
  float s[R][K], r[R][K];
#pragma unroll
  for (int j = 0; j < R; ++j) {
    const int64_t rw = min(row0 + j, (int64_t)p.rows - 1);
    const T *xr = static_cast<const T *>(p.x) + rw * p.x_stride;
#pragma unroll
    for (int k = 0; k < K; ++k) s[j][k] = ld_elem(xr, tiny_col(lane + 32 * k, n));
    if (FUSED) {
      const T *rr = static_cast<const T *>(p.r) + rw * p.r_stride;
#pragma unroll
      for (int k = 0; k < K; ++k) r[j][k] = ld_elem(rr, tiny_col(lane + 32 * k, n));
    }
  }
  uint32_t wb[K];
  float w[K];
  tiny_wbits<K>(wb, p.w, p.w_dtype, p.x, lane, 32, n);
  tiny_weff<K>(w, wb, p.w != nullptr, p.w_dtype, p.offset, lane, 32, n);
#pragma unroll
  for (int j = 0; j < R; ++j) {
    const int64_t rw = row0 + j;
    if (rw >= p.rows) break;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int c = lane + 32 * k;
      if (c >= n) s[j][k] = 0.0f, r[j][k] = 0.0f;
    }
    if (FUSED) {
      T *ror = static_cast<T *>(p.ro) + rw * p.ro_stride;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int c = lane + 32 * k;
        s[j][k] = round_to<T>(s[j][k] + r[j][k]);
        if (c < n) st_elem(ror, c, s[j][k]);
      }
    }
    float ss = 0.0f;
#pragma unroll
    for (int k = 0; k < K; ++k) ss = fmaf(s[j][k], s[j][k], ss);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
    const float rstd = rstd_of(ss, n, p.eps);
    if (p.rstd != nullptr && lane == 0) p.rstd[rw] = rstd;
    T *yr = static_cast<T *>(p.y) + rw * p.y_stride;
    with_llama(p.llama, [&](auto llama_c) {
      constexpr bool L = decltype(llama_c)::value;
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int c = lane + 32 * k;
        if (c < n) st_elem(yr, c, normalize_elem<T, L>(s[j][k], w[k], rstd));
      }
    });
  }
}

__device__ __forceinline__ float lo_f(uint32_t u, __half) { return __half2float(__ushort_as_half((unsigned short)u)); }
__device__ __forceinline__ float hi_f(uint32_t u, __half) { return __half2float(__ushort_as_half((unsigned short)(u >> 16))); }
__device__ __forceinline__ float lo_f(uint32_t u, __nv_bfloat16) { return __uint_as_float(u << 16); }
__device__ __forceinline__ float hi_f(uint32_t u, __nv_bfloat16) { return __uint_as_float(u & 0xffff0000u); }
template <typename T> __device__ __forceinline__ uint32_t pack2(float a, float b) {
  const T ta = from_f<T>(a), tb = from_f<T>(b);
  unsigned short ua, ub; memcpy(&ua, &ta, 2); memcpy(&ub, &tb, 2);
  return (uint32_t)ua | ((uint32_t)ub << 16);
}

// 16-bit only. Rows congruent modulo 4 bytes across x, r, y, ro (the probe's buffers are).
template <typename T, int KP, bool FUSED, int R>
__global__ void __launch_bounds__(128) fwd_pairs(const LeanFwdParams p) {
  const int lane = (int)threadIdx.x & 31;
  const int64_t row0 = ((int64_t)blockIdx.x * 4 + ((int)threadIdx.x >> 5)) * R;
  if (row0 >= p.rows) return;
  const int n = p.n;
  uint32_t xp[R][KP], rp[R][KP];
  float xe[R], re[R];
  int hh[R];
#pragma unroll
  for (int j = 0; j < R; ++j) {
    const int64_t rw = min(row0 + j, (int64_t)p.rows - 1);
    const T *xr = static_cast<const T *>(p.x) + rw * p.x_stride;
    const int h = (int)(((uintptr_t)xr >> 1) & 1u);
    hh[j] = h;
    const int np = (n - h) >> 1;
    const uint32_t *x2 = reinterpret_cast<const uint32_t *>(xr + h);
#pragma unroll
    for (int k = 0; k < KP; ++k) xp[j][k] = x2[min(lane + 32 * k, np - 1)];
    // lane 0: the head (column 0 when h), lane 1: the tail (column n - 1 when n - h is odd)
    const int ec = lane == 0 ? 0 : n - 1;
    xe[j] = ld_elem(xr, ec);
    if (FUSED) {
      const T *rr = static_cast<const T *>(p.r) + rw * p.r_stride;
      const uint32_t *r2 = reinterpret_cast<const uint32_t *>(rr + h);
#pragma unroll
      for (int k = 0; k < KP; ++k) rp[j][k] = r2[min(lane + 32 * k, np - 1)];
      re[j] = ld_elem(rr, ec);
    }
  }
  const bool w32 = p.w != nullptr && p.w_dtype == FUSEDNORM_F32;
  const void *wsrc = p.w != nullptr ? p.w : p.x;
  uint32_t wb[2 * KP + 1];
  // The weight for parity 0: columns 2p, 2p+1; parity 1: 2p+1, 2p+2. Load 2p, 2p+1, 2p+2 (the
  // last one only as 2p+2 of parity 1 (which is the next pair's 2p: reload; L1).
#pragma unroll
  for (int k = 0; k < KP; ++k) {
    const int c = 2 * (lane + 32 * k);
    wb[2 * k] = w32 ? ld_wbits<true>(wsrc, min(c, n - 1)) : ld_wbits<false>(wsrc, min(c, n - 1));
    wb[2 * k + 1] = w32 ? ld_wbits<true>(wsrc, min(c + 1, n - 1)) : ld_wbits<false>(wsrc, min(c + 1, n - 1));
  }
  wb[2 * KP] = 0;
  uint32_t wnext[KP];
#pragma unroll
  for (int k = 0; k < KP; ++k) {
    const int c = 2 * (lane + 32 * k) + 2;
    wnext[k] = w32 ? ld_wbits<true>(wsrc, min(c, n - 1)) : ld_wbits<false>(wsrc, min(c, n - 1));
  }
  const int ec = lane == 0 ? 0 : n - 1;
  const uint32_t web = w32 ? ld_wbits<true>(wsrc, ec) : ld_wbits<false>(wsrc, ec);
  const bool has_w = p.w != nullptr, wbf16 = p.w_dtype == FUSEDNORM_BF16;
  auto weff = [&](uint32_t b) { return w32 ? wbits_eff<true>(b, has_w, false, p.offset) : wbits_eff<false>(b, has_w, wbf16, p.offset); };
  float w0[KP], w1[KP], w2[KP];
#pragma unroll
  for (int k = 0; k < KP; ++k) w0[k] = weff(wb[2 * k]), w1[k] = weff(wb[2 * k + 1]), w2[k] = weff(wnext[k]);
  const float we = weff(web);
#pragma unroll
  for (int j = 0; j < R; ++j) {
    const int64_t rw = row0 + j;
    if (rw >= p.rows) break;
    const int h = hh[j], np = (n - h) >> 1;
    const bool has_e = lane == 0 ? h != 0 : lane == 1 ? ((n - h) & 1) != 0 : false;
    float a[KP], b[KP];
#pragma unroll
    for (int k = 0; k < KP; ++k) {
      const bool ok = lane + 32 * k < np;
      a[k] = ok ? lo_f(xp[j][k], T()) : 0.0f;
      b[k] = ok ? hi_f(xp[j][k], T()) : 0.0f;
    }
    float e = has_e ? xe[j] : 0.0f;
    if (FUSED) {
      T *ror = static_cast<T *>(p.ro) + rw * p.ro_stride;
      uint32_t *ro2 = reinterpret_cast<uint32_t *>(ror + h);
#pragma unroll
      for (int k = 0; k < KP; ++k) {
        const bool ok = lane + 32 * k < np;
        a[k] = round_to<T>(a[k] + (ok ? lo_f(rp[j][k], T()) : 0.0f));
        b[k] = round_to<T>(b[k] + (ok ? hi_f(rp[j][k], T()) : 0.0f));
        if (ok) ro2[lane + 32 * k] = pack2<T>(a[k], b[k]);
      }
      e = round_to<T>(e + (has_e ? re[j] : 0.0f));
      if (has_e) st_elem(ror, lane == 0 ? 0 : n - 1, e);
    }
    float ss = e * e;
#pragma unroll
    for (int k = 0; k < KP; ++k) ss = fmaf(a[k], a[k], ss), ss = fmaf(b[k], b[k], ss);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
    const float rstd = rstd_of(ss, n, p.eps);
    if (p.rstd != nullptr && lane == 0) p.rstd[rw] = rstd;
    T *yr = static_cast<T *>(p.y) + rw * p.y_stride;
    uint32_t *y2 = reinterpret_cast<uint32_t *>(yr + h);
    with_llama(p.llama, [&](auto llama_c) {
      constexpr bool L = decltype(llama_c)::value;
#pragma unroll
      for (int k = 0; k < KP; ++k) {
        if (lane + 32 * k < np) {
          const float wa = h ? w1[k] : w0[k], wbv = h ? w2[k] : w1[k];
          y2[lane + 32 * k] = pack2<T>(normalize_elem<T, L>(a[k], wa, rstd), normalize_elem<T, L>(b[k], wbv, rstd));
        }
      }
      if (has_e) st_elem(yr, lane == 0 ? 0 : n - 1, normalize_elem<T, L>(e, we, rstd));
    });
  }
}

static void ck(cudaError_t e, int l) { if (e) { printf("CUDA %s line %d\n", cudaGetErrorString(e), l); exit(1); } }
#define CK(x) ck(x, __LINE__)

template <typename L>
static double timeit(L launch, cudaStream_t s, int NS) {
  for (int i = 0; i < NS; ++i) launch(i, s);
  CK(cudaStreamSynchronize(s));
  CK(cudaGetLastError());
  cudaGraph_t g; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < 200; ++i) launch(i % NS, s);
  CK(cudaStreamEndCapture(s, &g));
  CK(cudaGraphInstantiate(&ge, g, 0));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  CK(cudaGraphLaunch(ge, s)); CK(cudaStreamSynchronize(s));
  float best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a, s); CK(cudaGraphLaunch(ge, s)); cudaEventRecord(b, s); CK(cudaEventSynchronize(b));
    float ms; cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms;
  }
  cudaGraphExecDestroy(ge); cudaGraphDestroy(g); cudaEventDestroy(a); cudaEventDestroy(b);
  return best * 1000.0 / 200;
}

template <typename T>
__global__ void init_k(T *p, size_t n, uint32_t seed, float lo, float span) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2654435761u ^ seed; h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16;
    p[i] = (T)(lo + span * (h >> 8) * (1.0f / 16777216.0f));
  }
}

template <typename T, bool F> struct Launch {
  template <int K, int R> static void rows(const LeanFwdParams &q, cudaStream_t st) {
    const unsigned g = (unsigned)((q.rows + 4 * R - 1) / (4 * R));
    fwd_rows<T, K, F, R><<<g, 128, 0, st>>>(q);
  }
  template <int KP, int R> static void pairs(const LeanFwdParams &q, cudaStream_t st) {
    const unsigned g = (unsigned)((q.rows + 4 * R - 1) / (4 * R));
    if constexpr (sizeof(T) == 2) fwd_pairs<T, KP, F, R><<<g, 128, 0, st>>>(q);
  }
  template <int R> static void rows_k(int K, const LeanFwdParams &q, cudaStream_t st) {
    if (K <= 2) rows<2, R>(q, st); else if (K == 3) rows<3, R>(q, st); else if (K == 4) rows<4, R>(q, st);
    else if (K == 5) rows<5, R>(q, st); else if (K == 6) rows<6, R>(q, st); else if (K <= 8) rows<8, R>(q, st);
    else if (K <= 10) rows<10, R>(q, st); else if (K <= 12) rows<12, R>(q, st); else rows<16, R>(q, st);
  }
  template <int R> static void pairs_k(int KP, const LeanFwdParams &q, cudaStream_t st) {
    if (KP <= 1) pairs<1, R>(q, st); else if (KP == 2) pairs<2, R>(q, st); else if (KP == 3) pairs<3, R>(q, st);
    else if (KP == 4) pairs<4, R>(q, st); else if (KP == 5) pairs<5, R>(q, st); else if (KP == 6) pairs<6, R>(q, st);
    else pairs<8, R>(q, st);
  }
};

template <typename T>
static int maxulp(const T *a, const T *b, size_t n) {
  std::vector<T> ha(n), hb(n);
  CK(cudaMemcpy(ha.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hb.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
  int m = 0;
  for (size_t i = 0; i < n; ++i) {
    int ia = 0, ib = 0; memcpy(&ia, &ha[i], sizeof(T)); memcpy(&ib, &hb[i], sizeof(T));
    if (sizeof(T) == 2) { ia = (short)ia; ib = (short)ib; }
    const int d = abs(ia - ib); if (d > m) m = d;
  }
  return m;
}

static int grid = 1;

template <typename T, bool F>
static void grid_case(fusednorm_dtype xd, const char *dt, int M, int n, uint32_t seed) {
  const size_t E = (size_t)M * n;
  const int NS = E * sizeof(T) * (F ? 2 : 1) > ((size_t)1 << 29) ? 2 : 8;
  T *x[8], *r[8], *ro, *y, *y2, *ro2, *w; float *rs, *rs2;
  for (int i = 0; i < NS; ++i) {
    CK(cudaMalloc(&x[i], E * sizeof(T))); init_k<<<1024, 256>>>(x[i], E, seed + i, -2.f, 4.f);
    if (F) { CK(cudaMalloc(&r[i], E * sizeof(T))); init_k<<<1024, 256>>>(r[i], E, seed + 100 + i, -1.f, 2.f); } else r[i] = nullptr;
  }
  CK(cudaMalloc(&ro, E * sizeof(T))); CK(cudaMalloc(&y, E * sizeof(T))); CK(cudaMalloc(&y2, E * sizeof(T))); CK(cudaMalloc(&ro2, E * sizeof(T)));
  CK(cudaMalloc(&rs, M * 4)); CK(cudaMalloc(&rs2, M * 4)); CK(cudaMalloc(&w, n * sizeof(T)));
  init_k<<<8, 256>>>(w, n, seed + 999, 0.5f, 1.0f);
  CK(cudaDeviceSynchronize());
  fusednorm_problem p = fusednorm_problem_init(M, n, xd, xd);
  p.has_residual = F; p.casting = FUSEDNORM_CAST_LLAMA;
  cudaStream_t s; CK(cudaStreamCreate(&s));
  auto lib = [&](int i, cudaStream_t st) {
    fusednorm_fwd_args a = {}; a.x = x[i]; a.x_stride = n; a.residual = r[i]; a.residual_stride = n; a.weight = w;
    a.y = y; a.y_stride = n; a.residual_out = ro; a.residual_out_stride = n; a.rstd = rs;
    fusednorm_status e = fusednorm_forward_cuda(&p, &a, st); if (e) { printf("lib err %d\n", (int)e); exit(1); }
  };
  auto mk = [&](int i, T *yo, float *rso, T *roo) { LeanFwdParams q = {}; q.x = x[i]; q.w = w; q.y = yo; q.rstd = rso; q.x_stride = n; q.y_stride = n; q.rows = M; q.n = n;
    q.eps = p.eps; q.offset = 0; q.r = r[i]; q.ro = roo; q.r_stride = n; q.ro_stride = n; q.w_dtype = xd; q.llama = 1; return q; };
  const int K = (n + 31) / 32, KP = ((n + 1) / 2 + 31) / 32;
  auto ship = [&](int i, cudaStream_t st) { Launch<T, F>::template rows_k<1>(K, mk(i, y2, rs2, ro2), st); };
  auto r2 = [&](int i, cudaStream_t st) { Launch<T, F>::template rows_k<2>(K, mk(i, y2, rs2, ro2), st); };
  auto r4 = [&](int i, cudaStream_t st) { Launch<T, F>::template rows_k<4>(K, mk(i, y2, rs2, ro2), st); };
  auto p1 = [&](int i, cudaStream_t st) { Launch<T, F>::template pairs_k<1>(KP, mk(i, y2, rs2, ro2), st); };
  auto p2 = [&](int i, cudaStream_t st) { Launch<T, F>::template pairs_k<2>(KP, mk(i, y2, rs2, ro2), st); };
  const double tl = timeit(lib, s, NS), t1 = timeit(ship, s, NS), t2 = timeit(r2, s, NS);
  const double t5 = grid == 2 ? timeit(r4, s, NS) : 0.0;
  double t3 = 0, t4 = 0;
  // the reference bits: the shipped kernel's, then each variant checked against them
  Launch<T, F>::template rows_k<1>(K, mk(0, y, rs, ro), s); CK(cudaStreamSynchronize(s));
  int u[4] = {0, 0, 0, 0};
  auto check = [&](int v) {
    CK(cudaMemset(y2, 0xff, E * sizeof(T))); CK(cudaMemset(rs2, 0xff, M * 4));
    if (v == 0) r2(0, s); else if (v == 1) p1(0, s); else if (v == 2) p2(0, s); else r4(0, s);
    CK(cudaStreamSynchronize(s)); CK(cudaGetLastError());
    u[v] = std::max(maxulp(y, y2, E), maxulp(rs, rs2, (size_t)M));
    if (F) u[v] = std::max(u[v], maxulp(ro, ro2, E));
  };
  check(0);
  if (grid == 2) check(3);
  if (grid == 1 && sizeof(T) == 2) { t3 = timeit(p1, s, NS); t4 = timeit(p2, s, NS); check(1); check(2); }
  fusednorm_launch l; const char *kn = "?";
  {
    fusednorm_device_info di;
    if (fusednorm_cuda_device_info(0, &di) == FUSEDNORM_OK) {
      fusednorm_layout lay = {}; fusednorm_fwd_args aa = {}; aa.x = x[0]; aa.x_stride = n; aa.residual = r[0]; aa.residual_stride = n; aa.weight = w;
      aa.y = y; aa.y_stride = n; aa.residual_out = ro; aa.residual_out_stride = n; aa.rstd = rs;
      if (fusednorm_forward_layout(&p, &aa, &lay) == FUSEDNORM_OK && fusednorm_select_launch(&p, 0, &di, &lay, &l) == FUSEDNORM_OK)
        kn = fusednorm_kernel_name(l.kernel);
    }
  }
  if (grid == 1)
    printf("%-4s %d %7d %4d | lib %7.2f ship %7.2f r2 %7.2f p1 %7.2f p2 %7.2f | ship/lib %.3f r2 %.3f p1 %.3f p2 %.3f | %-10s | ulp r2 %d p1 %d p2 %d\n",
           dt, (int)F, M, n, tl, t1, t2, t3, t4, tl / t1, t1 / t2, t3 > 0 ? t1 / t3 : 0.0, t4 > 0 ? t1 / t4 : 0.0, kn, u[0], u[1], u[2]);
  else
    printf("%-4s %d %7d %4d | lib %7.2f ship %7.2f r2 %7.2f r4 %7.2f | lib/ship %.3f lib/r2 %.3f lib/r4 %.3f | %-10s | ulp r2 %d r4 %d\n",
           dt, (int)F, M, n, tl, t1, t2, t5, tl / t1, tl / t2, tl / t5, kn, u[0], u[3]);
  fflush(stdout);
  for (int i = 0; i < NS; ++i) { cudaFree(x[i]); if (r[i]) cudaFree(r[i]); }
  cudaFree(ro); cudaFree(y); cudaFree(y2); cudaFree(ro2); cudaFree(rs); cudaFree(rs2); cudaFree(w); cudaStreamDestroy(s);
}

int main(int argc, char **argv) {
  const unsigned seed = argc > 1 ? (unsigned)atoi(argv[1]) : 77;
  grid = argc > 2 ? atoi(argv[2]) : 1;
  printf("seed %u grid %d\n", seed, grid);
  if (grid == 2) {
    // plain rows: one, two and four rows a warp; the row counts between grid 1's, and more widths
    const int ns2[] = {33, 45, 52, 57, 63, 81, 100, 113, 127, 142, 190, 223, 255, 295, 350, 420, 460, 511};
    const int ms2[] = {2000, 4000, 8000, 16000, 32768, 65536, 131072, 400000};
    for (int m : ms2) for (int n : ns2) {
      if ((double)m * n > 1.1e8) continue;
      grid_case<__half, false>(FUSEDNORM_F16, "fp16", m, n, seed);
      if (m == 8000 || m == 131072) grid_case<__nv_bfloat16, false>(FUSEDNORM_BF16, "bf16", m, n, seed);
      grid_case<float, false>(FUSEDNORM_F32, "f32", m, n, seed);
    }
    return 0;
  }
  const int ns[] = {33, 45, 63, 81, 100, 127, 142, 190, 223, 255, 295, 350, 420, 511};
  const int ms[] = {2000, 8000, 32768, 131072, 400000};
  for (int m : ms) for (int n : ns) {
    if ((double)m * n > 1.1e8) continue;
    {
      grid_case<__half, false>(FUSEDNORM_F16, "fp16", m, n, seed);
      grid_case<__nv_bfloat16, true>(FUSEDNORM_BF16, "bf16", m, n, seed);
    }
    {
      grid_case<float, false>(FUSEDNORM_F32, "f32", m, n, seed);
      grid_case<float, true>(FUSEDNORM_F32, "f32", m, n, seed);
    }
  }
  return 0;
}
