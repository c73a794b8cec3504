/*
 * capture_fuzz — the fuzzed body for the capture reader (verify/h5io.c + verify/record.c): each
 * input is an HDF5 file image, opened in memory (core driver, no backing file), validated like
 * replay does (root, every record, every dataset), and every present dataset's first rows read.
 * Besides the sanitizers it checks that the reader closes every HDF5 handle it opens, on success
 * and on every refusal.
 *
 * Compiled with the reader into libcapture_reader{,_asan}.so (run_fuzz.sh): the fuzz binary's
 * guard (fuzz_guard.c) runs each input in a forked child and tells a fault in this library (ours)
 * from one in libhdf5 by the shared object of the innermost frame, so the reader must be a shared
 * object of its own. The library's coverage counters are copied back from the child
 * (reader_counters.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify/h5io.h"
#include "verify/record.h"

/* capture_fuzz_one's result when HDF5 itself is left unable to close the file (see below). */
#define CAPTURE_FUZZ_HDF5_STUCK 1

#define READ_CAP (1u << 20) /* bytes read per dataset: the first rows, enough to run the path */

/* Once in the fuzzer's process, before any child: HDF5's library state is then inherited. */
void capture_fuzz_init(void) { vh5_init(); }

int capture_fuzz_one(const uint8_t *data, size_t size) {
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
   * alive in a long-running process). One exception is HDF5's: after some failed calls on a
   * corrupt file (a bad external-file-list message; a heap it corrupted itself) HDF5 1.10 refuses
   * to close the file or a group (the close fails, and a second close or the library's exit
   * handler may crash inside it). Each leftover handle is closed again here. Files alone are
   * HDF5's (below); of other objects, if every one closes, the reader forgot them (ours: abort);
   * if HDF5 refuses them all, that is its state
   * (CAPTURE_FUZZ_HDF5_STUCK, the input then checked with the replay); a crash is judged by the
   * guard as a crash inside libhdf5. */
  ssize_t left = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  if (left == 0) return 0;
  const ssize_t files = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE);
  fprintf(stderr,
          "capture_fuzz: %zd HDF5 object(s) left open after one input (files %zd, datasets %zd, "
          "groups %zd, datatypes %zd, attributes %zd)\n",
          left, files, H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_DATASET),
          H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_GROUP), H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_DATATYPE),
          H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ATTR));
  if (left <= 64) {
    /* Objects first (a group, say, whose H5Gclose the reader called and HDF5 refused after
     * corrupting its own heap on this file), then files. */
    hid_t ids[64];
    const ssize_t ko = H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_ALL & ~H5F_OBJ_FILE, 64, ids);
    int refused = 0, closed = 0;
    for (ssize_t i = 0; i < ko; ++i) H5Oclose(ids[i]) < 0 ? ++refused : ++closed;
    const ssize_t kf = H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_FILE, 64, ids);
    for (ssize_t i = 0; i < kf; ++i) H5Fclose(ids[i]) < 0 ? ++refused : ++closed;
    /* Only files left: the reader closed every file id it opened (fn_capture_close above); what
     * stays is a file HDF5 keeps open itself (its weak close degree holds a file while an
     * internal object of a failed read still refers to it, or an external file it opened). */
    if (files == left) {
      fprintf(stderr, "capture_fuzz: HDF5 kept %zd file(s) open after the reader closed its own (HDF5's state)\n",
              files);
      return CAPTURE_FUZZ_HDF5_STUCK;
    }
    if (refused && !closed) {
      fprintf(stderr, "capture_fuzz: HDF5 refuses to close what it failed to read (HDF5's state)\n");
      return CAPTURE_FUZZ_HDF5_STUCK;
    }
  }
  abort(); /* a handle that closes when asked was left open by the reader: ours */
}
