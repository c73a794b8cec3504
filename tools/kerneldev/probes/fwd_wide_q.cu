// Probe: the wide forward of many wide rows in Quack's arrangement, against the library's AUTO
// (the staged-weight wide forward there: a grid of the resident clusters looping over rows, half a
// thread's x in registers, the weight copied into shared memory once a CTA). Here one CTA a
// (row, chunk) and no row loop (a grid of rows x cluster CTAs), the whole chunk's x copied into
// shared memory by cp.async, each thread's raw 16-byte weight pieces loaded into registers right
// after its copies are issued (their L2 latency behind x's), the cluster's push sum of
// rmsnorm_fwd_wide.cu, y from the stage and the registers' weight. Plain rows, aligned, 16-bit x
// with a 16-bit weight or f32 with f32 (the weight a slot: one 16-byte piece). Cold timing as in
// bwd_row_s8.cu (rotating inputs, a CUDA graph of 100 launches, best of 5, twice each way);
// checks y and rstd against AUTO (the sum order differs: max ulp printed, at most 1 expected).
// Build here (a staged library in gpu_dev/NAME/lib):
//   nvcc -std=c++17 -O3 -arch=sm_90a -I. -Ikernels/include tools/kerneldev/probes/fwd_wide_q.cu \
//     -o gpu_dev/q/fwdq -Lgpu_dev/NAME/lib -lfusednorm -Xlinker -rpath -Xlinker '$ORIGIN/../NAME/lib'
#include <cuda_bf16.h>
#include "kernels/cuda/rmsnorm_fwd_wide.cu"
#include "kernels/include/fusednorm.h"
#include "tools/kerneldev/probes/probe_util.cuh"
namespace fn {
/* J slots a thread, all staged; T threads; MINB CTAs an SM (the register bound). */
template <typename T, int J, int THREADS, int MINB>
__global__ void __launch_bounds__(THREADS, MINB) fwdq(const FwdWideParams p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  __shared__ WideRed red;
  extern __shared__ uint4 stage[];
  const int cl = p.cluster, crank = cluster_rank();
  cluster_push_init(red);
  const int64_t row = blockIdx.x / cl;
  const T *xr = static_cast<const T *>(p.x) + row * p.x_stride;
  T *yr = static_cast<T *>(p.y) + row * p.y_stride;
  const int c0 = crank * p.chunk, c1 = min(p.n, c0 + p.chunk);
  const int step = THREADS * N, col0 = c0 + (int)threadIdx.x * N;
  uint4 *const st = stage + threadIdx.x;
#pragma unroll
  for (int j = 0; j < J; ++j) {
    const int col = col0 + j * step;
    if (col < c1) cp_async16_part(st + j * THREADS, xr + col, 16);
  }
  cp_async_commit();
  uint4 wr[J];
#pragma unroll
  for (int j = 0; j < J; ++j) {
    const int col = col0 + j * step;
    wr[j] = col < c1 ? ld_piece<T>(p, col) : make_uint4(0, 0, 0, 0);
  }
  cp_async_wait_all();
  float ss = 0.0f;
#pragma unroll
  for (int j = 0; j < J; ++j)
    if (col0 + j * step < c1) ss = add_squares(smem_get<T>(st + j * THREADS), ss);
  cluster_push_ready();
  const float total = cluster_push_sum(ss, cl, crank, 0, 0, red);
  const float rstd = rstd_of(total, p.n, p.eps);
  if (p.rstd != nullptr && crank == 0 && threadIdx.x == 0) p.rstd[row] = rstd;
#pragma unroll
  for (int j = 0; j < J; ++j) {
    const int col = col0 + j * step;
    if (col < c1) {
      float w[N];
      V yv;
      piece_weight<N>(w, wr[j], p.w_dtype, p.offset);
      normalize_slot<T, false>(yv, smem_get<T>(st + j * THREADS), w, rstd);
      st16(yr + col, yv.w);
    }
  }
}
}  // namespace fn
using namespace fn;

template <typename T> struct DT;
template <> struct DT<__nv_bfloat16> { static constexpr fusednorm_dtype v = FUSEDNORM_BF16; static constexpr const char *s = "bf16"; };
template <> struct DT<float> { static constexpr fusednorm_dtype v = FUSEDNORM_F32; static constexpr const char *s = "f32"; };

template <typename T> static double max_ulp(const T *a, const T *b, size_t n, size_t *ndiff) {
  std::vector<T> ha(n), hb(n);
  CK(cudaMemcpy(ha.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hb.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
  double m = 0; *ndiff = 0;
  for (size_t i = 0; i < n; ++i) {
    int64_t ia = 0, ib = 0;
    memcpy(&ia, &ha[i], sizeof(T)); memcpy(&ib, &hb[i], sizeof(T));
    if (ia != ib) { ++*ndiff; m = std::max(m, (double)llabs(ia - ib)); }
  }
  return m;
}

template <typename T, int J, int THREADS, int MINB> static void run_case(int M, int n, uint32_t seed) {
  constexpr int N = 16 / sizeof(T);
  const size_t E = (size_t)M * n;
  const int chunk = THREADS * J * N;
  const int cl = (n + chunk - 1) / chunk;
  if (cl > 16 || (int64_t)chunk * (cl - 1) >= n || n % N) { printf("%s %d x %d: T=%d J=%d: no cluster\n", DT<T>::s, M, n, THREADS, J); return; }
  const int NS = (int)std::min<size_t>(8, std::max<size_t>(2, ((size_t)4 << 28) / (2 * E * sizeof(T)) + 1));
  std::vector<T *> x(NS), y(NS);
  T *w, *yref; float *rs, *rsref;
  for (int i = 0; i < NS; ++i) {
    CK(cudaMalloc(&x[i], E * sizeof(T))); init_k<<<1024, 256>>>(x[i], E, seed + i, -2.f, 4.f);
    CK(cudaMalloc(&y[i], E * sizeof(T)));
  }
  CK(cudaMalloc(&w, n * sizeof(T))); init_k<<<64, 256>>>(w, n, seed + 999, 0.5f, 1.0f);
  CK(cudaMalloc(&yref, E * sizeof(T))); CK(cudaMalloc(&rs, M * 4)); CK(cudaMalloc(&rsref, M * 4));
  CK(cudaDeviceSynchronize());
  cudaStream_t s; CK(cudaStreamCreate(&s));
  fusednorm_problem p = fusednorm_problem_init(M, n, DT<T>::v, DT<T>::v);
  auto lib = [&](int i, T *yo, float *ro, cudaStream_t st) {
    fusednorm_fwd_args a = {}; a.x = x[i]; a.x_stride = n; a.weight = w; a.y = yo; a.y_stride = n; a.rstd = ro;
    if (fusednorm_forward_cuda(&p, &a, st)) { printf("lib err %s\n", fusednorm_cuda_error_string()); exit(1); }
  };
  const void *k = (const void *)fwdq<T, J, THREADS, MINB>;
  const int smem = J * THREADS * 16;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  int per = 0; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, THREADS, smem));
  auto var = [&](int i, T *yo, float *ro, cudaStream_t st) {
    FwdWideParams q = {}; q.x = x[i]; q.w = w; q.y = yo; q.rstd = ro; q.x_stride = q.y_stride = n; q.rows = M; q.n = n;
    q.w_dtype = DT<T>::v; q.offset = 0; q.eps = p.eps; q.cluster = cl; q.chunk = chunk; q.aligned = 1; q.nd.dims = 1;
    cudaLaunchConfig_t cfg = {}; cudaLaunchAttribute at[1];
    cfg.gridDim = dim3((unsigned)((int64_t)M * cl)); cfg.blockDim = dim3(THREADS); cfg.dynamicSmemBytes = smem; cfg.stream = st;
    at[0].id = cudaLaunchAttributeClusterDimension; at[0].val.clusterDim.x = cl; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
    cfg.attrs = at; cfg.numAttrs = 1;
    CK(cudaLaunchKernelEx(&cfg, (void (*)(FwdWideParams))k, q));
  };
  const double tl = timeit([&](int i, cudaStream_t st) { lib(i, y[i], rs, st); }, s, NS);
  const double tv = timeit([&](int i, cudaStream_t st) { var(i, y[i], rs, st); }, s, NS);
  const double tl2 = timeit([&](int i, cudaStream_t st) { lib(i, y[i], rs, st); }, s, NS);
  const double tv2 = timeit([&](int i, cudaStream_t st) { var(i, y[i], rs, st); }, s, NS);
  lib(0, yref, rsref, s); CK(cudaStreamSynchronize(s));
  CK(cudaMemset(y[0], 0xff, E * sizeof(T))); CK(cudaMemset(rs, 0xff, M * 4));
  var(0, y[0], rs, s); CK(cudaStreamSynchronize(s)); CK(cudaGetLastError());
  size_t dy = 0, dr = 0;
  const double uy = max_ulp(yref, y[0], E, &dy), ur = max_ulp(rsref, rs, M, &dr);
  const double bytes = 2.0 * E * sizeof(T) + n * sizeof(T) + M * 4.0;
  const double a = std::min(tl, tl2), b = std::min(tv, tv2);
  printf("%s %6d x %7d lib %8.2f us %5.0f GB/s | q T=%d J=%d cl=%2d %d CTA/SM: %8.2f us %5.0f GB/s  %.3fx  y: %zu differ (max %g ulp), rstd: %zu differ (max %g ulp)\n",
         DT<T>::s, M, n, a, bytes / a / 1e3, THREADS, J, cl, per, b, bytes / b / 1e3, a / b, dy, uy, dr, ur);
  fflush(stdout);
  for (int i = 0; i < NS; ++i) { cudaFree(x[i]); cudaFree(y[i]); }
  cudaFree(w); cudaFree(yref); cudaFree(rs); cudaFree(rsref); cudaStreamDestroy(s);
}

int main(int argc, char **argv) {
  const unsigned seed = argc > 1 ? (unsigned)atoi(argv[1]) : 7;
  printf("seed %u; lib = AUTO of the library beside it; speed-up = lib / q\n", seed);
  const int b16[][2] = {{1024, 65536}, {2048, 65536}, {512, 262144}, {1024, 131072}, {300, 65536}, {4096, 32768}, {700, 98304}};
  for (auto &e : b16) {
    run_case<__nv_bfloat16, 8, 256, 4>(e[0], e[1], seed);
    run_case<__nv_bfloat16, 4, 512, 2>(e[0], e[1], seed);
    run_case<__nv_bfloat16, 8, 256, 3>(e[0], e[1], seed);
  }
  const int f32[][2] = {{1024, 65536}, {2048, 65536}, {512, 131072}, {300, 160000}, {1500, 40000}};
  for (auto &e : f32) {
    run_case<float, 8, 256, 4>(e[0], e[1], seed);
    run_case<float, 4, 512, 2>(e[0], e[1], seed);
    run_case<float, 8, 256, 3>(e[0], e[1], seed);
  }
  return 0;
}
