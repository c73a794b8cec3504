/*
 * test_layout.c — N-d row layouts (fusednorm_problem.row_dims) on the CPU backend: the random
 * layouts of layout.h against the contiguous run (bitwise, gaps untouched), the bad N-d arguments,
 * and the 32-bit magic-number division the CUDA kernels split row indices with (row_dims.h),
 * checked exhaustively on edge values and on random divisors and numerators.
 *
 * usage: test_layout [--seed=N] [--cases=K] [--verbose]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/cuda/row_dims.h"
#include "kernels/include/fusednorm.h"
#include "kernels/tests/layout.h"

static void *h_alloc(size_t bytes) { return malloc(bytes); }
static void h_release(void *p) { free(p); }
static int h_copy(void *dst, const void *src, size_t bytes) { memcpy(dst, src, bytes); return 0; }

/* n / d for d in [1, 2^31) and n in [0, 2^31) against the hardware division. */
static int check_division(uint64_t seed) {
  int failed = 0;
  uint64_t s = seed;
  const uint32_t edges[] = {1, 2, 3, 5, 7, 16, 127, 128, 129, 1000, 65535, 65536, 65537, 0x7fffffffu,
                            0x40000000u, 0x40000001u, 0x3fffffffu, 12345679u};
  for (size_t a = 0; a < sizeof edges / sizeof edges[0]; ++a) {
    const fn_divider v = fn_divider_make(edges[a]);
    for (int k = 0; k < 200000; ++k) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      uint32_t n = (uint32_t)(s >> 33); /* [0, 2^31) */
      if (k < 64) n = k < 32 ? (uint32_t)k : 0x7fffffffu - (uint32_t)(k - 32);
      if (k >= 64 && k < 128) { /* multiples of d and their neighbours */
        const uint64_t m = (uint64_t)edges[a] * (uint64_t)((s >> 40) % 1024);
        n = (uint32_t)((m + (uint64_t)(k % 3) - 1) & 0x7fffffffu);
      }
      if (fn_div(v, n) != n / edges[a]) {
        if (failed++ < 5) printf("FAIL division: %u / %u gave %u\n", n, edges[a], fn_div(v, n));
      }
    }
  }
  for (int k = 0; k < 2000000; ++k) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    /* every magnitude below 2^31: large odd divisors, and divisors of a random bit length */
    const uint32_t d = (k & 1) ? ((uint32_t)(s >> 33) | 1u) : (uint32_t)((s >> 34) >> (s & 31)) + 1u;
    const uint32_t n = (uint32_t)(s >> 1) & 0x7fffffffu;
    if (fn_div(fn_divider_make(d), n) != n / d) {
      if (failed++ < 10) printf("FAIL division: %u / %u gave %u\n", n, d, fn_div(fn_divider_make(d), n));
    }
  }
  printf("magic-number division: %d failures\n", failed);
  return failed;
}

int main(int argc, char **argv) {
  uint64_t seed = 0;
  int cases = 400, verbose = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strncmp(argv[i], "--seed=", 7)) seed = strtoull(argv[i] + 7, NULL, 10);
    else if (!strncmp(argv[i], "--cases=", 8)) cases = atoi(argv[i] + 8);
    else if (!strcmp(argv[i], "--verbose")) verbose = 1;
    else {
      fprintf(stderr, "usage: test_layout [--seed=N] [--cases=K] [--verbose]\n");
      return 2;
    }
  }
  if (seed == 0) seed = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)clock();
  const fn_layout_backend cpu = {"cpu", h_alloc, h_release, h_copy, h_copy,
                                 fusednorm_forward_cpu, fusednorm_backward_cpu,
                                 fusednorm_backward_workspace_size_cpu, 0, NULL};
  int failed = check_division(seed);
  failed += fn_layout_bad_args(&cpu);
  failed += fn_layout_run(&cpu, seed, cases, verbose);
  printf("%s (seed %llu)\n", failed ? "FAIL" : "PASS", (unsigned long long)seed);
  return failed != 0;
}
