/* test_rstd: the forward's exact rstd on the GPU, proven over its fast range, and the fp16
 * fused add's packed sums over every pair of operands (kernels/tests/rstd_check.cu says what is
 * checked). A GPU test: tools/gpu/suite_kernels.sh runs it.
 *
 * usage: test_rstd [--quick] [--seed=N]
 *   --quick  the division checked for every 16th n only (the rest as in the full run)
 * Exit 0 when every check matches bit for bit, 1 on a mismatch, 2 on a bad argument or no GPU. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

int fn_rstd_check(unsigned long long seed, int quick);

int main(int argc, char **argv) {
  int quick = 0, devices = 0;
  unsigned long long seed = (unsigned long long)time(NULL);
  for (int i = 1; i < argc; ++i) {
    char *end = NULL;
    if (strcmp(argv[i], "--quick") == 0) quick = 1;
    else if (strncmp(argv[i], "--seed=", 7) == 0 && argv[i][7] != '\0' &&
             (seed = strtoull(argv[i] + 7, &end, 10), *end == '\0')) {
    } else {
      fprintf(stderr, "test_rstd: bad argument '%s' (usage: test_rstd [--quick] [--seed=N])\n", argv[i]);
      return 2;
    }
  }
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
    fprintf(stderr, "test_rstd: no CUDA device (a GPU test: run it on a GPU machine)\n");
    return 2;
  }
  printf("test_rstd: seed %llu%s\n", seed, quick ? " (--quick)" : "");
  const int bad = fn_rstd_check(seed, quick);
  if (bad != 0) {
    printf("test_rstd: FAILED (%s)\n", bad < 0 ? "CUDA error" : "mismatches");
    return 1;
  }
  printf("test_rstd: OK\n");
  return 0;
}
