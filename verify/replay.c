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
#define _GNU_SOURCE /* strsignal */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <omp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
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

/* A tolerance: a finite number in [0, max], the whole string (no NaN, inf, sign or junk). */
static int parse_tol(const char *opt, const char *s, double max, int integer, double *v, char *err,
                     size_t len) {
  char *end = NULL;
  int lead = !*s || isspace((unsigned char)s[0]) || s[0] == '+' || s[0] == '-';
  errno = 0;
  *v = lead ? NAN : strtod(s, &end);
  if (lead || *end || errno == ERANGE || !isfinite(*v))
    return snprintf(err, len, "%s '%s': expected a finite number >= 0%s", opt, s,
                    s[0] == '-' ? " (a negative tolerance means nothing)" : ""), -1;
  if (*v > max)
    return snprintf(err, len, "%s %s: at most %g", opt, s, max), -1;
  if (integer && *v != floor(*v))
    return snprintf(err, len, "%s %s: a whole number of ulps", opt, s), -1;
  return 0;
}

/* A decimal integer in [lo, hi], the whole string. */
static int parse_i64(const char *s, long long lo, long long hi, long long *v) {
  char *end;
  errno = 0;
  if (!*s || isspace((unsigned char)s[0])) return -1;
  *v = strtoll(s, &end, 10);
  return errno || *end || *v < lo || *v > hi ? -1 : 0;
}

/* --inject-fault T:RECORD:ROW:COL:ULPS (RECORD may itself hold ':'; it is what lies between the
 * first and the third-last ':'). Checked against the records once they are loaded. */
static int parse_fault(const char *val, fn_options *o, char *err, size_t len) {
  const char *c1 = strchr(val, ':'), *e = val + strlen(val), *c[3];
  int k = 0;
  for (const char *p = e; p > val && k < 3; --p)
    if (p[-1] == ':') c[k++] = p - 1;  /* c[0] last ':', c[1], c[2] third-last */
  long long row, col, ulps;
  char num[3][32];
  int ok = c1 && k == 3 && c[2] > c1;
  for (int i = 0; ok && i < 3; ++i) {
    const char *a = c[2 - i] + 1, *b = i < 2 ? c[1 - i] : e;
    ok = b - a > 0 && (size_t)(b - a) < sizeof num[i];
    if (ok) snprintf(num[i], sizeof num[i], "%.*s", (int)(b - a), a);
  }
  size_t tl = c1 ? (size_t)(c1 - val) : 0, rl = ok ? (size_t)(c[2] - c1 - 1) : 0;
  if (!ok || tl >= sizeof o->inject_tensor || rl == 0 || rl >= sizeof o->inject_record)
    return snprintf(err, len, "--inject-fault '%s': expected (y|dx|dw):RECORD:ROW:COL:ULPS", val), -1;
  snprintf(o->inject_tensor, sizeof o->inject_tensor, "%.*s", (int)tl, val);
  snprintf(o->inject_record, sizeof o->inject_record, "%.*s", (int)rl, c1 + 1);
  if (strcmp(o->inject_tensor, "y") && strcmp(o->inject_tensor, "dx") && strcmp(o->inject_tensor, "dw"))
    return snprintf(err, len, "--inject-fault '%s': tensor '%s' is not y, dx or dw", val,
                    o->inject_tensor), -1;
  if (parse_i64(num[0], 0, INT64_MAX, &row) < 0 || parse_i64(num[1], 0, INT64_MAX, &col) < 0)
    return snprintf(err, len, "--inject-fault '%s': ROW and COL must be integers >= 0", val), -1;
  if (parse_i64(num[2], -65535, 65535, &ulps) < 0 || ulps == 0)
    return snprintf(err, len, "--inject-fault '%s': ULPS must be a non-zero integer in "
                    "[-65535, 65535]", val), -1;
  o->inject = 1;
  o->inject_row = row;
  o->inject_col = col;
  o->inject_ulps = (int)ulps;
  return 0;
}

/* 0 ok; -1 with a message. getopt_long: `--key value` and `--key=value`, options and files in any
 * order, `--` ends the options. Every value is checked here, before any work. */
static int parse_args(int argc, char **argv, args_t *a, char *err, size_t len) {
  enum { O_DEVICE = 256, O_MODE, O_REPORT, O_QUIET, O_NONFINITE, O_YULP, O_DXFRAC, O_DXMAX, O_DXL2,
         O_DW, O_FAULT };
  static const struct option opts[] = {
      {"help", no_argument, NULL, 'h'},          {"device", required_argument, NULL, O_DEVICE},
      {"mode", required_argument, NULL, O_MODE}, {"report", required_argument, NULL, O_REPORT},
      {"quiet", no_argument, NULL, O_QUIET},
      {"allow-nonfinite", no_argument, NULL, O_NONFINITE},
      {"y-max-ulp", required_argument, NULL, O_YULP},
      {"dx-min-frac", required_argument, NULL, O_DXFRAC},
      {"dx-max-factor", required_argument, NULL, O_DXMAX},
      {"dx-l2-factor", required_argument, NULL, O_DXL2},
      {"dw-factor", required_argument, NULL, O_DW},
      {"inject-fault", required_argument, NULL, O_FAULT},
      {NULL, 0, NULL, 0}};
  memset(a, 0, sizeof *a);
  a->o.device = FN_DEVICE_AUTO;
  a->o.mode = FUSEDNORM_MODE_AUTO;
  a->o.y_max_ulp = a->o.dx_frac = a->o.dx_max_factor = a->o.dx_l2_factor = a->o.dw_factor = -1;
  a->files = calloc((size_t)argc + 1, sizeof(char *));
  if (!a->files) return snprintf(err, len, "out of memory"), -1;
  opterr = 0;
  optind = 1;
  int c, idx;
  while ((c = getopt_long(argc, argv, ":h", opts, &idx)) != -1) {
    const char *val = optarg, *name = c >= O_DEVICE ? opts[idx].name : "";
    char opt[40];
    snprintf(opt, sizeof opt, "--%s", name);
    switch (c) {
      case 'h': a->help = 1; break;
      case ':':
        return snprintf(err, len, "%s needs a value", argv[optind - 1]), -1;
      case '?':
        if (optopt) return snprintf(err, len, "unknown option '-%c' (--help lists them)", optopt), -1;
        return snprintf(err, len, "unknown option '%s' (--help lists them)", argv[optind - 1]), -1;
      case O_DEVICE:
        if (!strcmp(val, "auto")) a->o.device = FN_DEVICE_AUTO;
        else if (!strcmp(val, "cpu")) a->o.device = FN_DEVICE_CPU;
        else if (!strcmp(val, "cuda")) a->o.device = FN_DEVICE_CUDA;
        else return snprintf(err, len, "--device '%s': use auto, cuda or cpu", val), -1;
        break;
      case O_MODE: {
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
        break;
      }
      case O_REPORT:
        /* `--report --quiet` would otherwise write a file named --quiet. */
        if (!*val || val[0] == '-')
          return snprintf(err, len, "--report '%s': expected a file name (one starting with '-' "
                          "is written as ./%s)", val, val), -1;
        a->report = val;
        break;
      case O_QUIET: a->quiet = 1; break;
      case O_NONFINITE: a->o.allow_nonfinite = 1; break;
      case O_YULP:
        /* An ulp distance between two fp32 values is below 2^32; it is compared as an integer. */
        if (parse_tol(opt, val, 4294967296.0, 1, &a->o.y_max_ulp, err, len) < 0) return -1;
        break;
      case O_DXFRAC:
        if (parse_tol(opt, val, 1.0, 0, &a->o.dx_frac, err, len) < 0) return -1;
        break;
      case O_DXMAX:
        if (parse_tol(opt, val, 1e9, 0, &a->o.dx_max_factor, err, len) < 0) return -1;
        break;
      case O_DXL2:
        if (parse_tol(opt, val, 1e9, 0, &a->o.dx_l2_factor, err, len) < 0) return -1;
        break;
      case O_DW:
        if (parse_tol(opt, val, 1e9, 0, &a->o.dw_factor, err, len) < 0) return -1;
        break;
      case O_FAULT:
        if (parse_fault(val, &a->o, err, len) < 0) return -1;
        break;
      default:
        return snprintf(err, len, "internal: option %d not handled", c), -1;
    }
  }
  for (int i = optind; i < argc; ++i) {
    if (!argv[i][0]) return snprintf(err, len, "an empty file name was given"), -1;
    a->files[a->nfiles++] = argv[i];
  }
  if (!a->help && a->nfiles == 0)
    return snprintf(err, len, "no capture file given (e.g. data/sample_capture.h5; --help)"), -1;
  return 0;
}

/* The fault must name a record, row, column and tensor that exist: otherwise it would silently
 * inject nothing and the "failure is caught" check it serves would pass vacuously. */
static int check_fault(const fn_options *o, const fn_record *recs, int nrec, char *err, size_t len) {
  if (!o->inject) return 0;
  int found = 0;
  for (int i = 0; i < nrec; ++i) {
    const fn_record *r = &recs[i];
    if (strcmp(r->name, o->inject_record)) continue;
    found = 1;
    const char *t = o->inject_tensor;
    if (o->inject_row >= r->rows || o->inject_col >= r->n)
      return snprintf(err, len, "--inject-fault: record %s is %lld x %lld; row %lld col %lld is "
                      "outside it", r->name, (long long)r->rows, (long long)r->n,
                      (long long)o->inject_row, (long long)o->inject_col), -1;
    if (strcmp(t, "y") && !r->d[FN_D_DY].present)
      return snprintf(err, len, "--inject-fault: record %s has no backward (no dy): no %s to "
                      "change", r->name, t), -1;
    if (!strcmp(t, "dw") && !r->has_weight)
      return snprintf(err, len, "--inject-fault: record %s has no weight: no dw to change", r->name), -1;
  }
  if (!found)
    return snprintf(err, len, "--inject-fault: no record named '%s' in the input", o->inject_record), -1;
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

/* The report must not replace an input (compared by device and inode: hard links, symlinks and
 * other spellings of one file included) nor a directory, and its directory must be writable. */
static int report_ok(const char *path, char *const *inputs, int ninputs, char *err, size_t len) {
  struct stat rs, is;
  if (stat(path, &rs) == 0) {
    if (S_ISDIR(rs.st_mode))
      return snprintf(err, len, "--report %.1000s: is a directory", path), -1;
    for (int i = 0; i < ninputs; ++i)
      if (stat(inputs[i], &is) == 0 && is.st_dev == rs.st_dev && is.st_ino == rs.st_ino)
        return snprintf(err, len, "--report %.1000s: is the input %.1000s itself; refusing to "
                        "overwrite a capture with its report", path, inputs[i]), -1;
  }
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

/* The read watchdog's end (record.h): every rank that hits the corrupt file says so; a rank that
 * alone hits it (its own rows) ends the others through MPI_Abort, as they may wait for it. */
static fn_mpi g_mpi;
static double g_cpu_limit = 120.0;

static void watchdog_fire(const char *msg) {
  char line[1600];
  int k = snprintf(line, sizeof line, "replay[rank %d/%d]: error: %s\n", g_mpi.rank, g_mpi.size, msg);
  if (k > 0) {
    ssize_t w = write(2, line, (size_t)k < sizeof line ? (size_t)k : sizeof line - 1);
    (void)w;
  }
  if (g_mpi.size > 1) MPI_Abort(MPI_COMM_WORLD, EXIT_BAD_INPUT);
  _exit(EXIT_BAD_INPUT);
}

/* HDF5 1.10 has memory errors and endless loops on some corrupt metadata (verify/fuzz found both
 * in its global heap, under string attributes). A child process opens and validates every file
 * first (metadata only, as below): if HDF5 crashes or loops there, this process says so and exits
 * 2 instead of crashing or hanging. HDF5 is deterministic, so a file the child read safely is read
 * the same way here. The child touches no MPI and leaves with _exit. */
static void child_watchdog(const char *msg) {
  (void)msg;
  _exit(3);
}

static int metadata_guard(char *const *paths, int n, char *err, size_t len) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return 0;  /* no child: validate directly, unguarded */
  if (pid == 0) {
    /* The default action (no core dump text from MPI's handlers): the parent reports the signal. */
    int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; ++i) signal(sigs[i], SIG_DFL);
    fn_set_read_watchdog(g_cpu_limit, child_watchdog);
    char e[FN_MSG_LEN];
    for (int i = 0; i < n; ++i) {
      fn_capture_file f;
      fn_record *recs = NULL;
      int nrec = 0;
      if (fn_capture_open(&f, paths[i], e, sizeof e) == 0) {
        fn_capture_load_records(&f, i, &recs, &nrec, e, sizeof e);
        fn_capture_close(&f);
      }
      free(recs);
    }
    _exit(0);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(st))
    return snprintf(err, len, "HDF5 crashed (signal %d, %s) reading the metadata of %s%s: a corrupt "
                    "file; refused", WTERMSIG(st), strsignal(WTERMSIG(st)), n > 1 ? "one of " : "",
                    n > 1 ? "the input files" : paths[0]), -1;
  if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
    return snprintf(err, len, "HDF5 used %g s of CPU reading the metadata of %s%s without "
                    "returning: a corrupt file can make HDF5 loop forever; refused", g_cpu_limit,
                    n > 1 ? "one of " : "", n > 1 ? "the input files" : paths[0]), -1;
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
  /* _exit, not a return from main: after some failed reads of a corrupt file HDF5 1.10 cannot
   * close it, and its exit handler then crashes (SIGSEGV in H5F__close_cb; found by capture_fuzz,
   * verify/fuzz/regressions/hdf5_unclosable_file.h5). Nothing is left to flush but stdio. */
  fflush(NULL);
  _exit(EXIT_BAD_INPUT);
}

int main(int argc, char **argv) {
  fn_mpi M;
  if (fn_mpi_init(&argc, &argv, &M) != 0) {
    fprintf(stderr, "replay: MPI_Init failed\n");
    return EXIT_BAD_INPUT;
  }
  vh5_init();
  g_mpi = M;
  /* The ranks of one node share its cores: the float64 reference and the CPU backend each take
   * their share (OpenMP threads) unless OMP_NUM_THREADS says otherwise. */
  if (M.local_size > 1 && getenv("OMP_NUM_THREADS") == NULL) {
    const int share = omp_get_num_procs() / M.local_size;
    omp_set_num_threads(share > 0 ? share : 1);
  }
  /* CPU seconds one HDF5 read step may take (the metadata of one record, one unit's rows: well
   * under a second on sound files). FUSEDNORM_REPLAY_HDF5_CPU_LIMIT overrides (the tests). */
  const char *lim = getenv("FUSEDNORM_REPLAY_HDF5_CPU_LIMIT");
  double cpu_limit = lim && *lim ? strtod(lim, NULL) : 120.0;
  g_cpu_limit = isfinite(cpu_limit) && cpu_limit > 0 ? cpu_limit : 120.0;
  fn_set_read_watchdog(g_cpu_limit, watchdog_fire);
  char msg[FN_MSG_LEN] = "";
  int who;

  /* ---- arguments (identical on every rank, so every rank reaches the same verdict) ---- */
  args_t A;
  int bad = parse_args(argc, argv, &A, msg, sizeof msg) < 0;
  if (A.help && !bad) {
    int code = 0;
    if (M.rank == 0 && (fputs(USAGE, stdout) < 0 || fflush(stdout) != 0)) {
      fn_mpi_eprintf(&M, "error: writing the usage to stdout: %s", strerror(errno));
      code = EXIT_BAD_INPUT;
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return code;
  }
  if (bad) {
    if (M.rank == 0) fputs(USAGE, stderr);
    return bad_input_exit(&M, M.rank, msg);
  }
  char **paths = calloc((size_t)A.nfiles, sizeof(char *));
  for (int i = 0; i < A.nfiles; ++i) paths[i] = resolve(A.files[i]);
  char *report = A.report ? resolve(A.report) : NULL;
  bad = M.rank == 0 && report && report_ok(report, paths, A.nfiles, msg, sizeof msg) < 0;
  if ((who = fn_mpi_agree(&M, bad, msg)) >= 0) return bad_input_exit(&M, who, msg);

  /* ---- open + validate every file on every rank (metadata only; cheap) ---- */
  fn_capture_file *files = calloc((size_t)A.nfiles, sizeof(fn_capture_file));
  fn_record *recs = NULL;
  int nrec = 0;
  bad = metadata_guard(paths, A.nfiles, msg, sizeof msg) < 0;
  for (int i = 0; i < A.nfiles && !bad; ++i) {
    files[i].h5 = -1;
    if (fn_capture_open(&files[i], paths[i], msg, sizeof msg) < 0 ||
        fn_capture_load_records(&files[i], i, &recs, &nrec, msg, sizeof msg) < 0)
      bad = 1;
  }
  if (!bad) bad = check_fault(&A.o, recs, nrec, msg, sizeof msg) < 0;
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
  bad = 0;
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
    /* A table that could not be written (`> /dev/full`, a closed pipe) is a failed run. */
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
      snprintf(msg, sizeof msg, "writing the result table to stdout failed: %s",
               errno ? strerror(errno) : "I/O error");
      bad = 1;
    }
    if (!bad && report && fn_report_json(report, recs, res, nrec, &info, code, msg, sizeof msg) < 0)
      bad = 1;
  }
  /* Every rank states why the job ends with exit 2. */
  if ((who = fn_mpi_agree(&M, M.rank == 0 && bad, msg)) >= 0) {
    fn_device_close(&dev);
    for (int i = 0; i < A.nfiles; ++i) fn_capture_close(&files[i]);
    return bad_input_exit(&M, who, msg);
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  fn_device_close(&dev);
  for (int i = 0; i < A.nfiles; ++i) fn_capture_close(&files[i]);
  MPI_Finalize();
  return code;
}
