/*
 * fusednorm_cuda.cu — the CUDA entry points of fusednorm.h: validation (common.c), the per-device
 * facts (queried once per device and cached), fusednorm_select_launch (select.c), then the
 * launch of one kernel instance (rmsnorm_fwd.cu / rmsnorm_bwd.cu) on the caller's stream.
 *
 * Nothing here allocates or synchronizes: the only CUDA calls on the hot path are attribute reads
 * (cached), cudaFuncSetAttribute (once per kernel and size) and the launches themselves, all of
 * which are legal while a stream is being captured into a graph.
 */
#include <atomic>
#include <cstdio>
#include <cstring>

#include "kernels/cuda/launch_config.h"
#include "kernels/cuda/rmsnorm_launch.cuh"
#include "kernels/include/fusednorm.h"
#include "kernels/src/common.h"

#include <cuda_runtime.h>

namespace {

/* The last CUDA failure on this thread, for fusednorm_cuda_error_string(). */
thread_local char g_cuda_error[256] = "";

fusednorm_status cuda_fail(cudaError_t err, const char *what) {
  snprintf(g_cuda_error, sizeof g_cuda_error, "%s: %s (%s)", what, cudaGetErrorString(err),
           cudaGetErrorName(err));
  return FUSEDNORM_ERR_CUDA;
}

#define FN_CUDA_TRY(call)                                   \
  do {                                                      \
    cudaError_t err_ = (call);                              \
    if (err_ != cudaSuccess) return cuda_fail(err_, #call); \
  } while (0)

constexpr int kMaxDevices = 64;
std::atomic<int> g_info_ready[kMaxDevices];
fusednorm_device_info g_info[kMaxDevices];

/* Device facts, queried once per device (attribute reads only; no context-wide side effect). */
bool no_device(cudaError_t err) {
  return err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver || err == cudaErrorInvalidDevice;
}

fusednorm_status device_info(int device, fusednorm_device_info *out) {
  if (device < 0) {
    cudaError_t err = cudaGetDevice(&device);
    if (err != cudaSuccess) {
      cuda_fail(err, "cudaGetDevice");
      return no_device(err) ? FUSEDNORM_ERR_NO_DEVICE : FUSEDNORM_ERR_CUDA;
    }
  }
  if (device >= kMaxDevices) return FUSEDNORM_ERR_NO_DEVICE;
  if (g_info_ready[device].load(std::memory_order_acquire)) {
    *out = g_info[device];
    return FUSEDNORM_OK;
  }
  fusednorm_device_info d;
  int smem = 0;
  cudaError_t err = cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, device);
  if (no_device(err)) {
    cuda_fail(err, "cudaDeviceGetAttribute");
    return FUSEDNORM_ERR_NO_DEVICE;
  }
  if (err != cudaSuccess) return cuda_fail(err, "cudaDeviceGetAttribute(sm count)");
  FN_CUDA_TRY(cudaDeviceGetAttribute(&d.cc_major, cudaDevAttrComputeCapabilityMajor, device));
  FN_CUDA_TRY(cudaDeviceGetAttribute(&d.cc_minor, cudaDevAttrComputeCapabilityMinor, device));
  FN_CUDA_TRY(cudaDeviceGetAttribute(&d.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  FN_CUDA_TRY(cudaDeviceGetAttribute(&d.regs_per_sm, cudaDevAttrMaxRegistersPerMultiprocessor, device));
  FN_CUDA_TRY(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  d.smem_per_sm = (size_t)smem;
  g_info[device] = d; /* identical values if two threads race here */
  g_info_ready[device].store(1, std::memory_order_release);
  *out = d;
  return FUSEDNORM_OK;
}

/* cudaFuncSetAttribute once per (kernel, larger size): dynamic shared memory above 48 KB must be
 * opted into per kernel. */
fusednorm_status allow_smem(const void *kernel, size_t bytes) {
  /* Dynamic + static (<= 1 KB here) must fit the default 48 KB, or opt in. */
  if (bytes + 1024 <= 48 * 1024) return FUSEDNORM_OK;
  /* One slot per kernel instance that may ask for more: 2 x 3 x FN_NUM_CACHE generic, 18
   * pipelined forward, 9 split-row, 18 lean backward (rmsnorm_*.cu); a kernel without a slot
   * still gets its attribute set, every time. */
  static std::atomic<size_t> granted[128];
  static std::atomic<const void *> keys[128];
  int slot = -1;
  for (int i = 0; i < (int)(sizeof keys / sizeof keys[0]); ++i) {
    const void *k = keys[i].load();
    if (k == kernel) { slot = i; break; }
    if (k == nullptr) {
      const void *expected = nullptr;
      if (keys[i].compare_exchange_strong(expected, kernel) || expected == kernel) { slot = i; break; }
    }
  }
  if (slot >= 0 && granted[slot].load() >= bytes) return FUSEDNORM_OK;
  FN_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  if (slot >= 0) granted[slot].store(bytes);
  return FUSEDNORM_OK;
}

bool aligned16(const void *ptr, int64_t stride, size_t elem) {
  return ptr == nullptr || ((uintptr_t)ptr % 16 == 0 && ((uint64_t)stride * elem) % 16 == 0);
}

/* Every row start of the backward's tensors and the weight 16-byte aligned (ds, weight: if used). */
bool bwd_aligned(const fusednorm_problem *p, const fusednorm_bwd_args *a) {
  const size_t xs = fusednorm_dtype_size(p->x_dtype);
  const void *ds = p->has_residual ? a->ds : nullptr;
  return aligned16(a->dy, a->dy_stride, xs) && aligned16(a->s, a->s_stride, xs) &&
         aligned16(a->dx, a->dx_stride, xs) && aligned16(ds, ds ? a->ds_stride : 0, xs) &&
         aligned16(p->has_weight ? a->weight : nullptr, 0, 1);
}

/* Columns are int inside the kernels. */
constexpr int64_t kMaxN = (int64_t)INT32_MAX - 65536;

fusednorm_status launch(const void *kernel, const fusednorm_launch &l, size_t smem, void *params,
                        cudaStream_t stream, const char *what) {
  if (kernel == nullptr) return FUSEDNORM_ERR_MODE_UNSUPPORTED;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((unsigned)l.grid);
  cfg.blockDim = dim3((unsigned)l.block_threads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  if (l.ctas_per_row > 1) {
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)l.ctas_per_row;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  void *args[] = {params};
  FN_CUDA_TRY(cudaLaunchKernelExC(&cfg, kernel, args));
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return cuda_fail(err, what);
  return FUSEDNORM_OK;
}

/* Shape facts common to both directions. */
struct Shape {
  int vec, team, chunk, cache;
  int64_t slots;
};

Shape shape_of(const fusednorm_problem *p, const fusednorm_launch &l, int backward) {
  Shape s;
  s.vec = fn_vec_elems(p->x_dtype);
  s.team = l.block_threads / (l.rows_per_cta > 0 ? l.rows_per_cta : 1);
  s.chunk = (int)(l.ctas_per_row > 1 ? fn_cluster_chunk(p->n, l.ctas_per_row, s.vec) : p->n);
  s.slots = (s.chunk + s.vec - 1) / s.vec;
  s.cache = fn_cache_for(l.mode, backward, s.slots, s.team);
  return s;
}

/* CTAs of this launch resident per SM: the register estimate select.c sizes the grid with,
 * bounded by the CTAs the grid actually puts on an SM. */
int64_t resident_ctas(const fusednorm_problem *p, const fusednorm_launch &l, const Shape &sh, int backward,
                      const fusednorm_device_info &info) {
  const int threads = l.block_threads;
  int64_t smem;
  const int regs = (fn_launch_regs(backward, l.mode, l.ctas_per_row, sh.cache, sh.team, sh.slots, p->n, p->x_dtype,
                                   p->has_residual, &smem) + 7) / 8 * 8;
  int64_t resident = info.max_threads_per_sm / threads;
  if (info.regs_per_sm / (regs * threads) < resident) resident = info.regs_per_sm / (regs * threads);
  if (smem > 0 && (int64_t)info.smem_per_sm / (smem + FN_SMEM_RESERVE_PER_CTA) < resident)
    resident = (int64_t)info.smem_per_sm / (smem + FN_SMEM_RESERVE_PER_CTA);
  const int64_t per_sm = (l.grid + info.sm_count - 1) / info.sm_count;
  if (per_sm < resident) resident = per_sm;
  return resident < 1 ? 1 : resident;
}

/* Does `bytes` of dynamic shared memory per CTA leave the resident CTAs resident? */
bool smem_fits(size_t bytes, int64_t resident, const fusednorm_device_info &info) {
  return (size_t)resident * (bytes + FN_SMEM_RESERVE_PER_CTA) <= info.smem_per_sm;
}

/* Forward row-pipelining depth (rmsnorm_common.cuh) and its dynamic shared memory. Only for one
 * row per CTA without a cluster, 16-byte aligned rows, n a multiple of the vector width and the
 * whole row in the register cache, and only where few CTAs share an SM: H200 bf16 fwd, forced
 * persistent, 2 stages vs none (run 5): 4096 x 16384 (1 CTA/SM) 2471 vs 2013 GB/s, 8192 x 8192
 * (3 CTAs/SM) 2853 vs 2751, but 16384 x 4096 (6 CTAs/SM) 2825 vs 2862 and 32768 x 2880 2811 vs
 * 2884; 3 stages was no better than 2 anywhere. In the backward it lost everywhere (16384 x 4096
 * 2041 (2 stages) / 1875 (3) vs 2163 GB/s): the backward is bound by its instructions, not by
 * the loads in flight (kernels/RESULTS.md), so the backward has no pipelining. */
#ifndef FN_MAX_STAGES
#define FN_MAX_STAGES 2
#endif
constexpr int64_t kPipelineMaxResident = 3;

int pipeline_stages(const fusednorm_problem *p, const fusednorm_launch &l, const Shape &sh, bool aligned,
                    int tensors, const fusednorm_device_info &info, size_t *smem) {
  *smem = 0;
  if (sh.cache == 0 || l.rows_per_cta > 1 || l.ctas_per_row > 1 || !aligned || p->n % sh.vec != 0) return 0;
  if ((int64_t)sh.cache * sh.team * sh.vec < p->n) return 0;
  const int64_t resident = resident_ctas(p, l, sh, 0, info);
  if (resident > kPipelineMaxResident) return 0;
  const int xs = (int)fusednorm_dtype_size(p->x_dtype);
  for (int st = FN_MAX_STAGES; st >= 2; --st) {
    const size_t per = (size_t)st * (size_t)tensors * (size_t)p->n * (size_t)xs;
    if (smem_fits(per, resident, info)) {
      *smem = per;
      return st;
    }
  }
  return 0;
}

/* Backward plan: launch, shared memory and the workspace it needs. */
struct BwdPlan {
  fusednorm_launch l;
  Shape sh;
  int dw_smem;
  size_t smem;
  size_t ws_bytes; /* including 16 bytes of slack so a misaligned workspace can be aligned up */
  int split;       /* the split-row wide backward (rmsnorm_bwd_wide.cu) with geometry `sg` */
  fn_split_geom sg;
};

/* Streamed columns' dw goes to shared memory up to this size; beyond it, to the workspace row
 * (L2 read-modify-write; only reached for forced non-wide modes on rows > ~48K columns). */
constexpr size_t kDwSmemMax = 96 * 1024;

fusednorm_status plan_backward(const fusednorm_problem *p, int device, BwdPlan *plan) {
  fusednorm_device_info info;
  fusednorm_status st = device_info(device, &info);
  if (st != FUSEDNORM_OK) return st;
  st = fusednorm_select_launch(p, 1, &info, &plan->l);
  if (st != FUSEDNORM_OK) return st;
  plan->sh = shape_of(p, plan->l, 1);
  plan->dw_smem = 1;
  plan->smem = 0;
  plan->ws_bytes = 0;
  plan->split = 0;
  if (!p->has_weight) return FUSEDNORM_OK;
  /* The WIDE backward with a weight is the split-row kernel wherever its geometry exists (the
   * same pure test select.c used to size the grid); else the cluster kernel below. */
  if (plan->l.mode == FUSEDNORM_MODE_WIDE &&
      fn_split_bwd(p->rows, p->n, p->x_dtype, p->has_weight, p->has_residual, p->mode == FUSEDNORM_MODE_AUTO,
                   info.sm_count, info.smem_per_sm, &plan->sg)) {
    if ((int64_t)plan->sg.gc * plan->sg.gr != plan->l.grid || plan->sg.gc != plan->l.ctas_per_row)
      return FUSEDNORM_ERR_MODE_UNSUPPORTED; /* select.c and launch_config.h disagree: a bug */
    plan->split = 1;
    plan->smem = plan->sg.smem;
    plan->ws_bytes = (size_t)fn_partial_rows(&plan->l) * (size_t)p->n * sizeof(float) +
                     (size_t)fn_split_extra_bytes(p->rows, &plan->sg) + 16;
    return FUSEDNORM_OK;
  }
  const int teams = plan->l.rows_per_cta > 0 ? plan->l.rows_per_cta : 1;
  const int64_t cached_cols = (int64_t)plan->sh.cache * plan->sh.team * plan->sh.vec;
  if (teams > 1) {
    if (cached_cols < p->n) return FUSEDNORM_ERR_MODE_UNSUPPORTED; /* select.c never does this */
    plan->smem = 2 * (size_t)p->n * sizeof(float); /* Kahan sums + compensations */
  } else if (cached_cols < plan->sh.chunk) {
    const size_t bytes = (size_t)(plan->sh.chunk - cached_cols) * sizeof(float);
    plan->dw_smem = bytes <= kDwSmemMax;
    plan->smem = plan->dw_smem ? bytes : 0;
  }
  plan->ws_bytes = (size_t)fn_partial_rows(&plan->l) * (size_t)p->n * sizeof(float) + 16;
  return FUSEDNORM_OK;
}

/* Fixed-order reduction of the P partial rows into dw (weight dtype). */
fusednorm_status launch_dw_reduce(const fusednorm_problem *p, const BwdPlan &plan, const float *ws, void *dw,
                                  cudaStream_t stream) {
  const int64_t P = fn_partial_rows(&plan.l);
  int n = (int)p->n;
  int wdt = (int)p->w_dtype;
  int64_t grid = (p->n + fn::kDwReduceCols - 1) / fn::kDwReduceCols;
  if (grid > 65535 * 16) grid = 65535 * 16; /* grid-stride over column blocks beyond */
  void *rargs[] = {(void *)&ws, (void *)&P, &n, &dw, &wdt};
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((unsigned)grid);
  cfg.blockDim = dim3((unsigned)(fn::kDwReduceCols * fn::kDwReduceSlices));
  cfg.stream = stream;
  FN_CUDA_TRY(cudaLaunchKernelExC(&cfg, fn::dw_reduce_kernel(), rargs));
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return cuda_fail(err, "dw_reduce launch");
  return FUSEDNORM_OK;
}

/* The split-row wide backward (rmsnorm_bwd_wide.cu): partial-dot slots reset on the stream, one
 * cooperative launch (all CTAs co-resident: its CTAs wait for each other), then dw_reduce. */
fusednorm_status launch_split_backward(const fusednorm_problem *p, const fusednorm_bwd_args *a, const BwdPlan &plan,
                                       float *ws, cudaStream_t stream) {
  const fn_split_geom &g = plan.sg;
  const bool fused = p->has_residual != 0;
  fn::SplitParams k;
  k.dy = a->dy; k.dy_stride = a->dy_stride;
  k.s = a->s; k.s_stride = a->s_stride;
  k.ds = fused ? a->ds : nullptr; k.ds_stride = fused ? a->ds_stride : 0;
  k.w = a->weight; k.w_dtype = (int)p->w_dtype; k.offset = p->offset;
  k.rstd = a->rstd;
  k.dx = a->dx; k.dx_stride = a->dx_stride;
  k.ws = ws;
  k.dots = ws + (size_t)g.gr * (size_t)p->n;
  k.rows = p->rows; k.n = (int)p->n;
  k.gc = g.gc; k.gr = g.gr; k.chunk = (int)g.chunk; k.stages = g.stages; k.lookahead = g.lookahead;
  k.aligned = bwd_aligned(p, a);
  k.llama = p->casting == FUSEDNORM_CAST_LLAMA;
  const void *kernel = fn::bwd_split_kernel(p->x_dtype, g.spt);
  if (kernel == nullptr) return FUSEDNORM_ERR_MODE_UNSUPPORTED;
  fusednorm_status st = allow_smem(kernel, plan.smem);
  if (st != FUSEDNORM_OK) return st;
  /* Every partial-dot slot "unpublished" (all bits set; rmsnorm_bwd_wide.cu, kUnpublished). */
  FN_CUDA_TRY(cudaMemsetAsync(k.dots, 0xff, (size_t)p->rows * (size_t)g.gc * sizeof(float), stream));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((unsigned)plan.l.grid);
  cfg.blockDim = dim3((unsigned)plan.l.block_threads);
  cfg.dynamicSmemBytes = plan.smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeCooperative;
  attr[0].val.cooperative = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  void *args[] = {&k};
  FN_CUDA_TRY(cudaLaunchKernelExC(&cfg, kernel, args));
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return cuda_fail(err, "rms_norm_bwd_split launch");
  return launch_dw_reduce(p, plan, ws, a->dw, stream);
}

}  // namespace

extern "C" {

const char *fusednorm_cuda_error_string(void) { return g_cuda_error; }

int fusednorm_cuda_available(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count > 0;
}

fusednorm_status fusednorm_forward_cuda(const fusednorm_problem *p, const fusednorm_fwd_args *a,
                                        cudaStream_t stream) {
  fusednorm_status st = fn_validate_forward(p, a);
  if (st != FUSEDNORM_OK || p->rows == 0) return st;
  if (p->n > kMaxN) return FUSEDNORM_ERR_MODE_UNSUPPORTED;
  fusednorm_device_info info;
  st = device_info(-1, &info);
  if (st != FUSEDNORM_OK) return st;
  const size_t xs = fusednorm_dtype_size(p->x_dtype);
  const bool fused = p->has_residual != 0;
  const void *w = p->has_weight ? a->weight : nullptr;
  const bool aligned = aligned16(a->x, a->x_stride, xs) && aligned16(a->y, a->y_stride, xs) &&
                       (!fused || (aligned16(a->residual, a->residual_stride, xs) &&
                                   aligned16(a->residual_out, a->residual_out_stride, xs))) &&
                       aligned16(w, 0, 1);
  fusednorm_launch l;
  st = fn_select_launch(p, 0, &info, aligned ? 1 : 0, &l);
  if (st != FUSEDNORM_OK) return st;
  const Shape sh = shape_of(p, l, 0);

  fn::FwdParams k;
  k.x = a->x; k.x_stride = a->x_stride;
  k.r = fused ? a->residual : nullptr; k.r_stride = fused ? a->residual_stride : 0;
  k.w = w; k.w_dtype = (int)p->w_dtype; k.offset = p->offset;
  k.y = a->y; k.y_stride = a->y_stride;
  k.ro = fused ? a->residual_out : nullptr; k.ro_stride = fused ? a->residual_out_stride : 0;
  k.rstd = a->rstd;
  k.rows = p->rows; k.n = (int)p->n; k.eps = p->eps;
  k.team = sh.team; k.cluster = l.ctas_per_row; k.chunk = sh.chunk;
  k.aligned = aligned ? 1 : 0;
  k.llama = p->casting == FUSEDNORM_CAST_LLAMA;
  k.fused = fused;
  size_t smem = 0;
  const void *kernel;
  const bool w32 = p->has_weight && p->w_dtype == FUSEDNORM_F32;
  if (fn_fwd_row(l.mode, l.ctas_per_row, l.rows_per_cta, sh.team, p->n, sh.vec, fused, w32, k.aligned)) {
    k.stages = 0;
    kernel = fn::fwd_row_kernel(p->x_dtype, fn_fwd_row_cache(sh.slots, sh.team, fused, w32, (int)xs), fused, w32);
  } else if (fn_fwd_pipelined(l.mode, l.ctas_per_row, sh.cache, sh.team, sh.slots, p->has_residual, (int)xs)) {
    k.stages = 0; /* the row pipelining is in registers */
    kernel = fn::fwd_pipe_kernel(p->x_dtype, sh.cache, fused);
    smem = (size_t)fn_fwd_pipe_smem(p->n, sh.vec);
  } else {
    k.stages = pipeline_stages(p, l, sh, k.aligned != 0, fused ? 2 : 1, info, &smem);
    kernel = fn::fwd_kernel(p->x_dtype, sh.cache);
  }
  if (kernel == nullptr) return FUSEDNORM_ERR_MODE_UNSUPPORTED;
  st = allow_smem(kernel, smem);
  if (st != FUSEDNORM_OK) return st;
  return launch(kernel, l, smem, &k, stream, "rms_norm_fwd launch");
}

fusednorm_status fusednorm_backward_workspace_size_cuda(const fusednorm_problem *p, int device,
                                                        size_t *bytes) {
  if (bytes == nullptr) return FUSEDNORM_ERR_NULL_POINTER;
  fusednorm_status st = fn_validate_problem(p);
  if (st != FUSEDNORM_OK) return st;
  *bytes = 0;
  if (!p->has_weight || p->rows == 0) return FUSEDNORM_OK;
  if (p->n > kMaxN) return FUSEDNORM_ERR_MODE_UNSUPPORTED;
  BwdPlan plan;
  st = plan_backward(p, device, &plan);
  if (st == FUSEDNORM_OK) *bytes = plan.ws_bytes;
  return st;
}

fusednorm_status fusednorm_backward_cuda(const fusednorm_problem *p, const fusednorm_bwd_args *a,
                                         cudaStream_t stream) {
  fusednorm_status st = fn_validate_backward(p, a);
  if (st != FUSEDNORM_OK) return st;
  if (p->rows == 0) {
    /* dw over zero rows is zeros (all-zero bits are +0 in every dtype). */
    if (p->has_weight)
      FN_CUDA_TRY(cudaMemsetAsync(a->dw, 0, (size_t)p->n * fusednorm_dtype_size(p->w_dtype), stream));
    return FUSEDNORM_OK;
  }
  if (p->n > kMaxN) return FUSEDNORM_ERR_MODE_UNSUPPORTED;
  BwdPlan plan;
  st = plan_backward(p, -1, &plan);
  if (st != FUSEDNORM_OK) return st;
  float *ws = nullptr;
  if (p->has_weight) {
    if (a->workspace == nullptr || a->workspace_bytes < plan.ws_bytes) return FUSEDNORM_ERR_WORKSPACE_TOO_SMALL;
    ws = reinterpret_cast<float *>(((uintptr_t)a->workspace + 15) & ~(uintptr_t)15);
  }
  if (plan.split) return launch_split_backward(p, a, plan, ws, stream);
  const void *w = p->has_weight ? a->weight : nullptr;
  const void *ds = p->has_residual ? a->ds : nullptr;

  fn::BwdParams k;
  k.dy = a->dy; k.dy_stride = a->dy_stride;
  k.s = a->s; k.s_stride = a->s_stride;
  k.ds = ds; k.ds_stride = ds ? a->ds_stride : 0;
  k.w = w; k.w_dtype = (int)p->w_dtype; k.offset = p->offset;
  k.rstd = a->rstd;
  k.dx = a->dx; k.dx_stride = a->dx_stride;
  k.ws = ws;
  k.rows = p->rows; k.n = (int)p->n;
  k.team = plan.sh.team; k.cluster = plan.l.ctas_per_row; k.chunk = plan.sh.chunk;
  k.aligned = bwd_aligned(p, a);
  k.llama = p->casting == FUSEDNORM_CAST_LLAMA;
  k.dw_smem = plan.dw_smem;
  /* The effective weight staged once per CTA in shared memory (rmsnorm_bwd.cu) wherever one row
   * per CTA is fully cached and the copy costs no residency. */
  k.w_smem = 0;
  size_t smem = plan.smem;
  const int teams = plan.l.rows_per_cta > 0 ? plan.l.rows_per_cta : 1;
  if (p->has_weight && plan.smem == 0 && teams == 1 && plan.sh.cache > 0 &&
      (int64_t)plan.sh.cache * plan.sh.team * plan.sh.vec >= plan.sh.chunk) {
    fusednorm_device_info info;
    st = device_info(-1, &info);
    if (st != FUSEDNORM_OK) return st;
    const size_t bytes = (size_t)(plan.sh.chunk + plan.sh.vec - 1) / plan.sh.vec * plan.sh.vec * sizeof(float);
    if (smem_fits(bytes, resident_ctas(p, plan.l, plan.sh, 1, info), info)) {
      k.w_smem = 1;
      smem = bytes;
    }
  }

  const void *kernel =
      fn_bwd_row(plan.l.mode, plan.l.ctas_per_row, teams, plan.sh.cache, p->n, plan.sh.vec, k.w_smem, k.aligned)
          ? fn::bwd_row_kernel(p->x_dtype, plan.sh.cache, ds != nullptr)
      : fn_bwd_pipelined(plan.l.mode, plan.sh.cache) ? fn::bwd_pipe_kernel(p->x_dtype, ds != nullptr)
                                                     : fn::bwd_kernel(p->x_dtype, plan.sh.cache);
  if (kernel == nullptr) return FUSEDNORM_ERR_MODE_UNSUPPORTED;
  st = allow_smem(kernel, smem);
  if (st != FUSEDNORM_OK) return st;
  st = launch(kernel, plan.l, smem, &k, stream, "rms_norm_bwd launch");
  if (st != FUSEDNORM_OK || !p->has_weight) return st;

  /* Fixed-order reduction of the partial rows into dw. */
  return launch_dw_reduce(p, plan, ws, a->dw, stream);
}

}  // extern "C"
