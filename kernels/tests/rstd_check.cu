/* The forward's exact rstd (kernels/cuda/rmsnorm_common.cuh rstd_of, rstd_of_rows) against the
 * expressions whose bits it claims: 1.0f / sqrtf(RN(RN(ss / n) + eps)), each operation correctly
 * rounded as nvcc compiles `/` and sqrtf. rstd_of_rows takes nvcc's fast paths of the division,
 * the square root and the reciprocal behind one range check of its own; these checks prove that
 * range on the GPU the kernels run on:
 *   1. fn_rstd_fast(v) for every float v that fn_rstd_fast_range admits (the 1.93e9 finite normal
 *      floats from 2^-101): the bits of 1.0f / sqrtf(v);
 *   2. fn_div_fast for every n in [3, FN_RSTD_FAST_DIV_MAX_N] that is not a power of two and every
 *      a that fn_div_fast_ok admits (+0 and that range): the bits of a / (float)n (1.95e12
 *      quotients), and fn_rcp_rn_fast(n) the bits of 1.0f / n;
 *   3. rstd_of_rows<4> (into another array and in place) and rstd_of against the expressions on
 *      random rows (the seed printed), special values mixed in (zeros, subnormals, infinities, NaN,
 *      huge sums, eps of 0, negative and subnormal eps, n up to 2^20) so that the slow path runs
 *      too, alone and beside rows that would take the fast one;
 *   4. the fp16 fused add's packed sums (add2_rn_f16: add.rn.f16x2) for all 2^32 pairs of fp16
 *      operands: the bits of the fp32 sum rounded to fp16 (NaN for NaN), the kernels' contract
 *      s = RN(x + r).
 * Called by kernels/tests/test_rstd.c (a GPU test). Mismatches are counted and one of them is
 * printed; the return value is their count (or -1 if CUDA failed). */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels/cuda/rmsnorm_common.cuh"

namespace {

__device__ __forceinline__ bool same_bits(float a, float b) {
  return __float_as_uint(a) == __float_as_uint(b) || (a != a && b != b);
}

struct Miss {
  unsigned long long checked; /* values compared */
  unsigned long long count;
  unsigned a, b, got, want; /* one mismatch's operands and results, as bits */
};

__device__ void note_miss(Miss *m, unsigned a, unsigned b, float got, float want) {
  const unsigned long long k = atomicAdd(&m->count, 1ull);
  if (k == 0) m->a = a, m->b = b, m->got = __float_as_uint(got), m->want = __float_as_uint(want);
}

/* 1: every float v that fn_rstd_fast_range admits (all 2^32 bit patterns walked, so that a wider
 * range is checked too). */
__global__ void check_rsqrt(Miss *m) {
  unsigned long long checked = 0;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < (1ull << 32);
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const float v = __uint_as_float((unsigned)i);
    if (!fn::fn_rstd_fast_range(v)) continue;
    const float got = fn::fn_rstd_fast(v), want = 1.0f / sqrtf(v);
    ++checked;
    if (!same_bits(got, want)) note_miss(m, (unsigned)i, 0, got, want);
  }
  atomicAdd(&m->checked, checked);
}

/* 2: the division's fast sequence for every a that fn_div_fast_ok admits, one n a launch row
 * (blockIdx.y over a list of n). */
__global__ void check_div(const int *ns, Miss *m) {
  const int n = ns[blockIdx.y];
  const float fn = (float)n, y = fn::fn_rcp_rn_fast(fn);
  unsigned long long checked = 0;
  if (__float_as_uint(y) != __float_as_uint(1.0f / fn)) note_miss(m, 0x3f800000u, (unsigned)n, y, 1.0f / fn);
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < (1ull << 32);
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const float a = __uint_as_float((unsigned)i);
    if (!fn::fn_div_fast_ok(a, n)) continue;
    const float got = fn::fn_div_fast(a, fn, y), want = a / fn;
    ++checked;
    if (!same_bits(got, want)) note_miss(m, (unsigned)i, (unsigned)n, got, want);
  }
  atomicAdd(&m->checked, checked);
}

/* 4: the fp16 fused add's packed sums (add2_rn_f16, as add_residual uses them) for every pair of
 * operands: the bits of the fp32 sum rounded to fp16, NaN for NaN. Both halves of a word: (a, b)
 * in the low one, (b, a) in the high one. */
__global__ void check_add_f16(Miss *m) {
  unsigned long long checked = 0;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < (1ull << 32);
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned short a = (unsigned short)(i & 0xffffu), b = (unsigned short)(i >> 16);
    const uint32_t got = fn::add2_rn_f16((uint32_t)a | (uint32_t)b << 16, (uint32_t)b | (uint32_t)a << 16);
    const unsigned short want =
        __half_as_ushort(__float2half_rn(__half2float(__ushort_as_half(a)) + __half2float(__ushort_as_half(b))));
    for (int h = 0; h < 2; ++h) {
      const unsigned short g = (unsigned short)(got >> (16 * h));
      ++checked;
      if (g != want && !((g & 0x7fffu) > 0x7c00u && (want & 0x7fffu) > 0x7c00u)) /* NaN for NaN */
        note_miss(m, (unsigned)a, (unsigned)b, __uint_as_float(g), __uint_as_float(want));
    }
  }
  atomicAdd(&m->checked, checked);
}

/* A float of one of the kinds that matter here, from 32 random bits. */
__device__ float pick(unsigned h, unsigned k) {
  switch (k % 16u) {
    case 0: return 0.0f;
    case 1: return __uint_as_float(h & 0x007fffffu); /* subnormal (or 0) */
    case 2: return __int_as_float(0x7f800000);       /* inf */
    case 3: return __int_as_float(0x7fc00000 | (h & 0x3fffffu)); /* NaN */
    case 4: return __uint_as_float(0x7e800000u | (h & 0x00ffffffu)); /* near the top */
    case 5: return __uint_as_float(0x0c000000u | (h & 0x01ffffffu)); /* around the range's floor */
    default: return __uint_as_float(0x20000000u + h % 0x3f000000u);   /* 2^-63 .. 2^63 */
  }
}

__device__ unsigned mix(unsigned long long x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return (unsigned)x;
}

__device__ float want_rstd(float ss, int n, float eps) {
  const bool pow2 = (n & (n - 1)) == 0;
  const float q = pow2 ? __fmul_rn(ss, __int_as_float((127 - (31 - __clz(n))) << 23)) : ss / (float)n;
  return 1.0f / sqrtf(__fadd_rn(q, eps));
}

/* 3: random rows, 4 a thread, with special values among ordinary ones. */
__global__ void check_rows(unsigned long long seed, unsigned long long iters, Miss *m) {
  const unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned long long it = 0; it < iters; ++it) {
    const unsigned long long key = seed * 0x9e3779b97f4a7c15ull + (t * iters + it) * 8ull;
    const unsigned hn = mix(key), he = mix(key + 1), hk = mix(key + 2);
    /* n: small, around powers of two, near the fast division's bound, or large */
    int n;
    switch (hn % 4u) {
      case 0: n = 1 + (int)((hn >> 2) % 300u); break;
      case 1: n = 1 << ((hn >> 2) % 21u); n += (int)((hn >> 8) % 3u) - 1; n = n < 1 ? 1 : n; break;
      case 2: n = FN_RSTD_FAST_DIV_MAX_N - 2 + (int)((hn >> 2) % 5u); break;
      default: n = 1 + (int)((hn >> 2) % (1u << 20)); break;
    }
    float eps;
    switch (he % 8u) {
      case 0: eps = 0.0f; break;
      case 1: eps = -1e-6f; break;
      case 2: eps = __uint_as_float(he >> 12); break; /* subnormal */
      case 3: eps = 1e-5f; break;
      default: eps = 1e-6f; break;
    }
    float ss[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const unsigned h = mix(key + 3 + i);
      /* mostly ordinary sums; one kind of special value in about one row of three */
      ss[i] = (hk >> (i * 4)) % 3u == 0 ? pick(h, h >> 28) : __uint_as_float(0x30000000u + h % 0x1e000000u);
    }
    float got[4], in[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) in[i] = ss[i];
    fn::rstd_of_rows<4>(ss, n, eps, got);
    fn::rstd_of_rows<4>(ss, n, eps, ss); /* in place, as the thread forward calls it */
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float want = want_rstd(in[i], n, eps), one = fn::rstd_of(in[i], n, eps);
      if (!same_bits(got[i], want)) note_miss(m, __float_as_uint(in[i]), (unsigned)n, got[i], want);
      if (!same_bits(ss[i], want)) note_miss(m, __float_as_uint(in[i]), (unsigned)n, ss[i], want);
      if (!same_bits(one, want)) note_miss(m, __float_as_uint(in[i]), (unsigned)n, one, want);
    }
  }
  atomicAdd(&m->checked, iters * 12ull);
}

int finish(const char *what, Miss *dm) {
  Miss h;
  if (cudaDeviceSynchronize() != cudaSuccess || cudaMemcpy(&h, dm, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) {
    printf("%s: CUDA error: %s\n", what, cudaGetErrorString(cudaGetLastError()));
    return -1;
  }
  printf("%s: %.4g checked, %llu mismatch%s", what, (double)h.checked, h.count, h.count == 1 ? "" : "es");
  if (h.count)
    printf(" (e.g. a 0x%08x b %u: got 0x%08x, want 0x%08x)", h.a, h.b, h.got, h.want);
  printf("\n");
  fflush(stdout);
  return h.count > 0x7fffffffull ? 0x7fffffff : (int)h.count;
}

/* Mismatch counts summed without overflowing (a broken check can miss billions). */
int add_count(int bad, int r) { return r > 0x7fffffff - bad ? 0x7fffffff : bad + r; }

}  // namespace

/* quick: check 2 over a sample of n (every 16th, and the bound's neighbours) instead of all. */
extern "C" int fn_rstd_check(unsigned long long seed, int quick) {
  Miss *dm = nullptr;
  int *dns = nullptr;
  const int max_n = FN_RSTD_FAST_DIV_MAX_N;
  int count = 0, bad = 0, r;
  int *const ns = (int *)malloc(sizeof(int) * (size_t)max_n);
  if (ns == nullptr) {
    printf("rstd_check: out of host memory for %d divisors\n", max_n);
    return -1;
  }
  for (int n = 3; n <= max_n; ++n)
    if ((n & (n - 1)) != 0 && (!quick || n % 16 == 3 || n >= max_n - 4)) ns[count++] = n;
  if (count > 65535) {
    printf("rstd_check: FN_RSTD_FAST_DIV_MAX_N %d: %d divisors, more than one launch's rows (65535); "
           "every one must be checked, so this check must be extended first\n", max_n, count);
    free(ns);
    return -1;
  }
  if (cudaMalloc(&dm, sizeof(Miss)) != cudaSuccess || cudaMalloc(&dns, sizeof(int) * (size_t)count) != cudaSuccess ||
      cudaMemcpy(dns, ns, sizeof(int) * (size_t)count, cudaMemcpyHostToDevice) != cudaSuccess) {
    printf("rstd_check: CUDA error: %s\n", cudaGetErrorString(cudaGetLastError()));
    free(ns);
    return -1;
  }
  free(ns);

  cudaMemset(dm, 0, sizeof(Miss));
  check_rsqrt<<<4096, 256>>>(dm);
  if ((r = finish("fast rstd over every v it admits", dm)) < 0) return -1;
  bad = add_count(bad, r);

  cudaMemset(dm, 0, sizeof(Miss));
  check_div<<<dim3(1024, count), 256>>>(dns, dm);
  char what[160];
  snprintf(what, sizeof what, "fast division over every ss it admits, %d n in [3, %d]", count, max_n);
  if ((r = finish(what, dm)) < 0) return -1;
  bad = add_count(bad, r);

  cudaMemset(dm, 0, sizeof(Miss));
  check_add_f16<<<4096, 256>>>(dm);
  if ((r = finish("fp16 fused add (add.rn.f16x2) over every pair of operands", dm)) < 0) return -1;
  bad = add_count(bad, r);

  cudaMemset(dm, 0, sizeof(Miss));
  const unsigned long long iters = 64;
  check_rows<<<1024, 256>>>(seed, iters, dm);
  snprintf(what, sizeof what, "rstd_of_rows<4> and rstd_of on random rows, seed %llu", seed);
  if ((r = finish(what, dm)) < 0) return -1;
  bad = add_count(bad, r);

  cudaFree(dm);
  cudaFree(dns);
  return bad;
}
