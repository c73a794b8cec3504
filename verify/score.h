/*
 * score.h — what the replay measures, per unit of work and per record.
 *
 * A record is cut into row chunks ("units") whose size depends only on the record (never on the
 * number of ranks). A unit is run through fusednorm twice (bitwise compared), through the float64
 * reference and the naive fp32 baseline (kernels/ref), and its error statistics and dw partial
 * sums are kept. Rank 0 combines the units of a record in unit order — statistics merged, dw
 * partials summed in fp32 in a fixed order — and applies the accuracy rules (fusednorm_rule_*,
 * the same C code the tests use). So every number behind a verdict is identical for any number of
 * ranks; only the data-parallel emulation (each rank's dw summed, then MPI_Allreduce'd in fp32 and
 * in fp64) depends on it, and it is reported, not judged.
 */
#ifndef FUSEDNORM_VERIFY_SCORE_H_
#define FUSEDNORM_VERIFY_SCORE_H_

#include <stddef.h>
#include <stdint.h>

#include "kernels/ref/fusednorm_ref.h"
#include "verify/device.h"
#include "verify/record.h"

typedef struct {
  fn_device_kind device;
  fusednorm_mode mode;
  int allow_nonfinite;
  /* Tolerance overrides; < 0 = the built-in rule of fusednorm_ref.c. */
  double y_max_ulp, dx_frac, dx_max_factor, dx_l2_factor, dw_factor;
  /* Testing aid: after fusednorm's run, move one output element by `inject_ulps` ulps
   * (tensor y|dx|dw, record name, row, col) so the tests can watch a failure being caught. */
  int inject;
  char inject_tensor[8], inject_record[256];
  int64_t inject_row, inject_col;
  int inject_ulps;
} fn_options;

/* Units of a record: at most 16 chunks of >= 256 rows (bounded memory, bounded gather size). */
int fn_record_units(const fn_record *r);
void fn_unit_rows(const fn_record *r, int unit, int64_t *row0, int64_t *rows);

/* Which outputs differed between the two runs (bit flags). */
enum { FN_ND_Y = 1, FN_ND_ROUT = 2, FN_ND_RSTD = 4, FN_ND_DX = 8, FN_ND_DW = 16 };

typedef struct {
  int32_t unit;
  int32_t skipped;              /* 1: the forced mode cannot run this shape (why) */
  int32_t api_error;            /* 1: fusednorm returned an error status (why) */
  int32_t nondet;               /* FN_ND_* */
  int32_t dy_rounded;           /* dy/ds stored wider than x_dtype, rounded for the kernel */
  int32_t has_job[4];           /* y, residual_out, dx, dresidual */
  char why[200];
  fusednorm_err_stats y, rout, rstd, dx;      /* fusednorm vs float64 */
  fusednorm_err_stats ny, nrstd, ndx;         /* naive fp32 vs float64 */
  fusednorm_err_stats jy, jrout, jdx, jdres;  /* the job's own outputs vs float64 */
  fusednorm_err_stats dxn;      /* fusednorm dx vs the job's (neutral-rstd) reference: a like-for-
                                   like comparison with the job, not a verdict input */
} fn_unit_result;

/* Bytes one unit sends to rank 0: the struct, then dw partials of fusednorm (float[n]), naive
 * (float[n]), reference (double[n]) and reference for the job (double[n]). */
size_t fn_unit_bytes(const fn_record *r);

/* Runs one unit. 0: done (check failures are in the result); -1: bad input (message in err, the
 * replay exits 2: unreadable rows, NaN/Inf inputs). `buf` has fn_unit_bytes(r) bytes. */
int fn_unit_run(const fn_capture_file *f, const fn_record *r, fn_device *dev,
                const fn_options *o, int unit, void *buf, char *err, size_t len);

typedef struct {
  int units, skipped, api_error, has_bwd, dy_rounded;
  int nondet;
  int has_job[5];               /* y, residual_out, dx, dresidual, dw */
  fusednorm_err_stats y, rout, rstd, dx, dw;
  fusednorm_err_stats ny, nrstd, ndx, ndw;
  fusednorm_err_stats jy, jrout, jdx, jdres, jdw;
  fusednorm_err_stats dxn;
  int ok_y, ok_rout, ok_rstd, ok_dx, ok_dw, ok_det, ok;
  char why_y[256], why_rout[256], why_rstd[256], why_dx[256], why_dw[256], why_other[256];
  /* data-parallel emulation: the ranks' dw sums all-reduced in fp32 / fp64 vs float64 */
  double ar32_max_rel, ar32_rel_l2, ar64_max_rel, ar64_rel_l2;
  int ranks;
} fn_record_result;

/* Rank 0: combine the units (bufs[u] = unit u's bytes, in unit order) into a verdict. job_dw: the
 * record's job/dw as stored (NULL if absent); scored only when every row was captured. */
void fn_record_combine(const fn_record *r, const fn_options *o, void *const *bufs, int units,
                       const void *job_dw, fn_record_result *out);

/* Rank-partial dw for the data-parallel emulation: adds unit dw (from a unit buffer) to acc. */
void fn_unit_dw_add(const fn_record *r, const void *buf, float *acc32, double *acc64);
/* Scores the all-reduced sums against the float64 total (ref_total from fn_record_combine's
 * inputs: recomputed here from the unit buffers). */
void fn_record_allreduce_score(const fn_record *r, void *const *bufs, int units,
                               const float *ar32, const double *ar64, int ranks,
                               fn_record_result *out);

#endif
