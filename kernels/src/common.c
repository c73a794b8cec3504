/*
 * common.c — status strings, names, problem defaults and argument validation shared by every
 * backend. Validation is the single gate: a backend that calls it can assume sane arguments.
 */
#include "kernels/src/common.h"

#include <math.h>
#include <stddef.h>

const char *fusednorm_status_string(fusednorm_status s) {
  switch (s) {
    case FUSEDNORM_OK: return "ok";
    case FUSEDNORM_ERR_NULL_POINTER: return "a required pointer is NULL";
    case FUSEDNORM_ERR_BAD_SHAPE:
      return "bad shape: rows must be >= 0, n >= 1, row_dims 0..4, and with row_dims > 1 the "
             "row_shape sizes >= 0 with product rows < 2^31";
    case FUSEDNORM_ERR_BAD_STRIDE:
      return "bad stride: strides must be >= 0, rows must not overlap (a single row stride >= n), "
             "and the largest element offset must fit in int64";
    case FUSEDNORM_ERR_BAD_DTYPE: return "bad dtype: expected f32, f16 or bf16";
    case FUSEDNORM_ERR_BAD_CASTING: return "bad casting mode: expected fp32, llama or gemma";
    case FUSEDNORM_ERR_BAD_MODE: return "bad mode: expected auto or a named mode";
    case FUSEDNORM_ERR_BAD_EPS: return "bad eps: must be finite and >= 0";
    case FUSEDNORM_ERR_BAD_OFFSET: return "bad weight offset: must be finite";
    case FUSEDNORM_ERR_MISSING_OUTPUT:
      return "missing argument: fused add needs residual and residual_out, a weight needs weight "
             "(and dw in the backward), the backward needs rstd";
    case FUSEDNORM_ERR_WORKSPACE_TOO_SMALL:
      return "workspace too small: query fusednorm_backward_workspace_size_* with the same problem";
    case FUSEDNORM_ERR_MODE_UNSUPPORTED: return "the forced mode cannot run this shape";
    case FUSEDNORM_ERR_CUDA: return "a CUDA call failed (see fusednorm_cuda_error_string)";
    case FUSEDNORM_ERR_NO_DEVICE: return "no usable CUDA device";
    case FUSEDNORM_ERR_ALIASING: return "an output overlaps an input in an unsupported way";
    case FUSEDNORM_ERR_OUT_OF_MEMORY: return "out of host memory for scratch buffers";
  }
  return "unknown status";
}

const char *fusednorm_mode_name(fusednorm_mode m) {
  switch (m) {
    case FUSEDNORM_MODE_AUTO: return "auto";
    case FUSEDNORM_MODE_PERSISTENT: return "persistent";
    case FUSEDNORM_MODE_MULTI_WAVE_RELOAD: return "multi_wave_reload";
    case FUSEDNORM_MODE_MULTI_WAVE_CACHED: return "multi_wave_cached";
    case FUSEDNORM_MODE_ROW_PACKED: return "row_packed";
    case FUSEDNORM_MODE_WIDE: return "wide";
    case FUSEDNORM_MODE_COUNT_: break;
  }
  return NULL;
}

const char *fusednorm_dtype_name(fusednorm_dtype d) {
  switch (d) {
    case FUSEDNORM_F32: return "f32";
    case FUSEDNORM_F16: return "f16";
    case FUSEDNORM_BF16: return "bf16";
  }
  return NULL;
}

size_t fusednorm_dtype_size(fusednorm_dtype d) {
  switch (d) {
    case FUSEDNORM_F32: return 4;
    case FUSEDNORM_F16: case FUSEDNORM_BF16: return 2;
  }
  return 0;
}

fusednorm_problem fusednorm_problem_init(int64_t rows, int64_t n, fusednorm_dtype x_dtype,
                                         fusednorm_dtype w_dtype) {
  fusednorm_problem p;
  p.rows = rows;
  p.n = n;
  p.x_dtype = x_dtype;
  p.w_dtype = w_dtype;
  p.casting = FUSEDNORM_CAST_FP32;
  p.eps = 1e-6f;
  p.offset = 0.0f;
  p.has_weight = 1;
  p.has_residual = 0;
  p.mode = FUSEDNORM_MODE_AUTO;
  p.row_dims = 1;
  for (int k = 0; k < FUSEDNORM_MAX_ROW_DIMS; ++k) p.row_shape[k] = 0;
  return p;
}

static int dtype_ok(fusednorm_dtype d) { return fusednorm_dtype_size(d) != 0; }

fusednorm_status fn_validate_problem(const fusednorm_problem *p) {
  if (!p) return FUSEDNORM_ERR_NULL_POINTER;
  if (p->rows < 0 || p->n < 1) return FUSEDNORM_ERR_BAD_SHAPE;
  if (!dtype_ok(p->x_dtype)) return FUSEDNORM_ERR_BAD_DTYPE;
  if (p->has_weight && !dtype_ok(p->w_dtype)) return FUSEDNORM_ERR_BAD_DTYPE;
  if ((unsigned)p->casting > (unsigned)FUSEDNORM_CAST_GEMMA) return FUSEDNORM_ERR_BAD_CASTING;
  if ((unsigned)p->mode >= (unsigned)FUSEDNORM_MODE_COUNT_) return FUSEDNORM_ERR_BAD_MODE;
  if (!(p->eps >= 0.0f) || isinf(p->eps)) return FUSEDNORM_ERR_BAD_EPS; /* !(>=) catches NaN */
  if (!isfinite(p->offset)) return FUSEDNORM_ERR_BAD_OFFSET;
  if (p->row_dims < 0 || p->row_dims > FUSEDNORM_MAX_ROW_DIMS) return FUSEDNORM_ERR_BAD_SHAPE;
  if (p->row_dims > 1) {
    /* The CUDA kernels split a row index with 32-bit division (kernels/cuda/row_dims.h); the
     * bound holds on every backend so that one problem is valid everywhere or nowhere. */
    if (p->rows > INT32_MAX) return FUSEDNORM_ERR_BAD_SHAPE;
    int64_t prod = 1;
    for (int k = 0; k < p->row_dims; ++k) {
      if (p->row_shape[k] < 0) return FUSEDNORM_ERR_BAD_SHAPE;
      if (p->row_shape[k] == 0) prod = 0;
      else if (prod > INT32_MAX) return FUSEDNORM_ERR_BAD_SHAPE; /* stays > rows: no overflow */
      else prod *= p->row_shape[k];
    }
    if (prod != p->rows) return FUSEDNORM_ERR_BAD_SHAPE;
  }
  return FUSEDNORM_OK;
}

/* One tensor's row layout. row_dims <= 1: a row stride >= n, and the last element's offset
 * (rows-1)*stride + n must fit in int64 (the kernels index with 64-bit offsets). row_dims > 1:
 * every stride >= 0; the dims of size > 1, taken by increasing stride, each step over everything
 * the smaller ones span (starting from the row's n elements), which proves no two rows overlap
 * (a sufficient test: interleaved layouts it rejects are copied by the caller); and that span,
 * the largest offset + 1, fits in int64. */
static fusednorm_status check_stride(const fusednorm_problem *p, int64_t stride, const int64_t *outer) {
  if (p->row_dims <= 1) {
    if (p->rows == 0) return stride >= p->n ? FUSEDNORM_OK : FUSEDNORM_ERR_BAD_STRIDE;
    if (stride < p->n) return FUSEDNORM_ERR_BAD_STRIDE;
    if (p->rows > 1 && stride > (INT64_MAX - p->n) / (p->rows - 1)) return FUSEDNORM_ERR_BAD_STRIDE;
    return FUSEDNORM_OK;
  }
  int64_t size[FUSEDNORM_MAX_ROW_DIMS], str[FUSEDNORM_MAX_ROW_DIMS];
  int m = 0;
  for (int k = 0; k < p->row_dims; ++k) {
    int64_t st = k == p->row_dims - 1 ? stride : outer[k];
    if (st < 0) return FUSEDNORM_ERR_BAD_STRIDE;
    if (p->row_shape[k] > 1) {
      size[m] = p->row_shape[k];
      str[m++] = st;
    }
  }
  if (p->rows == 0) return FUSEDNORM_OK;
  for (int i = 1; i < m; ++i) /* insertion sort by stride, at most 4 entries */
    for (int j = i; j > 0 && str[j] < str[j - 1]; --j) {
      int64_t t = str[j]; str[j] = str[j - 1]; str[j - 1] = t;
      t = size[j]; size[j] = size[j - 1]; size[j - 1] = t;
    }
  int64_t span = p->n;
  for (int i = 0; i < m; ++i) {
    if (str[i] < span) return FUSEDNORM_ERR_BAD_STRIDE;
    if (str[i] > (INT64_MAX - span) / (size[i] - 1)) return FUSEDNORM_ERR_BAD_STRIDE;
    span += str[i] * (size[i] - 1);
  }
  return FUSEDNORM_OK;
}

/* An output given as the very buffer of an input or of another output (in-place use). Partial
 * overlap at other addresses is not detected (kernels/README.md, "Aliasing"). */
static int same(const void *a, const void *b) { return a != NULL && a == b; }

#define FN_TRY(expr)                         \
  do {                                       \
    fusednorm_status st_ = (expr);           \
    if (st_ != FUSEDNORM_OK) return st_;     \
  } while (0)

fusednorm_status fn_validate_forward(const fusednorm_problem *p, const fusednorm_fwd_args *a) {
  FN_TRY(fn_validate_problem(p));
  if (!a) return FUSEDNORM_ERR_NULL_POINTER;
  if (p->rows == 0) return FUSEDNORM_OK; /* nothing is read or written */
  if (!a->x || !a->y) return FUSEDNORM_ERR_NULL_POINTER;
  if (p->has_weight && !a->weight) return FUSEDNORM_ERR_MISSING_OUTPUT;
  if (p->has_residual && (!a->residual || !a->residual_out)) return FUSEDNORM_ERR_MISSING_OUTPUT;
  FN_TRY(check_stride(p, a->x_stride, a->x_outer));
  FN_TRY(check_stride(p, a->y_stride, a->y_outer));
  if (p->has_residual) {
    FN_TRY(check_stride(p, a->residual_stride, a->residual_outer));
    FN_TRY(check_stride(p, a->residual_out_stride, a->residual_out_outer));
  }
  const void *r = p->has_residual ? a->residual : NULL, *ro = p->has_residual ? a->residual_out : NULL;
  if (same(a->y, a->x) || same(a->y, r) || same(a->y, ro) || same(ro, a->x) || same(ro, r) ||
      (a->rstd && (same(a->rstd, a->x) || same(a->rstd, a->y) || same(a->rstd, r) || same(a->rstd, ro))))
    return FUSEDNORM_ERR_ALIASING;
  return FUSEDNORM_OK;
}

fusednorm_status fn_validate_backward(const fusednorm_problem *p, const fusednorm_bwd_args *a) {
  FN_TRY(fn_validate_problem(p));
  if (!a) return FUSEDNORM_ERR_NULL_POINTER;
  if (p->has_weight && (!a->weight || !a->dw)) return FUSEDNORM_ERR_MISSING_OUTPUT;
  if (p->rows == 0) return FUSEDNORM_OK; /* dw of zero rows is zeros; backends write it */
  if (!a->dy || !a->s || !a->dx) return FUSEDNORM_ERR_NULL_POINTER;
  if (!a->rstd) return FUSEDNORM_ERR_MISSING_OUTPUT;
  FN_TRY(check_stride(p, a->dy_stride, a->dy_outer));
  FN_TRY(check_stride(p, a->s_stride, a->s_outer));
  FN_TRY(check_stride(p, a->dx_stride, a->dx_outer));
  if (a->ds) FN_TRY(check_stride(p, a->ds_stride, a->ds_outer));
  if (p->has_weight && !a->workspace && a->workspace_bytes) return FUSEDNORM_ERR_NULL_POINTER;
  if (same(a->dx, a->dy) || same(a->dx, a->s) || same(a->dx, a->ds) || same(a->dx, a->rstd))
    return FUSEDNORM_ERR_ALIASING;
  return FUSEDNORM_OK;
}
