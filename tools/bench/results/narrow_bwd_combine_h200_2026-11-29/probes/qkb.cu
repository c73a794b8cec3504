// Probe: the row-pipelined narrow backward (S = 1, plain, 16-bit or f32 rows of <= 32 vectors)
// with knobs: D rows of a team in flight (a ring of register sets; the shipped kernel is D = 2),
// a min-CTAs launch bound, single-stride rows (ND off). The grid is what the occupancy calculator
// gives for the variant (CTAs an SM x SMs), the dw partials are the library's combine and its
// dw_reduce. Cold timing: rotating inputs and outputs, CUDA graph of 100, best of 5. dx bits vs lib.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <algorithm>
#include "kernels/cuda/rmsnorm_bwd.cu"
#include "kernels/include/fusednorm.h"
using namespace fn;

template <typename T, int D, int MINB, bool ND, int COMB = 0>
__global__ void __launch_bounds__(FN_ROW_PACKED_THREADS, MINB) bwd_v(const BwdParams p) {
  using V = Vec<T>;
  constexpr int N = V::N;
  extern __shared__ float dyn_smem[];
  __shared__ ReduceSmem red;
  const Place pl = make_place(p.team, 1, p.n, p.n);
  const bool mine = pl.lane * N < p.n;
  const int col0 = pl.lane * N;
  const int64_t rstep = pl.units * pl.teams;
  float wv[N];
  struct Row { V dy, s; float rs; };
  auto off = [&](int64_t row, int64_t stride, const int64_t (&outer)[3]) {
    return ND ? row_offset(p.nd, row, stride, outer) : row * stride;
  };
  auto fetch = [&](Row &r, int64_t row) {
    if (row >= p.rows || !mine) return;
    r.rs = p.rstd[row];
    ld16(r.dy.w, static_cast<const T *>(p.dy) + off(row, p.dy_stride, p.dy_outer) + col0);
    ld16(r.s.w, static_cast<const T *>(p.s) + off(row, p.s_stride, p.s_outer) + col0);
  };
  float dwc[1][N];
#pragma unroll
  for (int e = 0; e < N; ++e) dwc[0][e] = 0.0f;
  auto process = [&](Row &r, int64_t row, int parity) {
    const bool active = row < p.rows && mine;
    float dot = 0.0f;
    if (active) dot = slot_dot(r.dy, r.s, wv, r.rs, p.llama, 0.0f);
    dot = team_sum(dot, pl.team, 1, parity, red);
    const float mean_gn = dot / (float)p.n;
    if (!active) return;
    V dxv;
    slot_dx(dxv, r.dy, r.s, r.s, false, wv, r.rs, mean_gn, p.llama, dwc[0]);
    st16(static_cast<T *>(p.dx) + off(row, p.dx_stride, p.dx_outer) + col0, dxv.w);
  };
  Row ring[D];
  int64_t row = pl.unit * pl.teams + pl.team_idx;
#pragma unroll
  for (int j = 0; j < D; ++j) fetch(ring[j], row + j * rstep);
  if (mine) load_weight<N>(wv, p.w, p.w_dtype, p.offset, col0, p.n, true);
  int parity = 0;
  for (int64_t base = pl.unit * pl.teams; base < p.rows; base += D * rstep, row += D * rstep) {
#pragma unroll
    for (int j = 0; j < D; ++j) {
      if (base + j * rstep >= p.rows) break;
      process(ring[j], row + j * rstep, parity);
      parity ^= 1;
      fetch(ring[j], row + (j + D) * rstep);
    }
  }
  if (COMB == 0) combine_team_dw<N, 1>(dwc, pl, col0, pl.team * N, dyn_smem, p.ws + pl.unit * (int64_t)p.n);
  else if (mine) { /* timing only: every team's dw to its own column of the partial row (wrong sums) */
#pragma unroll
    for (int e = 0; e < N; ++e) p.ws[pl.unit * (int64_t)p.n + col0 + e] = dwc[0][e];
  }
}

static void ck(cudaError_t e, int l) { if (e) { printf("CUDA %s line %d\n", cudaGetErrorString(e), l); exit(1); } }
#define CK(x) ck(x, __LINE__)

template <typename L>
static double timeit(L launch, cudaStream_t s, int NS) {
  for (int i = 0; i < NS; ++i) launch(i, s);
  CK(cudaStreamSynchronize(s)); CK(cudaGetLastError());
  cudaGraph_t g; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < 100; ++i) launch(i % NS, s);
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
  return best * 1000.0 / 100;
}

template <typename T>
__global__ void init_k(T *p, size_t n, uint32_t seed, float lo, float span) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2654435761u ^ seed; h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16;
    p[i] = (T)(lo + span * (h >> 8) * (1.0f / 16777216.0f));
  }
}
static bool same(const void *a, const void *b, size_t bytes) {
  std::vector<char> ha(bytes), hb(bytes);
  CK(cudaMemcpy(ha.data(), a, bytes, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(hb.data(), b, bytes, cudaMemcpyDeviceToHost));
  return memcmp(ha.data(), hb.data(), bytes) == 0;
}
template <typename T> static double maxrel(const T *a, const T *b, int n) {
  std::vector<T> ha(n), hb(n);
  CK(cudaMemcpy(ha.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost)); CK(cudaMemcpy(hb.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
  double m = 0;
  for (int i = 0; i < n; ++i) { double x = (double)(float)ha[i], y = (double)(float)hb[i]; m = std::max(m, fabs(x - y) / std::max(1e-30, fabs(x))); }
  return m;
}

struct VarT { const char *name; const void *k; };

template <typename T>
static void run_case(fusednorm_dtype xd, const char *dt, int M, int n, uint32_t seed, int sms) {
  const size_t E = (size_t)M * n;
  int NS = (int)std::min<size_t>(8, std::max<size_t>(2, ((size_t)4 << 28) / (3 * E * sizeof(T)) + 1));
  std::vector<T *> x(NS), dy(NS), dx(NS); std::vector<float *> rs(NS);
  T *w, *dw, *dxref, *dwref; float *ws;
  for (int i = 0; i < NS; ++i) {
    CK(cudaMalloc(&x[i], E * sizeof(T))); init_k<<<1024, 256>>>(x[i], E, seed + i, -2.f, 4.f);
    CK(cudaMalloc(&dy[i], E * sizeof(T))); init_k<<<1024, 256>>>(dy[i], E, seed + 100 + i, -1.f, 2.f);
    CK(cudaMalloc(&dx[i], E * sizeof(T))); CK(cudaMalloc(&rs[i], M * 4)); init_k<<<64, 256>>>(rs[i], M, seed + 200 + i, 0.5f, 1.f);
  }
  CK(cudaMalloc(&w, n * sizeof(T))); init_k<<<8, 256>>>(w, n, seed + 999, 0.5f, 1.0f);
  CK(cudaMalloc(&dw, n * sizeof(T))); CK(cudaMalloc(&dwref, n * sizeof(T))); CK(cudaMalloc(&dxref, E * sizeof(T)));
  fusednorm_problem p = fusednorm_problem_init(M, n, xd, xd);
  p.casting = FUSEDNORM_CAST_LLAMA;
  size_t wsb = 0; if (fusednorm_backward_workspace_size_cuda(&p, -1, &wsb)) exit(1);
  wsb = std::max(wsb, (size_t)sms * 16 * n * 4);
  CK(cudaMalloc(&ws, wsb));
  CK(cudaDeviceSynchronize());
  cudaStream_t s; CK(cudaStreamCreate(&s));
  int team = 1; while (team * (16 / (int)sizeof(T)) < n) team *= 2;
  auto lib = [&](int i, T *dxo, T *dwo, cudaStream_t st) {
    fusednorm_bwd_args a = {}; a.dy = dy[i]; a.dy_stride = n; a.s = x[i]; a.s_stride = n; a.weight = w; a.rstd = rs[i];
    a.dx = dxo; a.dx_stride = n; a.dw = dwo; a.workspace = ws; a.workspace_bytes = wsb;
    if (fusednorm_backward_cuda(&p, &a, st)) { printf("lib err %s\n", fusednorm_cuda_error_string()); exit(1); }
  };
  const VarT vars[] = {
    {"d2m4", (const void *)bwd_v<T, 2, 4, false>}, {"d2m4-main", (const void *)bwd_v<T, 2, 4, false>},
    {"d2m4-nocomb", (const void *)bwd_v<T, 2, 4, false, 1>}, {"d2m4-nocomb-main", (const void *)bwd_v<T, 2, 4, false, 1>},
    {"d2m5", (const void *)bwd_v<T, 2, 5, false>}, {"d1m6", (const void *)bwd_v<T, 1, 6, false>},
  };
  const int NV = sizeof(vars) / sizeof(vars[0]);
  auto var = [&](int v, int i, T *dxo, T *dwo, cudaStream_t st) {
    const int smem = 2 * n * 4;
    int per = 0; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, vars[v].k, FN_ROW_PACKED_THREADS, smem));
    const int64_t teams = FN_ROW_PACKED_THREADS / team;
    int64_t grid = std::min<int64_t>((int64_t)per * sms, (M + teams - 1) / teams);
    BwdParams q = {}; q.dy = dy[i]; q.s = x[i]; q.w = w; q.rstd = rs[i]; q.dx = dxo; q.ws = ws;
    q.dy_stride = q.s_stride = q.ds_stride = q.dx_stride = n; q.rows = M; q.n = n; q.w_dtype = xd; q.offset = 0;
    q.team = team; q.cluster = 1; q.chunk = n; q.aligned = 1; q.llama = 1; q.nd.dims = 1;
    void *args[] = {&q};
    CK(cudaLaunchKernel(vars[v].k, dim3((unsigned)grid), dim3(FN_ROW_PACKED_THREADS), args, smem, st));
    int cols = 0, sl = 0; fn_dw_reduce_shape(grid, n, &cols, &sl);
    const int64_t P = grid; int nn = n, wdt = xd; void *dwv = dwo; const float *wsc = ws;
    void *rargs[] = {(void *)&wsc, (void *)&P, &nn, &dwv, &wdt};
    if (!strstr(vars[v].name, "-main")) CK(cudaLaunchKernel(dw_reduce_kernel(cols, sl), dim3((unsigned)((n + cols - 1) / cols)), dim3(cols * sl), rargs, 0, st));
    return grid;
  };
  const double tl = timeit([&](int i, cudaStream_t st) { lib(i, dx[i], dw, st); }, s, NS);
  double tv[16]; bool ok[16]; double dr[16]; int64_t gr[16];
  for (int v = 0; v < NV; ++v) tv[v] = timeit([&](int i, cudaStream_t st) { var(v, i, dx[i], dw, st); }, s, NS);
  lib(0, dxref, dwref, s); CK(cudaStreamSynchronize(s));
  for (int v = 0; v < NV; ++v) {
    CK(cudaMemset(dx[0], 0xff, E * sizeof(T))); CK(cudaMemset(dw, 0xff, n * sizeof(T)));
    gr[v] = var(v, 0, dx[0], dw, s); CK(cudaStreamSynchronize(s)); CK(cudaGetLastError());
    ok[v] = same(dxref, dx[0], E * sizeof(T));
    dr[v] = maxrel(dwref, dw, n);
  }
  const double bytes = 3.0 * E * sizeof(T) + M * 4.0;
  printf("%-4s %8d %4d lib %7.2f us %5.0f GB/s |", dt, M, n, tl, bytes / tl / 1e3);
  for (int v = 0; v < NV; ++v) printf(" %s %.2fus %.2f%s(g%lld%s)", vars[v].name, tv[v], tl / tv[v], ok[v] ? "" : "!DX", (long long)gr[v], dr[v] < 1e-2 ? "" : "!DW");
  printf("\n"); fflush(stdout);
  for (int i = 0; i < NS; ++i) { cudaFree(x[i]); cudaFree(dy[i]); cudaFree(dx[i]); cudaFree(rs[i]); }
  cudaFree(w); cudaFree(dw); cudaFree(dwref); cudaFree(dxref); cudaFree(ws); cudaStreamDestroy(s);
}

int main(int argc, char **argv) {
  const unsigned seed = argc > 1 ? (unsigned)atoi(argv[1]) : 79;
  int sms = 0; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  printf("seed %u sms %d (lib time; each variant lib/variant, g = its grid)\n", seed, sms);
  const int c[][2] = {{16384, 128}, {65536, 128}, {262144, 128}, {1048576, 128}, {65536, 64}, {262144, 64}, {65536, 256}, {262144, 256}, {20000, 256}, {1000000, 64}};
  for (auto &e : c) run_case<__nv_bfloat16>(FUSEDNORM_BF16, "bf16", e[0], e[1], seed, sms);
  run_case<__half>(FUSEDNORM_F16, "fp16", 65536, 128, seed, sms);
  run_case<float>(FUSEDNORM_F32, "f32", 65536, 128, seed, sms);
  run_case<float>(FUSEDNORM_F32, "f32", 262144, 64, seed, sms);
  return 0;
}
