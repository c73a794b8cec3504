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

#ifdef __cplusplus
}
#endif
#endif
