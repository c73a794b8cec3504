/*
 * rmsnorm_launch.cuh — kernel parameter blocks and the kernel lookup shared by the kernel files and
 * the launchers in fusednorm_cuda.cu (C++ only, internal).
 */
#ifndef FUSEDNORM_CUDA_RMSNORM_LAUNCH_H_
#define FUSEDNORM_CUDA_RMSNORM_LAUNCH_H_

#include <stdint.h>

#include "kernels/cuda/row_dims.h"
#include "kernels/include/fusednorm.h"

namespace fn {

/* Forward: everything a kernel instance needs at run time (passed by value). The row-dims fields
 * (nd, *_outer) come after the 136-byte block described below so that its offsets stay. */
struct FwdParams {
  const void *x, *r, *w;
  void *y, *ro;
  float *rstd;                 /* may be NULL */
  int64_t x_stride, r_stride, y_stride, ro_stride;
  int64_t rows;
  int n, w_dtype;
  float offset, eps;
  int team;                    /* threads per row: <= 32 (row-packed; the flat-tile and tiny
                                  forwards: their lanes per row) or blockDim.x */
  int head_split;              /* generic forward: rows congruent modulo 16 bytes but not aligned,
                                  or n not a multiple of the vector: each row's interior as
                                  vectors from its own head (rmsnorm_unaligned.cuh) */
  int tile_rows;               /* the flat-tile forward (rmsnorm_fwd_tile.cu): rows per tile; an
                                  int where reserved_end_ says, read by that kernel only */
  int aligned;                 /* every row start and the weight are 16-byte aligned */
  int llama, fused;
  int reserved_end_;           /* The reserved ints (and head_split, read by the generic forward
                                  only) keep this block's layout (136 bytes, these
                                  offsets, plain int members): nvcc reads a by-value parameter
                                  block differently for another layout (a 120- or 128-byte block
                                  field by field rather than through its address; an int[2] there
                                  changes which neighbouring fields are loaded together: PTX
                                  compared), which would change the row-pipelined and lean
                                  kernels' machine code, the code that was measured. Never read. */
  fn_row_dims nd;              /* the rows' index space (row_dims.h); read by fn::row_offset only */
  int64_t x_outer[3], r_outer[3], y_outer[3], ro_outer[3]; /* fn_row_outer_make order */
};

/* The lean forwards' parameter block, for rows of one stride (rms_norm_fwd_tiny_lean,
 * rmsnorm_tiny.cu; rms_norm_fwd_row_lean, rmsnorm_fwd_row.cu): what their first instructions
 * read packed into the block's first 64 bytes, the fused add's and the weight dtype's fields
 * after them. A launch whose time is one memory latency pays a constant-cache miss for each
 * 64-byte line of the parameter bank its address arithmetic reads in turn; FwdParams spreads a
 * row's fields over four or five such lines (kernels/RESULTS.md, "The tiny forward's lean
 * instances"). */
struct LeanFwdParams {
  const void *x, *w;
  void *y;
  float *rstd; /* may be NULL */
  int64_t x_stride, y_stride;
  int rows, n;
  float eps, offset;
  const void *r;
  void *ro;
  int64_t r_stride, ro_stride;
  int w_dtype, llama;
};

/* The tiny backward's parameter block for rows of one stride, one row a team
 * (rms_norm_bwd_tiny_lean, rmsnorm_tiny.cu), laid out as LeanFwdParams is and for the same
 * reason: what its instructions read before the loads (dy, s, the weight, rstd, their strides,
 * rows, n, the weight's dtype) in the first 64 bytes; ds, dx and dw, read later, after them. */
struct LeanBwdParams {
  const void *dy, *s, *w;
  const float *rstd;
  int64_t dy_stride, s_stride;
  int rows, n;
  int w_dtype, llama;
  const void *ds;
  void *dx, *dw; /* dw: NULL without weight */
  int64_t ds_stride, dx_stride;
  float offset;
};

/* Backward. `ws` is the fp32 partial-dw buffer: row u holds the sum over the rows processed by
 * unit u (a CTA, or a cluster) of dy * n, for every column. */
struct BwdParams {
  const void *dy, *s, *ds, *w;
  const float *rstd;
  void *dx;
  float *ws;                   /* NULL without weight */
  int64_t dy_stride, s_stride, ds_stride, dx_stride;
  int64_t rows;
  int n, w_dtype;
  float offset;
  int team, cluster, chunk, aligned, llama;
  int dw_smem;                 /* streamed columns' dw accumulate in dynamic smem (1) or in the
                                  unit's own workspace row in global memory (0) */
  int w_smem;                  /* 1: the fp32 effective weight of the CTA's chunk is staged in
                                  dynamic shared memory (round_up(chunk, vec) floats) */
  fn_row_dims nd;              /* as in FwdParams */
  int64_t dy_outer[3], s_outer[3], ds_outer[3], dx_outer[3];
  void *dw;                    /* non-NULL (the plan's dw_in_kernel; the persistent and row-packed
                                  kernels, launched cooperatively): the kernel sums the partial
                                  rows into dw itself after a grid-wide barrier (one CTA: writes
                                  its row as dw), and no dw_reduce runs (dw_reduce_in_kernel,
                                  partial_out: rmsnorm_bwd_slot.cuh); the tiny backward writes dw */
};

/* Split-row backward (rmsnorm_bwd_wide.cu; geometry: fn_split_bwd in launch_config.h). */
struct SplitParams {
  const void *dy, *s, *ds, *w;
  const float *rstd;
  void *dx;
  float *ws;                   /* gr x n partial dw (row g: CTAs of row group g) */
  float *dots;                 /* per row: gc partial dots, in chunk order (reset to the
                                  unpublished pattern before each launch) */
  int64_t dy_stride, s_stride, ds_stride, dx_stride;
  int64_t rows;
  int n, w_dtype;
  float offset;
  int gc, gr, chunk, stages, lookahead, aligned, llama;
  fn_row_dims nd;              /* as in FwdParams */
  int64_t dy_outer[3], s_outer[3], ds_outer[3], dx_outer[3];
  void *dw;                    /* non-NULL (select.c dw_in_kernel: gr == 1): each CTA writes its
                                  chunk of dw instead of a partial row */
};

/* Wide forward (rmsnorm_fwd_wide.cu): a row over a thread-block cluster of `cluster` CTAs, CTA
 * rank c owning the columns [c*chunk, min(n, (c+1)*chunk)). Its own block, so that FwdParams (and
 * the machine code of the kernels measured with it) stays as it is. */
struct FwdWideParams {
  const void *x, *r, *w;
  void *y, *ro;
  float *rstd;                 /* may be NULL */
  int64_t x_stride, r_stride, y_stride, ro_stride;
  int64_t rows;
  int n, w_dtype;
  float offset, eps;
  int cluster, chunk;          /* CTAs a row, columns a CTA */
  int grid_sum;                /* 1: the row's CTAs are not a cluster; their sum meets in global
                                  memory across a cooperative grid (rmsnorm_fwd_wide.cu grid_push_sum) */
  int staged;                  /* slots per thread past the registers staged in shared memory */
  int wstage;                  /* bytes of a slot's weight staged in shared memory with its x (16
                                  or 32, fn_fwd_wide_weight_bytes; every slot of the thread's), 0:
                                  the weight read from global memory after the row's sum */
  int aligned;                 /* every row start and the weight are 16-byte aligned */
  int llama;
  fn_row_dims nd;              /* as in FwdParams */
  int64_t x_outer[3], r_outer[3], y_outer[3], ro_outer[3];
};

/* The generic forward (rmsnorm_fwd.cu) for cache sizes FN_FWD_GENERIC_CACHES; NULL otherwise. */
const void *fwd_kernel(fusednorm_dtype x, int cache);
/* The row-pipelined forward (rmsnorm_fwd.cu) for cache sizes 1, 2, 4, and its head-split instance
 * (`unaligned`) for 1 and 2; NULL otherwise. */
const void *fwd_pipe_kernel(fusednorm_dtype x, int cache, bool fused, bool unaligned);
/* The forward of rows of whole aligned vectors over a team of at most 32 lanes (rmsnorm_fwd.cu
 * rms_norm_fwd_lanes; p.team: lanes per row), `k` vectors a lane (1, or 2 for the plain forward),
 * with or without the fused add, with N-d row addressing (`nd`) or without; NULL for an instance
 * not built. */
const void *fwd_lanes_kernel(fusednorm_dtype x, int k, bool fused, bool nd);
/* The lean one-row-per-CTA forward (rmsnorm_fwd_row.cu) for cache sizes 1, 2, 4, with or
 * without the fused add, with a 4-byte (w32) or 16-bit / no weight, aligned or head-split
 * (`unaligned`, rmsnorm_unaligned.cuh); `lean`: the instance for rows of one stride, one row per
 * CTA (LeanFwdParams), else the one for any rows (FwdParams); NULL otherwise. */
const void *fwd_row_kernel(fusednorm_dtype x, int cache, bool fused, bool w32, bool unaligned, bool lean);
/* The wide forward (rmsnorm_fwd_wide.cu) for slots per thread 1, 2 (any layout, with or without
 * the fused add; `unaligned`: the head-split instance for congruent rows) and 4 (aligned rows, n a
 * multiple of the vector width, no fused add); `grid_sum`: the instance whose CTAs sum across a
 * cooperative grid, else across a cluster (the plan's cluster == 1 or > 1); `wstage`: the
 * instance that stages the weight (aligned cluster instances of 2 and 4 slots only: the plan's
 * weight_smem); and 0 slots a thread: every slot staged, the weight in registers (plain aligned
 * cluster rows only, rms_norm_fwd_wide_wr); NULL otherwise. */
const void *fwd_wide_kernel(fusednorm_dtype x, int spt, bool fused, bool unaligned, bool grid_sum, bool wstage);
/* The flat-tile forward (rmsnorm_fwd_tile.cu) for dense narrow rows: `cols` (1..FN_FWD_TILE_MAX_COLS)
 * columns per lane, with or without the fused add; NULL otherwise. */
const void *fwd_tile_kernel(fusednorm_dtype x, int cols, bool fused);
/* The warp forward (rmsnorm_fwd_warp.cu) with `cols` columns a lane (fn_fwd_warp_cols); NULL if
 * no such instance. */
const void *fwd_warp_kernel(fusednorm_dtype x, int cols, bool fused, int rows_per_warp);
const void *fwd_warp_vec_kernel(fusednorm_dtype x, int load_elems, int cols);
/* The forward of rows narrower than a vector (rmsnorm_fwd_tile.cu rms_norm_fwd_thread) of `n`
 * columns (16-bit: 1, 2, 3, 4, 6; f32: 1, 2, 3), with or without the fused add; NULL otherwise. */
const void *fwd_thread_kernel(fusednorm_dtype x, int n, bool fused);
/* The tiny kernels (rmsnorm_tiny.cu): `cols` (fn_tiny_cols: 1, 2, 4, ..., FN_TINY_MAX_COLS)
 * columns per lane, the forward with or without the fused add, the backward with or without ds
 * (p.team: lanes per row; the backward's p.dw: dw written by the kernel, NULL without weight);
 * NULL otherwise. */
const void *fwd_tiny_kernel(fusednorm_dtype x, int cols, bool fused);
/* The tiny forward for rows of one stride (LeanFwdParams): `lanes` (fn_tiny_lanes: 1, 2, ..., 32)
 * lanes per row, one column each, with or without the fused add; NULL otherwise. */
const void *fwd_tiny_lean_kernel(fusednorm_dtype x, int lanes, bool fused);
const void *bwd_tiny_kernel(fusednorm_dtype x, int cols, bool has_ds);
/* The tiny backward for rows of one stride, one row a team, every row in one step
 * (LeanBwdParams): `cols` columns a lane (fn_tiny_cols) and `lanes` lanes a row (fn_tiny_lanes: 32
 * past one column a lane), with or without ds; NULL otherwise. */
const void *bwd_tiny_lean_kernel(fusednorm_dtype x, int cols, int lanes, bool has_ds);
/* The generic backward (rmsnorm_bwd.cu) for cache sizes FN_BWD_GENERIC_CACHES; NULL otherwise. */
const void *bwd_kernel(fusednorm_dtype x, int cache);
/* The lean persistent backward (rmsnorm_bwd_row.cu) for cache sizes 1, 2, 4, aligned or
 * head-split (`unaligned`); with `one_row` (every CTA at most one row), head-split at one slot per
 * thread, the instance without the staging (rms_norm_bwd_row_u1), which needs no dynamic shared
 * memory; else head-split with `by_residue` (rows of one stride, a grid of at least the row
 * addresses' period modulo 16 bytes or covering the rows: fn_bwd_row_by_residue), the instance
 * whose CTAs take rows of one head (rms_norm_bwd_row_hs); NULL otherwise. */
const void *bwd_row_kernel(fusednorm_dtype x, int cache, bool has_ds, bool unaligned, bool one_row, bool w16,
                           bool narrow64, bool by_residue);
/* The row-pipelined row-packed backward (rmsnorm_bwd.cu), with or without the fused add's ds, with
 * N-d row addressing (`nd`: rows of more than one stride) or without. */
const void *bwd_pipe_kernel(fusednorm_dtype x, int slots, bool has_ds, bool nd);
/* The warp backward (rmsnorm_bwd_warp.cu) with `cols` columns a lane (fn_bwd_warp_cols), with or
 * without the fused add's ds; NULL if no such instance. */
const void *bwd_warp_kernel(fusednorm_dtype x, int cols, bool has_ds);
/* The fixed-order reduction of the partial-dw rows into dw (weight dtype): dw_reduce for more than
 * FN_DW_IN_KERNEL_MAX_PARTIALS rows, in CTAs of cols x slices threads (fn_dw_reduce_shape: the
 * instances it names; NULL otherwise), dw_reduce_chain (kDwChainThreads per CTA) for at most that. */
const void *dw_reduce_kernel(int cols, int slices);
const void *dw_reduce_chain_kernel();
constexpr int kDwChainThreads = 256;
/* Split-row wide backward instance for (x dtype, slots per thread in {1,2,4}, the head-split ring
 * for congruent rows that are not aligned: the plan's unaligned, the fused add's ds read from
 * global memory instead of the ring: the plan's ds_direct; `by_residue`: head-split rows of one
 * stride whose row groups are at least the row addresses' period modulo 16 bytes or cover the
 * rows (fn_bwd_row_by_residue), the instance whose row groups take rows of one head); NULL if
 * none. */
const void *bwd_split_kernel(fusednorm_dtype x, int spt, bool head_split, bool ds_direct, bool by_residue);

}  // namespace fn

#endif /* FUSEDNORM_CUDA_RMSNORM_LAUNCH_H_ */
