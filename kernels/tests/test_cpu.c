/* test_cpu.c — the check engine over the CPU backend, plus determinism across thread counts. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, clock_gettime */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* --repeat=R: R seeds in a row (seed, seed+1, ...; a fresh base seed unless --seed=S), one line
 * each: the false-failure run of the accuracy rules (//kernels:test_cpu_seeds, the GPU suite's
 * seeds section). --jobs=J runs them in J processes side by side (seed base+w, base+w+J, ... in
 * worker w; 0: one per core), each with its share of the OpenMP threads. --max-seconds=T: no seed
 * starts once the elapsed time plus the slowest seed so far would pass T (so the run ends within
 * T unless one seed alone takes longer); the count of seeds that ran is printed. Every failing
 * case prints its seed and case; the summary repeats each failing seed with the command that
 * reruns it alone. */
typedef struct {
  long done, failed;
  uint64_t failing[32]; /* the first failing seeds */
} seed_tally;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void seed_worker(const fn_backend *b, fn_engine_opts o, uint64_t base, int w, int jobs,
                        double t0, double max_s, seed_tally *t) {
  double slowest = 0.0;
  o.brief = 1;
  for (long r = w; r < o.repeat; r += jobs) {
    const double start = now_s();
    if (max_s > 0 && start - t0 + slowest > max_s) break;
    o.seed = base + (uint64_t)r;
    if (fn_engine_run_matrix(b, &o) != 0) {
      if (t->failed < 32) t->failing[t->failed] = o.seed;
      t->failed++;
    }
    t->done++;
    if (now_s() - start > slowest) slowest = now_s() - start;
  }
}

static int run_seeds(const fn_backend *b, fn_engine_opts o, const char *argv0, int jobs, double max_s) {
  const char *status = getenv("TEST_SHARD_STATUS_FILE"); /* Bazel sharding protocol */
  if (status) {
    FILE *f = fopen(status, "w");
    if (f) fclose(f);
  }
  const uint64_t base = o.seed ? o.seed : fn_engine_fresh_seed();
  const int procs = omp_get_num_procs();
  if (jobs <= 0) jobs = procs;
  if (jobs > o.repeat) jobs = o.repeat;
  const double t0 = now_s();
  seed_tally *t = mmap(NULL, sizeof(seed_tally) * (size_t)jobs, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (t == MAP_FAILED) {
    perror("test_cpu: mmap");
    return 2;
  }
  memset(t, 0, sizeof(seed_tally) * (size_t)jobs);
  /* Every case allocates and frees its buffers (up to ~1 GB): kept in the heap rather than in
   * fresh mappings, they are not faulted in and zeroed by the kernel again for every case. */
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
  if (jobs == 1) {
    seed_worker(b, o, base, 0, 1, t0, max_s, t);
  } else {
    /* No OpenMP region has run in this process yet, so forking is safe for libgomp. */
    const int threads = procs / jobs > 1 ? procs / jobs : 1;
    fflush(NULL);
    for (int w = 0; w < jobs; ++w) {
      pid_t pid = fork();
      if (pid < 0) {
        perror("test_cpu: fork");
        return 2;
      }
      if (pid == 0) {
        omp_set_num_threads(threads);
        seed_worker(b, o, base, w, jobs, t0, max_s, &t[w]);
        fflush(NULL);
        _exit(0);
      }
    }
    int st, crashed = 0;
    pid_t pid;
    while ((pid = wait(&st)) > 0 || errno == EINTR)
      if (pid > 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) crashed++;
    if (crashed) {
      printf("test_cpu: %d seed worker(s) died (a crash: rerun the last seed each printed)\n", crashed);
      return 1;
    }
  }
  long done = 0, failed = 0;
  for (int w = 0; w < jobs; ++w) done += t[w].done, failed += t[w].failed;
  for (int w = 0; w < jobs; ++w)
    for (long k = 0; k < t[w].failed && k < 32; ++k)
      printf("test_cpu: failing seed %" PRIu64 ": rerun alone with %s --quick --seed=%" PRIu64
             " (add --case=K from its FAIL lines for one case)\n",
             t[w].failing[k], argv0, t[w].failing[k]);
  printf("test_cpu: %ld seeds of %d from %" PRIu64 " (%d jobs, %.0f s), %ld with a failure: %s\n",
         done, o.repeat, base, jobs, now_s() - t0, failed, failed ? "FAILED" : "OK");
  return failed ? 1 : 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  /* --jobs=J and --max-seconds=T (seed runs only) are this binary's; the rest go to the engine. */
  int jobs = 1;
  double max_s = 0.0;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const int is_jobs = !strncmp(argv[i], "--jobs=", 7), is_max = !strncmp(argv[i], "--max-seconds=", 14);
    if (!is_jobs && !is_max) {
      argv[kept++] = argv[i];
      continue;
    }
    const char *v = argv[i] + (is_jobs ? 7 : 14);
    char *end = NULL;
    const double x = strtod(v, &end);
    if (!*v || *end || !(x >= 0) || x > 1e7 || (is_jobs && x != (int)x)) {
      fprintf(stderr, "bad %s: expected %s\n", argv[i],
              is_jobs ? "an integer >= 0 (0: one per core)" : "a number of seconds >= 0 (0: no bound)");
      return 2;
    }
    if (is_jobs) jobs = (int)x;
    else max_s = x;
  }
  argc = kept;
  fn_engine_opts o;
  if (fn_engine_parse_args(argc, argv, &o)) return 2;
  if ((jobs != 1 || max_s > 0) && o.repeat < 2) {
    fprintf(stderr, "--jobs and --max-seconds apply to seed runs: add --repeat=R (R >= 2)\n");
    return 2;
  }
  const fn_api api = {"cpu", fusednorm_forward_cpu, fusednorm_backward_cpu,
                      fusednorm_backward_workspace_size_cpu};
  fn_backend cpu = {"cpu", (void *)&api, fn_engine_api_forward, fn_engine_api_backward};
  if (o.repeat > 1) return run_seeds(&cpu, o, argv[0], jobs, max_s);
  int fails = check_thread_invariance();
  fails += fn_engine_run_matrix(&cpu, &o);
  {
    /* fn_engine_run_shapes (test_cuda --wide-fwd's list runner) on a few odd wide rows */
    static const fn_engine_shape wide[] = {{3, 32771, 4}, {1, 65537, 2}};
    cpu.name = "cpu/shapes";
    fails += fn_engine_run_shapes(&cpu, &o, wide, 2);
  }
  {
    /* Many rows of a few columns: every variant over them (a column-wide rounding such as
     * fl(w + offset) repeats in every row, which the bias rules must not mistake for a bias). */
    static const int64_t Ms[] = {2000, 20000}, Ns[] = {24, 40};
    cpu.name = "cpu/narrow";
    fails += fn_engine_run_grid(&cpu, &o, Ms, 2, Ns, 2);
  }
  printf("test_cpu: %s\n", fails ? "FAILED" : "OK");
  return fails ? 1 : 0;
}
