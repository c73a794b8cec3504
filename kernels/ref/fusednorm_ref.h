/*
 * fusednorm_ref.h — the float64 reference, the naive fp32 baseline and the accuracy rules.
 *
 * One implementation used by the tests, the replay harness (verify/) and the bench, so that all
 * three judge a result the same way. Everything here is host code on host buffers.
 *
 * Reference = float64 evaluation of the formulas of kernels/README.md on the same (rounded) inputs:
 *   the storage rounding of s = RN(x + r) (fused add) and, for LLAMA casting, of the normalized
 *   value RN(s * rstd) are part of the contract and are applied; everything else is float64.
 * Naive fp32 = the same formulas in straightforward serial fp32 loops, rounded to the output dtype;
 *   it is the "as accurate as fp32 math" yardstick for dx, dw and f32 outputs.
 */
#ifndef FUSEDNORM_REF_H_
#define FUSEDNORM_REF_H_

#include "kernels/include/fusednorm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- scalar conversions (round-to-nearest-even, NaN kept quiet) ---- */
float fusednorm_half_to_float(uint16_t h);
uint16_t fusednorm_float_to_half(float f);
float fusednorm_bf16_to_float(uint16_t b);
uint16_t fusednorm_float_to_bf16(float f);
/* Element i of a buffer of `dtype` as double / stored from double with one correct rounding. */
double fusednorm_load(const void *buf, fusednorm_dtype dtype, int64_t i);
void fusednorm_store(void *buf, fusednorm_dtype dtype, int64_t i, double v);
/* Round a double to `dtype` (one rounding: double -> f16/bf16 is done without double rounding). */
double fusednorm_round_to(double v, fusednorm_dtype dtype);
/* Distance in units in the last place of `dtype` between two values representable in it.
 * Same NaN-ness and both NaN: 0; one NaN: INT64_MAX; +0 and -0 are 0 apart. */
int64_t fusednorm_ulp_distance(double a, double b, fusednorm_dtype dtype);
/* Size of one ulp of `dtype` at |v| (the spacing just above |v|; subnormal spacing near 0). */
double fusednorm_ulp_of(double v, fusednorm_dtype dtype);

/* ---- float64 reference ----
 * Host buffers, strides as in fusednorm_fwd_args. Outputs are dense [rows x n] doubles
 * (y, s = the normalized input after the fused add rounding, n = normalized value) and rstd[rows].
 * Any output pointer may be NULL. Returns FUSEDNORM_OK or the validation status. */
fusednorm_status fusednorm_ref_forward(const fusednorm_problem *p, const fusednorm_fwd_args *a,
                                       double *y, double *s, double *rstd);
/* dx (dense, includes ds for fused add) and dw[n] (unrounded sums) in float64. The saved fp32
 * a->rstd is an INPUT of the backward (n = s*rstd as the forward used it), so the
 * reference evaluates the backward formula on it; rstd itself is judged in the forward check.
 * dx is evaluated at the true point h = s*rstd for every casting; dw = sum dy*n with, for LLAMA,
 * n = RN_x(fl32(s * rstd)), the fp32 product rounded to the x dtype, as the forward made it. */
fusednorm_status fusednorm_ref_backward(const fusednorm_problem *p, const fusednorm_bwd_args *a,
                                        double *dx, double *dw);

/* Condition scale of dw: max over columns of sum_rows |dy * n| (float64, same n as the reference).
 * A column whose sum cancels has |dw| far below this, while any fp32 summation's error scales with
 * it; fusednorm_rule_dw_scaled uses it so that such columns are judged fairly. */
fusednorm_status fusednorm_ref_dw_scale(const fusednorm_problem *p, const fusednorm_bwd_args *a,
                                        double *scale);

/* ---- naive fp32 baseline (serial fp32 loops, outputs rounded to the output dtype) ----
 * Writes into the buffers of `a` exactly like a backend would (dtype, strides). */
fusednorm_status fusednorm_naive_forward(const fusednorm_problem *p, const fusednorm_fwd_args *a);
/* Uses the saved a->rstd like the reference; workspace unused. */
fusednorm_status fusednorm_naive_backward(const fusednorm_problem *p, const fusednorm_bwd_args *a);

/* ---- error statistics of one tensor against its float64 reference ----
 * Mergeable (sums, maxima) so ranks can combine them. */
typedef struct {
  int64_t count;            /* elements compared */
  int64_t nonfinite_ref;    /* elements whose reference is NaN/Inf */
  int64_t nan_mismatch;     /* NaN-ness or Inf differs from the rounded reference */
  int64_t ulp_hist[4];      /* ulp distance to RN(ref): 0, 1, 2, >2 */
  int64_t max_ulp;          /* largest ulp distance among finite elements */
  double max_abs;           /* max |got - ref| over finite elements */
  double max_rel;           /* max |got - ref| / |ref| over finite, nonzero ref */
  double sum_sq_err;        /* sum (got - ref)^2 */
  double sum_sq_ref;        /* sum ref^2 */
  double max_abs_ref;       /* max |ref| over finite elements */
  int64_t within1;          /* finite elements within 1 ulp of RN(ref) (finite = sum of ulp_hist) */
  double max_excess;        /* max over elements of |got-ref| - ulp_of(RN(ref)) */
  double max_excess4;       /* max over elements of |got-ref| - 4 ulp_of(RN(ref)) */
  int64_t worst_row, worst_col; /* coordinates of max_abs */
  double worst_got, worst_ref;
} fusednorm_err_stats;

void fusednorm_err_stats_clear(fusednorm_err_stats *st);
/* got: [rows x n] of `dtype` with row stride `stride`; ref: dense [rows x n] doubles.
 * row0 is added to the reported worst_row (for row-split callers). Accumulates into *st. */
void fusednorm_err_stats_add(fusednorm_err_stats *st, const void *got, fusednorm_dtype dtype,
                             int64_t stride, const double *ref, int64_t rows, int64_t n,
                             int64_t row0);
void fusednorm_err_stats_merge(fusednorm_err_stats *into, const fusednorm_err_stats *from);
double fusednorm_err_stats_rel_l2(const fusednorm_err_stats *st);

/* ---- the naive-baseline accuracy rules (kernels/README.md), on merged statistics against the naive baseline ----
 * For callers that only hold fusednorm_err_stats (merged across ranks). They assume the naive
 * formula's rounding order and are loose (absolute bounds set by the naive worst element); the
 * check engine judges with the strict checks below (kernels/ref/RULES.md).
 * Each returns 1 (pass) or 0 and writes a one-line reason (why it failed, or a summary) into
 * `why` (may be NULL). `naive` is the naive fp32 baseline's stats on the same data.
 *   y : 16-bit dtype: every element within 1 ulp of RN(ref) (LLAMA: see the tolerance table in
 *       fusednorm_ref.c); f32: the dx rule (fp32 math cannot promise 1 fp32 ulp).
 *   dx: >= 99.9% within 1 ulp; max error <= 2 x naive max + 1 ulp; rel L2 <= 1.5 x naive's.
 *   dw: 16-bit dtype: within 1 ulp of RN(ref); f32: max and rel L2 no worse than naive.
 *   The exact allowances, each with its reason, are the tolerance table in fusednorm_ref.c.
 * Non-finite elements must match the reference's NaN/Inf pattern in every rule. */
int fusednorm_rule_y(const fusednorm_problem *p, const fusednorm_err_stats *got,
                     const fusednorm_err_stats *naive, char *why, size_t why_len);
int fusednorm_rule_dx(const fusednorm_problem *p, const fusednorm_err_stats *got,
                      const fusednorm_err_stats *naive, char *why, size_t why_len);
int fusednorm_rule_dw(const fusednorm_problem *p, const fusednorm_err_stats *got,
                      const fusednorm_err_stats *naive, char *why, size_t why_len);
/* fusednorm_rule_dw with the condition scale of fusednorm_ref_dw_scale (0: same as rule_dw). */
int fusednorm_rule_dw_scaled(const fusednorm_problem *p, const fusednorm_err_stats *got,
                             const fusednorm_err_stats *naive, double scale, char *why,
                             size_t why_len);

/* ---- strict checks (the rules with their reasons: the table above them in fusednorm_ref.c) ----
 * Judge one result element by element, with bounds from the fp32 error analysis of the contract
 * (valid for any correct summation order), plus rstd's rms and bias, and the signed and magnitude
 * bias of y, dx and dw. Return 1 (pass) or 0; `why` gets the first failure (rule, element, values,
 * bound) or a summary.
 * forward: a holds the inputs and the backend's y and rstd (required: y is judged as made from
 *   the saved rstd, and rstd against float64 separately). residual_out is not judged here (it is
 *   exact: compare it with RN(x + residual)).
 * backward: a holds the inputs (saved rstd included) and the backend's dx and, with a weight, dw
 *   (dw NULL: not judged). */
int fusednorm_check_forward(const fusednorm_problem *p, const fusednorm_fwd_args *a, char *why,
                            size_t why_len);
int fusednorm_check_backward(const fusednorm_problem *p, const fusednorm_bwd_args *a, char *why,
                             size_t why_len);

#ifdef __cplusplus
}
#endif
#endif /* FUSEDNORM_REF_H_ */
