/*
 * device.h — runs the fusednorm C API on host buffers, on the CPU backend or on a CUDA device.
 *
 * A CUDA run copies the inputs to the device, poisons every output with NaN bit patterns (so an
 * element the kernel forgot to write cannot pass), runs on a stream, and copies the outputs back.
 * A CPU run poisons the host outputs the same way. Each rank picks CUDA device
 * local_rank % device_count.
 */
#ifndef FUSEDNORM_VERIFY_DEVICE_H_
#define FUSEDNORM_VERIFY_DEVICE_H_

#include <stddef.h>

#include "kernels/include/fusednorm.h"

typedef enum { FN_DEVICE_AUTO = 0, FN_DEVICE_CPU = 1, FN_DEVICE_CUDA = 2 } fn_device_kind;

typedef struct {
  fn_device_kind kind;   /* CPU or CUDA after open */
  int cuda_device;       /* ordinal on CUDA */
  int cuda_count;
  char name[256];        /* "cpu" or "cuda:0 NVIDIA H100 80GB HBM3" */
  void *stream;          /* cudaStream_t */
} fn_device;

/* AUTO picks CUDA when fusednorm_cuda_available(). CUDA requested without a device: -1 + message. */
int fn_device_open(fn_device *d, fn_device_kind want, int local_rank, char *err, size_t len);
void fn_device_close(fn_device *d);

/* Forward + backward of one problem on host buffers (strides = n, dense):
 *   in : x, residual (fused), weight, dy (may be NULL: forward only), ds (may be NULL)
 *   out: y, residual_out (fused), rstd[rows] (fp32), dx, dw (weight: in pb->w_dtype)
 * `pb` is the backward problem: it may differ from `pf` in w_dtype only (the weight given in
 * `weight_bwd`, widened exactly to f32 for partial dw sums). s for the backward is x (plain) or the
 * forward's residual_out (fused add), as in training. Returns FUSEDNORM_OK or the first status;
 * `err` gets "forward: <status>" / a CUDA message. */
fusednorm_status fn_device_run(fn_device *d, const fusednorm_problem *pf,
                               const fusednorm_problem *pb, const void *x, const void *residual,
                               const void *weight, const void *weight_bwd, const void *dy,
                               const void *ds, void *y, void *residual_out, float *rstd, void *dx,
                               void *dw, char *err, size_t len);

#endif
