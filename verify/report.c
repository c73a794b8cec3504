/* report.c — table and JSON report (report.h). */
#define _POSIX_C_SOURCE 200809L
#include "verify/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if it is not one (overlong forms,
 * surrogates and code points above U+10FFFF are invalid). */
static int utf8_len(const unsigned char *p) {
  unsigned c = p[0];
  if (c < 0x80) return 1;
  int n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (!n) return 0;
  for (int i = 1; i < n; ++i)
    if ((p[i] & 0xC0) != 0x80) return 0;
  if (c == 0xE0 && p[1] < 0xA0) return 0;   /* overlong */
  if (c == 0xED && p[1] >= 0xA0) return 0;  /* UTF-16 surrogate */
  if (c == 0xF0 && p[1] < 0x90) return 0;   /* overlong */
  if (c == 0xF4 && p[1] >= 0x90) return 0;  /* > U+10FFFF */
  return n;
}

/* A string from the capture file made safe for a terminal: control characters and bytes that are
 * not valid UTF-8 become '?' (an attribute could otherwise hold escape sequences). */
static const char *tclean(const char *in, char *out, size_t len) {
  size_t k = 0;
  for (const unsigned char *p = (const unsigned char *)in; *p && k + 5 < len;) {
    int n = utf8_len(p);
    if (!n || *p < 0x20 || *p == 0x7F) {
      out[k++] = '?';
      p++;
    } else {
      memcpy(out + k, p, (size_t)n);
      k += (size_t)n;
      p += n;
    }
  }
  out[k] = 0;
  return out;
}

void fn_report_counts(const fn_record_result *res, int count, int *failed, int *skipped) {
  *failed = *skipped = 0;
  for (int i = 0; i < count; ++i) {
    if (res[i].skipped && !res[i].api_error) (*skipped)++;
    else if (!res[i].ok) (*failed)++;
  }
}

static const char *op_short(const fn_record *r) { return r->fused ? "add+norm" : "norm"; }

/* Cut from the left to fit: the end of a module path is the informative part. */
static void cut_left(const char *full, char *out, size_t width) {
  size_t l = strlen(full);
  if (l <= width) snprintf(out, width + 1, "%s", full);
  else snprintf(out, width + 1, "..%s", full + (l - width + 2));
}

static void fmt_g(char *b, size_t n, double v, int have) {
  if (!have) snprintf(b, n, "-");
  else snprintf(b, n, "%.2e", v);
}

void fn_report_table(FILE *out, const fn_record *recs, const fn_record_result *res, int count,
                     const fn_run_info *info, int quiet) {
  fprintf(out, "# fusednorm replay: %d record(s) from %d file(s), %d rank(s) (%d on CUDA), rank 0 on "
               "%s, mode %s\n",
          count, info->nfiles, info->ranks, info->cuda_ranks, info->device,
          fusednorm_mode_name(info->mode));
  fprintf(out, "# errors against float64 evaluation of the same formula on the same rounded inputs;"
               " 'job' = the capturing job's own outputs\n");
  const char *hdr =
      "%-8s %-12s %-30s %-8s %-9s %9s | %5s %5s %7s %9s %9s | %5s %9s %9s | %3s %s\n";
  fprintf(out, hdr, "record", "model", "layer", "op", "x/w", "rows x n", "y", "rstd", "dx<=1",
          "dx", "dw", "y", "dx", "dw", "det", "result");
  fprintf(out, hdr, "", "", "", "", "", "", "(ulp)", "(ulp)", "(%)", "(relL2)", "(relL2)", "(ulp)",
          "(relL2)", "(relL2)", "", "");
  for (int i = 0; i < count; ++i) {
    const fn_record *r = &recs[i];
    const fn_record_result *s = &res[i];
    if (quiet && s->ok && !s->skipped) continue;
    char mod[16], lab[40], dt[16], shape[32], y[8], rs[8], f1[12], dx[12], dw[12], jy[8], jdx[12], jdw[12];
    char cm[sizeof r->model * 2], cl[sizeof r->layer * 2], cn[sizeof r->name * 2];
    cut_left(tclean(r->model, cm, sizeof cm), mod, 12);
    cut_left(tclean(r->layer, cl, sizeof cl), lab, 30);
    snprintf(dt, sizeof dt, "%s/%s", fusednorm_dtype_name(r->x_dtype),
             r->has_weight ? fusednorm_dtype_name(r->w_dtype) : "-");
    snprintf(shape, sizeof shape, "%lldx%lld", (long long)r->rows, (long long)r->n);
    int ran = !s->skipped && !s->api_error;
    snprintf(y, sizeof y, ran ? "%lld" : "-", (long long)s->y.max_ulp);
    snprintf(rs, sizeof rs, ran ? "%lld" : "-", (long long)s->rstd.max_ulp);
    int64_t fin = s->dx.ulp_hist[0] + s->dx.ulp_hist[1] + s->dx.ulp_hist[2] + s->dx.ulp_hist[3];
    if (ran && s->has_bwd && fin) snprintf(f1, sizeof f1, "%.3f", 100.0 * (double)s->dx.within1 / (double)fin);
    else snprintf(f1, sizeof f1, "-");
    fmt_g(dx, sizeof dx, fusednorm_err_stats_rel_l2(&s->dx), ran && s->has_bwd);
    fmt_g(dw, sizeof dw, fusednorm_err_stats_rel_l2(&s->dw), ran && s->has_bwd && r->has_weight);
    snprintf(jy, sizeof jy, s->has_job[0] && ran ? "%lld" : "-", (long long)s->jy.max_ulp);
    fmt_g(jdx, sizeof jdx, fusednorm_err_stats_rel_l2(&s->jdx), ran && s->has_job[2]);
    fmt_g(jdw, sizeof jdw, fusednorm_err_stats_rel_l2(&s->jdw), ran && s->has_job[4]);
    const char *verdict = s->api_error ? "FAILED" : s->skipped ? "skipped" : s->ok ? "ok" : "FAILED";
    fprintf(out, hdr, tclean(r->name, cn, sizeof cn), mod, lab, op_short(r), dt, shape, y, rs, f1, dx, dw, jy, jdx, jdw,
            !ran ? "-" : s->ok_det ? "yes" : "NO", verdict);
  }
  int failed, skipped;
  fn_report_counts(res, count, &failed, &skipped);
  for (int i = 0; i < count; ++i) {
    const fn_record_result *s = &res[i];
    if (s->ok && !s->skipped) continue;
    const char *whys[] = {s->why_other, s->ok_y ? "" : s->why_y, s->ok_rout ? "" : s->why_rout,
                          s->ok_rstd ? "" : s->why_rstd, s->ok_dx ? "" : s->why_dx,
                          s->ok_dw ? "" : s->why_dw};
    char cm[sizeof recs[i].model * 2], cl[sizeof recs[i].layer * 2], cn[sizeof recs[i].name * 2];
    for (size_t k = 0; k < sizeof whys / sizeof whys[0]; ++k)
      if (whys[k][0])
        fprintf(out, "# %s %s (%s:%s): %s\n", s->skipped && !s->api_error ? "skipped" : "FAILED",
                tclean(recs[i].name, cn, sizeof cn), tclean(recs[i].model, cm, sizeof cm),
                tclean(recs[i].layer, cl, sizeof cl), whys[k]);
  }
  /* Closest to the truth: fusednorm vs the job, on dx (rel L2 summed over records). */
  int nj = 0, closer = 0;
  double w32 = 0, w64 = 0;
  int nar = 0;
  for (int i = 0; i < count; ++i) {
    const fn_record_result *s = &res[i];
    if (s->has_job[2] && s->has_bwd && !s->skipped && !s->api_error) {
      nj++;
      if (fusednorm_err_stats_rel_l2(&s->dxn) <= fusednorm_err_stats_rel_l2(&s->jdx)) closer++;
    }
    if (s->has_bwd && recs[i].has_weight && !s->skipped && !s->api_error) {
      nar++;
      if (s->ar32_rel_l2 > w32) w32 = s->ar32_rel_l2;
      if (s->ar64_rel_l2 > w64) w64 = s->ar64_rel_l2;
    }
  }
  if (nj)
    fprintf(out, "# dx: fusednorm is at least as close to float64 as the job's own implementation "
                 "in %d of %d records (rel L2, both against the reference with the correctly rounded rstd)\n",
            closer, nj);
  if (nar)
    fprintf(out, "# dw data-parallel emulation (%d rank(s): each rank's rows, MPI_Allreduce): worst rel "
                 "L2 error vs float64 dw of all rows: fp32 allreduce %.2e, fp64 allreduce %.2e "
                 "(informational; verdicts use a rank-independent fixed-order sum)\n",
            info->ranks, w32, w64);
  if (info->overrides) fprintf(out, "# tolerances overridden on the command line\n");
  if (failed)
    fprintf(out, "# FAILED: %d of %d records failed a check%s\n", failed, count,
            skipped ? " (some skipped)" : "");
  else
    fprintf(out, "# OK: %d of %d records pass%s\n", count - skipped, count,
            skipped ? ", the rest skipped (see above)" : "");
}

/* ---- JSON ------------------------------------------------------------------------------------ */
/* A JSON string: quotes, backslashes and control characters escaped; strings come from the
 * capture file's attributes, so bytes that are not valid UTF-8 become U+FFFD (the report stays
 * parseable; the table shows the raw bytes). */
static void jstr(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    int n = utf8_len(p);
    if (!n) {
      fputs("\\ufffd", f);
      p++;
    } else if (*p == '"' || *p == '\\') {
      fprintf(f, "\\%c", *p++);
    } else if (*p < 0x20 || *p == 0x7F) {
      fprintf(f, "\\u%04x", *p++);
    } else {
      fwrite(p, 1, (size_t)n, f);
      p += n;
    }
  }
  fputc('"', f);
}

static void jnum(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, "%.17g", v);
  else fprintf(f, "null");  /* JSON has no NaN/Inf */
}

/* `, "key": value` — the separator and key before a string / number field. */
static void jkstr(FILE *f, const char *key, const char *s) {
  fprintf(f, ", \"%s\": ", key);
  jstr(f, s);
}

static void jknum(FILE *f, const char *key, double v) {
  fprintf(f, ", \"%s\": ", key);
  jnum(f, v);
}

static void jstats(FILE *f, const char *name, const fusednorm_err_stats *s, int comma) {
  fprintf(f, "\"%s\": {\"count\": %lld, \"max_ulp\": %lld, \"ulp_hist\": [%lld, %lld, %lld, %lld], "
             "\"within_1ulp\": %lld, \"nan_mismatch\": %lld, \"nonfinite_ref\": %lld, \"max_abs\": ",
          name, (long long)s->count, (long long)s->max_ulp, (long long)s->ulp_hist[0],
          (long long)s->ulp_hist[1], (long long)s->ulp_hist[2], (long long)s->ulp_hist[3],
          (long long)s->within1, (long long)s->nan_mismatch, (long long)s->nonfinite_ref);
  jnum(f, s->max_abs);
  jknum(f, "max_rel", s->max_rel);
  jknum(f, "rel_l2", fusednorm_err_stats_rel_l2(s));
  fprintf(f, ", \"worst\": [%lld, %lld], \"worst_got\": ", (long long)s->worst_row,
          (long long)s->worst_col);
  jnum(f, s->worst_got);
  jknum(f, "worst_ref", s->worst_ref);
  fprintf(f, "}%s", comma ? ", " : "");
}

int fn_report_json(const char *path, const fn_record *recs, const fn_record_result *res,
                   int count, const fn_run_info *info, int exit_code, char *err, size_t len) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) {
    snprintf(err, len, "--report %s: cannot write %s: %s", path, tmp, strerror(errno));
    return -1;
  }
  int failed, skipped;
  fn_report_counts(res, count, &failed, &skipped);
  const fn_options *o = info->opts;
  fprintf(f, "{\"format\": \"fusednorm-replay-report\", \"version\": 1,\n \"files\": [");
  for (int i = 0; i < info->nfiles; ++i) {
    if (i) fprintf(f, ", ");
    jstr(f, info->files[i]);
  }
  fprintf(f, "],\n \"ranks\": %d, \"cuda_ranks\": %d, \"device\": ", info->ranks, info->cuda_ranks);
  jstr(f, info->device);
  fprintf(f, ", \"mode\": \"%s\",\n \"tolerances\": {\"overridden\": %s, \"y_max_ulp\": ",
          fusednorm_mode_name(info->mode), info->overrides ? "true" : "false");
  jnum(f, o->y_max_ulp >= 0 ? o->y_max_ulp : NAN);
  jknum(f, "dx_min_frac", o->dx_frac >= 0 ? o->dx_frac : NAN);
  jknum(f, "dx_max_factor", o->dx_max_factor >= 0 ? o->dx_max_factor : NAN);
  jknum(f, "dx_l2_factor", o->dx_l2_factor >= 0 ? o->dx_l2_factor : NAN);
  jknum(f, "dw_factor", o->dw_factor >= 0 ? o->dw_factor : NAN);
  fprintf(f, "},\n \"verdict\": \"%s\", \"exit_code\": %d,\n \"summary\": {\"records\": %d, "
             "\"passed\": %d, \"failed\": %d, \"skipped\": %d},\n \"records\": [\n",
          failed ? "FAILED" : "OK", exit_code, count, count - failed - skipped, failed, skipped);
  for (int i = 0; i < count; ++i) {
    const fn_record *r = &recs[i];
    const fn_record_result *s = &res[i];
    fprintf(f, "  {\"file\": ");
    jstr(f, info->files[r->file_index]);
    jkstr(f, "name", r->name);
    jkstr(f, "model", r->model);
    jkstr(f, "layer", r->layer);
    jkstr(f, "impl", r->impl);
    fprintf(f, ", \"op\": \"%s\", \"casting\": \"%s\", \"x_dtype\": \"%s\", \"w_dtype\": \"%s\", "
               "\"eps\": ",
            r->fused ? "fused_add_rms_norm" : "rms_norm", fn_casting_name(r->casting),
            fusednorm_dtype_name(r->x_dtype), r->has_weight ? fusednorm_dtype_name(r->w_dtype) : "none");
    jnum(f, r->eps);
    jknum(f, "offset", r->offset);
    fprintf(f, ", \"rows\": %lld, \"n\": %lld, \"rows_total\": %lld, \"row_step\": %lld, \"step\": %lld, "
               "\"rank\": %lld, \"units\": %d, \"backward\": %s, \"dy_rounded\": %s,\n",
            (long long)r->rows, (long long)r->n, (long long)r->rows_total, (long long)r->row_step,
            (long long)r->step, (long long)r->rank, s->units, s->has_bwd ? "true" : "false",
            s->dy_rounded ? "true" : "false");
    const char *verdict = s->api_error ? "FAILED" : s->skipped ? "skipped" : s->ok ? "ok" : "FAILED";
    fprintf(f, "   \"verdict\": \"%s\", \"checks\": {\"y\": %s, \"residual_out\": %s, \"rstd\": %s, "
               "\"dx\": %s, \"dw\": %s, \"deterministic\": %s},\n   \"reasons\": {\"y\": ",
            verdict, s->ok_y ? "true" : "false", s->ok_rout ? "true" : "false",
            s->ok_rstd ? "true" : "false", s->ok_dx ? "true" : "false",
            s->ok_dw ? "true" : "false", s->ok_det ? "true" : "false");
    jstr(f, s->why_y);
    jkstr(f, "residual_out", s->why_rout);
    jkstr(f, "rstd", s->why_rstd);
    jkstr(f, "dx", s->why_dx);
    jkstr(f, "dw", s->why_dw);
    jkstr(f, "other", s->why_other);
    fprintf(f, "},\n   \"fusednorm\": {");
    jstats(f, "y", &s->y, 1);
    jstats(f, "residual_out", &s->rout, 1);
    jstats(f, "rstd", &s->rstd, 1);
    jstats(f, "dx", &s->dx, 1);
    jstats(f, "dw", &s->dw, 0);
    fprintf(f, "},\n   \"fusednorm_vs_job_reference\": {");
    jstats(f, "dx", &s->dxn, 0);
    fprintf(f, "},\n   \"naive_fp32\": {");
    jstats(f, "y", &s->ny, 1);
    jstats(f, "rstd", &s->nrstd, 1);
    jstats(f, "dx", &s->ndx, 1);
    jstats(f, "dw", &s->ndw, 0);
    fprintf(f, "},\n   \"job\": {");
    const char *jn[5] = {"y", "residual_out", "dx", "dresidual", "dw"};
    const fusednorm_err_stats *js[5] = {&s->jy, &s->jrout, &s->jdx, &s->jdres, &s->jdw};
    int first = 1;
    for (int k = 0; k < 5; ++k) {
      if (!s->has_job[k]) continue;
      if (!first) fprintf(f, ", ");
      first = 0;
      jstats(f, jn[k], js[k], 0);
    }
    fprintf(f, "},\n   \"dw_allreduce\": {\"ranks\": %d, \"fp32\": {\"max_rel\": ", s->ranks);
    jnum(f, s->ar32_max_rel);
    jknum(f, "rel_l2", s->ar32_rel_l2);
    fprintf(f, "}, \"fp64\": {\"max_rel\": ");
    jnum(f, s->ar64_max_rel);
    jknum(f, "rel_l2", s->ar64_rel_l2);
    fprintf(f, "}}}%s\n", i + 1 < count ? "," : "");
  }
  fprintf(f, " ]}\n");
  int bad = ferror(f);
  if (fflush(f) != 0 || fsync(fileno(f)) != 0) bad = 1;
  if (fclose(f) != 0) bad = 1;
  if (bad || rename(tmp, path) != 0) {
    snprintf(err, len, "--report %s: write/rename failed: %s", path, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}
