/* h5io.c — see h5io.h. */
#define _POSIX_C_SOURCE 200809L
#include "verify/h5io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CHUNK_BYTES (1u << 20)

void vh5_init(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

/* The innermost (first pushed) message of the current HDF5 error stack: the root cause. */
static herr_t walk_first(unsigned n, const H5E_error2_t *e, void *data) {
  char *out = data;
  if (n == 0 && e->desc) snprintf(out, 200, "%s", e->desc);
  return 0;
}

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...) {
  char detail[200] = "";
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_first, detail);
  H5Eclear2(H5E_DEFAULT);
  if (err && len) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(err, len, fmt, ap);
    va_end(ap);
    if (detail[0] && k >= 0 && (size_t)k < len)
      snprintf(err + k, len - (size_t)k, " (HDF5: %s)", detail);
  }
  return -1;
}

hid_t vh5_open_ro(const char *path, char *err, size_t len) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fail(err, len, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  if (S_ISDIR(st.st_mode)) {
    fail(err, len, "%s: is a directory, not an HDF5 capture file", path);
    return -1;
  }
  htri_t is = H5Fis_hdf5(path);
  if (is <= 0) {
    fail(err, len, "%s: not an HDF5 file (%lld bytes; no HDF5 signature)", path,
         (long long)st.st_size);
    return -1;
  }
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0)
    fail(err, len, "%s: HDF5 file cannot be opened (truncated or corrupt? %lld bytes)", path,
         (long long)st.st_size);
  return f;
}

int vh5_exists(hid_t obj, const char *name) {
  /* H5Lexists fails (rather than answering 0) when an intermediate group is missing: walk it. */
  char buf[256];
  snprintf(buf, sizeof buf, "%s", name);
  for (char *p = buf;; ++p) {
    if (*p == '/' || *p == 0) {
      char c = *p;
      *p = 0;
      htri_t e = H5Lexists(obj, buf, H5P_DEFAULT);
      if (e <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
      }
      if (!c) return 1;
      *p = c;
    }
  }
}

int vh5_attr_exists(hid_t obj, const char *name) {
  htri_t e = H5Aexists(obj, name);
  if (e < 0) H5Eclear2(H5E_DEFAULT);
  return e > 0;
}

/* Opens attribute `name` and checks it is a scalar (or 1-element) of class `cls`. */
static hid_t open_attr(hid_t obj, const char *name, H5T_class_t cls, const char *what, char *err,
                       size_t len) {
  if (!vh5_attr_exists(obj, name)) {
    fail(err, len, "attribute '%s' is missing", name);
    return -1;
  }
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) {
    fail(err, len, "attribute '%s' cannot be opened", name);
    return -1;
  }
  hid_t t = H5Aget_type(a);
  H5T_class_t c = H5Tget_class(t);
  H5Tclose(t);
  hid_t s = H5Aget_space(a);
  hssize_t npts = H5Sget_simple_extent_npoints(s);
  H5Sclose(s);
  if (c != cls || npts != 1) {
    H5Aclose(a);
    fail(err, len, "attribute '%s' must be a single %s", name, what);
    return -1;
  }
  return a;
}

int vh5_attr_string(hid_t obj, const char *name, char *out, size_t out_len, char *err, size_t len) {
  hid_t a = open_attr(obj, name, H5T_STRING, "string", err, len);
  if (a < 0) return -1;
  hid_t ft = H5Aget_type(a);
  int rc = 0;
  if (H5Tis_variable_str(ft) > 0) {
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, H5T_VARIABLE);
    H5Tset_cset(mt, H5Tget_cset(ft));
    char *v = NULL;
    if (H5Aread(a, mt, &v) < 0 || !v) {
      rc = fail(err, len, "attribute '%s' cannot be read", name);
    } else {
      snprintf(out, out_len, "%s", v);
      hid_t s = H5Aget_space(a);
      H5Dvlen_reclaim(mt, s, H5P_DEFAULT, &v);
      H5Sclose(s);
    }
    H5Tclose(mt);
  } else {
    size_t sz = H5Tget_size(ft);
    char *v = calloc(1, sz + 1);
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, sz + 1);
    if (!v || H5Aread(a, mt, v) < 0) rc = fail(err, len, "attribute '%s' cannot be read", name);
    else snprintf(out, out_len, "%s", v);
    free(v);
    H5Tclose(mt);
  }
  H5Tclose(ft);
  H5Aclose(a);
  return rc;
}

int vh5_attr_int(hid_t obj, const char *name, int64_t *v, char *err, size_t len) {
  hid_t a = open_attr(obj, name, H5T_INTEGER, "integer", err, len);
  if (a < 0) return -1;
  int rc = H5Aread(a, H5T_NATIVE_INT64, v) < 0 ? fail(err, len, "attribute '%s' unreadable", name)
                                                 : 0;
  H5Aclose(a);
  return rc;
}

int vh5_attr_double(hid_t obj, const char *name, double *v, char *err, size_t len) {
  hid_t a = open_attr(obj, name, H5T_FLOAT, "float", err, len);
  if (a < 0) return -1;
  int rc = H5Aread(a, H5T_NATIVE_DOUBLE, v) < 0 ? fail(err, len, "attribute '%s' unreadable", name)
                                                  : 0;
  H5Aclose(a);
  return rc;
}

int vh5_attr_int_array(hid_t obj, const char *name, int64_t *v, int max, int *count, char *err,
                       size_t len) {
  if (!vh5_attr_exists(obj, name)) return fail(err, len, "attribute '%s' is missing", name);
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  hid_t t = H5Aget_type(a), s = H5Aget_space(a);
  hssize_t npts = H5Sget_simple_extent_npoints(s);
  int rc = 0;
  if (H5Tget_class(t) != H5T_INTEGER || npts < 0 || npts > max) {
    rc = fail(err, len, "attribute '%s' must be an integer array of at most %d elements", name, max);
  } else if (npts > 0 && H5Aread(a, H5T_NATIVE_INT64, v) < 0) {
    rc = fail(err, len, "attribute '%s' unreadable", name);
  } else {
    *count = (int)npts;
  }
  H5Sclose(s);
  H5Tclose(t);
  H5Aclose(a);
  return rc;
}

int vh5_dset_info_get(hid_t obj, const char *name, vh5_dset_info *info, char *err, size_t len) {
  memset(info, 0, sizeof *info);
  hid_t d = H5Dopen2(obj, name, H5P_DEFAULT);
  if (d < 0) return fail(err, len, "dataset '%s' cannot be opened", name);
  hid_t s = H5Dget_space(d), t = H5Dget_type(d);
  int nd = H5Sget_simple_extent_ndims(s);
  int rc = 0;
  if (nd < 1 || nd > 2) {
    rc = fail(err, len, "dataset '%s' has %d dimensions (1 or 2 expected)", name, nd);
  } else {
    hsize_t dims[2] = {0, 0};
    H5Sget_simple_extent_dims(s, dims, NULL);
    info->ndims = nd;
    info->dims[0] = (int64_t)dims[0];
    info->dims[1] = nd == 2 ? (int64_t)dims[1] : 0;
    info->cls = H5Tget_class(t);
    info->size = H5Tget_size(t);
    info->is_signed = info->cls == H5T_INTEGER && H5Tget_sign(t) == H5T_SGN_2;
  }
  H5Tclose(t);
  H5Sclose(s);
  H5Dclose(d);
  return rc;
}

int vh5_read_rows(hid_t obj, const char *name, hid_t memtype, int64_t row0, int64_t nrows,
                  int64_t n, void *buf, char *err, size_t len) {
  hid_t d = H5Dopen2(obj, name, H5P_DEFAULT);
  if (d < 0) return fail(err, len, "dataset '%s' cannot be opened", name);
  hid_t fs = H5Dget_space(d);
  int nd = H5Sget_simple_extent_ndims(fs);
  hsize_t start[2] = {(hsize_t)row0, 0}, count[2] = {(hsize_t)nrows, (hsize_t)n};
  int rc = 0;
  if (nd == 2) {
    hid_t ms = H5Screate_simple(2, count, NULL);
    if (H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
        H5Dread(d, memtype, ms, fs, H5P_DEFAULT, buf) < 0)
      rc = fail(err, len, "dataset '%s': rows %lld..%lld cannot be read (truncated file?)", name,
                (long long)row0, (long long)(row0 + nrows - 1));
    H5Sclose(ms);
  } else {
    if (H5Dread(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
      rc = fail(err, len, "dataset '%s' cannot be read (truncated file?)", name);
  }
  H5Sclose(fs);
  H5Dclose(d);
  return rc;
}

typedef struct {
  char **names;
  int count, cap;
} name_list;

static herr_t collect(hid_t g, const char *name, const H5L_info_t *info, void *data) {
  (void)g;
  (void)info;
  name_list *l = data;
  if (l->count == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    char **nn = realloc(l->names, sizeof(char *) * (size_t)l->cap);
    if (!nn) return -1;
    l->names = nn;
  }
  l->names[l->count] = strdup(name);
  if (!l->names[l->count]) return -1;
  l->count++;
  return 0;
}

int vh5_list(hid_t group, char ***names, int *count, char *err, size_t len) {
  name_list l = {0};
  hsize_t idx = 0;
  /* H5_INDEX_NAME increasing = byte order of names, the record order of FORMAT.md. */
  if (H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, &idx, collect, &l) < 0) {
    for (int i = 0; i < l.count; ++i) free(l.names[i]);
    free(l.names);
    return fail(err, len, "cannot list group members");
  }
  *names = l.names;
  *count = l.count;
  return 0;
}

/* ---- writer ---------------------------------------------------------------------------------- */
hid_t vh5_create(const char *path, char *err, size_t len) {
  /* Default (earliest) file format: readable by the HDF5 1.10 libraries of the GPU machines. */
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) fail(err, len, "%s: cannot create", path);
  return f;
}

hid_t vh5_create_group(hid_t parent, const char *name, char *err, size_t len) {
  hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
  H5Pset_obj_track_times(gcpl, 0);
  hid_t g = H5Gcreate2(parent, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
  H5Pclose(gcpl);
  if (g < 0) fail(err, len, "cannot create group '%s'", name);
  return g;
}

static int write_attr(hid_t obj, const char *name, hid_t ftype, hid_t mtype, hid_t space,
                      const void *buf) {
  if (vh5_attr_exists(obj, name)) H5Adelete(obj, name);
  hid_t a = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0) return -1;
  herr_t rc = H5Awrite(a, mtype, buf);
  H5Aclose(a);
  return rc < 0 ? -1 : 0;
}

int vh5_write_attr_string(hid_t obj, const char *name, const char *v) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  hid_t s = H5Screate(H5S_SCALAR);
  int rc = write_attr(obj, name, t, t, s, &v);
  H5Sclose(s);
  H5Tclose(t);
  return rc;
}

int vh5_write_attr_int(hid_t obj, const char *name, int64_t v) {
  hid_t s = H5Screate(H5S_SCALAR);
  int rc = write_attr(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, s, &v);
  H5Sclose(s);
  return rc;
}

int vh5_write_attr_double(hid_t obj, const char *name, double v) {
  hid_t s = H5Screate(H5S_SCALAR);
  int rc = write_attr(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s, &v);
  H5Sclose(s);
  return rc;
}

int vh5_write_attr_int_array(hid_t obj, const char *name, const int64_t *v, int count) {
  hsize_t d = (hsize_t)count;
  hid_t s = H5Screate_simple(1, &d, NULL);
  int rc = write_attr(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, s, v);
  H5Sclose(s);
  return rc;
}

int vh5_write_dataset(hid_t obj, const char *name, int ndims, const int64_t *dims, hid_t filetype,
                      hid_t memtype, const void *buf, char *err, size_t len) {
  hsize_t d[2] = {(hsize_t)dims[0], ndims == 2 ? (hsize_t)dims[1] : 1};
  hid_t s = H5Screate_simple(ndims, d, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_obj_track_times(dcpl, 0);
  size_t esz = H5Tget_size(filetype);
  if (ndims == 2 && d[0] * d[1] * esz > CHUNK_BYTES) {
    hsize_t rows = CHUNK_BYTES / (d[1] * esz);
    if (rows < 1) rows = 1;
    if (rows > d[0]) rows = d[0];
    hsize_t chunk[2] = {rows, d[1]};
    H5Pset_chunk(dcpl, 2, chunk);
  }
  hid_t ds = H5Dcreate2(obj, name, filetype, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  int rc = 0;
  if (ds < 0 || H5Dwrite(ds, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
    rc = fail(err, len, "cannot write dataset '%s'", name);
  if (ds >= 0) H5Dclose(ds);
  H5Pclose(dcpl);
  H5Sclose(s);
  return rc;
}
