/*
 * test_mutants.c — the accuracy rules must catch real defects. Each mutant of
 * kernels/tests/mutants/cpu_mutants.h plants one defect into a test-only build of the CPU backend
 * (kernels/src/cpu.c compiled with -DFN_MUTANTS); the check engine runs the quick matrix on it,
 * stopping at the first failing case, and that failure is the catch. A mutant that passes the
 * whole matrix survives, and the test fails. Then the same build with every reduction in a
 * different correct order (fma chains, reversed, pairwise, as the CUDA kernels sum) must pass the
 * whole quick matrix: the rules do not depend on the CPU backend's summation order.
 *
 *   test_mutants [--seed=N] [--mutant=K]     (K = 100: only the alternative-order run)
 * The seed (fresh by default) is printed; a failure line gives --seed and --case to rerun it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/include/fusednorm.h"
#include "kernels/tests/engine.h"

int fn_mutant = 0;

/* The renamed entry points of the mutant build (cpu_mutants.h). */
fusednorm_status fn_mutant_forward_cpu(const fusednorm_problem *p, const fusednorm_fwd_args *a);
fusednorm_status fn_mutant_backward_workspace_size_cpu(const fusednorm_problem *p, size_t *bytes);
fusednorm_status fn_mutant_backward_cpu(const fusednorm_problem *p, const fusednorm_bwd_args *a);

static const char *kNames[] = {
    "none",
    "y +1 ulp on every element (f32)",
    "dx +1 ulp on every element (f32)",
    "y below 1e-6 flushed to zero (f32)",
    "rstd x (1 + 2u), an rsqrtf-class error",
    "rstd from one serial fp32 sum",
    "mean of squares divided by n - 1",
    "dw x (1 + 64u)",
    "dw accumulated with round-toward-zero",
    "y +1 ulp on 1% of the elements",
    "sum of squares misses the last element",
    "backward mean(g*h) misses the last element",
    "dw misses a row",
    "eps outside the sqrt",
    "backward uses the neighbouring row's rstd",
    "llama dx at the rounded point",
    "llama y without the intermediate rounding",
    "llama dw with the unrounded h",
    "backward forgets the weight offset",
    "last y of a row copies its neighbour",
    "last residual_out of a row copies its neighbour",
};
#define N_MUTANTS 21 /* FN_MUT_COUNT_ */

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  int only = -1;
  char *rest[64];
  int nrest = 0;
  for (int i = 0; i < argc && nrest < 63; ++i) {
    if (!strncmp(argv[i], "--mutant=", 9)) {
      char *end = NULL;
      long k = strtol(argv[i] + 9, &end, 10);
      if (!argv[i][9] || *end || !((k >= 1 && k < N_MUTANTS) || k == 100)) {
        fprintf(stderr, "bad %s: expected 1..%d or 100\n", argv[i], N_MUTANTS - 1);
        return 2;
      }
      only = (int)k;
    } else {
      rest[nrest++] = argv[i];
    }
  }
  rest[nrest] = NULL;
  fn_engine_opts o;
  if (fn_engine_parse_args(nrest, rest, &o)) return 2;
  if (!o.seed) o.seed = fn_engine_fresh_seed();
  o.quick = 1, o.brief = 1;
  const fn_api api = {"cpu-mutant", fn_mutant_forward_cpu, fn_mutant_backward_cpu,
                      fn_mutant_backward_workspace_size_cpu};
  fn_backend b = {"cpu-mutant", (void *)&api, fn_engine_api_forward, fn_engine_api_backward};
  printf("test_mutants: seed=%" PRIu64 "\n", o.seed);
  int survived = 0, caught = 0;
  for (int k = 1; k < N_MUTANTS; ++k) {
    if (only >= 0 && only != k) continue;
    fn_mutant = k;
    char name[96];
    snprintf(name, sizeof name, "cpu-mutant-%d", k);
    b.name = name;
    fn_engine_opts om = o;
    om.stop_on_fail = 1;
    printf("mutant %2d (%s):\n", k, kNames[k]);
    const int fails = fn_engine_run_matrix(&b, &om);
    printf("mutant %2d (%s): %s\n", k, kNames[k], fails ? "caught" : "SURVIVED: the rules miss it");
    if (fails) caught++;
    else survived++;
  }
  int alt_fail = 0;
  if (only < 0 || only == 100) {
    fn_mutant = 100;
    b.name = "cpu-alt-orders";
    printf("alternative summation orders (must pass):\n");
    alt_fail = fn_engine_run_matrix(&b, &o);
    printf("alternative summation orders: %s\n", alt_fail ? "FAILED: a correct order is rejected" : "OK");
  }
  const int alt_ran = only < 0 || only == 100;
  printf("test_mutants: %d caught, %d survived; alternative orders %s: %s\n", caught, survived,
         !alt_ran ? "not run" : alt_fail ? "rejected" : "accepted",
         survived || alt_fail ? "FAILED" : "OK");
  return survived || alt_fail ? 1 : 0;
}
