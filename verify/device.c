/* device.c — CPU / CUDA execution of fusednorm on host buffers (see device.h). */
#define _POSIX_C_SOURCE 200809L
#include "verify/device.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 0xFF bytes are NaN in f32, f16 and bf16: an output element left unwritten fails every check. */
#define POISON 0xFF

int fn_device_open(fn_device *d, fn_device_kind want, int local_rank, char *err, size_t len) {
  memset(d, 0, sizeof *d);
  int avail = fusednorm_cuda_available();
  if (want == FN_DEVICE_CUDA && !avail) {
    snprintf(err, len, "--device cuda: no usable CUDA device (or this build has no CUDA kernels)");
    return -1;
  }
  if (want == FN_DEVICE_CPU || !avail) {
    d->kind = FN_DEVICE_CPU;
    snprintf(d->name, sizeof d->name, "cpu");
    return 0;
  }
  d->kind = FN_DEVICE_CUDA;
  if (cudaGetDeviceCount(&d->cuda_count) != cudaSuccess || d->cuda_count < 1) {
    snprintf(err, len, "CUDA: no device");
    return -1;
  }
  d->cuda_device = local_rank % d->cuda_count;
  struct cudaDeviceProp prop;
  cudaStream_t s;
  if (cudaSetDevice(d->cuda_device) != cudaSuccess ||
      cudaGetDeviceProperties(&prop, d->cuda_device) != cudaSuccess ||
      cudaStreamCreate(&s) != cudaSuccess) {
    snprintf(err, len, "CUDA device %d: %s", d->cuda_device, cudaGetErrorString(cudaGetLastError()));
    return -1;
  }
  d->stream = s;
  snprintf(d->name, sizeof d->name, "cuda:%d %s", d->cuda_device, prop.name);
  return 0;
}

void fn_device_close(fn_device *d) {
  if (d->kind == FN_DEVICE_CUDA && d->stream) cudaStreamDestroy((cudaStream_t)d->stream);
  d->stream = NULL;
}

static size_t bytes2(const fusednorm_problem *p) {
  return (size_t)p->rows * (size_t)p->n * fusednorm_dtype_size(p->x_dtype);
}

/* ---- CPU ------------------------------------------------------------------------------------ */
static fusednorm_status run_cpu(const fusednorm_problem *pf, const fusednorm_problem *pb,
                                const void *x, const void *residual, const void *weight,
                                const void *weight_bwd, const void *dy, const void *ds, void *y,
                                void *residual_out, float *rstd, void *dx, void *dw, char *err,
                                size_t len) {
  size_t b2 = bytes2(pf);
  memset(y, POISON, b2);
  if (pf->has_residual) memset(residual_out, POISON, b2);
  memset(rstd, POISON, sizeof(float) * (size_t)pf->rows);
  fusednorm_fwd_args fa = {.x = x, .x_stride = pf->n, .residual = residual,
                           .residual_stride = pf->n, .weight = weight, .y = y, .y_stride = pf->n,
                           .residual_out = residual_out, .residual_out_stride = pf->n,
                           .rstd = rstd};
  fusednorm_status st = fusednorm_forward_cpu(pf, &fa);
  if (st != FUSEDNORM_OK) {
    snprintf(err, len, "forward (cpu): %s", fusednorm_status_string(st));
    return st;
  }
  if (!dy) return FUSEDNORM_OK;
  memset(dx, POISON, b2);
  if (pb->has_weight) memset(dw, POISON, (size_t)pb->n * fusednorm_dtype_size(pb->w_dtype));
  size_t ws = 0;
  st = fusednorm_backward_workspace_size_cpu(pb, &ws);
  void *work = NULL;
  if (st == FUSEDNORM_OK && ws) {
    work = malloc(ws);
    if (!work) {
      snprintf(err, len, "backward (cpu): cannot allocate %zu bytes of workspace", ws);
      return FUSEDNORM_ERR_OUT_OF_MEMORY;
    }
    memset(work, POISON, ws);
  }
  fusednorm_bwd_args ba = {.dy = dy, .dy_stride = pb->n,
                           .s = pb->has_residual ? residual_out : x, .s_stride = pb->n,
                           .ds = ds, .ds_stride = pb->n, .weight = weight_bwd, .rstd = rstd,
                           .dx = dx, .dx_stride = pb->n, .dw = dw, .workspace = work,
                           .workspace_bytes = ws};
  if (st == FUSEDNORM_OK) st = fusednorm_backward_cpu(pb, &ba);
  free(work);
  if (st != FUSEDNORM_OK) snprintf(err, len, "backward (cpu): %s", fusednorm_status_string(st));
  return st;
}

/* ---- CUDA ----------------------------------------------------------------------------------- */
typedef struct {
  void *p[12];
  int n;
} dev_allocs;

static void *dalloc(dev_allocs *a, size_t bytes, int poison, int *bad) {
  void *p = NULL;
  if (bytes == 0) bytes = 16;
  if (cudaMalloc(&p, bytes) != cudaSuccess) {
    *bad = 1;
    return NULL;
  }
  a->p[a->n++] = p;
  if (poison && cudaMemset(p, POISON, bytes) != cudaSuccess) *bad = 1;
  return p;
}

static void *dcopy(dev_allocs *a, const void *h, size_t bytes, int *bad) {
  if (!h) return NULL;
  void *p = dalloc(a, bytes, 0, bad);
  if (p && cudaMemcpy(p, h, bytes, cudaMemcpyHostToDevice) != cudaSuccess) *bad = 1;
  return p;
}

static fusednorm_status run_cuda(fn_device *d, const fusednorm_problem *pf,
                                 const fusednorm_problem *pb, const void *x, const void *residual,
                                 const void *weight, const void *weight_bwd, const void *dy,
                                 const void *ds, void *y, void *residual_out, float *rstd,
                                 void *dx, void *dw, char *err, size_t len) {
  cudaStream_t s = (cudaStream_t)d->stream;
  dev_allocs A = {.n = 0};
  int bad = 0;
  fusednorm_status st = FUSEDNORM_OK;
  size_t b2 = bytes2(pf), wb = (size_t)pf->n * fusednorm_dtype_size(pf->w_dtype);
  size_t wbb = (size_t)pb->n * fusednorm_dtype_size(pb->w_dtype);
  size_t rb = sizeof(float) * (size_t)pf->rows;
  void *dev_x = dcopy(&A, x, b2, &bad), *dr_ = pf->has_residual ? dcopy(&A, residual, b2, &bad) : NULL;
  void *dwt = pf->has_weight ? dcopy(&A, weight, wb, &bad) : NULL;
  void *dy_ = dy ? dcopy(&A, dy, b2, &bad) : NULL, *ds_ = ds ? dcopy(&A, ds, b2, &bad) : NULL;
  void *dwb = (dy && pb->has_weight) ? dcopy(&A, weight_bwd, wbb, &bad) : NULL;
  void *y_ = dalloc(&A, b2, 1, &bad), *ro_ = pf->has_residual ? dalloc(&A, b2, 1, &bad) : NULL;
  float *rs_ = dalloc(&A, rb, 1, &bad);
  if (bad) {
    snprintf(err, len, "CUDA allocation/copy failed: %s", cudaGetErrorString(cudaGetLastError()));
    st = FUSEDNORM_ERR_CUDA;
    goto out;
  }
  fusednorm_fwd_args fa = {.x = dev_x, .x_stride = pf->n, .residual = dr_,
                           .residual_stride = pf->n, .weight = dwt, .y = y_, .y_stride = pf->n,
                           .residual_out = ro_, .residual_out_stride = pf->n, .rstd = rs_};
  st = fusednorm_forward_cuda(pf, &fa, s);
  if (st != FUSEDNORM_OK) {
    snprintf(err, len, "forward (cuda): %s %s", fusednorm_status_string(st),
             fusednorm_cuda_error_string());
    goto out;
  }
  if (dy) {
    size_t ws = 0;
    st = fusednorm_backward_workspace_size_cuda(pb, d->cuda_device, &ws);
    if (st != FUSEDNORM_OK) {
      snprintf(err, len, "backward workspace (cuda): %s", fusednorm_status_string(st));
      goto out;
    }
    void *dxo = dalloc(&A, b2, 1, &bad), *dwo = pb->has_weight ? dalloc(&A, wbb, 1, &bad) : NULL;
    void *work = dalloc(&A, ws, 1, &bad);
    if (bad) {
      snprintf(err, len, "CUDA allocation failed: %s", cudaGetErrorString(cudaGetLastError()));
      st = FUSEDNORM_ERR_CUDA;
      goto out;
    }
    fusednorm_bwd_args ba = {.dy = dy_, .dy_stride = pb->n, .s = pb->has_residual ? ro_ : dev_x,
                             .s_stride = pb->n, .ds = ds_, .ds_stride = pb->n, .weight = dwb,
                             .rstd = rs_, .dx = dxo, .dx_stride = pb->n, .dw = dwo,
                             .workspace = work, .workspace_bytes = ws};
    st = fusednorm_backward_cuda(pb, &ba, s);
    if (st != FUSEDNORM_OK) {
      snprintf(err, len, "backward (cuda): %s %s", fusednorm_status_string(st),
               fusednorm_cuda_error_string());
      goto out;
    }
    if (cudaStreamSynchronize(s) != cudaSuccess ||
        cudaMemcpy(dx, dxo, b2, cudaMemcpyDeviceToHost) != cudaSuccess ||
        (dwo && cudaMemcpy(dw, dwo, wbb, cudaMemcpyDeviceToHost) != cudaSuccess))
      bad = 1;
  }
  if (cudaStreamSynchronize(s) != cudaSuccess ||
      cudaMemcpy(y, y_, b2, cudaMemcpyDeviceToHost) != cudaSuccess ||
      (ro_ && cudaMemcpy(residual_out, ro_, b2, cudaMemcpyDeviceToHost) != cudaSuccess) ||
      cudaMemcpy(rstd, rs_, rb, cudaMemcpyDeviceToHost) != cudaSuccess)
    bad = 1;
  if (bad) {
    snprintf(err, len, "CUDA error after the kernels: %s", cudaGetErrorString(cudaGetLastError()));
    st = FUSEDNORM_ERR_CUDA;
  }
out:
  for (int i = 0; i < A.n; ++i) cudaFree(A.p[i]);
  return st;
}

fusednorm_status fn_device_run(fn_device *d, const fusednorm_problem *pf,
                               const fusednorm_problem *pb, const void *x, const void *residual,
                               const void *weight, const void *weight_bwd, const void *dy,
                               const void *ds, void *y, void *residual_out, float *rstd, void *dx,
                               void *dw, char *err, size_t len) {
  if (d->kind == FN_DEVICE_CUDA)
    return run_cuda(d, pf, pb, x, residual, weight, weight_bwd, dy, ds, y, residual_out, rstd, dx,
                    dw, err, len);
  return run_cpu(pf, pb, x, residual, weight, weight_bwd, dy, ds, y, residual_out, rstd, dx, dw,
                 err, len);
}
