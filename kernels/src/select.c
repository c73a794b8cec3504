/*
 * select.c — the launch plan: fusednorm_select_launch(problem, device, layout) -> plan, one pure
 * function (no CUDA, no globals) that decides every knob of a CUDA launch: kernel family, threads,
 * rows per CTA, cluster / column split, grid, register-cache slots per thread, shared memory,
 * weight and dw staging, ring stages, partial-dw rows and workspace bytes. The CUDA launcher
 * (kernels/cuda/fusednorm_cuda.cu) runs exactly this plan; kernels/tests/test_select.c pins whole
 * plans on a table of real devices. The facts about the compiled kernels it relies on (launch
 * bounds, registers, instances, the split-row geometry) are in kernels/cuda/launch_config.h; the
 * families and when AUTO picks each: kernels/cuda/README.md.
 *
 * Every threshold below carries the measurement behind it (H200; kernels/RESULTS.md has the
 * tables). Only the device's own figures scale them: SM count, compute capability, threads,
 * registers and shared memory per SM, the per-block shared-memory limit and the L2 size.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/cuda/launch_config.h"
#include "kernels/include/fusednorm.h"
#include "kernels/src/common.h"

/* Slots per thread of the one-CTA-per-row modes: 4 (threads = slots / 4, at least 64). H200 bf16,
 * fwd 16384 x 4096: 128 threads x 4 slots (reload) 3090 GB/s vs 512 threads x 1 slot 1667 GB/s;
 * small CTAs with several loads in flight per thread beat wide CTAs whose every row pays a
 * 16-warp barrier (kernels/RESULTS.md). The lean forward (rmsnorm_fwd_row.cu) takes the same 4:
 * 4 slots per thread rather than 2 (H200, 2026-11-22 04:23 UTC, bench_modes): 32768 x 2880 3980
 * vs 3331, 16384 x 8192 4032 vs 3163 GB/s. */
#define FN_TARGET_CACHE 4
#define FN_AUTO_FWD_ROW_FEW_MAX_THREADS 768 /* fwd_row: one slot per thread with fewer rows than SMs */
/* ... and up to FN_AUTO_FWD_ROW_FEW_ROWS_PER_SM rows per SM where a CTA of one slot per thread
 * has at most FN_AUTO_FWD_ROW_FEW2_MAX_THREADS (two such CTAs an SM: H200 2026-11-28, AUTO
 * forward paired 4 slots vs 1 per thread on 132-264 rows of 397-8000 columns, bf16 and f32, plain
 * and fused: 1.030x geomean, 1.03-1.09x on 16-bit rows of 600-3000 columns (bf16 200 x 1214 fused
 * 6.04 -> 5.56 us), worst f32 264 x 2000 fused 0.98x (512 threads);
 * tools/bench/results/few_rows_fwd_h200_2026-11-28/). */
#define FN_AUTO_FWD_ROW_FEW_ROWS_PER_SM 2
/* The lean forward at 8 slots a thread and two CTAs an SM (fwd_row8_ok; rmsnorm_fwd_row.cu), in
 * place of 4 slots at up to 1024 threads and one CTA an SM, for aligned rows of
 * FN_AUTO_FWD_ROW8_MIN_SLOTS-4096 slots from FN_AUTO_FWD_ROW8_MIN_ROWS_PER_SM rows an SM. Nsight
 * Compute, bf16 4096 x 32768 (H200, 2026-11-29 23:11 UTC): 175.2 -> 138.0 us, DRAM throughput 61%
 * -> 79% (torch.compile's looped reduction, two 1024-thread CTAs an SM at 32 registers: 134.5 us,
 * 80%; Liger's one-CTA kernel 174.7 us). bench_modes AUTO, cold, paired before / after / after /
 * before, us (tools/bench/results/fwd_row8_h200_2026-11-29): from 1056 rows 1.01-1.26x at every
 * width of 2560-4096 slots (bf16 4096 x 20480 117.3 -> 93.1, 4096 x 32768 157.9 -> 145.1; f32
 * 4096 x 12288 123.8 -> 108.3), mixed at 264-528 rows (0.94-1.14x), behind below (66-132 rows
 * 0.83-0.95x: a thread's chain of eight slots is the row's latency), and behind at 2049 slots at
 * every row count (16392 / f32 8196 columns: 0.86-0.96x, 288 threads for 2049 slots).
 * The fused add's rows of that range (past the S = 4 instance's 512 threads: otherwise the generic
 * or the wide forward), its residual loaded two slots at a time (64 registers, 68-100 bytes of
 * spills), forced against them (bench_modes, H200 23:44 UTC, us, S = 8 / wide / reload): bf16
 * 1056 x 20480 58.0 / 65.9 / 64.9, 4096 x 20480 188.9 / 231.9 / 233.8, 4096 x 24576 232.8 /
 * 251.9 / 258.1, 1056 x 32768 86.6 / 88.2 / 93.2, 4096 x 32768 297.5 / 318.2 / 328.3, 8192 x
 * 28672 510.6 / 559.6 / 600.4; f32 1056 x 10240 57.9 / 65.2 / 62.0, 8192 x 10240 378.4 / 440.7 /
 * 426.5, 4096 x 16384 308.8 / 315.1 / 309.8. It is taken there ahead of the wide forward, except
 * where the wide plan stages the weight (the chunk moves >= FN_AUTO_FWD_WIDE_WS_MIN_CTA_BYTES in:
 * 16-bit rows of >= 24576 columns at two CTAs a row, f32 >= 12288), which the wide forward's later
 * changes made the faster one (H200, 2026-12-01 03:49 UTC, bench_modes cold, two runs, us, S = 8 /
 * wide: bf16 1056 x 24576 68.7 / 64.3, 4096 x 28672 268.4 / 245.7, 4096 x 32768 298.8 / 287.0,
 * 8192 x 32768 580.7 / 562.0; f16 4096 x 24576 241.2 / 216.3, 4096 x 32768 313.5 / 287.4; f32
 * 4096 x 12288 232.3 / 215.8, 8192 x 16384 604.9 / 557.0: 1.03-1.15x over 33 shapes; below the
 * stage, where the wide plan reads the weight every row, S = 8 still leads: bf16 4096 x 20480
 * 188.6 / 218.1, f32 8192 x 10240 377.6 / 412.8, ties at bf16 1056 x 22000 and f32 4096 x 11000;
 * tools/bench/results/fwd_row8_fused_wide_h200_2026-12-01). */
#define FN_AUTO_FWD_ROW8_MIN_ROWS_PER_SM 8
#define FN_AUTO_FWD_ROW8_MIN_SLOTS 2560
#define FN_AUTO_FWD_ROW_FEW2_MAX_THREADS 512
/* AUTO plain forward of congruent rows that are not whole aligned vectors, up to 2 slots a lane of
 * a 32-lane team, the tiles and lanes declining: the row-pipelined kernel's head-split instance
 * from this many rows per SM, before the head-split lean kernel (H200, 2026-11-27, cold, us,
 * lean -> row-pipelined: bf16 4096 x 139 7.8 -> 6.8, 32768 x 295 27.4 -> 25.4, 200000 x 295 139.8
 * -> 121.1, 200000 x 477 141.7 -> 128.1; f32 4096 x 223 7.9 -> 7.3, 32768 x 223 26.9 -> 22.8; at
 * 512 rows (4 per SM) 0.97-0.90x: 5.4 -> 5.9 at n = 295; the fused add 0.67-0.98x from n = 139
 * on, e.g. bf16 200000 x 295 168.5 -> 224.3, so not fused). Between 4 and 31 rows per SM not
 * measured. */
#define FN_AUTO_FWD_PIPE_U_ROWS_PER_SM 16
/* bwd_persistent: one slot per thread with fewer rows than SMs, up to this many threads. */
#define FN_BWD_FEW_ROWS_MAX_THREADS 1024
/* AUTO: rows of at most this many slots are row-packed (a team of <= 32 lanes per row, several
 * rows per CTA). Forward up to 64 slots (16-bit n <= 512, f32 n <= 256), backward up to 32
 * (16-bit n <= 256, f32 n <= 128). H200, 2026-11-22 01:08 UTC, tools/bench full run (bench.json,
 * GB/s bf16 / fp16): row-packed wins by 1.5-4x up to 32 slots (bf16 262144 x 256 fwd 2441 vs
 * persistent 1256, bwd 2623 vs 1668; 1048576 x 128 fwd 2571 vs 644; f32 65536 x 128 = 32 slots
 * fwd 2364 vs 1434, bwd 2519 vs 1826); at 64 slots (bf16 131072 x 512) it still wins the forward
 * (3194 vs reload 2359 / persistent 2322; fused add 3810 vs reload 3731) but loses the backward
 * (2372 vs persistent 2929, fused add 2388 vs 3157); at 128 slots (65536 x 1024) it loses both
 * (fwd 2300 / 2336 vs persistent 3127 / 3155, bwd 2182 / 2218 vs 2828 / 2830; fused add fwd
 * 2590 vs reload 4007). (Row-packed had been ahead at 128 slots with
 * the earlier persistent and reload kernels, kernels/RESULTS.md.) */
/* With the row-pipelined forward (rmsnorm_fwd.cu rms_norm_fwd_pipe; H200, 2026-11-22 02:41 and
 * 02:53 UTC, bench_modes --fwd-only, two runs) row-packed stays far ahead up to 32 slots (bf16
 * 1048576 x 128 3600 vs persistent 958, 262144 x 256 3445 vs 1814; fused add 3841 / 3740 vs
 * 1492 / 2730) and persistent takes 64 slots: 131072 x 512 3351 vs 3204, fused add 3791 vs
 * 3743. So both directions are row-packed up to 32 slots. */
#define FN_AUTO_ROW_PACKED_FWD_SLOTS 32
/* The row-packed forward of rows of whole aligned vectors takes fwd_lanes above this many rows
 * per SM (fwd_lanes: the evidence). */
#define FN_FWD_LANES_MIN_ROWS_PER_SM 64
/* The forward of rows narrower than a vector (fwd_thread), rows that are several vectors a thread:
 * groups per SM (threads: 1.5 CTAs of 256) below which the tiles keep them (fwd_thread: the
 * evidence). */
#define FN_AUTO_FWD_THREAD_MIN_GROUPS_PER_SM 384

/* AUTO's warp forward (fwd_warp) for rows of one stride that are not whole aligned vectors: any
 * width it takes with at most FEW_ROWS_PER_SM rows an SM; f32 rows of F32_MIN_N..F32_MAX_N
 * columns at any count; 16-bit rows of B16_MIN_N..B16_MAX_N columns up to B16_ROWS_PER_SM rows an
 * SM, and at any count from B16_ANY_ROWS_MIN_N (past the flat tiles' 32 slots, where the
 * alternative is a vector family's head-split instance; the fused add up to
 * B16_FUSED_ANY_ROWS_MAX_N); and the plain forward where two rows a warp pay (WARP2 below).
 * fwd_warp and fwd_warp_rows have the measurements. */
#define FN_AUTO_FWD_WARP_FEW_ROWS_PER_SM 16
#define FN_AUTO_FWD_WARP_F32_MIN_N 65
#define FN_AUTO_FWD_WARP_F32_MAX_N 384
#define FN_AUTO_FWD_WARP_B16_MIN_N 129
#define FN_AUTO_FWD_WARP_B16_MAX_N 512
#define FN_AUTO_FWD_WARP_B16_ROWS_PER_SM 256
#define FN_AUTO_FWD_WARP_B16_ANY_ROWS_MIN_N 257
#define FN_AUTO_FWD_WARP_B16_FUSED_ANY_ROWS_MAX_N 320
/* Dense rows (back to back: the flat tiles' domain, where these were measured against them): one
 * row a warp from DENSE_B16_MIN_N (16-bit, up to B16_ROWS_PER_SM) and DENSE_F32_MIN_N (f32, up
 * to DENSE_F32_ROWS_PER_SM) columns instead, which in practice moves the fused add (the plain
 * forward takes two rows a warp there). */
#define FN_AUTO_FWD_WARP_DENSE_B16_MIN_N 97
#define FN_AUTO_FWD_WARP_DENSE_F32_MIN_N 49
#define FN_AUTO_FWD_WARP_DENSE_F32_ROWS_PER_SM 4096 /* the f32 dense rules (this and WARP2's) up to here */
/* Two rows a warp (the plain forward, past FEW_ROWS_PER_SM rows an SM; fwd_warp_rows has the
 * measurements): 16-bit rows of at most WARP2_B16_NARROW_MAX_N columns from the narrowest width of
 * the first band whose rows an SM reach the count (WARP2_B16_BANDS: {most rows an SM, fewest
 * columns}), wider ones past WARP_B16_ROWS_PER_SM rows an SM; f32 rows of WARP2_F32_MIN_N..64
 * columns, from FN_FWD_WARP_MIN_N up to WARP2_F32_NARROW_ROWS_PER_SM rows an SM, and wider ones
 * past WARP2_F32_WIDE_ROWS_PER_SM. Up to the widths whose instances are built (launch_config.h
 * fn_fwd_warp2_built: 320 columns 16-bit, 96 f32). */
#define FN_AUTO_FWD_WARP2_B16_NARROW_MAX_N 128
#define FN_AUTO_FWD_WARP2_B16_BANDS {{64, 33}, {160, 60}}
#define FN_AUTO_FWD_WARP2_F32_MIN_N 49
#define FN_AUTO_FWD_WARP2_F32_NARROW_ROWS_PER_SM 64
#define FN_AUTO_FWD_WARP2_F32_WIDE_ROWS_PER_SM 1024
/* ... and, for dense rows, 16-bit rows of DENSE_B16_MIN_N to WARP2_B16_NARROW_MAX_N columns past
 * the bands, f32 rows from DENSE_F32_MIN_N columns up to DENSE_F32_ROWS_PER_SM. */
#define FN_AUTO_FWD_WARP2_DENSE_B16_MIN_N 65
#define FN_AUTO_FWD_WARP2_DENSE_F32_MIN_N 45

/* Sub-vector loads in the warp forward (fwd_warp_load_elems): the plain 16-bit forward of rows of
 * FN_FWD_WARP_VEC_MIN_N..FN_FWD_WARP_VEC_MAX_N columns (launch_config.h) past
 * FN_AUTO_FWD_WARP_FEW_ROWS_PER_SM rows an SM whose every start and the weight sit on a 4- or
 * 8-byte boundary. */

/* The flat-tile forward (fwd_tile): full tiles per SM below which tiles shrink, and the fewest
 * rows a tile must have (but for 16-bit rows narrower than two vectors). */
#define FN_FWD_TILE_CTAS_PER_SM 4
#define FN_FWD_TILE_MIN_ROWS 10
/* The smallest CTA of the plain forward's full waves of tiles (fwd_tile). */
#define FN_FWD_TILE_WAVE_THREADS 128
/* Tiny problems (rmsnorm_tiny.cu). Forward: rows of at most FN_TINY_FWD_MAX_N columns, at most
 * FN_TINY_FWD_MAX_ELEMS elements in all. Backward: rows of at most FN_TINY_MAX_N columns, as many
 * as one CTA holds (fn_tiny_bwd_threads / lanes teams x fn_tiny_bwd_rows rows), twice over
 * (FN_AUTO_TINY_BWD_PASSES). H100, 2026-11-27,
 * bench harness, cold inputs, us, the row-pipelined / persistent kernels (dw in the kernel) ->
 * the tiny ones (tools/bench/results/tiny_2026-11-27), bwd: bf16 22 x 1 7.73
 * -> 5.25, 3 x 8 6.69 -> 5.49, 300 x 8 9.09 -> 6.83, 1 x 223 6.93 -> 5.97; f16 3 x 13 7.49 ->
 * 5.82, 1 x 255 6.88 -> 6.14, 7 x 200 6.93 -> 6.14; f32 68 x 1 8.54 -> 5.14, 13 x 16 8.32 -> 5.63,
 * 1 x 183 6.53 -> 5.79 (the fused-add backward alike); fwd: bf16 22 x 1 5.10 -> 4.74, 3 x 8 5.17
 * -> 4.77; f16 3 x 13 5.31 -> 4.96; f32 68 x 1 4.86 -> 4.69, 13 x 16 4.93 -> 4.64. Wider tiny
 * rows ran slower than the kernels they would replace: 32 columns per lane 0.40-0.74x (a lane's
 * element-wise work is the launch's latency), a forward of 2-8 columns per lane 0.93-0.99x, and of
 * one column past ~2000 elements 0.97-1.00x (kernels/RESULTS.md, "Tiny problems in one launch"). */
#define FN_TINY_FWD_MAX_ELEMS 2048
/* The tiny backward's CTA takes up to this many times the rows it holds at once, its teams
 * looping over them (dw stays in each lane's registers: still one launch). H200, 2026-11-27,
 * AUTO, bench.py, us, bf16 and f32, plain and fused, the other kernels (the head-split persistent
 * backward, or the row-packed one, and dw in a second launch) -> the tiny one
 * (tools/bench/results/tiny_passes_h200_2026-11-27): two passes 1.15x over 32 cases, none slower
 * (bf16 48 x 93 bwd 9.0 -> 7.2, 32 x 150 8.7 -> 7.4, 128 x 40 8.8 -> 7.9; f32 64 x 93 8.9 ->
 * 7.2), three 1.04x but down to 0.94x (bf16 48 x 230 fused 9.2 -> 9.8), four 0.89x (bf16 256 x 40
 * 8.4 -> 11.2). */
#define FN_AUTO_TINY_BWD_PASSES 2
#define FN_AUTO_ROW_PACKED_BWD_SLOTS 32
/* AUTO backward with a weight, row-packed only from FN_AUTO_PACKED_BWD_ROWS_PER_SM rows per SM:
 * each row-packed CTA ends by combining its teams' dw in shared memory and writes a partial row, a
 * cost per launch whatever the rows; the persistent backward pays per row. H200 (132 SMs),
 * 2026-11-29, bench.py, cold, both forced in one run, twice, bf16 and f32, plain and fused, 8-256
 * columns (8 widths), geomean of persistent / row-packed time over the widths up to 128 columns
 * (kernels/RESULTS.md, "AUTO's backward after the dependent launch"):
 *   rows   64    128   256   512   1024  2048  4096
 *   bf16   0.99  0.99  0.92  1.02  1.04  1.27  1.44
 *   f32    1.01  1.03  0.92  1.04  1.06  1.30  1.31
 * Single cases scatter by +-15% around these (5-9 us launches). Then paired (AUTO with the cut at 8
 * rows an SM / at 4 / at 4 / at 8, H200 2026-11-29 11:50 UTC, bench.py cold, bf16 and f32, plain
 * and fused, 8-250 columns; tools/bench/results/row8_headsplit_h200_2026-11-29/packed_cut): row-packed
 * over persistent 0.999x at 528 rows (0.88-1.09x single cases), 1.056x at 700 (f32 29-128 columns
 * 1.09-1.16x), 1.107x at 942 (bf16 128 columns 1.20-1.22x, f32 44 1.22-1.27x; f32 200-250 columns
 * 0.98-1.00x). So the cut is between 528 and 700 rows on 132 SMs. It scales with the SMs, over
 * which the persistent backward spreads its rows. Without a weight there is no dw to combine. */
#define FN_AUTO_PACKED_BWD_ROWS_PER_SM 5
/* AUTO backward of f32 rows of 33-64 slots (129-256 columns) that are not whole aligned vectors:
 * the row-packed kernel at two slots a lane from this many rows per SM, else the persistent
 * backward's head-split instance (or its generic kernel). H200, 2026-11-28, both forced in one run
 * (bench.py, us, 129-256 columns, 1000-643392 rows, plain and fused, cold and hot; row-packed
 * over persistent): odd widths 139 and 178 at 1000 rows 0.84-0.88x, 4096 rows (31 a SM)
 * 0.96-1.03x, 16384 (124 a SM) 0.96-1.14x, 65536 1.03-1.18x, 262144 1.08-1.27x (643392 x 139
 * 558.6 -> 436.3 us); aligned whole-vector rows (136, 200, 256 columns) 0.80-0.98x at every row
 * count, so they keep the persistent backward, as every 16-bit width does (0.57-0.95x there)
 * (tools/bench/results/bwd_two_slot_h200_2026-11-28). */
#define FN_AUTO_PACKED_BWD2_ROWS_PER_SM 96
/* AUTO backward: the warp backward (bwd_warp) from FN_AUTO_BWD_WARP_ROWS_PER_SM rows an SM, for
 * rows that are not whole aligned vectors (16-bit from FN_AUTO_BWD_WARP_B16_MIN_N columns) and f32
 * rows of whole aligned vectors past FN_AUTO_BWD_WARP_F32_ALIGNED_MIN_N columns. H200, 2026-12-02,
 * bench_modes AUTO, paired, against the plans before it (row-pipelined at one or two slots a
 * lane, the persistent backward's head-split or aligned instances;
 * tools/bench/results/warp_bwd_h200_2026-12-02):
 * - not whole aligned vectors, from 124 rows an SM: f32 643392 x 139 451.7 -> 276.4 us (1.63x),
 *   262144 x 139 1.67x, 100000 x 45 / 63 / 97 1.21x / 1.28x / 1.50x, 200000 x 255 1.30x, 16384 x
 *   178 1.30x; bf16 200000 x 139 1.79x, 65536 x 255 1.40x, 100000 x 99 1.29x, 20000 x 201 1.31x;
 *   fp16 300000 x 77 1.41x, 21511 x 212 1.34x; rows at a 2-byte offset (bf16 65536 x 128, 262144
 *   x 256) 1.21-1.26x; the fused add 1.11-1.98x (bf16 100000 x 139 89.2 -> 45.0);
 * - fewer rows: 31 an SM f32 4096 x 139 1.06x, bf16 4096 x 77 0.91x; 8 an SM f32 1000 x 139 0.99x;
 * - 16-bit rows of 45 columns (two a lane, 45 of 64 used) 0.94x (bf16 300000 x 45), of 64 at a
 *   2-byte offset 1.04x;
 * - whole aligned vectors: f32 136-256 columns 1.10-1.35x (262144 x 136 161.6 -> 119.7), 128
 *   0.99-1.00x (the row-pipelined kernel at one slot a lane, a vector a load); 16-bit 0.82-0.98x
 *   (bf16 1048576 x 128 218.4 -> 250.4, 131072 x 64 0.82x): not taken. */
#define FN_AUTO_BWD_WARP_ROWS_PER_SM 96
#define FN_AUTO_BWD_WARP_B16_MIN_N 64
#define FN_AUTO_BWD_WARP_F32_ALIGNED_MIN_N 129
/* AUTO forward without fused add, just above row-packed (<= 128 slots, 16-bit n <= 1024):
 * persistent (64-thread CTAs, <= 2 slots per thread, 16 CTAs per SM) beats reload there,
 * 65536 x 1024 bf16 3127 vs 2967, fp16 3155 vs 2988 GB/s (same run), while at 360 slots
 * (32768 x 2880) reload wins 3085 vs 2151. The fused-add forward keeps reload: 4007 vs 3794
 * (bf16), 4016 vs 3800 (fp16). */
#define FN_AUTO_FWD_PERSISTENT_NARROW_SLOTS 128
/* Fused add: persistent (pipelined) at 64 slots, reload from there on: H200 2026-11-22 02:53 UTC
 * bf16 131072 x 512 persistent 3791 vs reload 3676 vs row-packed 3743; 65536 x 1024 reload 3925
 * vs persistent 3751 GB/s. */
#define FN_AUTO_FWD_PERSISTENT_NARROW_SLOTS_FUSED 64
/* AUTO forward: one CTA per row, row re-read from L2, up to this many slots (bf16 n <= 8192):
 * H200 bf16 fwd, reload vs persistent (cached): n=2880 3047/2984, 4096 3090/2530, 5120 3071/2845,
 * 7168 2884/2697, 8192 2962/1805 GB/s. Beyond it the 1024-thread persistent CTA (partly
 * cached, the rest streamed) beats the wide mode: 4096 x 16384 2227 vs 1198, 1024 x 65536 2420
 * vs 591, 256 x 1048576 2355 vs 1354 GB/s. Rechecked with the current generic kernels: reload vs persistent 32768 x 2880 3019/1918,
 * 16384 x 4096 3077/2781, 8192 x 8192 2930/2681; 4096 x 16384 reload 2408 vs persistent 2811. */
/* The full bench run (H200, 2026-11-22 01:08 UTC, reload vs persistent
 * GB/s): plain f32 16384 x 7168 (1792 slots) 3630 vs 3385, but bf16 8192 x 16384 (2048 slots)
 * 2763 persistent vs 2564 reload: plain forward reload up to 1792 slots. Fused add: f32
 * 16384 x 7168 4068 vs 3815, bf16 8192 x 16384 (2048 slots) 3531 vs 3345, bf16 4096 x 32768
 * (4096 slots) 3028 vs 3214 persistent: fused-add forward reload up to 2048 slots. */
#define FN_AUTO_FWD_RELOAD_SLOTS 1792
#define FN_AUTO_FWD_RELOAD_SLOTS_FUSED 2048
/* AUTO forward with 16-byte aligned rows and weight (fusednorm_layout.aligned16) and n a multiple
 * of the vector width: from just above row-packed (fused
 * add) or persistent (plain) up to the whole row in one CTA's registers at 4 slots per thread
 * (16-bit n <= 32768 plain with a 16-bit weight, else 16384), the lean multi-wave cached kernel
 * (rmsnorm_fwd_row.cu). H200, 2026-11-22 04:23 UTC, bench_modes --fwd-only, forced modes in
 * one run, GB/s lean cached vs the best other mode: bf16 65536 x 1024 3694 vs persistent 3178,
 * 32768 x 2880 3980 vs 3048, 32768 x 4096 3999 vs reload 3307, 16384 x 5120 3872 vs 3081,
 * 16384 x 7168 3863 vs 2881, 16384 x 8192 4032 vs 3153, 8192 x 16384 3759 vs persistent 2751;
 * f32 65536 x 1024 4019 vs 3599, 16384 x 4096 3951 vs 3621, 16384 x 7168 3997 vs 3565,
 * 8192 x 8192 3958 vs 3492; fused add bf16 131072 x 512 4009 vs persistent 3818, 65536 x 1024
 * 3999 vs reload 3944, 32768 x 4096 4043 vs 3987, 8192 x 16384 4006 vs persistent 3620. At 64
 * slots the plain forward keeps the pipelined persistent kernel: 131072 x 512 3391 vs 3116.
 * Misaligned rows keep the rules below (the generic cached kernel is slower than reload).
 * Rows congruent modulo 16 bytes but not aligned, or n not a multiple of the vector, take the
 * head-split instance (rmsnorm_unaligned.cuh) at the same thresholds: the aligned measurements
 * carried over, not yet measured on their own (the generic path they replace ran 4000 x ~2900 at
 * 0.59x fwd / 0.68x bwd of the best peer on an H200). */
#define FN_AUTO_FWD_ROW_MIN_SLOTS 65
/* The plain forward of aligned rows of whole vectors between row-packed and the lean kernel's
 * minimum (33-64 slots: 16-bit n 264-512, f32 n 132-256): row-packed with many rows, the lean
 * one-row kernel with fewer. The persistent pipelined kernel that took them measured slower
 * than both on every case (H200, 2026-11-27 10:56 UTC, bench.py cold, us, persistent / row-packed
 * / lean: bf16 131072 x 512 111.4 / 82.7 / 84.8, 262144 x 384 205.7 / 134.5 / 163.3, 65536 x 320
 * 53.9 / 37.3 / 44.7, 8192 x 512 11.9 / 10.7 / 10.2, 2048 x 448 7.3 / 6.7 / 6.5; fp16 65536 x 448
 * 57.6 / 42.6 / 45.0, 300000 x 288 226.5 / 145.9 / 186.0; f32 131072 x 256 82.1 / 80.1 / 84.8,
 * 65536 x 160 36.5 / 35.2 / 44.7, 4096 x 200 8.5 / 7.6 / 7.7): row-packed from 65536 rows, the lean
 * kernel up to 8192 (f32 4096 x 200 1.3% behind row-packed there); the cut at 64 rows per SM
 * (8448 on 132 SMs) lies between, where nothing was measured. The fused add keeps its rules (the
 * lean kernel already, as fast as any mode there). Above the cut the lanes forward at two vectors
 * a lane (fwd_lanes) takes aligned whole vectors, faster than the row-pipelined kernel
 * (H200, 2026-11-30, bench_modes AUTO cold, us, row-pipelined / lanes: bf16 131072 x 512 86.4 /
 * 73.4, 262144 x 384 137.8 / 104.5, 300000 x 288 147.0 / 104.6, 9000 x 264 13.6 / 10.9, 9000 x 512
 * 14.6 / 13.4; fp16 1.08-1.41x; f32 262144 x 132 106.9 / 81.8, 131072 x 256 82.6 / 74.0: 1.08-1.41x
 * over 38 shapes; kernels/RESULTS.md "The plain forward of 33-64 whole vectors at two a lane"). */
#define FN_AUTO_FWD_MID_SLOTS 64
#define FN_AUTO_FWD_MID_PACKED_ROWS_PER_SM 64
#define FN_AUTO_FWD_ROW_MIN_SLOTS_FUSED (FN_AUTO_ROW_PACKED_FWD_SLOTS + 1)
/* Rows that are not whole aligned 16-byte vectors (odd widths, misaligned but congruent rows),
 * where the tiles do not take them: the row-pipelined forward reads them element by element (a
 * lane's columns of a 16-bit row are 2-byte loads), the lean kernel's head-split instance
 * (fwd_row) as vectors from each row's head. Every mode forced on a grid of such rows (H200,
 * 2026-11-27, bench.py cold, n = 5, 13, 29, 53, 89, 139, 191, 223, 295, 365, rows = 1, 8, 64,
 * 512, 4096, 32768, 200000, bf16 and f32, plain and fused; us, row-pipelined vs head-split
 * lean; tools/bench/results/auto_rules_h200_2026-11-27):
 *   - up to 4 rows per SM (512 rows measured), head-split from n = 29: bf16 1 x 53 5.4 vs 4.6,
 *     512 x 29 5.8 vs 5.3, fused 512 x 29 6.4 vs 5.5, 64 x 223 5.8 vs 5.1, f32 1 x 53 5.1 vs 4.4,
 *     8 x 191 4.9 vs 4.6; f32 512 x 29 5.1 vs 5.1; narrower, row-pipelined: f32 512 x 13 4.8 vs
 *     5.1, 512 x 5 4.9 vs 5.1 (FN_AUTO_FWD_HS_MIN_N_FEW);
 *   - 4096 rows (31 per SM), head-split from n = 139 (plain) / 89 (fused): bf16 4096 x 139 7.9 vs
 *     7.8, 191 9.5 vs 7.9, 223 10.3 vs 8.0, fused 89 9.3 vs 8.3, 139 10.4 vs 8.4, f32 139 8.4 vs
 *     7.8, 223 8.7 vs 7.8, fused 89 8.2 vs 7.8; row-pipelined below: bf16 89 7.5 vs 7.7, 53 6.3
 *     vs 7.7, fused 53 7.8 vs 8.2, f32 89 6.6 vs 7.6, fused 53 6.8 vs 7.7 (FN_AUTO_FWD_HS_MIN_N,
 *     _FUSED; the cut between 512 and 4096 rows is not measured);
 *   - the plain forward of 33-64 slots (16-bit n 257-512, f32 n 129-256), against the
 *     persistent row-pipelined kernel: 16-bit head-split at every count (bf16 32768 x 295 37.2
 *     vs 27.3, 200000 x 365 237.4 vs 140.3; row-packed 34.5 / 188.6); f32 with more than
 *     FN_AUTO_FWD_MID_PACKED_ROWS_PER_SM rows per SM row-packed (32768 x 139 23.3 persistent,
 *     25.1 head-split, 21.2 row-packed; 200000 x 139 112.4 / 125.7 / 92.4, x 191 126.2 / 126.3 /
 *     115.7, x 223 146.5 / 126.6 / 127.4), as the aligned rows there. */
#define FN_AUTO_FWD_HS_MIN_N_FEW 24
#define FN_AUTO_FWD_HS_FEW_ROWS_PER_SM 4
#define FN_AUTO_FWD_HS_MIN_N 128
#define FN_AUTO_FWD_HS_MIN_N_FUSED 64
/* AUTO backward: one CTA per row with the row in registers up to this many slots (n <= 16384
 * bf16), the wide mode beyond: bwd 2048 x 32768 wide 1710 vs persistent 1413, 256 x 262144 720
 * vs 376 GB/s. Persistent (one wave, P = SMs x resident CTAs partial-dw rows) rather than
 * multi-wave cached (4 waves): the multi-wave P = 2112 partial rows of 4096 floats add 69 MB of
 * workspace traffic to a 403 MB backward (16384 x 4096 bf16, 1703 GB/s). With the weight staged
 * in shared memory: persistent vs multi-wave cached vs wide, bf16 bwd 32768 x 2880 2748/2411/2316, 16384 x 4096 2731/2118/2457, 8192 x 8192
 * 2599/2006/2317, 4096 x 16384 2432/1787/2204 GB/s. */
#define FN_AUTO_BWD_CACHED_SLOTS 2048
/* AUTO backward of rows wider than the cached range (FN_AUTO_BWD_CACHED_SLOTS) and at most
 * FN_SPLIT_AUTO_MIN_SLOTS, with few rows: the split-row kernel rather than the cluster kernel,
 * which puts 2 CTAs on each row and leaves the other SMs idle. Every mode forced (H200,
 * 2026-11-27, bench.py cold, us, cluster vs split-row; tools/bench/results/auto_rules_h200_2026-11-27):
 * bf16 x 20408 16 rows 22.5 vs 15.2, 35 29.0 vs 18.3, 132 38.5 vs 27.1, 600 69.1 vs 67.0 (fused
 * 84.8 vs 72.1), 2400 184.6 vs 214.0; x 26720 16 24.5 vs 14.7, 35 33.1 vs 17.1, 132 43.9 vs
 * 32.0, 600 77.5 vs 89.2, 2400 198.2 vs 308.4; f32 x 12289 16 15.3 vs 13.4, 35 18.8 vs 15.8, 132
 * 27.6 vs 32.7. 16-bit rows that are not aligned take the head-split ring, and were mixed at a
 * row per SM (H100, launch_config.h, us, cluster vs split-row: fused 132 x 16391 40.5 vs 46.6,
 * 35 x 22915 40.4 vs 24.5). So: up to one row per SM for aligned 16-bit rows, half a row per SM otherwise. */
#define FN_AUTO_BWD_SPLIT_FEW_ROWS_PER_SM16 1
#define FN_AUTO_BWD_SPLIT_FEW_SMS_PER_ROW 2
/* AUTO backward with a weight, f32 rows of whole aligned vectors wider than the cached range up to
 * FN_AUTO_BWD_F32_SPLIT_MAX_SLOTS that the lean kernel at 8 slots a thread does not take (the
 * fused add's up to 4096 slots, every row past 4096), from FN_AUTO_BWD_F32_SPLIT_ROWS_PER_SM rows
 * an SM: the split-row kernel at any width (below FN_SPLIT_AUTO_MIN_SLOTS the cluster kernel's
 * range) rather than the persistent generic kernel (one row at a time a CTA). H200 2026-11-30,
 * bench_modes, the same build, forced wide (split-row) vs AUTO (then the generic kernel), us,
 * paired (tools/bench/results/f32_many_rows_h200_2026-11-30): plain x 20408 600 rows 69.8 vs
 * 87.8, 1279 rows 120.1 vs 147.4, x 26720 600 86.2 vs 109.2, 2400 277.9 vs 322.1, 1000 x 28672
 * 136.2 vs 166.4, 2000 x 16400 167.4 vs 178.7, 4096 x 20480 351.8 vs 399.2; fused, with ds out of
 * the ring (FN_SPLIT_DS_DIRECT_MAX_SPT), 9384 x 11020 496.1 vs 568.0, 2000 x 11020 125.2 vs 139.8,
 * 600 x 11020 52.1 vs 56.4, x 20408 600 75.2 vs 93.8, 1279 138.2 vs 160.8, 2400 x 26720 315.4 vs
 * 371.4, 4096 x 16400 354.2 vs 370.0. Every one of those plans had a ring of 7-8 rows (the fused
 * add's with ds in the ring held 5 and lost on two of seven shapes), so the split-row kernel is
 * taken where its ring holds at least FN_AUTO_BWD_F32_SPLIT_MIN_STAGES rows, else the generic
 * kernel as before (GPUs of 100-164 KB of shared memory an SM get rings of 5-6 there: not
 * measured). The cut below 4.5 rows an SM is not measured (there the plain rows past 4096 slots
 * take the split-row kernel anyway, the fused add's narrower ones the cluster kernel); the widest
 * measured, 28672 columns, bounds the rule (7168 slots). */
/* AUTO backward of 16-bit rows of 2049-4096 slots (beyond the cached range, up to
 * FN_SPLIT_AUTO_MIN_SLOTS), with a weight: the split-row kernel rather than the cluster one where
 * the rows are not whole aligned vectors (its head-split ring), and for the fused add's aligned
 * rows from FN_AUTO_BWD_SPLIT16_FUSED_HALF_ROWS_PER_SM / 2 rows a SM (compute capability >= 9.0:
 * without clusters the persistent generic kernel runs these, not measured against the split-row
 * one). H200, 2026-11-28 03:15 UTC, bench.py AUTO (cluster) vs forced wide (split-row), rows
 * 132-4020, bf16 and fp16, GB/s ratio split / cluster, cold and hot
 * (tools/bench/results/auto_wide_rules_h200_2026-11-28): odd widths 21685 and 23927 1.11-1.68x at
 * every row count, plain and fused (bf16 2000 x 23927 bwd 742 -> 1245 GB/s); aligned 16400 fused
 * 1.19-1.25x from 600 rows, 0.98-1.00x at 132, plain 0.97-1.06x; aligned 32768 fused 1.03-1.12x at 600-2000 rows, 0.95-1.02x at 132 and 1.00-1.02x at 4020, plain
 * 0.85-0.91x from 2000 rows (the cluster kernel stays there). The H100 measurement of 2026-11-27
 * 00:16 that kept the cluster kernel on odd rows (launch_config.h, at FN_SPLIT_AUTO_MIN_SLOTS)
 * predates the split-row kernel's larger chunks. The cut between 132 and 600 rows is not
 * measured. */
#define FN_AUTO_BWD_SPLIT16_FUSED_HALF_ROWS_PER_SM 9
#define FN_AUTO_BWD_F32_SPLIT_ROWS_PER_SM 4
/* The lean backward at 8 slots a thread (bwd_row8: aligned rows of 2049-4096 slots) in place of
 * the generic, split-row or cluster kernel: plain f32 rows from FN_AUTO_BWD_ROW8_F32_ROWS_PER_SM
 * rows an SM, 16-bit rows (plain and fused) of at most FN_AUTO_BWD_ROW8_16_NARROW_SLOTS slots from
 * FN_AUTO_BWD_ROW8_16_ROWS_PER_SM, wider ones (up to 4096 slots, the weight staged as fp32 or as its
 * raw 16 bits where only that fits: fn_bwd_row8_smem) from FN_AUTO_BWD_ROW8_16_WIDE_ROWS_PER_SM.
 * H200, bench.py / bench_modes cold, us:
 * - plain f32 n 8200 / 12288 / 16384, the generic / split-row kernels vs 8 slots a thread, paired
 *   (2026-11-29 11:28 UTC, tools/bench/results/row8_headsplit_h200_2026-11-29): 8 rows 0.99 / 0.89
 *   / 0.83x, 66 rows 1.09 / 0.93 / 0.97x, 132 rows 1.11-1.13x, 400 1.17-1.28x, 1000 1.29-1.39x,
 *   4096 1.41-1.46x (4096 x 16384 319.6 -> 219.4);
 * - 16-bit with dw in shared memory (FN_BWD_ROW8_DW_SMEM), bench_modes forced modes in one process
 *   (2026-11-30 07:07 UTC, tools/bench/results/fused_row8_h200_2026-11-30): fused bf16 / fp16 n
 *   16400-24576 against the split-row or cluster kernel: 66 rows 0.87-0.89x, 132 rows 1.02-1.08x,
 *   264 x 20480 1.09x (1.27x over the cluster kernel), 400 1.05-1.16x, 1000 1.05-1.24x, 2000
 *   x 18432 1.27-1.36x, 4096 1.12-1.62x (bf16 4096 x 16400 304.1 -> 188.1); plain bf16 at 132 x
 *   16400 25.6 against split-row's 27.9, 264 x 20480 36.8 against the cluster kernel's 47.2; at
 *   4096 slots the cluster kernel stays (S = 8 measured 0.96x there with dw in registers, and with
 *   it in shared memory 8n bytes do not fit);
 * - 16-bit n 29184-32768 (3648-4096 slots: the raw 16-bit weight stage), bench_modes AUTO (the
 *   split-row, cluster or generic kernel) vs forced persistent in one process (H200 2026-11-30,
 *   tools/bench/results/w16_stage_h200_2026-11-30): bf16 / fp16 plain 132 rows 0.97-1.03x, 264
 *   1.21-1.26x, 400-1000 1.07-1.10x, 2000 1.06x, 4096 1.10-1.12x (bf16 4096 x 32768 337.4 -> 306.1);
 *   fused 132 rows 0.99-1.02x, 264 1.16-1.22x, 400-4096 1.01-1.06x; and AUTO with the rule against
 *   AUTO without it, n 24584-32768 from 264 rows (same folder): plain 1.07-1.24x,
 *   fused 1.08-1.28x, but 1000 x 32768 fused 0.98-1.00x;
 * - f32 fused (dw in shared memory) against the persistent generic kernel, same measurement: 132 rows 1.07-1.18x, 264 0.97x, 1000 0.86-1.01x, 4096-9384 0.79-0.97x: one CTA an SM waits
 *   for each row's three loads, where the generic kernel's 1024 threads overlap rows; not taken. */
#define FN_AUTO_BWD_ROW8_F32_ROWS_PER_SM 1
#define FN_AUTO_BWD_ROW8_16_ROWS_PER_SM 1
#define FN_AUTO_BWD_ROW8_16_NARROW_SLOTS 3072
#define FN_AUTO_BWD_ROW8_16_WIDE_ROWS_PER_SM 2
/* The fused add's 16-bit rows past FN_AUTO_BWD_ROW8_16_NARROW_SLOTS: the lean kernel at 8 slots
 * below this many rows an SM, the split-row kernel from it. bench_modes AUTO, paired, the split-row
 * (or cluster) kernel at every row count against the lean kernel (H200, 2026-11-30 23:54 UTC,
 * tools/bench/results/fused_bwd_4096_h200_2026-11-30, us): bf16 / fp16 n 25600-32768 from 1000 rows
 * 1.08-1.20x (bf16 4096 x 32768 424.4 -> 365.8, 2000 x 32768 235.1 -> 195.8), but 132 rows
 * 0.98-1.00x, 264 0.81-0.87x, 400 0.95x: one CTA an SM at 8 slots a thread waits on each row's
 * three loads (s, dy, ds) before its sums, where the split-row kernel's CTAs of a quarter row
 * overlap theirs; the plain backward (two loads) keeps the lean kernel (1.01x either way). */
#define FN_AUTO_BWD_ROW8_16_FUSED_SPLIT_ROWS_PER_SM 7
/* The lean backward's one-slot 16-bit instance at FN_BWD_ROW_NARROW_MIN_CTAS CTAs an SM
 * (launch_config.h; the plan's `narrow`) from this many rows an SM: H200, 2026-12-01, paired, 16-bit
 * rows of 264-512 columns, 20 CTAs an SM against 16, at 124 rows an SM 0.98-1.05x (bf16 / fp16
 * 16384 x 384, plain and fused), from 496 rows 0.99-1.06x (bf16 262144 x 384 fused 235.8 -> 222.2
 * us), at 31 rows 0.94-0.99x (4096 x 512); the cut between 31 and 124 is not measured. Only on
 * devices that hold that many CTAs an SM: where they hold fewer (cc 8.6: 16) the bound is out of
 * range, ptxas ignores it and the instance takes 80 registers (nvcc 13.0, sm_86 from the compute_80
 * PTX), 12 CTAs an SM where its grid would count 16; the general instance's figures hold there. */
#define FN_AUTO_BWD_ROW_NARROW_ROWS_PER_SM 100
#define FN_AUTO_BWD_F32_SPLIT_MAX_SLOTS 7168
#define FN_AUTO_BWD_F32_SPLIT_MIN_STAGES 7
/* The f32 fused-add backward takes the lean persistent kernel too: it loads ds with dy and s
 * (bench_modes with ds, H200 2026-11-22 05:19 UTC, 32768 x 4096 4216 vs reload 3386 GB/s,
 * 16384 x 7168 4208 vs 3178). */
/* The generic forward reads a row twice up to the reload width (one CTA per row, the second read
 * from L2) only while the rows in flight (one per resident CTA, x and for the fused add r) fit the
 * L2; beyond, the second read would come from HBM, and the persistent, register-cached launch is
 * taken instead. Not a measured threshold: the reload kernel's premise, made explicit so that a
 * small-L2 device (A10: 6 MB) does not run it against its design. On the H200 the rows in flight
 * of the reload range take at most 35 MB of its 60 MB (f32 fused add, 64-thread CTAs). */

/* AUTO forward, compute capability >= 9.0: rows of at least this many vector slots (64 KB: 16-bit
 * n >= 32768, f32 n >= 16384) run the wide forward (a cluster per row, rmsnorm_fwd_wide.cu) when
 * there are fewer rows than SMs (one CTA per row would leave SMs idle). Why (H200 bf16 forward):
 * tens of rows of >= 256K columns ran 1542 GB/s with one CTA per row against Quack's cluster
 * kernel's 3409. The threshold (>= 32K columns) is not a measured crossover.
 * With as many rows as SMs or more, see FN_AUTO_FWD_WIDE_MANY_*. */
#define FN_AUTO_FWD_WIDE_MIN_SLOTS 4096
/* AUTO forward with more rows than SMs: the wide forward (its chunks staged in shared memory,
 * kernels/RESULTS.md "The wide forward's stage in shared memory") for plain rows of at least
 * FN_AUTO_FWD_WIDE_MANY_MIN_SLOTS slots and fused rows of at least
 * FN_AUTO_FWD_WIDE_MANY_FUSED_MIN_COLS columns, whose slots it can stage (aligned or congruent
 * rows) and hold whole (fwd_wide_holds); else the generic forward (a persistent grid, the columns
 * beyond its registers read again).
 * - Plain rows, H200 2026-11-28 13:07 UTC (tools/bench/results/wide_rows_h200_2026-11-28: rows 140,
 *   200, 288, 400, 530 x n 8195-65536, fp16 and f32, bench.py cold, AUTO vs forced wide in one
 *   run): against the aligned generic forward the wide one was faster in all 21 cases, 1.08-1.27x
 *   (geomean 1.17x; fp16 x 49000 (6125 slots) 1.12-1.22x, f32 x 24576 (6144) 1.08-1.20x, fp16 x
 *   65536 (8192) 1.12-1.20x, f32 140 x 65536 1.27x), and against the head-split one 1.07-1.11x at
 *   8097 slots (f32 x 32390) but 0.96-1.04x at 4048-4097. The threshold lies between 4097 and 6125
 *   slots; 6000 is not a measured crossover. An H100 grid (rows 132-4096, 2026-11-28,
 *   tools/bench/results/wide_many_rows_2026-11-28) had been 0.95-1.08x at 8192 slots up to 528
 *   rows and 0.96-1.06x at 6144 slots and 1024 rows, and 0.99-1.33x from 12288 slots; the rule
 *   cannot tell the two GPUs apart (both 132 SMs, cc 9.0), and the H100's losses there were within
 *   5%.
 * - Not at exactly as many rows as SMs or fewer: there the generic forward's CTAs are one whole wave
 *   (H200 0.89-1.08x at >= 12288 slots), while just past it (140 rows) the wide one led by
 *   1.16-1.27x plain and 1.03-1.25x fused.
 * - The fused add from FN_AUTO_FWD_WIDE_MANY_FUSED_MIN_COLS columns (a width, not slots: both
 *   dtypes cross there). On the H100 grid above (before the cluster sum was pushed) the wide kernel
 *   lost below it (bf16 12288-32768 columns 0.71-1.01x, f32 0.90-1.07x, mostly below 1) and was
 *   0.96-1.15x from 49152 columns; with the sum pushed (no barrier per row) it led on every fused
 *   case of a grid of its own but one (H200, 2026-11-28 03:15 UTC, bench.py AUTO (generic) vs
 *   forced wide, GB/s ratio wide / generic, cold and hot: bf16 200-3167 rows x 48540 1.01-1.12x, x
 *   98304 1.06-1.13x, 200 x 369199 1.04x, 1500 x 369199 0.96-0.97x; f32 200 and 1465 x 48879
 *   1.04-1.09x, x 93854 1.07-1.09x; tools/bench/results/auto_wide_rules_h200_2026-11-28), and the
 *   200-case H200 sweep (tools/bench/RESULTS.md) had it 1.06-1.18x on fp16 265 x 48540, 3167 x
 *   62359 and f32 1465 x 93854;
 *   below it, at 140-530 rows x 24576 columns, 1.02-1.07x (13:07 UTC above).
 * - Aligned fused rows from FN_AUTO_FWD_WIDE_MANY_FUSED_ALIGNED_MIN_COLS columns (H200, 2026-11-29
 *   23:11 UTC, bench_modes cold, AUTO (generic) / forced wide time, rows 132 / 264 / 1056 / 4096;
 *   tools/bench/results/fwd_row8_h200_2026-11-29): bf16 x 24576 0.99 / 1.03 / 0.98 / 1.02x, x
 *   32768 1.05 / 1.03 / 1.05 / 1.03x, x 40000 1.08 / 1.02 / 1.05 / 1.11x; f32 x 24576 1.02 / 1.03
 *   / 1.06 / 1.07x, x 16384 1.07 / 1.02 / 1.01 / 1.00x, x 12288 0.93-1.00x (the lean kernel keeps
 *   bf16 <= 16384 and f32 <= 8192 columns: 0.69-0.97x wide). Congruent rows that are not aligned
 *   (the head-split stage) or not whole vectors were not measured below 48000 and keep that cut. */
#define FN_AUTO_FWD_WIDE_MANY_MIN_SLOTS 6000
#define FN_AUTO_FWD_WIDE_MANY_FUSED_MIN_COLS 48000
#define FN_AUTO_FWD_WIDE_MANY_FUSED_ALIGNED_MIN_COLS 24576
/* Measured against the generic forward on a grid of its own (H100 SXM, 2026-11-27 17:44 UTC,
 * rows 8, 18, 45, 90, 140, 200 x n 16384-369199, aligned and odd, bf16 and f32, plain and fused,
 * AUTO and both forced; tools/bench/results/fwd_wide_rows_h100_2026-11-27):
 * - From half as many rows as SMs, the wide forward only from FN_AUTO_FWD_WIDE_HALF_SMS_MIN_SLOTS
 *   slots: at 90 rows the generic forward (one CTA a row, reload) was faster up to 46150 slots
 *   (us, cold, wide vs generic: bf16 90 x 40003 20.4 vs 15.2, 90 x 109347 52.6 vs 30.9, 90 x
 *   369199 105.2 vs 97.1; f32 90 x 16411 19.0 vs 12.6, 90 x 40003 36.2 vs 21.2, 90 x 109347 73.0
 *   vs 58.3), the wide one at 92300 (f32 90 x 369199 173.8 vs 177.2; fused 270.9 vs 263.6). At
 *   45 rows the wide forward kept most cases (bf16 45 x 40003 10.9 vs 13.6, 45 x 369199 60.6 vs
 *   76.4) and lost some (f32 45 x 40003 23.0 vs 18.0, bf16 45 x 109347 31.3 vs 27.0): not moved.
 * - 16-bit rows of FN_AUTO_FWD_WIDE_FEW_MIN_SLOTS up to FN_AUTO_FWD_WIDE_MIN_SLOTS slots that the
 *   lean kernel cannot take (not whole aligned vectors past its 16384 columns, the fused add),
 *   fewer than half as many as SMs: the wide forward (bf16 8 x 16411 8.9 -> 7.9, 18 x 25734 10.9
 *   -> 9.1, 45 x 25734 11.4 -> 9.9, fused 8 x 24576 10.1 -> 8.6; at 90 rows 0.8-1.0x). Where the
 *   lean kernel runs, it stays (bf16 8 x 16384 6.1 vs wide 7.6). Not f32 rows of that width
 *   (n 8192-16383), which the grid did not have: the 200-case sweep's f32 65 x 14223 fused ran
 *   16.2 us wide against 13.4 generic (H100, 17:27 UTC). */
#define FN_AUTO_FWD_WIDE_HALF_SMS_MIN_SLOTS 65536
#define FN_AUTO_FWD_WIDE_FEW_MIN_SLOTS 2048
/* ... and of the rows the head-split lean forward takes (16-bit, up to 4096 slots at 1024 threads:
 * FN_FWD_ROW_MAX_THREADS), the wide forward only at most one row every
 * FN_AUTO_FWD_WIDE_FEW_U_SMS_PER_ROW SMs. H200, 2026-11-29 11:28 UTC, bench.py cold, us, fp16,
 * AUTO with the lean head-split forward vs forced wide (what AUTO ran before): 8 x 16411 7.31 vs
 * 7.0, 18 x 25734 7.86 vs 8.0, 45 x 25734 8.31 vs 8.6, 65 x 25734 8.58 vs 12.4
 * (tools/bench/results/row8_headsplit_h200_2026-11-29). */
#define FN_AUTO_FWD_WIDE_FEW_U_SMS_PER_ROW 8
/* AUTO forward without clusters (compute capability < 9.0, or a build whose code for this device
 * has none): the wide forward's grid sum (a cooperative grid, one grid-wide barrier a round of
 * rows and one at the end) for rows of at least FN_AUTO_FWD_WIDE_GRID_MIN_SLOTS slots with at
 * most a quarter as many rows as SMs, or FN_AUTO_FWD_WIDE_GRID_WIDE_SLOTS with at most a third;
 * else what ran before (one CTA a row: generic or persistent). Measured on an H200 running the
 * compute_80 PTX (the plan seeing cc 8.0, 132 SMs), 2026-11-28 12:45 UTC, bench.py cold, us, old
 * AUTO vs the grid sum, rows 1-100 x n 8192-1048576, bf16 and f32, plain and fused
 * (tools/bench/results/grid_sum_fwd_h200_2026-11-28): the grid sum costs ~9 us at the least
 * (the barriers and the cooperative launch; one CTA a row ran 4.9-7 us there), so it lost at
 * <= 4096 slots but for the fused add (bf16 1-17 x 32768 1.08-1.13x, not taken); at 8192 slots
 * (bf16 n 65536, f32 32768) 1.21-1.65x up to 17 rows, 0.94-1.18x at 40, 0.89-0.97x at 66; at 16384
 * (f32 65536) 1.61-2.60x up to 17 rows, 0.94-1.18x at 40; from 32768 (bf16 262144, f32 131072 and
 * wider) 1.16-1.66x at 40 rows, 0.89-1.12x at 66, 0.77-0.88x at 100; 1 x 1048576 bf16 146.0 ->
 * 12.7 us, f32 258.0 -> 13.7. */
#define FN_AUTO_FWD_WIDE_GRID_MIN_SLOTS 8192
#define FN_AUTO_FWD_WIDE_GRID_WIDE_SLOTS 32768
/* AUTO forward with clusters: the grid sum (a row over up to every SM) in place of the cluster
 * (at most fn_fwd_wide_max_cluster CTAs a row) where the rows' largest clusters would fill at most
 * 1 / FN_AUTO_FWD_WIDE_GRID_CL_SMS_PER_CTA of the SMs and a row moves at least
 * FN_AUTO_FWD_WIDE_GRID_CL_MIN_SLOTS 16-byte slots in (x, and r for the fused add, counted
 * twice). Measured on an H200 (sm_90a clusters of 16 against the grid sum of the compute_80 PTX,
 * both AUTO's plans, 2026-11-28 14:55 UTC, bench.py cold, rows 1-66 x n 32768-1048576, bf16 and
 * f32, plain and fused; tools/bench/results/grid_sum_hopper_h200_2026-11-28): with 1-4 rows the
 * grid sum was 1.10-2.64x from 92000 such slots (bf16 x 736015; f32 1 x 1048576 34.0 -> 13.7 us,
 * fused 42.5 -> 16.1; bf16 4 x 736015 17.6 -> 16.0), 0.95-1.40x at 65536-131072 (f32 x 262144:
 * plain 1.09 / 1.03 / 0.99x at 1 / 2 / 4 rows, fused 1.40 / 1.25 / 0.99x; bf16 fused x 262144
 * 1.01 / 0.98 / 0.95x), 0.75-0.82x below (its ~9 us floor against the cluster's ~7); with 8 rows
 * and more (clusters on more than 64 of the 132 SMs) 0.74-1.08x, 0.90x geomean. */
#define FN_AUTO_FWD_WIDE_GRID_CL_MIN_SLOTS 80000
#define FN_AUTO_FWD_WIDE_GRID_CL_SMS_PER_CTA 2
/* Streamed columns' dw (generic backward) go to shared memory up to this size; beyond it, to the
 * CTA's workspace row (L2 read-modify-write; only rows > ~48K columns without a split). */
#define FN_DW_SMEM_MAX (96 * 1024)

/* Columns are int inside the kernels. */
#define FN_MAX_N ((int64_t)INT32_MAX - 65536)

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }
static int pow2_ceil(int64_t v) {
  int p = 1;
  while (p < v && p < (1 << 30)) p <<= 1;
  return p;
}
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

const char *fusednorm_kernel_name(fusednorm_kernel k) {
  switch (k) {
    case FUSEDNORM_KERNEL_FWD_PIPE: return "fwd_pipe";
    case FUSEDNORM_KERNEL_FWD_ROW: return "fwd_row";
    case FUSEDNORM_KERNEL_FWD_GENERIC: return "fwd_generic";
    case FUSEDNORM_KERNEL_BWD_PIPE: return "bwd_pipe";
    case FUSEDNORM_KERNEL_BWD_ROW: return "bwd_row";
    case FUSEDNORM_KERNEL_BWD_GENERIC: return "bwd_generic";
    case FUSEDNORM_KERNEL_BWD_SPLIT: return "bwd_split";
    case FUSEDNORM_KERNEL_FWD_WIDE: return "fwd_wide";
    case FUSEDNORM_KERNEL_FWD_TILE: return "fwd_tile";
    case FUSEDNORM_KERNEL_FWD_TINY: return "fwd_tiny";
    case FUSEDNORM_KERNEL_BWD_TINY: return "bwd_tiny";
    case FUSEDNORM_KERNEL_FWD_LANES: return "fwd_lanes";
    case FUSEDNORM_KERNEL_FWD_THREAD: return "fwd_thread";
    case FUSEDNORM_KERNEL_FWD_WARP: return "fwd_warp";
    case FUSEDNORM_KERNEL_BWD_WARP: return "bwd_warp";
    case FUSEDNORM_KERNEL_COUNT_: break;
  }
  return NULL;
}

/* ---- layout ---- */

static int aligned16(const void *ptr, int64_t stride, size_t elem) {
  return ptr == NULL || ((uintptr_t)ptr % 16 == 0 && ((uint64_t)stride * elem) % 16 == 0);
}

/* Congruence of the row tensors modulo 16 bytes (fusednorm_layout.congruent16): every row of
 * every tensor starts at the same address modulo 16, i.e. the tensors' base addresses agree
 * modulo 16 and so does, dim by dim, every stride a row index can step by (the leading dims of
 * size > 1). The first tensor's residues, each further tensor compared with them. Element-aligned
 * pointers only: the head-split kernels count the head in elements. */
typedef struct {
  int seen, ok;
  unsigned base, stride[FUSEDNORM_MAX_ROW_DIMS];
} congruence;

static void congruent_add(congruence *c, const fusednorm_problem *p, const void *ptr, int64_t stride,
                          const int64_t *outer, size_t elem) {
  const int dims = p->row_dims <= 1 ? 1 : p->row_dims;
  unsigned s[FUSEDNORM_MAX_ROW_DIMS] = {0};
  if (ptr == NULL || !c->ok) return;
  if ((uintptr_t)ptr % elem != 0) {
    c->ok = 0;
    return;
  }
  for (int k = 0; k < dims; ++k) {
    const int64_t st = k == dims - 1 ? stride : outer[k];
    const int64_t size = dims == 1 ? 2 : p->row_shape[k]; /* one dim: its stride always steps */
    s[k] = size > 1 ? (unsigned)(((uint64_t)st * elem) % 16) : 0;
  }
  if (!c->seen) {
    c->seen = 1, c->base = (unsigned)((uintptr_t)ptr % 16);
    for (int k = 0; k < dims; ++k) c->stride[k] = s[k];
    return;
  }
  if ((unsigned)((uintptr_t)ptr % 16) != c->base) c->ok = 0;
  for (int k = 0; k < dims; ++k)
    if (s[k] != c->stride[k]) c->ok = 0;
}

/* One tensor's rows lie back to back: row i at element i*n (fusednorm_layout.dense), i.e. each
 * stride a row index can step by is the element count of the rows inside it. */
static int rows_dense(const fusednorm_problem *p, const void *ptr, int64_t stride, const int64_t *outer) {
  int64_t expect = p->n;
  if (ptr == NULL) return 1;
  if (p->row_dims <= 1) return p->rows <= 1 || stride == p->n;
  for (int k = p->row_dims - 1; k >= 0; --k) {
    const int64_t st = k == p->row_dims - 1 ? stride : outer[k];
    if (p->row_shape[k] > 1 && st != expect) return 0;
    expect *= p->row_shape[k];
  }
  return 1;
}

/* Every row start of one tensor is 16-byte aligned: its pointer, and each stride a row index can
 * step by (with row_dims > 1, those of the leading dims of size > 1; the innermost's is `stride`). */
static int rows_aligned16(const fusednorm_problem *p, const void *ptr, int64_t stride,
                          const int64_t *outer, size_t elem) {
  if (ptr == NULL) return 1;
  if (p->row_dims <= 1) return aligned16(ptr, stride, elem);
  if ((uintptr_t)ptr % 16 != 0) return 0;
  for (int k = 0; k < p->row_dims; ++k) {
    const int64_t st = k == p->row_dims - 1 ? stride : outer[k];
    if (p->row_shape[k] > 1 && ((uint64_t)st * elem) % 16 != 0) return 0;
  }
  return 1;
}

/* The largest power of two up to 16 dividing every row start of one tensor (its pointer, and each
 * stride a row index can step by); 16 for no tensor. */
static int rows_align(const fusednorm_problem *p, const void *ptr, int64_t stride, const int64_t *outer,
                      size_t elem) {
  uint64_t g = 16;
  if (ptr == NULL) return 16;
  g |= (uint64_t)(uintptr_t)ptr;
  if (p->row_dims <= 1) {
    if (p->rows > 1) g |= (uint64_t)stride * elem;
  } else {
    for (int k = 0; k < p->row_dims; ++k)
      if (p->row_shape[k] > 1) g |= (uint64_t)(k == p->row_dims - 1 ? stride : outer[k]) * elem;
  }
  return (int)(g & (~g + 1));
}

/* fusednorm_layout.align_bytes from the row tensors' and the weight's alignment (a weight in
 * another dtype than the rows' caps it at the rows' element size). */
static int layout_align(const fusednorm_problem *p, const void *w, int a) {
  const size_t xs = fusednorm_dtype_size(p->x_dtype);
  if (p->has_weight && w != NULL) {
    if (p->w_dtype != p->x_dtype) {
      if (a > (int)xs) a = (int)xs;
    } else {
      const uint64_t g = (uint64_t)(uintptr_t)w | 16;
      const int wa = (int)(g & (~g + 1));
      if (wa < a) a = wa;
    }
  }
  return a;
}

fusednorm_status fusednorm_forward_layout(const fusednorm_problem *p, const fusednorm_fwd_args *a,
                                          fusednorm_layout *out) {
  size_t xs;
  congruence c = {0, 1, 0, {0}};
  if (p == NULL || a == NULL || out == NULL) return FUSEDNORM_ERR_NULL_POINTER;
  xs = fusednorm_dtype_size(p->x_dtype);
  out->aligned16 =
      rows_aligned16(p, a->x, a->x_stride, a->x_outer, xs) &&
      rows_aligned16(p, a->y, a->y_stride, a->y_outer, xs) &&
      (!p->has_residual ||
       (rows_aligned16(p, a->residual, a->residual_stride, a->residual_outer, xs) &&
        rows_aligned16(p, a->residual_out, a->residual_out_stride, a->residual_out_outer, xs))) &&
      aligned16(p->has_weight ? a->weight : NULL, 0, 1);
  congruent_add(&c, p, a->x, a->x_stride, a->x_outer, xs);
  congruent_add(&c, p, a->y, a->y_stride, a->y_outer, xs);
  if (p->has_residual) {
    congruent_add(&c, p, a->residual, a->residual_stride, a->residual_outer, xs);
    congruent_add(&c, p, a->residual_out, a->residual_out_stride, a->residual_out_outer, xs);
  }
  if (p->has_weight && a->weight != NULL && (uintptr_t)a->weight % fusednorm_dtype_size(p->w_dtype) != 0) c.ok = 0;
  out->congruent16 = c.ok;
  out->dense = rows_dense(p, a->x, a->x_stride, a->x_outer) && rows_dense(p, a->y, a->y_stride, a->y_outer) &&
               (!p->has_residual || (rows_dense(p, a->residual, a->residual_stride, a->residual_outer) &&
                                     rows_dense(p, a->residual_out, a->residual_out_stride, a->residual_out_outer)));
  out->align_bytes = layout_align(
      p, a->weight,
      (int)min64(min64(rows_align(p, a->x, a->x_stride, a->x_outer, xs), rows_align(p, a->y, a->y_stride, a->y_outer, xs)),
                 p->has_residual ? min64(rows_align(p, a->residual, a->residual_stride, a->residual_outer, xs),
                                         rows_align(p, a->residual_out, a->residual_out_stride, a->residual_out_outer, xs))
                                 : 16));
  return FUSEDNORM_OK;
}

fusednorm_status fusednorm_backward_layout(const fusednorm_problem *p, const fusednorm_bwd_args *a,
                                           fusednorm_layout *out) {
  size_t xs;
  const void *ds;
  congruence c = {0, 1, 0, {0}};
  if (p == NULL || a == NULL || out == NULL) return FUSEDNORM_ERR_NULL_POINTER;
  xs = fusednorm_dtype_size(p->x_dtype);
  ds = p->has_residual ? a->ds : NULL;
  out->aligned16 = rows_aligned16(p, a->dy, a->dy_stride, a->dy_outer, xs) &&
                   rows_aligned16(p, a->s, a->s_stride, a->s_outer, xs) &&
                   rows_aligned16(p, a->dx, a->dx_stride, a->dx_outer, xs) &&
                   rows_aligned16(p, ds, ds ? a->ds_stride : 0, a->ds_outer, xs) &&
                   aligned16(p->has_weight ? a->weight : NULL, 0, 1);
  congruent_add(&c, p, a->dy, a->dy_stride, a->dy_outer, xs);
  congruent_add(&c, p, a->s, a->s_stride, a->s_outer, xs);
  congruent_add(&c, p, a->dx, a->dx_stride, a->dx_outer, xs);
  if (ds != NULL) congruent_add(&c, p, ds, a->ds_stride, a->ds_outer, xs);
  if (p->has_weight && a->weight != NULL && (uintptr_t)a->weight % fusednorm_dtype_size(p->w_dtype) != 0) c.ok = 0;
  out->congruent16 = c.ok;
  out->dense = rows_dense(p, a->dy, a->dy_stride, a->dy_outer) && rows_dense(p, a->s, a->s_stride, a->s_outer) &&
               rows_dense(p, a->dx, a->dx_stride, a->dx_outer) &&
               rows_dense(p, ds, ds ? a->ds_stride : 0, a->ds_outer);
  out->align_bytes = layout_align(
      p, a->weight,
      (int)min64(min64(rows_align(p, a->dy, a->dy_stride, a->dy_outer, xs), rows_align(p, a->s, a->s_stride, a->s_outer, xs)),
                 min64(rows_align(p, a->dx, a->dx_stride, a->dx_outer, xs),
                       rows_align(p, ds, ds ? a->ds_stride : 0, a->ds_outer, xs))));
  return FUSEDNORM_OK;
}

/* ---- plan ---- */

typedef struct {
  const fusednorm_problem *p;
  const fusednorm_device_info *d;
  int backward, aligned, fused, w32, xs, vec;
  int congruent; /* rows congruent modulo 16 bytes (aligned rows are): the head-split lean kernels */
  int dense;     /* rows back to back in every row tensor: the flat-tile forward */
  int align;     /* fusednorm_layout.align_bytes (0 read as 16 where aligned, else 1) */
  int64_t slots; /* vector slots of a row */
} ctx;

/* Resident CTAs per SM of `threads`-thread CTAs with `regs` registers per thread and `smem`
 * bytes of dynamic shared memory (and the device's own limit on CTAs per SM). */
static int ctas_per_sm(const fusednorm_device_info *d, int threads, int regs, int64_t smem) {
  const int by_threads = d->max_threads_per_sm / threads;
  /* Registers go to a warp in units of 8 a thread, within one of the SM's four sub-partitions
   * (a quarter of the register file each), as CUDA's cuda_occupancy.h counts them: at 102
   * registers a 64-thread CTA, 4 warps a sub-partition, so 8 CTAs an SM, not the 9 that the whole
   * file over a CTA's registers gives (Nsight Compute's block limit agrees: H200, 2026-12-01). */
  const int r = (regs + 7) / 8 * 8, warps = (threads + 31) / 32;
  const int by_regs = 4 * (d->regs_per_sm / 4 / (r * 32)) / warps;
  int c = by_threads < by_regs ? by_threads : by_regs;
  if (smem > 0 && (int64_t)c * (smem + FN_SMEM_RESERVE_PER_CTA) > (int64_t)d->smem_per_sm)
    c = (int)((int64_t)d->smem_per_sm / (smem + FN_SMEM_RESERVE_PER_CTA));
  if (c > d->max_ctas_per_sm) c = d->max_ctas_per_sm;
  return c < 1 ? 1 : c;
}

/* CTAs co-resident in clusters of `cl` CTAs when `per_sm` CTAs fit an SM: the device's cluster
 * capacity (fusednorm_device_info.max_clusters, from the driver) where it is known, else every
 * SM's CTAs (sm_count * per_sm). A cluster lies within one GPC, so where the GPCs' SM counts leave
 * CTAs over, fewer are resident than the SMs hold: on the 132-SM H200, 14 clusters of 16 CTAs at
 * two CTAs an SM (224 CTAs, not 264), so 16 such clusters take two waves.
 * Beyond four CTAs an SM, the four-CTA figure scaled. */
static int64_t cluster_resident(const fusednorm_device_info *d, int cl, int per_sm) {
  const int k = cl == 2 ? 0 : cl == 4 ? 1 : cl == 8 ? 2 : cl == 16 ? 3 : -1;
  const int c = per_sm < 1 ? 1 : per_sm;
  if (k >= 0 && d->max_clusters[(c < 4 ? c : 4) - 1][k] > 0) {
    const int64_t n = d->max_clusters[(c < 4 ? c : 4) - 1][k];
    return (c > 4 ? n * c / 4 : n) * cl;
  }
  return (int64_t)d->sm_count * c;
}

/* Dynamic shared memory one CTA may use (with our static buffers, within the opt-in limit). */
static int smem_ok(const ctx *c, int64_t bytes) {
  return bytes + FN_STATIC_SMEM_MAX <= (int64_t)c->d->smem_per_block_optin;
}

/* Threads of a CTA holding a chunk of `slots` slots at FN_TARGET_CACHE slots per thread (at least
 * 64); for chunks beyond what one CTA caches, the widest team (the rest is streamed). */
static int cached_threads(int64_t slots, int backward) {
  int64_t t;
  if (slots > FN_MAX_CACHED_SLOTS) return 1024;
  t = max64(64, round_up(ceil_div(slots, FN_TARGET_CACHE), 32));
  if (t > fn_max_threads(backward, FN_TARGET_CACHE)) t = 1024;
  return (int)t;
}

/* The generic kernels' register cache for a chunk of `slots` over `team` threads: the smallest
 * instance that holds it within its launch bound, else the largest the team size allows (the
 * rest is streamed). */
static int generic_cache(int backward, int64_t slots, int team) {
  static const int fwd[FN_NUM_GENERIC_CACHES] = FN_FWD_GENERIC_CACHES;
  static const int bwd[FN_NUM_GENERIC_CACHES] = FN_BWD_GENERIC_CACHES;
  const int *tab = backward ? bwd : fwd;
  const int64_t per_thread = ceil_div(slots, team);
  int i;
  for (i = 0; i < FN_NUM_GENERIC_CACHES; ++i)
    if (tab[i] > 0 && per_thread <= tab[i] && team <= fn_max_threads(backward, tab[i])) return tab[i];
  for (i = FN_NUM_GENERIC_CACHES - 1; i >= 0; --i)
    if (tab[i] > 0 && team <= fn_max_threads(backward, tab[i])) return tab[i];
  return 0;
}

static void plan_init(const ctx *c, fusednorm_launch *l, fusednorm_mode mode, fusednorm_kernel k, int threads) {
  l->mode = mode;
  l->kernel = k;
  l->block_threads = threads;
  l->rows_per_cta = 1;
  l->ctas_per_row = 1;
  l->cluster = 1;
  l->grid = 1;
  l->vec_elems = c->vec;
  l->slots_per_thread = 0;
  l->chunk = c->p->n;
  l->smem_bytes = 0;
  l->stages = 0;
  l->lookahead = 0;
  l->weight_smem = 0;
  l->dw_smem = 0;
  l->partial_rows = 0;
  l->workspace_bytes = 0;
  l->unaligned = 0;
  l->narrow = 0;
  l->dw_in_kernel = 0;
  l->load_elems = 0;
  l->ds_direct = 0;
}

/* One CTA per unit of work up to `cap` CTAs (grid-stride beyond). */
static int64_t grid_of(int64_t units, int64_t cap) {
  int64_t g = min64(units, cap);
  g = min64(g, INT_MAX);
  return g < 1 ? 1 : g;
}

/* Forward, row-packed: teams of <= 32 lanes (one slot per lane up to 32 slots, then up to 4),
 * FN_ROW_PACKED_THREADS per CTA, the row-pipelined kernel. Congruent rows that are not whole
 * aligned vectors, at least two vectors wide and in at most 2 slots a lane: its head-split
 * instance (plan `unaligned`; teams of at least fn_fwd_pipe_u_min_team lanes; pipe_u_rows), in
 * place of element-wise reads: faster at every measured point (H200, 2026-11-27, cold, us: bf16
 * 4096 x 53 fused 7.8 -> 6.3, 4096 x 89 7.4 -> 6.2; f32 4096 x 53 fused 6.8 -> 6.5, 32768 x 139
 * 20.9 -> 19.9, 200000 x 191 115.6 -> 100.5, 200000 x 223 127.7 -> 107.4;
 * tools/bench/results/fwd_pipe_u_h200_2026-11-27). Narrower rows keep the element-wise reads:
 * with no interior, every element is an edge, and the sum's order would move with each row's
 * address for nothing. */
static int pipe_u_rows(const ctx *c) {
  return c->congruent && !(c->aligned && c->p->n % c->vec == 0) && c->p->n >= 2 * c->vec;
}

static int fwd_packed(const ctx *c, fusednorm_launch *l) {
  int team = pow2_ceil(c->slots) > 32 ? 32 : pow2_ceil(c->slots);
  int cache = (int)ceil_div(c->slots, team), s;
  /* The head-split instance: congruent rows that are not whole aligned vectors, up to 2 slots a
   * lane, in teams with a lane for every head and tail element. */
  const int u = pipe_u_rows(c) && cache <= 2;
  int64_t smem = fn_fwd_pipe_smem(c->p->n, c->vec);
  if (u) {
    team = team < fn_fwd_pipe_u_min_team(c->vec) ? fn_fwd_pipe_u_min_team(c->vec) : team;
    cache = (int)ceil_div(c->slots, team);
    smem = fn_fwd_pipe_u_smem(c->p->n, c->vec);
  }
  s = cache <= 1 ? 1 : cache <= 2 ? 2 : 4;
  /* Fewer rows than a CTA has teams: a CTA of only the warps whose teams have a row (the whole
   * problem is one CTA's critical path; idle warps only compete for issue and the barrier). */
  const int threads = c->p->rows * team < FN_ROW_PACKED_THREADS
                          ? (int)max64(32, round_up(c->p->rows * team, 32))
                          : FN_ROW_PACKED_THREADS;
  if (cache > 4 || !fn_fwd_pipe_fits(s, team, c->slots, c->fused, c->xs) || !smem_ok(c, smem)) return 0;
  plan_init(c, l, FUSEDNORM_MODE_ROW_PACKED, FUSEDNORM_KERNEL_FWD_PIPE, threads);
  l->rows_per_cta = threads / team;
  l->slots_per_thread = s;
  l->smem_bytes = (size_t)smem;
  l->weight_smem = 1;
  l->unaligned = u;
  l->grid = grid_of(ceil_div(c->p->rows, l->rows_per_cta),
                    (int64_t)c->d->sm_count *
                        ctas_per_sm(c->d, threads,
                                    u ? fn_regs_estimate_fwd_pipe_u(s, c->xs, c->fused)
                                      : fn_regs_estimate_fwd_pipe(s, c->xs, c->fused),
                                    smem));
  return 1;
}

/* Forward, rows of at most FN_FWD_LANES_MAX_SLOTS whole aligned vectors (rmsnorm_fwd.cu
 * rms_norm_fwd_lanes): a team of fn_fwd_lanes_team lanes per row holding fn_fwd_lanes_vecs vectors
 * each (two from 33 vectors: the plain forward only), FN_FWD_LANES_ROWS rows per team,
 * CTAs of FN_FWD_LANES_THREADS threads (only the warps with rows where there are fewer), one pass.
 * Any strides that keep every row aligned, N-d rows included. Above FN_FWD_LANES_MIN_ROWS_PER_SM
 * rows per SM only. Row-pipelined against lanes kernel on every row count (H200, 2026-11-27, the
 * same inputs, cold, us): many rows 1.04-1.11x faster with it (bf16 1048576 x 128 fwd 151.9 vs
 * 137.5, 131072 x 256 42.9 vs 38.7, fp16 262144 x 128 42.8 vs 38.6, the fused add 1.04-1.06x;
 * 16384 x 128 and f32 65536 x 32 within 3% either way), few rows 0.93-0.97x (bf16 4096 x 128 5.70
 * vs 6.13, 1000 x 64 4.83 vs 5.15, 8 x 128 4.64 vs 4.93, f32 130 x 16 4.70 vs 5.02): there a row's
 * time is its latency, and two rows a thread put two rows' arithmetic on one thread where the
 * row-pipelined kernel's CTAs of 256 threads had one row a team. The cut lies between 4096 and
 * 16384 rows (31 and 124 per SM), unmeasured between. */
static int fwd_lanes(const ctx *c, fusednorm_launch *l) {
  const int team = fn_fwd_lanes_team(c->slots);
  const int64_t rows = c->p->rows;
  int64_t threads;
  const int k = fn_fwd_lanes_vecs(c->slots);
  if (!c->aligned || c->p->n % c->vec != 0 || c->slots > FN_FWD_LANES_MAX_SLOTS || (k > 1 && c->fused) ||
      rows <= (int64_t)FN_FWD_LANES_MIN_ROWS_PER_SM * c->d->sm_count)
    return 0;
  threads = min64(FN_FWD_LANES_THREADS, max64(32, round_up(ceil_div(rows, FN_FWD_LANES_ROWS) * team, 32)));
  plan_init(c, l, FUSEDNORM_MODE_ROW_PACKED, FUSEDNORM_KERNEL_FWD_LANES, (int)threads);
  l->rows_per_cta = (int)threads / team * FN_FWD_LANES_ROWS;
  l->slots_per_thread = k; /* the instance: vectors a lane */
  l->grid = grid_of(ceil_div(rows, l->rows_per_cta), INT_MAX);
  return 1;
}

/* Forward, tiny (rmsnorm_tiny.cu): a team of fn_tiny_lanes(n) lanes per row, one column each,
 * CTAs of up to FN_TINY_FWD_THREADS threads (only the warps with a row), one row per team. Any
 * layout. */
static int fwd_tiny(const ctx *c, fusednorm_launch *l) {
  const int64_t n = c->p->n, rows = c->p->rows;
  const int lanes = fn_tiny_lanes(n);
  int64_t threads;
  if (n > FN_TINY_FWD_MAX_N || rows * n > FN_TINY_FWD_MAX_ELEMS) return 0;
  threads = min64(FN_TINY_FWD_THREADS, max64(32, round_up(rows * lanes, 32)));
  plan_init(c, l, FUSEDNORM_MODE_ROW_PACKED, FUSEDNORM_KERNEL_FWD_TINY, (int)threads);
  l->rows_per_cta = (int)threads / lanes;
  l->slots_per_thread = fn_tiny_cols(n); /* the instance: a lane's columns */
  l->grid = ceil_div(rows, l->rows_per_cta);
  return 1;
}

/* Two rows a warp for the warp forward (1 = one): the plain forward past
 * FN_AUTO_FWD_WARP_FEW_ROWS_PER_SM rows an SM, where bench.py measured it faster than one row a
 * warp and than the families AUTO takes without it (H200, 2026-11-28, cold inputs, the builds
 * interleaved old / new / new / old on 24 held-out shapes x bf16, fp16, f32; kernels/RESULTS.md
 * "Two rows a warp"):
 * - 16-bit rows of at most 128 columns (the tiles' and the row-pipelined kernel's there): 43-54
 *   rows an SM, 49-92 columns 1.04-1.09x; 152-158 rows an SM, 89-97 columns 1.04-1.07x; 190-303
 *   rows an SM, 75 and 110 columns 0.97x (not taken); a probe grid put the narrowest at 121 rows
 *   an SM from 63 columns;
 * - 16-bit rows of 129-320 columns against one row a warp: 379-682 rows an SM 1.01-1.07x, 1894
 *   (140 columns, the tiles') 1.16x; 40-46 rows an SM 0.93-0.97x (not taken); 450 columns (16 a
 *   lane) 0.75-0.81x: at 12 and 16 columns a lane ptxas waits for the first row's values before
 *   issuing the second's loads (not built);
 * - f32 rows of 49-64 columns (two a lane): 46-758 rows an SM 1.05-1.09x over the tiles; three a
 *   lane against one row a warp: 2273-4546 rows an SM 1.04-1.10x, 23-190 rows an SM 0.91-1.00x;
 * - with the fused add two rows hold x and r (92-144 registers at 10-16 columns a lane): a probe
 *   put it at 0.56-1.05x, not built;
 * - with its loads predicated (kernels/RESULTS.md "The warp forward's loads predicated"), dense
 *   rows (the flat tiles' domain) past the bands: 16-bit rows of 65-128 columns at any count
 *   (FN_AUTO_FWD_WARP2_DENSE_B16_MIN_N; H200 2026-12-02, bench_modes AUTO paired, over the tiles:
 *   bf16 162158 x 81 36.2 -> 31.0 us, 300000 x 101 1.12x, 700000 x 97 1.08x, 21121 x 65 1.14x;
 *   fp16 100000 x 65 1.14x, 500000 x 127 1.15x, 40000 x 67 1.07x, 25000 x 119 1.31x; bf16
 *   1000000 x 65 0.98x, the one loss past 64 columns; 33 and 45 columns 0.73x and 0.90x, not
 *   taken), f32 rows from 45 columns up to 4096 rows an SM (FN_AUTO_FWD_WARP2_DENSE_F32_MIN_N:
 *   30000 x 45 1.08x, 100000 x 47 1.14x, 200000 x 47 1.11x; 1000000 x 45 1.03x by events, 0.97x
 *   kernel time under Nsight Compute: the cap; 35-41 columns 0.94-1.10x: not taken). */
static int fwd_warp_rows(const ctx *c, int64_t n, int64_t rows_per_sm) {
  static const int64_t bands[][2] = FN_AUTO_FWD_WARP2_B16_BANDS;
  const int nb = (int)(sizeof bands / sizeof bands[0]);
  if (c->fused || rows_per_sm <= FN_AUTO_FWD_WARP_FEW_ROWS_PER_SM ||
      !fn_fwd_warp2_built((int)c->xs, fn_fwd_warp_cols(n)))
    return 1;
  const int dense_f32 = c->dense && rows_per_sm <= FN_AUTO_FWD_WARP_DENSE_F32_ROWS_PER_SM;
  if (c->xs == 4)
    return (n > 64 ? rows_per_sm > FN_AUTO_FWD_WARP2_F32_WIDE_ROWS_PER_SM
                   : n >= (dense_f32 ? FN_AUTO_FWD_WARP2_DENSE_F32_MIN_N : FN_AUTO_FWD_WARP2_F32_MIN_N) ||
                         rows_per_sm <= FN_AUTO_FWD_WARP2_F32_NARROW_ROWS_PER_SM)
               ? 2
               : 1;
  if (n > FN_AUTO_FWD_WARP2_B16_NARROW_MAX_N)
    return rows_per_sm > FN_AUTO_FWD_WARP_B16_ROWS_PER_SM ? 2 : 1;
  for (int i = 0; i < nb; ++i)
    if (rows_per_sm <= bands[i][0]) return n >= bands[i][1] ? 2 : 1;
  return c->dense && n >= FN_AUTO_FWD_WARP2_DENSE_B16_MIN_N ? 2 : 1;
}

/* Elements a load for the warp forward (1: element by element): 4 or 2 where the plain 16-bit
 * forward's rows (every start, with the weight in the rows' dtype) sit on 8- or 4-byte boundaries
 * and the width is a multiple of that, past FN_AUTO_FWD_WARP_FEW_ROWS_PER_SM rows an SM, rows of
 * FN_FWD_WARP_VEC_MIN_N..FN_FWD_WARP_VEC_MAX_N columns; always two rows a warp. Inductor, which
 * compiles each shape, loads such rows as 8- or 4-byte vectors and ran them near the copy's speed;
 * the element-wise warp forward 0.61-0.67x of it (kernels/RESULTS.md "Sub-vector loads in the warp
 * forward"). H200, 2026-11-28: a probe (every launch's outputs in their own buffers, against the
 * library's plan of then) put 16-bit rows of 70-300 columns on 4- or 8-byte boundaries at 38-3030
 * rows an SM at 1.16-1.57x (fp16 400000 x 300 193.3 -> 125.4 us, 3841 GB/s), 60 and 36 columns at
 * 0.55-0.86x of the tiles (not taken), f32 rows on 8-byte boundaries at 1.00-1.15x (not built);
 * bench.py, paired, 20 held-out 16-bit cases 1.246x (1.02-1.49x). */
static int fwd_warp_load_elems(const ctx *c, int64_t n, int64_t rows_per_sm) {
  if (c->fused || c->xs != 2 || rows_per_sm <= FN_AUTO_FWD_WARP_FEW_ROWS_PER_SM || n < FN_FWD_WARP_VEC_MIN_N ||
      n > FN_FWD_WARP_VEC_MAX_N)
    return 1;
  if (c->align >= 8 && n % 4 == 0) return 4;
  if (c->align >= 4 && n % 2 == 0) return 2;
  return 1;
}

/* Forward, a warp a row or two (rmsnorm_fwd_warp.cu): rows of one stride and FN_FWD_WARP_MIN_N ..
 * FN_FWD_WARP_MAX_N columns, any alignment, 32-bit row indices; FN_FWD_WARP_WARPS warps a CTA (a
 * CTA of only the warps with a row below that), a grid that covers the rows; two rows a warp where
 * fwd_warp_rows says. AUTO takes it (H200, 2026-11-28, us, a CUDA graph of launches over 8 input
 * sets, against AUTO's plan without it; rows of 33-511 columns x 2000-400000 rows, bf16 and f32,
 * plain and fused: kernels/RESULTS.md "The warp forward"):
 * - with at most FN_AUTO_FWD_WARP_FEW_ROWS_PER_SM rows an SM, any width: 2000 rows 1.06-1.75x
 *   faster than every family (row-pipelined, head-split lean rows, tiles);
 * - f32 rows that are not whole vectors, 65-384 columns, any count: 1.01-1.50x over the
 *   row-pipelined head-split instance and the tiles (f32 157281 x 190 78.7 -> 61.2), about even
 *   (0.98-1.02x) with the fused add's head-split rows; 420 columns 0.86-0.99x, 33-63 behind the
 *   tiles from 32768 rows (0.63-0.93x) with one row a warp;
 * - 16-bit rows of 129-320 columns up to 256 rows an SM (one row a warp 0.99-1.29x up to 1024,
 *   bf16 5265 x 142 4.20 -> 2.95; the plain forward takes two rows a warp past 256);
 * - with each load one predicated instruction at a constant offset (kernels/RESULTS.md "The warp
 *   forward's loads predicated"), 16-bit rows of up to 512 columns, and from 257 columns at any
 *   count (FN_AUTO_FWD_WARP_B16_ANY_ROWS_MIN_N; the fused
 *   add up to FN_AUTO_FWD_WARP_B16_FUSED_ANY_ROWS_MAX_N past 256 rows an SM). Over the plans it
 *   took from (bench_modes AUTO, paired, us; tools/bench/results/warp_fwd_pred_h200_2026-12-02):
 *   plain bf16 200000 x 365 123.0 -> 90.6, 200000 x 333 1.41x, 33793 x 324 1.24x, 131072 x 500
 *   1.05x, 131072 x 320 / 512 at a 2-byte offset 1.25x / 1.05x, fp16 300000 x 289 1.36x, 33793 x
 *   321 1.21x, 58551 x 401 1.12x, 58551 x 511 1.04x; fused bf16 58551 x 295 61.5 -> 46.6, fp16
 *   300000 x 301 1.36x, 33792 x 321 1.17x, 8448 x 300 1.05x. Not the fused add past 320 columns at
 *   more than 256 rows an SM (2026-12-01: bf16 131072 x 500 0.96x, 200000 x 477 0.99x, 131072 x
 *   512 at a 2-byte offset 0.95x), nor 256 columns or fewer there, which the flat tiles keep (fused
 *   bf16 100000 x 255 0.93x); not f32 rows past 384 columns (58551 x 401 1.06x, 200000 x 511 0.99x,
 *   4000 x 449 1.01x: no gain to take);
 * - for dense rows (the flat tiles' domain), the fused add's 16-bit rows from 97 columns up to 256
 *   rows an SM and f32 rows from 49 columns up to 4096 (FN_AUTO_FWD_WARP_DENSE_*; H200 2026-12-02,
 *   paired, over the tiles or the head-split row-pipelined plan: bf16 5000 x 99 1.11x, 10000 x 105
 *   1.04x, 33792 x 97 1.12x, 20000 x 127 1.10x, fp16 30000 x 113 1.16x, 33000 x 99 1.13x; f32
 *   4356 x 53 9.3 -> 8.1 us, 8000 x 61 1.14x, 20000 x 49 1.09x, 50000 x 50 1.06x, 150000 x 63
 *   1.06x, 500000 x 55 1.00x, 1000000 x 49 0.97x (past the cap); 16-bit 45-101 columns past 256
 *   rows an SM 0.70-0.97x and f32 39 columns 0.97x, not taken);
 * - the plain forward where two rows a warp pay (fwd_warp_rows), and 16-bit rows on 4- or 8-byte
 *   boundaries as such sub-vectors (fwd_warp_load_elems). */
static int fwd_warp(const ctx *c, fusednorm_launch *l) {
  const int64_t n = c->p->n, rows = c->p->rows;
  const int64_t rows_per_sm = ceil_div(rows, c->d->sm_count);
  int ok, rw, ve;
  if (c->p->row_dims > 1 || n < FN_FWD_WARP_MIN_N || n > FN_FWD_WARP_MAX_N || rows > INT_MAX ||
      (c->aligned && n % c->vec == 0))
    return 0;
  /* One row of more than four columns a lane keeps the lean one-row forward, whose CTA spreads it
   * over more threads (1 x 255: this kernel 0.96-0.99x; 1 x 53 and 5 x 114 1.01-1.06x). */
  if (rows == 1 && n > 4 * 32) return 0;
  ve = fwd_warp_load_elems(c, n, rows_per_sm);
  rw = ve > 1 ? 2 : fwd_warp_rows(c, n, rows_per_sm);
  if (c->xs == 4)
    ok = n >= (c->dense && rows_per_sm <= FN_AUTO_FWD_WARP_DENSE_F32_ROWS_PER_SM ? FN_AUTO_FWD_WARP_DENSE_F32_MIN_N
                                                                             : FN_AUTO_FWD_WARP_F32_MIN_N) &&
         n <= FN_AUTO_FWD_WARP_F32_MAX_N;
  else
    ok = n >= (c->dense ? FN_AUTO_FWD_WARP_DENSE_B16_MIN_N : FN_AUTO_FWD_WARP_B16_MIN_N) &&
         n <= FN_AUTO_FWD_WARP_B16_MAX_N &&
         (rows_per_sm <= FN_AUTO_FWD_WARP_B16_ROWS_PER_SM ||
          (n >= FN_AUTO_FWD_WARP_B16_ANY_ROWS_MIN_N && (!c->fused || n <= FN_AUTO_FWD_WARP_B16_FUSED_ANY_ROWS_MAX_N)));
  if (!ok && rw == 1 && rows_per_sm > FN_AUTO_FWD_WARP_FEW_ROWS_PER_SM) return 0;
  plan_init(c, l, FUSEDNORM_MODE_ROW_PACKED, FUSEDNORM_KERNEL_FWD_WARP,
            (int)min64(FN_FWD_WARP_THREADS, 32 * ceil_div(rows, rw)));
  l->rows_per_cta = l->block_threads / 32 * rw;
  l->load_elems = ve;
  l->slots_per_thread = ve > 1 ? fn_fwd_warp_vec_cols(n, ve) : fn_fwd_warp_cols(n); /* the instance: a lane's loads */
  l->grid = ceil_div(rows, l->rows_per_cta);
  return 1;
}

/* Forward, rows narrower than a vector in dense congruent tensors (rmsnorm_fwd_tile.cu
 * rms_norm_fwd_thread): a thread owns G = fn_fwd_thread_rows(n) rows, their elements whole
 * vectors; one group per thread (the groups start at the first row on a 16-byte boundary, which
 * the kernel finds from the address: one more group than ceil(rows / G) covers any offset).
 * CTAs of FN_FWD_THREAD_THREADS where the groups fill every SM with them, else smaller ones
 * (whole warps) so that every SM has one. */
static int fwd_thread(const ctx *c, fusednorm_launch *l) {
  const int64_t n = c->p->n;
  int64_t groups, threads;
  int g;
  if (!c->dense || !c->congruent || n >= c->vec) return 0;
  g = fn_fwd_thread_rows(n, c->vec);
  /* 16-bit rows of 5 and 7 columns (5 and 7 vectors a thread) measured 0.95-1.13x the tiles at
   * 1.5-7.9 CTAs an SM, no rule in it (H200 2026-11-28): the tiles keep them (no instance). */
  if (n * g > (int64_t)FN_FWD_THREAD_MAX_VECS * c->vec) return 0;
  groups = ceil_div(c->p->rows, g) + (g > 1);
  /* A thread's rows are a serial chain (their sums, the division of a width that is not a power
   * of two, rstd's square root): where they are more than one vector (n does not divide the
   * vector) they pay only with enough warps on every SM to cover it; with fewer, the tiles' team
   * per row won (H200 2026-11-28, against the tiles, measured while 7 columns still ran here:
   * bf16 12785 x 7 0.69x, 4096 x 3 0.80x, 300007 x 7 0.87x at 1.1 CTAs of 256 an SM; 486416 x 3
   * 1.09x at 1.8; kernels/RESULTS.md). */
  if (n * g > c->vec && groups < (int64_t)FN_AUTO_FWD_THREAD_MIN_GROUPS_PER_SM * c->d->sm_count) return 0;
  threads = min64(FN_FWD_THREAD_THREADS, max64(32, ceil_div(groups, c->d->sm_count) / 32 * 32));
  if (ceil_div(groups, threads) > INT_MAX) return 0; /* no row loop */
  plan_init(c, l, FUSEDNORM_MODE_ROW_PACKED, FUSEDNORM_KERNEL_FWD_THREAD, (int)threads);
  l->rows_per_cta = (int)threads * g;
  l->slots_per_thread = (int)(n * g / c->vec); /* a thread's vectors */
  /* a thread's vectors through its warp's shared memory where they are more than one */
  l->smem_bytes = l->slots_per_thread > 1 ? (size_t)threads * l->slots_per_thread * 16 : 0;
  l->grid = ceil_div(groups, threads);
  return 1;
}

/* Forward, flat tiles (rmsnorm_fwd_tile.cu): rows of at most FN_AUTO_ROW_PACKED_FWD_SLOTS slots,
 * dense and congruent, that are not whole aligned vectors (rows that are take the row-pipelined
 * kernel at full vector width already). A tile is up to FN_FWD_TILE_THREADS * FN_FWD_TILE_SLOTS
 * vectors of whole rows and FN_FWD_TILE_ROWS_PER_THREAD rows per thread of the row phase; with
 * fewer rows than FN_FWD_TILE_CTAS_PER_SM full tiles per SM, tiles shrink (and their CTAs with
 * them) so that every SM gets that many: a lone CTA per SM waits at its barriers with nothing
 * else in flight; with more, they shrink to whole waves of resident CTAs (H100 bf16 366740 x 15:
 * 1344 full tiles were 2.04 waves of 660). */
static int fwd_tile(const ctx *c, fusednorm_launch *l) {
  const int64_t n = c->p->n;
  const int64_t cap = (int64_t)FN_FWD_TILE_THREADS * FN_FWD_TILE_SLOTS * c->vec;
  const int lanes = fn_fwd_tile_lanes(n);
  int64_t rows, threads, smem;
  int wave_threads = 0; /* the CTA size of full waves of tiles; 0 where the tiles shrink */
  /* Rows that are whole aligned vectors keep the row-pipelined kernel: tiles were 0.68-1.02x its
   * speed there (H100, 2026-11-27, bf16 65536 x 128 fwd 1565 vs 1799 GB/s, fp32 65536 x 32 1129
   * vs 1544, fp16 65536 x 64 1092 vs 1391; kernels/RESULTS.md). */
  if (!c->dense || !c->congruent || c->slots > FN_AUTO_ROW_PACKED_FWD_SLOTS || (c->aligned && n % c->vec == 0))
    return 0;
  rows = min64(cap / n, (int64_t)FN_FWD_TILE_THREADS * FN_FWD_TILE_ROWS_PER_THREAD / lanes);
  if (ceil_div(c->p->rows, rows) <= (int64_t)c->d->sm_count * FN_FWD_TILE_CTAS_PER_SM) {
    rows = min64(rows, max64(1, ceil_div(c->p->rows, (int64_t)c->d->sm_count * FN_FWD_TILE_CTAS_PER_SM)));
  } else {
    /* Whole waves of resident CTAs (a last wave of a few tiles costs a whole tile's time). The
     * plain forward's CTAs are the smallest, from FN_FWD_TILE_WAVE_THREADS, that keep as many
     * threads resident as full-size CTAs do with tiles of at least FN_FWD_TILE_MIN_ROWS rows:
     * every barrier of a tile waits for its slowest warp (the loads' latency, then the longest
     * row chain), and in smaller CTAs fewer warps wait on fewer others (H200, 2026-12-03, 128
     * threads against 256 on 21 plain shapes: 1.038x geomean, 0.97-1.14x). The fused add keeps
     * full-size CTAs: 128 measured 0.91-1.14x there, 1.004x geomean over 17. 64-thread CTAs
     * measured below 128 (1.015x against 1.029x over 28 shapes, 0.92x at worst;
     * tools/bench/results/tile_cta_h200_2026-12-03/). The launch bound's registers set the
     * residency. */
    const int regs = (int)(65536 / (FN_FWD_TILE_THREADS * FN_FWD_TILE_MIN_CTAS)) / 8 * 8;
    const int64_t full_threads = (int64_t)FN_FWD_TILE_THREADS * ctas_per_sm(c->d, FN_FWD_TILE_THREADS, regs, 0);
    for (wave_threads = c->fused ? FN_FWD_TILE_THREADS : FN_FWD_TILE_WAVE_THREADS;; wave_threads *= 2) {
      const int64_t r = min64((int64_t)wave_threads * FN_FWD_TILE_SLOTS * c->vec / n, (int64_t)wave_threads * FN_FWD_TILE_ROWS_PER_THREAD / lanes);
      const int per_sm = ctas_per_sm(c->d, wave_threads, regs, fn_fwd_tile_smem(n, r, c->xs));
      const int64_t resident = (int64_t)c->d->sm_count * per_sm;
      rows = ceil_div(c->p->rows, ceil_div(ceil_div(c->p->rows, r), resident) * resident);
      if (wave_threads >= FN_FWD_TILE_THREADS || (rows >= FN_FWD_TILE_MIN_ROWS && (int64_t)wave_threads * per_sm >= full_threads)) break;
    }
  }
  /* Where it pays: tiles of at least FN_FWD_TILE_MIN_ROWS rows (the barriers and the shared-memory
   * round trip are paid per tile; with fewer rows the row-pipelined kernel's teams, loading whole
   * rows in flight, were faster), or 16-bit rows narrower than two vectors at any count (there the
   * row-pipelined kernel's lanes read 2-28 bytes each). Not 4-byte rows narrower than a vector:
   * there each of its lanes reads a whole row, a warp 128-384 contiguous bytes (H100, fp32
   * 116265 x 1: tiles 0.94x its time). */
  if (rows < FN_FWD_TILE_MIN_ROWS && !(c->xs == 2 && n < 2 * c->vec)) return 0;
  if (c->xs == 4 && n < c->vec) return 0;
  /* Below a full wave each CTA is alone with its tile, and a team's rows are a chain of
   * dependent steps (shared-memory loads, the team's shuffles, rstd's division and square root):
   * a team per row, as far as the CTA holds them. Full waves keep FN_FWD_TILE_ROWS_PER_THREAD
   * rows a team, the other resident CTAs covering the chains. */
  threads = max64(ceil_div(ceil_div(rows * n, c->vec), FN_FWD_TILE_SLOTS),
                  wave_threads ? ceil_div(rows * lanes, FN_FWD_TILE_ROWS_PER_THREAD) : rows * lanes);
  threads = wave_threads ? wave_threads : min64(FN_FWD_TILE_THREADS, max64(32, round_up(threads, 32)));
  smem = fn_fwd_tile_smem(n, rows, c->xs);
  if (!smem_ok(c, smem)) return 0;
  plan_init(c, l, FUSEDNORM_MODE_ROW_PACKED, FUSEDNORM_KERNEL_FWD_TILE, (int)threads);
  l->rows_per_cta = (int)rows;
  l->slots_per_thread = fn_fwd_tile_cols(n); /* the instance: a lane's columns of a row */
  l->smem_bytes = (size_t)smem;
  l->weight_smem = 1;
  l->grid = grid_of(ceil_div(c->p->rows, rows), INT_MAX);
  return 1;
}

/* The row-pipelined forward's slots per thread for a row over `team` threads: the smallest of 1,
 * 2, 4 that holds the row within the generic forward's bound (the same CTA shape), else 0. */
static int pipe_cache(int64_t slots, int team) {
  const int64_t per_thread = ceil_div(slots, team);
  int s;
  for (s = 1; s <= 4; s *= 2)
    if (per_thread <= s && team <= fn_max_threads(0, s)) return s;
  return 0;
}

/* Forward, persistent: one row per CTA at a time, the row-pipelined kernel. */
static int fwd_persistent(const ctx *c, fusednorm_launch *l) {
  const int threads = cached_threads(c->slots, 0);
  const int cache = pipe_cache(c->slots, threads);
  const int64_t smem = fn_fwd_pipe_smem(c->p->n, c->vec);
  if (!fn_fwd_pipe_fits(cache, threads, c->slots, c->fused, c->xs) || !smem_ok(c, smem)) return 0;
  plan_init(c, l, FUSEDNORM_MODE_PERSISTENT, FUSEDNORM_KERNEL_FWD_PIPE, threads);
  l->slots_per_thread = cache;
  l->smem_bytes = (size_t)smem;
  l->weight_smem = 1;
  l->grid = grid_of(c->p->rows, (int64_t)c->d->sm_count *
                                    ctas_per_sm(c->d, threads, fn_regs_estimate_fwd_pipe(cache, c->xs, c->fused), smem));
  return 1;
}

/* The lean forward at 8 slots a thread (FN_AUTO_FWD_ROW8_*): wide aligned rows of whole vectors,
 * one stride (the lean instance: the N-d one would spill at S = 8), many of them; the plain rows
 * that S = 4 holds at up to 1024 threads, the fused add's that it does not (past its 512), a
 * weight of the rows' dtype or an f32 one on f32 rows, or none. */
static int fwd_row8_ok(const ctx *c) {
  const int64_t t4 = max64(64, round_up(ceil_div(c->slots, FN_TARGET_CACHE), 32));
  const int s4 = t4 <= 1024 ? fn_fwd_row_cache(c->slots, (int)t4, c->fused, c->w32, c->xs) : 0;
  return (c->fused ? s4 == 0 && !(c->w32 && c->xs == 2) : s4 == 4) && c->slots >= FN_AUTO_FWD_ROW8_MIN_SLOTS &&
         ceil_div(c->slots, 8) <= FN_FWD_ROW8_MAX_THREADS && c->aligned && c->p->n % c->vec == 0 &&
         c->p->row_dims <= 1 && c->p->rows <= INT_MAX &&
         c->p->rows >= (int64_t)FN_AUTO_FWD_ROW8_MIN_ROWS_PER_SM * c->d->sm_count;
}

/* Forward, multi-wave cached: the lean kernel, one CTA per row, aligned rows, the whole row in
 * FN_TARGET_CACHE slots per thread (fewer where the row is narrow; 8 where fwd_row8_ok). */
static int fwd_row(const ctx *c, fusednorm_launch *l) {
  int64_t t = max64(64, round_up(ceil_div(c->slots, FN_TARGET_CACHE), 32));
  const int whole = c->aligned && c->p->n % c->vec == 0; /* else the head-split instance */
  int s;
  /* Fewer rows than SMs: each CTA alone on its SM, and a row's latency is one thread's chain, so
   * one slot per thread up to FN_AUTO_FWD_ROW_FEW_MAX_THREADS (H100, 2026-11-27 02:47 UTC, AUTO
   * forward, bench harness, 4 slots vs 1 per thread, us: 16-bit 14 x 2393 6.4 vs 5.3, 53 x 1916
   * 5.6 vs 5.0, 11 x 5264 (672 threads) 5.5 vs 5.3; at 1024 threads slower: 8 x 8192 5.6 vs 5.7,
   * 120 x 8192 5.8 vs 6.2; tools/bench/results/few_rows_fwd_h100_2026-11-27). A row of at most
   * 32 slots takes one warp: its sum is the warp's shuffles, no shared memory or barrier (H200
   * 2026-11-28, rows of 29-250 columns, 1.0-1.04x, f32 277 x 29 1.14x;
   * tools/bench/results/few_rows_fwd_h200_2026-11-28/). */
  if (c->p->rows <= FN_AUTO_FWD_ROW_FEW_ROWS_PER_SM * c->d->sm_count) {
    const int64_t t1 = max64(32, round_up(c->slots, 32));
    if ((c->p->rows < c->d->sm_count || t1 <= FN_AUTO_FWD_ROW_FEW2_MAX_THREADS) &&
        t1 <= FN_AUTO_FWD_ROW_FEW_MAX_THREADS &&
        fn_fwd_row_cache(c->slots, (int)t1, c->fused, c->w32, c->xs) == 1)
      t = t1;
  }
  if ((!whole && !c->congruent) || t > 1024) return 0;
  s = fn_fwd_row_cache(c->slots, (int)t, c->fused, c->w32, c->xs);
  if (fwd_row8_ok(c)) {
    t = max64(64, round_up(ceil_div(c->slots, 8), 32));
    s = 8;
  }
  if (s == 0) return 0;
  plan_init(c, l, FUSEDNORM_MODE_MULTI_WAVE_CACHED, FUSEDNORM_KERNEL_FWD_ROW, (int)t);
  l->slots_per_thread = s;
  l->unaligned = !whole;
  l->grid = grid_of(c->p->rows, INT_MAX);
  return 1;
}

/* AUTO forward, rows that are not whole aligned vectors (FN_AUTO_FWD_HS_MIN_N* above): the
 * head-split lean kernel rather than the row-pipelined one. */
static int fwd_unaligned_row(const ctx *c, fusednorm_launch *l) {
  const int64_t n = c->p->n, rows = c->p->rows;
  if ((c->aligned && n % c->vec == 0) || !c->congruent) return 0;
  if (rows > (int64_t)FN_AUTO_FWD_MID_PACKED_ROWS_PER_SM * c->d->sm_count) {
    /* Rows of at most 32 slots: measured only where the tiles took them (dense rows), so the
     * others keep the row-pipelined kernel; f32 plain rows of 33-64 slots: row-packed. */
    if (c->slots <= FN_AUTO_ROW_PACKED_FWD_SLOTS || (!c->fused && c->xs == 4)) return 0;
  }
  if (n < (c->fused ? FN_AUTO_FWD_HS_MIN_N_FUSED : FN_AUTO_FWD_HS_MIN_N) &&
      !(n >= FN_AUTO_FWD_HS_MIN_N_FEW && rows <= (int64_t)FN_AUTO_FWD_HS_FEW_ROWS_PER_SM * c->d->sm_count))
    return 0;
  return fwd_row(c, l);
}

/* Rows in flight of the generic reload forward fit the L2 (see above). */
static int reload_fits_l2(const ctx *c, int threads) {
  const int occ = ctas_per_sm(c->d, threads, fn_regs_estimate(0, 0, c->xs), 0);
  const int64_t bytes = (int64_t)c->d->sm_count * occ * c->p->n * c->xs * (c->fused ? 2 : 1);
  return bytes <= (int64_t)c->d->l2_bytes;
}

/* Forward, the generic kernel: up to the reload width, one CTA per row reading it twice
 * (nothing cached); beyond, a persistent grid with FN_TARGET_CACHE slots per thread cached and
 * the rest streamed. `reload`: -1 = by the width and the L2 (AUTO and forced), 0 = persistent. */
static int fwd_generic(const ctx *c, fusednorm_launch *l, int reload) {
  const int64_t reload_slots = c->fused ? FN_AUTO_FWD_RELOAD_SLOTS_FUSED : FN_AUTO_FWD_RELOAD_SLOTS;
  const int rthreads = (int)max64(64, min64(round_up(ceil_div(c->slots, FN_TARGET_CACHE), 32), 1024));
  if (reload && c->slots <= reload_slots && reload_fits_l2(c, rthreads)) {
    plan_init(c, l, FUSEDNORM_MODE_MULTI_WAVE_RELOAD, FUSEDNORM_KERNEL_FWD_GENERIC, rthreads);
    l->slots_per_thread = 0;
    l->unaligned = c->congruent && !c->aligned;
    l->grid = grid_of(c->p->rows, INT_MAX);
    return 1;
  }
  {
    const int threads = cached_threads(c->slots, 0);
    const int cache = generic_cache(0, c->slots, threads);
    plan_init(c, l, FUSEDNORM_MODE_MULTI_WAVE_RELOAD, FUSEDNORM_KERNEL_FWD_GENERIC, threads);
    l->slots_per_thread = cache;
    l->unaligned = c->congruent && !c->aligned;
    l->grid = grid_of(c->p->rows, (int64_t)c->d->sm_count * ctas_per_sm(c->d, threads, fn_regs_estimate(0, cache, c->xs), 0));
  }
  return 1;
}

/* The wide forward's CTAs that a cooperative grid holds at once where there are no clusters. */
static int64_t fwd_wide_grid_resident(const ctx *c) {
  return (int64_t)c->d->sm_count * FN_FWD_WIDE_GRID_CTAS_PER_SM;
}

/* CTAs a row of the wide forward without clusters (the grid sum, rmsnorm_fwd_wide.cu
 * grid_push_sum: one grid-wide barrier a round of rows): the fewest that hold the row in
 * registers and stage (`per_cta` slots each; never more than the grid holds: the rest of a chunk
 * is streamed), which sets the rows a round; then as many more as spread those rows over the
 * co-resident grid while each CTA keeps FN_FWD_WIDE_MIN_SPREAD_SLOTS. Every CTA
 * keeps at least two whole vectors of the row (FN_FWD_WIDE_GRID_MIN_TAIL_VECS), where the kernel
 * puts its partial sum. 0 where fewer than two CTAs would do. */
static int fwd_wide_grid_ctas(const ctx *c, int64_t per_cta, int *out) {
  const int64_t resident = fwd_wide_grid_resident(c);
  const int64_t hold = min64(resident, max64(2, ceil_div(c->slots, per_cta)));
  const int64_t units = min64(c->p->rows, resident / hold); /* rows a round */
  int64_t cl = max64(hold, min64(resident / units, c->slots / FN_FWD_WIDE_MIN_SPREAD_SLOTS));
  while (cl >= 2 && c->p->n - (cl - 1) * fn_cluster_chunk(c->p->n, (int)cl, c->vec) <
                        (int64_t)FN_FWD_WIDE_GRID_MIN_TAIL_VECS * c->vec)
    --cl;
  if (cl < 2) return 0;
  *out = (int)cl;
  return 1;
}

/* The wide forward's CTA for clusters of `cl`: the chunk, threads (the fewest, at up to `spt_max`
 * slots each, that hold the chunk, within FN_FWD_WIDE_MAX_THREADS), slots a thread, and the
 * shared memory that stages the chunk's rest (whole-vector slots only, `slot_bytes` each) and,
 * `wb` > 0, the weight of every slot of the chunk (wb bytes each, fn_fwd_wide_weight_bytes). */
typedef struct {
  int64_t chunk, chunk_slots;
  int threads, s;
  size_t smem;
} wide_cta;

static wide_cta fwd_wide_cta(const ctx *c, int cl, int spt_max, int stage, int slot_bytes, int wb) {
  wide_cta g;
  g.chunk = fn_cluster_chunk(c->p->n, cl, c->vec);
  g.chunk_slots = g.chunk / c->vec;
  g.threads = (int)max64(64, min64(FN_FWD_WIDE_MAX_THREADS, round_up(ceil_div(g.chunk_slots, spt_max), 32)));
  for (g.s = 1; g.s < spt_max && (int64_t)g.s * g.threads < g.chunk_slots; g.s *= 2) {
  }
  g.smem = (size_t)wb * g.s * g.threads; /* the registers' slots' weight */
  if (stage && g.chunk_slots > (int64_t)g.s * g.threads) {
    const int64_t want = ceil_div(g.chunk_slots - (int64_t)g.s * g.threads, g.threads);
    const int64_t cap = fn_fwd_wide_stage_left(c->d, g.threads, g.s, slot_bytes, wb);
    /* The fused add stages only a chunk it holds whole: a stage with streamed slots behind it
     * measured 0.99x over 44 cases, down to 0.89x (H200 and H100, kernels/RESULTS.md "The wide
     * forward's stage"); without the fused add such stages measured 1.07-1.11x (geomean). */
    if (!c->fused || want <= cap) g.smem += (size_t)(min64(want, cap) * g.threads * (slot_bytes + wb));
  }
  return g;
}

/* CTAs of the wide forward's `cl`-CTA clusters resident at once: its CTA's residency (threads,
 * the launch bound's registers, the stage) within the GPCs (cluster_resident). */
static int64_t fwd_wide_resident(const ctx *c, int cl, int spt_max, int stage, int slot_bytes, int wb) {
  const wide_cta g = fwd_wide_cta(c, cl, spt_max, stage, slot_bytes, wb);
  return cluster_resident(c->d, cl, ctas_per_sm(c->d, g.threads, FN_FWD_WIDE_REGS, (int64_t)g.smem));
}

/* Forward, the wide kernel (rmsnorm_fwd_wide.cu): a row over a thread-block cluster (compute
 * capability >= 9.0, at most fn_fwd_wide_max_cluster CTAs) or, `grid_sum` (always without
 * clusters), over CTAs of a cooperative grid, sized by fwd_wide_grid_ctas instead of the rules
 * below (where there are clusters, only at two slots a thread or more), each CTA's chunk in registers at up to
 * 4 slots per thread (plain aligned rows with n a multiple of the vector width; else 2: the
 * instances that fit the 64-register bound) on up to FN_FWD_WIDE_MAX_THREADS threads, and where
 * the slots are whole vectors (aligned or congruent rows) as many more as the shared memory of two
 * CTAs per SM stages (fn_fwd_wide_stage_per_thread). The cluster is the smallest that holds the row
 * in both; then, with `resident` the CTAs the device holds at once in clusters of that size
 * (fwd_wide_resident: the CTA's residency within the GPCs, cluster_resident):
 *   - if the rows' CTAs fit one wave, it is widened while they still do, within two CTAs an SM,
 *     and every CTA keeps FN_FWD_WIDE_MIN_SPREAD_SLOTS (few rows spread over the SMs: 17 x 32768
 *     bf16, 8 CTAs a row);
 *   - if they overflow one wave by less than a third (a second wave nearly empty: 17 x 262144 bf16
 *     at 16 CTAs a row is 17 clusters where 14 are resident on the H200), it is narrowed to one
 *     wave, the chunk's remainder beyond the registers and the stage streamed (read again from
 *     L2), for plain rows only while that remainder is at most 1/8 of the chunk;
 *   - otherwise (many waves) it stays.
 * A model of waves and registers, its limits measured (H200, kernels/RESULTS.md "Clusters as the
 * driver counts them"); the bench commands that check it are in kernels/cuda/README.md. Every CTA
 * gets a non-empty chunk. */
static int fwd_wide_plan(const ctx *c, fusednorm_launch *l, int grid_sum, int wb) {
  const int maxcl = fn_fwd_wide_max_cluster(c->d->cc_major);
  const int spt_max = c->aligned && c->p->n % c->vec == 0 && !c->fused ? 4 : 2;
  /* whole-vector slots (aligned rows, or the head-split interior) can be staged by 16-byte copies */
  const int stage = c->aligned || c->congruent;
  const int slot_bytes = c->fused ? 32 : 16;
  const int64_t per_cta =
      (int64_t)FN_FWD_WIDE_MAX_THREADS *
      (spt_max + (stage ? fn_fwd_wide_stage_left(c->d, FN_FWD_WIDE_MAX_THREADS, spt_max, slot_bytes, wb) : 0));
  const int64_t rows = c->p->rows;
  int cl = 2;
  wide_cta g;
  if (c->slots < 2) return 0;
  if (grid_sum) {
    if (!fwd_wide_grid_ctas(c, per_cta, &cl)) return 0;
  } else {
#define FN_RES(k) fwd_wide_resident(c, (k), spt_max, stage, slot_bytes, wb)
    while (cl < maxcl && ceil_div(c->slots, cl) > per_cta) cl *= 2;
    if (rows * cl <= FN_RES(cl)) {
      /* widened within the launch bound's CTAs (two an SM) as well: narrower CTAs hold more an SM,
       * but spreading 24 x 65536 bf16 over 384 CTAs of 128 threads (16 a row) measured 0.89x the
       * 192 of 256 (H200, 2026-11-29) */
      while (2 * cl <= maxcl && rows * 2 * cl <= min64(FN_RES(2 * cl), (int64_t)c->d->sm_count * FN_FWD_WIDE_MIN_CTAS) &&
             ceil_div(c->slots, 2 * cl) >= FN_FWD_WIDE_MIN_SPREAD_SLOTS)
        cl *= 2;
    } else if (3 * rows * cl < 4 * FN_RES(cl)) {
      /* plain rows only while the narrower CTAs hold 7/8 of their chunk or more: with a third to a
       * half of it streamed (read again from L2) one wave measured 0.88-0.98x the two it saves
       * (bf16/f16 32 x 353166 and 524288, 64 x 196608, 215342 and 262144), with 6% streamed
       * 1.08-1.16x (64 x 131073); the fused add's 1.01-1.13x at any (H200, 2026-11-29) */
      while (cl > 2 && rows * cl > FN_RES(cl) && (c->fused || 8 * per_cta >= 7 * ceil_div(c->slots, cl / 2))) cl /= 2;
    }
#undef FN_RES
  }
  g = fwd_wide_cta(c, cl, spt_max, stage, slot_bytes, wb);
  while (cl > 2 && (cl - 1) * g.chunk >= c->p->n) {
    cl /= 2;
    g = fwd_wide_cta(c, cl, spt_max, stage, slot_bytes, wb);
  }
  if ((cl - 1) * g.chunk >= c->p->n) return 0;
  if (grid_sum && maxcl >= 2 && g.s < 2) return 0; /* not compiled where there are clusters */
  plan_init(c, l, FUSEDNORM_MODE_WIDE, FUSEDNORM_KERNEL_FWD_WIDE, g.threads);
  l->ctas_per_row = cl;
  l->cluster = grid_sum ? 1 : cl;
  l->chunk = g.chunk;
  l->slots_per_thread = g.s;
  l->smem_bytes = g.smem;
  l->weight_smem = wb > 0;
  l->unaligned = c->congruent && !c->aligned && g.s <= 2; /* the S = 4 instance is aligned-only */
  /* the grid sum's rounds: as many rows at once as the co-resident CTAs hold */
  l->grid = min64(rows, (grid_sum ? fwd_wide_grid_resident(c) : INT_MAX) / cl) * cl;
  return 1;
}

/* A wide forward plan whose CTAs hold their whole chunk (registers and stage): nothing is read
 * twice. The many-rows rule takes only such plans: on a device of less shared memory than the
 * H100's or H200's the chunk's rest would be read again from L2, which is how the unstaged wide
 * kernel lost to the generic one. */
static int fwd_wide_holds(const ctx *c, const fusednorm_launch *l) {
  const int wb = l->weight_smem ? fn_fwd_wide_weight_bytes(c->p->x_dtype, c->p->w_dtype) : 0;
  const int64_t staged =
      fn_fwd_wide_staged(l->smem_bytes, l->block_threads, l->slots_per_thread, c->fused ? 32 : 16, wb);
  return ((int64_t)l->slots_per_thread + staged) * l->block_threads * c->vec >= l->chunk;
}

/* The wide forward's weight staged only where a CTA's chunk moves this many bytes in (x, and r for
 * the fused add), whether or not the weight's bytes doubled the cluster: chunks of 64 KB and more
 * measured 1.10-1.20x (bf16 512 x 262144 and f32 1024 x 65536 at twice the cluster), fused f32
 * 300 x 160000 at 80 KB 1.23x, fused f32 200 x 98312 at 49 KB 1.25x; at 40 KB 0.89x (f32 300 x
 * 160000) and 0.96x (f32 1500 x 40000): a row's fixed latency over a short chunk (H200,
 * 2026-11-30). */
#define FN_AUTO_FWD_WIDE_WS_MIN_CTA_BYTES 49152
/* CTAs of a cluster plan resident at once (fwd_wide_resident's count, from the plan). */
static int64_t fwd_wide_plan_resident(const ctx *c, const fusednorm_launch *l) {
  return cluster_resident(c->d, l->cluster, ctas_per_sm(c->d, l->block_threads, FN_FWD_WIDE_REGS, (int64_t)l->smem_bytes));
}

/* The wide forward of many plain rows with every slot staged and the weight in registers
 * (rms_norm_fwd_wide_wr; the plan's slots_per_thread 0): where there are clusters, for aligned
 * plain rows whose slots' weight is one 16-byte piece each (a 16-bit x with a 16-bit weight, f32
 * with f32; or no weight), over the fewest power-of-two CTAs a row (2 to the largest cluster)
 * whose FN_FWD_WIDE_WR_THREADS threads hold the chunk at FN_FWD_WIDE_WR_SLOTS slots each, at two
 * CTAs an SM or more, where the rows take at least FN_AUTO_FWD_WIDE_WR_MIN_WAVES waves of such
 * clusters. One CTA a (row, chunk), so the hardware balances the rows where the staged-weight
 * plan's resident clusters loop over them (1024 rows over 132 clusters: 8 rows for some, 7 for
 * others). Measured, paired against the plans before it (H200, 2026-11-30, bench_modes AUTO,
 * kernels/RESULTS.md "The wide forward of many rows: every slot staged, the weight in
 * registers"): bf16 140-4096 rows x 49152-262144 1.02-1.16x (from two waves only, 140 and 200 x
 * 65536 kept the plans before it: 0.99-1.00x; just past one wave, 33 x 262144, 64 x 98304 and
 * 64 x 131072, 1.01-1.02x), f32 200-2048 x 65536-131072 1.10-1.16x and 64 x 65536 1.015x, f32
 * 1500 x 40000 (five slots a thread) 0.98x. Not the fused add (0.90-1.04x: x and r staged, three
 * CTAs an SM). */
#define FN_AUTO_FWD_WIDE_WR_MIN_WAVES 1
static int fwd_wide_wr(const ctx *c, fusednorm_launch *l) {
  const int maxcl = fn_fwd_wide_max_cluster(c->d->cc_major);
  const int64_t per_cta = (int64_t)FN_FWD_WIDE_WR_THREADS * FN_FWD_WIDE_WR_SLOTS;
  int64_t chunk, resident;
  size_t smem;
  int cl = 2, per_sm;
  if (maxcl < 2 || c->fused || !c->aligned || c->p->n % c->vec != 0) return 0;
  if (c->p->has_weight && fn_fwd_wide_weight_bytes(c->p->x_dtype, c->p->w_dtype) != 16) return 0;
  while (cl < maxcl && ceil_div(c->slots, cl) > per_cta) cl *= 2;
  if (ceil_div(c->slots, cl) > per_cta) return 0;
  chunk = fn_cluster_chunk(c->p->n, cl, c->vec);
  if ((cl - 1) * chunk >= c->p->n) return 0; /* every CTA a non-empty chunk */
  smem = (size_t)ceil_div(chunk / c->vec, FN_FWD_WIDE_WR_THREADS) * FN_FWD_WIDE_WR_THREADS * 16;
  if (!smem_ok(c, (int64_t)smem)) return 0;
  per_sm = ctas_per_sm(c->d, FN_FWD_WIDE_WR_THREADS, FN_FWD_WIDE_REGS, (int64_t)smem);
  /* two CTAs an SM at least, as the other wide plans: one CTA's copies while another sums */
  if (per_sm < 2) return 0;
  resident = cluster_resident(c->d, cl, per_sm);
  if (c->p->rows * cl < (int64_t)FN_AUTO_FWD_WIDE_WR_MIN_WAVES * resident) return 0;
  plan_init(c, l, FUSEDNORM_MODE_WIDE, FUSEDNORM_KERNEL_FWD_WIDE, FN_FWD_WIDE_WR_THREADS);
  l->ctas_per_row = cl;
  l->cluster = cl;
  l->chunk = chunk;
  l->slots_per_thread = 0; /* the instance: every slot staged, the weight's pieces in registers */
  l->smem_bytes = smem;
  l->weight_smem = 0;
  l->unaligned = 0;
  l->grid = min64(c->p->rows, INT_MAX / cl) * cl; /* a row loop beyond */
  return 1;
}

/* AUTO: aligned plain rows, more than the SMs, on the every-slot-staged wide forward (fwd_wide_wr,
 * where it applies) ahead of the lean one-CTA-a-row forward and the generic one:
 *   - past what the lean forward's 1024 threads hold at FN_TARGET_CACHE slots (> 4096 slots),
 *     where below FN_AUTO_FWD_WIDE_MANY_MIN_SLOTS the generic forward ran (a persistent grid, the
 *     columns beyond its registers read again from L2);
 *   - FN_AUTO_FWD_ROW8_MIN_SLOTS-4096 slots from FN_AUTO_FWD_WIDE_WR_MID_MIN_ROWS_PER_SM rows an SM
 *     to below the 8-slot lean forward's rows (fwd_row8_ok), where the lean forward ran at four
 *     slots a thread, one 1024-thread CTA a row and an SM: a round of rows per 132, so 400 rows
 *     take four rounds, 3.03 rows' time.
 * Measured (H200, 2026-12-01 07:49 UTC, bench_modes cold, AUTO then / forced wide, two passes,
 * tools/bench/results/fwd_wide_wr_mid_h200_2026-12-01): bf16 x 40960 (5120 slots) 140-2048 rows
 * 1.11-1.35x (2048 rows 138.1 -> 102.8 us), f32 x 20480 1.13-1.35x; 2560-4096 slots at 400-776
 * rows bf16 1.01-1.11x, f32 1.00-1.12x, f16 1.08-1.10x (bf16 776 x 32768 37.9 -> 34.7 us); at 264
 * rows (two an SM) 0.98-1.06x, at 1056-2048 rows (the 8-slot forward) 0.96-1.05x, and at 1536-2048
 * slots 0.76-0.93x at every row count: those keep the lean forwards. */
#define FN_AUTO_FWD_WIDE_WR_MID_MIN_ROWS_PER_SM 3
static int fwd_wide_wr_pays(const ctx *c) {
  const int64_t rows = c->p->rows, sms = c->d->sm_count;
  if (rows <= sms) return 0; /* (the fused add: fwd_wide_wr declines it) */
  if (ceil_div(c->slots, FN_TARGET_CACHE) > 1024) return 1;
  return c->slots >= FN_AUTO_FWD_ROW8_MIN_SLOTS && rows >= (int64_t)FN_AUTO_FWD_WIDE_WR_MID_MIN_ROWS_PER_SM * sms &&
         rows < (int64_t)FN_AUTO_FWD_ROW8_MIN_ROWS_PER_SM * sms;
}

/* The wide forward's plan: fwd_wide_wr's (above) where it applies; else fwd_wide_plan's, its
 * weight staged in shared memory (weight_smem: aligned rows with a weight, whole 16-byte slots of
 * it, `aligned` covering the weight; in clusters: the
 * grid sum keeps the weight's loads) where both it and the plan without it hold their whole chunk,
 * the rows take two waves of clusters or more without it, and a CTA's chunk moves at least
 * FN_AUTO_FWD_WIDE_WS_MIN_CTA_BYTES (the weight's bytes may double the cluster, halving the
 * chunk). Its grid is then the clusters resident at once, each looping over rows, so that a CTA
 * copies its chunk's weight once, not once a row: the weight's traffic from L2, as many bytes as
 * x's where weight and x share a dtype, was what it cost (bf16 512 x 262144: 207 us with a weight,
 * 157 without; staged once a row, 193; once a CTA, 173; H200, 2026-11-30, kernels/RESULTS.md "The
 * wide forward's weight, once a CTA"). Else the plan without it, as measured before: one wave of
 * rows (one row: the stage's copies before the sum measured 0.95-0.97x), or a chunk that streams in
 * part (few rows narrowed to one wave of clusters; bf16 256 x 1048576, whose chunk with its weight
 * is past the 16-CTA cluster's shared memory). */
static int fwd_wide(const ctx *c, fusednorm_launch *l, int grid_sum) {
  const int wb = c->p->has_weight && c->aligned && !grid_sum ? fn_fwd_wide_weight_bytes(c->p->x_dtype, c->p->w_dtype) : 0;
  fusednorm_launch w;
  if (!grid_sum && fwd_wide_wr(c, l)) return 1;
  if (!fwd_wide_plan(c, l, grid_sum, 0)) return 0;
  if (wb > 0 && fwd_wide_holds(c, l) && fwd_wide_plan(c, &w, grid_sum, wb) && fwd_wide_holds(c, &w)) {
    const int64_t rl = fwd_wide_plan_resident(c, l), rw = fwd_wide_plan_resident(c, &w) / w.cluster * w.cluster;
    const int64_t cta_bytes = w.chunk * c->xs * (c->fused ? 2 : 1);
    if (rw > 0 && rl > 0 && l->grid >= 2 * rl && cta_bytes >= FN_AUTO_FWD_WIDE_WS_MIN_CTA_BYTES) {
      *l = w;
      l->grid = min64(w.grid, rw);
    }
  }
  return 1;
}

/* AUTO: congruent rows that are not whole aligned vectors (odd widths, misaligned views: the
 * head-split instances), more than the SMs, where the lean forward cannot hold the row (plain past
 * 4096 slots; the 16-bit fused add past 16384 columns), on clusters: the wide forward's
 * head-split instance where it holds its chunk (plan_forward tries the lean forward first), where
 * AUTO ran the generic forward below the many-rows cuts (FN_AUTO_FWD_WIDE_MANY_*: plain 6000 slots,
 * the fused add 48000 columns, not measured on such rows below them). H200, 2026-12-01 08:18 UTC,
 * bench_modes cold, AUTO then (generic) / forced wide time, two passes, 140-4096 rows, odd widths
 * (tools/bench/results/fwd_wide_hs_h200_2026-12-01): plain bf16 x 33001 / 40001 / 47001
 * 1.08-1.23x; fused bf16 x 18495-47999 1.00-1.20x (140-528 rows 1.00-1.13x, 2048-4096 rows
 * 1.06-1.20x); not the f32 fused add, x 12001 / 16001 1.02-1.14x but x 24001 0.99-1.07x (a tie
 * from 528 rows) and, on an H100 before the wide kernel's stage, 687 x 25445 0.72x (test_select
 * kMeasured). Where the lean forward holds the row it stays (bf16 fused x 12001 / 16001 and f32 x
 * 6001 / 8001: wide 0.69-0.92x). Paired after (08:22 UTC, AUTO before / after): bf16 201 x 34306
 * 1.13x, 2048 x 40001 1.13x, fused 4096 x 24001 1.17x, 776 x 18494 1.05x; f16 288 x 40003 1.17x. */
static int fwd_wide_hs_pays(const ctx *c) {
  return c->congruent && !(c->aligned && c->p->n % c->vec == 0) && c->p->rows > c->d->sm_count &&
         (!c->fused || c->xs == 2) &&
         c->slots >= (c->fused ? FN_AUTO_FWD_ROW_MIN_SLOTS_FUSED : FN_AUTO_FWD_ROW_MIN_SLOTS) &&
         fn_fwd_wide_max_cluster(c->d->cc_major) >= 2;
}

static fusednorm_status plan_forward(const ctx *c, fusednorm_launch *l) {
  const int64_t slots = c->slots;
  switch (c->p->mode) {
    case FUSEDNORM_MODE_ROW_PACKED:
      return fwd_tiny(c, l) || fwd_thread(c, l) || fwd_tile(c, l) || fwd_lanes(c, l) || fwd_packed(c, l) ? FUSEDNORM_OK
                                                                                    : FUSEDNORM_ERR_MODE_UNSUPPORTED;
    case FUSEDNORM_MODE_PERSISTENT: return fwd_persistent(c, l) ? FUSEDNORM_OK : FUSEDNORM_ERR_MODE_UNSUPPORTED;
    case FUSEDNORM_MODE_MULTI_WAVE_CACHED: return fwd_row(c, l) ? FUSEDNORM_OK : FUSEDNORM_ERR_MODE_UNSUPPORTED;
    case FUSEDNORM_MODE_MULTI_WAVE_RELOAD: return fwd_generic(c, l, -1) ? FUSEDNORM_OK : FUSEDNORM_ERR_MODE_UNSUPPORTED;
    case FUSEDNORM_MODE_WIDE:
      return fwd_wide(c, l, fn_fwd_wide_max_cluster(c->d->cc_major) < 2) ? FUSEDNORM_OK : FUSEDNORM_ERR_MODE_UNSUPPORTED;
    default: break;
  }
  /* AUTO. */
  if (fwd_tiny(c, l) || fwd_warp(c, l)) return FUSEDNORM_OK;
  if (slots <= FN_AUTO_ROW_PACKED_FWD_SLOTS && (fwd_thread(c, l) || fwd_tile(c, l) || fwd_lanes(c, l))) return FUSEDNORM_OK;
  /* FN_AUTO_FWD_PIPE_U_ROWS_PER_SM (64 slots: 2 a lane of a 32-lane team, the instance's most) */
  if (!c->fused && slots <= 64 && pipe_u_rows(c) &&
      c->p->rows >= (int64_t)FN_AUTO_FWD_PIPE_U_ROWS_PER_SM * c->d->sm_count && fwd_packed(c, l))
    return FUSEDNORM_OK;
  if (slots <= FN_AUTO_FWD_PERSISTENT_NARROW_SLOTS && fwd_unaligned_row(c, l)) return FUSEDNORM_OK;
  if (slots <= FN_AUTO_ROW_PACKED_FWD_SLOTS && fwd_packed(c, l)) return FUSEDNORM_OK;
  if (!c->fused && slots <= FN_AUTO_FWD_MID_SLOTS && (c->congruent || (c->aligned && c->p->n % c->vec == 0))) {
    if (c->p->rows > (int64_t)FN_AUTO_FWD_MID_PACKED_ROWS_PER_SM * c->d->sm_count ? fwd_lanes(c, l) || fwd_packed(c, l)
                                                                                 : fwd_row(c, l))
      return FUSEDNORM_OK;
  }
  /* Fewer rows than SMs: without clusters FN_AUTO_FWD_WIDE_GRID_*; with them FN_AUTO_FWD_WIDE_GRID_CL_*
   * (the grid sum where the clusters would leave most SMs idle), then FN_AUTO_FWD_WIDE_*. */
  if (fn_fwd_wide_max_cluster(c->d->cc_major) < 2) {
    if (slots >= FN_AUTO_FWD_WIDE_GRID_MIN_SLOTS &&
        (slots >= FN_AUTO_FWD_WIDE_GRID_WIDE_SLOTS ? 3 : 4) * c->p->rows <= c->d->sm_count && fwd_wide(c, l, 1))
      return FUSEDNORM_OK;
  } else if (slots * (c->fused ? 2 : 1) >= FN_AUTO_FWD_WIDE_GRID_CL_MIN_SLOTS &&
             c->p->rows * fn_fwd_wide_max_cluster(c->d->cc_major) * FN_AUTO_FWD_WIDE_GRID_CL_SMS_PER_CTA <=
                 c->d->sm_count &&
             fwd_wide(c, l, 1)) {
    return FUSEDNORM_OK;
  } else if (c->p->rows < c->d->sm_count &&
      (slots >= FN_AUTO_FWD_WIDE_MIN_SLOTS
           ? 2 * c->p->rows < c->d->sm_count || slots >= FN_AUTO_FWD_WIDE_HALF_SMS_MIN_SLOTS
           : c->xs == 2 && slots >= FN_AUTO_FWD_WIDE_FEW_MIN_SLOTS && 2 * c->p->rows < c->d->sm_count &&
                 (!fwd_row(c, l) || (l->unaligned && c->p->rows * FN_AUTO_FWD_WIDE_FEW_U_SMS_PER_ROW <= c->d->sm_count))) &&
      fwd_wide(c, l, 0))
    return FUSEDNORM_OK;
  if (fwd_wide_wr_pays(c) && fwd_wide_wr(c, l)) return FUSEDNORM_OK;
  /* The lean forward at 8 slots a thread where it runs (it led the wide one there), but for the
   * fused add where the wide plan stages its weight (FN_AUTO_FWD_ROW8_*: the staged-weight plan
   * holds the chunk by construction, fwd_wide). */
  if (fwd_row8_ok(c)) {
    if (c->fused && fn_fwd_wide_max_cluster(c->d->cc_major) >= 2 && fwd_wide(c, l, 0) && l->weight_smem)
      return FUSEDNORM_OK;
    if (fwd_row(c, l)) return FUSEDNORM_OK;
  }
  /* Many rows (FN_AUTO_FWD_WIDE_MANY_*), clusters only: a grid barrier a round of rows does not pay. */
  if (c->congruent && c->p->rows > c->d->sm_count &&
      (c->fused ? c->p->n >= (c->aligned && c->p->n % c->vec == 0 ? FN_AUTO_FWD_WIDE_MANY_FUSED_ALIGNED_MIN_COLS
                                                                 : FN_AUTO_FWD_WIDE_MANY_FUSED_MIN_COLS)
                : slots >= FN_AUTO_FWD_WIDE_MANY_MIN_SLOTS) &&
      fn_fwd_wide_max_cluster(c->d->cc_major) >= 2 && fwd_wide(c, l, 0) && fwd_wide_holds(c, l))
    return FUSEDNORM_OK;
  if (slots >= (c->fused ? FN_AUTO_FWD_ROW_MIN_SLOTS_FUSED : FN_AUTO_FWD_ROW_MIN_SLOTS) && fwd_row(c, l))
    return FUSEDNORM_OK;
  /* Head-split rows past the lean forward's reach, more than the SMs (fwd_wide_hs_pays): the wide
   * forward where it holds the chunk, ahead of the generic forward. */
  if (fwd_wide_hs_pays(c) && fwd_wide(c, l, 0) && fwd_wide_holds(c, l)) return FUSEDNORM_OK;
  if (slots <= (c->fused ? FN_AUTO_FWD_PERSISTENT_NARROW_SLOTS_FUSED : FN_AUTO_FWD_PERSISTENT_NARROW_SLOTS))
    return fwd_persistent(c, l) || fwd_generic(c, l, 0) ? FUSEDNORM_OK : FUSEDNORM_ERR_MODE_UNSUPPORTED;
  if (fwd_generic(c, l, -1) && l->slots_per_thread == 0) return FUSEDNORM_OK; /* reload */
  /* Wider (or the L2 too small to reload): persistent, row-pipelined where it fits. */
  return fwd_persistent(c, l) || fwd_generic(c, l, 0) ? FUSEDNORM_OK : FUSEDNORM_ERR_MODE_UNSUPPORTED;
}

/* Backward workspace: `partial_rows` rows of n fp32 partial dw, plus `extra` bytes, plus 16 so
 * that a misaligned workspace can be aligned up. */
static void set_workspace(const ctx *c, fusednorm_launch *l, int64_t partial_rows, int64_t extra) {
  if (!c->p->has_weight || c->p->rows == 0) return;
  l->partial_rows = partial_rows;
  l->workspace_bytes = (size_t)partial_rows * (size_t)c->p->n * sizeof(float) + (size_t)extra + 16;
}

/* Backward, tiny (rmsnorm_tiny.cu): the whole problem in one CTA, a team of fn_tiny_lanes(n)
 * lanes per row holding up to fn_tiny_bwd_rows rows at once, as few rows per team as the
 * instance's launch bound allows, up to FN_AUTO_TINY_BWD_PASSES such rounds; the CTA sums dw
 * itself (fn_tiny_bwd_smem) and writes it: no partial rows, no second launch, no cooperative
 * grid. Any layout. */
static int bwd_tiny(const ctx *c, fusednorm_launch *l) {
  const int64_t n = c->p->n, rows = c->p->rows;
  const int lanes = fn_tiny_lanes(n), cols = fn_tiny_cols(n);
  const int64_t max_teams = fn_tiny_bwd_threads(cols) / lanes;
  int64_t teams, threads, smem;
  if (n > FN_TINY_MAX_N || rows > max_teams * fn_tiny_bwd_rows(cols) * FN_AUTO_TINY_BWD_PASSES) return 0;
  teams = min64(rows, max_teams);
  threads = max64(32, round_up(teams * lanes, 32));
  smem = c->p->has_weight ? fn_tiny_bwd_smem(n, (int)threads) : 0;
  if (!smem_ok(c, smem)) return 0;
  plan_init(c, l, FUSEDNORM_MODE_ROW_PACKED, FUSEDNORM_KERNEL_BWD_TINY, (int)threads);
  l->rows_per_cta = (int)threads / lanes;
  l->slots_per_thread = cols;
  l->smem_bytes = (size_t)smem;
  set_workspace(c, l, 0, 0);
  return 1;
}

/* Backward, a warp a row (rmsnorm_bwd_warp.cu): rows of one stride and FN_BWD_WARP_MIN_N ..
 * FN_BWD_WARP_MAX_N columns, any alignment; FN_BWD_WARP_WARPS warps a CTA on a persistent grid of
 * the CTAs resident at the instance's registers (fn_regs_estimate_bwd_warp), each CTA one partial
 * dw row (its warps combined in shared memory: fn_bwd_warp_smem). */
static int bwd_warp(const ctx *c, fusednorm_launch *l) {
  const int64_t n = c->p->n;
  const int cols = fn_bwd_warp_cols(n);
  const int64_t smem = c->p->has_weight ? fn_bwd_warp_smem(n) : 0;
  if (c->p->row_dims > 1 || n < FN_BWD_WARP_MIN_N || n > FN_BWD_WARP_MAX_N || cols == 0 || !smem_ok(c, smem)) return 0;
  plan_init(c, l, FUSEDNORM_MODE_ROW_PACKED, FUSEDNORM_KERNEL_BWD_WARP, FN_BWD_WARP_THREADS);
  l->rows_per_cta = FN_BWD_WARP_WARPS;
  l->slots_per_thread = cols; /* the instance: a lane's columns */
  l->smem_bytes = (size_t)smem;
  l->grid = grid_of(ceil_div(c->p->rows, FN_BWD_WARP_WARPS),
                    (int64_t)c->d->sm_count * ctas_per_sm(c->d, FN_BWD_WARP_THREADS,
                                                          fn_regs_estimate_bwd_warp(c->xs, c->fused, cols), smem));
  set_workspace(c, l, l->grid, 0);
  return 1;
}

/* AUTO: the warp backward where it measured faster (FN_AUTO_BWD_WARP_*); bwd_warp says where it
 * runs. */
static int bwd_warp_pays(const ctx *c) {
  const int whole = c->aligned && c->p->n % c->vec == 0;
  if (c->p->rows < (int64_t)FN_AUTO_BWD_WARP_ROWS_PER_SM * c->d->sm_count) return 0;
  if (whole) return c->xs == 4 && c->p->n >= FN_AUTO_BWD_WARP_F32_ALIGNED_MIN_N;
  return c->xs == 4 || c->p->n >= FN_AUTO_BWD_WARP_B16_MIN_N;
}

/* Backward, row-packed: teams of <= 32 lanes with one slot per lane (<= 32 slots) or, f32 only,
 * two (33-64 slots), the row-pipelined kernel; each CTA sums its teams' dw in shared memory
 * (every group's sums + compensations, fn_bwd_pipe_smem). */
static int bwd_packed(const ctx *c, fusednorm_launch *l) {
  const int spt = c->slots > 32 ? 2 : 1;
  const int team = pow2_ceil(ceil_div(c->slots, spt));
  if (c->slots > 32 * (c->xs == 4 ? 2 : 1)) return 0;
  plan_init(c, l, FUSEDNORM_MODE_ROW_PACKED, FUSEDNORM_KERNEL_BWD_PIPE, FN_ROW_PACKED_THREADS);
  l->rows_per_cta = FN_ROW_PACKED_THREADS / team;
  l->slots_per_thread = spt;
  l->smem_bytes = c->p->has_weight ? (size_t)fn_bwd_pipe_smem(c->p->n) : 0;
  l->grid = grid_of(ceil_div(c->p->rows, l->rows_per_cta),
                    (int64_t)c->d->sm_count * ctas_per_sm(c->d, FN_ROW_PACKED_THREADS,
                                                          fn_regs_estimate_bwd_pipe(c->xs, c->fused, spt),
                                                          (int64_t)l->smem_bytes));
  set_workspace(c, l, l->grid, 0);
  return 1;
}

/* AUTO: enough rows for the row-packed backward's per-launch cost of combining dw
 * (FN_AUTO_PACKED_BWD_ROWS_PER_SM); without a weight there is no dw and no combine. */
static int packed_bwd_pays(const ctx *c) {
  if (!c->p->has_weight) return 1;
  return c->p->rows >= (int64_t)FN_AUTO_PACKED_BWD_ROWS_PER_SM * c->d->sm_count;
}

/* Resident CTAs per SM that a generic-sized backward launch really has (its grid may not fill
 * every SM). */
static int64_t bwd_resident(const ctx *c, const fusednorm_launch *l, int cache) {
  const int64_t per_sm = ceil_div(l->grid, c->d->sm_count);
  const int occ = ctas_per_sm(c->d, l->block_threads, fn_regs_estimate(1, cache, c->xs), 0);
  return min64(occ, max64(per_sm, 1));
}

/* Shared memory of a generic-sized backward CTA over a chunk of `chunk` columns: the streamed
 * columns' dw (up to FN_DW_SMEM_MAX), or, where the whole chunk is cached, the fp32 effective
 * weight if it costs no residency. */
static void bwd_smem(const ctx *c, fusednorm_launch *l, int cache) {
  const int64_t cached_cols = (int64_t)cache * l->block_threads * c->vec;
  if (!c->p->has_weight) return; /* (dw_smem is moot without a weight) */
  if (cached_cols < l->chunk) {
    const int64_t bytes = (l->chunk - cached_cols) * (int64_t)sizeof(float);
    l->dw_smem = bytes <= FN_DW_SMEM_MAX && smem_ok(c, bytes);
    l->smem_bytes = l->dw_smem ? (size_t)bytes : 0;
  } else {
    const int64_t bytes = round_up(l->chunk, c->vec) * (int64_t)sizeof(float);
    const int64_t resident = bwd_resident(c, l, cache);
    l->dw_smem = 1;
    if (resident * (bytes + FN_SMEM_RESERVE_PER_CTA) <= (int64_t)c->d->smem_per_sm && smem_ok(c, bytes)) {
      l->weight_smem = 1;
      l->smem_bytes = (size_t)bytes;
    }
  }
}

/* Backward with a persistent grid, one row per CTA at a time, FN_TARGET_CACHE slots per thread
 * cached (the rest streamed): the lean kernel where it can run (lean != 0: aligned rows, n a
 * multiple of the vector width, a weight staged in shared memory, the whole row in 1, 2 or 4
 * slots), else the generic one. `want`: the family asked for (FUSEDNORM_KERNEL_COUNT_: either,
 * as AUTO). */
static int bwd_persistent(const ctx *c, fusednorm_launch *l, fusednorm_kernel want) {
  int threads = cached_threads(c->slots, 1), cache, lean;
  /* Fewer rows than SMs: each CTA alone on its SM, where a row's time is one thread's chain of
   * dependent instructions (ncu, H200 2026-11-27, bf16 8 x 4096 cold: 128 threads x 4 slots ran
   * 1,900 instructions a warp, 8.0 us, where Inductor's two kernels took 3.3 + 3.1), so one slot
   * per thread up to FN_BWD_FEW_ROWS_MAX_THREADS (H200 2026-11-27 16:55 UTC, AUTO backward, 1 /
   * 8 / 43 / 100 rows x n 384-8192, bf16 and f32, plain and fused: 1.175x cold / 1.170x hot over
   * the 112 cases, e.g. bf16 8 x 1750 12.8 -> 7.8 us, 43 x 2746 14.9 -> 10.7, 1 x 6732 12.0 ->
   * 8.5; at most 512 threads 1.149x; worst f32 8 x 4096 8.6 -> 7.7 (512: 7.4);
   * tools/bench/results/few_rows_bwd_h200_2026-11-27). */
  if (c->p->rows < c->d->sm_count) {
    const int64_t t1 = max64(64, round_up(c->slots, 32));
    if (t1 <= FN_BWD_FEW_ROWS_MAX_THREADS) threads = (int)t1;
  }
  cache = generic_cache(1, c->slots, threads);
  plan_init(c, l, FUSEDNORM_MODE_MULTI_WAVE_RELOAD, FUSEDNORM_KERNEL_BWD_GENERIC, threads);
  l->slots_per_thread = cache;
  l->grid = grid_of(c->p->rows, (int64_t)c->d->sm_count * ctas_per_sm(c->d, threads, fn_regs_estimate(1, cache, c->xs), 0));
  bwd_smem(c, l, cache);
  lean = l->weight_smem && c->aligned && c->p->n % c->vec == 0;
  /* The head-split instance (congruent rows, or n not a multiple of the vector): a row's columns
   * move with its head, so dw accumulates in shared memory beside the staged weight (both
   * padded: fn_u_bwd_smem), where that costs no residency. */
  if (!lean && l->weight_smem && c->congruent) {
    const int64_t bytes = fn_u_bwd_smem(c->p->n, c->vec);
    if (bwd_resident(c, l, cache) * (bytes + FN_SMEM_RESERVE_PER_CTA) <= (int64_t)c->d->smem_per_sm &&
        smem_ok(c, bytes)) {
      lean = 2; /* (applied below, once the generic kernel is not what was asked for) */
    }
  }
  if (want == FUSEDNORM_KERNEL_BWD_ROW && !lean) return 0;
  if (lean && want != FUSEDNORM_KERNEL_BWD_GENERIC) {
    l->mode = FUSEDNORM_MODE_PERSISTENT;
    l->kernel = FUSEDNORM_KERNEL_BWD_ROW;
    if (lean == 2) {
      l->unaligned = 1;
      l->smem_bytes = (size_t)fn_u_bwd_smem(c->p->n, c->vec);
      if (c->xs == 2) /* 16-bit rows: the grid by the head-split kernels' own registers */
        l->grid = grid_of(c->p->rows, (int64_t)c->d->sm_count * ctas_per_sm(c->d, threads,
                                                                            fn_regs_estimate_bwd_row_u16(cache, c->fused),
                                                                            (int64_t)l->smem_bytes));
    } else if (c->xs == 2) { /* 16-bit rows: the grid by the lean kernel's own registers */
      l->narrow = cache == 1 && threads == 64 && c->d->max_ctas_per_sm >= FN_BWD_ROW_NARROW_MIN_CTAS &&
                  c->p->rows >= (int64_t)FN_AUTO_BWD_ROW_NARROW_ROWS_PER_SM * c->d->sm_count;
      l->grid = grid_of(c->p->rows,
                        (int64_t)c->d->sm_count *
                            ctas_per_sm(c->d, threads,
                                        l->narrow ? FN_BWD_ROW_NARROW_REGS : fn_regs_estimate_bwd_row16(cache, c->fused),
                                        (int64_t)l->smem_bytes));
    }
  }
  set_workspace(c, l, l->grid, 0);
  return 1;
}

/* The row counts AUTO takes the lean backward at 8 slots a thread for (FN_AUTO_BWD_ROW8_*): f32
 * plain rows from FN_AUTO_BWD_ROW8_F32_ROWS_PER_SM an SM (not the fused add); 16-bit rows from
 * FN_AUTO_BWD_ROW8_16_ROWS_PER_SM an SM up to FN_AUTO_BWD_ROW8_16_NARROW_SLOTS slots, from
 * FN_AUTO_BWD_ROW8_16_WIDE_ROWS_PER_SM past them, the fused add there only below
 * FN_AUTO_BWD_ROW8_16_FUSED_SPLIT_ROWS_PER_SM. */
static int bwd_row8_rows_ok(const ctx *c) {
  const int64_t rows = c->p->rows, sm = c->d->sm_count;
  const int few_slots = c->slots <= FN_AUTO_BWD_ROW8_16_NARROW_SLOTS; /* (not the plan's `narrow`) */
  if (c->xs == 4) return !c->fused && rows >= (int64_t)FN_AUTO_BWD_ROW8_F32_ROWS_PER_SM * sm;
  if (c->fused && !few_slots && rows >= (int64_t)FN_AUTO_BWD_ROW8_16_FUSED_SPLIT_ROWS_PER_SM * sm) return 0;
  return rows >= (int64_t)(few_slots ? FN_AUTO_BWD_ROW8_16_ROWS_PER_SM : FN_AUTO_BWD_ROW8_16_WIDE_ROWS_PER_SM) * sm;
}

/* Backward, the lean kernel at 8 slots a thread (rmsnorm_bwd_row.cu, FN_BWD_ROW8_*): rows past
 * the S <= 4 instances' FN_MAX_CACHED_SLOTS, up to 8 x FN_BWD_ROW8_MAX_THREADS slots, aligned, n
 * a multiple of the vector, a weight (staged in shared memory, as fp32 or where only that fits as
 * its raw 16 bits, and dw there too where FN_BWD_ROW8_DW_SMEM says: fn_bwd_row8_smem); one CTA an
 * SM, the persistent grid. */
static int bwd_row8(const ctx *c, fusednorm_launch *l) {
  const int64_t threads = max64(64, round_up(ceil_div(c->slots, 8), 32));
  /* the fp32 stage, else (16-bit rows, a 16-bit weight) the raw 16 bits: fn_bwd_row8_smem */
  const int w16 = !smem_ok(c, fn_bwd_row8_smem(c->p->n, 0, c->xs, c->fused)) && c->xs == 2 && !c->w32;
  const int64_t smem = fn_bwd_row8_smem(c->p->n, w16, c->xs, c->fused);
  if (!c->p->has_weight || !c->aligned || c->p->n % c->vec != 0 ||
      c->slots <= FN_MAX_CACHED_SLOTS || threads > FN_BWD_ROW8_MAX_THREADS || !smem_ok(c, smem))
    return 0;
  plan_init(c, l, FUSEDNORM_MODE_PERSISTENT, FUSEDNORM_KERNEL_BWD_ROW, (int)threads);
  l->slots_per_thread = 8;
  l->grid = grid_of(c->p->rows, (int64_t)c->d->sm_count * ctas_per_sm(c->d, (int)threads, FN_BWD_ROW8_REGS, smem));
  l->weight_smem = w16 ? 2 : 1;
  l->dw_smem = 1;
  l->smem_bytes = (size_t)smem;
  set_workspace(c, l, l->grid, 0);
  return 1;
}

/* Backward, the split-row kernel (rmsnorm_bwd_wide.cu; geometry: fn_split_bwd). `any_width`: also
 * rows of at most FN_SPLIT_AUTO_MIN_SLOTS slots under AUTO. */
static int bwd_split(const ctx *c, fusednorm_launch *l, int any_width) {
  fn_split_geom g;
  const int head_split = c->congruent && !c->aligned;
  if (!fn_split_bwd(c->p->rows, c->p->n, c->p->x_dtype, c->p->has_weight, c->fused,
                    c->p->mode == FUSEDNORM_MODE_AUTO && !any_width, head_split, c->d, &g))
    return 0;
  plan_init(c, l, FUSEDNORM_MODE_WIDE, FUSEDNORM_KERNEL_BWD_SPLIT, g.threads);
  l->ctas_per_row = g.gc;
  l->grid = (int64_t)g.gc * g.gr;
  l->slots_per_thread = g.spt;
  l->chunk = g.chunk;
  l->smem_bytes = g.smem;
  l->stages = g.stages;
  l->lookahead = g.lookahead;
  l->ds_direct = g.ds_direct;
  l->unaligned = head_split;
  set_workspace(c, l, g.gr, fn_split_extra_bytes(c->p->rows, &g));
  return 1;
}

/* Slots one CTA of the cluster backward holds: 512 threads x CACHE 4. bwd 2048 x 32768: cluster
 * 2 of 2048 slots 1710 GB/s vs cluster 4 of 1024 slots (1024 x CACHE 1) 806 GB/s. */
#define FN_WIDE_SLOTS_PER_CTA 2048

/* Backward, the generic kernel in a thread-block cluster (compute capability >= 9.0): enough CTAs
 * per row that each slice fits one CTA's register cache, at least 2, at most FN_MAX_CLUSTER
 * (slices beyond the cache are streamed); the CTAs' partial sums meet in distributed shared
 * memory. */
static int bwd_cluster(const ctx *c, fusednorm_launch *l) {
  int cl = pow2_ceil(ceil_div(c->slots, FN_WIDE_SLOTS_PER_CTA)), threads, cache;
  int64_t chunk_slots, units;
  if (c->d->cc_major < 9) return 0;
  if (cl < 2) cl = 2;
  if (cl > FN_MAX_CLUSTER) cl = FN_MAX_CLUSTER;
  while (cl > 1 && c->slots < cl) cl >>= 1; /* every CTA gets at least one slot */
  if (cl < 2) return 0;
  chunk_slots = ceil_div(fn_cluster_chunk(c->p->n, cl, c->vec), c->vec);
  threads = cached_threads(chunk_slots, 1);
  cache = generic_cache(1, chunk_slots, threads);
  plan_init(c, l, FUSEDNORM_MODE_WIDE, FUSEDNORM_KERNEL_BWD_GENERIC, threads);
  l->ctas_per_row = cl;
  l->cluster = cl;
  l->chunk = fn_cluster_chunk(c->p->n, cl, c->vec);
  l->slots_per_thread = cache;
  units = max64(1, cluster_resident(c->d, cl, ctas_per_sm(c->d, threads, fn_regs_estimate(1, cache, c->xs), 0)) / cl);
  units = min64(min64(c->p->rows, units), INT_MAX / cl);
  if (units < 1) units = 1;
  l->grid = units * cl;
  bwd_smem(c, l, cache);
  set_workspace(c, l, units, 0);
  return 1;
}

/* AUTO: a grid of at most FN_DW_IN_KERNEL_MAX_PARTIALS CTAs (few rows, small problems) sums dw
 * in the backward kernel itself (plan dw_in_kernel): there the second launch (dw_reduce's ~2 us
 * and the gap before it) is a large part of the time. Where dw_reduce is a programmatic dependent
 * launch (FN_DW_REDUCE_DEPENDENT) only a grid of one CTA does: H200, 2026-11-29, bench.py cold,
 * paired, us, in the kernel vs dw_reduce's dependent launch: 2-32 CTAs 1.03-1.19x slower in the
 * kernel (bf16 2 x 630 7.39 vs 6.26, 4 x 2048 7.48 vs 6.30, 32 x 8192 11.89 vs 11.08; 3 x 9000
 * a tie), one CTA of <= 8 columns a thread 1.15x faster (1 x 1024 5.14 vs 5.94), one CTA of 32
 * columns a thread 1.15x slower (bf16 1 x 16384 12.55 vs 10.95) (kernels/RESULTS.md, "AUTO's
 * backward after the dependent launch"). */
static fusednorm_status with_dw_in_kernel(const ctx *c, fusednorm_launch *l) {
  const int dependent = FN_DW_REDUCE_DEPENDENT(c->d->cc_major);
  /* without the dependent launch one CTA writes its row as dw at any width; otherwise a few CTAs
   * (one with it) of at most FN_DW_IN_KERNEL_MAX_COLS_PER_THREAD columns a thread */
  const int one_cta = l->grid == 1 && !dependent;
  const int few = l->grid <= (dependent ? 1 : FN_DW_IN_KERNEL_MAX_PARTIALS) &&
                  c->p->n <= FN_DW_IN_KERNEL_MAX_COLS_PER_THREAD * l->grid * l->block_threads;
  if (c->p->has_weight && (l->kernel == FUSEDNORM_KERNEL_BWD_ROW || l->kernel == FUSEDNORM_KERNEL_BWD_PIPE) &&
      (one_cta || few))
    l->dw_in_kernel = 1;
  return FUSEDNORM_OK;
}

static fusednorm_status plan_backward(const ctx *c, fusednorm_launch *l) {
  switch (c->p->mode) {
    case FUSEDNORM_MODE_ROW_PACKED:
      return bwd_tiny(c, l) || bwd_packed(c, l) ? FUSEDNORM_OK : FUSEDNORM_ERR_MODE_UNSUPPORTED;
    case FUSEDNORM_MODE_PERSISTENT:
      return bwd_persistent(c, l, FUSEDNORM_KERNEL_BWD_ROW) || bwd_row8(c, l) ? FUSEDNORM_OK
                                                                              : FUSEDNORM_ERR_MODE_UNSUPPORTED;
    case FUSEDNORM_MODE_MULTI_WAVE_RELOAD:
      return bwd_persistent(c, l, FUSEDNORM_KERNEL_BWD_GENERIC) ? FUSEDNORM_OK : FUSEDNORM_ERR_MODE_UNSUPPORTED;
    case FUSEDNORM_MODE_MULTI_WAVE_CACHED: return FUSEDNORM_ERR_MODE_UNSUPPORTED; /* forward only */
    case FUSEDNORM_MODE_WIDE:
      return bwd_split(c, l, 0) || bwd_cluster(c, l) ? FUSEDNORM_OK : FUSEDNORM_ERR_MODE_UNSUPPORTED;
    default: break;
  }
  /* AUTO. */
  if (bwd_tiny(c, l)) return FUSEDNORM_OK;
  /* (from FN_AUTO_BWD_WARP_ROWS_PER_SM rows an SM its grid is past with_dw_in_kernel's few CTAs) */
  if (bwd_warp_pays(c) && bwd_warp(c, l)) return FUSEDNORM_OK;
  if (c->slots <= FN_AUTO_ROW_PACKED_BWD_SLOTS && packed_bwd_pays(c) && bwd_packed(c, l)) return with_dw_in_kernel(c, l);
  /* (rows of one stride of these widths and counts took the warp backward above: N-d rows) */
  if (c->xs == 4 && !(c->aligned && c->p->n % c->vec == 0) &&
      c->p->rows >= (int64_t)FN_AUTO_PACKED_BWD2_ROWS_PER_SM * c->d->sm_count && bwd_packed(c, l))
    return with_dw_in_kernel(c, l);
  if (c->slots <= FN_AUTO_BWD_CACHED_SLOTS)
    return bwd_persistent(c, l, FUSEDNORM_KERNEL_COUNT_) ? with_dw_in_kernel(c, l) : FUSEDNORM_ERR_MODE_UNSUPPORTED;
  /* Wider than one CTA's registers: f32 aligned rows, many of them, the split-row kernel at any
   * width (FN_AUTO_BWD_F32_SPLIT_*); few rows, the split-row kernel at any width
   * (FN_AUTO_BWD_SPLIT_FEW_*); else split-row beyond FN_SPLIT_AUTO_MIN_SLOTS, the cluster kernel
   * below it; without clusters (compute capability < 9.0), the persistent generic kernel with
   * the columns beyond its registers streamed. But first, aligned rows of up to 4096 slots (f32
   * plain; 16-bit plain and fused, from two rows an SM past 3072, the fused add there below
   * FN_AUTO_BWD_ROW8_16_FUSED_SPLIT_ROWS_PER_SM rows an SM): the lean kernel at 8 slots a thread
   * (FN_AUTO_BWD_ROW8_*; measured on the H200 only, taken on every device where its shared memory
   * fits: the register-cached row against a re-read one). */
  if (bwd_row8_rows_ok(c) && bwd_row8(c, l))
    return with_dw_in_kernel(c, l);
  if (c->p->has_weight && c->xs == 4 && c->aligned && c->p->n % c->vec == 0 &&
      c->slots <= FN_AUTO_BWD_F32_SPLIT_MAX_SLOTS &&
      c->p->rows >= (int64_t)FN_AUTO_BWD_F32_SPLIT_ROWS_PER_SM * c->d->sm_count &&
      ((bwd_split(c, l, 1) && l->stages >= FN_AUTO_BWD_F32_SPLIT_MIN_STAGES) ||
       bwd_persistent(c, l, FUSEDNORM_KERNEL_BWD_GENERIC)))
    return FUSEDNORM_OK;
  if (c->p->rows <= (c->xs == 2 && c->aligned ? (int64_t)c->d->sm_count * FN_AUTO_BWD_SPLIT_FEW_ROWS_PER_SM16
                                              : c->d->sm_count / FN_AUTO_BWD_SPLIT_FEW_SMS_PER_ROW) &&
      bwd_split(c, l, 1))
    return FUSEDNORM_OK;
  /* 16-bit rows below the split-row kernel's AUTO width, where it would be the cluster kernel
   * (FN_AUTO_BWD_SPLIT16_*). */
  if (c->xs == 2 && c->congruent && c->d->cc_major >= 9 &&
      (!(c->aligned && c->p->n % c->vec == 0) ||
       (c->fused && 2 * c->p->rows >= (int64_t)FN_AUTO_BWD_SPLIT16_FUSED_HALF_ROWS_PER_SM * c->d->sm_count)) &&
      bwd_split(c, l, 1))
    return FUSEDNORM_OK;
  if (bwd_split(c, l, 0) || bwd_cluster(c, l)) return FUSEDNORM_OK;
  return bwd_persistent(c, l, FUSEDNORM_KERNEL_BWD_GENERIC) ? FUSEDNORM_OK : FUSEDNORM_ERR_MODE_UNSUPPORTED;
}

fusednorm_status fusednorm_select_launch(const fusednorm_problem *p, int backward, const fusednorm_device_info *dev,
                                         const fusednorm_layout *layout, fusednorm_launch *out) {
  fusednorm_status st;
  ctx c;
  if (p == NULL || dev == NULL || layout == NULL || out == NULL) return FUSEDNORM_ERR_NULL_POINTER;
  st = fn_validate_problem(p);
  if (st != FUSEDNORM_OK) return st;
  if (dev->sm_count < 1 || dev->max_threads_per_sm < 1024 || dev->max_ctas_per_sm < 1 || dev->regs_per_sm < 65536 ||
      dev->smem_per_block_optin < 48 * 1024 || dev->smem_per_sm < dev->smem_per_block_optin)
    return FUSEDNORM_ERR_NO_DEVICE;
  for (int per = 1; per <= 4; ++per)
    for (int k = 0; k < 4; ++k)
      if (dev->max_clusters[per - 1][k] < 0 || (int64_t)dev->max_clusters[per - 1][k] * (2 << k) > (int64_t)dev->sm_count * per)
        return FUSEDNORM_ERR_NO_DEVICE;
  if (p->n > FN_MAX_N) return FUSEDNORM_ERR_MODE_UNSUPPORTED;
  c.p = p;
  c.d = dev;
  c.backward = backward != 0;
  c.aligned = layout->aligned16 != 0;
  c.congruent = c.aligned || layout->congruent16 != 0;
  c.dense = layout->dense != 0;
  c.align = layout->align_bytes > 0 ? layout->align_bytes : c.aligned ? 16 : 1;
  c.fused = p->has_residual != 0;
  c.w32 = p->has_weight && p->w_dtype == FUSEDNORM_F32;
  c.xs = (int)fusednorm_dtype_size(p->x_dtype);
  c.vec = fn_vec_elems(p->x_dtype);
  c.slots = ceil_div(p->n, c.vec);
  if (!c.backward) return plan_forward(&c, out);
  st = plan_backward(&c, out);
  /* AUTO's split-row backward of one row group (partial_rows 1: one row, or rows each CTA walks
   * over its own chunk): each CTA's chunk of dw is its own, written by the kernel in the weight's
   * dtype, not as a partial row that dw_reduce copies in a second launch
   * (the same bits): H200, bench_modes, cold, bf16 1 x 353166 16.4 us against 21.1, 1 x 1000000
   * 23.1 against 31.6 (kernels/RESULTS.md). With more row groups a chunk has several partial
   * rows; their sum by the chunk's last CTA to finish measured 0.64-0.88x of dw_reduce's
   * second launch (2 x 260444, 16 x 30000: dw_reduce spreads it over every SM), so not that.
   * Forced WIDE keeps the two launches: test_cuda compares them. */
  if (st == FUSEDNORM_OK && p->mode == FUSEDNORM_MODE_AUTO && p->has_weight &&
      out->kernel == FUSEDNORM_KERNEL_BWD_SPLIT && out->partial_rows == 1)
    out->dw_in_kernel = 1;
  return st;
}

fusednorm_status fusednorm_select_workspace(const fusednorm_problem *p, const fusednorm_device_info *dev,
                                            size_t *bytes) {
  static const fusednorm_layout kLayouts[3] = {{1, 1, 0, 16}, {0, 1, 0, 0}, {0, 0, 0, 0}}; /* (density: the forward's only) */
  int i;
  if (bytes == NULL) return FUSEDNORM_ERR_NULL_POINTER;
  *bytes = 0;
  for (i = 0; i < 3; ++i) {
    fusednorm_launch l;
    const fusednorm_status st = fusednorm_select_launch(p, 1, dev, &kLayouts[i], &l);
    if (st != FUSEDNORM_OK) {
      /* a forced mode that only some layouts support: the others' workspace */
      if (st == FUSEDNORM_ERR_MODE_UNSUPPORTED && i > 0) continue;
      return st;
    }
    if (l.workspace_bytes > *bytes) *bytes = l.workspace_bytes;
  }
  return FUSEDNORM_OK;
}
