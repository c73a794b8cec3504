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

/* Validate the problem alone (shape, dtypes, casting, mode, eps, offset). */
fusednorm_status fn_validate_problem(const fusednorm_problem *p);
/* Validate problem + forward/backward arguments (NULLs, strides, overflow, required outputs).
 * Workspace size is checked by the backend (it knows its grid). */
fusednorm_status fn_validate_forward(const fusednorm_problem *p, const fusednorm_fwd_args *a);
fusednorm_status fn_validate_backward(const fusednorm_problem *p, const fusednorm_bwd_args *a);

/* fusednorm_select_launch with the launch's alignment known: `aligned` = every row start and the
 * weight are 16-byte aligned (the CUDA launcher's run-time check). The public function assumes
 * aligned rows, the case of every contiguous tensor with n a multiple of 8; AUTO's forward picks
 * the lean multi-wave cached kernel only for aligned rows (select.c). */
fusednorm_status fn_select_launch(const fusednorm_problem *p, int backward, const fusednorm_device_info *dev,
                                  int aligned, fusednorm_launch *out);

/* True when the weight path is active. */
static inline int fn_has_weight(const fusednorm_problem *p) { return p->has_weight != 0; }

#ifdef __cplusplus
}
#endif
#endif
