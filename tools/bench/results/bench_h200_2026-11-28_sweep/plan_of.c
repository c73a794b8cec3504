/* The plan select.c makes for each line "dtype M N op mode" on stdin (dtype bf16|fp16|fp32, op
 * fwd|bwd|add_fwd|add_bwd, mode auto|persistent|multi_wave_reload|multi_wave_cached|row_packed|wide),
 * on the H200's figures (kernels/tests/test_select.c's table), contiguous rows: one line each,
 * the kernel family ("/hs": the head-split instance) and the launch's geometry. A line it cannot
 * read (another dtype, op or mode name, a missing field) stops it with a message and exit status 2. */
#include <stdio.h>
#include <string.h>

#include "kernels/include/fusednorm.h"

static int mode_of(const char *m) {
  if (!strcmp(m, "auto")) return FUSEDNORM_MODE_AUTO;
  if (!strcmp(m, "persistent")) return FUSEDNORM_MODE_PERSISTENT;
  if (!strcmp(m, "row_packed")) return FUSEDNORM_MODE_ROW_PACKED;
  if (!strcmp(m, "multi_wave_cached")) return FUSEDNORM_MODE_MULTI_WAVE_CACHED;
  if (!strcmp(m, "multi_wave_reload")) return FUSEDNORM_MODE_MULTI_WAVE_RELOAD;
  if (!strcmp(m, "wide")) return FUSEDNORM_MODE_WIDE;
  return -1;
}

static int dtype_of(const char *d) {
  if (!strcmp(d, "bf16")) return FUSEDNORM_BF16;
  if (!strcmp(d, "fp16")) return FUSEDNORM_F16;
  if (!strcmp(d, "fp32")) return FUSEDNORM_F32;
  return -1;
}

int main(void) {
  const fusednorm_device_info h200 = {132, 9, 0, 2048, 32, 65536, 228 * 1024, 227 * 1024, 60 * 1024 * 1024};
  char dt[16], op[16], md[32];
  long long M, N;
  int got;
  while ((got = scanf("%15s %lld %lld %15s %31s", dt, &M, &N, op, md)) == 5) {
    const int ti = dtype_of(dt), mi = mode_of(md);
    if (ti < 0 || mi < 0 ||
        (strcmp(op, "fwd") && strcmp(op, "bwd") && strcmp(op, "add_fwd") && strcmp(op, "add_bwd"))) {
      fprintf(stderr, "plan_of: bad line \"%s %lld %lld %s %s\": dtype bf16|fp16|fp32, op fwd|bwd|add_fwd|add_bwd, "
                      "mode auto|persistent|multi_wave_reload|multi_wave_cached|row_packed|wide\n",
              dt, M, N, op, md);
      return 2;
    }
    const fusednorm_dtype t = (fusednorm_dtype)ti;
    fusednorm_problem p = fusednorm_problem_init(M, N, t, t);
    const int bwd = strstr(op, "bwd") != NULL;
    const size_t e = fusednorm_dtype_size(t);
    const long long rb = (long long)N * (long long)e; /* a row's bytes: the rows' boundary */
    const fusednorm_layout lay = {rb % 16 == 0, 1, 1, rb % 16 == 0 ? 16 : rb % 8 == 0 ? 8 : rb % 4 == 0 ? 4 : rb % 2 == 0 ? 2 : 1};
    fusednorm_launch l;
    p.has_residual = strstr(op, "add") != NULL;
    p.mode = (fusednorm_mode)mi;
    if (fusednorm_select_launch(&p, bwd, &h200, &lay, &l) != FUSEDNORM_OK) {
      printf("%s %lld %lld %s unsupported\n", dt, M, N, op);
      continue;
    }
    printf("%s %lld %lld %s %s%s grid=%lld thr=%d rpc=%d cpr=%d cl=%d dwk=%d sm=%zu ch=%lld spt=%d\n", dt, M, N, op,
           fusednorm_kernel_name(l.kernel), l.unaligned ? "/hs" : "", (long long)l.grid, l.block_threads,
           l.rows_per_cta, l.ctas_per_row, l.cluster, l.dw_in_kernel, l.smem_bytes, (long long)l.chunk,
           l.slots_per_thread);
  }
  if (got != EOF) {
    fprintf(stderr, "plan_of: a line without its five fields \"dtype M N op mode\"\n");
    return 2;
  }
  return 0;
}
