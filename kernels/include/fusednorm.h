/*
 * fusednorm.h — fused RMSNorm forward/backward, plain C API.
 *
 * Contract (kernels/README.md, "Numerics contract" and "C API rules"):
 *   rows of length n; the last dim is contiguous, each tensor has its own row stride (in elements,
 *   >= n). All accumulation is fp32.
 *   fused add:  s = RN(x + r) is written to residual_out; the norm reads the rounded s.
 *   rstd[i]   = 1 / sqrt(mean_j(s[i,j]^2) + eps)            (fp32, saved for the backward)
 *   casting FP32  / GEMMA: y = RN(s * rstd * (w + offset))   one rounding
 *   casting LLAMA:         y = RN(RN(s * rstd) * (w + offset))
 *   no weight (weight == NULL): y = RN(s * rstd)
 *   backward, with the saved rstd, h = s*rstd in fp32 (the true point, every casting),
 *   n = the value y was made from (LLAMA: RN_x(h); else h), g = dy * (w + offset):
 *     dx = rstd * (g - h * mean(g * h))     (+ ds for fused add: the grad of both x and r)
 *     dw = sum_rows(dy * n), fp32 partial sums per block in the workspace, reduced in a fixed order.
 *   dx is the gradient of the forward with its roundings passed straight through (as autograd
 *   differentiates HF's module); the Jacobian at the rounded RN_x(h) would be a different function.
 *   Deterministic: identical inputs give bitwise identical outputs, for any thread count / grid.
 *
 * Every function returns a status and never exits, throws or allocates in the hot path.
 * The CUDA functions enqueue on the caller's stream and never synchronize the host, so they
 * may be captured into CUDA graphs.
 */
#ifndef FUSEDNORM_H_
#define FUSEDNORM_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Identical to the CUDA runtime's own typedef; repeating it keeps this header free of CUDA
 * includes (C11 and C++ allow an identical typedef twice). */
typedef struct CUstream_st *cudaStream_t;

#define FUSEDNORM_VERSION_MAJOR 0
#define FUSEDNORM_VERSION_MINOR 1

typedef enum {
  FUSEDNORM_OK = 0,
  FUSEDNORM_ERR_NULL_POINTER = 1,      /* a required pointer is NULL */
  FUSEDNORM_ERR_BAD_SHAPE = 2,         /* rows < 0 or n < 1 */
  FUSEDNORM_ERR_BAD_STRIDE = 3,        /* a row stride < n, or rows*stride overflows int64 */
  FUSEDNORM_ERR_BAD_DTYPE = 4,         /* dtype not one of fusednorm_dtype */
  FUSEDNORM_ERR_BAD_CASTING = 5,       /* casting not one of fusednorm_casting */
  FUSEDNORM_ERR_BAD_MODE = 6,          /* mode not one of fusednorm_mode */
  FUSEDNORM_ERR_BAD_EPS = 7,           /* eps negative, NaN or infinite */
  FUSEDNORM_ERR_BAD_OFFSET = 8,        /* offset NaN or infinite */
  FUSEDNORM_ERR_MISSING_OUTPUT = 9,    /* fused add without residual_out, backward without rstd, ... */
  FUSEDNORM_ERR_WORKSPACE_TOO_SMALL = 10, /* workspace_bytes < fusednorm_*_workspace_size() */
  FUSEDNORM_ERR_MODE_UNSUPPORTED = 11, /* a forced mode cannot run this shape (e.g. row-packed, n > 1024) */
  FUSEDNORM_ERR_CUDA = 12,             /* a CUDA runtime call or launch failed (see fusednorm_cuda_error_string) */
  FUSEDNORM_ERR_NO_DEVICE = 13,        /* CUDA function called with no usable device */
  FUSEDNORM_ERR_ALIASING = 14,         /* an output overlaps an input in an unsupported way */
  FUSEDNORM_ERR_OUT_OF_MEMORY = 15     /* CPU backend: per-thread scratch could not be allocated */
} fusednorm_status;

/* Readable, static, never NULL ("unknown status" for values outside the enum). */
const char *fusednorm_status_string(fusednorm_status status);

typedef enum {
  FUSEDNORM_F32 = 0,
  FUSEDNORM_F16 = 1,
  FUSEDNORM_BF16 = 2
} fusednorm_dtype;

typedef enum {
  FUSEDNORM_CAST_FP32 = 0,   /* torch.nn.functional.rms_norm: one rounding */
  FUSEDNORM_CAST_LLAMA = 1,  /* HF Llama/Qwen: normalized value rounded to the x dtype before w */
  FUSEDNORM_CAST_GEMMA = 2   /* HF Gemma: fp32 math with (offset + w); same formula as FP32 */
} fusednorm_casting;

typedef enum {
  FUSEDNORM_MODE_AUTO = 0,               /* fusednorm_select_mode() decides */
  FUSEDNORM_MODE_PERSISTENT = 1,         /* grid = SMs x occupancy, grid-stride over rows */
  FUSEDNORM_MODE_MULTI_WAVE_RELOAD = 2,  /* one CTA per row, row re-read (L2) to normalize */
  FUSEDNORM_MODE_MULTI_WAVE_CACHED = 3,  /* one CTA per row, row kept in registers */
  FUSEDNORM_MODE_ROW_PACKED = 4,         /* several rows per warp, n <= 1024 */
  FUSEDNORM_MODE_WIDE = 5,               /* a row split over several CTAs (two-phase reduction) */
  FUSEDNORM_MODE_COUNT_ = 6
} fusednorm_mode;

const char *fusednorm_mode_name(fusednorm_mode mode);   /* "auto", "persistent", ...; NULL if bad */
const char *fusednorm_dtype_name(fusednorm_dtype dtype); /* "f32", "f16", "bf16"; NULL if bad */
size_t fusednorm_dtype_size(fusednorm_dtype dtype);      /* 4, 2, 2; 0 if bad */

/* What is being normalized. Shared by forward, backward and the workspace query. */
typedef struct {
  int64_t rows;               /* >= 0; 0 is a no-op */
  int64_t n;                  /* >= 1, the normalized (contiguous) dim */
  fusednorm_dtype x_dtype;    /* x, residual, y, residual_out, dy, ds, dx */
  fusednorm_dtype w_dtype;    /* weight and dw (ignored without weight) */
  fusednorm_casting casting;
  float eps;                  /* >= 0, finite */
  float offset;               /* added to the weight: 0 (Llama) or 1 (Gemma) */
  int has_weight;             /* 0: y = RN(s * rstd), no dw */
  int has_residual;           /* 1: fused add */
  fusednorm_mode mode;        /* AUTO or a forced mode */
} fusednorm_problem;

/* A problem with the defaults: fp32 casting, eps 1e-6, offset 0, weight on, no residual, AUTO. */
fusednorm_problem fusednorm_problem_init(int64_t rows, int64_t n, fusednorm_dtype x_dtype,
                                         fusednorm_dtype w_dtype);

/* Forward arguments. Strides are in elements. */
typedef struct {
  const void *x;            int64_t x_stride;
  const void *residual;     int64_t residual_stride;     /* has_residual only */
  const void *weight;                                     /* [n], has_weight only */
  void *y;                  int64_t y_stride;
  void *residual_out;       int64_t residual_out_stride; /* has_residual only: RN(x + residual) */
  float *rstd;              /* [rows] fp32, may be NULL (inference) */
} fusednorm_fwd_args;

/* Backward arguments. `s` is what the forward normalized: x (plain) or residual_out (fused add). */
typedef struct {
  const void *dy;           int64_t dy_stride;
  const void *s;            int64_t s_stride;
  const void *ds;           int64_t ds_stride;  /* fused add: grad of residual_out; may be NULL */
  const void *weight;                            /* [n], has_weight only */
  const float *rstd;                             /* [rows] from the forward, required */
  void *dx;                 int64_t dx_stride;   /* grad of x (and of residual when fused add) */
  void *dw;                                      /* [n] in w_dtype, has_weight only */
  void *workspace;          size_t workspace_bytes; /* fp32 partial dw, see *_workspace_size */
} fusednorm_bwd_args;

/* ---- CPU backend (OpenMP across fixed row chunks; results independent of thread count) ---- */
fusednorm_status fusednorm_forward_cpu(const fusednorm_problem *p, const fusednorm_fwd_args *a);
fusednorm_status fusednorm_backward_workspace_size_cpu(const fusednorm_problem *p, size_t *bytes);
fusednorm_status fusednorm_backward_cpu(const fusednorm_problem *p, const fusednorm_bwd_args *a);

/* ---- CUDA backend (all pointers on the current device; `stream` may be 0) ---- */
/* Workspace bytes for the backward on `device` (-1: the current device). Depends on the mode the
 * backward will pick, the SM count and the shape; query with the same problem you run. */
fusednorm_status fusednorm_backward_workspace_size_cuda(const fusednorm_problem *p, int device,
                                                        size_t *bytes);
fusednorm_status fusednorm_forward_cuda(const fusednorm_problem *p, const fusednorm_fwd_args *a,
                                        cudaStream_t stream);
fusednorm_status fusednorm_backward_cuda(const fusednorm_problem *p, const fusednorm_bwd_args *a,
                                         cudaStream_t stream);
/* The CUDA error behind the last FUSEDNORM_ERR_CUDA on this thread ("" if none). */
const char *fusednorm_cuda_error_string(void);
/* 1 if this build has CUDA kernels and a device is visible, else 0. */
int fusednorm_cuda_available(void);

/* ---- Mode selection (pure; CPU-testable) ---- */
typedef struct {
  fusednorm_mode mode;
  int block_threads;     /* threads per CTA */
  int rows_per_cta;      /* row-packed: rows per CTA; else 1 */
  int ctas_per_row;      /* wide: CTAs splitting one row; else 1 */
  int64_t grid;          /* CTAs launched; the backward workspace holds grid / ctas_per_row
                            partial rows of n floats (+16 bytes for alignment): always query
                            fusednorm_backward_workspace_size_cuda rather than computing it */
  int vec_elems;         /* elements per vector access */
} fusednorm_launch;

typedef struct {
  int sm_count;          /* multiprocessors */
  int cc_major, cc_minor;/* compute capability */
  int max_threads_per_sm;
  int regs_per_sm;
  size_t smem_per_sm;
} fusednorm_device_info;

/* Decide mode + launch configuration for `p` (forward if backward == 0) on `dev`, for 16-byte
 * aligned rows (contiguous tensors with n a multiple of 8; the CUDA entry points check the actual
 * pointers and strides, and AUTO may pick differently for misaligned ones). A forced mode in
 * p->mode is honoured or FUSEDNORM_ERR_MODE_UNSUPPORTED is returned. */
fusednorm_status fusednorm_select_launch(const fusednorm_problem *p, int backward,
                                         const fusednorm_device_info *dev, fusednorm_launch *out);

#ifdef __cplusplus
}
#endif
#endif /* FUSEDNORM_H_ */
