/*
 * test_plan_coverage — the GPU suite's coverage checks, predicted on the CPU. test_cuda --mode=wide
 * fails unless a launch ran the split-row backward with the fused add's ds out of its ring (plan
 * `ds_direct`) on a device whose plan of 4096 x 8192 bf16 fused (forced WIDE) takes it. Its cases
 * are the check engine's quick matrix, the same on every backend, so this test runs that matrix
 * through the engine with a backend that only records (plan_only: nothing is computed or checked;
 * test_cpu checks the outputs), keeps every backward's problem and layout, and makes each one's
 * plan as select.c would for each real GPU's figures (kernels/tests/devices.h), as test_cuda does:
 * the forced mode, or AUTO where the plan says the forced family cannot run it. On every device
 * where the GPU check applies, the matrix must hold such launches, or the check would fail for
 * want of cases rather than for a fault.
 *
 * The same for test_cuda's f32-split section (AUTO, its one shape 600 x 16400 and the engine's
 * rotation of variants over it): where a device's plan of 600 x 16400 f32 fused is the split-row
 * kernel, that section requires f32 backwards, plain and fused, to run it. And for its fused16-split
 * and bwd-narrow sections (FN_COV_F16_SPLIT_SHAPE, FN_COV_NARROW_SHAPES), and its fwd-row8 section
 * (FN_COV_FWD_ROW8_SHAPES and, --quick, FN_COV_FWD_ROW8_QUICK_SHAPES: forwards, the plain and the
 * fused requirement each from its own reference problem).
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
static int g_fwd; /* record forwards instead of backwards (a forward section) */

static void record(const fusednorm_problem *p, const fusednorm_layout *lay) {
  if (g_seen < MAX_SEEN) g_p[g_seen] = *p, g_lay[g_seen] = *lay, ++g_seen;
  else ++g_dropped;
}

static fusednorm_status rec_forward(void *ctx, const fusednorm_problem *p, const fusednorm_fwd_args *a) {
  fusednorm_layout lay;
  (void)ctx;
  if (g_fwd && p->rows > 0 && fusednorm_forward_layout(p, a, &lay) == FUSEDNORM_OK) record(p, &lay);
  return FUSEDNORM_OK; /* the engine runs plan_only: nothing is computed or checked */
}

static fusednorm_status rec_backward(void *ctx, const fusednorm_problem *p, const fusednorm_bwd_args *a) {
  fusednorm_layout lay;
  (void)ctx;
  if (!g_fwd && p->rows > 0 && fusednorm_backward_layout(p, a, &lay) == FUSEDNORM_OK) record(p, &lay);
  return FUSEDNORM_OK;
}

/* test_cuda's plan of a recorded case on device d (run_launch: forced, else AUTO), backward or
 * forward */
static int plan_of(const fusednorm_problem *p0, int backward, const fusednorm_layout *lay,
                   const fusednorm_device_info *d, fusednorm_launch *l) {
  fusednorm_problem p = *p0;
  fusednorm_status st = fusednorm_select_launch(&p, backward, d, lay, l);
  if (st == FUSEDNORM_ERR_MODE_UNSUPPORTED)
    p.mode = FUSEDNORM_MODE_AUTO, st = fusednorm_select_launch(&p, backward, d, lay, l);
  return st == FUSEDNORM_OK;
}

/* One of test_cuda's AUTO sections that asserts a family ran, replayed on the CPU: its shapes
 * through the engine (the same rotation of variants, --quick where `quick`), then per device
 * whether test_cuda requires the launches (`wants`: the plan of its reference problem) and whether
 * the recorded backwards (forwards where `forward`) give them (`counts`: 1 a plain one, 2 a fused
 * one, 0 neither): plain and fused both, or with `fused_only` a fused one; with `separate`, the
 * fused one where the plan of `ref_f` wants it. */
typedef struct {
  const char *name;
  const fn_engine_shape *shapes;
  int count;
  fusednorm_problem ref;
  int (*wants)(const fusednorm_launch *l);
  int (*counts)(const fusednorm_problem *p, const fusednorm_launch *l);
  int fused_only;
  const char *what; /* the launches, in the report */
  int *seen;        /* out: the cases recorded */
  int forward, quick, separate;
  fusednorm_problem ref_f;
} section;

static int wants_split(const fusednorm_launch *l) { return l->kernel == FUSEDNORM_KERNEL_BWD_SPLIT; }
static int wants_narrow(const fusednorm_launch *l) { return l->kernel == FUSEDNORM_KERNEL_BWD_ROW && l->narrow; }
static int counts_f32_split(const fusednorm_problem *p, const fusednorm_launch *l) {
  return l->kernel == FUSEDNORM_KERNEL_BWD_SPLIT && p->x_dtype == FUSEDNORM_F32 ? 1 + (p->has_residual != 0) : 0;
}
static int counts_f16_fused_split(const fusednorm_problem *p, const fusednorm_launch *l) {
  return l->kernel == FUSEDNORM_KERNEL_BWD_SPLIT && p->x_dtype != FUSEDNORM_F32 && p->has_residual ? 2 : 0;
}
static int counts_narrow(const fusednorm_problem *p, const fusednorm_launch *l) {
  return wants_narrow(l) ? 1 + (p->has_residual != 0) : 0;
}
static int wants_row8(const fusednorm_launch *l) {
  return l->kernel == FUSEDNORM_KERNEL_FWD_ROW && l->slots_per_thread == 8;
}
static int counts_row8(const fusednorm_problem *p, const fusednorm_launch *l) {
  return wants_row8(l) ? 1 + (p->has_residual != 0) : 0;
}

static int auto_section(const fn_backend *b0, const fn_engine_opts *o, const section *s) {
  char name[64];
  fn_backend b = *b0;
  fn_engine_opts os = *o;
  snprintf(name, sizeof name, "plan/auto/%s", s->name);
  b.name = name;
  os.quick = s->quick;
  g_seen = 0;
  g_fwd = s->forward;
  int failures = fn_engine_run_shapes(&b, &os, s->shapes, s->count) != 0;
  g_fwd = 0;
  *s->seen = g_seen;
  for (int i = 0; i < NDEV; ++i) {
    const fusednorm_device_info *d = &kDevices[i].d;
    const fusednorm_layout lal = FN_COV_LAYOUT;
    fusednorm_launch lr;
    const int want = plan_of(&s->ref, !s->forward, &lal, d, &lr) && s->wants(&lr);
    const int want_p = want && !s->fused_only;
    const int want_f = s->separate ? plan_of(&s->ref_f, !s->forward, &lal, d, &lr) && s->wants(&lr) : want;
    int plain = 0, fused = 0;
    for (int k = 0; k < g_seen; ++k) {
      fusednorm_launch l;
      if (!plan_of(&g_p[k], !s->forward, &g_lay[k], d, &l)) continue;
      const int c = s->counts(&g_p[k], &l);
      plain += c == 1, fused += c == 2;
    }
    printf("%-10s %s of the %s section: %d plain, %d fused; test_cuda requires %s\n", kDevices[i].name, s->what,
           s->name, plain, fused,
           want_p && want_f ? "both" : want_p ? "plain ones" : want_f ? "fused ones" : "none");
    if ((want_f && fused == 0) || (want_p && plain == 0)) {
      printf("FAIL %s: test_cuda's %s section would not run its %s%s\n", kDevices[i].name, s->name, s->what,
             want_p && want_f ? " plain and fused" : want_p ? " plain" : " fused");
      ++failures;
    }
  }
  return failures;
}

int main(void) {
  fn_engine_opts o;
  char *argv[] = {"test_plan_coverage", "--quick", "--mode=wide", NULL};
  if (fn_engine_parse_args(3, argv, &o)) return 2;
  o.brief = 1;
  o.plan_only = 1;
  fn_backend b = {"plan/wide", NULL, rec_forward, rec_backward};
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
    const int want_dd = plan_of(&pr, 1, &lal, d, &lr) && lr.ds_direct;
    int split = 0, fused = 0, dd = 0;
    for (int k = 0; k < g_seen; ++k) {
      fusednorm_launch l;
      if (!plan_of(&g_p[k], 1, &g_lay[k], d, &l) || l.kernel != FUSEDNORM_KERNEL_BWD_SPLIT) continue;
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
  const int wide_seen = g_seen;
  int f32_seen, f16_seen, narrow_seen, row8_seen, row8q_seen;
  fn_engine_opts oa = o;
  oa.mode = FUSEDNORM_MODE_AUTO, oa.quick = 0;
  static const fn_engine_shape kF32Split[] = {FN_COV_F32_SPLIT_SHAPE}, kF16Split[] = {FN_COV_F16_SPLIT_SHAPE},
                               kNarrow[] = FN_COV_NARROW_SHAPES, kRow8[] = FN_COV_FWD_ROW8_SHAPES,
                               kRow8Quick[] = FN_COV_FWD_ROW8_QUICK_SHAPES;
  const section kSections[] = {
      /* split_section */
      {"f32-split", kF32Split, 1, fn_cov_f32_split_problem(), wants_split, counts_f32_split, 0,
       "f32 split-row backwards", &f32_seen, 0, 0, 0, {0}},
      /* split_section, fused16 */
      {"fused16-split", kF16Split, 1, fn_cov_f16_split_problem(), wants_split, counts_f16_fused_split, 1,
       "16-bit fused split-row backwards", &f16_seen, 0, 0, 0, {0}},
      /* narrow_bwd_section */
      {"bwd-narrow", kNarrow, 2, fn_cov_narrow_problem(), wants_narrow, counts_narrow, 0, "narrow lean backwards",
       &narrow_seen, 0, 0, 0, {0}},
      /* fwd_row8_section, --quick and the full run */
      {"fwd-row8 --quick", kRow8Quick, (int)(sizeof kRow8Quick / sizeof kRow8Quick[0]), fn_cov_fwd_row8_problem(),
       wants_row8, counts_row8, 0, "eight-slot lean forwards", &row8q_seen, 1, 1, 1, fn_cov_fwd_row8_fused_problem(1)},
      {"fwd-row8", kRow8, (int)(sizeof kRow8 / sizeof kRow8[0]), fn_cov_fwd_row8_problem(), wants_row8, counts_row8,
       0, "eight-slot lean forwards", &row8_seen, 1, 0, 1, fn_cov_fwd_row8_fused_problem(0)},
  };
  for (size_t k = 0; k < sizeof kSections / sizeof kSections[0]; ++k) failures += auto_section(&b, &oa, &kSections[k]);
  printf("test_plan_coverage: %d backwards of the quick forced-wide matrix, %d of the f32-split section, %d of "
         "the fused16-split section, %d of the bwd-narrow section; %d forwards of the fwd-row8 section (%d "
         "--quick); %s\n",
         wide_seen, f32_seen, f16_seen, narrow_seen, row8_seen, row8q_seen, failures ? "FAILED" : "OK");
  return failures ? 1 : 0;
}
