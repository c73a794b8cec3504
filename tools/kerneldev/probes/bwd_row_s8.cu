// Probe: the lean persistent backward (rms_norm_bwd_row) at S = 8 slots a thread, up to 512
// threads (one CTA an SM), on f32 rows of 2049-4096 16-byte slots (8196-16384 columns), against
// the library's AUTO: plain (what AUTO runs there, kernels/RESULTS.md "Rows of 2049-4096
// slots") and the fused add, whose ds is either held with dy and s across the row's reduction or
// loaded in the dx pass (LATE); AUTO gives the fused add the persistent generic kernel. A copy of
// the shipped kernel's body under its 8-slot launch bound (ptxas, nvcc 13.0 sm_90a: 128 registers,
// 4 bytes of spills plain, 300 with ds held, 4 with it loaded late); grid = SMs x resident CTAs,
// then the library's dw_reduce. Cold timing:
// rotating inputs, a CUDA graph of 100 launches, best of 5, twice each way. Checks dx bits and dw
// against the library's AUTO. Build here (a staged library in gpu_dev/NAME/lib, stage.sh):
//   nvcc -std=c++17 -O3 -arch=sm_90a -I. -Ikernels/include tools/kerneldev/probes/bwd_row_s8.cu \
//     -o gpu_dev/p8/bwd8 -Lgpu_dev/NAME/lib -lfusednorm -Xlinker -rpath -Xlinker '$ORIGIN/../NAME/lib'
// and run gpu_dev/p8/bwd8 [SEED] on the GPU machine (carry gpu_dev/p8 and gpu_dev/NAME).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <algorithm>
#include "kernels/cuda/rmsnorm_bwd.cu"
#include "kernels/cuda/rmsnorm_bwd_row.cu"
#include "kernels/include/fusednorm.h"
#include "tools/kerneldev/probes/probe_util.cuh"
namespace fn {
/* LATE: the fused add's ds loaded in the dx pass, a slot at a time, instead of with dy and s (held
 * across the row's reduction, ds spilled 300 bytes at 128 registers). */
template <typename T, int S, bool HAS_DS, bool LATE = false>
__global__ void __launch_bounds__(512, 1) bwd8(const BwdParams p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  extern __shared__ float dyn_smem[]; /* the fp32 effective weight of the row (n floats) */
  float *const wsm = dyn_smem;
  __shared__ PaddedRed red;
  const int step = blockDim.x * N, col0 = threadIdx.x * N;
  red.zero();
  V cdy[S], cs[S], cds[S];
  float rs = 0.0f;
  auto fetch = [&](int64_t row) {
    const T *dyr = static_cast<const T *>(p.dy) + row_offset(p.nd, row, p.dy_stride, p.dy_outer);
    const T *sr = static_cast<const T *>(p.s) + row_offset(p.nd, row, p.s_stride, p.s_outer);
    const T *dsr = static_cast<const T *>(p.ds) + row_offset(p.nd, row, p.ds_stride, p.ds_outer);
    rs = p.rstd[row];
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int col = col0 + k * step;
      if (col < p.n) {
        ld16(cdy[k].w, dyr + col);
        ld16(cs[k].w, sr + col);
        if (HAS_DS && !LATE) ld16(cds[k].w, dsr + col);
      }
    }
  };
  /* The first row's loads go out before the weight is staged, so that a CTA with one or two rows
   * (small problems, where the kernel's latency is its time) waits for one memory round trip, not
   * two; later rows are loaded right after the previous row's stores. */
  int64_t row = blockIdx.x;
  if (row < p.rows) fetch(row);
  /* Each thread stages and later reads only its own columns of the weight. */
#pragma unroll
  for (int k = 0; k < S; ++k) {
    const int col = col0 + k * step;
    if (col < p.n) stage_weight<N>(wsm + col, p.w, p.w_dtype, p.offset, col, p.n, true);
  }
  __syncthreads();

  float dwc[S][N];
#pragma unroll
  for (int k = 0; k < S; ++k)
#pragma unroll
    for (int e = 0; e < N; ++e) dwc[k][e] = 0.0f;

  for (int parity = 0; row < p.rows; parity ^= 1) {
    T *dxr = static_cast<T *>(p.dx) + row_offset(p.nd, row, p.dx_stride, p.dx_outer);
    const T *dsl = static_cast<const T *>(p.ds) + row_offset(p.nd, row, p.ds_stride, p.ds_outer);
    float dot = 0.0f;
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int col = col0 + k * step;
      if (col < p.n) {
        float wv[N];
        smem_weight<N>(wv, wsm, col);
        dot = slot_dot(cdy[k], cs[k], wv, rs, p.llama, dot);
      }
    }
    const float mean_gn = red.sum(dot, parity) / (float)p.n;
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int col = col0 + k * step;
      if (col < p.n) {
        float wv[N];
        smem_weight<N>(wv, wsm, col);
        V dxv;
        if (HAS_DS && LATE) ld16(cds[0].w, dsl + col);
        slot_dx(dxv, cdy[k], cs[k], cds[LATE ? 0 : k], HAS_DS, wv, rs, mean_gn, p.llama, dwc[k]);
        st16(dxr + col, dxv.w);
      }
    }
    row += gridDim.x;
    if (row < p.rows) fetch(row);
  }
  /* This CTA's partial dw row (16-byte aligned: the workspace is, and n % N == 0); a grid of
   * this one CTA summing dw in the kernel writes dw itself (partial_out). */
  float *const wsrow = p.ws + (int64_t)blockIdx.x * p.n;
  const bool direct = p.dw != nullptr && gridDim.x == 1;
#pragma unroll
  for (int k = 0; k < S; ++k) {
    const int col = col0 + k * step;
    if (col < p.n && direct) {
#pragma unroll
      for (int e = 0; e < N; ++e) partial_out(wsrow, p.dw, p.w_dtype, col + e, dwc[k][e]);
    } else if (col < p.n) {
      float4 *q = reinterpret_cast<float4 *>(wsrow + col);
#pragma unroll
      for (int i = 0; i < N / 4; ++i)
        q[i] = make_float4(dwc[k][4 * i], dwc[k][4 * i + 1], dwc[k][4 * i + 2], dwc[k][4 * i + 3]);
    }
  }
  if (p.dw != nullptr) dw_reduce_in_kernel(p.ws, (int)gridDim.x, p.n, p.dw, p.w_dtype);
}

}
using namespace fn;
template <bool DS, bool LATE = false>
static void run_case(int M, int n, uint32_t seed, int sms) {
  typedef float T;
  const size_t E = (size_t)M * n;
  int NS = (int)std::min<size_t>(8, std::max<size_t>(2, ((size_t)4 << 28) / (4 * E * sizeof(T)) + 1));
  std::vector<T *> x(NS), dy(NS), ds(NS), dx(NS); std::vector<float *> rs(NS);
  T *w, *dw, *dxref, *dwref; float *ws;
  for (int i = 0; i < NS; ++i) {
    CK(cudaMalloc(&x[i], E * sizeof(T))); init_k<<<1024, 256>>>(x[i], E, seed + i, -2.f, 4.f);
    CK(cudaMalloc(&dy[i], E * sizeof(T))); init_k<<<1024, 256>>>(dy[i], E, seed + 100 + i, -1.f, 2.f);
    CK(cudaMalloc(&ds[i], E * sizeof(T))); init_k<<<1024, 256>>>(ds[i], E, seed + 300 + i, -1.f, 2.f);
    CK(cudaMalloc(&dx[i], E * sizeof(T))); CK(cudaMalloc(&rs[i], M * 4)); init_k<<<64, 256>>>(rs[i], M, seed + 200 + i, 0.5f, 1.f);
  }
  CK(cudaMalloc(&w, n * sizeof(T))); init_k<<<8, 256>>>(w, n, seed + 999, 0.5f, 1.0f);
  CK(cudaMalloc(&dw, n * sizeof(T))); CK(cudaMalloc(&dwref, n * sizeof(T))); CK(cudaMalloc(&dxref, E * sizeof(T)));
  fusednorm_problem p = fusednorm_problem_init(M, n, FUSEDNORM_F32, FUSEDNORM_F32);
  p.has_residual = DS;
  size_t wsb = 0; if (fusednorm_backward_workspace_size_cuda(&p, -1, &wsb)) exit(1);
  wsb = std::max(wsb, (size_t)sms * 2 * n * 4);
  CK(cudaMalloc(&ws, wsb));
  CK(cudaDeviceSynchronize());
  cudaStream_t s; CK(cudaStreamCreate(&s));
  auto lib = [&](int i, T *dxo, T *dwo, cudaStream_t st) {
    fusednorm_bwd_args a = {}; a.dy = dy[i]; a.dy_stride = n; a.s = x[i]; a.s_stride = n; a.weight = w; a.rstd = rs[i];
    if (DS) { a.ds = ds[i]; a.ds_stride = n; }
    a.dx = dxo; a.dx_stride = n; a.dw = dwo; a.workspace = ws; a.workspace_bytes = wsb;
    if (fusednorm_backward_cuda(&p, &a, st)) { printf("lib err %s\n", fusednorm_cuda_error_string()); exit(1); }
  };
  const void *k = (const void *)bwd8<float, 8, DS, LATE>;
  const int slots = n / 4, threads = ((slots + 7) / 8 + 31) / 32 * 32, smem = n * 4;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int per = 0; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, threads, smem));
  const int64_t grid = std::min<int64_t>((int64_t)per * sms, M);
  auto var = [&](int i, T *dxo, T *dwo, cudaStream_t st) {
    BwdParams q = {}; q.dy = dy[i]; q.s = x[i]; q.ds = DS ? ds[i] : nullptr; q.w = w; q.rstd = rs[i]; q.dx = dxo; q.ws = ws;
    q.dy_stride = q.s_stride = q.ds_stride = q.dx_stride = n; q.rows = M; q.n = n; q.w_dtype = FUSEDNORM_F32; q.offset = 0;
    q.team = threads; q.cluster = 1; q.chunk = n; q.aligned = 1; q.llama = 0; q.nd.dims = 1; q.w_smem = 1;
    void *args[] = {&q};
    CK(cudaLaunchKernel(k, dim3((unsigned)grid), dim3(threads), args, smem, st));
    int cols = 0, sl = 0; fn_dw_reduce_shape(grid, n, &cols, &sl);
    const int64_t P = grid; int nn = n, wdt = FUSEDNORM_F32; void *dwv = dwo; const float *wsc = ws;
    void *rargs[] = {(void *)&wsc, (void *)&P, &nn, &dwv, &wdt};
    CK(cudaLaunchKernel(dw_reduce_kernel(cols, sl), dim3((unsigned)((n + cols - 1) / cols)), dim3(cols * sl), rargs, 0, st));
  };
  const double tl = timeit([&](int i, cudaStream_t st) { lib(i, dx[i], dw, st); }, s, NS);
  const double tv = timeit([&](int i, cudaStream_t st) { var(i, dx[i], dw, st); }, s, NS);
  const double tl2 = timeit([&](int i, cudaStream_t st) { lib(i, dx[i], dw, st); }, s, NS);
  const double tv2 = timeit([&](int i, cudaStream_t st) { var(i, dx[i], dw, st); }, s, NS);
  lib(0, dxref, dwref, s); CK(cudaStreamSynchronize(s));
  CK(cudaMemset(dx[0], 0xff, E * sizeof(T))); CK(cudaMemset(dw, 0xff, n * sizeof(T)));
  var(0, dx[0], dw, s); CK(cudaStreamSynchronize(s)); CK(cudaGetLastError());
  const bool ok = same(dxref, dx[0], E * sizeof(T));
  const double dr = maxrel(dwref, dw, n), xr = maxrel(dxref, dx[0], (int)std::min<size_t>(E, 1 << 24));
  const double bytes = (DS ? 4.0 : 3.0) * E * sizeof(T) + M * 4.0;
  const double a = std::min(tl, tl2), b = std::min(tv, tv2);
  printf("f32 %6d x %5d %s%s lib %8.2f us %5.0f GB/s | S=8 x %3d thr, %d CTA/SM, grid %lld: %8.2f us %5.0f GB/s  %.3fx  dx %s (max rel %.1e) dw max rel %.1e\n",
         M, n, DS ? "fused" : "plain", LATE ? " (ds late)" : "", a, bytes / a / 1e3, threads, per, (long long)grid, b, bytes / b / 1e3, a / b,
         ok ? "bitwise" : "DIFFERS", xr, dr);
  fflush(stdout);
  for (int i = 0; i < NS; ++i) { cudaFree(x[i]); cudaFree(dy[i]); cudaFree(ds[i]); cudaFree(dx[i]); cudaFree(rs[i]); }
  cudaFree(w); cudaFree(dw); cudaFree(dwref); cudaFree(dxref); cudaFree(ws); cudaStreamDestroy(s);
}

int main(int argc, char **argv) {
  const unsigned seed = argc > 1 ? (unsigned)atoi(argv[1]) : 7;
  int sms = 0; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  printf("seed %u sms %d; lib = AUTO of the library beside it; speed-up = lib / S=8\n", seed, sms);
  const int c[][2] = {{4096, 8704}, {4096, 10240}, {4096, 12288}, {4096, 16384}, {9384, 11020}, {16384, 12288}, {1024, 16384}, {600, 14336}, {32768, 9216}};
  for (auto &e : c) run_case<false>(e[0], e[1], seed, sms);
  for (auto &e : c) run_case<true>(e[0], e[1], seed, sms);
  for (auto &e : c) run_case<true, true>(e[0], e[1], seed, sms);
  return 0;
}
