/*
 * h5io.h — the few HDF5 operations the capture format needs (read-only opens, typed attributes,
 * row hyperslabs, and a writer producing what h5py produces), each returning 0 on success or -1
 * with a readable message in `err` (HDF5's own error stack is silenced and its innermost message
 * appended instead: the user sees one line, not forty).
 *
 * Serial HDF5 only: every rank opens the files read-only and reads its own rows, so no parallel
 * HDF5 build is needed.
 */
#ifndef FUSEDNORM_VERIFY_H5IO_H_
#define FUSEDNORM_VERIFY_H5IO_H_

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

/* Turns off HDF5's automatic error printing (call once, before any other vh5_ function). */
void vh5_init(void);

/* Open an existing regular file read-only (FIFOs, devices, sockets refused). The message names the
 * cause: errno (missing, permission denied), "not HDF5", or HDF5's own error stack (truncated,
 * locked by a writer, ...). */
hid_t vh5_open_ro(const char *path, char *err, size_t len);

/* 1 if `name` exists under obj as a chain of hard links, 0 if absent (a missing intermediate group
 * counts as absent), -1 with a message if a component is a soft, external or user-defined link
 * (refused: a capture file holds its own data, and a link could lead to a FIFO or another file).
 * `name` may be a path ("job/y"). */
int vh5_link(hid_t obj, const char *name, char *err, size_t len);
/* vh5_link == 1, without a message. */
int vh5_exists(hid_t obj, const char *name);
int vh5_attr_exists(hid_t obj, const char *name);

/* Typed scalar attribute reads: -1 with a message if missing or of the wrong class. */
int vh5_attr_string(hid_t obj, const char *name, char *out, size_t out_len, char *err, size_t len);
int vh5_attr_int(hid_t obj, const char *name, int64_t *v, char *err, size_t len);
int vh5_attr_double(hid_t obj, const char *name, double *v, char *err, size_t len);
/* 1-D integer array attribute; *count = its length (at most max). */
int vh5_attr_int_array(hid_t obj, const char *name, int64_t *v, int max, int *count, char *err,
                       size_t len);

typedef struct {
  int ndims;
  int64_t dims[2];
  H5T_class_t cls;  /* H5T_FLOAT / H5T_INTEGER / ... */
  size_t size;      /* bytes per element */
  int is_signed;    /* integers only */
} vh5_dset_info;

/* Shape and type of a dataset; -1 with the reason for a virtual dataset, external raw storage or
 * storage not fully written (HDF5 would read fill values for the missing data). */
int vh5_dset_info_get(hid_t obj, const char *name, vh5_dset_info *info, char *err, size_t len);

/* Reads rows [row0, row0+nrows) of a 2-D dataset (or all of a 1-D one when row0 = 0 and
 * nrows = its length, n ignored) with a hyperslab, converting to `memtype` (no conversion happens
 * for the format's own storage types). */
int vh5_read_rows(hid_t obj, const char *name, hid_t memtype, int64_t row0, int64_t nrows,
                  int64_t n, void *buf, char *err, size_t len);

/* Child names of a group in increasing byte order; -1 if a member is not a hard link. Caller
 * frees names[i] and names. */
int vh5_list(hid_t group, char ***names, int *count, char *err, size_t len);

/* ---- writer (h5py-compatible: vlen UTF-8 strings, int64, float64, no timestamps) ---- */
hid_t vh5_create(const char *path, char *err, size_t len);
hid_t vh5_create_group(hid_t parent, const char *name, char *err, size_t len);
int vh5_write_attr_string(hid_t obj, const char *name, const char *v);
int vh5_write_attr_int(hid_t obj, const char *name, int64_t v);
int vh5_write_attr_double(hid_t obj, const char *name, double v);
int vh5_write_attr_int_array(hid_t obj, const char *name, const int64_t *v, int count);
/* ndims 1 or 2; filetype/memtype e.g. H5T_IEEE_F32LE/H5T_NATIVE_FLOAT; chunked by whole rows above
 * 1 MiB (FORMAT.md). */
int vh5_write_dataset(hid_t obj, const char *name, int ndims, const int64_t *dims, hid_t filetype,
                      hid_t memtype, const void *buf, char *err, size_t len);

#endif
