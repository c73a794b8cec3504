/* record.c — capture file model: load + validate (FORMAT.md "Checked on read"), write. */
#define _POSIX_C_SOURCE 200809L
#include "verify/record.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "verify/h5io.h"

static const char *const DSET_PATH[FN_D_COUNT] = {
    "x", "residual", "dy", "ds", "job/y", "job/residual_out", "job/dx", "job/dresidual",
    "weight", "job/dw"};

const char *fn_dset_path(fn_dset_id d) { return d < FN_D_COUNT ? DSET_PATH[d] : "?"; }

const char *fn_casting_name(fusednorm_casting c) {
  switch (c) {
    case FUSEDNORM_CAST_FP32: return "fp32";
    case FUSEDNORM_CAST_LLAMA: return "llama";
    case FUSEDNORM_CAST_GEMMA: return "gemma";
  }
  return "?";
}

int fn_say(char *err, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, len, fmt, ap);
  va_end(ap);
  return -1;
}

/* ---- watchdog over HDF5 reads ---------------------------------------------------------------
 * HDF5 1.10 can loop forever on some corrupt files (found by verify/fuzz: a damaged global heap
 * under a string attribute). Such a loop burns CPU, so a CPU-time timer (ITIMER_VIRTUAL: waiting
 * for a slow disk does not count) is armed around each read step; when it fires the owner's
 * callback ends the process with the prepared message. Off unless fn_set_read_watchdog is called. */
static double wd_cpu_s;
static void (*wd_fire)(const char *msg);
static char wd_msg[1400];

static void wd_handler(int sig) {
  (void)sig;
  if (wd_fire) wd_fire(wd_msg);
  _exit(2);
}

void fn_set_read_watchdog(double cpu_seconds, void (*fire)(const char *msg)) {
  wd_cpu_s = cpu_seconds;
  wd_fire = fire;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = wd_handler;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGVTALRM, &sa, NULL);
}

static void wd_arm(const char *path, const char *what) {
  if (wd_cpu_s <= 0) return;
  snprintf(wd_msg, sizeof wd_msg,
           "%.1000s: HDF5 used %g s of CPU %.200s without returning: a corrupt file can make "
           "HDF5 loop forever; refused", path, wd_cpu_s, what);
  struct itimerval t;
  memset(&t, 0, sizeof t);
  t.it_value.tv_sec = (time_t)wd_cpu_s;
  t.it_value.tv_usec = (suseconds_t)((wd_cpu_s - (double)(time_t)wd_cpu_s) * 1e6);
  if (!t.it_value.tv_sec && !t.it_value.tv_usec) t.it_value.tv_usec = 1;
  setitimer(ITIMER_VIRTUAL, &t, NULL);
}

static void wd_disarm(void) {
  if (wd_cpu_s <= 0) return;
  struct itimerval t;
  memset(&t, 0, sizeof t);
  setitimer(ITIMER_VIRTUAL, &t, NULL);
}

static int parse_dtype(const char *s, fusednorm_dtype *d) {
  if (!strcmp(s, "f32")) *d = FUSEDNORM_F32;
  else if (!strcmp(s, "f16")) *d = FUSEDNORM_F16;
  else if (!strcmp(s, "bf16")) *d = FUSEDNORM_BF16;
  else return -1;
  return 0;
}

int fn_capture_open(fn_capture_file *f, const char *path, char *err, size_t len) {
  memset(f, 0, sizeof *f);
  f->h5 = -1;
  wd_arm(path, "opening the file");
  hid_t h = vh5_open_ro(path, err, len);
  int rc = h < 0 ? -1 : fn_capture_attach(f, h, path, err, len);
  wd_disarm();
  return rc;
}

int fn_capture_attach(fn_capture_file *f, hid_t h5, const char *path, char *err, size_t len) {
  memset(f, 0, sizeof *f);
  snprintf(f->path, sizeof f->path, "%s", path);
  f->h5 = h5;
  char fmt[128], e[512];
  if (vh5_attr_string(f->h5, "format", fmt, sizeof fmt, e, sizeof e) < 0) {
    fn_say(err, len, "%s: not a fusednorm capture: root %s (data/FORMAT.md)", path, e);
    goto bad;
  }
  if (strcmp(fmt, FN_FORMAT_NAME)) {
    fn_say(err, len, "%s: format is '%s', expected '%s'", path, fmt, FN_FORMAT_NAME);
    goto bad;
  }
  int64_t ver;
  if (vh5_attr_int(f->h5, "format_version", &ver, e, sizeof e) < 0) {
    fn_say(err, len, "%s: root %s", path, e);
    goto bad;
  }
  if (ver != FN_FORMAT_VERSION) {
    fn_say(err, len, "%s: format_version %lld is not supported (this replay reads version %d%s)",
        path, (long long)ver, FN_FORMAT_VERSION,
        ver > FN_FORMAT_VERSION ? "; the file is newer than this build" : "");
    goto bad;
  }
  if (vh5_attr_int(f->h5, "record_count", &f->record_count, e, sizeof e) < 0) {
    fn_say(err, len, "%s: root %s (was the capture closed?)", path, e);
    goto bad;
  }
  if (vh5_attr_exists(f->h5, "producer"))
    vh5_attr_string(f->h5, "producer", f->producer, sizeof f->producer, e, sizeof e);
  if (vh5_attr_exists(f->h5, "framework"))
    vh5_attr_string(f->h5, "framework", f->framework, sizeof f->framework, e, sizeof e);
  if (vh5_attr_exists(f->h5, "description"))
    vh5_attr_string(f->h5, "description", f->description, sizeof f->description, e, sizeof e);
  return 0;
bad:
  H5Fclose(f->h5);
  f->h5 = -1;
  return -1;
}

void fn_capture_close(fn_capture_file *f) {
  if (f->h5 >= 0) H5Fclose(f->h5);
  f->h5 = -1;
}

/* Reads a required attribute or fails with "<file>:/records/<rec>: <reason>". */
#define NEED(call)                                                                        \
  do {                                                                                    \
    if ((call) < 0) {                                                                     \
      fn_say(err, len, "%s:/records/%s: %s", f->path, r->name, e);                           \
      goto bad;                                                                           \
    }                                                                                     \
  } while (0)
#define CHECK(cond, ...)                                                                  \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      int k_ = snprintf(err, len, "%s:/records/%s: ", f->path, r->name);                  \
      if (k_ >= 0 && (size_t)k_ < len) snprintf(err + k_, len - (size_t)k_, __VA_ARGS__); \
      goto bad;                                                                           \
    }                                                                                     \
  } while (0)

static int load_one(fn_capture_file *f, hid_t g, fn_record *r, char *err, size_t len) {
  char e[512], s[256];
  NEED(vh5_attr_string(g, "op", s, sizeof s, e, sizeof e));
  CHECK(!strcmp(s, "rms_norm") || !strcmp(s, "fused_add_rms_norm"),
        "op '%s' is not rms_norm or fused_add_rms_norm", s);
  r->fused = !strcmp(s, "fused_add_rms_norm");
  NEED(vh5_attr_string(g, "casting", s, sizeof s, e, sizeof e));
  if (!strcmp(s, "fp32")) r->casting = FUSEDNORM_CAST_FP32;
  else if (!strcmp(s, "llama")) r->casting = FUSEDNORM_CAST_LLAMA;
  else if (!strcmp(s, "gemma")) r->casting = FUSEDNORM_CAST_GEMMA;
  else CHECK(0, "casting '%s' is not fp32, llama or gemma", s);
  NEED(vh5_attr_double(g, "eps", &r->eps, e, sizeof e));
  CHECK(isfinite(r->eps) && r->eps >= 0, "eps %g must be finite and >= 0", r->eps);
  /* Applied as fp32: a double beyond FLT_MAX becomes inf there. */
  CHECK(isfinite((float)r->eps), "eps %g is finite as a double but not as fp32 (max %g)", r->eps,
        (double)FLT_MAX);
  NEED(vh5_attr_double(g, "offset", &r->offset, e, sizeof e));
  CHECK(isfinite(r->offset), "offset %g must be finite", r->offset);
  CHECK(isfinite((float)r->offset), "offset %g is finite as a double but not as fp32 (max %g)",
        r->offset, (double)FLT_MAX);
  int64_t hw;
  NEED(vh5_attr_int(g, "has_weight", &hw, e, sizeof e));
  CHECK(hw == 0 || hw == 1, "has_weight must be 0 or 1, not %lld", (long long)hw);
  r->has_weight = (int)hw;
  NEED(vh5_attr_string(g, "x_dtype", s, sizeof s, e, sizeof e));
  CHECK(parse_dtype(s, &r->x_dtype) == 0, "x_dtype '%s' is not f32, f16 or bf16", s);
  NEED(vh5_attr_string(g, "w_dtype", s, sizeof s, e, sizeof e));
  if (r->has_weight) CHECK(parse_dtype(s, &r->w_dtype) == 0, "w_dtype '%s' is not f32, f16 or bf16", s);
  else CHECK(!strcmp(s, "none"), "w_dtype must be 'none' without weight, not '%s'", s);
  if (!r->has_weight) r->w_dtype = FUSEDNORM_F32;
  NEED(vh5_attr_int(g, "rows_total", &r->rows_total, e, sizeof e));
  NEED(vh5_attr_int(g, "row_start", &r->row_start, e, sizeof e));
  NEED(vh5_attr_int(g, "row_step", &r->row_step, e, sizeof e));
  CHECK(r->row_step >= 1 && r->row_start >= 0, "row_start %lld / row_step %lld invalid",
        (long long)r->row_start, (long long)r->row_step);
  NEED(vh5_attr_string(g, "layer", r->layer, sizeof r->layer, e, sizeof e));
  NEED(vh5_attr_int(g, "step", &r->step, e, sizeof e));
  NEED(vh5_attr_int(g, "rank", &r->rank, e, sizeof e));
  /* Optional information. */
  r->world_size = 1;
  r->call = 0;
  if (vh5_attr_exists(g, "model")) NEED(vh5_attr_string(g, "model", r->model, sizeof r->model, e, sizeof e));
  if (vh5_attr_exists(g, "impl")) NEED(vh5_attr_string(g, "impl", r->impl, sizeof r->impl, e, sizeof e));
  if (vh5_attr_exists(g, "call")) NEED(vh5_attr_int(g, "call", &r->call, e, sizeof e));
  if (vh5_attr_exists(g, "world_size"))
    NEED(vh5_attr_int(g, "world_size", &r->world_size, e, sizeof e));
  if (vh5_attr_exists(g, "shape"))
    NEED(vh5_attr_int_array(g, "shape", r->shape, 8, &r->shape_len, e, sizeof e));

  /* Datasets: presence, rank, shape, dtype attribute vs storage. */
  r->rows = r->n = -1;
  for (int d = 0; d < FN_D_COUNT; ++d) {
    const char *path = DSET_PATH[d];
    int present = vh5_link(g, path, e, sizeof e);
    NEED(present);
    r->d[d].present = present;
    if (!present) continue;
    vh5_dset_info info;
    NEED(vh5_dset_info_get(g, path, &info, e, sizeof e));
    int want_nd = d < FN_D_FIRST_1D ? 2 : 1;
    CHECK(info.ndims == want_nd, "dataset '%s' has %d dimensions, expected %d", path, info.ndims,
          want_nd);
    hid_t ds = H5Dopen2(g, path, H5P_DEFAULT);
    char dt[32];
    int rc = vh5_attr_string(ds, "dtype", dt, sizeof dt, e, sizeof e);
    H5Dclose(ds);
    CHECK(rc == 0, "dataset '%s': %s", path, e);
    CHECK(parse_dtype(dt, &r->d[d].dtype) == 0, "dataset '%s': dtype '%s' is not f32, f16 or bf16",
          path, dt);
    if (r->d[d].dtype == FUSEDNORM_F32)
      CHECK(info.cls == H5T_FLOAT && info.size == 4,
            "dataset '%s': dtype f32 but stored as %s of %zu bytes (float32 expected)", path,
            info.cls == H5T_FLOAT ? "float" : info.cls == H5T_INTEGER ? "integer" : "non-number",
            info.size);
    else
      CHECK(info.cls == H5T_INTEGER && info.size == 2 && !info.is_signed,
            "dataset '%s': dtype %s must be stored as uint16 bit patterns, found %s of %zu bytes",
            path, dt,
            info.cls == H5T_FLOAT ? "float" : info.cls == H5T_INTEGER ? "integer" : "non-number",
            info.size);
    if (want_nd == 2) {
      if (r->rows < 0) {
        r->rows = info.dims[0];
        r->n = info.dims[1];
      }
      CHECK(info.dims[0] == r->rows && info.dims[1] == r->n,
            "dataset '%s' is [%lld, %lld] but x is [%lld, %lld]", path, (long long)info.dims[0],
            (long long)info.dims[1], (long long)r->rows, (long long)r->n);
    } else if (r->n >= 0) {
      CHECK(info.dims[0] == r->n, "dataset '%s' has %lld elements, expected n = %lld", path,
            (long long)info.dims[0], (long long)r->n);
    }
  }
  CHECK(r->d[FN_D_X].present, "required dataset 'x' is missing");
  CHECK(r->rows >= 1 && r->n >= 1, "x is [%lld, %lld]: rows and n must be >= 1",
        (long long)r->rows, (long long)r->n);
  /* The 1-D datasets were checked before n was known when they sort first; check again. */
  for (int d = FN_D_FIRST_1D; d < FN_D_COUNT; ++d)
    if (r->d[d].present) {
      vh5_dset_info info;
      NEED(vh5_dset_info_get(g, DSET_PATH[d], &info, e, sizeof e));
      CHECK(info.dims[0] == r->n, "dataset '%s' has %lld elements, expected n = %lld",
            DSET_PATH[d], (long long)info.dims[0], (long long)r->n);
    }
  CHECK(r->d[FN_D_X].dtype == r->x_dtype, "x is stored as %s but x_dtype says %s",
        fusednorm_dtype_name(r->d[FN_D_X].dtype), fusednorm_dtype_name(r->x_dtype));
  if (r->fused) {
    CHECK(r->d[FN_D_RESIDUAL].present, "fused_add_rms_norm record without dataset 'residual'");
    CHECK(r->d[FN_D_RESIDUAL].dtype == r->x_dtype, "residual is %s but x_dtype is %s",
          fusednorm_dtype_name(r->d[FN_D_RESIDUAL].dtype), fusednorm_dtype_name(r->x_dtype));
  } else {
    CHECK(!r->d[FN_D_RESIDUAL].present && !r->d[FN_D_DS].present,
          "rms_norm record has 'residual'/'ds' datasets (op should be fused_add_rms_norm)");
  }
  if (r->has_weight) {
    CHECK(r->d[FN_D_WEIGHT].present, "has_weight = 1 but dataset 'weight' is missing");
    CHECK(r->d[FN_D_WEIGHT].dtype == r->w_dtype, "weight is %s but w_dtype says %s",
          fusednorm_dtype_name(r->d[FN_D_WEIGHT].dtype), fusednorm_dtype_name(r->w_dtype));
  } else {
    CHECK(!r->d[FN_D_WEIGHT].present, "has_weight = 0 but dataset 'weight' is present");
  }
  CHECK(r->d[FN_D_DY].present || !r->d[FN_D_DS].present, "'ds' without 'dy'");
  /* Last captured row = row_start + (rows - 1) * row_step, computed without int64 overflow. */
  int64_t span = 0;
  int over = __builtin_mul_overflow(r->rows - 1, r->row_step, &span) ||
             __builtin_add_overflow(span, r->row_start, &span);
  CHECK(!over, "row_start %lld + (%lld rows - 1) x row_step %lld overflows int64",
        (long long)r->row_start, (long long)r->rows, (long long)r->row_step);
  CHECK(span < r->rows_total, "rows_total %lld is too small for %lld rows at start %lld step %lld",
        (long long)r->rows_total, (long long)r->rows, (long long)r->row_start,
        (long long)r->row_step);
  r->job_impl[0] = 0;
  int job = vh5_link(g, "job", e, sizeof e);
  NEED(job);
  if (job) {
    hid_t j = H5Gopen2(g, "job", H5P_DEFAULT);
    if (j >= 0) {
      if (vh5_attr_exists(j, "impl"))
        vh5_attr_string(j, "impl", r->job_impl, sizeof r->job_impl, e, sizeof e);
      H5Gclose(j);
    }
  }
  return 0;
bad:
  return -1;
}

int fn_capture_load_records(fn_capture_file *f, int file_index, fn_record **recs, int *count,
                            char *err, size_t len) {
  char e[512];
  int have = vh5_link(f->h5, "records", e, sizeof e);
  if (have < 0) return fn_say(err, len, "%s: %s", f->path, e);
  if (!have) return fn_say(err, len, "%s: group /records is missing", f->path);
  hid_t rg = H5Gopen2(f->h5, "records", H5P_DEFAULT);
  if (rg < 0) return fn_say(err, len, "%s: /records is not a group", f->path);
  char **names = NULL;
  int nn = 0, rc = 0;
  wd_arm(f->path, "listing the records");
  int listed = vh5_list(rg, &names, &nn, e, sizeof e);
  wd_disarm();
  if (listed < 0) {
    H5Gclose(rg);
    return fn_say(err, len, "%s: /records: %s", f->path, e);
  }
  if (nn == 0) {
    rc = fn_say(err, len, "%s: zero records (nothing was captured)", f->path);
  } else if (f->record_count != nn) {
    rc = fn_say(err, len,
             "%s: record_count says %lld but /records holds %d groups (capture not closed "
             "cleanly?)",
             f->path, (long long)f->record_count, nn);
  } else {
    fn_record *all = realloc(*recs, sizeof(fn_record) * (size_t)(*count + nn));
    if (!all) {
      rc = fn_say(err, len, "out of memory");
    } else {
      *recs = all;
      for (int i = 0; i < nn && rc == 0; ++i) {
        fn_record *r = &all[*count];
        memset(r, 0, sizeof *r);
        r->file_index = file_index;
        size_t nl = strlen(names[i]);
        H5O_info_t oi;
        hid_t g = -1;
        if (nl >= sizeof r->name) {
          /* Cutting the name would replay another record's data under this one's name. */
          rc = fn_say(err, len, "%s:/records/%.40s...: record name of %zu bytes is longer than the "
                      "%zu this replay keeps: refused", f->path, names[i], nl, sizeof r->name - 1);
        } else if (memcpy(r->name, names[i], nl + 1),
                   (g = H5Gopen2(rg, names[i], H5P_DEFAULT)) < 0 || H5Oget_info(g, &oi) < 0 ||
                   oi.type != H5O_TYPE_GROUP) {
          rc = fn_say(err, len, "%s:/records/%s is not a group", f->path, names[i]);
        } else if (wd_arm(f->path, "validating a record"), rc = load_one(f, g, r, err, len),
                   wd_disarm(), rc < 0) {
          rc = -1;
        } else {
          (*count)++;
        }
        if (g >= 0) H5Gclose(g);
        H5Eclear2(H5E_DEFAULT);
      }
    }
  }
  for (int i = 0; i < nn; ++i) free(names[i]);
  free(names);
  H5Gclose(rg);
  return rc;
}

fusednorm_problem fn_record_problem(const fn_record *r) {
  fusednorm_problem p = fusednorm_problem_init(r->rows, r->n, r->x_dtype, r->w_dtype);
  p.casting = r->casting;
  p.eps = (float)r->eps;
  p.offset = (float)r->offset;
  p.has_weight = r->has_weight;
  p.has_residual = r->fused;
  return p;
}

size_t fn_record_esize(const fn_record *r, fn_dset_id d) {
  return fusednorm_dtype_size(r->d[d].dtype);
}

int fn_record_read(const fn_capture_file *f, const fn_record *r, fn_dset_id d, int64_t row0,
                   int64_t nrows, void *buf, char *err, size_t len) {
  char path[sizeof r->name + 64], e[512];
  snprintf(path, sizeof path, "records/%s/%s", r->name, DSET_PATH[d]);  /* fits: name < 256 */
  hid_t mt = r->d[d].dtype == FUSEDNORM_F32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_UINT16;
  if (d >= FN_D_FIRST_1D) {
    row0 = 0;
    nrows = r->n;
  }
  wd_arm(f->path, "reading a record's rows");
  int rc = vh5_read_rows(f->h5, path, mt, row0, nrows, r->n, buf, e, sizeof e);
  wd_disarm();
  if (rc < 0) return fn_say(err, len, "%s:/records/%s: %s", f->path, r->name, e);
  return 0;
}

/* ---- writing ------------------------------------------------------------------------------- */
hid_t fn_capture_create(const char *path, const char *producer, const char *framework,
                        const char *description, char *err, size_t len) {
  hid_t f = vh5_create(path, err, len);
  if (f < 0) return -1;
  vh5_write_attr_string(f, "format", FN_FORMAT_NAME);
  vh5_write_attr_int(f, "format_version", FN_FORMAT_VERSION);
  if (producer && *producer) vh5_write_attr_string(f, "producer", producer);
  if (framework && *framework) vh5_write_attr_string(f, "framework", framework);
  if (description && *description) vh5_write_attr_string(f, "description", description);
  hid_t g = vh5_create_group(f, "records", err, len);
  if (g < 0) {
    H5Fclose(f);
    return -1;
  }
  H5Gclose(g);
  return f;
}

int fn_capture_finish(hid_t file, int64_t record_count) {
  int rc = vh5_write_attr_int(file, "record_count", record_count);
  return H5Fclose(file) < 0 ? -1 : rc;
}

int fn_record_write(hid_t file, const fn_record *r, void *const data[FN_D_COUNT], char *err,
                    size_t len) {
  char gpath[sizeof r->name + 16];
  snprintf(gpath, sizeof gpath, "records/%s", r->name);
  hid_t g = vh5_create_group(file, gpath, err, len);
  if (g < 0) return -1;
  int rc = 0;
  rc |= vh5_write_attr_string(g, "op", r->fused ? "fused_add_rms_norm" : "rms_norm");
  rc |= vh5_write_attr_string(g, "casting", fn_casting_name(r->casting));
  rc |= vh5_write_attr_double(g, "eps", r->eps);
  rc |= vh5_write_attr_double(g, "offset", r->offset);
  rc |= vh5_write_attr_int(g, "has_weight", r->has_weight);
  rc |= vh5_write_attr_string(g, "x_dtype", fusednorm_dtype_name(r->x_dtype));
  rc |= vh5_write_attr_string(g, "w_dtype",
                              r->has_weight ? fusednorm_dtype_name(r->w_dtype) : "none");
  rc |= vh5_write_attr_int(g, "rows_total", r->rows_total);
  rc |= vh5_write_attr_int(g, "row_start", r->row_start);
  rc |= vh5_write_attr_int(g, "row_step", r->row_step);
  rc |= vh5_write_attr_string(g, "layer", r->layer);
  rc |= vh5_write_attr_string(g, "model", r->model);
  rc |= vh5_write_attr_string(g, "impl", r->impl);
  rc |= vh5_write_attr_int(g, "step", r->step);
  rc |= vh5_write_attr_int(g, "call", r->call);
  rc |= vh5_write_attr_int(g, "rank", r->rank);
  rc |= vh5_write_attr_int(g, "world_size", r->world_size);
  if (r->shape_len > 0) rc |= vh5_write_attr_int_array(g, "shape", r->shape, r->shape_len);
  if (rc) {
    H5Gclose(g);
    return fn_say(err, len, "%s: cannot write attributes", r->name);
  }
  int has_job = 0;
  for (int d = 0; d < FN_D_COUNT; ++d)
    if (r->d[d].present && !strncmp(DSET_PATH[d], "job/", 4)) has_job = 1;
  if (has_job) {
    hid_t j = vh5_create_group(g, "job", err, len);
    if (j < 0) {
      H5Gclose(g);
      return -1;
    }
    if (r->job_impl[0]) vh5_write_attr_string(j, "impl", r->job_impl);
    H5Gclose(j);
  }
  for (int d = 0; d < FN_D_COUNT && rc == 0; ++d) {
    if (!r->d[d].present) continue;
    int nd = d < FN_D_FIRST_1D ? 2 : 1;
    int64_t dims[2] = {nd == 2 ? r->rows : r->n, r->n};
    int f32 = r->d[d].dtype == FUSEDNORM_F32;
    rc = vh5_write_dataset(g, DSET_PATH[d], nd, dims, f32 ? H5T_IEEE_F32LE : H5T_STD_U16LE,
                           f32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_UINT16, data[d], err, len);
    if (rc == 0) {
      hid_t ds = H5Dopen2(g, DSET_PATH[d], H5P_DEFAULT);
      rc = vh5_write_attr_string(ds, "dtype", fusednorm_dtype_name(r->d[d].dtype));
      H5Dclose(ds);
    }
  }
  H5Gclose(g);
  return rc ? -1 : 0;
}
