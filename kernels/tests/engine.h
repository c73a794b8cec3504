/*
 * engine.h — one check engine for every backend (CPU, CUDA, each forced mode).
 *
 * A backend is a struct of function pointers working on HOST buffers: a device backend copies
 * inputs in, poisons its outputs (NaN bit patterns) before the run, runs, and copies outputs back.
 * The engine draws fresh random inputs, runs forward and backward twice (bitwise determinism),
 * computes the float64 reference and the naive fp32 baseline, and applies the strict checks
 * (fusednorm_check_forward/backward, kernels/ref/fusednorm_ref.h; the rules with their reasons:
 * kernels/ref/RULES.md). Like nccl-tests: shared engine, short file per backend.
 */
#ifndef FUSEDNORM_TESTS_ENGINE_H_
#define FUSEDNORM_TESTS_ENGINE_H_

#include "kernels/include/fusednorm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  const char *name;
  void *ctx;
  /* Host-buffer forward/backward. The backend owns any workspace it needs. */
  fusednorm_status (*forward)(void *ctx, const fusednorm_problem *p, const fusednorm_fwd_args *a);
  fusednorm_status (*backward)(void *ctx, const fusednorm_problem *p, const fusednorm_bwd_args *a);
} fn_backend;

typedef struct {
  int quick;            /* 1: a reduced matrix (smoke) */
  int verbose;          /* print every case, not only failures */
  uint64_t seed;        /* 0: from time (fresh inputs each run); the seed is printed */
  fusednorm_mode mode;  /* forced into every problem (AUTO by default) */
  const char *filter;   /* substring of the case name to run, or NULL */
  int big;              /* 1: also the largest M x N pairs (4096 x 65536), off in CI for memory */
  int case_index;       /* >= 0: run only this case of the matrix (with --seed: one failure alone) */
  int stop_on_fail;     /* 1: stop at the first failing case */
  int plan_only;        /* 1: one forward and one backward call a case, no output checked: for a
                         * backend that only records the problems it is given (test_plan_coverage) */
  int brief;            /* 1: one summary line instead of the per-dtype table */
  int legacy_rules;     /* 1: also the rules measured against the naive baseline (fusednorm_rule_*,
                           kept for callers that only have merged statistics); they assume the naive
                           formula's rounding order and reject correct alternative orders */
  int repeat;           /* --repeat=R: the caller runs R seeds (seed, seed+1, ...); 1 by default */
  const int64_t *ns;    /* non-NULL: these widths instead of the matrix's (n_ns of them; a backend's
                           own section, e.g. test_cuda's odd widths for the head-split kernels) */
  int n_ns;
} fn_engine_opts;

/* A fresh nonzero seed (time, clock, address). */
uint64_t fn_engine_fresh_seed(void);

/* Runs the whole test matrix (kernels/README.md) on `b`; prints failures and a summary table.
 * Returns the number of failed cases (0 = pass). */
int fn_engine_run_matrix(const fn_backend *b, const fn_engine_opts *o);

/* One shape of fn_engine_run_shapes: `variants` of the matrix's variants (dtype pairs, castings,
 * offsets, weight or none, fused add, strides, planted NaN/Inf), rotated as in the matrix; <= 0:
 * all of them. */
typedef struct {
  int64_t rows, n;
  int variants;
} fn_engine_shape;

/* What test_cuda's coverage checks turn on, shared with test_plan_coverage, which predicts them on
 * the CPU for every real GPU's figures. A check applies on a device whose plan of its reference
 * problem (aligned rows, 16-byte boundaries) takes the path it requires:
 *   --mode=wide: 4096 x 8192 bf16 fused, forced WIDE, with the fused add's ds out of the ring;
 *   the f32-split section (AUTO over FN_COV_F32_SPLIT_SHAPE): 600 x 16400 f32 fused on the
 *   split-row kernel;
 *   the 16-bit fused split section (AUTO over FN_COV_F16_SPLIT_SHAPE, whose two variants are f32
 *   plain and f16 fused with an f16 weight, unstrided): 1001 x 32768 f16 fused on the split-row
 *   kernel;
 *   the narrow backward section (AUTO over FN_COV_NARROW_SHAPES): 17100 x 512 bf16 on the lean
 *   backward's narrow instance (plan `narrow`), plain and fused;
 *   the lean forward's eight-slot section (AUTO over FN_COV_FWD_ROW8_SHAPES, --quick
 *   FN_COV_FWD_ROW8_QUICK_SHAPES): forwards at S = 8 plain where 1100 x 16384 f32 takes it, and
 *   fused where the fused reference (fn_cov_fwd_row8_fused_problem) does. */
#define FN_COV_F32_SPLIT_SHAPE {600, 16400, 12}
#define FN_COV_F16_SPLIT_SHAPE {1001, 32768, 2}
#define FN_COV_NARROW_SHAPES {{17100, 384, 6}, {17100, 512, 6}}
#define FN_COV_FWD_ROW8_SHAPES {{1100, 16384, 6}, {1100, 24576, 6}, {1100, 12288, 6}, {1100, 20480, 6}}
#define FN_COV_FWD_ROW8_QUICK_SHAPES {{1100, 16384, 1}, {1100, 24576, 1}, {1100, 11000, 2}}
static inline fusednorm_problem fn_cov_fwd_row8_problem(void) {
  return fusednorm_problem_init(1100, 16384, FUSEDNORM_F32, FUSEDNORM_F32);
}
/* the fused case the section's rotation gives it below the wide plan's staged weight: --quick f32
 * 1100 x 11000 (GEMMA casting, padded strides), the full run bf16 1100 x 20480 */
static inline fusednorm_problem fn_cov_fwd_row8_fused_problem(int quick) {
  fusednorm_problem p = quick ? fusednorm_problem_init(1100, 11000, FUSEDNORM_F32, FUSEDNORM_F32)
                              : fusednorm_problem_init(1100, 20480, FUSEDNORM_BF16, FUSEDNORM_BF16);
  p.has_residual = 1;
  return p;
}
static inline fusednorm_problem fn_cov_dd_problem(void) {
  fusednorm_problem p = fusednorm_problem_init(4096, 8192, FUSEDNORM_BF16, FUSEDNORM_BF16);
  p.mode = FUSEDNORM_MODE_WIDE, p.has_residual = 1;
  return p;
}
static inline fusednorm_problem fn_cov_f32_split_problem(void) {
  fusednorm_problem p = fusednorm_problem_init(600, 16400, FUSEDNORM_F32, FUSEDNORM_F32);
  p.has_residual = 1;
  return p;
}
static inline fusednorm_problem fn_cov_f16_split_problem(void) {
  fusednorm_problem p = fusednorm_problem_init(1001, 32768, FUSEDNORM_F16, FUSEDNORM_F16);
  p.has_residual = 1;
  return p;
}
static inline fusednorm_problem fn_cov_narrow_problem(void) {
  return fusednorm_problem_init(17100, 512, FUSEDNORM_BF16, FUSEDNORM_BF16);
}
#define FN_COV_LAYOUT {1, 1, 0, 16} /* fusednorm_layout */

/* The engine's checks (float64 reference, poisoned outputs, run-to-run determinism, forward and
 * backward) over a caller's list of shapes instead of the matrix; prints like
 * fn_engine_run_matrix. Returns the number of failed cases. */
int fn_engine_run_shapes(const fn_backend *b, const fn_engine_opts *o, const fn_engine_shape *shapes, int count);

/* fn_engine_run_matrix over the shapes Ms x Ns instead of the built-in ones (the same variants per shape:
 * every dtype, casting, offset, weight, fused add, strides and special values rotate over them). */
int fn_engine_run_grid(const fn_backend *b, const fn_engine_opts *o, const int64_t *Ms, int nM, const int64_t *Ns,
                       int nN);

/* The C API entry points of one backend with the stream bound (CUDA adapters pass their stream).
 * Used for the bad-argument checks, which must fail in validation before any memory is touched. */
typedef struct {
  const char *name;
  fusednorm_status (*forward)(const fusednorm_problem *p, const fusednorm_fwd_args *a);
  fusednorm_status (*backward)(const fusednorm_problem *p, const fusednorm_bwd_args *a);
  fusednorm_status (*workspace_size)(const fusednorm_problem *p, size_t *bytes);
} fn_api;

/* Every bad argument returns its documented status (never a crash). Returns failures. */
int fn_engine_check_bad_args(const fn_api *api);

/* fn_backend callbacks over a host backend's plain C API (the CPU backend and its test builds):
 * ctx is a `const fn_api *`. The backward gets a fresh workspace of the size the backend reports,
 * filled with 0xff bytes (stale partials must never leak into dw). */
fusednorm_status fn_engine_api_forward(void *ctx, const fusednorm_problem *p, const fusednorm_fwd_args *a);
fusednorm_status fn_engine_api_backward(void *ctx, const fusednorm_problem *p, const fusednorm_bwd_args *a);

/* Parses --quick --verbose --big --seed=N --case=K --repeat=R --mode=NAME --filter=S; returns 0
 * or prints usage and 2. Every failure line prints --seed and --case to rerun exactly it. */
int fn_engine_parse_args(int argc, char **argv, fn_engine_opts *o);

#ifdef __cplusplus
}
#endif
#endif
