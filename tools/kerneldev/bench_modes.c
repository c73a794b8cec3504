/*
 * bench_modes.c — developer timing of every mode (forced, and AUTO) of the CUDA backend over a
 * few shapes: the evidence behind the thresholds in kernels/src/select.c. Not the project's
 * benchmark (that is tools/bench/, with the peers); this one only compares our own families.
 *
 *   bench_modes [--dtype=bf16|f16|f32] [--fused] [--shapes=MxN,MxN,...] [--iters=N]
 *               [--bwd | --fwd-only] [--modes=auto,persistent,...] [--offset=K] [--no-weight]
 *   (every --key=value option also as --key value; a bad value exits 2 with the reason)
 *
 * Kernel time by CUDA events around each launch (median of --iters), inputs rotated over enough
 * buffer sets that every launch reads from HBM (>= 256 MB in flight over the rotation), inputs
 * random (never zeros). GB/s from the bytes each direction must move: forward (2MN + N) elements,
 * fused add 4MN; backward (3MN + 2N), fused add 4MN (ds read); the dw reduction's time is included
 * in the backward. Output: one line per (shape, direction, mode) with the plan that ran, and a
 * copy-bandwidth line. A forced mode whose family cannot run a shape prints "unsupported".
 * --offset=K: every row tensor (x, residual, y, residual_out, dy, dx) starts K elements into its
 * allocation (a view at an element offset; the weight stays 16-byte aligned): with K not a multiple
 * of the vector the rows are congruent but not aligned (the head-split kernels), as are rows of an
 * odd width N at any K (row strides not a multiple of 16 bytes); "u1" marks a head-split plan.
 * --no-weight: the problems without a weight (y = RN(s * rstd), no dw): what the weight's own loads
 * cost a kernel.
 */
#include <getopt.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/include/fusednorm.h"

#define CK(call)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));   \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

/* A fusednorm call that must succeed (device query, layout, plan). */
#define CKF(call)                                                                             \
  do {                                                                                        \
    fusednorm_status s_ = (call);                                                             \
    if (s_ != FUSEDNORM_OK) {                                                                 \
      fprintf(stderr, "%s:%d %s: %s %s\n", __FILE__, __LINE__, #call, fusednorm_status_string(s_), \
              fusednorm_cuda_error_string());                                                 \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return x < y ? -1 : x > y;
}

/* Fill with pseudo-random values of magnitude ~1 in the dtype's bit pattern (on the device). */
static void fill_random(void *dst, size_t elems, fusednorm_dtype d, uint64_t seed) {
  size_t bytes = elems * fusednorm_dtype_size(d);
  unsigned char *h = malloc(bytes);
  uint64_t s = seed * 2654435761u + 1;
  for (size_t i = 0; i < elems; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    float v = (float)((int64_t)(s >> 41) - (1 << 22)) / (float)(1 << 22) * 2.0f;
    if (d == FUSEDNORM_F32) ((float *)h)[i] = v;
    else {
      uint32_t u;
      memcpy(&u, &v, 4);
      ((uint16_t *)h)[i] = d == FUSEDNORM_BF16 ? (uint16_t)(u >> 16)
                                                : (uint16_t)(0x3800 + (s >> 54)) ^ (uint16_t)((s >> 20) & 0x8000);
    }
  }
  CK(cudaMemcpy(dst, h, bytes, cudaMemcpyHostToDevice));
  free(h);
}

typedef struct {
  void *x, *r, *y, *ro, *dy, *dx;
  float *rstd;
} set_t;

static void usage(FILE *f, const char *argv0) {
  fprintf(f,
          "usage: %s [--dtype=bf16|f16|f32] [--fused] [--shapes=MxN,MxN,...|narrow|few-rows] [--iters=N] [--bwd | --fwd-only]\n"
          "          [--modes=auto,persistent,multi_wave_reload,multi_wave_cached,row_packed,wide] [--offset=K] [--no-weight]\n",
          argv0);
}

/* Comma-separated mode names, each exactly one of fusednorm_mode_name's; 0 on a bad list. */
static int parse_modes(const char *list, int want[FUSEDNORM_MODE_COUNT_], const char *argv0) {
  for (int m = 0; m < FUSEDNORM_MODE_COUNT_; ++m) want[m] = 0;
  if (*list == '\0') {
    fprintf(stderr, "%s: --modes names no mode\n", argv0);
    return 0;
  }
  for (const char *t = list; *t;) {
    const size_t k = strcspn(t, ",");
    int found = 0;
    for (int m = 0; m < FUSEDNORM_MODE_COUNT_; ++m) {
      const char *name = fusednorm_mode_name((fusednorm_mode)m);
      if (strlen(name) == k && !strncmp(t, name, k)) want[m] = found = 1;
    }
    if (!found) {
      fprintf(stderr, "%s: unknown mode '%.*s' in --modes\n", argv0, (int)k, t);
      return 0;
    }
    t += k + (t[k] == ',');
  }
  return 1;
}

/* Every shape MxN (M, N >= 1), comma-separated. */
static int check_shapes(const char *shapes, const char *argv0) {
  for (const char *t = shapes;;) {
    long long M = 0, N = 0;
    int used = 0;
    if (sscanf(t, "%lldx%lld%n", &M, &N, &used) != 2 || M < 1 || N < 1 || (t[used] != ',' && t[used] != '\0')) {
      fprintf(stderr, "%s: bad --shapes '%s': expected MxN[,MxN...] with M, N >= 1\n", argv0, shapes);
      return 0;
    }
    if (t[used] == '\0') return 1;
    t += used + 1;
  }
}

int main(int argc, char **argv) {
  fusednorm_dtype dt = FUSEDNORM_BF16;
  int fused = 0, iters = 30, bwd_only = 0, fwd_only = 0, no_weight = 0;
  long long offset = 0; /* --offset: elements from each row tensor's allocation to its start */
  int want[FUSEDNORM_MODE_COUNT_]; /* --modes: which modes to time (all by default) */
  for (int m = 0; m < FUSEDNORM_MODE_COUNT_; ++m) want[m] = 1;
  const char *shapes = "1048576x128,65536x128,262144x512,65536x1024,32768x2880,16384x4096,16384x5120,"
                       "16384x7168,8192x8192,4096x16384,2048x32768,1024x65536,256x262144,256x1048576";
  static const struct option opts[] = {
      {"dtype", required_argument, NULL, 'd'}, {"fused", no_argument, NULL, 'f'},
      {"shapes", required_argument, NULL, 's'}, {"iters", required_argument, NULL, 'i'},
      {"bwd", no_argument, NULL, 'b'},          {"fwd-only", no_argument, NULL, 'F'},
      {"modes", required_argument, NULL, 'm'},  {"help", no_argument, NULL, 'h'},
      {"offset", required_argument, NULL, 'o'}, {"no-weight", no_argument, NULL, 'W'},
      {NULL, 0, NULL, 0}};
  opterr = 0; /* our own messages */
  for (;;) {
    const int c = getopt_long(argc, argv, ":", opts, NULL);
    if (c == -1) break;
    switch (c) {
      case 'd':
        if (!strcmp(optarg, "f32")) dt = FUSEDNORM_F32;
        else if (!strcmp(optarg, "f16")) dt = FUSEDNORM_F16;
        else if (!strcmp(optarg, "bf16")) dt = FUSEDNORM_BF16;
        else {
          fprintf(stderr, "%s: bad --dtype '%s': expected bf16, f16 or f32\n", argv[0], optarg);
          return 2;
        }
        break;
      case 'f': fused = 1; break;
      case 's':
        /* named lists: narrow rows and a few rows (the narrow and few-rows kernels) */
        shapes = !strcmp(optarg, "narrow")     ? "4096x128,16384x64,65536x64,65536x128,65536x256,100000x96,131072x64,"
                                                  "1048576x64,1048576x128,262144x256,1000000x256"
                 : !strcmp(optarg, "few-rows") ? "4x128,8x128,32x128,256x128,4x4096,8x4096,4x12288,8x12288,32x12288,"
                                                  "16x5120"
                                               : optarg;
        break;
      case 'i': {
        char *end = NULL;
        const long v = strtol(optarg, &end, 10);
        if (!*optarg || *end || v < 1 || v > 100000) {
          fprintf(stderr, "%s: bad --iters '%s': expected an integer in 1..100000\n", argv[0], optarg);
          return 2;
        }
        iters = (int)v;
        break;
      }
      case 'o': {
        char *end = NULL;
        offset = strtoll(optarg, &end, 10);
        if (!*optarg || *end || offset < 0 || offset > 4096) {
          fprintf(stderr, "%s: bad --offset '%s': expected an integer in 0..4096\n", argv[0], optarg);
          return 2;
        }
        break;
      }
      case 'W': no_weight = 1; break;
      case 'b': bwd_only = 1; break;
      case 'F': fwd_only = 1; break;
      case 'm':
        if (!parse_modes(optarg, want, argv[0])) return 2;
        break;
      case 'h': usage(stdout, argv[0]); return 0;
      case ':':
        fprintf(stderr, "%s: option '%s' needs a value\n", argv[0], argv[optind - 1]);
        usage(stderr, argv[0]);
        return 2;
      default:
        fprintf(stderr, "%s: unknown option, or a value for an option that takes none: '%s'\n", argv[0],
                argv[optind - 1]);
        usage(stderr, argv[0]);
        return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
    usage(stderr, argv[0]);
    return 2;
  }
  if (bwd_only && fwd_only) {
    fprintf(stderr, "%s: --bwd and --fwd-only exclude each other\n", argv[0]);
    return 2;
  }
  if (!check_shapes(shapes, argv[0])) return 2; /* before any GPU work */
  struct cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s, %d SMs, L2 %d MB; dtype %s%s%s; row tensors %lld elements into their allocations\n",
         prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, fusednorm_dtype_name(dt),
         fused ? ", fused add" : "", no_weight ? ", no weight" : "", offset);
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  float *times = malloc(sizeof(float) * (size_t)iters);

  /* Copy ceiling: 1 GiB device-to-device, bytes read + written. */
  {
    size_t bytes = (size_t)1 << 30;
    void *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(a, 1, bytes));
    for (int i = 0; i < iters; ++i) {
      CK(cudaEventRecord(e0, st));
      CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, st));
      CK(cudaEventRecord(e1, st));
      CK(cudaEventSynchronize(e1));
      CK(cudaEventElapsedTime(&times[i], e0, e1));
    }
    qsort(times, iters, sizeof(float), cmp_float);
    printf("copy 1GiB d2d: %.3f ms  %.0f GB/s\n", times[iters / 2], 2.0 * bytes / (times[iters / 2] * 1e6));
    cudaFree(a), cudaFree(b);
  }

  printf("%-14s %-4s %-18s %10s %9s  %s\n", "shape", "dir", "mode", "us", "GB/s", "config");
  const char *sp = shapes;
  while (*sp) {
    long long M, N;
    if (sscanf(sp, "%lldx%lld", &M, &N) != 2) break;
    const size_t es = fusednorm_dtype_size(dt);
    const size_t mn = (size_t)M * (size_t)N, bytes = (mn + (size_t)offset) * es;
    int sets = (int)((256u << 20) / (bytes * 3) + 1);
    if (sets > 16) sets = 16;
    set_t s[16];
    void *w = NULL, *dw = NULL, *ws = NULL;
    size_t ws_cap = 0;
    for (int k = 0; k < sets; ++k) {
      CK(cudaMalloc(&s[k].x, bytes)); CK(cudaMalloc(&s[k].y, bytes)); CK(cudaMalloc(&s[k].dy, bytes));
      CK(cudaMalloc(&s[k].dx, bytes)); CK(cudaMalloc((void **)&s[k].rstd, (size_t)M * 4));
      s[k].r = s[k].ro = NULL;
      if (fused) { CK(cudaMalloc(&s[k].r, bytes)); CK(cudaMalloc(&s[k].ro, bytes)); }
      fill_random(s[k].x, mn + (size_t)offset, dt, 11 + k);
      fill_random(s[k].dy, mn + (size_t)offset, dt, 101 + k);
      if (fused) fill_random(s[k].r, mn + (size_t)offset, dt, 1001 + k);
    }
    /* The views the calls see (v[k]); s[k] keeps the allocations. */
    set_t v[16];
    for (int k = 0; k < sets; ++k) {
      const size_t o = (size_t)offset * es;
      v[k] = s[k];
      v[k].x = (char *)s[k].x + o, v[k].y = (char *)s[k].y + o;
      v[k].dy = (char *)s[k].dy + o, v[k].dx = (char *)s[k].dx + o;
      if (fused) v[k].r = (char *)s[k].r + o, v[k].ro = (char *)s[k].ro + o;
    }
    if (!no_weight) {
      CK(cudaMalloc(&w, (size_t)N * es));
      CK(cudaMalloc(&dw, (size_t)N * es));
      fill_random(w, (size_t)N, dt, 7);
    }
    for (int dir = bwd_only; dir < (fwd_only ? 1 : 2); ++dir) {
      for (int m = 0; m < FUSEDNORM_MODE_COUNT_; ++m) {
        if (!want[m]) continue;
        fusednorm_problem p = fusednorm_problem_init(M, N, dt, dt);
        p.has_residual = fused;
        p.has_weight = !no_weight;
        p.mode = (fusednorm_mode)m;
        fusednorm_launch l;
        fusednorm_device_info info;
        CKF(fusednorm_cuda_device_info(0, &info));
        /* The plan of the first buffer set's layout (cudaMalloc: aligned; n decides the rest). */
        fusednorm_layout lay;
        {
          fusednorm_fwd_args fa0 = {v[0].x, N, v[0].r, N, w, v[0].y, N, v[0].ro, N, v[0].rstd};
          fusednorm_bwd_args ba0 = {v[0].dy, N, fused ? v[0].ro : v[0].x, N, fused ? v[0].r : NULL, fused ? N : 0,
                                    w, v[0].rstd, v[0].dx, N, dw, NULL, 0};
          CKF(dir ? fusednorm_backward_layout(&p, &ba0, &lay) : fusednorm_forward_layout(&p, &fa0, &lay));
        }
        const fusednorm_status pst = fusednorm_select_launch(&p, dir, &info, &lay, &l);
        if (pst == FUSEDNORM_ERR_MODE_UNSUPPORTED) {
          printf("%7lldx%-7lld %-4s %-18s unsupported\n", M, N, dir ? "bwd" : "fwd", fusednorm_mode_name((fusednorm_mode)m));
          continue;
        }
        CKF(pst);
        if (dir) {
          size_t need = 0;
          CKF(fusednorm_backward_workspace_size_cuda(&p, 0, &need));
          if (need > ws_cap) {
            if (ws) cudaFree(ws);
            CK(cudaMalloc(&ws, need));
            ws_cap = need;
          }
        }
        int bad = 0;
        for (int i = -3; i < iters && !bad; ++i) {
          set_t *c = &v[(i + 3) % sets];
          fusednorm_fwd_args fa = {c->x, N, c->r, N, w, c->y, N, c->ro, N, c->rstd};
          /* Fused add: ds (the gradient of residual_out) is read, as in training where the residual
           * stream feeds the next layer (the buffer of r serves as random ds); without it the fused
           * backward would move 3MN, not the 4MN the GB/s assumes. */
          fusednorm_bwd_args ba = {c->dy, N, fused ? c->ro : c->x, N, fused ? c->r : NULL, fused ? N : 0,
                                   w, c->rstd, c->dx, N, dw, ws, ws_cap};
          if (dir && i == -3) { /* rstd (and residual_out) for the backward */
            for (int k = 0; k < sets; ++k) {
              fusednorm_fwd_args f2 = {v[k].x, N, v[k].r, N, w, v[k].y, N, v[k].ro, N, v[k].rstd};
              fusednorm_problem pa = p;
              pa.mode = FUSEDNORM_MODE_AUTO;
              if (fusednorm_forward_cuda(&pa, &f2, st) != FUSEDNORM_OK) bad = 1;
            }
          }
          CK(cudaEventRecord(e0, st));
          fusednorm_status r = dir ? fusednorm_backward_cuda(&p, &ba, st) : fusednorm_forward_cuda(&p, &fa, st);
          CK(cudaEventRecord(e1, st));
          if (r != FUSEDNORM_OK) {
            printf("%lldx%-8lld %-4s %-18s failed: %s %s\n", M, N, dir ? "bwd" : "fwd",
                   fusednorm_mode_name((fusednorm_mode)m), fusednorm_status_string(r), fusednorm_cuda_error_string());
            bad = 1;
            break;
          }
          CK(cudaEventSynchronize(e1));
          if (i >= 0) CK(cudaEventElapsedTime(&times[i], e0, e1));
        }
        if (bad) continue;
        qsort(times, iters, sizeof(float), cmp_float);
        double ms = times[iters / 2];
        double elems = dir ? (fused ? 4.0 * mn : 3.0 * mn + 2.0 * N) : (fused ? 4.0 * mn : 2.0 * mn + N);
        printf("%7lldx%-7lld %-4s %-18s %10.1f %9.0f  %s threads=%d rows/cta=%d ctas/row=%d grid=%lld slots=%d smem=%zu%s%s%s\n",
               M, N, dir ? "bwd" : "fwd", fusednorm_mode_name((fusednorm_mode)m), ms * 1e3, elems * es / (ms * 1e6),
               fusednorm_kernel_name(l.kernel), l.block_threads, l.rows_per_cta, l.ctas_per_row, (long long)l.grid,
               l.slots_per_thread, l.smem_bytes, l.unaligned ? " u1" : "", m == 0 ? " ->" : "",
               m == 0 ? fusednorm_mode_name(l.mode) : "");
      }
    }
    for (int k = 0; k < sets; ++k) {
      cudaFree(s[k].x), cudaFree(s[k].y), cudaFree(s[k].dy), cudaFree(s[k].dx), cudaFree(s[k].rstd);
      if (fused) cudaFree(s[k].r), cudaFree(s[k].ro);
    }
    cudaFree(w), cudaFree(dw);
    if (ws) cudaFree(ws);
    fflush(stdout);
    while (*sp && *sp != ',') ++sp;
    if (*sp == ',') ++sp;
  }
  CK(cudaGetLastError());
  return 0;
}
