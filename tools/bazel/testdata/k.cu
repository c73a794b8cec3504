#include "tools/bazel/testdata/k.cuh"
#include "tools/bazel/testdata/t.h"
#include <cuda_runtime.h>
#include <stdio.h>
__global__ void kern(int *p) { p[threadIdx.x] = TVAL * (int)threadIdx.x; }
extern "C" int k_run(int n) {
  int c = 0; cudaError_t e = cudaGetDeviceCount(&c);
  if (e != cudaSuccess) { printf("cudaGetDeviceCount: %s\n", cudaGetErrorString(e)); return -1; }
  cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0);
  printf("device %s cc %d.%d\n", prop.name, prop.major, prop.minor);
  int *p, h[64]; cudaMalloc(&p, n * sizeof(int)); kern<<<1, n>>>(p);
  e = cudaMemcpy(h, p, n * sizeof(int), cudaMemcpyDeviceToHost); cudaFree(p);
  if (e != cudaSuccess) { printf("kernel/memcpy: %s\n", cudaGetErrorString(e)); return -2; }
  for (int i = 0; i < n; ++i) if (h[i] != TVAL * i) { printf("bad value at %d\n", i); return -3; }
  return c;
}
