/*
 * h5copy — reads a capture file with the replay's C reader (record.c, every check included) and
 * writes it again with the C writer. The format round-trip test compares input and output with
 * h5py, bitwise, in both directions (h5py-written -> C -> h5py, and C-written -> h5py -> C).
 *
 *   h5copy IN.h5 OUT.h5        exit 0, or 2 with the reader's message
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "verify/h5io.h"
#include "verify/record.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: h5copy IN.h5 OUT.h5\n");
    return 2;
  }
  vh5_init();
  char err[1024];
  fn_capture_file in;
  fn_record *recs = NULL;
  int n = 0;
  if (fn_capture_open(&in, argv[1], err, sizeof err) < 0 ||
      fn_capture_load_records(&in, 0, &recs, &n, err, sizeof err) < 0) {
    fprintf(stderr, "h5copy: %s\n", err);
    return 2;
  }
  hid_t out = fn_capture_create(argv[2], in.producer, in.framework, in.description, err, sizeof err);
  if (out < 0) {
    fprintf(stderr, "h5copy: %s\n", err);
    return 2;
  }
  for (int i = 0; i < n; ++i) {
    fn_record *r = &recs[i];
    void *data[FN_D_COUNT] = {0};
    int rc = 0;
    for (int d = 0; d < FN_D_COUNT && rc == 0; ++d) {
      if (!r->d[d].present) continue;
      size_t count = d < FN_D_FIRST_1D ? (size_t)r->rows * (size_t)r->n : (size_t)r->n;
      data[d] = malloc(count * fn_record_esize(r, (fn_dset_id)d));
      rc = !data[d] || fn_record_read(&in, r, (fn_dset_id)d, 0, r->rows, data[d], err, sizeof err) < 0;
    }
    if (rc == 0) rc = fn_record_write(out, r, data, err, sizeof err) < 0;
    for (int d = 0; d < FN_D_COUNT; ++d) free(data[d]);
    if (rc) {
      fprintf(stderr, "h5copy: %s\n", err);
      return 2;
    }
  }
  if (fn_capture_finish(out, n) < 0) {
    fprintf(stderr, "h5copy: cannot finish %s\n", argv[2]);
    return 2;
  }
  fn_capture_close(&in);
  free(recs);
  return 0;
}
