/*
 * row_dims.h — the N-d row index space of fusednorm_problem.row_dims as the CUDA kernels see it:
 * the leading dims' sizes as 32-bit magic-number divisors (computed once per launch on the host)
 * and the host-side packing of one tensor's strides. Plain C, shared by the host launcher, the
 * kernels (fn::row_offset, rmsnorm_common.cuh) and the CPU test of the division (test_layout.c).
 *
 * Division by a run-time d in [1, 2^31) of n in [0, 2^31): with s = ceil(log2 d) and
 * m = floor(2^32 (2^s - d) / d) + 1 (< 2^32), n / d = (umulhi(n, m) + n) >> s, exact for every
 * such n (Granlund & Montgomery 1994, the form PyTorch's IntDivider uses; n < 2^31 keeps the sum
 * in 32 bits). The shared validation bounds rows (so every row index and every size) below 2^31
 * whenever row_dims > 1.
 */
#ifndef FUSEDNORM_CUDA_ROW_DIMS_H_
#define FUSEDNORM_CUDA_ROW_DIMS_H_

#include <stdint.h>

#include "kernels/include/fusednorm.h"

#ifdef __CUDACC__
#define FN_ROW_HD __host__ __device__ __forceinline__
#else
#define FN_ROW_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint32_t d, m, s; /* divisor, magic multiplier, shift */
} fn_divider;

/* The row dims of a launch. dims <= 1: row i of a tensor is i row strides from its start (every
 * divisor unused). dims > 1: the index space padded to 4 dims by leading dims of size 1, split
 * innermost first: div[k] divides by the size of the (k+1)-th innermost leading dim; the
 * outermost quotient is 0 whenever fewer than 4 dims are real, so one fixed sequence of three
 * divisions serves every dims. */
typedef struct {
  int dims;
  fn_divider div[3];
} fn_row_dims;

static inline fn_divider fn_divider_make(uint32_t d) { /* host only; 1 <= d < 2^31 */
  uint32_t s = 0;
  while (((uint64_t)1 << s) < d) ++s;
  fn_divider v;
  v.d = d;
  v.m = (uint32_t)(((((uint64_t)1 << s) - d) << 32) / d + 1);
  v.s = s;
  return v;
}

FN_ROW_HD uint32_t fn_div(fn_divider v, uint32_t n) {
#ifdef __CUDA_ARCH__
  const uint32_t t = __umulhi(n, v.m);
#else
  const uint32_t t = (uint32_t)(((uint64_t)n * v.m) >> 32);
#endif
  return (t + n) >> v.s;
}

/* The launch's row dims from a validated problem. */
static inline fn_row_dims fn_row_dims_make(const fusednorm_problem *p) {
  fn_row_dims r;
  r.dims = p->row_dims > 1 ? p->row_dims : 1;
  for (int k = 0; k < 3; ++k) {
    const int dim = r.dims - 1 - k; /* problem dim (outermost first) split off k-th */
    /* A size-0 dim means no rows: nothing is launched; 1 keeps the divider defined. */
    const int64_t size = r.dims > 1 && dim >= 0 && p->row_shape[dim] > 0 ? p->row_shape[dim] : 1;
    r.div[k] = fn_divider_make((uint32_t)size);
  }
  return r;
}

/* One tensor's strides beyond the innermost, innermost first as fn::row_offset reads them:
 * out[k] is the stride of problem dim row_dims-2-k (0 past the real dims, where the index is 0). */
static inline void fn_row_outer_make(const fusednorm_problem *p, const int64_t *outer, int64_t out[3]) {
  for (int k = 0; k < 3; ++k) {
    const int dim = p->row_dims - 2 - k;
    out[k] = p->row_dims > 1 && dim >= 0 ? outer[dim] : 0;
  }
}

/* The element offset of row `row` (host twin of fn::row_offset, for the tests). */
FN_ROW_HD int64_t fn_row_offset_dims(const fn_row_dims *d, int64_t row, int64_t stride,
                                     const int64_t *outer) {
  if (d->dims <= 1) return row * stride;
  uint32_t r = (uint32_t)row;
  uint32_t q = fn_div(d->div[0], r);
  int64_t off = (int64_t)(r - q * d->div[0].d) * stride;
  r = q;
  q = fn_div(d->div[1], r);
  off += (int64_t)(r - q * d->div[1].d) * outer[0];
  r = q;
  q = fn_div(d->div[2], r);
  off += (int64_t)(r - q * d->div[2].d) * outer[1];
  return off + (int64_t)q * outer[2];
}

#ifdef __cplusplus
}
#endif
#endif /* FUSEDNORM_CUDA_ROW_DIMS_H_ */
