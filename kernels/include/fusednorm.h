/*
 * fusednorm.h — fused RMSNorm forward/backward, plain C API.
 *
 * Contract (kernels/README.md, "Numerics contract" and "C API rules"):
 *   rows of length n; the last dim is contiguous. The rows are addressed through up to 4 leading
 *   dims (problem.row_dims / row_shape), each tensor with its own strides for them (in elements):
 *   row_stride for the innermost, the *_outer block for the others. All accumulation is fp32.
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
  FUSEDNORM_ERR_BAD_SHAPE = 2,         /* rows < 0, n < 1, row_dims not 0..4, row_shape with a
                                          negative size or a product != rows, or rows >= 2^31
                                          with row_dims > 1 */
  FUSEDNORM_ERR_BAD_STRIDE = 3,        /* a negative stride, rows that overlap each other (the
                                          sufficient test in kernels/README.md), or a largest
                                          offset beyond int64 */
  FUSEDNORM_ERR_BAD_DTYPE = 4,         /* dtype not one of fusednorm_dtype */
  FUSEDNORM_ERR_BAD_CASTING = 5,       /* casting not one of fusednorm_casting */
  FUSEDNORM_ERR_BAD_MODE = 6,          /* mode not one of fusednorm_mode */
  FUSEDNORM_ERR_BAD_EPS = 7,           /* eps negative, NaN or infinite */
  FUSEDNORM_ERR_BAD_OFFSET = 8,        /* offset NaN or infinite */
  FUSEDNORM_ERR_MISSING_OUTPUT = 9,    /* fused add without residual_out, backward without rstd, ... */
  FUSEDNORM_ERR_WORKSPACE_TOO_SMALL = 10, /* workspace_bytes < fusednorm_*_workspace_size() */
  FUSEDNORM_ERR_MODE_UNSUPPORTED = 11, /* a forced mode's kernel family cannot run this problem (see
                                          fusednorm_mode), or n >= 2^31 - 2^16 on the GPU */
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

/* A forced mode names one kernel family (kernels/cuda/README.md has the table: what each family
 * is for, when AUTO picks it, its template instances and the measurements behind it). Where the
 * family cannot run a problem, the CUDA entry points return FUSEDNORM_ERR_MODE_UNSUPPORTED (never
 * another kernel); the CPU backend has one implementation and accepts every mode. */
typedef enum {
  FUSEDNORM_MODE_AUTO = 0,               /* the plan picks (fusednorm_select_launch) */
  FUSEDNORM_MODE_PERSISTENT = 1,         /* one row per CTA at a time, grid = resident CTAs, the row in
                                            registers: forward row-pipelined (<= 4 slots per thread),
                                            backward lean (a weight; rows 16-byte aligned, or congruent
                                            modulo 16 bytes with the weight and dw fitting shared
                                            memory twice over: fusednorm_layout; up to 2048 slots,
                                            4096 for aligned whole vectors where the weight (as fp32,
                                            else for 16-bit rows with a 16-bit weight as its raw 16
                                            bits) and, for 16-bit rows or the fused add, dw too fit a
                                            CTA's shared memory) */
  FUSEDNORM_MODE_MULTI_WAVE_RELOAD = 2,  /* the general kernels: any alignment and width; forward one CTA
                                            per row reading it twice (L2) up to 1792/2048 slots, beyond
                                            (and always in the backward) a persistent grid with the
                                            slots beyond the register cache re-read */
  FUSEDNORM_MODE_MULTI_WAVE_CACHED = 3,  /* forward only: one CTA per row, the row in registers; rows
                                            16-byte aligned, or congruent modulo 16 bytes (a scalar head
                                            and tail per row: fusednorm_layout) */
  FUSEDNORM_MODE_ROW_PACKED = 4,         /* several rows per CTA, <= 32 lanes per row, row-pipelined:
                                            forward 16-bit n <= 1024 / f32 n <= 512, backward
                                            16-bit n <= 256 / f32 n <= 256; the forward of dense,
                                            congruent rows of <= 32 vector slots that are not whole
                                            aligned vectors runs the flat-tile kernel instead, and
                                            tiny problems (n <= 1024, a few thousand elements: see
                                            kernels/cuda/README.md) the tiny kernels, any layout */
  FUSEDNORM_MODE_WIDE = 5,               /* a row split over several CTAs. Forward: a thread-block
                                            cluster of 2-16 CTAs per row (compute capability >= 9.0,
                                            rows of >= 2 vector slots); without clusters CTAs of a
                                            cooperative grid whose partial sums meet in y (rows of
                                            >= 6 vectors; below 3 unsupported). AUTO also takes that
                                            grid sum where there are clusters, for a few very wide
                                            rows (kernels/cuda/README.md).
                                            Backward: the split-row kernel (a weight; the row in <= SMs
                                            chunks of <= 4 slots per thread, a ring of >= 2 rows in
                                            shared memory), else a thread-block cluster (compute
                                            capability >= 9.0) */
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
  /* The rows' index space (kernels/README.md, "Layouts and strides"). row_dims 0 or 1: one
   * leading dim of `rows` rows, each tensor's rows one row stride apart (row_shape ignored).
   * 2..FUSEDNORM_MAX_ROW_DIMS: row i is the row-major index of leading dims of sizes
   * row_shape[0..row_dims-1] (outermost first, product = rows, rows < 2^31); each tensor's
   * innermost leading dim has its *_stride and the others the strides in its *_outer block
   * (outer[k]: dim k, outermost first). rstd stays dense [rows] in row order. */
  int row_dims;
  int64_t row_shape[4];
} fusednorm_problem;

#define FUSEDNORM_MAX_ROW_DIMS 4

/* A problem with the defaults: fp32 casting, eps 1e-6, offset 0, weight on, no residual, AUTO,
 * row_dims 1. */
fusednorm_problem fusednorm_problem_init(int64_t rows, int64_t n, fusednorm_dtype x_dtype,
                                         fusednorm_dtype w_dtype);

/* Forward arguments. Strides are in elements. The *_outer blocks (strides of the leading dims
 * 0..row_dims-2) are read only with problem.row_dims > 1; trailing zero-initialised fields keep
 * every single-stride caller as it was. */
typedef struct {
  const void *x;            int64_t x_stride;
  const void *residual;     int64_t residual_stride;     /* has_residual only */
  const void *weight;                                     /* [n], has_weight only */
  void *y;                  int64_t y_stride;
  void *residual_out;       int64_t residual_out_stride; /* has_residual only: RN(x + residual) */
  float *rstd;              /* [rows] fp32, may be NULL (inference) */
  int64_t x_outer[3], residual_outer[3], y_outer[3], residual_out_outer[3];
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
  int64_t dy_outer[3], s_outer[3], ds_outer[3], dx_outer[3]; /* as in fusednorm_fwd_args */
} fusednorm_bwd_args;

/* ---- CPU backend (OpenMP across fixed row chunks; results independent of thread count) ---- */
fusednorm_status fusednorm_forward_cpu(const fusednorm_problem *p, const fusednorm_fwd_args *a);
fusednorm_status fusednorm_backward_workspace_size_cpu(const fusednorm_problem *p, size_t *bytes);
fusednorm_status fusednorm_backward_cpu(const fusednorm_problem *p, const fusednorm_bwd_args *a);

/* ---- CUDA backend (all pointers on the current device; `stream` may be 0) ---- */
/* Workspace bytes for the backward on `device` (-1: the current device): the largest workspace_bytes
 * of the backward's plans (fusednorm_select_launch) for aligned, congruent and misaligned rows
 * (fusednorm_select_workspace), so one size serves every layout of the problem's tensors. 0 for
 * rows == 0. Query with the same problem you run. */
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

/* ---- Launch plan (pure; CPU-testable) ----
 * One function decides everything a CUDA launch does: fusednorm_select_launch(problem, device,
 * layout) -> plan. The CUDA entry points run exactly the plan it returns (a switch on
 * plan.kernel), and the backward's workspace query returns the largest workspace_bytes of the
 * plans for the three layouts (fusednorm_select_workspace). */

/* Kernel families (kernels/cuda/README.md: the table with instances and evidence). */
typedef enum {
  FUSEDNORM_KERNEL_FWD_PIPE = 0,    /* rms_norm_fwd_pipe: whole row in 1/2/4 register slots per
                                       thread, the next row's loads in flight (row-packed, persistent) */
  FUSEDNORM_KERNEL_FWD_ROW = 1,     /* rms_norm_fwd_row: one CTA per row, aligned rows (multi-wave cached) */
  FUSEDNORM_KERNEL_FWD_GENERIC = 2, /* rms_norm_fwd: any layout and width (multi-wave reload) */
  FUSEDNORM_KERNEL_BWD_PIPE = 3,    /* rms_norm_bwd_pipe: row-packed, one slot per lane */
  FUSEDNORM_KERNEL_BWD_ROW = 4,     /* rms_norm_bwd_row: persistent, aligned rows, weight in smem */
  FUSEDNORM_KERNEL_BWD_GENERIC = 5, /* rms_norm_bwd: any layout and width; also the cluster kernel */
  FUSEDNORM_KERNEL_BWD_SPLIT = 6,   /* rms_norm_bwd_split: a row over several CTAs, cooperative grid */
  FUSEDNORM_KERNEL_FWD_WIDE = 7,    /* rms_norm_fwd_wide: a row over a thread-block cluster, partial sums
                                       of squares through distributed shared memory (wide forward);
                                       or (plan cluster 1: always without clusters, and AUTO's few
                                       very wide rows with them) over CTAs of a cooperative grid,
                                       the partials through y and a grid-wide barrier */
  FUSEDNORM_KERNEL_FWD_TILE = 8,    /* rms_norm_fwd_tile: tiles of whole consecutive rows of dense
                                       row tensors read and written as one contiguous run of 16-byte
                                       vectors (narrow rows that are not whole vectors; row-packed) */
  FUSEDNORM_KERNEL_FWD_TINY = 9,    /* rms_norm_fwd_tiny: tiny problems, a row over <= 32 lanes, every
                                       element loaded at once, no shared memory (row-packed) */
  FUSEDNORM_KERNEL_BWD_TINY = 10,   /* rms_norm_bwd_tiny: tiny problems in one CTA that writes dw itself
                                       (no workspace rows, no second launch; row-packed) */
  FUSEDNORM_KERNEL_FWD_LANES = 11,  /* rms_norm_fwd_lanes: rows of <= 32 whole aligned 16-byte vectors (64
                                       in the plain forward, two a lane), a row over <= 32 lanes, a
                                       team's rows loaded at once, the weight in registers, one
                                       pass (row-packed) */
  FUSEDNORM_KERNEL_FWD_THREAD = 12, /* rms_norm_fwd_thread: rows narrower than a 16-byte vector in dense
                                       congruent tensors, a thread owning the rows of whole vectors
                                       (no CTA barrier; row-packed) */
  FUSEDNORM_KERNEL_FWD_WARP = 13,   /* rms_norm_fwd_warp: a warp a row, element by element, rows of 33-512
                                       columns of one stride (AUTO only) */
  FUSEDNORM_KERNEL_BWD_WARP = 14,   /* rms_norm_bwd_warp: a warp a row, element by element, rows of 33-256
                                       columns of one stride, persistent grid (AUTO only) */
  FUSEDNORM_KERNEL_COUNT_ = 15
} fusednorm_kernel;

const char *fusednorm_kernel_name(fusednorm_kernel kernel); /* "fwd_pipe", ...; NULL if bad */

/* What the plan needs to know about the device. fusednorm_cuda_device_info fills it from
 * cudaDeviceGetAttribute and cudaOccupancyMaxActiveClusters; tests fill it from published or
 * measured figures. */
typedef struct {
  int sm_count;               /* multiprocessors */
  int cc_major, cc_minor;     /* compute capability (clusters: >= 9.0); fusednorm_cuda_device_info
                                 reports the architecture the kernels were built for instead where
                                 it is lower (a build with only older PTX, JIT-compiled) */
  int max_threads_per_sm;     /* >= 1024 */
  int max_ctas_per_sm;        /* resident CTAs per SM at most (16 on cc 8.6, 24 on 8.9, else 32) */
  int regs_per_sm;            /* >= 65536 */
  size_t smem_per_sm;         /* shared memory per multiprocessor, bytes */
  size_t smem_per_block_optin;/* largest dynamic + static shared memory one CTA may opt into */
  size_t l2_bytes;            /* L2 cache */
  int max_clusters[4][4];     /* thread-block clusters resident at once (cudaOccupancyMaxActive-
                                 Clusters): [c - 1][k] for clusters of 2 << k CTAs (2, 4, 8, 16)
                                 when c CTAs (1-4) fit one SM. A cluster's CTAs share one GPC, so
                                 this is below sm_count * c / (2 << k) where the GPCs' SM counts
                                 leave CTAs over (132-SM H200: 14 clusters of 16 at c = 2, not
                                 16). 0: not known (no clusters, or figures without it): the plan
                                 then counts sm_count * c CTAs. Never above that count. */
} fusednorm_device_info;

/* The tensors' layout, as far as the plan depends on it. aligned16: every row start of every
 * tensor the launch reads or writes (x/residual/y/residual_out, or dy/s/ds/dx) and the weight
 * are 16-byte aligned. congruent16: every such row tensor has the same base address modulo 16
 * bytes and the same row stride in bytes modulo 16, so every row starts the same number of bytes
 * off a 16-byte boundary in all of them (a row-dependent head of fewer than one vector before an
 * aligned interior; the weight may lie anywhere). aligned16 implies congruent16 for the rows. The
 * fusednorm_*_layout functions below compute every field from the arguments, the same way for both
 * directions; a layout with congruent16 = 0 and aligned16 = 1 is read as congruent. */
typedef struct {
  int aligned16;
  int congruent16;
  int dense;      /* every row tensor's rows lie back to back (row i at element i*n of its base:
                     the [rows, n] block contiguous); with congruent16 the rows can be tiled as one
                     run of 16-byte vectors. 0 (not known) keeps the row-wise plans. */
  int align_bytes;/* the largest of 16, 8, 4, 2, 1 that divides every row start of every row tensor
                     and the weight's address (with the weight in the rows' dtype; else at most the
                     element size); 0 (not known) is read as 16 with aligned16, else 1 */
} fusednorm_layout;

fusednorm_status fusednorm_forward_layout(const fusednorm_problem *p, const fusednorm_fwd_args *a,
                                          fusednorm_layout *out);
fusednorm_status fusednorm_backward_layout(const fusednorm_problem *p, const fusednorm_bwd_args *a,
                                           fusednorm_layout *out);

/* A launch plan: every knob of the launch that will run. */
typedef struct {
  fusednorm_mode mode;       /* the family's mode (AUTO resolved; see fusednorm_mode) */
  fusednorm_kernel kernel;   /* the kernel family that runs */
  int block_threads;         /* threads per CTA */
  int rows_per_cta;          /* row-packed: rows (teams) per CTA; else 1 */
  int ctas_per_row;          /* CTAs sharing a row: the cluster size, the split-row kernel's
                                column chunks, or the wide forward's CTAs a row in its
                                grid sum (cluster 1); else 1 */
  int cluster;               /* thread-block cluster size (1: none; > 1 needs cc >= 9.0) */
  int64_t grid;              /* CTAs launched */
  int vec_elems;             /* elements per 16-byte vector slot */
  int slots_per_thread;      /* register-cache slots per thread of the instance (0: none, the
                                generic forward's pure reload; FWD_WIDE: every slot staged in
                                shared memory, the weight's 16-byte pieces in registers) */
  int64_t chunk;             /* columns per CTA (n unless ctas_per_row > 1) */
  size_t smem_bytes;         /* dynamic shared memory per CTA */
  int stages, lookahead;     /* split-row backward: row ring depth and dot lookahead; else 0 */
  int weight_smem;           /* 1: the weight is staged in shared memory (the fp32 effective
                                weight; FWD_WIDE: the weight's own bytes, copied by each CTA once
                                while its cluster loops over rows); 2 (BWD_ROW at 8 slots, 16-bit
                                rows and weight): its raw 16 bits, where the fp32 stage does not fit */
  int dw_smem;               /* generic backward, columns beyond the register cache: their dw in
                                shared memory (1) or in the CTA's workspace row (0) */
  int64_t partial_rows;      /* backward with weight: rows of n fp32 partial dw in the workspace */
  size_t workspace_bytes;    /* backward: bytes the workspace must have (0 without weight or rows) */
  int unaligned;             /* FWD_ROW / BWD_ROW: the head-split instance, FWD_GENERIC /
                                FWD_WIDE: the head-split path (congruent rows not 16-byte
                                aligned, or n not a multiple of the vector): a scalar head and
                                tail per row around the vector interior; else 0 */
  int dw_in_kernel;          /* backward, BWD_ROW / BWD_PIPE with a weight: the kernel sums its
                                partial rows into dw itself after a grid-wide barrier (a
                                cooperative launch, so the grid must be co-resident; a grid of
                                one CTA writes its row as dw, not cooperative) instead of a
                                second launch; the same sum, bit for bit. BWD_SPLIT (AUTO, one row
                                group: partial_rows 1): each CTA writes its chunk of dw. Else 0 */
  int load_elems;            /* FWD_WARP: elements a load (1, or 2 / 4: the sub-vector instance,
                                rows and weight on that boundary); else 0 */
  int ds_direct;             /* BWD_SPLIT with the fused add: 1 = ds is not staged in the ring (the
                                dx pass reads it from global memory), so that the ring holds more
                                rows (where with ds it would hold 2, in CTAs of 512 threads, or at
                                <= 2 slots a thread); else 0 */
  int narrow;                /* BWD_ROW at one slot a thread in CTAs of 64 threads, 16-bit rows,
                                many of them: 1 = the instance bounded to more CTAs an SM (fewer
                                registers a thread), the grid sized for them; else 0 */
} fusednorm_launch;

/* The plan for `p` (forward if backward == 0) on `dev` with `layout`. A forced mode is honoured
 * or FUSEDNORM_ERR_MODE_UNSUPPORTED is returned; FUSEDNORM_ERR_NO_DEVICE for a device
 * description below the limits above; the problem is validated as by the entry points. */
fusednorm_status fusednorm_select_launch(const fusednorm_problem *p, int backward,
                                         const fusednorm_device_info *dev,
                                         const fusednorm_layout *layout, fusednorm_launch *out);

/* The backward workspace (bytes) that every layout of `p` needs at most on `dev`: the largest of
 * the plans for aligned, congruent and misaligned rows (a head-split plan may take another family
 * than the aligned one: the split-row kernel for wide congruent rows). What
 * fusednorm_backward_workspace_size_cuda returns. */
fusednorm_status fusednorm_select_workspace(const fusednorm_problem *p, const fusednorm_device_info *dev,
                                            size_t *bytes);

/* The device description of `device` (-1: the current one), queried once per device. Of a device
 * that is not the current one, its attributes only (max_clusters 0, cc the device's), not kept:
 * the first call with it current fills the rest. */
fusednorm_status fusednorm_cuda_device_info(int device, fusednorm_device_info *out);

#ifdef __cplusplus
}
#endif
#endif /* FUSEDNORM_H_ */
