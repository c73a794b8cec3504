/*
 * test_plan_coverage — the GPU suite's coverage checks, predicted on the CPU. test_cuda --mode=wide
 * fails unless a launch ran the split-row backward with the fused add's ds out of its ring (plan
 * `ds_direct`) on a device whose plan of 4096 x 8192 bf16 fused (forced WIDE) takes it. Its cases
 * are the check engine's quick matrix, the same on every backend, so this test replays that
 * matrix over the CPU backend, records every backward's problem and layout, and makes each one's
 * plan as select.c would for each real GPU's figures (kernels/tests/devices.h), as test_cuda does:
 * the forced mode, or AUTO where the plan says the forced family cannot run it. On every device
 * where the GPU check applies, the matrix must hold such launches, or the check would fail for
 * want of cases rather than for a fault.
 *
 * The same for test_cuda's f32-split section (AUTO, its one shape 600 x 16400 and the engine's
 * rotation of variants over it): where a device's plan of 600 x 16400 f32 fused is the split-row
 * kernel, that section requires f32 backwards, plain and fused, to run it. And for its fused16-split
 * and bwd-narrow sections (FN_COV_F16_SPLIT_SHAPE, FN_COV_NARROW_SHAPES).
 */
#include <stdio.h>
#include <string.h>

#include "kernels/include/fusednorm.h"
#include "kernels/tests/devices.h"
#include "kernels/tests/engine.h"

#define MAX_SEEN 8192
static fusednorm_problem g_p[MAX_SEEN];
static fusednorm_layout g_lay[MAX_SEEN];
static int g_seen, g_dropped;

static fusednorm_status rec_backward(void *ctx, const fusednorm_problem *p, const fusednorm_bwd_args *a) {
  fusednorm_layout lay;
  if (p->rows > 0 && fusednorm_backward_layout(p, a, &lay) == FUSEDNORM_OK) {
    if (g_seen < MAX_SEEN) g_p[g_seen] = *p, g_lay[g_seen] = lay, ++g_seen;
    else ++g_dropped;
  }
  return fn_engine_api_backward(ctx, p, a);
}

/* test_cuda's plan of a recorded case on device d (run_launch: forced, else AUTO) */
static int plan_of(const fusednorm_problem *p0, const fusednorm_layout *lay, const fusednorm_device_info *d,
                   fusednorm_launch *l) {
  fusednorm_problem p = *p0;
  fusednorm_status st = fusednorm_select_launch(&p, 1, d, lay, l);
  if (st == FUSEDNORM_ERR_MODE_UNSUPPORTED) p.mode = FUSEDNORM_MODE_AUTO, st = fusednorm_select_launch(&p, 1, d, lay, l);
  return st == FUSEDNORM_OK;
}

int main(void) {
  fn_engine_opts o;
  char *argv[] = {"test_plan_coverage", "--quick", "--mode=wide", NULL};
  if (fn_engine_parse_args(3, argv, &o)) return 2;
  o.brief = 1;
  const fn_api api = {"cpu", fusednorm_forward_cpu, fusednorm_backward_cpu, fusednorm_backward_workspace_size_cpu};
  fn_backend b = {"cpu/wide", (void *)&api, fn_engine_api_forward, rec_backward};
  int failures = fn_engine_run_matrix(&b, &o) != 0;
  if (g_dropped || g_seen == 0) {
    printf("FAIL: %d backwards recorded, %d beyond the record\n", g_seen, g_dropped);
    return 1;
  }
  for (int i = 0; i < NDEV; ++i) {
    const fusednorm_device_info *d = &kDevices[i].d;
    const fusednorm_problem pr = fn_cov_dd_problem();
    const fusednorm_layout lal = FN_COV_LAYOUT;
    fusednorm_launch lr;
    const int want_dd = plan_of(&pr, &lal, d, &lr) && lr.ds_direct;
    int split = 0, fused = 0, dd = 0;
    for (int k = 0; k < g_seen; ++k) {
      fusednorm_launch l;
      if (!plan_of(&g_p[k], &g_lay[k], d, &l) || l.kernel != FUSEDNORM_KERNEL_BWD_SPLIT) continue;
      ++split, fused += g_p[k].has_residual, dd += l.ds_direct;
    }
    printf("%-10s split-row backwards %d (fused %d), ds out of the ring %d; test_cuda --mode=wide %s\n",
           kDevices[i].name, split, fused, dd, want_dd ? "requires one" : "does not check");
    if (want_dd && dd == 0) {
      printf("FAIL %s: test_cuda --mode=wide would find no split-row backward with ds out of its ring\n",
             kDevices[i].name);
      ++failures;
    }
  }
  /* test_cuda's f32-split section, AUTO (split_section) */
  const int wide_seen = g_seen;
  static const fn_engine_shape kF32Split[] = {FN_COV_F32_SPLIT_SHAPE};
  fn_engine_opts oa = o;
  oa.mode = FUSEDNORM_MODE_AUTO, oa.quick = 0;
  b.name = "cpu/auto/f32-split";
  g_seen = 0;
  failures += fn_engine_run_shapes(&b, &oa, kF32Split, 1) != 0;
  for (int i = 0; i < NDEV; ++i) {
    const fusednorm_device_info *d = &kDevices[i].d;
    const fusednorm_problem pr = fn_cov_f32_split_problem();
    const fusednorm_layout lal = FN_COV_LAYOUT;
    fusednorm_launch lr;
    const int want = plan_of(&pr, &lal, d, &lr) && lr.kernel == FUSEDNORM_KERNEL_BWD_SPLIT;
    int plain = 0, fused = 0;
    for (int k = 0; k < g_seen; ++k) {
      fusednorm_launch l;
      if (!plan_of(&g_p[k], &g_lay[k], d, &l) || l.kernel != FUSEDNORM_KERNEL_BWD_SPLIT ||
          g_p[k].x_dtype != FUSEDNORM_F32)
        continue;
      g_p[k].has_residual ? ++fused : ++plain;
    }
    printf("%-10s f32 split-row backwards of the f32-split section: %d plain, %d fused; test_cuda %s\n",
           kDevices[i].name, plain, fused, want ? "requires them" : "does not check");
    if (want && (plain == 0 || fused == 0)) {
      printf("FAIL %s: test_cuda's f32-split section would not run the split-row kernel plain and fused\n",
             kDevices[i].name);
      ++failures;
    }
  }
  const int f32_seen = g_seen;
  /* test_cuda's 16-bit fused split section, AUTO (split_section, fused16) */
  static const fn_engine_shape kF16Split[] = {FN_COV_F16_SPLIT_SHAPE};
  b.name = "cpu/auto/fused16-split";
  g_seen = 0;
  failures += fn_engine_run_shapes(&b, &oa, kF16Split, 1) != 0;
  for (int i = 0; i < NDEV; ++i) {
    const fusednorm_device_info *d = &kDevices[i].d;
    const fusednorm_problem pr = fn_cov_f16_split_problem();
    const fusednorm_layout lal = FN_COV_LAYOUT;
    fusednorm_launch lr;
    const int want = plan_of(&pr, &lal, d, &lr) && lr.kernel == FUSEDNORM_KERNEL_BWD_SPLIT;
    int fused16 = 0;
    for (int k = 0; k < g_seen; ++k) {
      fusednorm_launch l;
      if (!plan_of(&g_p[k], &g_lay[k], d, &l) || l.kernel != FUSEDNORM_KERNEL_BWD_SPLIT ||
          g_p[k].x_dtype == FUSEDNORM_F32 || !g_p[k].has_residual)
        continue;
      ++fused16;
    }
    printf("%-10s 16-bit fused split-row backwards of the fused16-split section: %d; test_cuda %s\n",
           kDevices[i].name, fused16, want ? "requires one" : "does not check");
    if (want && fused16 == 0) {
      printf("FAIL %s: test_cuda's fused16-split section would not run the split-row kernel\n", kDevices[i].name);
      ++failures;
    }
  }
  const int f16_seen = g_seen;
  /* test_cuda's narrow backward section, AUTO (narrow_bwd_section) */
  static const fn_engine_shape kNarrow[] = FN_COV_NARROW_SHAPES;
  b.name = "cpu/auto/bwd-narrow";
  g_seen = 0;
  failures += fn_engine_run_shapes(&b, &oa, kNarrow, 2) != 0;
  for (int i = 0; i < NDEV; ++i) {
    const fusednorm_device_info *d = &kDevices[i].d;
    const fusednorm_problem pr = fn_cov_narrow_problem();
    const fusednorm_layout lal = FN_COV_LAYOUT;
    fusednorm_launch lr;
    const int want = plan_of(&pr, &lal, d, &lr) && lr.kernel == FUSEDNORM_KERNEL_BWD_ROW && lr.narrow;
    int plain = 0, fused = 0;
    for (int k = 0; k < g_seen; ++k) {
      fusednorm_launch l;
      if (!plan_of(&g_p[k], &g_lay[k], d, &l) || l.kernel != FUSEDNORM_KERNEL_BWD_ROW || !l.narrow) continue;
      g_p[k].has_residual ? ++fused : ++plain;
    }
    printf("%-10s narrow lean backwards of the bwd-narrow section: %d plain, %d fused; test_cuda %s\n",
           kDevices[i].name, plain, fused, want ? "requires them" : "does not check");
    if (want && (plain == 0 || fused == 0)) {
      printf("FAIL %s: test_cuda's bwd-narrow section would not run the narrow instance plain and fused\n",
             kDevices[i].name);
      ++failures;
    }
  }
  printf("test_plan_coverage: %d backwards of the quick forced-wide matrix, %d of the f32-split section, %d of "
         "the fused16-split section, %d of the bwd-narrow section; %s\n",
         wide_seen, f32_seen, f16_seen, g_seen, failures ? "FAILED" : "OK");
  return failures ? 1 : 0;
}
