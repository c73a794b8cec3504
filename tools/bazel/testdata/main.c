#include <stdio.h>
#include <cuda_runtime_api.h>
#include "tools/bazel/testdata/k.cuh"
int main(void) { int v = k_run(4); printf("k_run=%d (-1 = no GPU)\n", v); return 0; }
