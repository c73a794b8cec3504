// Does a kernel's latency grow with the number of parameter-bank lines its first instructions touch?
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
template <int GAP> struct SP {
  const float *x; char g0[GAP]; const float *w; char g1[GAP]; float *y; char g2[GAP]; float *rstd; char g3[GAP]; int n; float eps;
};
template <int GAP, bool EXACT> __global__ void __launch_bounds__(256) probe(const SP<GAP> p) {
  const int t = threadIdx.x;
  const int c = t < p.n ? t : p.n - 1;
  float v = p.x[c];
  float w = __ldg(p.w + c);
  float s = t < p.n ? v * v : 0.0f;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  const float r = EXACT ? 1.0f / sqrtf(s / p.n + p.eps) : rsqrtf(s / p.n + p.eps);
  if (t == 0) p.rstd[0] = r;
  if (t < p.n) p.y[t] = v * r * w;
}
__global__ void spin(long long c) { long long s = clock64(); while (clock64() - s < c) {} }
template <class F> float timeit(F launch, int iters) {
  std::vector<cudaEvent_t> ev(iters + 1);
  for (auto &e : ev) cudaEventCreate(&e);
  spin<<<1, 1>>>(40LL * 1000 * 1000);
  cudaEventRecord(ev[0]);
  for (int i = 0; i < iters; ++i) { launch(i); cudaEventRecord(ev[i + 1]); }
  cudaDeviceSynchronize();
  std::vector<float> t(iters);
  for (int i = 0; i < iters; ++i) cudaEventElapsedTime(&t[i], ev[i], ev[i + 1]);
  for (auto &e : ev) cudaEventDestroy(e);
  std::sort(t.begin(), t.end());
  return t[iters / 2] * 1000.0f;
}
int main() {
  const int SETS = 200; const size_t SET = 4u << 20;
  char *base; cudaMalloc(&base, SETS * SET); cudaMemset(base, 0x3c, SETS * SET);
  auto fill = [&](int set, auto &k) { char *b = base + (size_t)set * SET; k.x = (const float *)b; k.w = (const float *)(b + (1 << 20)); k.y = (float *)(b + (2 << 20)); k.rstd = (float *)(b + (3 << 20)); k.n = 16; k.eps = 1e-6f; };
  const int R = 5, IT = 400;
  float t[6] = {0};
  for (int rep = 0; rep < R; ++rep) {
    t[0] += timeit([&](int i) { SP<1> k; fill(i % SETS, k); probe<1, true><<<1, 32>>>(k); }, IT) / R;
    t[1] += timeit([&](int i) { SP<64> k; fill(i % SETS, k); probe<64, true><<<1, 32>>>(k); }, IT) / R;
    t[2] += timeit([&](int i) { SP<256> k; fill(i % SETS, k); probe<256, true><<<1, 32>>>(k); }, IT) / R;
    t[3] += timeit([&](int i) { SP<1> k; fill(i % SETS, k); probe<1, false><<<1, 32>>>(k); }, IT) / R;
    t[4] += timeit([&](int i) { SP<256> k; fill(i % SETS, k); probe<256, false><<<1, 32>>>(k); }, IT) / R;
    t[5] += timeit([&](int i) { SP<1> k; fill(i % SETS, k); probe<1, true><<<1, 224>>>(k); }, IT) / R;
  }
  printf("packed %.2f | fields 64 B apart %.2f | 256 B apart %.2f | packed rsqrtf %.2f | 256 apart rsqrtf %.2f | packed 224 thr %.2f\n", t[0], t[1], t[2], t[3], t[4], t[5]);
  return 0;
}
