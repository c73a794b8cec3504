/*
 * selfcheck — every variant over a built-in shape suite, on the GPU when one is visible (else the
 * CPU backend), judged against the float64 reference with the accuracy rules. Prints a table
 * (units row, OK/FAILED footer). Exit 0 all pass, 1 a check failed, 2 usage.
 *
 *   selfcheck [--device auto|cuda|cpu] [--seed N]      (--key=value works too; --help)
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/include/fusednorm.h"
#include "kernels/ref/fusednorm_ref.h"

static int use_cuda;

/* ---- one allocation on the chosen backend ---------------------------------------------------- */
static void *dev_alloc(size_t bytes) {
  void *p = NULL;
  if (!bytes) bytes = 1;
  if (use_cuda) return cudaMalloc(&p, bytes) == cudaSuccess ? p : NULL;
  return malloc(bytes);
}
static void dev_free(void *p) {
  if (use_cuda) cudaFree(p);
  else free(p);
}
static int to_dev(void *d, const void *h, size_t bytes) {
  if (use_cuda) return cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice) == cudaSuccess;
  memcpy(d, h, bytes);
  return 1;
}
static int to_host(void *h, const void *d, size_t bytes) {
  if (use_cuda) return cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
  memcpy(h, d, bytes);
  return 1;
}
static void poison(void *d, size_t bytes) {
  if (use_cuda) cudaMemset(d, 0xff, bytes);
  else memset(d, 0xff, bytes);
}

static uint64_t rng = 1;
static double rnd(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return ((double)(rng >> 11) * 0x1p-53 + (double)((rng * 0x9e3779b97f4a7c15ull) >> 11) * 0x1p-53 - 1.0) * 2.0;
}

typedef struct { const char *name; int residual, weight; fusednorm_casting cast; float offset; } variant;
static const variant kVariants[] = {
    {"plain", 0, 1, FUSEDNORM_CAST_FP32, 0.0f}, {"fused-add", 1, 1, FUSEDNORM_CAST_FP32, 0.0f},
    {"llama", 0, 1, FUSEDNORM_CAST_LLAMA, 0.0f}, {"gemma(1+w)", 1, 1, FUSEDNORM_CAST_GEMMA, 1.0f},
    {"no-weight", 0, 0, FUSEDNORM_CAST_FP32, 0.0f}};

/* Runs one case; prints a table row; returns 1 on pass. */
static int run(int64_t M, int64_t N, fusednorm_dtype xd, fusednorm_dtype wd, const variant *v) {
  fusednorm_problem p = fusednorm_problem_init(M, N, xd, wd);
  p.has_residual = v->residual, p.has_weight = v->weight, p.casting = v->cast, p.offset = v->offset;
  size_t xe = fusednorm_dtype_size(xd), we = fusednorm_dtype_size(wd), mn = (size_t)M * N;
  void *hx = malloc(mn * xe), *hr = malloc(mn * xe), *hw = malloc(N * we), *hdy = malloc(mn * xe);
  void *hy = malloc(mn * xe), *hro = malloc(mn * xe), *hdx = malloc(mn * xe), *hdw = malloc(N * we);
  void *ny = malloc(mn * xe), *nro = malloc(mn * xe), *ndx = malloc(mn * xe), *ndw = malloc(N * we);
  float *hrstd = malloc(M * 4), *nrstd = malloc(M * 4);
  double *yref = malloc(mn * 8), *dxref = malloc(mn * 8), *dwref = malloc(N * 8);
  void *hs[] = {hx, hr, hw, hdy, hy, hro, hdx, hdw, ny, nro, ndx, ndw, hrstd, nrstd, yref, dxref, dwref};
  int host_ok = 1;
  for (size_t k = 0; k < sizeof hs / sizeof *hs; ++k) host_ok &= hs[k] != NULL;
  if (!host_ok) {
    printf("%5" PRId64 "x%-7" PRId64 " %-4s/%-4s %-11s  out of host memory\n", M, N,
           fusednorm_dtype_name(xd), fusednorm_dtype_name(wd), v->name);
    for (size_t k = 0; k < sizeof hs / sizeof *hs; ++k) free(hs[k]);
    return 0;
  }
  for (size_t i = 0; i < mn; ++i) {
    fusednorm_store(hx, xd, i, rnd() * 2.0);
    fusednorm_store(hr, xd, i, rnd());
    fusednorm_store(hdy, xd, i, rnd());
  }
  for (int64_t j = 0; j < N; ++j) fusednorm_store(hw, wd, j, (v->offset ? 0.0 : 1.0) + 0.5 * rnd());
  void *dx_ = dev_alloc(mn * xe), *dr = dev_alloc(mn * xe), *dw_ = dev_alloc(N * we);
  void *ddy = dev_alloc(mn * xe), *dy_ = dev_alloc(mn * xe), *dro = dev_alloc(mn * xe);
  void *ddx = dev_alloc(mn * xe), *ddw = dev_alloc(N * we), *drstd = dev_alloc(M * 4);
  size_t wsb = 0;
  fusednorm_status st = use_cuda ? fusednorm_backward_workspace_size_cuda(&p, -1, &wsb)
                                 : fusednorm_backward_workspace_size_cpu(&p, &wsb);
  void *ws = dev_alloc(wsb);
  void *ds[] = {dx_, dr, dw_, ddy, dy_, dro, ddx, ddw, drstd, ws};
  int ok = st == FUSEDNORM_OK;
  for (size_t k = 0; k < sizeof ds / sizeof *ds; ++k) ok &= ds[k] != NULL;
  char verdict[400] = "";
  if (!ok)
    snprintf(verdict, sizeof verdict, "%s", st != FUSEDNORM_OK ? fusednorm_status_string(st)
                                                               : "out of device memory");
  if (ok) {
    to_dev(dx_, hx, mn * xe), to_dev(dr, hr, mn * xe), to_dev(dw_, hw, N * we);
    to_dev(ddy, hdy, mn * xe);
    poison(dy_, mn * xe), poison(dro, mn * xe), poison(ddx, mn * xe), poison(ddw, N * we);
    poison(drstd, M * 4);
    fusednorm_fwd_args fa = {dx_, N, v->residual ? dr : NULL, N, v->weight ? dw_ : NULL, dy_, N,
                             v->residual ? dro : NULL, N, drstd, {0}, {0}, {0}, {0}};
    st = use_cuda ? fusednorm_forward_cuda(&p, &fa, 0) : fusednorm_forward_cpu(&p, &fa);
    fusednorm_bwd_args ba = {ddy, N, v->residual ? dro : dx_, N, v->residual ? ddy : NULL, N,
                             v->weight ? dw_ : NULL, drstd, ddx, N, v->weight ? ddw : NULL, ws, wsb, {0}, {0}, {0}, {0}};
    if (st == FUSEDNORM_OK)
      st = use_cuda ? fusednorm_backward_cuda(&p, &ba, 0) : fusednorm_backward_cpu(&p, &ba);
    if (use_cuda && st == FUSEDNORM_OK && cudaDeviceSynchronize() != cudaSuccess) st = FUSEDNORM_ERR_CUDA;
    if (st != FUSEDNORM_OK) {
      snprintf(verdict, sizeof verdict, "%s %s", fusednorm_status_string(st),
               use_cuda ? fusednorm_cuda_error_string() : "");
      ok = 0;
    }
  }
  fusednorm_err_stats sy, sny, sdx, sndx, sdw, sndw;
  fusednorm_err_stats_clear(&sy), fusednorm_err_stats_clear(&sny), fusednorm_err_stats_clear(&sdx);
  fusednorm_err_stats_clear(&sndx), fusednorm_err_stats_clear(&sdw), fusednorm_err_stats_clear(&sndw);
  if (ok) {
    to_host(hy, dy_, mn * xe), to_host(hro, dro, mn * xe), to_host(hdx, ddx, mn * xe);
    to_host(hdw, ddw, N * we), to_host(hrstd, drstd, M * 4);
    fusednorm_fwd_args fa = {hx, N, hr, N, hw, hy, N, hro, N, hrstd, {0}, {0}, {0}, {0}};
    if (!v->residual) fa.residual = fa.residual_out = NULL;
    fusednorm_ref_forward(&p, &fa, yref, NULL, NULL);
    fusednorm_fwd_args na = fa;
    na.y = ny, na.residual_out = v->residual ? nro : NULL, na.rstd = nrstd;
    fusednorm_naive_forward(&p, &na);
    fusednorm_bwd_args ba = {hdy, N, v->residual ? hro : hx, N, v->residual ? hdy : NULL, N, hw,
                             hrstd, hdx, N, v->weight ? hdw : NULL, NULL, 0, {0}, {0}, {0}, {0}};
    fusednorm_ref_backward(&p, &ba, dxref, v->weight ? dwref : NULL);
    fusednorm_bwd_args nb = ba;
    nb.dx = ndx, nb.dw = v->weight ? ndw : NULL;
    fusednorm_naive_backward(&p, &nb);
    fusednorm_err_stats_add(&sy, hy, xd, N, yref, M, N, 0);
    fusednorm_err_stats_add(&sny, ny, xd, N, yref, M, N, 0);
    fusednorm_err_stats_add(&sdx, hdx, xd, N, dxref, M, N, 0);
    fusednorm_err_stats_add(&sndx, ndx, xd, N, dxref, M, N, 0);
    char why[3][256] = {"", "", ""};
    int oky = fusednorm_rule_y(&p, &sy, &sny, why[0], 256);
    int okx = fusednorm_rule_dx(&p, &sdx, &sndx, why[1], 256);
    int okw = 1;
    if (v->weight) {
      fusednorm_err_stats_add(&sdw, hdw, wd, N, dwref, 1, N, 0);
      fusednorm_err_stats_add(&sndw, ndw, wd, N, dwref, 1, N, 0);
      okw = fusednorm_rule_dw(&p, &sdw, &sndw, why[2], 256);
    }
    ok = oky && okx && okw;
    snprintf(verdict, sizeof verdict, "%s", ok ? "OK" : !oky ? why[0] : !okx ? why[1] : why[2]);
  }
  int64_t fin = sdx.ulp_hist[0] + sdx.ulp_hist[1] + sdx.ulp_hist[2] + sdx.ulp_hist[3];
  char dwcol[32] = "-";
  if (v->weight) snprintf(dwcol, sizeof dwcol, "%.2e", fusednorm_err_stats_rel_l2(&sdw));
  printf("%5" PRId64 "x%-7" PRId64 " %-4s/%-4s %-11s %8" PRId64 " %10.4f %10.2e %10s  %s\n", M, N,
         fusednorm_dtype_name(xd), fusednorm_dtype_name(wd), v->name, sy.max_ulp,
         fin ? 100.0 * sdx.within1 / fin : 100.0, fusednorm_err_stats_rel_l2(&sdx), dwcol, verdict);
  for (size_t k = 0; k < sizeof hs / sizeof *hs; ++k) free(hs[k]);
  for (size_t k = 0; k < sizeof ds / sizeof *ds; ++k) dev_free(ds[k]);
  return ok;
}

static const char USAGE[] =
    "usage: selfcheck [--device auto|cuda|cpu] [--seed N]\n"
    "  every variant over the built-in shapes against float64 (GPU if visible, else CPU)\n"
    "  --device auto|cuda|cpu   where to run (auto: CUDA if present)\n"
    "  --seed N                 random seed, a decimal integer in [0, 2^64) (default: the time)\n"
    "exit: 0 all pass, 1 a check failed, 2 usage\n";

/* 0 ok, 2 usage error (message printed). `--key value` and `--key=value` both work. */
static int parse_args(int argc, char **argv, const char **device, int *help) {
  static const struct option opts[] = {{"device", required_argument, NULL, 'd'},
                                       {"seed", required_argument, NULL, 's'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
    switch (c) {
      case 'd':
        if (strcmp(optarg, "auto") && strcmp(optarg, "cuda") && strcmp(optarg, "cpu")) {
          fprintf(stderr, "selfcheck: --device must be auto, cuda or cpu (got '%s')\n", optarg);
          return 2;
        }
        *device = optarg;
        break;
      case 's': {
        char *end = NULL;
        errno = 0;
        unsigned long long v = isdigit((unsigned char)optarg[0]) ? strtoull(optarg, &end, 10) : 0;
        if (!isdigit((unsigned char)optarg[0]) || *end || errno == ERANGE) {
          fprintf(stderr, "selfcheck: bad --seed '%s': expected a decimal integer in [0, 2^64)\n",
                  optarg);
          return 2;
        }
        rng = (uint64_t)v | 1;
        break;
      }
      case 'h': *help = 1; break;
      case ':':
        fprintf(stderr, "selfcheck: %s needs a value\n%s", argv[optind - 1], USAGE);
        return 2;
      default:
        if (optopt) fprintf(stderr, "selfcheck: unknown option '-%c'\n%s", optopt, USAGE);
        else fprintf(stderr, "selfcheck: unknown option '%s'\n%s", argv[optind - 1], USAGE);
        return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "selfcheck: unexpected argument '%s'\n%s", argv[optind], USAGE);
    return 2;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *device = "auto";
  int help = 0;
  rng = (uint64_t)time(NULL) | 1;
  int bad = parse_args(argc, argv, &device, &help);
  if (bad) return bad;
  if (help) {
    if (fputs(USAGE, stdout) < 0 || fflush(stdout) != 0) {
      fprintf(stderr, "selfcheck: writing the usage to stdout: %s\n", strerror(errno));
      return 2;
    }
    return 0;
  }
  int have = fusednorm_cuda_available();
  if (!strcmp(device, "cuda") && !have) {
    fprintf(stderr, "selfcheck: --device cuda but no usable CUDA device\n");
    return 2;
  }
  use_cuda = strcmp(device, "cpu") && have;
  printf("fusednorm selfcheck on %s, seed %" PRIu64 "\n", use_cuda ? "cuda" : "cpu", rng);
  printf("%-13s %-9s %-11s %8s %10s %10s %10s  %s\n", "shape", "x/w", "variant", "y ulp", "dx<=1ulp",
         "dx relL2", "dw relL2", "verdict");
  printf("%-13s %-9s %-11s %8s %10s %10s %10s  %s\n", "(MxN)", "(dtype)", "", "(max)", "(%)", "(-)",
         "(-)", "");
  static const int64_t shapes[][2] = {{1, 7}, {199, 1000}, {4096, 128}, {512, 2880}, {64, 8192},
                                      {8, 65536}};
  static const fusednorm_dtype pairs[][2] = {{FUSEDNORM_F32, FUSEDNORM_F32},
                                             {FUSEDNORM_F16, FUSEDNORM_F16},
                                             {FUSEDNORM_BF16, FUSEDNORM_BF16},
                                             {FUSEDNORM_BF16, FUSEDNORM_F32}};
  int total = 0, failed = 0;
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s)
    for (size_t d = 0; d < sizeof pairs / sizeof *pairs; ++d)
      for (size_t v = 0; v < sizeof kVariants / sizeof *kVariants; ++v, ++total)
        failed += !run(shapes[s][0], shapes[s][1], pairs[d][0], pairs[d][1], &kVariants[v]);
  printf("%d cases, %d failed: %s\n", total, failed, failed ? "FAILED" : "OK");
  /* A table that could not be written (`> /dev/full`) is not a pass. */
  errno = 0;
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "selfcheck: writing the table to stdout failed: %s\n",
            errno ? strerror(errno) : "I/O error");
    return 2;
  }
  return failed ? 1 : 0;
}
