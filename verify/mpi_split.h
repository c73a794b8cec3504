/*
 * mpi_split.h — how the replay's work is spread over MPI ranks, and how ranks agree.
 *
 * Units (row chunks of records, score.h) are numbered globally in file/record/unit order and unit
 * g belongs to rank g % size: deterministic, balanced, and independent of timing. Every failure
 * (bad input on one rank, a device that cannot be opened) goes through fn_mpi_agree at fixed
 * points that all ranks reach, so a failing rank ends all ranks with its reason and nothing hangs.
 */
#ifndef FUSEDNORM_VERIFY_MPI_SPLIT_H_
#define FUSEDNORM_VERIFY_MPI_SPLIT_H_

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  int rank, size;
  int local_rank, local_size;  /* within the node (MPI_COMM_TYPE_SHARED): picks the GPU */
} fn_mpi;

int fn_mpi_init(int *argc, char ***argv, fn_mpi *m);

static inline int fn_unit_owner(int64_t global_unit, int size) {
  return (int)(global_unit % size);
}

#define FN_MSG_LEN 1024

/* Collective. `msg` (FN_MSG_LEN bytes on every rank) holds the local message when local_failed.
 * Returns -1 if no rank failed; else the lowest failing rank, whose message is now in every
 * rank's msg. */
int fn_mpi_agree(const fn_mpi *m, int local_failed, char *msg);

/* Collective: concatenates every rank's `bytes` bytes on rank 0 (rank order). *all is malloc'ed
 * on rank 0 (NULL elsewhere); *total its size. Returns MPI_SUCCESS or an MPI error. */
int fn_mpi_gather_bytes(const fn_mpi *m, const void *mine, int bytes, void **all, int *total);

/* printf to stderr with the "replay[rank r/size]: " prefix. */
void fn_mpi_eprintf(const fn_mpi *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
