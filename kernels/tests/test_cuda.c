/*
 * test_cuda.c — the CUDA backend through the shared check engine (kernels/tests/engine.h), for
 * AUTO and then every forced mode, plus the bad-argument checks, a misaligned-pointer pass and a
 * CUDA-graph capture check. Tagged `gpu`; run by tools/gpu/suite_kernels.sh.
 *
 * The adapter copies the engine's host buffers to the device, POISONS the outputs there (0xFF
 * bytes = NaN in every dtype) over exactly the elements the kernels must write (row padding keeps
 * the engine's sentinel, so writes into padding are caught), runs on a non-default stream and
 * copies everything back. The workspace is poisoned too: stale partials must never reach dw.
 *
 * A forced mode names one kernel family, which cannot run every problem (fusednorm.h documents the
 * limits, test_select pins them): where the plan for the real device and layout says so, the
 * adapter checks that the entry point returns FUSEDNORM_ERR_MODE_UNSUPPORTED, runs the case in
 * AUTO and counts it; the count is printed per mode.
 *
 * usage: test_cuda [--quick] [--big] [--seed=N] [--mode=NAME] [--filter=TEXT] [--verbose]
 *                  [--wide-fwd | --unaligned | --bitwise | --plan-sections]
 *   default: AUTO over the requested matrix, then each named mode and misaligned pointers over
 *   two slices of the quick matrix (see main); --mode=NAME: only that mode, requested matrix.
 *   --filter=TEXT: only the cases whose name contains TEXT, in every section (a case's name is
 *   "M=.. N=.. x=DTYPE w=.. cast=.. off=.. eps=..[ +res][ strided]...", e.g. --filter="N=13 x=f16";
 *   not a section name: every section still prints its header, with 0 cases where none matched).
 *   --wide-fwd: only the few-wide-rows section (wide_fwd_section): forced WIDE (aligned and
 *   misaligned pointers) and AUTO over rows 1..200 of 32K..1M columns, odd widths included, and
 *   the plan check that the forced forward is the cluster kernel where the device has clusters.
 *   --plan-sections: only the AUTO sections that assert a family ran, which the default run
 *   reaches last (fwd_row8_section; without --quick split_section's two and narrow_bwd_section too).
 *   --unaligned: instead, the unaligned-rows section (run_unaligned: odd widths, per-tensor
 *   offsets, congruent and not, every mode or the one of --mode), the GPU suite's own section
 *   tools/gpu/suite_unaligned.sh (its own time limit). The default run meets the head-split
 *   kernels too: its odd widths (7, 127) of unstrided variants and its misaligned pass are
 *   congruent rows.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cuda/launch_config.h"
#include "kernels/include/fusednorm.h"
#include "kernels/tests/engine.h"
#include "kernels/tests/layout.h"

#define CUDACHECK(call)                                                                       \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      fprintf(stderr, "test_cuda: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,                \
              cudaGetErrorString(e_));                                                        \
      return FUSEDNORM_ERR_CUDA;                                                              \
    }                                                                                         \
  } while (0)

typedef struct {
  cudaStream_t stream;
  int misalign;         /* device tensor offsets from a 16-byte boundary (tensor_offset): */
#define OFFS_NONE 0      /*   none */
#define OFFS_ONE 1       /*   every tensor one element past (the workspace 4 bytes) */
#define OFFS_CONGRUENT 2 /*   every row tensor `head` elements past (congruent16 where the row
                              strides agree modulo 16 bytes), the weight elsewhere */
#define OFFS_APART 3     /*   row tensors 1, 2, 3, 1 elements past: never congruent */
  int head;             /* OFFS_CONGRUENT: elements past the boundary, per case */
  int fallbacks;        /* forced-mode cases the family cannot run, run in AUTO */
  int bad_status;       /* such cases where the entry point did not say MODE_UNSUPPORTED */
  int ran[FUSEDNORM_KERNEL_COUNT_]; /* launches by the family their plan named (a section that is
                                       there to test a family checks that it ran) */
  int ran_bwd_pipe2;    /* ... of which the row-pipelined backward at two slots a lane */
  int ran_bwd_row8;     /* ... the lean backward at eight slots a thread */
  int ran_bwd_row8f;    /* ... of which with the fused add (dw in shared memory) */
  int ran_bwd_row8w16;  /* ... of which with the weight's raw 16 bits staged */
  int ran_fwd_row8;     /* ... the lean forward at eight slots a thread */
  int ran_bwd_narrow, ran_bwd_narrow_f; /* ... the lean backward's narrow instance (plain, fused) */
  int ran_wide_ws;      /* ... the wide forward with its weight staged in shared memory */
  int ran_fwd_row8f;    /* ... of them the fused add */
  int ran_wide_wr;      /* ... the wide forward with every slot staged, the weight in registers */
  int ran_wide_wr_part; /* ... its chunk short of the instance's slots: the per-slot guards */
  int ran_wide_wr_mid;  /* ... in AUTO below 6000 slots (select.c fwd_wide_wr_pays) */
  int ran_fwd_warp2;    /* ... and the warp forward at two rows a warp */
  int ran_fwd_warp_vec; /* ... and the warp forward's sub-vector loads */
  int ran_fwd_lanes2;   /* ... the lanes forward at two vectors a lane */
  int ran_fwd_lanes2w;  /* ... of which with a weight */
  int ran_split_dd;     /* ... the split-row backward with the fused add's ds out of its ring */
  int ran_split_f32;    /* ... the split-row backward of f32 rows, plain */
  int ran_split_f32f;   /* ... and fused */
  int ran_split_16f;    /* ... the split-row kernel on a 16-bit fused add */
  char *pool;           /* device arena reused by every call (cudaMalloc/cudaFree per case is slow) */
  size_t cap, used;
} cuda_ctx;

/* Device copy of a [rows x n] host tensor with a row stride (in elements). Everything below is
 * ordered on the adapter's own (non-blocking) stream: a legacy-stream memset or copy would not be
 * ordered with the kernels on it. */
typedef struct {
  void *ptr;   /* arena + misalign */
  size_t bytes;
} dbuf;

static size_t extent(int64_t rows, int64_t n, int64_t stride, size_t elem) {
  return rows <= 0 ? 0 : (size_t)((rows - 1) * stride + n) * elem;
}

/* Make room for `bytes` (plus per-buffer alignment slack) and start a new call. */
static fusednorm_status arena_reset(cuda_ctx *c, size_t bytes) {
  c->used = 0;
  if (bytes <= c->cap) return FUSEDNORM_OK;
  CUDACHECK(cudaStreamSynchronize(c->stream));
  if (c->pool) cudaFree(c->pool);
  c->pool = NULL, c->cap = 0;
  CUDACHECK(cudaMalloc((void **)&c->pool, bytes));
  c->cap = bytes;
  return FUSEDNORM_OK;
}
#define SLACK 512 /* per buffer: 256-byte alignment + misalignment */

static fusednorm_status dev_alloc(dbuf *b, size_t bytes, size_t misalign, cuda_ctx *c) {
  b->ptr = NULL;
  b->bytes = bytes;
  if (bytes == 0) return FUSEDNORM_OK;
  size_t off = (c->used + 255) & ~(size_t)255;
  if (off + bytes + misalign > c->cap) return FUSEDNORM_ERR_CUDA; /* arena sized by the caller */
  b->ptr = c->pool + off + misalign;
  c->used = off + bytes + misalign;
  return FUSEDNORM_OK;
}

/* Upload (NULL host pointer: nothing to upload, device pointer stays NULL). */
/* A device tensor's role, for its offset: the k-th row tensor of a call (x, residual, y,
 * residual_out; dy, s, ds, dx), the weight or dw, or rstd. */
#define ROLE_W 8
#define ROLE_RSTD 9
static size_t tensor_offset(const cuda_ctx *c, int role, size_t elem) {
  switch (c->misalign) {
    case OFFS_ONE: return elem;
    case OFFS_CONGRUENT: return role < ROLE_W ? (size_t)c->head * elem : role == ROLE_W ? elem * (c->head == 1 ? 2 : 1) : 4;
    case OFFS_APART: return role < ROLE_W ? (size_t)(1 + role % 4 % 3) * elem : 0;
    default: return 0;
  }
}
/* OFFS_CONGRUENT's head for a case: 1 .. vector - 1 elements, varied over the shapes (fixed for a
 * case, so that its determinism check compares like with like). */
static void set_head(cuda_ctx *c, const fusednorm_problem *p) {
  const int vec = 16 / (int)fusednorm_dtype_size(p->x_dtype);
  c->head = 1 + (int)((p->rows * 31 + p->n) % (vec - 1));
}

static fusednorm_status dev_in(dbuf *b, const void *host, size_t bytes, size_t elem, int role, cuda_ctx *c) {
  memset(b, 0, sizeof *b);
  if (host == NULL || bytes == 0) return FUSEDNORM_OK;
  fusednorm_status st = dev_alloc(b, bytes, tensor_offset(c, role, elem), c);
  if (st != FUSEDNORM_OK) return st;
  CUDACHECK(cudaMemcpyAsync(b->ptr, host, bytes, cudaMemcpyHostToDevice, c->stream));
  return FUSEDNORM_OK;
}

/* An output: upload (keeps the padding sentinel), then poison the rows' n elements. */
static fusednorm_status dev_out(dbuf *b, const void *host, int64_t rows, int64_t n, int64_t stride,
                                size_t elem, int role, cuda_ctx *c) {
  fusednorm_status st = dev_in(b, host, extent(rows, n, stride, elem), elem, role, c);
  if (st != FUSEDNORM_OK || b->ptr == NULL) return st;
  CUDACHECK(cudaMemset2DAsync(b->ptr, (size_t)stride * elem, 0xFF, (size_t)n * elem, (size_t)rows, c->stream));
  return FUSEDNORM_OK;
}

static fusednorm_status dev_back(void *host, const dbuf *b, cuda_ctx *c) {
  if (host == NULL || b->ptr == NULL) return FUSEDNORM_OK;
  CUDACHECK(cudaMemcpyAsync(host, b->ptr, b->bytes, cudaMemcpyDeviceToHost, c->stream));
  CUDACHECK(cudaStreamSynchronize(c->stream));
  return FUSEDNORM_OK;
}

/* The plan of a call on the current device (what the entry points launch), or the error. */
static fusednorm_status device_plan(const fusednorm_problem *p, int backward, const fusednorm_layout *lay,
                                    fusednorm_launch *l) {
  fusednorm_device_info dev;
  const fusednorm_status st = fusednorm_cuda_device_info(-1, &dev);
  return st != FUSEDNORM_OK ? st : fusednorm_select_launch(p, backward, &dev, lay, l);
}

/* Does the plan for this device and layout say the forced mode's family cannot run the problem? */
static int plan_unsupported(const fusednorm_problem *p, int backward, const fusednorm_layout *lay) {
  fusednorm_launch l;
  return p->mode != FUSEDNORM_MODE_AUTO && device_plan(p, backward, lay, &l) == FUSEDNORM_ERR_MODE_UNSUPPORTED;
}

static fusednorm_status launch(const fusednorm_problem *p, const fusednorm_fwd_args *fa,
                               const fusednorm_bwd_args *ba, cudaStream_t stream) {
  return ba ? fusednorm_backward_cuda(p, ba, stream) : fusednorm_forward_cuda(p, fa, stream);
}

/* One launch of a case on device buffers, the forward (fa) or the backward (ba), then waits for the
 * kernel. Where the plan says the forced mode's family cannot run the problem, the call must answer
 * MODE_UNSUPPORTED (bad_status counts it otherwise) and the case runs under AUTO (fallbacks). */
static fusednorm_status run_launch(cuda_ctx *c, fusednorm_problem *p, const fusednorm_fwd_args *fa,
                                   const fusednorm_bwd_args *ba) {
  fusednorm_layout lay;
  const int have_lay =
      p->rows > 0 && (ba ? fusednorm_backward_layout(p, ba, &lay) : fusednorm_forward_layout(p, fa, &lay)) == FUSEDNORM_OK;
  if (have_lay && plan_unsupported(p, ba != NULL, &lay)) {
    if (launch(p, fa, ba, c->stream) != FUSEDNORM_ERR_MODE_UNSUPPORTED) c->bad_status++;
    p->mode = FUSEDNORM_MODE_AUTO, c->fallbacks++;
  }
  if (have_lay) {
    fusednorm_launch l;
    if (device_plan(p, ba != NULL, &lay, &l) == FUSEDNORM_OK) {
      c->ran[l.kernel]++;
      c->ran_bwd_pipe2 += l.kernel == FUSEDNORM_KERNEL_BWD_PIPE && l.slots_per_thread == 2;
      c->ran_bwd_row8 += l.kernel == FUSEDNORM_KERNEL_BWD_ROW && l.slots_per_thread == 8;
      c->ran_bwd_row8f += l.kernel == FUSEDNORM_KERNEL_BWD_ROW && l.slots_per_thread == 8 && p->has_residual;
      c->ran_bwd_row8w16 += l.kernel == FUSEDNORM_KERNEL_BWD_ROW && l.slots_per_thread == 8 && l.weight_smem == 2;
      c->ran_fwd_row8 += l.kernel == FUSEDNORM_KERNEL_FWD_ROW && l.slots_per_thread == 8;
      c->ran_fwd_row8f += l.kernel == FUSEDNORM_KERNEL_FWD_ROW && l.slots_per_thread == 8 && p->has_residual;
      c->ran_bwd_narrow += l.kernel == FUSEDNORM_KERNEL_BWD_ROW && l.narrow && !p->has_residual;
      c->ran_bwd_narrow_f += l.kernel == FUSEDNORM_KERNEL_BWD_ROW && l.narrow && p->has_residual;
      c->ran_wide_ws += l.kernel == FUSEDNORM_KERNEL_FWD_WIDE && l.weight_smem;
      c->ran_wide_wr += l.kernel == FUSEDNORM_KERNEL_FWD_WIDE && l.slots_per_thread == 0;
      c->ran_wide_wr_part += l.kernel == FUSEDNORM_KERNEL_FWD_WIDE && l.slots_per_thread == 0 &&
                             l.chunk < (int64_t)FN_FWD_WIDE_WR_THREADS * FN_FWD_WIDE_WR_SLOTS * fn_vec_elems(p->x_dtype);
      c->ran_wide_wr_mid += l.kernel == FUSEDNORM_KERNEL_FWD_WIDE && l.slots_per_thread == 0 &&
                            p->mode == FUSEDNORM_MODE_AUTO && (p->n + fn_vec_elems(p->x_dtype) - 1) / fn_vec_elems(p->x_dtype) < 6000;
      c->ran_fwd_warp2 += l.kernel == FUSEDNORM_KERNEL_FWD_WARP && l.rows_per_cta == 2 * (l.block_threads / 32);
      c->ran_fwd_warp_vec += l.kernel == FUSEDNORM_KERNEL_FWD_WARP && l.load_elems > 1;
      c->ran_fwd_lanes2 += l.kernel == FUSEDNORM_KERNEL_FWD_LANES && l.slots_per_thread == 2;
      c->ran_fwd_lanes2w += l.kernel == FUSEDNORM_KERNEL_FWD_LANES && l.slots_per_thread == 2 && p->has_weight;
      c->ran_split_dd += l.kernel == FUSEDNORM_KERNEL_BWD_SPLIT && l.ds_direct;
      c->ran_split_f32 += l.kernel == FUSEDNORM_KERNEL_BWD_SPLIT && p->x_dtype == FUSEDNORM_F32 && !p->has_residual;
      c->ran_split_f32f += l.kernel == FUSEDNORM_KERNEL_BWD_SPLIT && p->x_dtype == FUSEDNORM_F32 && p->has_residual;
      c->ran_split_16f += l.kernel == FUSEDNORM_KERNEL_BWD_SPLIT && p->x_dtype != FUSEDNORM_F32 && p->has_residual;
    }
  }
  fusednorm_status st = launch(p, fa, ba, c->stream);
  if (st == FUSEDNORM_ERR_CUDA) fprintf(stderr, "test_cuda: %s\n", fusednorm_cuda_error_string());
  cudaError_t e = cudaStreamSynchronize(c->stream);
  if (st == FUSEDNORM_OK && e != cudaSuccess) {
    fprintf(stderr, "test_cuda: %s kernel failed: %s\n", ba ? "backward" : "forward", cudaGetErrorString(e));
    st = FUSEDNORM_ERR_CUDA;
  }
  return st;
}

static fusednorm_status cuda_forward(void *ctx, const fusednorm_problem *p0, const fusednorm_fwd_args *a) {
  cuda_ctx *c = (cuda_ctx *)ctx;
  fusednorm_problem p = *p0;
  const size_t xs = fusednorm_dtype_size(p.x_dtype), ws = fusednorm_dtype_size(p.w_dtype);
  const int64_t M = p.rows, N = p.n;
  dbuf x, r, w, y, ro, rstd;
  const size_t mat = extent(M, N, a->x_stride > a->y_stride ? a->x_stride : a->y_stride, xs);
  const size_t mat2 = extent(M, N, a->residual_stride > a->residual_out_stride ? a->residual_stride
                                                                                : a->residual_out_stride, xs);
  set_head(c, &p);
  fusednorm_status st = arena_reset(c, 2 * mat + 2 * mat2 + (size_t)N * ws + (size_t)M * 4 + 6 * SLACK);
  if (st == FUSEDNORM_OK) st = dev_in(&x, a->x, extent(M, N, a->x_stride, xs), xs, 0, c);
  if (st == FUSEDNORM_OK) st = dev_in(&r, p.has_residual ? a->residual : NULL, extent(M, N, a->residual_stride, xs), xs, 1, c);
  if (st == FUSEDNORM_OK) st = dev_in(&w, p.has_weight ? a->weight : NULL, (size_t)N * ws, ws, ROLE_W, c);
  if (st == FUSEDNORM_OK) st = dev_out(&y, a->y, M, N, a->y_stride, xs, 2, c);
  if (st == FUSEDNORM_OK) st = dev_out(&ro, p.has_residual ? a->residual_out : NULL, M, N, a->residual_out_stride, xs, 3, c);
  if (st == FUSEDNORM_OK) st = dev_out(&rstd, a->rstd, M, 1, 1, 4, ROLE_RSTD, c);
  if (st == FUSEDNORM_OK) {
    fusednorm_fwd_args d = *a;
    d.x = x.ptr, d.residual = r.ptr, d.weight = w.ptr, d.y = y.ptr, d.residual_out = ro.ptr;
    d.rstd = (float *)rstd.ptr;
    if (M == 0) d.x = a->x, d.y = a->y; /* zero rows: the API must not touch them */
    st = run_launch(c, &p, &d, NULL);
  }
  if (st == FUSEDNORM_OK) st = dev_back(a->y, &y, c);
  if (st == FUSEDNORM_OK) st = dev_back(a->residual_out, &ro, c);
  if (st == FUSEDNORM_OK) st = dev_back(a->rstd, &rstd, c);
  return st;
}

static fusednorm_status cuda_backward(void *ctx, const fusednorm_problem *p0, const fusednorm_bwd_args *a) {
  cuda_ctx *c = (cuda_ctx *)ctx;
  fusednorm_problem p = *p0, pa = *p0;
  pa.mode = FUSEDNORM_MODE_AUTO;
  const size_t xs = fusednorm_dtype_size(p.x_dtype), wsz = fusednorm_dtype_size(p.w_dtype);
  const int64_t M = p.rows, N = p.n;
  /* Room for the forced plan's workspace and for AUTO's, which runs where the family cannot. */
  size_t ws_bytes = 0, ws_auto = 0;
  fusednorm_status st = fusednorm_backward_workspace_size_cuda(&pa, -1, &ws_auto);
  if (st != FUSEDNORM_OK) return st;
  st = fusednorm_backward_workspace_size_cuda(&p, -1, &ws_bytes);
  if (st == FUSEDNORM_ERR_MODE_UNSUPPORTED && p.mode != FUSEDNORM_MODE_AUTO) st = FUSEDNORM_OK, ws_bytes = 0;
  if (st != FUSEDNORM_OK) return st;
  if (ws_auto > ws_bytes) ws_bytes = ws_auto;
  dbuf dy, s, ds, w, rstd, dx, dw, wsb;
  memset(&wsb, 0, sizeof wsb);
  const size_t mats = extent(M, N, a->dy_stride, xs) + extent(M, N, a->s_stride, xs) +
                      extent(M, N, a->ds_stride, xs) + extent(M, N, a->dx_stride, xs);
  set_head(c, &p);
  st = arena_reset(c, mats + 2 * (size_t)N * wsz + (size_t)M * 4 + ws_bytes + 8 * SLACK);
  if (st == FUSEDNORM_OK) st = dev_in(&dy, a->dy, extent(M, N, a->dy_stride, xs), xs, 0, c);
  if (st == FUSEDNORM_OK) st = dev_in(&s, a->s, extent(M, N, a->s_stride, xs), xs, 1, c);
  if (st == FUSEDNORM_OK) st = dev_in(&ds, p.has_residual ? a->ds : NULL, extent(M, N, a->ds_stride, xs), xs, 2, c);
  if (st == FUSEDNORM_OK) st = dev_in(&w, p.has_weight ? a->weight : NULL, (size_t)N * wsz, wsz, ROLE_W, c);
  if (st == FUSEDNORM_OK) st = dev_in(&rstd, a->rstd, (size_t)M * 4, 4, ROLE_RSTD, c);
  if (st == FUSEDNORM_OK) st = dev_out(&dx, a->dx, M, N, a->dx_stride, xs, 3, c);
  if (st == FUSEDNORM_OK) st = dev_out(&dw, p.has_weight ? a->dw : NULL, 1, N, N, wsz, ROLE_W, c);
  if (st == FUSEDNORM_OK && ws_bytes) {
    st = dev_alloc(&wsb, ws_bytes, c->misalign ? 4 : 0, c); /* a misaligned workspace too */
    if (st == FUSEDNORM_OK && cudaMemsetAsync(wsb.ptr, 0xFF, ws_bytes, c->stream) != cudaSuccess)
      st = FUSEDNORM_ERR_CUDA;
  }
  if (st == FUSEDNORM_OK) {
    fusednorm_bwd_args d = *a;
    d.dy = dy.ptr, d.s = s.ptr, d.ds = ds.ptr, d.weight = w.ptr, d.rstd = (const float *)rstd.ptr;
    d.dx = dx.ptr, d.dw = dw.ptr, d.workspace = wsb.ptr, d.workspace_bytes = ws_bytes;
    st = run_launch(c, &p, NULL, &d);
  }
  if (st == FUSEDNORM_OK) st = dev_back(a->dx, &dx, c);
  if (st == FUSEDNORM_OK) st = dev_back(a->dw, &dw, c);
  return st;
}

/* ---- bad arguments through the CUDA entry points (validation happens before any launch) ---- */
static cudaStream_t g_stream;
/* Forwards of N-d rows (row_dims > 1) whose plan was the lanes kernel at two vectors a lane: the
 * layout test's directed cases (layout.c kDirected) must reach it. */
static int g_nd_lanes2;
static fusednorm_status api_fwd(const fusednorm_problem *p, const fusednorm_fwd_args *a) {
  const fusednorm_status st = fusednorm_forward_cuda(p, a, g_stream);
  fusednorm_layout lay;
  fusednorm_launch l;
  /* the plan of a call that ran (its arguments valid) */
  if (st == FUSEDNORM_OK && p->row_dims > 1 && p->rows > 0 && fusednorm_forward_layout(p, a, &lay) == FUSEDNORM_OK &&
      device_plan(p, 0, &lay, &l) == FUSEDNORM_OK)
    g_nd_lanes2 += l.kernel == FUSEDNORM_KERNEL_FWD_LANES && l.slots_per_thread == 2;
  return st;
}
static fusednorm_status api_bwd(const fusednorm_problem *p, const fusednorm_bwd_args *a) {
  return fusednorm_backward_cuda(p, a, g_stream);
}
static fusednorm_status api_ws(const fusednorm_problem *p, size_t *bytes) {
  return fusednorm_backward_workspace_size_cuda(p, -1, bytes);
}

/* ---- N-d row layouts (kernels/tests/layout.h) on device memory, on the test's stream ---- */
static void *l_alloc(size_t bytes) {
  void *p = NULL;
  return cudaMalloc(&p, bytes) == cudaSuccess ? p : NULL;
}
static void l_release(void *p) { cudaFree(p); }
static int l_upload(void *dst, const void *src, size_t bytes) {
  return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, g_stream) != cudaSuccess ||
         cudaStreamSynchronize(g_stream) != cudaSuccess;
}
static int l_download(void *dst, const void *src, size_t bytes) {
  if (cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, g_stream) != cudaSuccess) return 1;
  const cudaError_t e = cudaStreamSynchronize(g_stream);
  if (e != cudaSuccess) fprintf(stderr, "test_cuda: layout case: %s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}
/* The plan the CUDA entry points run on the current device (fusednorm_select_launch). */
static fusednorm_status l_plan(const fusednorm_problem *p, int backward, const fusednorm_layout *l,
                               fusednorm_launch *out) {
  fusednorm_device_info info;
  const fusednorm_status st = fusednorm_cuda_device_info(-1, &info);
  return st != FUSEDNORM_OK ? st : fusednorm_select_launch(p, backward, &info, l, out);
}

/* ---- CUDA graph capture: forward + backward captured and replayed, bitwise equal to a direct
 * run (the launches must not allocate, synchronize or query anything capture forbids). ---- */
static uint64_t lcg(uint64_t *s) { return *s = *s * 6364136223846793005ull + 1442695040888963407ull; }

static int graph_check(cudaStream_t st, int64_t M, int64_t N, fusednorm_mode mode, uint64_t seed) {
#define GCHECK(call)                                                                              \
  do {                                                                                            \
    if ((call) != 0) {                                                                            \
      printf("FAIL graph %lldx%lld %s: %s (%s)\n", (long long)M, (long long)N,                    \
             fusednorm_mode_name(mode), #call, fusednorm_cuda_error_string());                    \
      return 1;                                                                                   \
    }                                                                                             \
  } while (0)
  fusednorm_problem p = fusednorm_problem_init(M, N, FUSEDNORM_BF16, FUSEDNORM_F32);
  p.has_residual = 1, p.mode = mode;
  /* A forced mode names one family per direction; where the forward's cannot run the captured
   * forward runs in AUTO and the backward keeps the forced family. */
  fusednorm_problem pf = p;
  {
    const fusednorm_layout al = {1, 1, 0, 16};
    if (plan_unsupported(&pf, 0, &al)) pf.mode = FUSEDNORM_MODE_AUTO;
  }
  const size_t mn = (size_t)M * (size_t)N;
  uint16_t *hx = malloc(mn * 2);
  float *hw = malloc((size_t)N * 4);
  for (size_t i = 0; i < mn; ++i) hx[i] = (uint16_t)(0x3c00 + (lcg(&seed) >> 57) - 64 + ((lcg(&seed) >> 63) << 15));
  for (int64_t j = 0; j < N; ++j) hw[j] = 0.5f + (float)(lcg(&seed) >> 40) / (float)(1 << 24);
  size_t wsb = 0;
  GCHECK(fusednorm_backward_workspace_size_cuda(&p, -1, &wsb));
  void *x, *r, *w, *y, *ro, *dy, *dx, *dw, *ws, *y2, *dx2, *dw2, *ro2;
  float *rstd, *rstd2;
  GCHECK(cudaMalloc(&x, mn * 2)); GCHECK(cudaMalloc(&r, mn * 2)); GCHECK(cudaMalloc(&dy, mn * 2));
  GCHECK(cudaMalloc(&y, mn * 2)); GCHECK(cudaMalloc(&ro, mn * 2)); GCHECK(cudaMalloc(&dx, mn * 2));
  GCHECK(cudaMalloc(&y2, mn * 2)); GCHECK(cudaMalloc(&ro2, mn * 2)); GCHECK(cudaMalloc(&dx2, mn * 2));
  GCHECK(cudaMalloc(&w, N * 4)); GCHECK(cudaMalloc(&dw, N * 4)); GCHECK(cudaMalloc(&dw2, N * 4));
  GCHECK(cudaMalloc((void **)&rstd, M * 4)); GCHECK(cudaMalloc((void **)&rstd2, M * 4));
  GCHECK(cudaMalloc(&ws, wsb));
  GCHECK(cudaMemcpy(x, hx, mn * 2, cudaMemcpyHostToDevice));
  for (size_t i = 0; i < mn; ++i) hx[i] ^= 0x0040; /* another residual */
  GCHECK(cudaMemcpy(r, hx, mn * 2, cudaMemcpyHostToDevice));
  for (size_t i = 0; i < mn; ++i) hx[i] ^= 0x8011; /* and dy */
  GCHECK(cudaMemcpy(dy, hx, mn * 2, cudaMemcpyHostToDevice));
  GCHECK(cudaMemcpy(w, hw, N * 4, cudaMemcpyHostToDevice));
  GCHECK(cudaDeviceSynchronize()); /* the stream below does not wait for legacy-stream copies */

  /* direct */
  fusednorm_fwd_args fa = {x, N, r, N, w, y, N, ro, N, rstd, {0}, {0}, {0}, {0}};
  fusednorm_bwd_args ba = {dy, N, ro, N, NULL, 0, w, rstd, dx, N, dw, ws, wsb, {0}, {0}, {0}, {0}};
  GCHECK(fusednorm_forward_cuda(&pf, &fa, st));
  GCHECK(fusednorm_backward_cuda(&p, &ba, st));
  GCHECK(cudaStreamSynchronize(st));
  /* captured, replayed twice into poisoned outputs */
  fusednorm_fwd_args fa2 = {x, N, r, N, w, y2, N, ro2, N, rstd2, {0}, {0}, {0}, {0}};
  fusednorm_bwd_args ba2 = {dy, N, ro2, N, NULL, 0, w, rstd2, dx2, N, dw2, ws, wsb, {0}, {0}, {0}, {0}};
  cudaGraph_t g;
  cudaGraphExec_t ge;
  GCHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
  fusednorm_status s1 = fusednorm_forward_cuda(&pf, &fa2, st);
  fusednorm_status s2 = fusednorm_backward_cuda(&p, &ba2, st);
  GCHECK(cudaStreamEndCapture(st, &g));
  GCHECK(s1);
  GCHECK(s2);
  GCHECK(cudaGraphInstantiate(&ge, g, 0));
  int fails = 0;
  for (int rep = 0; rep < 2; ++rep) {
    GCHECK(cudaMemsetAsync(y2, 0xFF, mn * 2, st)); GCHECK(cudaMemsetAsync(ro2, 0xFF, mn * 2, st));
    GCHECK(cudaMemsetAsync(dx2, 0xFF, mn * 2, st)); GCHECK(cudaMemsetAsync(dw2, 0xFF, N * 4, st));
    GCHECK(cudaMemsetAsync(rstd2, 0xFF, M * 4, st));
    GCHECK(cudaGraphLaunch(ge, st));
    GCHECK(cudaStreamSynchronize(st));
    struct { void *a, *b; size_t n; const char *name; } cmp[] = {
        {y, y2, mn * 2, "y"}, {ro, ro2, mn * 2, "residual_out"}, {rstd, rstd2, (size_t)M * 4, "rstd"},
        {dx, dx2, mn * 2, "dx"}, {dw, dw2, (size_t)N * 4, "dw"}};
    for (int k = 0; k < 5; ++k) {
      char *ha = malloc(cmp[k].n), *hb = malloc(cmp[k].n);
      GCHECK(cudaMemcpy(ha, cmp[k].a, cmp[k].n, cudaMemcpyDeviceToHost));
      GCHECK(cudaMemcpy(hb, cmp[k].b, cmp[k].n, cudaMemcpyDeviceToHost));
      if (memcmp(ha, hb, cmp[k].n)) {
        printf("FAIL graph %lldx%lld %s replay %d: %s differs from the direct run\n", (long long)M,
               (long long)N, fusednorm_mode_name(mode), rep, cmp[k].name);
        fails++;
      }
      free(ha), free(hb);
    }
  }
  cudaGraphExecDestroy(ge), cudaGraphDestroy(g);
  void *all[] = {x, r, w, y, ro, dy, dx, dw, ws, y2, dx2, dw2, ro2, rstd, rstd2};
  for (size_t k = 0; k < sizeof all / sizeof *all; ++k) cudaFree(all[k]);
  free(hx), free(hw);
  printf("[cuda] graph capture %lldx%lld bf16 fused %s: %s\n", (long long)M, (long long)N,
         fusednorm_mode_name(mode), fails ? "FAILED" : "OK");
  return fails;
#undef GCHECK
}

/* The bitwise checks' setup: a CUDA or fusednorm call that fails ends the check (`tag`, an M x N
 * problem, all in the caller's scope) with its reason. */
#define BCHECK(call)                                                                              \
  do {                                                                                            \
    if ((call) != 0) {                                                                            \
      printf("FAIL %s %lldx%lld: %s (%s)\n", tag, (long long)M, (long long)N, #call,               \
             fusednorm_cuda_error_string());                                                      \
      return 1;                                                                                   \
    }                                                                                             \
  } while (0)

/* ---- dw summed in the backward kernel (plan dw_in_kernel: AUTO, at most
 * FN_DW_IN_KERNEL_MAX_PARTIALS CTAs, one cooperative launch; or the split-row backward of one row,
 * each CTA writing its chunk of dw) against the same family forced (the
 * same kernel and grid, dw in a second launch, dw_reduce_chain): dx and dw bitwise equal. The
 * plan must really take the one-launch path on AUTO and the two-launch one forced, or the check
 * proves nothing: both are asserted. `shift`: elements the row tensors start past 16 bytes (the
 * head-split instance). ---- */
static int dw_in_kernel_check(cudaStream_t st, int64_t M, int64_t N, int fused, fusednorm_dtype wdt, int shift,
                              uint64_t seed) {
  const char *const tag = "dw-in-kernel";
  fusednorm_problem p = fusednorm_problem_init(M, N, FUSEDNORM_BF16, wdt);
  p.has_residual = fused;
  const size_t mn = (size_t)M * (size_t)N, wb = fusednorm_dtype_size(wdt);
  fusednorm_device_info info;
  BCHECK(fusednorm_cuda_device_info(-1, &info));
  const fusednorm_layout lay = {shift == 0, 1, 0, 0};
  fusednorm_launch la, lf;
  BCHECK(fusednorm_select_launch(&p, 1, &info, &lay, &la));
  fusednorm_problem pf = p;
  pf.mode = la.mode; /* the family AUTO picked, forced */
  BCHECK(fusednorm_select_launch(&pf, 1, &info, &lay, &lf));
  if (!la.dw_in_kernel && la.grid > 1 && FN_DW_REDUCE_DEPENDENT(info.cc_major)) {
    /* AUTO's rule here: several CTAs leave dw to the dependent dw_reduce launch (test_select
     * pins the rule at both architectures). Their in-kernel sum is the plan of GPUs, or builds,
     * without that launch: it runs in the suite from compute_80 PTX. */
    printf("[cuda] dw in the kernel %lldx%lld: %lld CTAs at cc %d.%d leave dw to dw_reduce's dependent launch "
           "(AUTO's plan); not this build's path\n",
           (long long)M, (long long)N, (long long)la.grid, info.cc_major, info.cc_minor);
    return 0;
  }
  if (!la.dw_in_kernel || lf.dw_in_kernel || la.kernel != lf.kernel || la.grid != lf.grid) {
    printf("FAIL dw-in-kernel %lldx%lld: plans AUTO %s dk%d g%lld, forced %s dk%d g%lld: not the pair to compare\n",
           (long long)M, (long long)N, fusednorm_kernel_name(la.kernel), la.dw_in_kernel, (long long)la.grid,
           fusednorm_kernel_name(lf.kernel), lf.dw_in_kernel, (long long)lf.grid);
    return 1;
  }
  uint16_t *hx = malloc(mn * 2);
  unsigned char *hw = malloc((size_t)N * wb);
  for (size_t i = 0; i < mn; ++i) hx[i] = (uint16_t)(0x3c00 + (lcg(&seed) >> 57) - 64 + ((lcg(&seed) >> 63) << 15));
  for (int64_t j = 0; j < N; ++j) {
    const float v = 0.5f + (float)(lcg(&seed) >> 40) / (float)(1 << 24);
    uint32_t bits;
    memcpy(&bits, &v, 4);
    if (wdt == FUSEDNORM_F32) memcpy(hw + 4 * j, &v, 4);
    else { const uint16_t h = (uint16_t)(bits >> 16); memcpy(hw + 2 * j, &h, 2); } /* bf16 */
  }
  size_t wsb = 0;
  BCHECK(fusednorm_backward_workspace_size_cuda(&p, -1, &wsb));
  const size_t tb = (mn + 8) * 2; /* room for the shift */
  char *x, *r, *y, *ro, *dy, *dx1, *dx2, *ds;
  void *w, *dw1, *dw2, *ws;
  float *rstd;
  BCHECK(cudaMalloc((void **)&x, tb)); BCHECK(cudaMalloc((void **)&r, tb)); BCHECK(cudaMalloc((void **)&y, tb));
  BCHECK(cudaMalloc((void **)&ro, tb)); BCHECK(cudaMalloc((void **)&dy, tb)); BCHECK(cudaMalloc((void **)&ds, tb));
  BCHECK(cudaMalloc((void **)&dx1, tb)); BCHECK(cudaMalloc((void **)&dx2, tb));
  BCHECK(cudaMalloc(&w, N * wb)); BCHECK(cudaMalloc(&dw1, N * wb)); BCHECK(cudaMalloc(&dw2, N * wb));
  BCHECK(cudaMalloc((void **)&rstd, M * 4)); BCHECK(cudaMalloc(&ws, wsb));
  const size_t off = (size_t)shift * 2;
  BCHECK(cudaMemcpy(x + off, hx, mn * 2, cudaMemcpyHostToDevice));
  for (size_t i = 0; i < mn; ++i) hx[i] ^= 0x0040;
  BCHECK(cudaMemcpy(r + off, hx, mn * 2, cudaMemcpyHostToDevice));
  for (size_t i = 0; i < mn; ++i) hx[i] ^= 0x8011;
  BCHECK(cudaMemcpy(dy + off, hx, mn * 2, cudaMemcpyHostToDevice));
  for (size_t i = 0; i < mn; ++i) hx[i] ^= 0x0102;
  BCHECK(cudaMemcpy(ds + off, hx, mn * 2, cudaMemcpyHostToDevice));
  BCHECK(cudaMemcpy(w, hw, N * wb, cudaMemcpyHostToDevice));
  BCHECK(cudaMemset(dx1, 0xFF, tb)); BCHECK(cudaMemset(dx2, 0x7F, tb)); /* poisoned, differently */
  BCHECK(cudaMemset(dw1, 0xFF, N * wb)); BCHECK(cudaMemset(dw2, 0x7F, N * wb));
  BCHECK(cudaDeviceSynchronize());
  fusednorm_fwd_args fa = {x + off, N, r + off, N, w, y + off, N, ro + off, N, rstd, {0}, {0}, {0}, {0}};
  BCHECK(fusednorm_forward_cuda(&p, &fa, st));
  char *s_in = fused ? ro + off : x + off;
  fusednorm_bwd_args b1 = {dy + off, N, s_in, N, fused ? ds + off : NULL, fused ? N : 0, w, rstd, dx1 + off, N, dw1, ws, wsb,
                           {0}, {0}, {0}, {0}};
  fusednorm_bwd_args b2 = b1;
  b2.dx = dx2 + off, b2.dw = dw2;
  /* The launches each plan really makes, counted as the nodes of a captured graph, before
   * anything else ran these kernels (the library's first-use set-up included): one for AUTO,
   * two forced, and the split-row kernel's reset of its partial dots (a memset node) before
   * either. A plan that says one launch and a launcher that falls back to two would pass the
   * bitwise comparison below. */
  size_t nodes[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    cudaGraph_t g;
    BCHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed));
    const fusednorm_status cs = fusednorm_backward_cuda(k ? &pf : &p, k ? &b2 : &b1, st);
    BCHECK(cudaStreamEndCapture(st, &g));
    BCHECK(cs);
    BCHECK(cudaGraphGetNodes(g, NULL, &nodes[k]));
    BCHECK(cudaGraphDestroy(g));
  }
  int fails = 0;
  const size_t reset = la.kernel == FUSEDNORM_KERNEL_BWD_SPLIT;
  if (nodes[0] != 1 + reset || nodes[1] != 2 + reset) {
    printf("FAIL dw-in-kernel %lldx%lld: %zu graph nodes on AUTO (%zu planned), %zu forced (%zu planned)\n",
           (long long)M, (long long)N, nodes[0], 1 + reset, nodes[1], 2 + reset);
    fails++;
  }
  BCHECK(fusednorm_backward_cuda(&p, &b1, st));
  BCHECK(fusednorm_backward_cuda(&pf, &b2, st));
  BCHECK(cudaStreamSynchronize(st));
  struct { void *a, *b; size_t n; const char *name; } cmp[] = {{dx1 + off, dx2 + off, mn * 2, "dx"}, {dw1, dw2, N * wb, "dw"}};
  for (int k = 0; k < 2; ++k) {
    char *ha = malloc(cmp[k].n), *hb = malloc(cmp[k].n);
    BCHECK(cudaMemcpy(ha, cmp[k].a, cmp[k].n, cudaMemcpyDeviceToHost));
    BCHECK(cudaMemcpy(hb, cmp[k].b, cmp[k].n, cudaMemcpyDeviceToHost));
    if (memcmp(ha, hb, cmp[k].n)) {
      printf("FAIL dw-in-kernel %lldx%lld: %s of AUTO (one launch) differs from forced %s (two)\n", (long long)M,
             (long long)N, cmp[k].name, fusednorm_mode_name(pf.mode));
      fails++;
    }
    free(ha), free(hb);
  }
  void *all[] = {x, r, y, ro, dy, ds, dx1, dx2, w, dw1, dw2, rstd, ws};
  for (size_t k = 0; k < sizeof all / sizeof *all; ++k) cudaFree(all[k]);
  free(hx), free(hw);
  printf("[cuda] dw in the kernel %lldx%lld bf16%s w %s shift %d (%s, %lld CTAs): %s\n", (long long)M, (long long)N,
         fused ? " fused" : "", fusednorm_dtype_name(wdt), shift, fusednorm_kernel_name(la.kernel), (long long)la.grid,
         fails ? "FAILED" : "OK");
  return fails;
}

/* ---- the split-row backward on congruent rows that are not aligned (plan `unaligned`) against
 * the same rows aligned (a padded row stride). Rows of an odd width starting `shift` elements past
 * 16 bytes (each row's head differs), in AUTO where it takes this kernel (wider than
 * FN_SPLIT_AUTO_MIN_SLOTS slots), else in the forced wide mode, against the forced wide mode on the
 * aligned copy; both plans are asserted.
 * `nd2`: the rows given as two halves [2, M/2] a gap apart (an N-d layout, congruent): the
 * launcher takes the ring instance (its ring holds each row's own 16-byte vectors from its head,
 * and every column's arithmetic is the aligned kernel's), so dx and dw must be bitwise equal.
 * Without: rows of one stride, where the launcher takes the residue-class instance
 * (fn_bwd_row_by_residue: its chunks sit on each row group's head, so the partial dots and dw
 * rows are other sums): dx within one unit in the last place of its dtype and dw within 2^-16
 * of its largest magnitude. ---- */
/* One element of a row tensor (f32, bf16 or f16 bits) as a double. */
static double x_value(const unsigned char *p, fusednorm_dtype d) {
  if (d == FUSEDNORM_F32) {
    float v;
    memcpy(&v, p, 4);
    return v;
  }
  uint16_t h;
  memcpy(&h, p, 2);
  if (d == FUSEDNORM_BF16) {
    const uint32_t b = (uint32_t)h << 16;
    float v;
    memcpy(&v, &b, 4);
    return v;
  }
  const int e = (h >> 10) & 31, m = h & 1023;
  const double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
  return (h >> 15) ? -v : v;
}

static int split_head_check(cudaStream_t st, int64_t M, int64_t N, fusednorm_dtype xdt, int fused, int shift,
                            int nd2, uint64_t seed) {
  const char *const tag = "split head-split";
  if (nd2 && M % 2) {
    printf("FAIL split head-split %lldx%lld: two halves need an even row count\n", (long long)M, (long long)N);
    return 1;
  }
  const size_t es = fusednorm_dtype_size(xdt);
  const int64_t ld = (N + 7) / 8 * 8; /* the aligned copy's row stride (16 bytes for any dtype) */
  fusednorm_problem pa = fusednorm_problem_init(M, N, xdt, FUSEDNORM_F32);
  pa.has_residual = fused;
  pa.mode = FUSEDNORM_MODE_WIDE;
  fusednorm_problem pu = pa; /* AUTO where it takes the split-row kernel, else forced */
  if ((N + 16 / (int64_t)es - 1) / (16 / (int64_t)es) > FN_SPLIT_AUTO_MIN_SLOTS) pu.mode = FUSEDNORM_MODE_AUTO;
  /* nd2: half h's row r at element h * outer0 + r * N; the gap keeps the halves congruent */
  const int64_t half = M / 2, outer0 = half * N + 16 / (int64_t)es;
  if (nd2) pu.row_dims = 2, pu.row_shape[0] = 2, pu.row_shape[1] = half;
  fusednorm_device_info info;
  BCHECK(fusednorm_cuda_device_info(-1, &info));
  const fusednorm_layout lal = {1, 1, 0, 16}, lcg16 = {0, 1, 0, 0};
  fusednorm_launch la, lu;
  BCHECK(fusednorm_select_launch(&pa, 1, &info, &lal, &la));
  BCHECK(fusednorm_select_launch(&pu, 1, &info, &lcg16, &lu));
  if (la.kernel != FUSEDNORM_KERNEL_BWD_SPLIT || la.unaligned || lu.kernel != FUSEDNORM_KERNEL_BWD_SPLIT ||
      !lu.unaligned || la.ctas_per_row != lu.ctas_per_row || la.chunk != lu.chunk || la.grid != lu.grid) {
    printf("FAIL split head-split %lldx%lld: plans aligned %s u%d, head-split %s u%d: not the pair to compare\n",
           (long long)M, (long long)N, fusednorm_kernel_name(la.kernel), la.unaligned,
           fusednorm_kernel_name(lu.kernel), lu.unaligned);
    return 1;
  }
  const size_t mn = (size_t)M * (size_t)N;
  unsigned char *hv = malloc(mn * es * 3), *hp = malloc((size_t)M * ld * es);
  float *hw = malloc((size_t)N * 4), *hr = malloc((size_t)M * 4);
  for (size_t i = 0; i < mn * 3; ++i) { /* x (s), dy, ds: finite values near 1 in magnitude */
    const float v = ((float)(lcg(&seed) >> 40) / (float)(1 << 24) - 0.5f) * 4.0f;
    uint32_t b;
    memcpy(&b, &v, 4);
    if (es == 4) memcpy(hv + 4 * i, &v, 4);
    else { const uint16_t h = (uint16_t)(b >> 16); memcpy(hv + 2 * i, &h, 2); } /* bf16 */
  }
  for (int64_t j = 0; j < N; ++j) hw[j] = 0.5f + (float)(lcg(&seed) >> 40) / (float)(1 << 24);
  for (int64_t i = 0; i < M; ++i) hr[i] = 0.25f + (float)(lcg(&seed) >> 40) / (float)(1 << 26);
  size_t wsb = 0, wsu = 0;
  BCHECK(fusednorm_backward_workspace_size_cuda(&pa, -1, &wsb));
  BCHECK(fusednorm_backward_workspace_size_cuda(&pu, -1, &wsu));
  if (wsu > wsb) wsb = wsu;
  /* The shifted tensors end exactly at their allocation's end, so memcheck (the GPU suite runs it
   * over --bitwise) sees any read past the last row's tail; the bytes before their first row are
   * NaN, so a head read that reached a slot would show in dx and dw. */
  const size_t off = (size_t)shift * es, pb = (size_t)M * ld * es;
  const size_t cb = off + (nd2 ? (size_t)(outer0 + half * N) : mn) * es;
  /* row i of the unaligned tensors: its element offset past `off` */
#define UROW(i) ((size_t)(nd2 && (i) >= half ? outer0 + ((i) - half) * N : (i) * N))
  char *su, *dyu, *dsu, *dxu, *sa, *dya, *dsa, *dxa;
  void *w, *dwu, *dwa, *ws;
  float *rstd;
  BCHECK(cudaMalloc((void **)&su, cb)); BCHECK(cudaMalloc((void **)&dyu, cb)); BCHECK(cudaMalloc((void **)&dsu, cb));
  BCHECK(cudaMalloc((void **)&dxu, cb)); BCHECK(cudaMalloc((void **)&sa, pb)); BCHECK(cudaMalloc((void **)&dya, pb));
  BCHECK(cudaMalloc((void **)&dsa, pb)); BCHECK(cudaMalloc((void **)&dxa, pb));
  BCHECK(cudaMalloc(&w, N * 4)); BCHECK(cudaMalloc(&dwu, N * 4)); BCHECK(cudaMalloc(&dwa, N * 4));
  BCHECK(cudaMalloc((void **)&rstd, M * 4)); BCHECK(cudaMalloc(&ws, wsb));
  char *ubuf[3] = {su, dyu, dsu}, *abuf[3] = {sa, dya, dsa};
  for (int t = 0; t < 3; ++t) {
    BCHECK(cudaMemset(ubuf[t], 0xFF, cb));
    for (int64_t i = 0; i < M; i += nd2 ? half : M) /* (each half's rows contiguous) */
      BCHECK(cudaMemcpy(ubuf[t] + off + UROW(i) * es, hv + (t * mn + (size_t)i * N) * es,
                        (size_t)(nd2 ? half : M) * N * es, cudaMemcpyHostToDevice));
    memset(hp, 0x7f, (size_t)M * ld * es); /* padding: poison the aligned copy never reads */
    for (int64_t i = 0; i < M; ++i) memcpy(hp + (size_t)i * ld * es, hv + (t * mn + (size_t)i * N) * es, N * es);
    BCHECK(cudaMemcpy(abuf[t], hp, (size_t)M * ld * es, cudaMemcpyHostToDevice));
  }
  BCHECK(cudaMemcpy(w, hw, N * 4, cudaMemcpyHostToDevice));
  BCHECK(cudaMemcpy(rstd, hr, M * 4, cudaMemcpyHostToDevice));
  BCHECK(cudaMemset(dxu, 0xFF, cb)); BCHECK(cudaMemset(dxa, 0x7F, pb));
  BCHECK(cudaMemset(dwu, 0xFF, N * 4)); BCHECK(cudaMemset(dwa, 0x7F, N * 4));
  BCHECK(cudaDeviceSynchronize());
  fusednorm_bwd_args bu = {dyu + off, N, su + off, N, fused ? dsu + off : NULL, fused ? N : 0, w, rstd, dxu + off, N,
                           dwu, ws, wsb, {outer0}, {outer0}, {outer0}, {outer0}};
  fusednorm_bwd_args ba = {dya, ld, sa, ld, fused ? dsa : NULL, fused ? ld : 0, w, rstd, dxa, ld,
                           dwa, ws, wsb, {0}, {0}, {0}, {0}};
  BCHECK(fusednorm_backward_cuda(&pu, &bu, st));
  BCHECK(cudaStreamSynchronize(st));
  float *hdwu = malloc(N * 4), *hdwa = malloc(N * 4);
  unsigned char *hdxu = malloc(mn * es), *hdxa = malloc((size_t)M * ld * es);
  BCHECK(cudaMemcpy(hdwu, dwu, N * 4, cudaMemcpyDeviceToHost));
  for (int64_t i = 0; i < M; i += nd2 ? half : M)
    BCHECK(cudaMemcpy(hdxu + (size_t)i * N * es, dxu + off + UROW(i) * es, (size_t)(nd2 ? half : M) * N * es,
                      cudaMemcpyDeviceToHost));
#undef UROW
  BCHECK(fusednorm_backward_cuda(&pa, &ba, st)); /* (the same workspace, after the first is done) */
  BCHECK(cudaStreamSynchronize(st));
  BCHECK(cudaMemcpy(hdwa, dwa, N * 4, cudaMemcpyDeviceToHost));
  BCHECK(cudaMemcpy(hdxa, dxa, (size_t)M * ld * es, cudaMemcpyDeviceToHost));
  int fails = 0;
  int64_t bad_rows = 0;
  for (int64_t i = 0; i < M; ++i) {
    const unsigned char *u = hdxu + (size_t)i * N * es, *a = hdxa + (size_t)i * ld * es;
    if (nd2) {
      bad_rows += memcmp(u, a, N * es) != 0;
      continue;
    }
    /* within one unit of T's last place (eps * |a|), or a small part of the row's largest |dx|
     * where the terms cancel: fp32 sums of the same products in another order */
    const double eps = es == 4 ? 0x1p-22 : xdt == FUSEDNORM_F16 ? 0x1p-10 : 0x1p-7;
    double rmax = 0.0;
    for (int64_t j = 0; j < N; ++j) rmax = fmax(rmax, fabs(x_value(a + j * es, xdt)));
    for (int64_t j = 0; j < N; ++j) {
      const double va = x_value(a + j * es, xdt), vu = x_value(u + j * es, xdt);
      if (!(fabs(vu - va) <= eps * fabs(va) + 0x1p-20 * rmax)) {
        bad_rows++;
        break;
      }
    }
  }
  if (bad_rows) {
    printf("FAIL split head-split %lldx%lld%s: dx differs from the aligned run in %lld rows%s\n", (long long)M,
           (long long)N, nd2 ? " (two halves)" : "", (long long)bad_rows, nd2 ? "" : " (beyond one ulp)");
    fails++;
  }
  float dmax = 0.0f;
  for (int64_t j = 0; j < N; ++j) dmax = fabsf(hdwa[j]) > dmax ? fabsf(hdwa[j]) : dmax;
  int64_t bad_dw = 0;
  for (int64_t j = 0; j < N; ++j)
    bad_dw += nd2 ? memcmp(&hdwu[j], &hdwa[j], 4) != 0 : !(fabsf(hdwu[j] - hdwa[j]) <= dmax * 0x1p-16f);
  if (bad_dw) {
    printf("FAIL split head-split %lldx%lld%s: dw differs from the aligned run in %lld columns\n", (long long)M,
           (long long)N, nd2 ? " (two halves)" : "", (long long)bad_dw);
    fails++;
  }
  void *all[] = {su, dyu, dsu, dxu, sa, dya, dsa, dxa, w, dwu, dwa, rstd, ws};
  for (size_t k = 0; k < sizeof all / sizeof *all; ++k) cudaFree(all[k]);
  free(hv), free(hp), free(hw), free(hr), free(hdwu), free(hdwa), free(hdxu), free(hdxa);
  printf("[cuda] split-row backward, head-split %lldx%lld %s%s shift %d%s (%d CTAs a row): %s\n", (long long)M,
         (long long)N, fusednorm_dtype_name(xdt), fused ? " fused" : "", shift, nd2 ? ", two halves (ring)" : "",
         lu.ctas_per_row, fails ? "FAILED" : "OK");
  return fails;
}

static int bitwise_checks(cudaStream_t st, const fusednorm_device_info *info, uint64_t gseed);

/* ---- few wide rows: the wide forward (rmsnorm_fwd_wide.cu, FUSEDNORM_KERNEL_FWD_WIDE) ----
 * Every variant of the engine (dtype pairs, castings, offsets, no weight, fused add, strides,
 * planted NaN/Inf; forward and backward, run twice for determinism) over 1..200 rows of 32K..1M
 * columns, odd widths included, in forced WIDE with aligned and with misaligned pointers (the
 * 16-byte and the element-wise instances), then AUTO (200 x 98312: AUTO's wide forward for many
 * rows, select.c FN_AUTO_FWD_WIDE_MANY_*). Shapes of one or two vector slots, which no
 * cluster can split, check that the forced mode answers FUSEDNORM_ERR_MODE_UNSUPPORTED (counted by
 * run_launch). --quick: fewer variants, rows x n <= 2^22. Returns the failed runs. */
static int wide_fwd_section(cuda_ctx *c, fn_backend *b, const fn_engine_opts *o, const fusednorm_device_info *info) {
  /* About 85M elements a run (the host's float64 reference dominates the time): every variant on
   * the small shapes, a rotating few on the large ones. */
  static const fn_engine_shape kShapes[] = {
      {1, 32768, 0},     {17, 32768, 6},   {131, 32768, 2},  {200, 32776, 1},   {3, 32771, 12},
      {1, 65537, 12},    {160, 65536, 1},  {33, 98303, 2},   {64, 131072, 1},   {1, 262144, 12},
      {17, 262144, 2},   {5, 262147, 3},   {2, 1048576, 2},  {1, 1048573, 3},   {7, 1048576, 1},
      {199, 40000, 1},   {200, 98312, 2},  {4, 16, 6},       {2, 9, 4},        {5, 8, 6},         {3, 1, 4},
      /* 16 and 9 columns: two 16-bit slots, the smallest cluster; 8 (16-bit) and 1: one slot, which
       * no cluster splits: MODE_UNSUPPORTED */
  };
  enum { NS = (int)(sizeof kShapes / sizeof kShapes[0]) };
  fn_engine_shape list[NS + 4];
  int n = 0, failed = 0, planfail = 0;
  for (int i = 0; i < NS; ++i) {
    fn_engine_shape sh = kShapes[i];
    if (o->quick && sh.rows * sh.n > (1 << 22)) continue;
    if (o->quick && (sh.variants <= 0 || sh.variants > 3)) sh.variants = 3;
    list[n++] = sh;
  }
  /* Many wide rows, in --quick too: two waves of clusters, where the plan stages the weight
   * (weight_smem) and its CTAs loop over rows. The engine's rotation (by the shape's place in the
   * list) gives it f32 and f16 rows with their own weight, 16-bit rows with an fp32 weight (offset
   * 1, fused; Gemma, fused) and two without a weight; --quick: f16 fused, bf16 with an fp32 weight
   * (LLAMA casting), bf16 fused without a weight. */
  list[n++] = (fn_engine_shape){300, 65536, o->quick ? 3 : 6};
  /* Many wide plain rows a little past one wave of clusters: every slot staged, the weight in
   * registers (select.c fwd_wide_wr). The rotation (by the place in the list) gives it, --quick:
   * f32 rows with their own weight, f16 rows (LLAMA, strided), bf16 rows without a weight
   * (strided) and three fused variants with an fp32 weight; the full run: bf16 rows with their own
   * weight and the offset, f16 rows without a weight (strided, padded), bf16 rows with an fp32
   * weight (Gemma) and three fused variants (the plans before it). */
  list[n++] = (fn_engine_shape){140, 65536, 6};
  /* ... and a chunk of 6 of the instance's 8 slots a thread (49152 columns at 4 CTAs a row, f32 at
   * 8): the instance's guarded slots, where 65536 fills every slot (its unguarded code) */
  list[n++] = (fn_engine_shape){140, 49152, 3};
  /* AUTO's every-slot-staged plan below the many-rows cut (select.c fwd_wide_wr_pays): 3072
   * 16-bit slots at three rows an SM (the full run; its f32 variants are 6144 slots: the many-rows
   * rule). Five variants at this place in the list: the rotation's f16 rows with an f16 weight,
   * unstrided, are among them (the check below fails if they are not). */
  if (!o->quick) list[n++] = (fn_engine_shape){400, 24576, 5};
  /* The forced forward is the wide kernel: a cluster a row wherever the device has clusters, else
   * the grid sum (a cooperative grid, from six vectors a row; below three unsupported). A section
   * that silently ran another kernel would test nothing. */
  for (int i = 0; i < n; ++i) {
    fusednorm_problem p = fusednorm_problem_init(list[i].rows, list[i].n, FUSEDNORM_BF16, FUSEDNORM_BF16);
    const fusednorm_layout al = {1, 1, 0, 16};
    fusednorm_launch l;
    p.mode = FUSEDNORM_MODE_WIDE;
    const fusednorm_status st = fusednorm_select_launch(&p, 0, info, &al, &l);
    const int clusters = info->cc_major >= 9;
    const int want = clusters ? list[i].n > 8 : list[i].n >= 6 * 8;
    if (want ? st != FUSEDNORM_OK || l.kernel != FUSEDNORM_KERNEL_FWD_WIDE || (l.cluster > 1) != clusters
             : st != FUSEDNORM_ERR_MODE_UNSUPPORTED) {
      printf("FAIL [cuda/wide-fwd] plan of forced wide %lldx%lld bf16: status %d kernel %s\n", (long long)list[i].rows,
             (long long)list[i].n, (int)st, st == FUSEDNORM_OK ? fusednorm_kernel_name(l.kernel) : "-");
      ++planfail;
    }
  }
  /* AUTO's grid sum: without clusters (FN_AUTO_FWD_WIDE_GRID_*) and, where the rows' clusters
   * would fill at most half of the SMs, with them (FN_AUTO_FWD_WIDE_GRID_CL_*): 2 x 1048576 bf16
   * on a device of 64 SMs or more; the AUTO runs below take it there. */
  {
    fusednorm_problem p = fusednorm_problem_init(2, 1048576, FUSEDNORM_BF16, FUSEDNORM_BF16);
    const fusednorm_layout al = {1, 1, 0, 16};
    fusednorm_launch l;
    const int maxcl = fn_fwd_wide_max_cluster(info->cc_major);
    const int want = maxcl < 2 ? info->sm_count >= 6 : info->sm_count >= 2 * 2 * maxcl;
    const fusednorm_status st = fusednorm_select_launch(&p, 0, info, &al, &l);
    const int gs = st == FUSEDNORM_OK && l.kernel == FUSEDNORM_KERNEL_FWD_WIDE && l.cluster == 1 && l.ctas_per_row >= 2;
    if (st != FUSEDNORM_OK || (want && !gs)) {
      printf("FAIL [cuda/wide-fwd] AUTO plan of 2x1048576 bf16 on %d SMs: status %d kernel %s, not the grid sum\n",
             info->sm_count, (int)st, st == FUSEDNORM_OK ? fusednorm_kernel_name(l.kernel) : "-");
      ++planfail;
    } else {
      printf("[cuda/wide-fwd] AUTO 2x1048576 bf16: %s\n", gs ? "the grid sum" : "not the grid sum (too few SMs)");
    }
  }
  failed += planfail != 0;
  /* The weight staged with x (select.c fwd_wide), and every slot staged with the weight in
   * registers (fwd_wide_wr): where this device's plan of an unstrided variant that the rotation
   * above gives these shapes takes them, the runs below must have launched them. Staged weight:
   * 300 x 65536 fused, f16 with an f16 weight (--quick) or bf16 with an fp32 weight. Every slot
   * staged: 140 x 65536 plain, f32 with an f32 weight (--quick) or bf16 with a bf16 weight. */
  int want_ws, want_wr, want_auto_wr;
  {
    const fusednorm_layout al = {1, 1, 0, 16};
    fusednorm_launch l;
    fusednorm_problem p = o->quick ? fusednorm_problem_init(300, 65536, FUSEDNORM_F16, FUSEDNORM_F16)
                                   : fusednorm_problem_init(300, 65536, FUSEDNORM_BF16, FUSEDNORM_F32);
    p.mode = FUSEDNORM_MODE_WIDE;
    p.has_residual = 1;
    want_ws = fusednorm_select_launch(&p, 0, info, &al, &l) == FUSEDNORM_OK && l.weight_smem;
    p = o->quick ? fusednorm_problem_init(140, 65536, FUSEDNORM_F32, FUSEDNORM_F32)
                 : fusednorm_problem_init(140, 65536, FUSEDNORM_BF16, FUSEDNORM_BF16);
    p.mode = FUSEDNORM_MODE_WIDE;
    want_wr = fusednorm_select_launch(&p, 0, info, &al, &l) == FUSEDNORM_OK && l.kernel == FUSEDNORM_KERNEL_FWD_WIDE &&
              l.slots_per_thread == 0;
    /* the full run's 400 x 24576 in AUTO (its f16 variant) */
    p = fusednorm_problem_init(400, 24576, FUSEDNORM_F16, FUSEDNORM_F16);
    want_auto_wr = !o->quick && fusednorm_select_launch(&p, 0, info, &al, &l) == FUSEDNORM_OK &&
                   l.kernel == FUSEDNORM_KERNEL_FWD_WIDE && l.slots_per_thread == 0;
  }
  int auto_wr = 0;
  c->ran_wide_ws = c->ran_wide_wr = c->ran_wide_wr_part = c->ran_wide_wr_mid = 0;
  if (info->cc_major < 9)
    printf("[cuda/wide-fwd] compute capability %d.%d: no clusters, the forced wide forward is the grid sum "
           "(a cooperative grid)\n", info->cc_major, info->cc_minor);
  static const struct { fusednorm_mode mode; int misalign; const char *name; } kRuns[] = {
      {FUSEDNORM_MODE_WIDE, OFFS_NONE, "cuda/wide-fwd/wide"},
      {FUSEDNORM_MODE_WIDE, OFFS_ONE, "cuda/wide-fwd/wide/misaligned"},
      /* congruent rows (a head of 1 .. vector-1 elements per shape; the engine's strided variants
       * are not congruent): the head-split path; rows apart: element by element */
      {FUSEDNORM_MODE_WIDE, OFFS_CONGRUENT, "cuda/wide-fwd/wide/congruent"},
      {FUSEDNORM_MODE_WIDE, OFFS_APART, "cuda/wide-fwd/wide/apart"},
      {FUSEDNORM_MODE_AUTO, OFFS_NONE, "cuda/wide-fwd/auto"},
      {FUSEDNORM_MODE_AUTO, OFFS_CONGRUENT, "cuda/wide-fwd/auto/congruent"},
  };
  for (size_t r = 0; r < sizeof kRuns / sizeof kRuns[0]; ++r) {
    fn_engine_opts om = *o;
    om.mode = kRuns[r].mode;
    c->misalign = kRuns[r].misalign;
    c->fallbacks = c->bad_status = 0;
    b->name = kRuns[r].name;
    const int wr0 = c->ran_wide_wr_mid;
    const int f = fn_engine_run_shapes(b, &om, list, n);
    if (kRuns[r].mode == FUSEDNORM_MODE_AUTO && kRuns[r].misalign == OFFS_NONE) auto_wr = c->ran_wide_wr_mid - wr0;
    if (c->fallbacks) printf("[%s] %d calls outside the family's limits ran in AUTO\n", b->name, c->fallbacks);
    if (c->bad_status) {
      printf("FAIL [%s] %d of them did not return FUSEDNORM_ERR_MODE_UNSUPPORTED\n", b->name, c->bad_status);
      ++failed;
    }
    failed += f != 0;
  }
  c->misalign = 0;
  printf("[cuda/wide-fwd] %d forwards with the weight staged%s\n", c->ran_wide_ws,
         want_ws ? "" : " (not this device's plan for the 300 x 65536 fused variant)");
  if (want_ws && c->ran_wide_ws == 0 && o->filter == NULL && o->case_index < 0) {
    printf("FAIL [cuda/wide-fwd] no launch ran the wide forward with its weight staged\n");
    ++failed;
  }
  printf("[cuda/wide-fwd] %d forwards with every slot staged, %d of them with a chunk short of its slots%s\n",
         c->ran_wide_wr, c->ran_wide_wr_part, want_wr ? "" : " (not this device's plan for the 140 x 65536 plain variant)");
  if (want_wr && (c->ran_wide_wr == c->ran_wide_wr_part || c->ran_wide_wr_part == 0) && o->filter == NULL &&
      o->case_index < 0) {
    printf("FAIL [cuda/wide-fwd] the wide forward with every slot staged did not run both with whole and short chunks\n");
    ++failed;
  }
  printf("[cuda/wide-fwd] AUTO: %d forwards with every slot staged below 6000 slots%s\n", auto_wr,
         want_auto_wr ? "" : " (400 x 24576 f16 is not this device's plan for it, or --quick)");
  if (want_auto_wr && auto_wr == 0 && o->filter == NULL && o->case_index < 0) {
    printf("FAIL [cuda/wide-fwd] AUTO did not run the wide forward with every slot staged below 6000 slots\n");
    ++failed;
  }
  return failed;
}

/* The lean forward at eight slots a thread (rmsnorm_fwd_row.cu S = 8; select.c FN_AUTO_FWD_ROW8_*:
 * aligned rows of 2560-4096 slots, from 8 rows an SM), AUTO, on 1100 rows (8 an SM up to 137
 * SMs) x 16384 / 24576 / 12288 / 20480 columns: the engine's rotation gives these shapes f32 rows
 * with a weight (16384) and without (12288: LLAMA casting; 16384 fused), bf16 rows with the offset
 * weight and the plain one (24576), bf16 fused and f16 with padded strides (20480), beside
 * variants that other kernels run (an fp32 weight on 16-bit rows, rows off 16 bytes; the fused
 * add where the wide forward's plan stages its weight, f32 16384). The section fails unless S = 8
 * ran where this device's plan takes it, plain (the plan is asked for the f32 16384 case) and fused
 * (bf16 20480; --quick f32 11000). --quick: f32 plain, bf16 with the offset weight, f32 fused with
 * GEMMA casting (padded strides; 11000 columns, below the wide plan's staged weight). The shapes and
 * references are engine.h's FN_COV_FWD_ROW8_*, which test_plan_coverage replays on the CPU for
 * every device of its table. */
static int fwd_row8_section(cuda_ctx *c, fn_backend *b, const fn_engine_opts *o, const fusednorm_device_info *info) {
  static const fn_engine_shape kShapes[] = FN_COV_FWD_ROW8_SHAPES, kQuick[] = FN_COV_FWD_ROW8_QUICK_SHAPES;
  const fusednorm_problem p8 = fn_cov_fwd_row8_problem();
  const fusednorm_layout lay8 = FN_COV_LAYOUT;
  fusednorm_launch l8;
  const int want8 = fusednorm_select_launch(&p8, 0, info, &lay8, &l8) == FUSEDNORM_OK &&
                    l8.kernel == FUSEDNORM_KERNEL_FWD_ROW && l8.slots_per_thread == 8;
  const fusednorm_problem pf = fn_cov_fwd_row8_fused_problem(o->quick);
  const int want8f = fusednorm_select_launch(&pf, 0, info, &lay8, &l8) == FUSEDNORM_OK &&
                     l8.kernel == FUSEDNORM_KERNEL_FWD_ROW && l8.slots_per_thread == 8;
  fn_engine_opts om = *o;
  om.mode = FUSEDNORM_MODE_AUTO;
  b->name = "cuda/auto/fwd-row8";
  c->misalign = OFFS_NONE;
  c->ran_fwd_row8 = c->ran_fwd_row8f = 0;
  int failed = fn_engine_run_shapes(b, &om, o->quick ? kQuick : kShapes,
                                    o->quick ? (int)(sizeof kQuick / sizeof kQuick[0])
                                             : (int)(sizeof kShapes / sizeof kShapes[0])) != 0;
  printf("[%s] %d forwards at eight slots a thread, %d of them fused%s%s\n", b->name, c->ran_fwd_row8,
         c->ran_fwd_row8f, want8 ? "" : " (not this device's plan for 1100 x 16384 f32)",
         want8f ? "" : " (nor the fused one's)");
  if (want8 && c->ran_fwd_row8 == c->ran_fwd_row8f && o->filter == NULL && o->case_index < 0) {
    printf("FAIL [%s] no plain launch ran fwd_row at eight slots a thread\n", b->name);
    ++failed;
  }
  if (want8f && c->ran_fwd_row8f == 0 && o->filter == NULL && o->case_index < 0) {
    printf("FAIL [%s] no fused launch ran fwd_row at eight slots a thread\n", b->name);
    ++failed;
  }
  return failed;
}

/* The lean backward's narrow instance (rmsnorm_bwd_row.cu NARROW64: one slot a thread, 64-thread
 * CTAs bounded to FN_BWD_ROW_NARROW_MIN_CTAS an SM; select.c FN_AUTO_BWD_ROW_NARROW_ROWS_PER_SM),
 * AUTO, on 17100 rows (100 an SM up to 171 SMs) x 384 / 512 columns: the engine's rotation gives
 * these shapes 16-bit rows with a weight, plain (bf16 with the offset weight, bf16 with an fp32
 * GEMMA weight, bf16 plain) and fused (f16 with an fp32 LLAMA weight), beside strided and
 * weightless variants that other kernels run. The section fails unless the narrow instance ran
 * both plain and fused where this device's plan of 17100 x 512 bf16 takes it (test_plan_coverage
 * predicts which devices). Not in --quick
 * (8.8M elements a tensor). */
static int narrow_bwd_section(cuda_ctx *c, fn_backend *b, const fn_engine_opts *o, const fusednorm_device_info *info) {
  static const fn_engine_shape kShapes[] = FN_COV_NARROW_SHAPES;
  const fusednorm_problem pn = fn_cov_narrow_problem();
  const fusednorm_layout layn = FN_COV_LAYOUT;
  fusednorm_launch ln;
  const int want = fusednorm_select_launch(&pn, 1, info, &layn, &ln) == FUSEDNORM_OK &&
                   ln.kernel == FUSEDNORM_KERNEL_BWD_ROW && ln.narrow;
  fn_engine_opts om = *o;
  om.mode = FUSEDNORM_MODE_AUTO;
  b->name = "cuda/auto/bwd-narrow";
  c->misalign = OFFS_NONE;
  c->ran_bwd_narrow = c->ran_bwd_narrow_f = 0;
  int failed = fn_engine_run_shapes(b, &om, kShapes, 2) != 0;
  printf("[%s] backwards on the narrow instance: %d plain, %d fused%s\n", b->name, c->ran_bwd_narrow,
         c->ran_bwd_narrow_f, want ? "" : " (not this device's plan for 17100 x 512 bf16)");
  if (want && (c->ran_bwd_narrow == 0 || c->ran_bwd_narrow_f == 0) && o->filter == NULL && o->case_index < 0) {
    printf("FAIL [%s] the narrow instance did not run both plain and fused backwards\n", b->name);
    ++failed;
  }
  return failed;
}

/* The split-row backward of many f32 rows past the lean kernels (select.c FN_AUTO_BWD_F32_SPLIT_*:
 * aligned whole-vector rows of 2049-7168 slots from 4 rows an SM, where its ring holds 7 rows or
 * more), AUTO, on 600 rows (4 an SM up to 150 SMs) x 16400 columns (4100 slots). The engine's
 * rotation gives this shape, first in its list, variants 0, 6, ..., 54, 0, 6: f32 rows with a
 * weight, plain (variant 0, twice) and fused (30), beside 16-bit rows, an fp32 weight, no weight
 * and planted NaN/Inf that other kernels run. The section fails unless f32 backwards, plain and
 * fused, ran the split-row kernel where this device's plan of 600 x 16400 f32 fused takes it
 * (test_plan_coverage predicts that on the CPU). Not in --quick (9.8M elements a tensor).
 * With `fused16`, the fused add's 16-bit backward of more than 3072 slots from
 * FN_AUTO_BWD_ROW8_16_FUSED_SPLIT_ROWS_PER_SM rows an SM (select.c): AUTO over
 * FN_COV_F16_SPLIT_SHAPE, 1001 x 32768, whose unstrided f16 fused variant must run on the split-row
 * kernel where this device's plan of it is that kernel (test_plan_coverage predicts which
 * devices). Not in --quick (32.8M elements a tensor). */
static int split_section(cuda_ctx *c, fn_backend *b, const fn_engine_opts *o, const fusednorm_device_info *info,
                         int fused16) {
  const fn_engine_shape shape = fused16 ? (fn_engine_shape)FN_COV_F16_SPLIT_SHAPE : (fn_engine_shape)FN_COV_F32_SPLIT_SHAPE;
  const fusednorm_problem ps = fused16 ? fn_cov_f16_split_problem() : fn_cov_f32_split_problem();
  const fusednorm_layout lays = FN_COV_LAYOUT;
  fusednorm_launch ls;
  const int want = fusednorm_select_launch(&ps, 1, info, &lays, &ls) == FUSEDNORM_OK &&
                   ls.kernel == FUSEDNORM_KERNEL_BWD_SPLIT;
  fn_engine_opts om = *o;
  om.mode = FUSEDNORM_MODE_AUTO;
  b->name = fused16 ? "cuda/auto/fused16-split" : "cuda/auto/f32-split";
  c->misalign = OFFS_NONE;
  c->ran_split_f32 = c->ran_split_f32f = c->ran_split_16f = 0;
  int failed = fn_engine_run_shapes(b, &om, &shape, 1) != 0;
  if (fused16)
    printf("[%s] 16-bit fused backwards on the split-row kernel: %d%s\n", b->name, c->ran_split_16f,
           want ? "" : " (not this device's plan for 1001 x 32768 f16 fused)");
  else
    printf("[%s] f32 backwards on the split-row kernel: %d plain, %d fused%s\n", b->name, c->ran_split_f32,
           c->ran_split_f32f, want ? "" : " (not this device's plan for 600 x 16400 f32 fused)");
  const int ran = fused16 ? c->ran_split_16f > 0 : c->ran_split_f32 > 0 && c->ran_split_f32f > 0;
  if (want && !ran && o->filter == NULL && o->case_index < 0) {
    printf("FAIL [%s] the split-row kernel did not run %s\n", b->name,
           fused16 ? "the 16-bit fused backward" : "f32 backwards both plain and fused");
    ++failed;
  }
  return failed;
}

/* Unaligned rows (the head-split lean kernels, rmsnorm_unaligned.cuh, and the generic path where
 * the rows are not congruent): odd widths over the quick matrix's rows (0, 1, 7, 199, 4096), every
 * dtype pair, casting, fused add and weight flavour the matrix rotates through, with
 *   OFFS_CONGRUENT: all row tensors `head` elements off (1 .. vector-1, varied over the shapes),
 *     the weight elsewhere: congruent where the engine's strides agree (its unstrided variants),
 *     not where they differ (its strided ones: N+3 in, N+5 out);
 *   OFFS_APART: row tensors at different offsets: never congruent;
 * AUTO in both patterns, every forced mode congruent (the generic path of rows apart is the
 * misaligned pass's); --mode=NAME: that mode in both. --quick (the suite's compute-sanitizer
 * run): AUTO and the two modes whose families have head-split instances (persistent,
 * multi_wave_cached), over the first kQuickNs widths. 20001 and 40003 are wider than the lean
 * kernels hold: the generic forward's head-split path (reload and cached) and, with fewer rows
 * than SMs, the wide forward's. 3: rows that end inside their head (up to 7 elements before a
 * 16-byte boundary), whose head every head-split kernel must bound by the row's end, in every
 * forced mode. */
static const int64_t kUnalignedNs[] = {7, 127, 1023, 2881, 4097, 20001, 1025, 2887, 8191, 40003, 3};
#define kQuickNs 6

static int run_unaligned(fn_backend *b, cuda_ctx *c, const fn_engine_opts *o, int forced_only, int *runs) {
  static char names[2][FUSEDNORM_MODE_COUNT_][64];
  int failed = 0;
  for (int pat = 0; pat < 2; ++pat)
    for (int m = 0; m < FUSEDNORM_MODE_COUNT_; ++m) {
      if (forced_only && m != (int)o->mode) continue;
      if (pat && m != FUSEDNORM_MODE_AUTO && !forced_only) continue;
      if (o->quick && !forced_only && m != FUSEDNORM_MODE_AUTO && m != FUSEDNORM_MODE_PERSISTENT &&
          m != FUSEDNORM_MODE_MULTI_WAVE_CACHED)
        continue;
      fn_engine_opts om = *o;
      om.mode = (fusednorm_mode)m;
      om.quick = 1;
      om.ns = kUnalignedNs;
      om.n_ns = o->quick ? kQuickNs : (int)(sizeof kUnalignedNs / sizeof kUnalignedNs[0]);
      snprintf(names[pat][m], sizeof names[pat][m], "cuda/%s/%s", fusednorm_mode_name((fusednorm_mode)m),
               pat ? "apart" : "congruent");
      b->name = names[pat][m];
      c->misalign = pat ? OFFS_APART : OFFS_CONGRUENT;
      c->fallbacks = c->bad_status = 0;
      failed += fn_engine_run_matrix(b, &om) != 0, ++*runs;
      if (c->fallbacks) printf("[%s] %d calls outside the family's documented limits ran in AUTO\n", b->name, c->fallbacks);
      if (c->bad_status) {
        printf("FAIL [%s] %d of them did not return FUSEDNORM_ERR_MODE_UNSUPPORTED\n", b->name, c->bad_status);
        ++failed;
      }
      c->misalign = OFFS_NONE;
    }
  return failed;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* keep the log when a time limit kills the run */
  fn_engine_opts o;
  /* --wide-fwd and --unaligned are this binary's own flags (one section each); the rest are the
   * engine's. */
  int wide_fwd = 0, unaligned_only = 0, bitwise_only = 0, plans_only = 0, kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--wide-fwd")) wide_fwd = 1;
    else if (!strcmp(argv[i], "--plan-sections")) plans_only = 1;
    else if (!strcmp(argv[i], "--unaligned")) unaligned_only = 1;
    else if (!strcmp(argv[i], "--bitwise")) bitwise_only = 1;
    else argv[kept++] = argv[i];
  }
  argc = kept;
  if (wide_fwd + unaligned_only + bitwise_only + plans_only > 1) {
    printf("test_cuda: --wide-fwd, --unaligned, --bitwise and --plan-sections are separate sections: give one\n");
    return 2;
  }
  int rc = fn_engine_parse_args(argc, argv, &o);
  if (rc) return rc;
  if (!fusednorm_cuda_available()) {
    printf("test_cuda: FAILED: no CUDA device visible (this GPU test needs one)\n");
    return 1;
  }
  struct cudaDeviceProp prop;
  int dev = 0;
  cudaGetDevice(&dev);
  cudaGetDeviceProperties(&prop, dev);
  printf("test_cuda: device %d: %s, %d SMs, cc %d.%d\n", dev, prop.name, prop.multiProcessorCount,
         prop.major, prop.minor);
  fusednorm_device_info info;
  if (fusednorm_cuda_device_info(-1, &info) != FUSEDNORM_OK) {
    printf("test_cuda: FAILED: fusednorm_cuda_device_info: %s\n", fusednorm_cuda_error_string());
    return 1;
  }
  /* What the plans are made for: cc below the device's where the kernels are older PTX (JIT). */
  printf("test_cuda: plan device: %d SMs, cc %d.%d%s, %d CTAs/SM, smem %zu/SM %zu/block, L2 %zu MB\n",
         info.sm_count, info.cc_major, info.cc_minor,
         info.cc_major * 10 + info.cc_minor < prop.major * 10 + prop.minor ? " (kernels built for it)" : "",
         info.max_ctas_per_sm, info.smem_per_sm, info.smem_per_block_optin, info.l2_bytes >> 20);
  /* The clusters the plans count on (0: unknown, every SM's CTAs counted). A cluster of more CTAs
   * never holds more of them, nor do fewer CTAs an SM. */
  for (int per = 1; per <= 4; ++per) {
    printf("test_cuda: clusters resident at %d CTA%s/SM, of 2/4/8/16 CTAs: %d %d %d %d\n", per, per > 1 ? "s" : "",
           info.max_clusters[per - 1][0], info.max_clusters[per - 1][1], info.max_clusters[per - 1][2],
           info.max_clusters[per - 1][3]);
    for (int k = 0; k < 4; ++k) {
      const int v = info.max_clusters[per - 1][k];
      const int bigger = k < 3 && info.max_clusters[per - 1][k + 1] * (4 << k) > v * (2 << k);
      const int fewer = per > 1 && info.max_clusters[per - 2][k] > v;
      if (info.cc_major >= 9 && (v <= 0 || bigger || fewer)) {
        printf("test_cuda: FAILED: cluster capacity [%d][%d] = %d: 0 on a device with clusters, or not monotone\n", per, k, v);
        return 1;
      }
    }
  }

  cuda_ctx c;
  memset(&c, 0, sizeof c);
  if (cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking) != cudaSuccess) {
    printf("test_cuda: FAILED: cannot create a stream\n");
    return 1;
  }
  g_stream = c.stream;
  fn_backend b = {"cuda", &c, cuda_forward, cuda_backward};
  int failed = 0, runs = 0;
  if (bitwise_only) {
    failed = bitwise_checks(c.stream, &info, o.seed ? o.seed : 0x5eed);
    cudaStreamDestroy(c.stream);
    printf("test_cuda --bitwise: %s\n", failed ? "FAILED" : "OK");
    return failed ? 1 : 0;
  }
  if (wide_fwd) {
    failed = wide_fwd_section(&c, &b, &o, &info);
    /* the wide forward captured into a graph with the wide backward (below compute capability 9.0
     * both cooperative grids: the grid sum and the split-row backward); then AUTO's grid sum
     * (every device of 64 SMs or more) */
    failed += graph_check(c.stream, 17, 262144, FUSEDNORM_MODE_WIDE, o.seed ? o.seed : 0x5eed) != 0;
    failed += graph_check(c.stream, 2, 1048576, FUSEDNORM_MODE_AUTO, o.seed ? o.seed : 0x5eed) != 0;
    cudaStreamDestroy(c.stream);
    printf("test_cuda --wide-fwd: %s\n", failed ? "FAILED" : "OK");
    return failed ? 1 : 0;
  }
  const int forced_only = o.mode != FUSEDNORM_MODE_AUTO;
  if (plans_only) {
    /* The AUTO sections that assert their family ran (the lean forward at 8 slots a thread; full
     * runs: the f32 split-row backward), which the default run reaches last, alone. */
    if (forced_only) {
      printf("test_cuda --plan-sections: AUTO sections only (no --mode)\n");
      return 2;
    }
    failed += fwd_row8_section(&c, &b, &o, &info) != 0, ++runs;
    if (!o.quick) failed += split_section(&c, &b, &o, &info, 0) != 0, ++runs;
    if (!o.quick) failed += split_section(&c, &b, &o, &info, 1) != 0, ++runs;
    if (!o.quick) failed += narrow_bwd_section(&c, &b, &o, &info) != 0, ++runs;
    cudaStreamDestroy(c.stream);
    printf("test_cuda --plan-sections: %d of %d runs failed: %s\n", failed, runs, failed ? "FAILED" : "OK");
    return failed ? 1 : 0;
  }
  /* AUTO runs the requested matrix. Each forced mode (unless one was asked for with --mode, which
   * then runs the requested matrix) runs two slices of the quick matrix: every width at M = 199,
   * and N in {1, 127, 128, 1000} at M = 4096 (grid-stride loops, odd widths, partial vectors),
   * which keeps the GPU suite within its time (the full matrix takes about a minute per mode). */
  static const char *kForcedSlices[] = {"M=199 ", "M=4096 N=1"};
  char names[FUSEDNORM_MODE_COUNT_][64];
  if (unaligned_only) {
    failed += run_unaligned(&b, &c, &o, forced_only, &runs);
    cudaStreamDestroy(c.stream);
    printf("test_cuda --unaligned: %d of %d runs failed: %s\n", failed, runs, failed ? "FAILED" : "OK");
    return failed ? 1 : 0;
  }
  for (int m = 0; m < FUSEDNORM_MODE_COUNT_; ++m) {
    if (forced_only && m != (int)o.mode) continue;
    const int sliced = !forced_only && m != FUSEDNORM_MODE_AUTO && o.filter == NULL;
    for (int sl = 0; sl < (sliced ? 2 : 1); ++sl) {
      fn_engine_opts om = o;
      om.mode = (fusednorm_mode)m;
      if (sliced) om.quick = 1, om.filter = kForcedSlices[sl];
      snprintf(names[m], sizeof names[m], "cuda/%s", fusednorm_mode_name((fusednorm_mode)m));
      b.name = names[m];
      c.fallbacks = c.bad_status = 0;
      c.ran_split_dd = 0;
      if (sliced) printf("[%s] cases matching '%s' of the quick matrix\n", b.name, om.filter);
      int f = fn_engine_run_matrix(&b, &om);
      /* --mode=wide, the whole matrix: the fused add's backward must also have run with ds out of
       * the split-row ring wherever this device's plan of one of its cases (4096 x 8192 bf16,
       * 512 threads a CTA on an H200) takes that */
      if (m == FUSEDNORM_MODE_WIDE && om.filter == NULL && o.case_index < 0) {
        const fusednorm_problem pr = fn_cov_dd_problem();
        const fusednorm_layout lal = FN_COV_LAYOUT;
        fusednorm_launch lr;
        const int want_dd = device_plan(&pr, 1, &lal, &lr) == FUSEDNORM_OK && lr.ds_direct;
        printf("[%s] %d backwards of the split-row kernel with ds out of its ring\n", b.name, c.ran_split_dd);
        if (want_dd && c.ran_split_dd == 0) {
          printf("FAIL [%s] no launch ran the split-row backward with ds out of its ring\n", b.name);
          ++failed;
        }
      }
      if (c.fallbacks)
        printf("[%s] %d calls outside the family's documented limits ran in AUTO\n", b.name, c.fallbacks);
      if (c.bad_status) {
        printf("FAIL [%s] %d of them did not return FUSEDNORM_ERR_MODE_UNSUPPORTED\n", b.name, c.bad_status);
        ++failed;
      }
      failed += f != 0, ++runs;
    }
  }
  /* Misaligned device pointers (one element past 16 bytes; the workspace 4 bytes off): the
   * vector-generic path with its scalar tail, over the same two slices. */
  if (!forced_only) {
    for (int sl = 0; sl < 2; ++sl) {
      fn_engine_opts om = o;
      om.quick = 1;
      if (o.filter == NULL) om.filter = kForcedSlices[sl];
      c.misalign = OFFS_ONE;
      b.name = "cuda/auto/misaligned";
      failed += fn_engine_run_matrix(&b, &om) != 0, ++runs;
      c.misalign = OFFS_NONE;
      if (o.filter != NULL) break;
    }
  }
  /* Narrow rows (the row-packed kernels: many rows per CTA, whole teams idle past the last row)
   * and few rows of hidden sizes (fewer rows than SMs: a partial wave, clusters, dw_reduce over
   * few partial rows): AUTO over their own shapes (odd widths, widths just past a power of two,
   * rows of 1 to 20000), forced row_packed over the narrow ones, and misaligned pointers. Many
   * rows of few columns are also where a column-wide rounding (fl(w + offset)) repeats in every
   * row, which the bias rules must not mistake for a bias. */
  if (!forced_only || o.mode == FUSEDNORM_MODE_ROW_PACKED || o.mode == FUSEDNORM_MODE_PERSISTENT) {
    static const int64_t kNarrowM[] = {1, 3, 8, 33, 257, 2000, 20000};
    static const int64_t kNarrowN[] = {8, 16, 24, 40, 64, 96, 100, 120, 128, 136, 200, 248, 255, 256};
    static const int64_t kNarrowMq[] = {3, 33, 257, 2000};
    static const int64_t kNarrowNq[] = {24, 96, 100, 128, 200, 256};
    /* Rows of at most 64 whole vectors, many of them (the lanes forward, rmsnorm_fwd.cu: above 64
     * rows per SM): one to 32 vectors a row, a last CTA and a last team part full; 33-64 vectors at
     * two a lane (the plain forward; 16-bit 264-512 columns, f32 132-256), the second vector past
     * the row in some lanes (264, 392, f32 200) or in none (512, f32 256). */
    static const int64_t kLanesM[] = {20000, 100003};
    static const int64_t kLanesN[] = {8, 16, 64, 120, 128, 200, 256, 264, 392, 512, 448, 320, 160};
    static const int64_t kLanesMq[] = {20001};
    /* 24, 120: lanes past the row; 448, 200, 320 where the engine's rotation (engine.c) gives the
     * plain forward with a weight: bf16 with an f32 weight, f32 (LLAMA), bf16 (GEMMA, offset 1) */
    static const int64_t kLanesNq[] = {24, 120, 128, 256, 264, 392, 512, 64, 96, 448, 200, 320};
    /* Rows of 33-64 slots (the row-pipelined backward's two slots a lane, f32 only): the first
     * slot of every lane and the second of some, one row to many, odd widths (element-wise
     * slots) and whole vectors, f32 from 129 columns; the 16-bit rows of 257-512 columns check
     * that the forced mode refuses them (MODE_UNSUPPORTED, then AUTO). */
    static const int64_t kTwoSlotM[] = {1, 5, 257, 4099};
    static const int64_t kTwoSlotN[] = {136, 139, 250, 256, 264, 300, 511, 512};
    static const int64_t kTwoSlotMq[] = {5, 4099};
    static const int64_t kTwoSlotNq[] = {139, 256, 300, 512};
    static const int64_t kTinyM[] = {1, 2, 4, 7, 8, 9};
    static const int64_t kTinyN[] = {136, 264, 1000, 2880, 4096, 4104, 12288, 12290, 24576, 65536};
    static const int64_t kTinyMq[] = {1, 8};
    static const int64_t kTinyNq[] = {264, 4104, 12288};
    /* Narrow rows that are not whole 16-byte vectors, dense (the engine's unstrided variants):
     * the flat-tile forward (rmsnorm_fwd_tile.cu), tiles of one to a thousand rows, shrunken for
     * few rows and sized to whole waves of full CTAs for many (100003 x 92..255), heads and tails
     * at every offset in the vector (the congruent pass moves the base). */
    static const int64_t kTileM[] = {1, 3, 199, 4097, 100003};
    static const int64_t kTileN[] = {1, 2, 3, 7, 13, 15, 92, 142, 255};
    static const int64_t kTileMq[] = {1, 199, 100003};
    static const int64_t kTileNq[] = {1, 3, 13, 142};
    /* Many narrow rows: full waves of tiles, the plain forward's in 128-thread CTAs, the fused
     * add's in 256-thread ones; every tile the same rows but the grid's last. */
    const int64_t kTileWavesM[] = {4400 * (int64_t)info.sm_count + 7};
    static const int64_t kTileWavesN[] = {7, 13, 26, 39, 92};
    static const int64_t kTileWavesNq[] = {13, 39};
    /* Rows narrower than a vector, dense (rms_norm_fwd_thread): every instance (16-bit 1, 2, 3,
     * 4, 6 columns, f32 1..3; the others take the tiles), row counts just past the tiny forward's and
     * not multiples of a thread's rows, so partial groups at both ends; any first boundary (the
     * congruent and one-element passes move the base: groups from a later row, or element by
     * element where no row starts on a boundary). */
    static const int64_t kThreadM[] = {293, 2049, 4097, 100003};
    static const int64_t kThreadN[] = {1, 2, 3, 4, 5, 6, 7};
    static const int64_t kThreadMq[] = {2049, 100003};
    static const int64_t kThreadNq[] = {1, 2, 3, 5, 6, 7};
    /* ... and rows of several vectors a thread, which take it only with full CTAs on every SM
     * (select.c FN_AUTO_FWD_THREAD_MIN_GROUPS_PER_SM, 384): rows enough for more than that on
     * this device, odd so that the last group is partial (2.6M elements at 6 columns on 132 SMs) */
    const int64_t kThreadBigM[] = {8 * (int64_t)(384 + 32) * info.sm_count + 5};
    static const int64_t kThreadBigN[] = {3, 6};
    /* Tiny problems (rmsnorm_tiny.cu): every instance (1 to 8 columns per lane), teams of 1 to 32
     * lanes, one row to the most rows one backward CTA holds (4 per team of 1-32 columns: 4096
     * rows of 1), forwards of one CTA to several; any alignment (the misaligned pass), and just
     * past the domain (the other kernels, the forced mode's fallback). */
    static const int64_t kTinyFM[] = {1, 2, 5, 31, 68, 300, 2000};
    static const int64_t kTinyFN[] = {1, 2, 3, 8, 13, 32, 33, 64, 100, 128, 183, 255, 256, 300};
    static const int64_t kTinyFMq[] = {1, 5, 300};
    static const int64_t kTinyFNq[] = {1, 13, 33, 100, 255};
    /* The warp forward (rmsnorm_fwd_warp.cu, AUTO): every instance (2 to 16 columns a lane: n =
     * 33..512), one row a warp (up to 16 rows an SM: 2000 rows on 132 SMs; f32 from 97 columns)
     * and two (the plain forward from 17 rows an SM: 4099 rows takes every 16-bit instance, and
     * f32's two), the sub-vector instances (16-bit rows on 4- and 8-byte boundaries at 4099 rows:
     * 100 and 300 columns 8-byte loads, one and three a lane; 126, 142, 250, 298 4-byte, two to
     * five; 228 8-byte, two), widths at and past each instance's last column, counts where only
     * some of its rules take it, an odd count (a last warp with one row), any alignment (the apart
     * pass: every tensor at its own 2- or 4-byte offset), and widths just outside it (32, 513:
     * other families); 30001 rows (227 an SM on 132 SMs) for the dense 16-bit rule of two rows a
     * warp at any count past the non-dense rule's 160 rows an SM. */
    static const int64_t kWarpM[] = {1, 5, 131, 2000, 4099, 20001, 30001};
    static const int64_t kWarpN[] = {32, 33, 45, 63, 64, 65, 66, 97, 126, 129, 142, 161, 190, 223, 228, 257, 295, 298, 300, 320, 321, 350, 420, 511, 513};
    /* The lean backward at eight slots a thread (aligned rows of 2049-4096 slots: f32 8196-16384
     * columns, 16-bit 16392-32768, past 28928 on an H200 with the weight's raw 16 bits staged, or
     * with an f32 weight no 8-slot plan), plain and fused (the section fails unless both ran, and
     * the raw 16-bit stage): forced persistent
     * over a CTA's one row to many rows a CTA (rows on more and fewer CTAs than SMs), widths at
     * both ends of the range and between; the engine's other variants (strides, no weight) check
     * that the forced mode refuses them or runs the S <= 4 kernel. */
    static const int64_t kRow8M[] = {1, 7, 150, 1001};
    static const int64_t kRow8N[] = {8196, 12288, 16384, 16392, 24576, 28928, 32768};
    static const int64_t kRow8Mq[] = {7, 1001};
    /* (quick: the engine's variant rotation gives 7 x 32768 f16 and 1001 x 32768 bf16 a 16-bit
     * weight, the raw 16-bit stage) */
    static const int64_t kRow8Nq[] = {8196, 16384, 16392, 24576, 28928, 32768};
    /* The warp backward (rmsnorm_bwd_warp.cu, AUTO, from 96 rows an SM: select.c
     * FN_AUTO_BWD_WARP_ROWS_PER_SM): every instance (2 to 8 columns a lane: n = 33..256; 16-bit
     * rows of 64 columns in the misaligned pass), widths at and past each instance's last column,
     * counts just below the rule (other kernels) and at it (a warp one or two rows), many rows (a
     * row loop through both register sets, an odd last step), any alignment (the apart pass), and
     * widths just outside (32, 257). Few rows (5, 131, 2000) run the other kernels on the same
     * widths. */
    const int64_t kWarpBwdM[] = {5, 131, 2000, 96 * (int64_t)info.sm_count - 1, 96 * (int64_t)info.sm_count + 3,
                                 300 * (int64_t)info.sm_count + 1};
    static const int64_t kWarpBwdN[] = {32, 33, 45, 63, 64, 65, 97, 100, 128, 129, 139, 160, 161, 178, 192, 193, 223, 255, 256, 257};
    const int64_t kWarpBwdMq[] = {5, 96 * (int64_t)info.sm_count + 3, 300 * (int64_t)info.sm_count + 1};
    static const int64_t kWarpBwdNq[] = {33, 64, 65, 100, 139, 178, 255}; /* every instance */
    static const int64_t kWarpMq[] = {5, 2000, 4099};
    static const int64_t kWarpNq[] = {33, 65, 100, 126, 142, 190, 228, 250, 295, 298, 300, 350, 511}; /* every instance */
#define NEL(a) (int)(sizeof a / sizeof *a)
    const unsigned kWarp = 1u << FUSEDNORM_KERNEL_FWD_WARP;
    const unsigned kWarpBwd = 1u << FUSEDNORM_KERNEL_BWD_WARP;
    const unsigned kTile = 1u << FUSEDNORM_KERNEL_FWD_TILE;
    const unsigned kThread = 1u << FUSEDNORM_KERNEL_FWD_THREAD;
    const unsigned kLanes = 1u << FUSEDNORM_KERNEL_FWD_LANES; /* aligned rows of whole vectors */
    const unsigned kTiny = 1u << FUSEDNORM_KERNEL_FWD_TINY | 1u << FUSEDNORM_KERNEL_BWD_TINY;
    const unsigned kPipeBwd = 1u << FUSEDNORM_KERNEL_BWD_PIPE;
    const unsigned kRow8 = 1u << FUSEDNORM_KERNEL_BWD_ROW;
    const struct {
      const char *name;
      fusednorm_mode mode;
      int misalign;
      const int64_t *M, *N;
      int nM, nN;
      unsigned want; /* families (1 << fusednorm_kernel) the section is there for: each must have run */
    } sections[] = {
        {"cuda/auto/narrow", FUSEDNORM_MODE_AUTO, 0, o.quick ? kNarrowMq : kNarrowM, o.quick ? kNarrowNq : kNarrowN,
         o.quick ? NEL(kNarrowMq) : NEL(kNarrowM), o.quick ? NEL(kNarrowNq) : NEL(kNarrowN), 0},
        {"cuda/row_packed/narrow", FUSEDNORM_MODE_ROW_PACKED, 0, kNarrowMq, kNarrowNq, NEL(kNarrowMq), NEL(kNarrowNq), 0},
        {"cuda/auto/lanes", FUSEDNORM_MODE_AUTO, 0, o.quick ? kLanesMq : kLanesM, o.quick ? kLanesNq : kLanesN,
         o.quick ? NEL(kLanesMq) : NEL(kLanesM), o.quick ? NEL(kLanesNq) : NEL(kLanesN), kLanes},
        {"cuda/row_packed/lanes", FUSEDNORM_MODE_ROW_PACKED, 0, kLanesMq, kLanesNq, NEL(kLanesMq), NEL(kLanesNq), kLanes},
        {"cuda/row_packed/two-slot", FUSEDNORM_MODE_ROW_PACKED, 0, o.quick ? kTwoSlotMq : kTwoSlotM,
         o.quick ? kTwoSlotNq : kTwoSlotN, o.quick ? NEL(kTwoSlotMq) : NEL(kTwoSlotM),
         o.quick ? NEL(kTwoSlotNq) : NEL(kTwoSlotN), kPipeBwd},
        {"cuda/row_packed/two-slot/misaligned", FUSEDNORM_MODE_ROW_PACKED, OFFS_ONE, kTwoSlotMq, kTwoSlotNq,
         NEL(kTwoSlotMq), NEL(kTwoSlotNq), kPipeBwd},
        {"cuda/auto/narrow/misaligned", FUSEDNORM_MODE_AUTO, 1, kNarrowMq, kNarrowNq, NEL(kNarrowMq), NEL(kNarrowNq), 0},
        {"cuda/auto/few-rows", FUSEDNORM_MODE_AUTO, 0, o.quick ? kTinyMq : kTinyM, o.quick ? kTinyNq : kTinyN,
         o.quick ? NEL(kTinyMq) : NEL(kTinyM), o.quick ? NEL(kTinyNq) : NEL(kTinyN), 0},
        {"cuda/auto/few-rows/misaligned", FUSEDNORM_MODE_AUTO, 1, kTinyMq, kTinyNq, NEL(kTinyMq), NEL(kTinyNq), 0},
        {"cuda/auto/tile", FUSEDNORM_MODE_AUTO, OFFS_NONE, o.quick ? kTileMq : kTileM, o.quick ? kTileNq : kTileN,
         o.quick ? NEL(kTileMq) : NEL(kTileM), o.quick ? NEL(kTileNq) : NEL(kTileN), kTile},
        {"cuda/auto/tile/congruent", FUSEDNORM_MODE_AUTO, OFFS_CONGRUENT, kTileMq, kTileN, NEL(kTileMq), NEL(kTileN),
         kTile},
        {"cuda/auto/tile/waves", FUSEDNORM_MODE_AUTO, OFFS_CONGRUENT, kTileWavesM, o.quick ? kTileWavesNq : kTileWavesN,
         NEL(kTileWavesM), o.quick ? NEL(kTileWavesNq) : NEL(kTileWavesN), kTile},
        {"cuda/row_packed/tile/congruent", FUSEDNORM_MODE_ROW_PACKED, OFFS_CONGRUENT, kTileMq, kTileNq, NEL(kTileMq),
         NEL(kTileNq), kTile},
        {"cuda/auto/thread", FUSEDNORM_MODE_AUTO, OFFS_NONE, o.quick ? kThreadMq : kThreadM,
         o.quick ? kThreadNq : kThreadN, o.quick ? NEL(kThreadMq) : NEL(kThreadM),
         o.quick ? NEL(kThreadNq) : NEL(kThreadN), kThread},
        {"cuda/auto/thread/congruent", FUSEDNORM_MODE_AUTO, OFFS_CONGRUENT, kThreadMq, kThreadN, NEL(kThreadMq),
         NEL(kThreadN), kThread},
        {"cuda/row_packed/thread/misaligned", FUSEDNORM_MODE_ROW_PACKED, OFFS_ONE, kThreadMq, kThreadNq,
         NEL(kThreadMq), NEL(kThreadNq), kThread},
        {"cuda/auto/thread/staged", FUSEDNORM_MODE_AUTO, OFFS_NONE, kThreadBigM, kThreadBigN, NEL(kThreadBigM),
         NEL(kThreadBigN), kThread},
        {"cuda/auto/thread/staged/congruent", FUSEDNORM_MODE_AUTO, OFFS_CONGRUENT, kThreadBigM, kThreadBigN,
         NEL(kThreadBigM), NEL(kThreadBigN), kThread},
        {"cuda/auto/tiny", FUSEDNORM_MODE_AUTO, OFFS_NONE, o.quick ? kTinyFMq : kTinyFM, o.quick ? kTinyFNq : kTinyFN,
         o.quick ? NEL(kTinyFMq) : NEL(kTinyFM), o.quick ? NEL(kTinyFNq) : NEL(kTinyFN), kTiny},
        {"cuda/auto/tiny/misaligned", FUSEDNORM_MODE_AUTO, OFFS_APART, kTinyFMq, kTinyFNq, NEL(kTinyFMq), NEL(kTinyFNq),
         kTiny},
        {"cuda/row_packed/tiny", FUSEDNORM_MODE_ROW_PACKED, OFFS_ONE, kTinyFMq, kTinyFNq, NEL(kTinyFMq), NEL(kTinyFNq),
         kTiny},
        {"cuda/auto/warp", FUSEDNORM_MODE_AUTO, OFFS_NONE, o.quick ? kWarpMq : kWarpM, o.quick ? kWarpNq : kWarpN,
         o.quick ? NEL(kWarpMq) : NEL(kWarpM), o.quick ? NEL(kWarpNq) : NEL(kWarpN), kWarp},
        {"cuda/auto/warp/misaligned", FUSEDNORM_MODE_AUTO, OFFS_APART, kWarpMq, kWarpNq, NEL(kWarpMq), NEL(kWarpNq),
         kWarp},
        {"cuda/auto/warp-bwd", FUSEDNORM_MODE_AUTO, OFFS_NONE, o.quick ? kWarpBwdMq : kWarpBwdM,
         o.quick ? kWarpBwdNq : kWarpBwdN, o.quick ? NEL(kWarpBwdMq) : NEL(kWarpBwdM),
         o.quick ? NEL(kWarpBwdNq) : NEL(kWarpBwdN), kWarpBwd},
        {"cuda/auto/warp-bwd/misaligned", FUSEDNORM_MODE_AUTO, OFFS_APART, kWarpBwdMq, kWarpBwdNq, NEL(kWarpBwdMq),
         NEL(kWarpBwdNq), kWarpBwd},
        {"cuda/persistent/row8", FUSEDNORM_MODE_PERSISTENT, OFFS_NONE, o.quick ? kRow8Mq : kRow8M,
         o.quick ? kRow8Nq : kRow8N, o.quick ? NEL(kRow8Mq) : NEL(kRow8M), o.quick ? NEL(kRow8Nq) : NEL(kRow8N),
         kRow8},
    };
#undef NEL
    for (size_t i = 0; i < sizeof sections / sizeof *sections; ++i) {
      if (forced_only && sections[i].mode != o.mode) continue;
      fn_engine_opts om = o;
      om.mode = sections[i].mode;
      b.name = sections[i].name;
      c.misalign = sections[i].misalign;
      c.fallbacks = c.bad_status = 0;
      memset(c.ran, 0, sizeof c.ran);
      c.ran_bwd_pipe2 = c.ran_bwd_row8 = c.ran_bwd_row8f = c.ran_bwd_row8w16 = c.ran_fwd_warp2 = c.ran_fwd_warp_vec = c.ran_fwd_lanes2 = c.ran_fwd_lanes2w = 0;
      int f = fn_engine_run_grid(&b, &om, sections[i].M, sections[i].nM, sections[i].N, sections[i].nN);
      for (int k = 0; k < FUSEDNORM_KERNEL_COUNT_; ++k) {
        /* (a --filter or --case runs some of the cases only) */
        if (!(sections[i].want & (1u << k)) || o.filter != NULL || o.case_index >= 0) continue;
        printf("[%s] %d launches ran %s\n", b.name, c.ran[k], fusednorm_kernel_name((fusednorm_kernel)k));
        if (c.ran[k] == 0) {
          printf("FAIL [%s] no launch ran %s\n", b.name, fusednorm_kernel_name((fusednorm_kernel)k));
          ++failed;
        }
      }
      if ((sections[i].want & kPipeBwd) && o.filter == NULL && o.case_index < 0) {
        printf("[%s] %d of them at two slots a lane\n", b.name, c.ran_bwd_pipe2);
        if (c.ran_bwd_pipe2 == 0) {
          printf("FAIL [%s] no launch ran bwd_pipe at two slots a lane\n", b.name);
          ++failed;
        }
      }
      if ((sections[i].want & kLanes) && o.filter == NULL && o.case_index < 0) {
        printf("[%s] %d of them at two vectors a lane, %d with a weight\n", b.name, c.ran_fwd_lanes2,
               c.ran_fwd_lanes2w);
        if (c.ran_fwd_lanes2w == 0) {
          printf("FAIL [%s] no launch ran fwd_lanes at two vectors a lane with a weight\n", b.name);
          ++failed;
        }
      }
      if ((sections[i].want & kRow8) && o.filter == NULL && o.case_index < 0) {
        printf("[%s] %d of them at eight slots a thread, %d with the fused add, %d with the raw 16-bit weight\n",
               b.name, c.ran_bwd_row8, c.ran_bwd_row8f, c.ran_bwd_row8w16);
        if (c.ran_bwd_row8f == 0 || c.ran_bwd_row8f == c.ran_bwd_row8 || c.ran_bwd_row8w16 == 0) {
          printf("FAIL [%s] no launch ran bwd_row at eight slots a thread both plain and fused, and with the raw "
                 "16-bit weight\n", b.name);
          ++failed;
        }
      }
      if ((sections[i].want & kWarp) && o.filter == NULL && o.case_index < 0) {
        printf("[%s] %d of them at two rows a warp\n", b.name, c.ran_fwd_warp2);
        if (c.ran_fwd_warp2 == 0) {
          printf("FAIL [%s] no launch ran fwd_warp at two rows a warp\n", b.name);
          ++failed;
        }
        /* rows on 4- or 8-byte boundaries: the aligned pass only (the apart pass offsets each
         * tensor by 2 or 4 bytes on its own) */
        printf("[%s] %d of them with sub-vector loads\n", b.name, c.ran_fwd_warp_vec);
        if (sections[i].misalign == OFFS_NONE && c.ran_fwd_warp_vec == 0) {
          printf("FAIL [%s] no launch ran fwd_warp with sub-vector loads\n", b.name);
          ++failed;
        }
      }
      if (c.bad_status) {
        printf("FAIL [%s] %d calls did not return FUSEDNORM_ERR_MODE_UNSUPPORTED\n", b.name, c.bad_status);
        ++failed;
      }
      c.misalign = 0;
      failed += f != 0, ++runs;
    }
  }
  if (!forced_only) failed += fwd_row8_section(&c, &b, &o, &info), ++runs;
  if (!forced_only && !o.quick) failed += split_section(&c, &b, &o, &info, 0), ++runs;
  if (!forced_only && !o.quick) failed += split_section(&c, &b, &o, &info, 1), ++runs;
  if (!forced_only && !o.quick) failed += narrow_bwd_section(&c, &b, &o, &info), ++runs;
  fn_api api = {"cuda", api_fwd, api_bwd, api_ws};
  failed += fn_engine_check_bad_args(&api) != 0, ++runs;
  /* N-d row layouts: every kernel family (random forced modes) against the contiguous run. */
  const fn_layout_backend lb = {"cuda", l_alloc, l_release, l_upload, l_download, api_fwd, api_bwd, api_ws, 1, l_plan};
  failed += fn_layout_bad_args(&lb) != 0, ++runs;
  g_nd_lanes2 = 0;
  failed += fn_layout_run(&lb, o.seed ? o.seed : fn_engine_fresh_seed(), o.quick ? 150 : 600, o.verbose) != 0, ++runs;
  printf("[cuda/layout] %d forwards of N-d rows at two vectors a lane\n", g_nd_lanes2);
  /* the directed cases' 12000 rows are above the lanes kernel's 64 an SM on GPUs of up to 187 SMs */
  if (g_nd_lanes2 == 0 && 12000 > 64 * info.sm_count) {
    printf("FAIL [cuda/layout] no forward of N-d rows ran fwd_lanes at two vectors a lane\n");
    ++failed;
  }
  uint64_t gseed = o.seed ? o.seed : 0x5eed;
  int gf = graph_check(c.stream, 4096, 4096, FUSEDNORM_MODE_AUTO, gseed);
  gf += graph_check(c.stream, 199, 256, FUSEDNORM_MODE_ROW_PACKED, gseed);
  gf += graph_check(c.stream, 199, 1000, FUSEDNORM_MODE_MULTI_WAVE_RELOAD, gseed);
  gf += graph_check(c.stream, 64, 262144, FUSEDNORM_MODE_WIDE, gseed);
  /* narrow rows: a persistent grid and dw_reduce, and a few rows of them; a few rows of a
   * hidden size */
  gf += graph_check(c.stream, 65536, 128, FUSEDNORM_MODE_AUTO, gseed);
  gf += graph_check(c.stream, 8, 128, FUSEDNORM_MODE_AUTO, gseed);
  gf += graph_check(c.stream, 4, 12288, FUSEDNORM_MODE_AUTO, gseed);
  gf += graph_check(c.stream, 7, 4096, FUSEDNORM_MODE_AUTO, gseed);
  failed += gf != 0, ++runs;
  failed += bitwise_checks(c.stream, &info, gseed), runs += 2;
  cudaStreamDestroy(c.stream);
  printf("test_cuda: %d of %d runs failed: %s\n", failed, runs, failed ? "FAILED" : "OK");
  return failed ? 1 : 0;
}

/* The one-launch and head-split paths against their two-launch and aligned twins, bit for bit
 * (also alone: --bitwise, small enough for compute-sanitizer's racecheck and synccheck). Returns
 * the failed runs of the two. */
static int bitwise_checks(cudaStream_t st, const fusednorm_device_info *info, uint64_t gseed) {
  int failed = 0;
  /* dw summed in the kernel: the lean persistent backward (aligned and head-split), one CTA and
   * the most CTAs, and the row-packed one (rows enough for it to pay, in few CTAs); rows just
   * wider than the tiny backward's (which writes dw itself, in one CTA). Where dw_reduce is a
   * dependent launch (sm_90 code) AUTO sums dw in the kernel for one CTA only: the grids of
   * several CTAs then check that plan and run from compute_80 PTX. */
  int df = dw_in_kernel_check(st, 3, 264, 0, FUSEDNORM_BF16, 0, gseed);
  df += dw_in_kernel_check(st, 1, 260, 0, FUSEDNORM_F32, 0, gseed);
  df += dw_in_kernel_check(st, 10, 605, 1, FUSEDNORM_BF16, 3, gseed);
  df += dw_in_kernel_check(st, 5, 918, 1, FUSEDNORM_F32, 0, gseed); /* >= 2 columns per thread */
  df += dw_in_kernel_check(st, FN_DW_IN_KERNEL_MAX_PARTIALS, 4096, 1, FUSEDNORM_F32, 0, gseed);
  df += dw_in_kernel_check(st, FN_DW_IN_KERNEL_MAX_PARTIALS, 1001, 0, FUSEDNORM_BF16, 5, gseed);
  df += dw_in_kernel_check(st, 24 * (int64_t)info->sm_count, 8, 1, FUSEDNORM_F32, 0, gseed);
  /* more than 48 KB of shared memory (opted into on first use): one CTA, and a cooperative grid */
  df += dw_in_kernel_check(st, 1, 6733, 0, FUSEDNORM_BF16, 1, gseed);
  df += dw_in_kernel_check(st, 3, 6735, 1, FUSEDNORM_F32, 3, gseed);
  df += dw_in_kernel_check(st, 1, 1201, 1, FUSEDNORM_BF16, 3, gseed); /* one CTA, fused, head-split */
  /* the split-row backward of one row: each CTA writes its chunk of dw (select.c) */
  df += dw_in_kernel_check(st, 1, 100000, 0, FUSEDNORM_F32, 0, gseed);
  df += dw_in_kernel_check(st, 1, 353166, 1, FUSEDNORM_BF16, 1, gseed); /* fused, head-split */
  df += dw_in_kernel_check(st, 1, 1000000, 1, FUSEDNORM_F32, 0, gseed); /* two slots a thread */
  failed += df != 0;
  /* the split-row backward's head-split ring: odd widths just past the lean kernels (16-bit and
   * f32), wide rows, one row, the fused add's third tensor */
  /* the ring instance (two halves), bitwise; then rows of one stride (the residue-class instance
   * where the row groups allow it), within one ulp */
  int sf = 0;
  for (int nd2 = 1; nd2 >= 0; --nd2) {
    sf += split_head_check(st, 36, 16391, FUSEDNORM_BF16, 0, 1, nd2, gseed);
    sf += split_head_check(st, 6, 20001, FUSEDNORM_BF16, 1, 3, nd2, gseed);
    sf += split_head_check(st, 2, 262147, FUSEDNORM_BF16, 1, 7, nd2, gseed);
    sf += split_head_check(st, 300, 40003, FUSEDNORM_F16, 0, 2, nd2, gseed);
    sf += split_head_check(st, 20, 8195, FUSEDNORM_F32, 1, 1, nd2, gseed);
    sf += split_head_check(st, 4, 70001, FUSEDNORM_F32, 0, 3, nd2, gseed);
    sf += split_head_check(st, 24, 32776, FUSEDNORM_BF16, 1, 3, nd2, gseed); /* every row the same head */
    sf += split_head_check(st, 64, 65535, FUSEDNORM_BF16, 1, 5, nd2, gseed);
  }
  failed += sf != 0;
  return failed;
}
