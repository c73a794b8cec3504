/* h5io.c — see h5io.h. */
#define _POSIX_C_SOURCE 200809L
#include "verify/h5io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#define CHUNK_BYTES (1u << 20)

void vh5_init(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

/* HDF5's own error stack, innermost (root cause) first, distinct messages joined by "; ". */
typedef struct {
  char *out;
  size_t len, used;
} stack_text;

static herr_t walk_collect(unsigned n, const H5E_error2_t *e, void *data) {
  (void)n;
  stack_text *t = data;
  if (!e->desc || !e->desc[0] || strstr(t->out, e->desc) || t->used + 3 >= t->len) return 0;
  int k = snprintf(t->out + t->used, t->len - t->used, "%s%s", t->used ? "; " : "", e->desc);
  if (k > 0) t->used += (size_t)k < t->len - t->used ? (size_t)k : t->len - t->used - 1;
  return 0;
}

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...) {
  char detail[400] = "";
  stack_text t = {detail, sizeof detail, 0};
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_collect, &t);
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
  /* Only regular files: a FIFO, device or socket would block HDF5's reads forever or stream
   * garbage. The check is made on an open descriptor, and HDF5 opens that same inode through
   * /proc/self/fd, so the path cannot be swapped for a FIFO in between. O_NONBLOCK: opening a FIFO
   * for reading does not wait for a writer. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    fail(err, len, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    fail(err, len, "%s: cannot stat: %s", path, strerror(errno));
    close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    fail(err, len, "%s: %s, not a regular file: refused (only regular HDF5 capture files are read)",
         path, S_ISDIR(st.st_mode) ? "is a directory" : S_ISFIFO(st.st_mode) ? "is a FIFO"
               : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "is a device"
               : S_ISSOCK(st.st_mode) ? "is a socket" : "is a special file");
    close(fd);
    return -1;
  }
  char via[64];
  snprintf(via, sizeof via, "/proc/self/fd/%d", fd);
  struct stat vs;
  const char *open_path = stat(via, &vs) == 0 && vs.st_dev == st.st_dev && vs.st_ino == st.st_ino
                              ? via : path;
  hid_t f = -1;
  htri_t is = H5Fis_hdf5(open_path);
  if (is <= 0) {
    H5Eclear2(H5E_DEFAULT);
    fail(err, len, "%s: not an HDF5 file (%lld bytes; no HDF5 signature)", path,
         (long long)st.st_size);
  } else {
    f = H5Fopen(open_path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
      fail(err, len, "%s: HDF5 cannot open this file (%lld bytes)", path, (long long)st.st_size);
      /* The common cause of a lock failure, said in words: HDF5's own text follows. */
      if (err && strstr(err, "lock")) {
        size_t k = strlen(path) + 2;
        char rest[1024];
        snprintf(rest, sizeof rest, "%s", err + (k < strlen(err) ? k : strlen(err)));
        snprintf(err, len, "%s: locked by another process (a writer still has it open: is the "
                 "capture finished?); %s", path, rest);
      }
    }
  }
  close(fd);
  return f;
}

static const char *link_kind(H5L_type_t t) {
  return t == H5L_TYPE_SOFT ? "a soft link" : t == H5L_TYPE_EXTERNAL ? "an external link (data in another file)"
                                            : "a user-defined link";
}

int vh5_link(hid_t obj, const char *name, char *err, size_t len) {
  /* Component by component: H5Lexists fails (rather than answering 0) when an intermediate group
   * is missing, and each component must be a hard link before the next one is looked up (HDF5
   * would follow a soft or external link to reach it). */
  size_t l = strlen(name);
  char *buf = malloc(l + 1);
  if (!buf) return fail(err, len, "out of memory");
  memcpy(buf, name, l + 1);
  int rc = 1;
  for (char *p = buf;; ++p) {
    if (*p == '/' || *p == 0) {
      char c = *p;
      *p = 0;
      htri_t e = H5Lexists(obj, buf, H5P_DEFAULT);
      if (e <= 0) {
        H5Eclear2(H5E_DEFAULT);
        rc = 0;
        break;
      }
      H5L_info_t info;
      if (H5Lget_info(obj, buf, &info, H5P_DEFAULT) < 0) {
        rc = fail(err, len, "'%s': link cannot be read", buf);
        break;
      }
      if (info.type != H5L_TYPE_HARD) {
        rc = fail(err, len, "'%s' is %s: refused (a capture file holds its own data)", buf,
                  link_kind(info.type));
        break;
      }
      if (!c) break;
      *p = c;
    }
  }
  free(buf);
  return rc;
}

int vh5_exists(hid_t obj, const char *name) {
  char e[8];
  return vh5_link(obj, name, e, sizeof e) == 1;
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

/* The longest fixed-length string attribute read: every string of the format is a short name or
 * a line of text, so a larger size is a corrupt datatype, refused before a buffer of that size is
 * allocated and filled. */
#define VH5_ATTR_STRING_MAX (1u << 20)

/* Copies at most out_len - 1 bytes of v: a variable-length string from a corrupt heap can be long
 * and need not end where its allocation does, so nothing scans past what is copied. */
static void copy_bounded(char *out, size_t out_len, const char *v) {
  const size_t n = strnlen(v, out_len - 1);
  memcpy(out, v, n);
  out[n] = '\0';
}

int vh5_attr_string(hid_t obj, const char *name, char *out, size_t out_len, char *err, size_t len) {
  if (out_len == 0) return fail(err, len, "attribute '%s': no room for its value", name);
  out[0] = '\0';
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
      copy_bounded(out, out_len, v);
      hid_t s = H5Aget_space(a);
      H5Dvlen_reclaim(mt, s, H5P_DEFAULT, &v);
      H5Sclose(s);
    }
    H5Tclose(mt);
  } else {
    const size_t sz = H5Tget_size(ft);
    if (sz == 0 || sz > VH5_ATTR_STRING_MAX) {
      rc = fail(err, len, "attribute '%s' is a string of %zu bytes (corrupt datatype?)", name, sz);
    } else {
      char *v = calloc(1, sz + 1);
      hid_t mt = H5Tcopy(H5T_C_S1);
      H5Tset_size(mt, sz + 1);
      if (!v || H5Aread(a, mt, v) < 0) rc = fail(err, len, "attribute '%s' cannot be read", name);
      else copy_bounded(out, out_len, v); /* v ends in a NUL */
      free(v);
      H5Tclose(mt);
    }
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
  hid_t s = H5Dget_space(d), t = H5Dget_type(d), dcpl = H5Dget_create_plist(d);
  int nd = H5Sget_simple_extent_ndims(s);
  int rc = 0;
  /* Data must live in this file and be fully written: HDF5 reads a virtual dataset whose source is
   * missing, external raw storage shorter than declared, and storage never allocated (unwritten
   * chunks included) as fill values, i.e. zeros that would be replayed as if captured. */
  H5D_layout_t layout = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
  int external = dcpl >= 0 ? H5Pget_external_count(dcpl) : -1;
  H5D_space_status_t status = H5D_SPACE_STATUS_ERROR;
  if (layout == H5D_CHUNKED) {
    /* Chunk by chunk: H5Dget_space_status compares byte counts, which filters (checksums,
     * compression) change, so it calls a fully written filtered dataset "partly allocated". */
    int cr = H5Sget_simple_extent_ndims(s);
    hsize_t dims[H5S_MAX_RANK], cd[H5S_MAX_RANK], nchunks = 0, want = 1;
    if (cr >= 1 && cr <= H5S_MAX_RANK && H5Sget_simple_extent_dims(s, dims, NULL) == cr &&
        H5Pget_chunk(dcpl, cr, cd) == cr && H5Dget_num_chunks(d, s, &nchunks) >= 0) {
      for (int i = 0; i < cr; ++i) {
        hsize_t per = cd[i] ? dims[i] / cd[i] + (dims[i] % cd[i] != 0) : 0;
        want = per && want > (hsize_t)-1 / per ? (hsize_t)-1 : want * per;  /* saturating */
      }
      status = nchunks >= want ? H5D_SPACE_STATUS_ALLOCATED
               : nchunks ? H5D_SPACE_STATUS_PART_ALLOCATED : H5D_SPACE_STATUS_NOT_ALLOCATED;
    }
  } else if (layout != H5D_VIRTUAL && layout != H5D_LAYOUT_ERROR && external == 0 &&
             H5Dget_space_status(d, &status) < 0) {
    status = H5D_SPACE_STATUS_ERROR;
  }
  if (dcpl < 0 || layout == H5D_LAYOUT_ERROR || external < 0) {
    rc = fail(err, len, "dataset '%s': storage layout cannot be read", name);
  } else if (layout == H5D_VIRTUAL) {
    rc = fail(err, len, "dataset '%s' is a virtual dataset (data mapped from other files): refused; "
              "a capture file holds its own data", name);
  } else if (external > 0) {
    rc = fail(err, len, "dataset '%s' has external raw storage (%d file(s)): refused; a capture "
              "file holds its own data", name, external);
  } else if (status != H5D_SPACE_STATUS_ALLOCATED) {
    rc = fail(err, len, "dataset '%s': storage %s: refused (HDF5 would read fill values, not "
              "captured data)", name,
              status == H5D_SPACE_STATUS_NOT_ALLOCATED ? "was never written"
              : status == H5D_SPACE_STATUS_PART_ALLOCATED ? "is only partly written (missing chunks)"
              : "status cannot be read");
  } else if (nd < 1 || nd > 2) {
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
  if (dcpl >= 0) H5Pclose(dcpl);
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
      rc = fail(err, len, "dataset '%s': rows %lld..%lld cannot be read", name,
                (long long)row0, (long long)(row0 + nrows - 1));
    H5Sclose(ms);
  } else {
    if (H5Dread(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
      rc = fail(err, len, "dataset '%s' cannot be read", name);
  }
  H5Sclose(fs);
  H5Dclose(d);
  return rc;
}

typedef struct {
  char **names;
  int count, cap;
  char *bad;  /* first member that is not a hard link */
  H5L_type_t bad_type;
} name_list;

static herr_t collect(hid_t g, const char *name, const H5L_info_t *info, void *data) {
  (void)g;
  name_list *l = data;
  if (info->type != H5L_TYPE_HARD) {
    l->bad = strdup(name);
    l->bad_type = info->type;
    return 1;  /* stop: refused */
  }
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
  herr_t it = H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, &idx, collect, &l);
  if (it != 0) {
    for (int i = 0; i < l.count; ++i) free(l.names[i]);
    free(l.names);
    int rc = it > 0 && l.bad
                 ? fail(err, len, "member '%s' is %s: refused (a capture file holds its own data)",
                        l.bad, link_kind(l.bad_type))
                 : fail(err, len, "cannot list group members");
    free(l.bad);
    return rc;
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
