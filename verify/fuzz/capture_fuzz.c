/*
 * capture_fuzz — libFuzzer target for the capture reader (verify/h5io.c + verify/record.c): each
 * input is an HDF5 file image, opened in memory (core driver, no backing file), validated like
 * replay does (root, every record, every dataset), and every present dataset's first rows read.
 * Built with ASan + UBSan by verify/fuzz/run_fuzz.sh. Besides the sanitizers it checks that the
 * reader closes every HDF5 handle it opens, on success and on every refusal.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify/h5io.h"
#include "verify/record.h"

#define READ_CAP (1u << 20) /* bytes read per dataset: the first rows, enough to run the path */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int init;
  if (!init) {
    vh5_init();
    init = 1;
  }
  if (size < 8) return 0;
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_core(fapl, 1 << 16, 0);
  H5Pset_file_image(fapl, (void *)data, size);
  hid_t h = H5Fopen("fuzz-image.h5", H5F_ACC_RDONLY, fapl);
  H5Pclose(fapl);
  if (h < 0) {
    H5Eclear2(H5E_DEFAULT);
    return 0;
  }
  fn_capture_file f;
  fn_record *recs = NULL;
  int n = 0;
  char err[1024];
  if (fn_capture_attach(&f, h, "fuzz-image.h5", err, sizeof err) == 0) {
    if (fn_capture_load_records(&f, 0, &recs, &n, err, sizeof err) == 0) {
      for (int i = 0; i < n; ++i) {
        const fn_record *r = &recs[i];
        fusednorm_problem p = fn_record_problem(r);
        (void)p;
        for (int d = 0; d < FN_D_COUNT; ++d) {
          if (!r->d[d].present) continue;
          size_t row_bytes = (size_t)r->n * fn_record_esize(r, (fn_dset_id)d);
          if (row_bytes == 0 || row_bytes > READ_CAP) continue;
          int64_t rows = d >= FN_D_FIRST_1D ? 1 : r->rows;
          if ((size_t)rows > READ_CAP / row_bytes) rows = (int64_t)(READ_CAP / row_bytes);
          void *buf = malloc(row_bytes * (size_t)rows);
          if (buf) fn_record_read(&f, r, (fn_dset_id)d, 0, rows, buf, err, sizeof err);
          free(buf);
        }
      }
    }
    fn_capture_close(&f);
  }
  free(recs);
  /* Every handle the reader opened must be closed again (a leak keeps the file, and its memory,
   * alive in a long-running process). */
  ssize_t left = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  if (left != 0) {
    fprintf(stderr, "capture_fuzz: %zd HDF5 object(s) left open after one input\n", left);
    abort();
  }
  return 0;
}
