/*
 * common.h — internal helpers shared by the CPU and CUDA backends (host side): argument
 * validation (one place, so both backends reject the same inputs with the same status) and the
 * pieces of the problem both need.
 */
#ifndef FUSEDNORM_COMMON_H_
#define FUSEDNORM_COMMON_H_

#include "kernels/include/fusednorm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element offset of row `row` (0 <= row < p->rows) of a tensor whose innermost leading dim has
 * `stride` and the others the strides in `outer` (fusednorm_problem.row_dims). The one host-side
 * row addressing: the CPU backend and the reference both call it (the CUDA kernels' twin is
 * fn::row_offset in kernels/cuda/rmsnorm_common.cuh). */
static inline int64_t fn_row_offset(const fusednorm_problem *p, int64_t row, int64_t stride,
                                    const int64_t *outer) {
  if (p->row_dims <= 1) return row * stride;
  int k = p->row_dims - 1;
  int64_t off = (row % p->row_shape[k]) * stride;
  row /= p->row_shape[k];
  while (--k >= 0) {
    off += (row % p->row_shape[k]) * outer[k];
    row /= p->row_shape[k];
  }
  return off;
}

/* Validate the problem alone (shape, dtypes, casting, mode, eps, offset). */
fusednorm_status fn_validate_problem(const fusednorm_problem *p);
/* Validate problem + forward/backward arguments (NULLs, strides, overflow, required outputs).
 * Workspace size is checked by the backend (it knows its grid). */
fusednorm_status fn_validate_forward(const fusednorm_problem *p, const fusednorm_fwd_args *a);
fusednorm_status fn_validate_backward(const fusednorm_problem *p, const fusednorm_bwd_args *a);

#ifdef __cplusplus
}
#endif
#endif
