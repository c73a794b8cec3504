/*
 * record.h — the in-memory model of a capture file (data/FORMAT.md, version 1): what one captured
 * call is, loaded and validated from HDF5, and written back (verify/h5copy, the round-trip test).
 *
 * Loading checks everything FORMAT.md promises (names, types, allowed values, shapes, dtypes) so
 * that the replay can trust a record; data are not loaded here, only on demand by rows
 * (fn_record_read_rows), so a rank reads only its own rows.
 */
#ifndef FUSEDNORM_VERIFY_RECORD_H_
#define FUSEDNORM_VERIFY_RECORD_H_

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/include/fusednorm.h"

#define FN_FORMAT_NAME "fusednorm-capture"
#define FN_FORMAT_VERSION 1

/* The datasets of a record. 2-D [rows, n] ones first, then the [n] ones. */
typedef enum {
  FN_D_X = 0,
  FN_D_RESIDUAL,
  FN_D_DY,
  FN_D_DS,
  FN_D_JOB_Y,
  FN_D_JOB_ROUT,
  FN_D_JOB_DX,
  FN_D_JOB_DRES,
  FN_D_WEIGHT,  /* [n] */
  FN_D_JOB_DW,  /* [n] */
  FN_D_COUNT
} fn_dset_id;
#define FN_D_FIRST_1D FN_D_WEIGHT

/* Path of each dataset inside its record group ("x", "job/y", ...). */
const char *fn_dset_path(fn_dset_id d);

typedef struct {
  int present;
  fusednorm_dtype dtype;  /* from the `dtype` attribute, checked against the storage type */
} fn_dset;

typedef struct {
  int file_index;             /* which input file */
  char name[256];             /* group name under /records, e.g. r000000 (longer: refused) */
  int fused;                  /* op == fused_add_rms_norm */
  fusednorm_casting casting;
  double eps, offset;
  int has_weight;
  fusednorm_dtype x_dtype, w_dtype;
  int64_t rows, n;            /* captured rows, normalized dim */
  int64_t rows_total, row_start, row_step;
  int64_t step, call, rank, world_size;
  int64_t shape[8];
  int shape_len;
  char layer[256], model[128], impl[128], job_impl[128];
  fn_dset d[FN_D_COUNT];
} fn_record;

typedef struct {
  char path[4096];
  hid_t h5;                   /* open read-only */
  char producer[128], framework[256], description[1024];
  int64_t record_count;
} fn_capture_file;

/* Opens `path` and checks the root (format name, version, record_count). */
int fn_capture_open(fn_capture_file *f, const char *path, char *err, size_t len);
/* The same checks on an HDF5 file already open (takes ownership of h5: closed on failure);
 * `path` names it in messages. The fuzz target opens in-memory file images this way. */
int fn_capture_attach(fn_capture_file *f, hid_t h5, const char *path, char *err, size_t len);
void fn_capture_close(fn_capture_file *f);

/* Loads and validates every record (appended to *recs, *count updated). */
int fn_capture_load_records(fn_capture_file *f, int file_index, fn_record **recs, int *count,
                            char *err, size_t len);

/* The problem a record describes (dtypes, casting, eps, ...; mode AUTO). rows = r->rows. */
fusednorm_problem fn_record_problem(const fn_record *r);

/* Reads rows [row0, row0+nrows) of a 2-D dataset (all of a 1-D one) in its stored dtype. */
int fn_record_read(const fn_capture_file *f, const fn_record *r, fn_dset_id d, int64_t row0,
                   int64_t nrows, void *buf, char *err, size_t len);

/* Element size of a dataset as stored. */
size_t fn_record_esize(const fn_record *r, fn_dset_id d);

/* ---- writing (verify/h5copy and tests) ---- */
hid_t fn_capture_create(const char *path, const char *producer, const char *framework,
                        const char *description, char *err, size_t len);
/* Writes one record group with the data in data[d] (NULL for absent datasets). */
int fn_record_write(hid_t file, const fn_record *r, void *const data[FN_D_COUNT], char *err,
                    size_t len);
int fn_capture_finish(hid_t file, int64_t record_count);

/* Guards every read step of the functions above (open + validation, each record, each row read)
 * with a CPU-time limit: HDF5 1.10 can loop forever on some corrupt files. When a step uses more
 * than cpu_seconds of CPU, fire(msg) is called from the signal handler (it must end the process;
 * _exit(2) follows if it returns). cpu_seconds <= 0: off (the default). */
void fn_set_read_watchdog(double cpu_seconds, void (*fire)(const char *msg));

const char *fn_casting_name(fusednorm_casting c);
/* printf into err[len] and return -1: the error idiom of the verify/ C files. */
int fn_say(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
