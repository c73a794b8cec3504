/* mpi_split.c — rank bookkeeping, agreement on failures, byte gathers (mpi_split.h). */
#define _POSIX_C_SOURCE 200809L
#include "verify/mpi_split.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fn_mpi_init(int *argc, char ***argv, fn_mpi *m) {
  if (MPI_Init(argc, argv) != MPI_SUCCESS) return -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m->size);
  /* The local rank picks the GPU; from MPI itself, so it works under any launcher. */
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m->rank, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &m->local_rank);
  MPI_Comm_size(local, &m->local_size);
  MPI_Comm_free(&local);
  return 0;
}

int fn_mpi_agree(const fn_mpi *m, int local_failed, char *msg) {
  int mine = local_failed ? m->rank : m->size, first = m->size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == m->size) return -1;
  msg[FN_MSG_LEN - 1] = 0;
  MPI_Bcast(msg, FN_MSG_LEN, MPI_CHAR, first, MPI_COMM_WORLD);
  return first;
}

int fn_mpi_gather_bytes(const fn_mpi *m, const void *mine, int bytes, void **all, int *total) {
  int *counts = NULL, *displs = NULL;
  *all = NULL;
  *total = 0;
  if (m->rank == 0) {
    counts = calloc((size_t)m->size, sizeof(int));
    displs = calloc((size_t)m->size, sizeof(int));
  }
  int rc = MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc == MPI_SUCCESS && m->rank == 0) {
    for (int i = 0; i < m->size; ++i) {
      displs[i] = *total;
      *total += counts[i];
    }
    *all = malloc(*total ? (size_t)*total : 1);
  }
  if (rc == MPI_SUCCESS)
    rc = MPI_Gatherv(mine, bytes, MPI_BYTE, *all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
  free(counts);
  free(displs);
  return rc;
}

void fn_mpi_eprintf(const fn_mpi *m, const char *fmt, ...) {
  char line[2048];
  int k = snprintf(line, sizeof line, "replay[rank %d/%d]: ", m->rank, m->size);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + k, sizeof line - (size_t)k, fmt, ap);
  va_end(ap);
  /* One write per line so ranks' lines do not interleave mid-line. */
  fprintf(stderr, "%s\n", line);
  fflush(stderr);
}
