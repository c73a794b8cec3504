// Tiny-forward latency experiment: the library's rms_norm_fwd_tiny against lean variants, timed as
// bench.py times (events between launches queued behind a spin), cold inputs (rotating sets), and
// outputs compared bitwise with the library kernel's.
#include "kernels/cuda/rmsnorm_tiny.cu"
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstring>

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
  char *base; cudaMalloc(&base, SETS * SET);
  { std::vector<unsigned short> h(SET / 2); unsigned s = 12345;
    for (auto &v : h) { s = s * 1103515245u + 12345u; v = (unsigned short)(0x3c00 + ((s >> 16) & 0x3ff)); }
    for (int i = 0; i < SETS; ++i) cudaMemcpy(base + i * SET, h.data(), SET, cudaMemcpyHostToDevice); }
  // dt: 0 bf16, 1 f16, 2 f32; wmode 0 same dtype, 1 f32 weight, 2 none; fused; llama
  struct Case { int dt, rows, n, wmode, fused, llama; };
  Case cases[] = {{0, 22, 1, 0, 0, 0}, {0, 3, 8, 0, 0, 0}, {1, 16, 2, 0, 0, 0}, {2, 13, 16, 0, 0, 0}, {0, 1, 31, 0, 0, 0},
                  {2, 70, 3, 0, 0, 0}, {0, 269, 7, 0, 1, 0}, {1, 24, 1, 0, 1, 0}, {2, 36, 2, 0, 1, 0}, {0, 1, 12, 1, 1, 1},
                  {1, 699, 1, 2, 0, 0}, {2, 9, 21, 0, 0, 1}, {0, 63, 32, 1, 0, 0}, {1, 5, 7, 2, 1, 1}};
  printf("case                          old    lean   (us per launch, cold; median of 3 x 400)  bits\n");
  int bad = 0;
  for (auto cs : cases) {
    const int es = cs.dt == 2 ? 4 : 2;
    const fusednorm_dtype dt = cs.dt == 0 ? FUSEDNORM_BF16 : cs.dt == 1 ? FUSEDNORM_F16 : FUSEDNORM_F32;
    const int lanes = fn_tiny_lanes(cs.n);
    const int threads = std::min(256, std::max(32, (cs.rows * lanes + 31) / 32 * 32));
    const int rpc = threads / lanes, grid = (cs.rows + rpc - 1) / rpc;
    auto fill = [&](int set, auto &k) {
      char *b = base + (size_t)set * SET;
      k.x = b; k.w = cs.wmode == 2 ? nullptr : b + (1 << 20); k.y = b + (2 << 20); k.rstd = (float *)(b + (3 << 20));
      k.r = cs.fused ? b + (1 << 19) : nullptr; k.ro = cs.fused ? b + (5 << 19) : nullptr;
      k.x_stride = cs.n + 3; k.y_stride = cs.n; k.r_stride = cs.fused ? cs.n + 1 : 0; k.ro_stride = cs.fused ? cs.n + 2 : 0;
      k.rows = cs.rows; k.n = cs.n; k.w_dtype = cs.wmode == 1 ? FUSEDNORM_F32 : dt; k.offset = cs.llama ? 1.0f : 0.0f;
      k.eps = 1e-6f; k.llama = cs.llama;
    };
    auto L0 = [&](int set) { fn::FwdParams k = {}; fill(set, k); k.team = lanes; k.fused = cs.fused; k.nd.dims = 1;
      for (int q = 0; q < 3; ++q) k.nd.div[q] = fn_divider_make(1);
      void *a[] = {&k}; cudaLaunchKernel(fn::fwd_tiny_kernel(dt, 1, cs.fused), grid, threads, a, 0, 0); };
    auto L1 = [&](int set) { fn::TinyFwdParams k = {}; fill(set, k); void *a[] = {&k};
      cudaLaunchKernel(fn::fwd_tiny_lean_kernel(dt, lanes, cs.fused), grid, threads, a, 0, 0); };
    float t0 = 0, t1 = 0; const int R = 3, IT = 400;
    for (int rep = 0; rep < R; ++rep) {
      t0 += timeit([&](int i) { L0(i % SETS); }, IT) / R;
      t1 += timeit([&](int i) { L1(i % SETS); }, IT) / R;
    }
    // outputs of both on the same inputs (sets 0 and 1 hold the same bytes), poisoned first
    for (int s = 0; s < 2; ++s) { cudaMemset(base + s * SET + (2 << 20), 0xff, 1 << 20); cudaMemset(base + s * SET + (3 << 20), 0xff, 1 << 20); cudaMemset(base + s * SET + (5 << 19), 0xff, 1 << 19); }
    L0(0); L1(1); cudaDeviceSynchronize();
    auto same = [&](size_t off, size_t bytes) { std::vector<char> a(bytes), b(bytes);
      cudaMemcpy(a.data(), base + off, bytes, cudaMemcpyDeviceToHost); cudaMemcpy(b.data(), base + SET + off, bytes, cudaMemcpyDeviceToHost);
      return !memcmp(a.data(), b.data(), bytes); };
    const bool ok = same(2 << 20, (size_t)cs.rows * cs.n * es) && same(3 << 20, cs.rows * 4) && (!cs.fused || same(5 << 19, (size_t)cs.rows * (cs.n + 2) * es));
    bad += !ok;
    printf("%-4s %4d x %-2d w%d fused%d llama%d  %6.2f  %6.2f   %s\n", cs.dt == 2 ? "f32" : cs.dt == 1 ? "f16" : "bf16", cs.rows, cs.n, cs.wmode, cs.fused, cs.llama, t0, t1, ok ? "same" : "DIFFER");
  }
  printf("cuda: %s; %d differ\n", cudaGetErrorString(cudaGetLastError()), bad);
  return bad != 0;
}
