// Helpers of the kernel probes in this folder (CUDA C++, included by a probe's .cu): CK (a CUDA
// call or exit with the line), timeit (a CUDA graph of 100 launches rotating over NS input sets,
// best of 5, us a launch), init_k (hashed uniform values on the device), same (bitwise equality of
// two device buffers), maxrel (max relative difference of two device arrays).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

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


