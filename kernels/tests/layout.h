/*
 * layout.h — the N-d row layout check (fusednorm_problem.row_dims), shared by the CPU test
 * (test_layout.c) and the CUDA test (test_cuda.c).
 *
 * Each case draws a problem and random N-d layouts (2..4 leading dims; transposed storage orders,
 * gaps between rows and between dims, size-1 dims with arbitrary strides, one element of
 * misalignment at times), one per tensor, and runs forward and backward twice on the backend:
 * once with every tensor contiguous (row_dims 1) and once with the N-d layouts. Results must be
 * bitwise identical where the same kernels run (the layouts keep the contiguous run's 16-byte
 * alignment; a backend with one algorithm always); where the two runs' fusednorm_layouts or plans
 * differ, or rows are head-split (congruent, not aligned: the head, and so the order of a row's sum,
 * follows each row's address), a different summation order is legal and the outputs must agree
 * within a few ulp instead (an addressing error is far beyond that). Every output element of a
 * row must be written, and every storage element outside the rows (gaps) left as it was. The contiguous run itself is judged by the check engine's matrix; this test shows
 * that the addressing changes nothing else.
 */
#ifndef FUSEDNORM_TESTS_LAYOUT_H_
#define FUSEDNORM_TESTS_LAYOUT_H_

#include <stddef.h>
#include <stdint.h>

#include "kernels/include/fusednorm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A backend as raw entry points on its own memory (host or device). */
typedef struct {
  const char *name;
  void *(*alloc)(size_t bytes);                          /* NULL on failure */
  void (*release)(void *ptr);
  int (*upload)(void *dst, const void *src, size_t bytes);   /* 0 on success */
  int (*download)(void *dst, const void *src, size_t bytes); /* 0 on success; waits for the work */
  fusednorm_status (*forward)(const fusednorm_problem *p, const fusednorm_fwd_args *a);
  fusednorm_status (*backward)(const fusednorm_problem *p, const fusednorm_bwd_args *a);
  fusednorm_status (*workspace_size)(const fusednorm_problem *p, size_t *bytes);
  int layout_picks_kernel; /* 1: the kernel, and so the fp32 summation order, depends on the
                              layout (fusednorm_layout: CUDA); 0: one algorithm (CPU) */
  /* The plan the backend runs for a problem and its layout (CUDA: fusednorm_select_launch on the
   * current device), or NULL: where the two runs' plans differ (the row_dims, not only the
   * layout, may pick the kernel: the warp backward runs rows of one stride only), their
   * summation orders may too. */
  fusednorm_status (*plan)(const fusednorm_problem *p, int backward, const fusednorm_layout *l, fusednorm_launch *out);
} fn_layout_backend;

/* `cases` random cases from `seed` (printed); returns the number of failures. */
int fn_layout_run(const fn_layout_backend *b, uint64_t seed, int cases, int verbose);

/* Bad N-d problems and layouts through the backend's entry points: each must return its status
 * before touching memory. Returns the number of failures. */
int fn_layout_bad_args(const fn_layout_backend *b);

#ifdef __cplusplus
}
#endif
#endif /* FUSEDNORM_TESTS_LAYOUT_H_ */
