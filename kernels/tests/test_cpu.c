/* test_cpu.c — the check engine over the CPU backend, plus determinism across thread counts. */
#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ref/fusednorm_ref.h"
#include "kernels/tests/engine.h"

/* dw and dx must be bitwise identical for 1, 2, 3 and 7 threads (chunking depends on rows only). */
static int check_thread_invariance(void) {
  const int64_t M = 1000, N = 777;
  fusednorm_problem p = fusednorm_problem_init(M, N, FUSEDNORM_BF16, FUSEDNORM_F32);
  uint16_t *x = malloc(M * N * 2), *dy = malloc(M * N * 2), *y = malloc(M * N * 2);
  uint16_t *dx[4];
  float *w = malloc(N * 4), *rstd = malloc(M * 4), *dw[4];
  size_t bytes;
  fusednorm_backward_workspace_size_cpu(&p, &bytes);
  void *ws = malloc(bytes);
  uint64_t s = 12345;
  for (int64_t i = 0; i < M * N; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = fusednorm_float_to_bf16((float)((int)(s >> 40) % 2001 - 1000) / 300.0f);
    dy[i] = fusednorm_float_to_bf16((float)((int)(s >> 20) % 2001 - 1000) / 500.0f);
  }
  for (int64_t j = 0; j < N; ++j) w[j] = 1.0f + (float)(j % 13) / 17.0f;
  fusednorm_fwd_args fa = {x, N, NULL, 0, w, y, N, NULL, 0, rstd, {0}, {0}, {0}, {0}};
  int fails = fusednorm_forward_cpu(&p, &fa) != FUSEDNORM_OK;
  const int threads[4] = {1, 2, 3, 7};
  for (int t = 0; t < 4; ++t) {
    omp_set_num_threads(threads[t]);
    dx[t] = malloc(M * N * 2), dw[t] = malloc(N * 4);
    fusednorm_bwd_args ba = {dy, N, x, N, NULL, 0, w, rstd, dx[t], N, dw[t], ws, bytes, {0}, {0}, {0}, {0}};
    fails += fusednorm_backward_cpu(&p, &ba) != FUSEDNORM_OK;
    if (t && (memcmp(dx[0], dx[t], M * N * 2) || memcmp(dw[0], dw[t], N * 4))) {
      printf("FAIL backward differs between 1 and %d threads\n", threads[t]);
      fails++;
    }
  }
  omp_set_num_threads(omp_get_num_procs());
  printf("[cpu] thread-count invariance (1/2/3/7 threads): %s\n", fails ? "FAILED" : "OK");
  for (int t = 0; t < 4; ++t) free(dx[t]), free(dw[t]);
  free(x), free(dy), free(y), free(w), free(rstd), free(ws);
  return fails;
}

/* --repeat=R: R fresh seeds in a row (seed, seed+1, ...), one line each: the false-failure run
 * of the accuracy rules (//kernels:test_cpu_seeds). Shards and parallel copies each draw their own
 * fresh base seed, so they can run side by side; every line names its seed. */
static int run_seeds(const fn_backend *b, fn_engine_opts o) {
  const char *status = getenv("TEST_SHARD_STATUS_FILE"); /* Bazel sharding protocol */
  if (status) {
    FILE *f = fopen(status, "w");
    if (f) fclose(f);
  }
  const uint64_t base = o.seed ? o.seed : fn_engine_fresh_seed();
  int failed_seeds = 0;
  o.brief = 1;
  for (int r = 0; r < o.repeat; ++r) {
    o.seed = base + (uint64_t)r;
    failed_seeds += fn_engine_run_matrix(b, &o) != 0;
  }
  printf("test_cpu: %d seeds from %" PRIu64 ", %d with a failure: %s\n", o.repeat, base,
         failed_seeds, failed_seeds ? "FAILED" : "OK");
  return failed_seeds ? 1 : 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  fn_engine_opts o;
  if (fn_engine_parse_args(argc, argv, &o)) return 2;
  const fn_api api = {"cpu", fusednorm_forward_cpu, fusednorm_backward_cpu,
                      fusednorm_backward_workspace_size_cpu};
  fn_backend cpu = {"cpu", (void *)&api, fn_engine_api_forward, fn_engine_api_backward};
  if (o.repeat > 1) return run_seeds(&cpu, o);
  int fails = check_thread_invariance();
  fails += fn_engine_run_matrix(&cpu, &o);
  printf("test_cpu: %s\n", fails ? "FAILED" : "OK");
  return fails ? 1 : 0;
}
