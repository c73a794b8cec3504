/*
 * replay — replays captured RMSNorm calls (data/FORMAT.md) through fusednorm and scores them.
 *
 *   bazel run //verify:replay -- data/sample_capture.h5 [--report out.json]
 *   mpirun -np N bazel-bin/verify/replay FILE.h5 [FILE.h5 ...] [options]
 *
 * For every record: fusednorm forward + backward through the C API, twice (bitwise compared),
 * against the float64 reference and the naive fp32 baseline of kernels/ref (the same code and
 * rules as the unit tests); the job's own outputs are scored against float64 too. Row chunks are
 * spread over ranks (mpi_split.h); verdicts are rank-count independent (score.h). Rank 0 prints
 * the table and writes the JSON report atomically.
 *
 * Exit: 0 every check passed, 1 a check failed, 2 bad input or usage (message on every rank, no
 * report written).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "verify/device.h"
#include "verify/h5io.h"
#include "verify/mpi_split.h"
#include "verify/record.h"
#include "verify/report.h"
#include "verify/score.h"

#define EXIT_CHECK_FAILED 1
#define EXIT_BAD_INPUT 2

static const char USAGE[] =
    "usage: replay [options] FILE.h5 [FILE.h5 ...]\n"
    "  Replays captured RMSNorm calls through fusednorm; scores fusednorm and the capturing job\n"
    "  against float64. Under mpirun, row chunks are split over the ranks.\n"
    "options:\n"
    "  --device auto|cuda|cpu   where fusednorm runs (auto: CUDA if present; GPU = local rank %% count)\n"
    "  --mode NAME              kernel mode: auto (default), persistent, multi_wave_reload,\n"
    "                           multi_wave_cached, row_packed, wide (shapes a mode cannot run: skipped)\n"
    "  --report FILE.json       write the JSON report (atomically: temp file + rename)\n"
    "  --quiet                  table rows only for failed/skipped records\n"
    "  --allow-nonfinite        replay records whose inputs hold NaN/Inf (default: exit 2)\n"
    "tolerance overrides (default: the accuracy rules of kernels/ref/fusednorm_ref.c):\n"
    "  --y-max-ulp K            y passes if every element is within K ulp\n"
    "  --dx-min-frac F          dx: fraction within 1 ulp (16-bit), default 0.999\n"
    "  --dx-max-factor A        dx: max error <= A x naive fp32 max (+1 ulp), default 2\n"
    "  --dx-l2-factor B         dx: rel L2 <= B x naive fp32 rel L2, default 1.5\n"
    "  --dw-factor C            f32 dw: max and rel L2 <= C x naive fp32\n"
    "testing aid:\n"
    "  --inject-fault T:REC:ROW:COL:K  after each fusednorm run, move element [ROW,COL] of T\n"
    "                           (y|dx|dw) in record REC by K ulps (checks that failures are caught)\n"
    "exit: 0 all checks pass, 1 a check failed, 2 bad input or usage\n";

typedef struct {
  fn_options o;
  const char *report;
  int quiet, help;
  char **files;
  int nfiles;
} args_t;

static int parse_double(const char *s, double *v) {
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  return errno || end == s || *end || *v < 0 ? -1 : 0;
}

/* 0 ok; -1 with a message. */
static int parse_args(int argc, char **argv, args_t *a, char *err, size_t len) {
  memset(a, 0, sizeof *a);
  a->o.device = FN_DEVICE_AUTO;
  a->o.mode = FUSEDNORM_MODE_AUTO;
  a->o.y_max_ulp = a->o.dx_frac = a->o.dx_max_factor = a->o.dx_l2_factor = a->o.dw_factor = -1;
  a->files = calloc((size_t)argc, sizeof(char *));
  for (int i = 1; i < argc; ++i) {
    const char *s = argv[i];
    const char *val = NULL;
    int takes = !strcmp(s, "--device") || !strcmp(s, "--mode") || !strcmp(s, "--report") ||
                !strcmp(s, "--y-max-ulp") || !strcmp(s, "--dx-min-frac") ||
                !strcmp(s, "--dx-max-factor") || !strcmp(s, "--dx-l2-factor") ||
                !strcmp(s, "--dw-factor") || !strcmp(s, "--inject-fault");
    if (takes) {
      if (i + 1 >= argc) return snprintf(err, len, "%s needs a value", s), -1;
      val = argv[++i];
    }
    if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
      a->help = 1;
    } else if (!strcmp(s, "--device")) {
      if (!strcmp(val, "auto")) a->o.device = FN_DEVICE_AUTO;
      else if (!strcmp(val, "cpu")) a->o.device = FN_DEVICE_CPU;
      else if (!strcmp(val, "cuda")) a->o.device = FN_DEVICE_CUDA;
      else return snprintf(err, len, "--device '%s': use auto, cuda or cpu", val), -1;
    } else if (!strcmp(s, "--mode")) {
      int found = 0;
      for (int m = 0; m < FUSEDNORM_MODE_COUNT_; ++m)
        if (fusednorm_mode_name((fusednorm_mode)m) && !strcmp(val, fusednorm_mode_name((fusednorm_mode)m))) {
          a->o.mode = (fusednorm_mode)m;
          found = 1;
        }
      if (!found) {
        int k = snprintf(err, len, "--mode '%s': use one of", val);
        for (int m = 0; m < FUSEDNORM_MODE_COUNT_ && k > 0 && (size_t)k < len; ++m)
          k += snprintf(err + k, len - (size_t)k, " %s", fusednorm_mode_name((fusednorm_mode)m));
        return -1;
      }
    } else if (!strcmp(s, "--report")) {
      a->report = val;
    } else if (!strcmp(s, "--quiet")) {
      a->quiet = 1;
    } else if (!strcmp(s, "--allow-nonfinite")) {
      a->o.allow_nonfinite = 1;
    } else if (!strcmp(s, "--y-max-ulp") || !strcmp(s, "--dx-min-frac") ||
               !strcmp(s, "--dx-max-factor") || !strcmp(s, "--dx-l2-factor") ||
               !strcmp(s, "--dw-factor")) {
      double v;
      if (parse_double(val, &v) < 0) return snprintf(err, len, "%s '%s': a number >= 0", s, val), -1;
      if (!strcmp(s, "--y-max-ulp")) a->o.y_max_ulp = v;
      else if (!strcmp(s, "--dx-min-frac")) {
        if (v > 1) return snprintf(err, len, "--dx-min-frac %g: a fraction in [0, 1]", v), -1;
        a->o.dx_frac = v;
      } else if (!strcmp(s, "--dx-max-factor")) a->o.dx_max_factor = v;
      else if (!strcmp(s, "--dx-l2-factor")) a->o.dx_l2_factor = v;
      else a->o.dw_factor = v;
    } else if (!strcmp(s, "--inject-fault")) {
      long long row, col;
      int k, used = 0;
      char t[8], rec[64];
      if (sscanf(val, "%7[^:]:%63[^:]:%lld:%lld:%d%n", t, rec, &row, &col, &k, &used) != 5 ||
          val[used] || (strcmp(t, "y") && strcmp(t, "dx") && strcmp(t, "dw")))
        return snprintf(err, len, "--inject-fault '%s': expected (y|dx|dw):RECORD:ROW:COL:ULPS", val), -1;
      a->o.inject = 1;
      snprintf(a->o.inject_tensor, sizeof a->o.inject_tensor, "%s", t);
      snprintf(a->o.inject_record, sizeof a->o.inject_record, "%s", rec);
      a->o.inject_row = row;
      a->o.inject_col = col;
      a->o.inject_ulps = k;
    } else if (s[0] == '-' && s[1]) {
      return snprintf(err, len, "unknown option '%s' (--help lists them)", s), -1;
    } else {
      a->files[a->nfiles++] = argv[i];
    }
  }
  if (!a->help && a->nfiles == 0)
    return snprintf(err, len, "no capture file given (e.g. data/sample_capture.h5; --help)"), -1;
  return 0;
}

/* `bazel run` starts the binary in its runfiles tree: relative paths are the user's, i.e.
 * relative to BUILD_WORKING_DIRECTORY. */
static char *resolve(const char *p) {
  const char *wd = getenv("BUILD_WORKING_DIRECTORY");
  if (p[0] == '/' || !wd || !*wd) return strdup(p);
  size_t l = strlen(wd) + strlen(p) + 2;
  char *out = malloc(l);
  if (out) snprintf(out, l, "%s/%s", wd, p);
  return out;
}

static int report_dir_writable(const char *path, char *err, size_t len) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%.4000s", path);
  char *slash = strrchr(dir, '/');
  if (!slash) snprintf(dir, sizeof dir, ".");
  else if (slash == dir) dir[1] = 0;
  else *slash = 0;
  if (access(dir, W_OK) != 0) {
    snprintf(err, len, "--report %.1000s: directory %.1000s is not writable: %s", path, dir,
             strerror(errno));
    return -1;
  }
  return 0;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Ends every rank with exit code 2 and the failing rank's reason (collective). */
static int bad_input_exit(const fn_mpi *m, int who, const char *msg) {
  fn_mpi_eprintf(m, "error: %s%s", msg, who != m->rank ? " (reported by another rank)" : "");
  MPI_Finalize();
  return EXIT_BAD_INPUT;
}

int main(int argc, char **argv) {
  fn_mpi M;
  if (fn_mpi_init(&argc, &argv, &M) != 0) {
    fprintf(stderr, "replay: MPI_Init failed\n");
    return EXIT_BAD_INPUT;
  }
  vh5_init();
  char msg[FN_MSG_LEN] = "";
  int who;

  /* ---- arguments (identical on every rank, so every rank reaches the same verdict) ---- */
  args_t A;
  int bad = parse_args(argc, argv, &A, msg, sizeof msg) < 0;
  if (A.help && !bad) {
    if (M.rank == 0) fputs(USAGE, stdout);
    MPI_Finalize();
    return 0;
  }
  if (bad) {
    if (M.rank == 0) fputs(USAGE, stderr);
    return bad_input_exit(&M, M.rank, msg);
  }
  char **paths = calloc((size_t)A.nfiles, sizeof(char *));
  for (int i = 0; i < A.nfiles; ++i) paths[i] = resolve(A.files[i]);
  char *report = A.report ? resolve(A.report) : NULL;
  bad = M.rank == 0 && report && report_dir_writable(report, msg, sizeof msg) < 0;
  if ((who = fn_mpi_agree(&M, bad, msg)) >= 0) return bad_input_exit(&M, who, msg);

  /* ---- open + validate every file on every rank (metadata only; cheap) ---- */
  fn_capture_file *files = calloc((size_t)A.nfiles, sizeof(fn_capture_file));
  fn_record *recs = NULL;
  int nrec = 0;
  bad = 0;
  for (int i = 0; i < A.nfiles && !bad; ++i) {
    files[i].h5 = -1;
    if (fn_capture_open(&files[i], paths[i], msg, sizeof msg) < 0 ||
        fn_capture_load_records(&files[i], i, &recs, &nrec, msg, sizeof msg) < 0)
      bad = 1;
  }
  if ((who = fn_mpi_agree(&M, bad, msg)) >= 0) return bad_input_exit(&M, who, msg);

  fn_device dev;
  bad = fn_device_open(&dev, A.o.device, M.local_rank, msg, sizeof msg) < 0;
  if ((who = fn_mpi_agree(&M, bad, msg)) >= 0) return bad_input_exit(&M, who, msg);
  int on_cuda = dev.kind == FN_DEVICE_CUDA, cuda_ranks = 0;
  MPI_Allreduce(&on_cuda, &cuda_ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (M.rank == 0)
    fn_mpi_eprintf(&M, "%d record(s) in %d file(s); %d rank(s), rank 0 on %s", nrec, A.nfiles,
                   M.size, dev.name);

  /* ---- records ---- */
  fn_record_result *res = M.rank == 0 ? calloc((size_t)nrec, sizeof *res) : NULL;
  int64_t gunit = 0;
  double t0 = now_s(), last = t0;
  int failed_so_far = 0;
  for (int k = 0; k < nrec; ++k) {
    const fn_record *r = &recs[k];
    const fn_capture_file *f = &files[r->file_index];
    int units = fn_record_units(r);
    size_t ub = fn_unit_bytes(r);
    int mine = 0;
    for (int u = 0; u < units; ++u) mine += fn_unit_owner(gunit + u, M.size) == M.rank;
    char *local = calloc((size_t)(mine ? mine : 1), ub);
    float *acc32 = calloc((size_t)r->n, sizeof(float));
    double *acc64 = calloc((size_t)r->n, sizeof(double));
    bad = !local || !acc32 || !acc64;
    if (bad) snprintf(msg, sizeof msg, "out of memory for record %s", r->name);
    int at = 0;
    for (int u = 0; u < units && !bad; ++u) {
      if (fn_unit_owner(gunit + u, M.size) != M.rank) continue;
      char *b = local + (size_t)at++ * ub;
      if (fn_unit_run(f, r, &dev, &A.o, u, b, msg, sizeof msg) < 0) bad = 1;
      else fn_unit_dw_add(r, b, acc32, acc64);  /* this rank's dw, like a data-parallel rank */
    }
    if ((who = fn_mpi_agree(&M, bad, msg)) >= 0) return bad_input_exit(&M, who, msg);

    void *all = NULL;
    int total = 0;
    if (fn_mpi_gather_bytes(&M, local, (int)((size_t)mine * ub), &all, &total) != MPI_SUCCESS) {
      snprintf(msg, sizeof msg, "MPI_Gatherv failed");
      return bad_input_exit(&M, M.rank, msg);
    }
    int dp = r->d[FN_D_DY].present && r->has_weight;
    float *ar32 = NULL;
    double *ar64 = NULL;
    if (dp) {
      ar32 = calloc((size_t)r->n, sizeof(float));
      ar64 = calloc((size_t)r->n, sizeof(double));
      MPI_Allreduce(acc32, ar32, (int)r->n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      MPI_Allreduce(acc64, ar64, (int)r->n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (M.rank == 0) {
      void **bufs = calloc((size_t)units, sizeof(void *));
      for (int i = 0; i < total / (int)ub; ++i) {
        char *b = (char *)all + (size_t)i * ub;
        const fn_unit_result *ur = (const fn_unit_result *)b;
        if (ur->unit >= 0 && ur->unit < units) bufs[ur->unit] = b;
      }
      void *jdw = NULL;
      if (r->d[FN_D_JOB_DW].present) {
        jdw = malloc((size_t)r->n * 4);
        char e[FN_MSG_LEN];
        if (jdw && fn_record_read(f, r, FN_D_JOB_DW, 0, r->n, jdw, e, sizeof e) < 0) {
          free(jdw);
          jdw = NULL;
        }
      }
      fn_record_combine(r, &A.o, bufs, units, jdw, &res[k]);
      if (dp) fn_record_allreduce_score(r, bufs, units, ar32, ar64, M.size, &res[k]);
      if (!res[k].ok) failed_so_far++;
      double t = now_s();
      if (t - last > 1.0 || (k + 1 == nrec && t - t0 > 1.0)) {
        fn_mpi_eprintf(&M, "%d/%d records, %d failed, %.1f s", k + 1, nrec, failed_so_far, t - t0);
        last = t;
      }
      free(jdw);
      free(bufs);
    }
    free(all);
    free(local);
    free(acc32);
    free(acc64);
    free(ar32);
    free(ar64);
    gunit += units;
  }

  /* ---- verdict, table, report (rank 0), exit code to everyone ---- */
  int code = 0;
  if (M.rank == 0) {
    int failed, skipped;
    fn_report_counts(res, nrec, &failed, &skipped);
    code = failed ? EXIT_CHECK_FAILED : 0;
    fn_run_info info = {.files = (const char *const *)paths, .nfiles = A.nfiles, .ranks = M.size,
                        .cuda_ranks = cuda_ranks, .device = dev.name, .mode = A.o.mode,
                        .opts = &A.o,
                        .overrides = A.o.y_max_ulp >= 0 || A.o.dx_frac >= 0 ||
                                     A.o.dx_max_factor >= 0 || A.o.dx_l2_factor >= 0 ||
                                     A.o.dw_factor >= 0};
    fn_report_table(stdout, recs, res, nrec, &info, A.quiet);
    fflush(stdout);
    if (report && fn_report_json(report, recs, res, nrec, &info, code, msg, sizeof msg) < 0) {
      fn_mpi_eprintf(&M, "error: %s", msg);
      code = EXIT_BAD_INPUT;
    }
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  fn_device_close(&dev);
  for (int i = 0; i < A.nfiles; ++i) fn_capture_close(&files[i]);
  MPI_Finalize();
  return code;
}
