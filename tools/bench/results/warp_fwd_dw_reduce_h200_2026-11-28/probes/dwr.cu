// Probe: dw_reduce variants for P partial rows x n columns. Times each variant as a CUDA graph of
// 200 launches (per-launch time = kernel + the graph's launch gap), checks every variant's bits
// against the reference chain sum in float64 (max rel err) and against A.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cmath>
#include "kernels/cuda/rmsnorm_bwd_slot.cuh"
using namespace fn;

// A: the shipped dw_reduce (copy).
__global__ void __launch_bounds__(1024) varA(const float *ws, int64_t P, int n, void *dw, int w_dtype) {
  __shared__ float part[32][33];
  __shared__ float pcomp[32][33];
  const int lane = threadIdx.x % 32, slice = threadIdx.x / 32;
  const int64_t p0 = P * slice / 32, p1 = P * (slice + 1) / 32;
  for (int64_t cb = (int64_t)blockIdx.x * 32; cb < n; cb += (int64_t)gridDim.x * 32) {
    const int64_t col = cb + lane;
    Kahan k;
    if (col < n) {
      const float *src = ws + col;
#pragma unroll 8
      for (int64_t u = p0; u < p1; ++u) k.add(src[u * n]);
    }
    part[slice][lane] = k.s;
    pcomp[slice][lane] = k.c;
    __syncthreads();
    if (slice == 0 && col < n) {
      Kahan t;
#pragma unroll
      for (int i = 0; i < 32; ++i) { t.add(part[i][lane]); t.add(-pcomp[i][lane]); }
      store_dw(dw, w_dtype, col, t.s);
    }
    __syncthreads();
  }
}

// B: chain, a thread per column.
__global__ void __launch_bounds__(256) varB(const float *ws, int P, int n, void *dw, int w_dtype) {
  for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < n; col += gridDim.x * blockDim.x)
    store_dw(dw, w_dtype, col, dw_chain(ws, P, n, col));
}

// C<COLS, SL, B>: CTA of COLS columns x SL slices; each slice's rows loaded B at a time (all in
// flight), summed in row order; slices combined by a fixed pairwise tree (slice i += slice i+h).
template <int COLS, int SL, int B>
__global__ void __launch_bounds__(COLS * SL) varC(const float *ws, int P, int n, void *dw, int w_dtype) {
  __shared__ float ps[SL][COLS + 1], pc[SL][COLS + 1];
  const int lane = threadIdx.x % COLS, slice = threadIdx.x / COLS;
  const int p0 = (int)((int64_t)P * slice / SL), p1 = (int)((int64_t)P * (slice + 1) / SL);
  for (int cb = blockIdx.x * COLS; cb < n; cb += gridDim.x * COLS) {
    const int col = cb + lane;
    Kahan k;
    if (col < n) {
      const float *src = ws + col;
      for (int u = p0; u < p1; u += B) {
        float v[B];
#pragma unroll
        for (int i = 0; i < B; ++i) v[i] = u + i < p1 ? src[(int64_t)(u + i) * n] : 0.0f;
#pragma unroll
        for (int i = 0; i < B; ++i) if (u + i < p1) k.add(v[i]);
      }
    }
    ps[slice][lane] = k.s; pc[slice][lane] = k.c;
#pragma unroll
    for (int h = 1; h < SL; h *= 2) {
      __syncthreads();
      if ((slice & (2 * h - 1)) == 0) {
        Kahan t; t.s = ps[slice][lane]; t.c = pc[slice][lane];
        t.add(ps[slice + h][lane]); t.add(-pc[slice + h][lane]);
        ps[slice][lane] = t.s; pc[slice][lane] = t.c;
      }
    }
    if (slice == 0 && col < n) store_dw(dw, w_dtype, col, ps[0][lane]);
    __syncthreads();
  }
}


// D<COLS, SL>: A's slice loop (row order, unroll 8), SL slices, the fixed pairwise tree.
template <int COLS, int SL>
__global__ void __launch_bounds__(COLS * SL) varD(const float *ws, int P, int n, void *dw, int w_dtype) {
  __shared__ float ps[SL][COLS + 1], pc[SL][COLS + 1];
  const int lane = threadIdx.x % COLS, slice = threadIdx.x / COLS;
  const int p0 = (int)((int64_t)P * slice / SL), p1 = (int)((int64_t)P * (slice + 1) / SL);
  for (int cb = blockIdx.x * COLS; cb < n; cb += gridDim.x * COLS) {
    const int col = cb + lane;
    Kahan k;
    if (col < n) {
      const float *src = ws + col;
#pragma unroll 8
      for (int u = p0; u < p1; ++u) k.add(src[(int64_t)u * n]);
    }
    ps[slice][lane] = k.s; pc[slice][lane] = k.c;
#pragma unroll
    for (int h = 1; h < SL; h *= 2) {
      __syncthreads();
      if ((slice & (2 * h - 1)) == 0) {
        Kahan t; t.s = ps[slice][lane]; t.c = pc[slice][lane];
        t.add(ps[slice + h][lane]); t.add(-pc[slice + h][lane]);
        ps[slice][lane] = t.s; pc[slice][lane] = t.c;
      }
    }
    if (slice == 0 && col < n) store_dw(dw, w_dtype, col, ps[0][lane]);
    __syncthreads();
  }
}

static void ck(cudaError_t e, int l) { if (e) { printf("CUDA %s line %d\n", cudaGetErrorString(e), l); exit(1); } }
#define CK(x) ck(x, __LINE__)

template <typename K>
static double timeit(K launch, cudaStream_t s) {
  for (int i = 0; i < 5; ++i) launch(s);
  CK(cudaStreamSynchronize(s));
  cudaGraph_t g; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < 200; ++i) launch(s);
  CK(cudaStreamEndCapture(s, &g));
  CK(cudaGraphInstantiate(&ge, g, 0));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  CK(cudaGraphLaunch(ge, s));
  CK(cudaStreamSynchronize(s));
  float best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a, s); CK(cudaGraphLaunch(ge, s)); cudaEventRecord(b, s); CK(cudaEventSynchronize(b));
    float ms; cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms;
  }
  cudaGraphExecDestroy(ge); cudaGraphDestroy(g);
  return best * 1000.0 / 200;
}

int main(int argc, char **argv) {
  int cfg[][2] = {{34,153},{51,871},{43,1750},{67,109},{171,69},{230,59},{303,297},{405,1363},{617,178},{902,29},
                  {942,44},{1230,17},{2112,420},{1320,576},{528,3332},{396,2459},{33,64},{64,4096},{256,8192},{5273,39}};
  unsigned seed = argc > 1 ? atoi(argv[1]) : 1234; printf("seed %u\n", seed); srand(seed);
  cudaStream_t s; CK(cudaStreamCreate(&s));
  printf("%6s %6s | %6s %6s %6s %6s %6s %6s | %6s %6s %6s %6s %6s | max rel err vs f64 over all\n", "P", "n", "A", "B", "C32x32", "C32x8", "C16x16", "C8x32", "D8x32", "D8x64", "D8x128", "D16x64", "D32x32");
  for (auto &c : cfg) {
    int P = c[0], n = c[1];
    std::vector<float> h((size_t)P * n);
    for (auto &v : h) v = (float)rand() / RAND_MAX * 2.0f - 0.7f;
    std::vector<double> ref(n, 0.0);
    for (int u = 0; u < P; ++u) for (int j = 0; j < n; ++j) ref[j] += h[(size_t)u * n + j];
    float *ws, *dw; CK(cudaMalloc(&ws, h.size() * 4)); CK(cudaMalloc(&dw, n * 4));
    CK(cudaMemcpy(ws, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    int wdt = FUSEDNORM_F32; int64_t P64 = P;
    double t[11]; double err[11];
    auto run = [&](int v, cudaStream_t st) {
      switch (v) {
        case 0: varA<<<(n + 31) / 32, 1024, 0, st>>>(ws, P64, n, dw, wdt); break;
        case 1: varB<<<(n + 255) / 256, 256, 0, st>>>(ws, P, n, dw, wdt); break;
        case 2: varC<32, 32, 8><<<(n + 31) / 32, 1024, 0, st>>>(ws, P, n, dw, wdt); break;
        case 3: varC<32, 8, 8><<<(n + 31) / 32, 256, 0, st>>>(ws, P, n, dw, wdt); break;
        case 4: varC<16, 16, 8><<<(n + 15) / 16, 256, 0, st>>>(ws, P, n, dw, wdt); break;
        case 5: varC<8, 32, 8><<<(n + 7) / 8, 256, 0, st>>>(ws, P, n, dw, wdt); break;
        case 6: varD<8, 32><<<(n + 7) / 8, 256, 0, st>>>(ws, P, n, dw, wdt); break;
        case 7: varD<8, 64><<<(n + 7) / 8, 512, 0, st>>>(ws, P, n, dw, wdt); break;
        case 8: varD<8, 128><<<(n + 7) / 8, 1024, 0, st>>>(ws, P, n, dw, wdt); break;
        case 9: varD<16, 64><<<(n + 15) / 16, 1024, 0, st>>>(ws, P, n, dw, wdt); break;
        case 10: varD<32, 32><<<(n + 31) / 32, 1024, 0, st>>>(ws, P, n, dw, wdt); break;
      }
    };
    std::vector<float> o(n);
    for (int v = 0; v < 11; ++v) {
      CK(cudaMemset(dw, 0xff, n * 4));
      run(v, s); CK(cudaStreamSynchronize(s)); CK(cudaGetLastError());
      CK(cudaMemcpy(o.data(), dw, n * 4, cudaMemcpyDeviceToHost));
      double e = 0; for (int j = 0; j < n; ++j) { double r = fabs(o[j] - ref[j]) / (fabs(ref[j]) + 1e-30); if (!(r <= e)) e = r; }
      err[v] = e;
      t[v] = timeit([&](cudaStream_t st) { run(v, st); }, s);
    }
    double me = 0; for (int v = 0; v < 11; ++v) me = fmax(me, err[v]);
    printf("%6d %6d | %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f %6.2f %6.2f | %.1e\n", P, n, t[0], t[1], t[2], t[3], t[4], t[5],
           t[6], t[7], t[8], t[9], t[10], me);
    cudaFree(ws); cudaFree(dw);
  }
  // empty-kernel floor
  return 0;
}
