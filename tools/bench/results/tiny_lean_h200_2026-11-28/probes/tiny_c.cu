// Tiny-forward latency experiment: the library's rms_norm_fwd_tiny against lean variants, timed as
// bench.py times (events between launches queued behind a spin), cold inputs (rotating sets), and
// outputs compared bitwise with the library kernel's.
#include "kernels/cuda/rmsnorm_tiny.cu"
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstring>

namespace fn {
struct TinyFwdParams {
  const void *x, *w; void *y; float *rstd;
  int64_t x_stride, y_stride;
  int rows, n, team, w_dtype;
  float offset, eps; int llama, pad_;
  const void *r; void *ro; int64_t r_stride, ro_stride;
  fn_row_dims nd;
  int64_t x_outer[3], r_outer[3], y_outer[3], ro_outer[3];
};
__device__ __forceinline__ int64_t tiny_off(const fn_row_dims &nd, int row, int64_t stride, const int64_t (&outer)[3]) {
  if (nd.dims <= 1) return (int64_t)row * stride;
  return fn_row_offset_dims(&nd, row, stride, outer);
}
template <typename T, bool FUSED, bool W32, int VAR, typename P>
__global__ void __launch_bounds__(FN_TINY_FWD_THREADS) lean_fwd_tiny(const P p) {
  const int n = p.n, rows = (int)p.rows, lanes = p.team;
  const int lg = __popc(lanes - 1);
  const int tid = (int)threadIdx.x, lane = tid & (lanes - 1), team = tid >> lg;
  const int teams = (int)blockDim.x >> lg;
  const int c = lane < n ? lane : n - 1;
  for (int base = (int)blockIdx.x * teams; base < rows; base += (int)gridDim.x * teams) {
    const int row = base + team;
    const bool on = row < rows;
    const int rl = on ? row : rows - 1;
    const T *xr = static_cast<const T *>(p.x) + tiny_off(p.nd, rl, p.x_stride, p.x_outer);
    float s = ld_elem(xr, c);
    float r = 0.0f;
    if (FUSED) r = ld_elem(static_cast<const T *>(p.r) + tiny_off(p.nd, rl, p.r_stride, p.r_outer), c);
    const bool has_w = p.w != nullptr;
    const uint32_t wb = ld_wbits<W32>(has_w ? p.w : p.x, c);
    T *yr = static_cast<T *>(p.y) + tiny_off(p.nd, rl, p.y_stride, p.y_outer);
    const bool in = lane < n;
    if (FUSED) {
      s = round_to<T>(s + r);
      T *ror = static_cast<T *>(p.ro) + tiny_off(p.nd, rl, p.ro_stride, p.ro_outer);
      if (on && in) st_elem(ror, c, s);
    }
    s = in ? s : 0.0f;
    float ss = s * s;
    for (int off = lanes >> 1; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
    const float w = wbits_eff<W32>(wb, has_w, p.w_dtype == FUSEDNORM_BF16, p.offset);
    if (on) {
      const float rstd = VAR == 3 ? rsqrtf(ss / n + p.eps) : rstd_of(ss, n, p.eps);
      if (VAR != 4 && p.rstd != nullptr && lane == 0) p.rstd[row] = rstd;
      if (in) {
        if (p.llama) st_elem(yr, c, normalize_elem<T, true>(s, w, rstd));
        else st_elem(yr, c, normalize_elem<T, false>(s, w, rstd));
      }
    }
  }
}
}  // namespace fn

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


namespace fn {
template <typename T, int M, int CL>
__global__ void __launch_bounds__(FN_TINY_FWD_THREADS) bis(const TinyFwdParams p) {
  const int n = p.n, rows = (int)p.rows, lanes = (M & 1) ? CL : p.team;
  const int lg = (M & 1) ? __popc(CL - 1) : __popc(lanes - 1);
  const int tid = (int)threadIdx.x, lane = tid & (lanes - 1), team = tid >> lg;
  const int teams = (int)blockDim.x >> lg;
  const int c = lane < n ? lane : n - 1;
  for (int base = (int)blockIdx.x * teams; base < rows; base += (int)gridDim.x * teams) {
    const int row = base + team;
    const bool on = row < rows;
    const int rl = on ? row : rows - 1;
    auto off = [&](int64_t stride, const int64_t (&outer)[3]) -> int64_t {
      if (M & 8) return (int64_t)(rl * (int)stride);
      if (M & 4) return (int64_t)rl * stride;
      return tiny_off(p.nd, rl, stride, outer);
    };
    const T *xr = static_cast<const T *>(p.x) + off(p.x_stride, p.x_outer);
    float s = ld_elem(xr, c);
    const bool has_w = (M & 16) ? true : p.w != nullptr;
    const uint32_t wb = ld_wbits<sizeof(T) == 4>((M & 16) ? p.w : (has_w ? p.w : p.x), c);
    T *yr = static_cast<T *>(p.y) + off(p.y_stride, p.y_outer);
    const bool in = lane < n;
    s = in ? s : 0.0f;
    float ss = s * s;
    if (M & 1) {
#pragma unroll
      for (int o = CL >> 1; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    } else {
      for (int o = lanes >> 1; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    }
    const float w = (M & 16) ? (sizeof(T) == 4 ? __uint_as_float(wb) : __uint_as_float(wb << 16))
                             : wbits_eff<sizeof(T) == 4>(wb, has_w, p.w_dtype == FUSEDNORM_BF16, p.offset);
    if (on) {
      const float rstd = rstd_of(ss, n, p.eps);
      if (p.rstd != nullptr && lane == 0) p.rstd[row] = rstd;
      if (in) {
        if (!(M & 32) && p.llama) st_elem(yr, c, normalize_elem<T, true>(s, w, rstd));
        else st_elem(yr, c, normalize_elem<T, false>(s, w, rstd));
      }
    }
    if (M & 2) break;
  }
}
}

int main() {
  const int SETS = 200; const size_t SET = 4u << 20;
  char *base; cudaMalloc(&base, SETS * SET); cudaMemset(base, 0x3c, SETS * SET);
  struct Case { int dt, rows, n; };
  for (Case cs : {Case{2, 13, 16}, Case{0, 22, 1}, Case{2, 13, 16}, Case{0, 22, 1}}) {
    const int lanes = fn_tiny_lanes(cs.n);
    const int threads = std::min(256, std::max(32, (cs.rows * lanes + 31) / 32 * 32));
    const int rpc = threads / lanes, grid = (cs.rows + rpc - 1) / rpc;
    auto mkp = [&](int set, auto &k) {
      char *b = base + (size_t)set * SET;
      k.x = b; k.w = b + (1 << 20); k.y = b + (2 << 20); k.rstd = (float *)(b + (3 << 20));
      k.x_stride = cs.n; k.y_stride = cs.n; k.rows = cs.rows; k.n = cs.n; k.team = lanes; k.w_dtype = cs.dt == 2 ? FUSEDNORM_F32 : FUSEDNORM_BF16;
      k.offset = 0.0f; k.eps = 1e-6f; k.llama = 0; k.nd.dims = 1;
      for (int q = 0; q < 3; ++q) k.nd.div[q] = fn_divider_make(1);
    };
    std::vector<const void *> ks;
    if (cs.dt == 2) ks = {(const void *)&fn::bis<float, 0, 16>, (const void *)&fn::bis<float, 1, 16>, (const void *)&fn::bis<float, 2, 16>, (const void *)&fn::bis<float, 4, 16>,
                          (const void *)&fn::bis<float, 12, 16>, (const void *)&fn::bis<float, 16, 16>, (const void *)&fn::bis<float, 32, 16>, (const void *)&fn::bis<float, 63, 16>};
    else ks = {(const void *)&fn::bis<__nv_bfloat16, 0, 1>, (const void *)&fn::bis<__nv_bfloat16, 1, 1>, (const void *)&fn::bis<__nv_bfloat16, 2, 1>, (const void *)&fn::bis<__nv_bfloat16, 4, 1>,
               (const void *)&fn::bis<__nv_bfloat16, 12, 1>, (const void *)&fn::bis<__nv_bfloat16, 16, 1>, (const void *)&fn::bis<__nv_bfloat16, 32, 1>, (const void *)&fn::bis<__nv_bfloat16, 63, 1>};
    const void *k0 = cs.dt == 2 ? (const void *)&fn::rms_norm_fwd_tiny<float, 1, false> : (const void *)&fn::rms_norm_fwd_tiny<__nv_bfloat16, 1, false>;
    float t[9] = {0}; const int R = 3, IT = 300;
    for (int rep = 0; rep < R; ++rep) {
      t[8] += timeit([&](int i) { fn::FwdParams k = {}; mkp(i % SETS, k); void *a[] = {&k}; cudaLaunchKernel(k0, grid, threads, a, 0, 0); }, IT) / R;
      for (int v = 0; v < 8; ++v)
        t[v] += timeit([&](int i) { fn::TinyFwdParams k = {}; mkp(i % SETS, k); void *a[] = {&k}; cudaLaunchKernel(ks[v], grid, threads, a, 0, 0); }, IT) / R;
    }
    printf("%s %dx%d: lib %.2f | lean %.2f | const lanes %.2f | no loop %.2f | no nd %.2f | 32-bit off %.2f | fixed w %.2f | no llama %.2f | all %.2f\n",
           cs.dt == 2 ? "f32" : "bf16", cs.rows, cs.n, t[8], t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]);
  }
  printf("cuda: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
