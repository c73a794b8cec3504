/* score.c — one unit through fusednorm / float64 / naive fp32, and a record's verdict (score.h). */
#define _POSIX_C_SOURCE 200809L
#include "verify/score.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_UNITS 16
#define MIN_UNIT_ROWS 256

int fn_record_units(const fn_record *r) {
  int64_t u = (r->rows + MIN_UNIT_ROWS - 1) / MIN_UNIT_ROWS;
  return (int)(u < 1 ? 1 : u > MAX_UNITS ? MAX_UNITS : u);
}

void fn_unit_rows(const fn_record *r, int unit, int64_t *row0, int64_t *rows) {
  int64_t units = fn_record_units(r), per = (r->rows + units - 1) / units;
  int64_t a = per * unit, b = a + per < r->rows ? a + per : r->rows;
  *row0 = a;
  *rows = b > a ? b - a : 0;
}

size_t fn_unit_bytes(const fn_record *r) {
  return sizeof(fn_unit_result) + 2 * sizeof(float) * (size_t)r->n +
         2 * sizeof(double) * (size_t)r->n;
}

typedef struct {
  fn_unit_result *res;
  float *dwf, *dwn;
  double *dwr, *dwj;
} unit_view;

static unit_view view(const fn_record *r, void *buf) {
  unit_view v;
  char *p = buf;
  v.res = (fn_unit_result *)p;
  p += sizeof(fn_unit_result);
  v.dwf = (float *)p;
  p += sizeof(float) * (size_t)r->n;
  v.dwn = (float *)p;
  p += sizeof(float) * (size_t)r->n;
  v.dwr = (double *)p;
  p += sizeof(double) * (size_t)r->n;
  v.dwj = (double *)p;
  return v;
}


/* The backward runs with an fp32 weight when a 16-bit dw would be summed over several units: the
 * fp32 partials are added in a fixed order and rounded once at the end, as one call would. The
 * weight's values (and so dx) are unchanged: f16/bf16 widen to f32 exactly. */
static fusednorm_problem bwd_problem(const fn_record *r, const fusednorm_problem *pf) {
  fusednorm_problem pb = *pf;
  if (r->has_weight && fn_record_units(r) > 1) pb.w_dtype = FUSEDNORM_F32;
  return pb;
}

/* Counts NaN/Inf of a [rows x n] buffer; the first one's coordinates. */
static int64_t nonfinite(const void *b, fusednorm_dtype dt, int64_t rows, int64_t n, int64_t *fr,
                         int64_t *fc) {
  int64_t c = 0;
  for (int64_t i = 0; i < rows * n; ++i)
    if (!isfinite(fusednorm_load(b, dt, i))) {
      if (!c) {
        *fr = i / n;
        *fc = i % n;
      }
      c++;
    }
  return c;
}

/* Moves element i of a buffer by k representable values (the injected fault). */
static void nudge(void *b, fusednorm_dtype dt, int64_t i, int k) {
  if (dt == FUSEDNORM_F32) ((uint32_t *)b)[i] += (uint32_t)k;
  else ((uint16_t *)b)[i] = (uint16_t)(((uint16_t *)b)[i] + k);
}

typedef struct {
  void *p[40];
  int n;
} bag;

static void *take(bag *g, size_t bytes) {
  void *p = calloc(1, bytes ? bytes : 1);
  if (p) g->p[g->n++] = p;
  return p;
}

static void drop(bag *g) {
  for (int i = 0; i < g->n; ++i) free(g->p[i]);
  g->n = 0;
}

int fn_unit_run(const fn_capture_file *f, const fn_record *r, fn_device *dev,
                const fn_options *o, int unit, void *buf, char *err, size_t len) {
  memset(buf, 0, fn_unit_bytes(r));
  unit_view v = view(r, buf);
  fn_unit_result *R = v.res;
  R->unit = unit;
  fusednorm_err_stats *all[] = {&R->y, &R->rout, &R->rstd, &R->dx, &R->ny, &R->nrstd,
                                &R->ndx, &R->jy, &R->jrout, &R->jdx, &R->jdres, &R->dxn};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) fusednorm_err_stats_clear(all[i]);

  int64_t row0, rows, n = r->n;
  fn_unit_rows(r, unit, &row0, &rows);
  fusednorm_problem pf = fn_record_problem(r);
  pf.rows = rows;
  pf.mode = o->mode;
  fusednorm_problem pb = bwd_problem(r, &pf);
  fusednorm_dtype xd = r->x_dtype;
  size_t ex = fusednorm_dtype_size(xd), m = (size_t)rows * (size_t)n;
  size_t wbytes = (size_t)n * fusednorm_dtype_size(pf.w_dtype);
  size_t wbbytes = (size_t)n * fusednorm_dtype_size(pb.w_dtype);
  int bwd = r->d[FN_D_DY].present;
  bag g = {.n = 0};
  int rc = 0;

  /* ---- inputs ---- */
  void *x = take(&g, m * ex), *res = r->fused ? take(&g, m * ex) : NULL;
  void *w = r->has_weight ? take(&g, wbytes) : NULL;
  void *wb = r->has_weight ? take(&g, wbbytes) : NULL;
  void *dy = bwd ? take(&g, m * ex) : NULL;
  void *ds = bwd && r->d[FN_D_DS].present ? take(&g, m * ex) : NULL;
  void *tmp = take(&g, m * 4);
  if (!x || !tmp || (r->fused && !res) || (r->has_weight && (!w || !wb)) || (bwd && !dy)) {
    rc = fn_say(err, len, "out of memory for %lld x %lld rows", (long long)rows, (long long)n);
    goto out;
  }
  if (fn_record_read(f, r, FN_D_X, row0, rows, x, err, len) < 0) goto fail;
  if (res && fn_record_read(f, r, FN_D_RESIDUAL, row0, rows, res, err, len) < 0) goto fail;
  if (w) {
    if (fn_record_read(f, r, FN_D_WEIGHT, 0, n, w, err, len) < 0) goto fail;
    for (int64_t j = 0; j < n; ++j) fusednorm_store(wb, pb.w_dtype, j, fusednorm_load(w, pf.w_dtype, j));
  }
  /* dy/ds as stored (maybe wider than x, e.g. HF Llama with an fp32 weight makes y fp32), then
   * rounded to x_dtype, the dtype the kernel takes them in. */
  fn_dset_id gin[2] = {FN_D_DY, FN_D_DS};
  void *gbuf[2] = {dy, ds};
  for (int k = 0; k < 2; ++k) {
    if (!gbuf[k]) continue;
    fusednorm_dtype sd = r->d[gin[k]].dtype;
    if (fn_record_read(f, r, gin[k], row0, rows, tmp, err, len) < 0) goto fail;
    if (sd == xd) {
      memcpy(gbuf[k], tmp, m * ex);
    } else {
      R->dy_rounded = 1;
      int64_t over = 0, first = 0;
      double first_v = 0;
      for (size_t i = 0; i < m; ++i) {
        double v = fusednorm_load(tmp, sd, (int64_t)i);
        fusednorm_store(gbuf[k], xd, (int64_t)i, v);
        if (isfinite(v) && !isfinite(fusednorm_load(gbuf[k], xd, (int64_t)i)) && !over++) {
          first = (int64_t)i;
          first_v = v;
        }
      }
      /* Finite as captured, infinite in the dtype the kernel takes: not a diverged job. */
      if (over && !o->allow_nonfinite) {
        rc = fn_say(err, len,
                    "%s:/records/%s: input '%s' is stored as %s and %lld of its finite values "
                    "overflow %s, the x_dtype the kernel takes it in (first at row %lld, col %lld: "
                    "%g); --allow-nonfinite replays it with those values infinite",
                    f->path, r->name, fn_dset_path(gin[k]), fusednorm_dtype_name(sd),
                    (long long)over, fusednorm_dtype_name(xd), (long long)(row0 + first / n),
                    (long long)(first % n), first_v);
        goto out;
      }
    }
  }
  if (!o->allow_nonfinite) {
    const void *ins[5] = {x, res, dy, ds, w};
    const char *nm[5] = {"x", "residual", "dy", "ds", "weight"};
    for (int k = 0; k < 5; ++k) {
      if (!ins[k]) continue;
      int64_t fr = 0, fc = 0;
      int64_t c = k == 4 ? nonfinite(w, pf.w_dtype, 1, n, &fr, &fc)
                         : nonfinite(ins[k], xd, rows, n, &fr, &fc);
      if (c) {
        rc = fn_say(err, len,
                 "%s:/records/%s: input '%s' has %lld NaN/Inf values (first at row %lld, col "
                 "%lld): the captured job had diverged; --allow-nonfinite replays it anyway",
                 f->path, r->name, nm[k], (long long)c, (long long)(k == 4 ? 0 : row0 + fr),
                 (long long)fc);
        goto out;
      }
    }
  }

  /* ---- fusednorm, twice ---- */
  void *y[2], *ro[2] = {NULL, NULL}, *dx[2] = {NULL, NULL}, *dw[2] = {NULL, NULL};
  float *rs[2];
  for (int t = 0; t < 2; ++t) {
    y[t] = take(&g, m * ex);
    rs[t] = take(&g, sizeof(float) * (size_t)rows);
    if (r->fused) ro[t] = take(&g, m * ex);
    if (bwd) dx[t] = take(&g, m * ex);
    if (bwd && r->has_weight) dw[t] = take(&g, wbbytes);
    if (!y[t] || !rs[t] || (r->fused && !ro[t]) || (bwd && !dx[t])) {
      rc = fn_say(err, len, "out of memory");
      goto out;
    }
    char why[200] = "";
    fusednorm_status st = fn_device_run(dev, &pf, &pb, x, res, w, wb, dy, ds, y[t], ro[t], rs[t],
                                        dx[t], dw[t], why, sizeof why);
    if (st == FUSEDNORM_ERR_MODE_UNSUPPORTED) {
      R->skipped = 1;
      snprintf(R->why, sizeof R->why, "mode %s cannot run %lldx%lld: %s",
               fusednorm_mode_name(o->mode), (long long)rows, (long long)n, why);
      goto out;
    }
    if (st != FUSEDNORM_OK) {
      R->api_error = 1;
      snprintf(R->why, sizeof R->why, "%s", why);
      goto out;
    }
    if (o->inject && !strcmp(o->inject_record, r->name) && o->inject_row >= row0 &&
        o->inject_row < row0 + rows && o->inject_col >= 0 && o->inject_col < n) {
      int64_t i = (o->inject_row - row0) * n + o->inject_col;
      if (!strcmp(o->inject_tensor, "y")) nudge(y[t], xd, i, o->inject_ulps);
      if (!strcmp(o->inject_tensor, "dx") && dx[t]) nudge(dx[t], xd, i, o->inject_ulps);
      if (!strcmp(o->inject_tensor, "dw") && dw[t] && o->inject_row == row0)
        nudge(dw[t], pb.w_dtype, o->inject_col, o->inject_ulps);
    }
  }
  if (memcmp(y[0], y[1], m * ex)) R->nondet |= FN_ND_Y;
  if (r->fused && memcmp(ro[0], ro[1], m * ex)) R->nondet |= FN_ND_ROUT;
  if (memcmp(rs[0], rs[1], sizeof(float) * (size_t)rows)) R->nondet |= FN_ND_RSTD;
  if (bwd && memcmp(dx[0], dx[1], m * ex)) R->nondet |= FN_ND_DX;
  if (dw[0] && memcmp(dw[0], dw[1], wbbytes)) R->nondet |= FN_ND_DW;

  /* ---- float64 reference and naive fp32 forward ---- */
  double *ry = take(&g, m * 8), *rsd = take(&g, m * 8), *rrs = take(&g, (size_t)rows * 8);
  void *ny = take(&g, m * ex), *nro = r->fused ? take(&g, m * ex) : NULL;
  float *nrs = take(&g, sizeof(float) * (size_t)rows);
  void *sbuf = take(&g, m * ex);
  if (!ry || !rsd || !rrs || !ny || !nrs || !sbuf || (r->fused && !nro)) {
    rc = fn_say(err, len, "out of memory");
    goto out;
  }
  fusednorm_fwd_args fa = {.x = x, .x_stride = n, .residual = res, .residual_stride = n,
                           .weight = w, .y = ny, .y_stride = n, .residual_out = nro,
                           .residual_out_stride = n, .rstd = nrs};
  fusednorm_status st = fusednorm_ref_forward(&pf, &fa, ry, rsd, rrs);
  if (st == FUSEDNORM_OK) st = fusednorm_naive_forward(&pf, &fa);
  if (st != FUSEDNORM_OK) {
    R->api_error = 1;
    snprintf(R->why, sizeof R->why, "reference forward: %s", fusednorm_status_string(st));
    goto out;
  }
  fusednorm_err_stats_add(&R->y, y[0], xd, n, ry, rows, n, row0);
  fusednorm_err_stats_add(&R->ny, ny, xd, n, ry, rows, n, row0);
  fusednorm_err_stats_add(&R->rstd, rs[0], FUSEDNORM_F32, 1, rrs, rows, 1, row0);
  fusednorm_err_stats_add(&R->nrstd, nrs, FUSEDNORM_F32, 1, rrs, rows, 1, row0);
  if (r->fused) fusednorm_err_stats_add(&R->rout, ro[0], xd, n, rsd, rows, n, row0);
  /* s in storage dtype as the reference defines it (exact: RN(x+r) is representable). */
  for (size_t i = 0; i < m; ++i) fusednorm_store(sbuf, xd, (int64_t)i, rsd[i]);

  /* ---- the job's forward outputs ---- */
  fn_dset_id jf[2] = {FN_D_JOB_Y, FN_D_JOB_ROUT};
  fusednorm_err_stats *js[2] = {&R->jy, &R->jrout};
  double *jref[2] = {ry, rsd};
  for (int k = 0; k < 2; ++k) {
    if (!r->d[jf[k]].present) continue;
    if (fn_record_read(f, r, jf[k], row0, rows, tmp, err, len) < 0) goto fail;
    fusednorm_err_stats_add(js[k], tmp, r->d[jf[k]].dtype, n, jref[k], rows, n, row0);
    R->has_job[k] = 1;
  }

  /* ---- backward ---- */
  if (bwd) {
    double *rdx = take(&g, m * 8), *rdxj = take(&g, m * 8);
    void *ndx = take(&g, m * ex), *ndw = r->has_weight ? take(&g, wbbytes) : NULL;
    float *rsn = take(&g, sizeof(float) * (size_t)rows);
    if (!rdx || !rdxj || !ndx || !rsn || (r->has_weight && !ndw)) {
      rc = fn_say(err, len, "out of memory");
      goto out;
    }
    /* fusednorm (and the naive baseline) are judged with the rstd fusednorm's forward saved,
     * as training uses it (kernels/ref: rstd is an input of the backward formula). */
    fusednorm_bwd_args ba = {.dy = dy, .dy_stride = n, .s = sbuf, .s_stride = n, .ds = ds,
                             .ds_stride = n, .weight = wb, .rstd = rs[0], .dx = ndx,
                             .dx_stride = n, .dw = ndw};
    st = fusednorm_ref_backward(&pb, &ba, rdx, r->has_weight ? v.dwr : NULL);
    if (st == FUSEDNORM_OK) st = fusednorm_naive_backward(&pb, &ba);
    /* The job is judged against a neutral truth: the correctly rounded fp32 rstd. */
    for (int64_t i = 0; i < rows; ++i) rsn[i] = (float)rrs[i];
    ba.rstd = rsn;
    if (st == FUSEDNORM_OK) st = fusednorm_ref_backward(&pb, &ba, rdxj, r->has_weight ? v.dwj : NULL);
    if (st != FUSEDNORM_OK) {
      R->api_error = 1;
      snprintf(R->why, sizeof R->why, "reference backward: %s", fusednorm_status_string(st));
      goto out;
    }
    fusednorm_err_stats_add(&R->dx, dx[0], xd, n, rdx, rows, n, row0);
    fusednorm_err_stats_add(&R->ndx, ndx, xd, n, rdx, rows, n, row0);
    fusednorm_err_stats_add(&R->dxn, dx[0], xd, n, rdxj, rows, n, row0);
    if (r->has_weight)
      for (int64_t j = 0; j < n; ++j) {
        v.dwf[j] = (float)fusednorm_load(dw[0], pb.w_dtype, j);
        v.dwn[j] = (float)fusednorm_load(ndw, pb.w_dtype, j);
      }
    fn_dset_id jb[2] = {FN_D_JOB_DX, FN_D_JOB_DRES};
    fusednorm_err_stats *jbs[2] = {&R->jdx, &R->jdres};
    for (int k = 0; k < 2; ++k) {
      if (!r->d[jb[k]].present) continue;
      if (fn_record_read(f, r, jb[k], row0, rows, tmp, err, len) < 0) goto fail;
      fusednorm_err_stats_add(jbs[k], tmp, r->d[jb[k]].dtype, n, rdxj, rows, n, row0);
      R->has_job[2 + k] = 1;
    }
  }
  goto out;
fail:
  rc = -1;
out:
  drop(&g);
  return rc;
}

/* ---- combining units (rank 0) ---------------------------------------------------------------- */

/* Tolerance overrides: the rules of fusednorm_ref.c with the user's constants. */
static int custom_dx(const fusednorm_problem *p, const fusednorm_err_stats *g,
                     const fusednorm_err_stats *nv, const fn_options *o, char *why, size_t len) {
  double frac_need = o->dx_frac >= 0 ? o->dx_frac : 0.999;
  double amax = o->dx_max_factor >= 0 ? o->dx_max_factor : 2.0;
  double al2 = o->dx_l2_factor >= 0 ? o->dx_l2_factor : 1.5;
  if (g->nan_mismatch) return fn_say(why, len, "dx: %lld NaN/Inf mismatches", (long long)g->nan_mismatch), 0;
  int64_t fin = g->ulp_hist[0] + g->ulp_hist[1] + g->ulp_hist[2] + g->ulp_hist[3];
  double frac = fin ? (double)g->within1 / (double)fin : 1.0;
  if (p->x_dtype != FUSEDNORM_F32 && frac < frac_need)
    return fn_say(why, len, "dx: %.4f%% within 1 ulp < %.4f%% (override)", 100 * frac, 100 * frac_need), 0;
  double excess = p->x_dtype == FUSEDNORM_F32 ? g->max_excess4 : g->max_excess;
  if (excess > amax * nv->max_abs)
    return fn_say(why, len, "dx: max error %.3g at [%lld,%lld] beyond %.3g x naive %.3g (override)",
               g->max_abs, (long long)g->worst_row, (long long)g->worst_col, amax, nv->max_abs), 0;
  double l2 = fusednorm_err_stats_rel_l2(g), nl2 = fusednorm_err_stats_rel_l2(nv);
  if (l2 > al2 * nl2 + 0x1p-22)
    return fn_say(why, len, "dx: rel L2 %.3g > %.3g x naive %.3g (override)", l2, al2, nl2), 0;
  fn_say(why, len, "dx: max ulp %lld, rel L2 %.3g (naive %.3g) [override]", (long long)g->max_ulp, l2, nl2);
  return 1;
}

static int exact_rule(const fusednorm_err_stats *g, const char *what, char *why, size_t len) {
  int64_t off = g->ulp_hist[1] + g->ulp_hist[2] + g->ulp_hist[3] + g->nan_mismatch;
  if (off)
    return fn_say(why, len, "%s: %lld elements differ from RN(x + residual) (worst [%lld,%lld])", what,
               (long long)off, (long long)g->worst_row, (long long)g->worst_col), 0;
  fn_say(why, len, "%s: bitwise RN(x + residual)", what);
  return 1;
}

static void stats_of_dw(fusednorm_err_stats *st, const float *tot, fusednorm_dtype dt, int64_t n,
                        const double *ref) {
  void *b = malloc((size_t)n * 4);
  fusednorm_err_stats_clear(st);
  if (!b) return;
  for (int64_t j = 0; j < n; ++j) fusednorm_store(b, dt, j, (double)tot[j]);
  fusednorm_err_stats_add(st, b, dt, 1, ref, 1, n, 0);
  free(b);
}

void fn_record_combine(const fn_record *r, const fn_options *o, void *const *bufs, int units,
                       const void *job_dw, fn_record_result *out) {
  memset(out, 0, sizeof *out);
  fusednorm_err_stats *all[] = {&out->y, &out->rout, &out->rstd, &out->dx, &out->dw, &out->ny,
                                &out->nrstd, &out->ndx, &out->ndw, &out->jy, &out->jrout,
                                &out->jdx, &out->jdres, &out->jdw, &out->dxn};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) fusednorm_err_stats_clear(all[i]);
  out->units = units;
  out->has_bwd = r->d[FN_D_DY].present;
  int64_t n = r->n;
  float *tf = calloc((size_t)n, 4), *tn = calloc((size_t)n, 4);
  double *tr = calloc((size_t)n, 8), *tj = calloc((size_t)n, 8);
  for (int u = 0; u < units; ++u) {
    unit_view v = view(r, bufs[u]);
    fn_unit_result *R = v.res;
    if (R->skipped) out->skipped = 1;
    if (R->api_error) out->api_error = 1;
    if ((R->skipped || R->api_error) && !out->why_other[0])
      snprintf(out->why_other, sizeof out->why_other, "%s", R->why);
    out->nondet |= R->nondet;
    out->dy_rounded |= R->dy_rounded;
    for (int k = 0; k < 4; ++k) out->has_job[k] |= R->has_job[k];
    fusednorm_err_stats_merge(&out->y, &R->y);
    fusednorm_err_stats_merge(&out->rout, &R->rout);
    fusednorm_err_stats_merge(&out->rstd, &R->rstd);
    fusednorm_err_stats_merge(&out->dx, &R->dx);
    fusednorm_err_stats_merge(&out->ny, &R->ny);
    fusednorm_err_stats_merge(&out->nrstd, &R->nrstd);
    fusednorm_err_stats_merge(&out->ndx, &R->ndx);
    fusednorm_err_stats_merge(&out->jy, &R->jy);
    fusednorm_err_stats_merge(&out->jrout, &R->jrout);
    fusednorm_err_stats_merge(&out->jdx, &R->jdx);
    fusednorm_err_stats_merge(&out->jdres, &R->jdres);
    fusednorm_err_stats_merge(&out->dxn, &R->dxn);
    /* dw: fp32 sums in unit order (fixed whatever the number of ranks). */
    if (tf && tn && tr && tj)
      for (int64_t j = 0; j < n; ++j) {
        tf[j] += v.dwf[j];
        tn[j] += v.dwn[j];
        tr[j] += v.dwr[j];
        tj[j] += v.dwj[j];
      }
  }
  fusednorm_problem p = fn_record_problem(r);
  if (out->skipped || out->api_error) {
    out->ok = out->skipped && !out->api_error;  /* a skip is reported, not failed */
    goto done;
  }
  if (out->has_bwd && r->has_weight && tf) {
    stats_of_dw(&out->dw, tf, r->w_dtype, n, tr);
    stats_of_dw(&out->ndw, tn, r->w_dtype, n, tr);
  }
  /* The job's dw covers all rows_total rows of the call: comparable only if all were captured. */
  if (job_dw && out->has_bwd && r->has_weight && r->row_step == 1 && r->rows == r->rows_total &&
      tj) {
    fusednorm_err_stats_add(&out->jdw, job_dw, r->d[FN_D_JOB_DW].dtype, 1, tj, 1, n, 0);
    out->has_job[4] = 1;
  }
  out->ok_y = o->y_max_ulp >= 0
                  ? (out->y.nan_mismatch == 0 && out->y.max_ulp <= (int64_t)o->y_max_ulp)
                  : fusednorm_rule_y(&p, &out->y, &out->ny, out->why_y, sizeof out->why_y);
  if (o->y_max_ulp >= 0)
    snprintf(out->why_y, sizeof out->why_y, "y: max ulp %lld (override: <= %g)",
             (long long)out->y.max_ulp, o->y_max_ulp);
  out->ok_rout = r->fused ? exact_rule(&out->rout, "residual_out", out->why_rout, sizeof out->why_rout) : 1;
  {
    fusednorm_problem pr = p;
    pr.x_dtype = FUSEDNORM_F32;  /* rstd is an fp32 output: the fp32 dx-style rule */
    char w[256];
    out->ok_rstd = fusednorm_rule_dx(&pr, &out->rstd, &out->nrstd, w, sizeof w);
    snprintf(out->why_rstd, sizeof out->why_rstd, "rstd%s", strncmp(w, "dx", 2) ? w : w + 2);
  }
  out->ok_dx = out->ok_dw = 1;
  if (out->has_bwd) {
    int over = o->dx_frac >= 0 || o->dx_max_factor >= 0 || o->dx_l2_factor >= 0;
    out->ok_dx = over ? custom_dx(&p, &out->dx, &out->ndx, o, out->why_dx, sizeof out->why_dx)
                      : fusednorm_rule_dx(&p, &out->dx, &out->ndx, out->why_dx, sizeof out->why_dx);
    if (r->has_weight) {
      if (o->dw_factor >= 0 && r->w_dtype == FUSEDNORM_F32) {
        double l2 = fusednorm_err_stats_rel_l2(&out->dw), nl2 = fusednorm_err_stats_rel_l2(&out->ndw);
        out->ok_dw = out->dw.nan_mismatch == 0 && out->dw.max_abs <= o->dw_factor * out->ndw.max_abs &&
                     l2 <= o->dw_factor * nl2;
        snprintf(out->why_dw, sizeof out->why_dw,
                 "dw: max abs %.3g vs naive %.3g, rel L2 %.3g vs %.3g (override factor %g)",
                 out->dw.max_abs, out->ndw.max_abs, l2, nl2, o->dw_factor);
      } else {
        out->ok_dw = fusednorm_rule_dw(&p, &out->dw, &out->ndw, out->why_dw, sizeof out->why_dw);
      }
    }
  }
  out->ok_det = out->nondet == 0;
  if (!out->ok_det)
    snprintf(out->why_other, sizeof out->why_other,
             "not deterministic: run 1 and run 2 differ in%s%s%s%s%s",
             out->nondet & FN_ND_Y ? " y" : "", out->nondet & FN_ND_ROUT ? " residual_out" : "",
             out->nondet & FN_ND_RSTD ? " rstd" : "", out->nondet & FN_ND_DX ? " dx" : "",
             out->nondet & FN_ND_DW ? " dw" : "");
  out->ok = out->ok_y && out->ok_rout && out->ok_rstd && out->ok_dx && out->ok_dw && out->ok_det;
done:
  free(tf);
  free(tn);
  free(tr);
  free(tj);
}

void fn_unit_dw_add(const fn_record *r, const void *buf, float *acc32, double *acc64) {
  unit_view v = view(r, (void *)buf);
  for (int64_t j = 0; j < r->n; ++j) {
    acc32[j] += v.dwf[j];
    acc64[j] += (double)v.dwf[j];
  }
}

static void rel_err(const double *got, const double *ref, int64_t n, double *max_rel, double *l2) {
  double se = 0, sr = 0, mr = 0, mref = 0;
  for (int64_t j = 0; j < n; ++j) {
    double e = fabs(got[j] - ref[j]);
    se += e * e;
    sr += ref[j] * ref[j];
    if (fabs(ref[j]) > mref) mref = fabs(ref[j]);
    if (ref[j] != 0 && e / fabs(ref[j]) > mr) mr = e / fabs(ref[j]);
  }
  *max_rel = mr;
  *l2 = sr > 0 ? sqrt(se / sr) : (se > 0 ? INFINITY : 0);
}

void fn_record_allreduce_score(const fn_record *r, void *const *bufs, int units,
                               const float *ar32, const double *ar64, int ranks,
                               fn_record_result *out) {
  int64_t n = r->n;
  double *ref = calloc((size_t)n, 8), *g = calloc((size_t)n, 8);
  if (!ref || !g) goto done;
  for (int u = 0; u < units; ++u) {
    unit_view v = view(r, bufs[u]);
    for (int64_t j = 0; j < n; ++j) ref[j] += v.dwr[j];
  }
  for (int64_t j = 0; j < n; ++j) g[j] = ar32[j];
  rel_err(g, ref, n, &out->ar32_max_rel, &out->ar32_rel_l2);
  rel_err(ar64, ref, n, &out->ar64_max_rel, &out->ar64_rel_l2);
  out->ranks = ranks;
done:
  free(ref);
  free(g);
}
