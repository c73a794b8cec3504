/* The register counts the launch plans assume (kernels/cuda/launch_config.h), one line per kernel
 * instance whose residency sizes a persistent grid: "<kernel> <x dtype> <cache|-> <fused|-> <regs>".
 * test_regs.py compares them with ptxas's counts for sm_90a. */
#include <stdio.h>

#include "kernels/cuda/launch_config.h"

int main(void) {
  static const struct {
    const char *name;
    int size;
  } dt[] = {{"f32", 4}, {"f16", 2}, {"bf16", 2}};
  static const int pipe_caches[] = {1, 2, 4};
  for (int d = 0; d < 3; ++d) {
    for (int c = 0; c < 3; ++c)
      for (int f = 0; f < 2; ++f)
        printf("fwd_pipe %s %d %d %d\n", dt[d].name, pipe_caches[c], f,
               fn_regs_estimate_fwd_pipe(pipe_caches[c], dt[d].size, f));
    for (int c = 0; c < 2; ++c)
      for (int f = 0; f < 2; ++f)
        printf("fwd_pipe_u %s %d %d %d\n", dt[d].name, pipe_caches[c], f,
               fn_regs_estimate_fwd_pipe_u(pipe_caches[c], dt[d].size, f));
    for (int spt = 1; spt <= (dt[d].size == 4 ? 2 : 1); ++spt) /* two slots a lane: f32 only */
      for (int f = 0; f < 2; ++f)
        printf("bwd_pipe %s %d %d %d\n", dt[d].name, spt, f, fn_regs_estimate_bwd_pipe(dt[d].size, f, spt));
    /* The generic kernels: the forward's reload instance (cache 0) and the backward's caches. */
    printf("fwd %s 0 - %d\n", dt[d].name, fn_regs_estimate(0, 0, dt[d].size));
    printf("bwd %s 1 - %d\n", dt[d].name, fn_regs_estimate(1, 1, dt[d].size));
    printf("bwd_c2 %s - - %d\n", dt[d].name, fn_regs_estimate(1, 2, dt[d].size));
    printf("bwd %s 4 - %d\n", dt[d].name, fn_regs_estimate(1, 4, dt[d].size));
    /* The lean backward of 16-bit rows at S <= 4 slots a thread (its own grid: select.c
     * bwd_persistent). */
    for (int c = 0; c < 3 && dt[d].size == 2; ++c)
      for (int f = 0; f < 2; ++f)
        printf("bwd_row %s %d %d %d\n", dt[d].name, pipe_caches[c], f, fn_regs_estimate_bwd_row16(pipe_caches[c], f));
    for (int c = 0; c < 3 && dt[d].size == 2; ++c) /* ... its head-split instances */
      for (int f = 0; f < 2; ++f)
        printf("bwd_row_u %s %d %d %d\n", dt[d].name, pipe_caches[c], f, fn_regs_estimate_bwd_row_u16(pipe_caches[c], f));
    for (int f = 0; f < 2 && dt[d].size == 2; ++f) /* ... and its one-slot instance of 64-thread CTAs */
      printf("bwd_row_narrow %s 1 %d %d\n", dt[d].name, f, FN_BWD_ROW_NARROW_REGS);
    /* The warp backward at every instance (columns a lane), with and without ds. */
    {
      static const int warp_cols[] = FN_BWD_WARP_INSTANCES;
      for (int c = 0; c < (int)(sizeof warp_cols / sizeof warp_cols[0]); ++c)
        for (int f = 0; f < 2; ++f)
          printf("bwd_warp %s %d %d %d\n", dt[d].name, warp_cols[c], f,
                 fn_regs_estimate_bwd_warp(dt[d].size, f, warp_cols[c]));
    }
  }
  return 0;
}
