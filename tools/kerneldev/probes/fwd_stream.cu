// Probe: the forward of many rows too wide for any CTA's or cluster's registers and shared memory
// to hold (16-bit rows of ~1M columns, f32 of 256K+), as a stream that reads x from HBM once and a
// second time from L2. A cooperative grid of G CTAs (a multiple of C, the row's chunks of
// THREADS x J 16-byte slots), one chunk a CTA a round, so a round is G / C whole rows: phase A
// loads the chunk (every slot's load issued at once), sums its squares and publishes the partial;
// the grid's split barrier (arrive after A, wait one round later) lets round k's loads fly while
// round k-1's barrier completes; phase B of round k-1 sums the row's C partials in a fixed order,
// re-reads its chunk (from L2: a round is G x chunk bytes, ~8 MB) with its weight and writes y.
// The fused add writes residual_out in A and reads it back in B. Plain aligned rows, weight of
// the rows' dtype. Checks y and rstd against a one-CTA-a-row reference kernel (max |diff| in ulps
// of the output printed; the sum orders differ, so 1 ulp is expected). Timing as fwd_wide_q.cu.
// Build here:
//   nvcc -std=c++17 -O3 -arch=sm_90a -I. -Ikernels/include tools/kerneldev/probes/fwd_stream.cu -o fwds
// Run: fwds [0 all | 1 plain | 2 fused]; result and verdict (not kept):
// tools/bench/results/fwd_stream_probe_h200_2026-12-01/README.md
#include <cuda_bf16.h>
#include "kernels/cuda/rmsnorm_common.cuh"
#include "tools/kerneldev/probes/probe_util.cuh"

namespace fn {
template <typename T> struct SP {
  const T *x, *r, *w;
  T *y, *ro;
  float *rstd, *part;
  int64_t rows;
  int n, nv, C;
  float eps;
};

template <typename T> __device__ __forceinline__ void wf(float (&f)[Vec<T>::N], const Vec<T> &v) {
#pragma unroll
  for (int e = 0; e < Vec<T>::N; ++e) f[e] = elem_f(v, e);
}

template <typename T, int J, bool FUSED, int THREADS, int MINB>
__global__ void __launch_bounds__(THREADS, MINB) fwd_stream(const SP<T> p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  constexpr int CH = THREADS * J; /* slots a chunk */
  __shared__ float wsum[THREADS / 32];
  __shared__ float bcast;
  cg::grid_group grid = cg::this_grid();
  const int G = gridDim.x, g = blockIdx.x;
  const int rpr = G / p.C; /* rows a round */
  const int64_t K = (p.rows + rpr - 1) / rpr;
  const int c = g % p.C;
  V xv[J];
  auto slot0 = [&](void) { return c * CH + (int)threadIdx.x; };
  auto issue = [&](int64_t k) {
    const int64_t row = k * rpr + g / p.C;
    if (row >= p.rows) return;
    const T *xr = p.x + row * (int64_t)p.n;
    const T *rr = p.r + row * (int64_t)p.n;
#pragma unroll
    for (int j = 0; j < J; ++j) {
      const int s = slot0() + j * THREADS;
      if (s < p.nv) {
        ld16(xv[j].w, xr + (int64_t)s * N);
        if (FUSED) {
          V rv;
          ld16(rv.w, rr + (int64_t)s * N);
          float a[N], b[N];
          wf<T>(a, xv[j]);
          wf<T>(b, rv);
#pragma unroll
          for (int e = 0; e < N; ++e) a[e] = a[e] + b[e];
          from_floats(xv[j], a);
        }
      }
    }
  };
  auto phase_a = [&](int64_t k) {
    const int64_t row = k * rpr + g / p.C;
    float ss = 0.0f;
    if (row < p.rows) {
      T *ror = p.ro + row * (int64_t)p.n;
#pragma unroll
      for (int j = 0; j < J; ++j) {
        const int s = slot0() + j * THREADS;
        if (s < p.nv) {
          ss = add_squares(xv[j], ss);
          if (FUSED) st16(ror + (int64_t)s * N, xv[j].w);
        }
      }
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
    if ((threadIdx.x & 31) == 0) wsum[threadIdx.x >> 5] = ss;
    __syncthreads();
    if (threadIdx.x == 0 && row < p.rows) {
      float t = 0.0f;
      for (int i = 0; i < THREADS / 32; ++i) t += wsum[i];
      __stcg(p.part + row * p.C + c, t);
    }
  };
  auto phase_b = [&](int64_t k) {
    const int64_t row = k * rpr + g / p.C;
    if (row >= p.rows) return;
    const T *sr = FUSED ? p.ro + row * (int64_t)p.n : p.x + row * (int64_t)p.n;
    T *yr = p.y + row * (int64_t)p.n;
    V sv[J], wv[J];
#pragma unroll
    for (int j = 0; j < J; ++j) {
      const int s = slot0() + j * THREADS;
      if (s < p.nv) {
        ld16(sv[j].w, sr + (int64_t)s * N);
        ld16(wv[j].w, p.w + (int64_t)s * N);
      }
    }
    if (threadIdx.x < 32) {
      float t = 0.0f;
      for (int i = threadIdx.x; i < p.C; i += 32) t += __ldcg(p.part + row * p.C + i);
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) t += __shfl_xor_sync(0xffffffffu, t, off);
      if (threadIdx.x == 0) {
        const float rs = rstd_of(t, p.n, p.eps);
        bcast = rs;
        if (c == 0) p.rstd[row] = rs;
      }
    }
    __syncthreads();
    const float rs = bcast;
#pragma unroll
    for (int j = 0; j < J; ++j) {
      const int s = slot0() + j * THREADS;
      if (s < p.nv) {
        float w[N];
        wf<T>(w, wv[j]);
        V yv;
        normalize_slot<T, false>(yv, sv[j], w, rs);
        st16(yr + (int64_t)s * N, yv.w);
      }
    }
  };
  issue(0);
  phase_a(0);
  unsigned tok = grid.barrier_arrive();
  for (int64_t k = 1; k <= K; ++k) {
    if (k < K) issue(k);
    grid.barrier_wait(static_cast<unsigned>(tok));
    phase_b(k - 1);
    if (k < K) {
      phase_a(k);
      tok = grid.barrier_arrive();
    }
  }
}

/* Reference: one CTA of 1024 threads a row, element by element. */
template <typename T, bool FUSED>
__global__ void ref_k(const T *x, const T *r, const T *w, T *y, T *ro, float *rstd, int n, float eps) {
  __shared__ float red[32];
  const int64_t row = blockIdx.x;
  float ss = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float s = (float)x[row * n + i];
    if (FUSED) {
      s = (float)(T)(s + (float)r[row * n + i]);
      ro[row * n + i] = (T)s;
    }
    ss += s * s;
  }
  for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = ss;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.0f;
    for (int i = 0; i < (int)(blockDim.x >> 5); ++i) t += red[i];
    red[0] = rstd_of(t, n, eps);
    rstd[row] = red[0];
  }
  __syncthreads();
  const float rs = red[0];
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const float s = FUSED ? (float)ro[row * n + i] : (float)x[row * n + i];
    y[row * n + i] = (T)(s * rs * (float)w[i]);
  }
}
}  // namespace fn

using namespace fn;

template <typename T> static double max_ulp(const T *a, const T *b, size_t n) {
  std::vector<T> ha(n), hb(n);
  CK(cudaMemcpy(ha.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hb.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
  double m = 0;
  for (size_t i = 0; i < n; ++i) {
    const double x = (double)(float)ha[i], y = (double)(float)hb[i];
    const double ulp = sizeof(T) == 4 ? std::ldexp(1.0, std::ilogb(std::max(1e-30, std::fabs(y))) - 23)
                                      : std::ldexp(1.0, std::ilogb(std::max(1e-30, std::fabs(y))) - 7);
    m = std::max(m, std::fabs(x - y) / ulp);
  }
  return m;
}

template <typename T, int J, bool FUSED, int THREADS, int MINB>
static void run(const char *name, int64_t M, int n, cudaStream_t st) {
  constexpr int N = 16 / sizeof(T);
  const int nv = n / N, CH = THREADS * J, C = (nv + CH - 1) / CH;
  int dev = 0, sms = 0, occ = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, fwd_stream<T, J, FUSED, THREADS, MINB>, THREADS, 0));
  const int gmax = sms * occ;
  if (C > gmax) { printf("%-5s %s %lldx%d: C %d > G %d\n", name, FUSED ? "fused" : "plain", (long long)M, n, C, gmax); return; }
  const int G = gmax / C * C;
  const size_t el = (size_t)M * n, bytes = el * sizeof(T);
  const int NS = (int)std::max<size_t>(2, (size_t)(512u << 20) / (bytes * (FUSED ? 2 : 1)) + 1);
  std::vector<T *> xs(NS), rs(NS);
  for (int i = 0; i < NS; ++i) {
    CK(cudaMalloc(&xs[i], bytes));
    init_k<<<1024, 256>>>(xs[i], el, 17 + i, -2.0f, 4.0f);
    if (FUSED) { CK(cudaMalloc(&rs[i], bytes)); init_k<<<1024, 256>>>(rs[i], el, 91 + i, -1.0f, 2.0f); }
  }
  T *w, *y, *ro, *y2, *ro2;
  float *rstd, *rstd2, *part;
  CK(cudaMalloc(&w, n * sizeof(T)));
  init_k<<<256, 256>>>(w, (size_t)n, 5, 0.5f, 1.0f);
  CK(cudaMalloc(&y, bytes)); CK(cudaMalloc(&y2, bytes));
  CK(cudaMalloc(&ro, FUSED ? bytes : 16)); CK(cudaMalloc(&ro2, FUSED ? bytes : 16));
  CK(cudaMalloc(&rstd, M * 4)); CK(cudaMalloc(&rstd2, M * 4)); CK(cudaMalloc(&part, M * C * 4));
  SP<T> p{xs[0], FUSED ? rs[0] : xs[0], w, y, ro, rstd, part, M, n, nv, C, 1e-6f};
  auto launch = [&](int i, cudaStream_t s) {
    SP<T> q = p;
    q.x = xs[i];
    q.r = FUSED ? rs[i] : xs[i];
    void *args[] = {&q};
    CK(cudaLaunchCooperativeKernel((void *)fwd_stream<T, J, FUSED, THREADS, MINB>, dim3(G), dim3(THREADS), args, 0, s));
  };
  launch(0, st);
  CK(cudaStreamSynchronize(st));
  ref_k<T, FUSED><<<(unsigned)M, 1024, 0, st>>>(xs[0], FUSED ? rs[0] : xs[0], w, y2, ro2, rstd2, n, 1e-6f);
  CK(cudaStreamSynchronize(st));
  const double uy = max_ulp(y, y2, el), ur = max_ulp(rstd, rstd2, (size_t)M);
  const double ua = FUSED ? max_ulp(ro, ro2, el) : 0.0;
  const double us = timeit(launch, st, NS);
  const double mb = (double)el * sizeof(T) * (FUSED ? 4 : 2) / 1e6;
  printf("%-5s %s %7lldx%-8d T%-4d J%d G%-4d C%-4d rows/round %-3d  %8.1f us %6.0f GB/s  y %.0f ulp, rstd %.0f ulp, ro %.0f\n",
         name, FUSED ? "fused" : "plain", (long long)M, n, THREADS, J, G, C, G / C, us, mb / us * 1e3, uy, ur, ua);
  for (int i = 0; i < NS; ++i) { cudaFree(xs[i]); if (FUSED) cudaFree(rs[i]); }
  cudaFree(w); cudaFree(y); cudaFree(y2); cudaFree(ro); cudaFree(ro2); cudaFree(rstd); cudaFree(rstd2); cudaFree(part);
}

static double copy_us(size_t bytes, cudaStream_t st) {
  void *a, *b;
  CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&b, bytes));
  auto l = [&](int, cudaStream_t s) { CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s)); };
  const double us = timeit(l, st, 1);
  cudaFree(a); cudaFree(b);
  return us;
}

int main(int argc, char **argv) {
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  const int which = argc > 1 ? atoi(argv[1]) : 0;
  printf("copy 1 GiB: %.1f us (%.0f GB/s)\n", copy_us(1u << 30, st), 2.0 * (1u << 30) / copy_us(1u << 30, st) / 1e3);
  if (which == 0 || which == 1) {
    run<float, 4, false, 512, 2>("f32", 256, 1048576, st);
    run<float, 2, false, 512, 2>("f32", 256, 1048576, st);
    run<float, 4, false, 256, 4>("f32", 256, 1048576, st);
    run<float, 4, false, 512, 2>("f32", 512, 524288, st);
    run<float, 4, false, 512, 2>("f32", 1024, 262144, st);
    run<float, 4, false, 512, 2>("f32", 2048, 131072, st);
    run<__nv_bfloat16, 4, false, 512, 2>("bf16", 256, 1048576, st);
    run<__nv_bfloat16, 2, false, 512, 2>("bf16", 256, 1048576, st);
    run<__nv_bfloat16, 4, false, 256, 4>("bf16", 256, 1048576, st);
    run<__nv_bfloat16, 4, false, 512, 2>("bf16", 512, 524288, st);
    run<__nv_bfloat16, 4, false, 512, 2>("bf16", 512, 262144, st);
    run<__nv_bfloat16, 2, false, 512, 2>("bf16", 512, 262144, st);
    run<__nv_bfloat16, 4, false, 512, 2>("bf16", 1024, 300000 / 8 * 8, st);
    run<__nv_bfloat16, 4, false, 512, 2>("bf16", 2048, 131072, st);
    run<__nv_bfloat16, 4, false, 512, 2>("bf16", 1024, 65536, st);
  }
  if (which == 0 || which == 2) {
    run<float, 4, true, 512, 2>("f32", 256, 1048576, st);
    run<float, 2, true, 512, 2>("f32", 256, 1048576, st);
    run<float, 4, true, 512, 2>("f32", 512, 524288, st);
    run<__nv_bfloat16, 4, true, 512, 2>("bf16", 256, 1048576, st);
    run<__nv_bfloat16, 2, true, 512, 2>("bf16", 256, 1048576, st);
    run<__nv_bfloat16, 4, true, 512, 2>("bf16", 512, 262144, st);
    run<__nv_bfloat16, 4, true, 512, 2>("bf16", 4096, 32768, st);
  }
  return 0;
}
