/*
 * fusednorm_cuda.cu — the CUDA entry points of fusednorm.h: validation (common.c), the device
 * description (queried once per device and cached), the launch plan (fusednorm_select_launch,
 * kernels/src/select.c), then a switch on plan.kernel that launches the one kernel instance the
 * plan names on the caller's stream. Nothing here decides anything the plan does not say.
 *
 * Nothing here allocates or synchronizes: the only CUDA calls on the hot path are attribute reads
 * (cached), cudaFuncSetAttribute (once per kernel and size) and the launches themselves, all of
 * which are legal while a stream is being captured into a graph.
 */
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstring>
#include <mutex>

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

/* Device facts, queried once per device while it is current (attribute and occupancy reads, and the
 * probe kernel's own attributes; no context-wide side effect). */
bool no_device(cudaError_t err) {
  return err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver || err == cudaErrorInvalidDevice;
}

/* The kernel whose cluster occupancy fills fusednorm_device_info.max_clusters: it never runs. */
__global__ void cluster_capacity_probe() {}

/* d->max_clusters (fusednorm.h) from the driver, on the current device: the probe's clusters of
 * 2, 4, 8, 16 one-warp CTAs with dynamic shared memory sized so that exactly c of them fit an SM
 * (the per-CTA reserve is the driver's 1 KB; FN_SMEM_RESERVE_PER_CTA is twice that, so c + 1 never
 * fit). Left 0 where the driver declines (the plan then counts every SM's CTAs) or below cc 9.0. */
void query_max_clusters(fusednorm_device_info *d) {
  memset(d->max_clusters, 0, sizeof d->max_clusters);
  if (d->cc_major < 9) return;
  const void *f = reinterpret_cast<const void *>(&cluster_capacity_probe);
  if (cudaFuncSetAttribute(f, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess ||
      cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)d->smem_per_block_optin) != cudaSuccess) {
    (void)cudaGetLastError();
    return;
  }
  for (int per = 1; per <= 4; ++per) {
    size_t smem = d->smem_per_sm / per - 1024;
    if (smem > d->smem_per_block_optin) smem = d->smem_per_block_optin;
    for (int k = 0; k < 4; ++k) {
      cudaLaunchConfig_t cfg = {};
      cudaLaunchAttribute attr[1];
      attr[0].id = cudaLaunchAttributeClusterDimension;
      attr[0].val.clusterDim.x = 2u << k;
      attr[0].val.clusterDim.y = 1;
      attr[0].val.clusterDim.z = 1;
      cfg.gridDim = dim3(2u << k);
      cfg.blockDim = dim3(32);
      cfg.dynamicSmemBytes = smem;
      cfg.attrs = attr;
      cfg.numAttrs = 1;
      int n = 0;
      if (cudaOccupancyMaxActiveClusters(&n, f, &cfg) != cudaSuccess) {
        (void)cudaGetLastError();
        n = 0;
      }
      /* never above what the SMs hold (the plan's validation rejects such figures) */
      d->max_clusters[per - 1][k] = n > 0 && (int64_t)n * (2 << k) <= (int64_t)d->sm_count * per ? n : 0;
    }
  }
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
  int smem = 0, optin = 0, l2 = 0;
  cudaError_t err = cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, device);
  if (no_device(err)) {
    cuda_fail(err, "cudaDeviceGetAttribute");
    return FUSEDNORM_ERR_NO_DEVICE;
  }
  if (err != cudaSuccess) return cuda_fail(err, "cudaDeviceGetAttribute(sm count)");
  FN_CUDA_TRY(cudaDeviceGetAttribute(&d.cc_major, cudaDevAttrComputeCapabilityMajor, device));
  FN_CUDA_TRY(cudaDeviceGetAttribute(&d.cc_minor, cudaDevAttrComputeCapabilityMinor, device));
  FN_CUDA_TRY(cudaDeviceGetAttribute(&d.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  FN_CUDA_TRY(cudaDeviceGetAttribute(&d.max_ctas_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, device));
  FN_CUDA_TRY(cudaDeviceGetAttribute(&d.regs_per_sm, cudaDevAttrMaxRegistersPerMultiprocessor, device));
  FN_CUDA_TRY(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  FN_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  FN_CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  d.smem_per_sm = (size_t)smem;
  d.smem_per_block_optin = (size_t)optin;
  d.l2_bytes = (size_t)l2;
  /* The architecture the kernels were compiled for on this device: lower than the device's where
   * the build carries only PTX of an older one (JIT-compiled, without the newer instructions:
   * FN_HAS_CLUSTERS is 0 there), so the plan must not launch clusters. Asked of a kernel with
   * cluster code, on the current device. */
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == device) {
    cudaFuncAttributes fa;
    FN_CUDA_TRY(cudaFuncGetAttributes(&fa, fn::bwd_kernel(FUSEDNORM_BF16, 4)));
    if (fa.ptxVersion > 0 && fa.ptxVersion < d.cc_major * 10 + d.cc_minor) {
      d.cc_major = fa.ptxVersion / 10;
      d.cc_minor = fa.ptxVersion % 10;
    }
    query_max_clusters(&d);
  } else {
    /* Another device: its attributes only. Not cached, so that the first call with it current
     * gets the rest (its kernels' architecture, its clusters). */
    memset(d.max_clusters, 0, sizeof d.max_clusters);
    *out = d;
    return FUSEDNORM_OK;
  }
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
  /* One slot per kernel instance (fewer than 256 exist, kernels/cuda/README.md); a kernel
   * without a slot would still get its attribute set, every time. */
  static std::atomic<size_t> granted[256];
  static std::atomic<const void *> keys[256];
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

/* Clusters above the portable 8 CTAs are opted into per kernel (the wide forward's 16 on
 * compute capability 9.x/10.x, fn_fwd_wide_max_cluster), once per kernel like allow_smem. */
fusednorm_status allow_big_cluster(const void *kernel, int cluster) {
  if (cluster <= 8) return FUSEDNORM_OK;
  static std::atomic<const void *> done[64];
  for (int i = 0; i < (int)(sizeof done / sizeof done[0]); ++i) {
    const void *k = done[i].load();
    if (k == kernel) return FUSEDNORM_OK;
    if (k == nullptr) {
      FN_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
      const void *expected = nullptr;
      done[i].compare_exchange_strong(expected, kernel);
      return FUSEDNORM_OK;
    }
  }
  FN_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  return FUSEDNORM_OK;
}

/* Whether `grid` CTAs of `kernel` (threads, dynamic shared memory) can all be resident at once on
 * `device`, as a cooperative launch requires: the runtime's occupancy for the compiled kernel,
 * which the plan's register estimate only approximates. Cached per (kernel, threads, bytes). The
 * shared memory is opted into first: above 48 KB the occupancy query of a kernel not yet opted
 * in answers 0 CTAs, which the cache would keep. One CTA is always resident. */
bool co_resident(const void *kernel, int threads, size_t smem, int64_t grid, int sm_count) {
  if (grid <= 1) return true;
  if (allow_smem(kernel, smem) != FUSEDNORM_OK) return false;
  struct Entry {
    const void *kernel;
    int threads;
    size_t smem;
    int per_sm;
  };
  static std::mutex mu;
  static Entry cache[64];
  static int next = 0;
  int per_sm = -1;
  {
    std::lock_guard<std::mutex> g(mu);
    for (const Entry &e : cache)
      if (e.kernel == kernel && e.threads == threads && e.smem == smem) per_sm = e.per_sm;
  }
  if (per_sm < 0) {
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    std::lock_guard<std::mutex> g(mu);
    cache[next] = Entry{kernel, threads, smem, per_sm};
    next = (next + 1) % (int)(sizeof cache / sizeof cache[0]);
  }
  return grid <= (int64_t)per_sm * sm_count;
}

/* Launch `kernel` as the plan says: grid, CTA, dynamic shared memory (opted into), the cluster
 * or the cooperative grid. A plan naming an instance that does not exist is a bug in select.c
 * (test_select checks that it never happens): MODE_UNSUPPORTED rather than a wrong launch. */
fusednorm_status launch(const void *kernel, const fusednorm_launch &l, void *params, cudaStream_t stream,
                        const char *what) {
  if (kernel == nullptr) return FUSEDNORM_ERR_MODE_UNSUPPORTED;
  fusednorm_status st = allow_smem(kernel, l.smem_bytes);
  if (st == FUSEDNORM_OK) st = allow_big_cluster(kernel, l.cluster);
  if (st != FUSEDNORM_OK) return st;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((unsigned)l.grid);
  cfg.blockDim = dim3((unsigned)l.block_threads);
  cfg.dynamicSmemBytes = l.smem_bytes;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  if (l.kernel == FUSEDNORM_KERNEL_BWD_SPLIT || (l.dw_in_kernel && l.grid > 1) ||
      (l.kernel == FUSEDNORM_KERNEL_FWD_WIDE && l.cluster == 1)) {
    /* all CTAs co-resident: they wait for each other (one CTA summing dw waits for none) */
    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  } else if (l.cluster > 1) {
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)l.cluster;
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

/* Fixed-order reduction of the plan's partial rows into dw (weight dtype). */
fusednorm_status launch_dw_reduce(const fusednorm_problem *p, const fusednorm_launch &plan, const float *ws,
                                  void *dw, cudaStream_t stream) {
  const int64_t P = plan.partial_rows;
  int n = (int)p->n;
  int wdt = (int)p->w_dtype;
  cudaLaunchConfig_t cfg = {};
  cfg.stream = stream;
  /* A programmatic dependent launch where the kernels carry sm_90 code (device_info's cc is the
   * compiled architecture's: not with compute_80 PTX): the backward never triggers it early, so it
   * is scheduled as the backward's last CTAs exit, overlapping the grid's completion, and the
   * kernel waits for the backward's writes (rmsnorm_bwd.cu wait_for_primary). An early trigger
   * (griddepcontrol.launch_dependents on entry) measured slower on every backward family: H200,
   * kernels/RESULTS.md "dw_reduce as a programmatic dependent launch". */
  cudaLaunchAttribute attr[1];
  fusednorm_device_info info;
  if (device_info(-1, &info) == FUSEDNORM_OK && FN_DW_REDUCE_DEPENDENT(info.cc_major)) {
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  if (P <= FN_DW_IN_KERNEL_MAX_PARTIALS) {
    int P32 = (int)P;
    void *cargs[] = {(void *)&ws, &P32, &n, &dw, &wdt};
    int64_t grid = (p->n + fn::kDwChainThreads - 1) / fn::kDwChainThreads;
    if (grid > 65535 * 16) grid = 65535 * 16; /* grid-stride beyond */
    cfg.gridDim = dim3((unsigned)grid);
    cfg.blockDim = dim3((unsigned)fn::kDwChainThreads);
    FN_CUDA_TRY(cudaLaunchKernelExC(&cfg, fn::dw_reduce_chain_kernel(), cargs));
  } else {
    void *rargs[] = {(void *)&ws, (void *)&P, &n, &dw, &wdt};
    int cols = 0, slices = 0;
    fn_dw_reduce_shape(P, p->n, &cols, &slices);
    int64_t grid = (p->n + cols - 1) / cols;
    if (grid > 65535 * 16) grid = 65535 * 16; /* grid-stride over column blocks beyond */
    cfg.gridDim = dim3((unsigned)grid);
    cfg.blockDim = dim3((unsigned)(cols * slices));
    FN_CUDA_TRY(cudaLaunchKernelExC(&cfg, fn::dw_reduce_kernel(cols, slices), rargs));
  }
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return cuda_fail(err, "dw_reduce launch");
  return FUSEDNORM_OK;
}

/* The fields the forward's parameter blocks (FwdParams, FwdWideParams) share. */
template <typename K>
void fwd_params(K &k, const fusednorm_problem *p, const fusednorm_fwd_args *a, const fusednorm_layout &layout) {
  const bool fused = p->has_residual != 0;
  k.x = a->x; k.x_stride = a->x_stride;
  k.r = fused ? a->residual : nullptr; k.r_stride = fused ? a->residual_stride : 0;
  k.w = p->has_weight ? a->weight : nullptr; k.w_dtype = (int)p->w_dtype; k.offset = p->offset;
  k.y = a->y; k.y_stride = a->y_stride;
  k.ro = fused ? a->residual_out : nullptr; k.ro_stride = fused ? a->residual_out_stride : 0;
  k.rstd = a->rstd;
  k.rows = p->rows; k.n = (int)p->n; k.eps = p->eps;
  k.aligned = layout.aligned16;
  k.llama = p->casting == FUSEDNORM_CAST_LLAMA;
  k.nd = fn_row_dims_make(p);
  fn_row_outer_make(p, a->x_outer, k.x_outer);
  fn_row_outer_make(p, a->residual_outer, k.r_outer);
  fn_row_outer_make(p, a->y_outer, k.y_outer);
  fn_row_outer_make(p, a->residual_out_outer, k.ro_outer);
}

/* The lean forwards' packed block from FwdParams, for rows of one stride and at most INT_MAX of
 * them (the caller checks both). */
fn::LeanFwdParams lean_fwd_params(const fn::FwdParams &k) {
  fn::LeanFwdParams t = {};
  t.x = k.x; t.w = k.w; t.y = k.y; t.rstd = k.rstd;
  t.x_stride = k.x_stride; t.y_stride = k.y_stride;
  t.rows = (int)k.rows; t.n = k.n; t.eps = k.eps; t.offset = k.offset;
  t.r = k.r; t.ro = k.ro; t.r_stride = k.r_stride; t.ro_stride = k.ro_stride;
  t.w_dtype = k.w_dtype; t.llama = k.llama;
  return t;
}

/* The fields the backward's parameter blocks (BwdParams, SplitParams) share. */
template <typename K>
void bwd_params(K &k, const fusednorm_problem *p, const fusednorm_bwd_args *a, float *ws,
                const fusednorm_layout &layout) {
  const void *ds = p->has_residual ? a->ds : nullptr;
  k.dy = a->dy; k.dy_stride = a->dy_stride;
  k.s = a->s; k.s_stride = a->s_stride;
  k.ds = ds; k.ds_stride = ds ? a->ds_stride : 0;
  k.w = p->has_weight ? a->weight : nullptr; k.w_dtype = (int)p->w_dtype; k.offset = p->offset;
  k.rstd = a->rstd;
  k.dx = a->dx; k.dx_stride = a->dx_stride;
  k.ws = ws;
  k.rows = p->rows; k.n = (int)p->n;
  k.aligned = layout.aligned16;
  k.llama = p->casting == FUSEDNORM_CAST_LLAMA;
  k.nd = fn_row_dims_make(p);
  fn_row_outer_make(p, a->dy_outer, k.dy_outer);
  fn_row_outer_make(p, a->s_outer, k.s_outer);
  fn_row_outer_make(p, a->ds_outer, k.ds_outer);
  fn_row_outer_make(p, a->dx_outer, k.dx_outer);
}

/* The device description and the plan of one call: the device is queried (from the cache) once. */
fusednorm_status make_plan(const fusednorm_problem *p, int backward, int device, const fusednorm_layout &layout,
                           fusednorm_launch *plan) {
  fusednorm_device_info info;
  fusednorm_status st = device_info(device, &info);
  if (st != FUSEDNORM_OK) return st;
  return fusednorm_select_launch(p, backward, &info, &layout, plan);
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

fusednorm_status fusednorm_cuda_device_info(int device, fusednorm_device_info *out) {
  if (out == nullptr) return FUSEDNORM_ERR_NULL_POINTER;
  return device_info(device, out);
}

fusednorm_status fusednorm_forward_cuda(const fusednorm_problem *p, const fusednorm_fwd_args *a,
                                        cudaStream_t stream) {
  fusednorm_status st = fn_validate_forward(p, a);
  if (st != FUSEDNORM_OK || p->rows == 0) return st;
  fusednorm_layout layout;
  st = fusednorm_forward_layout(p, a, &layout);
  if (st != FUSEDNORM_OK) return st;
  fusednorm_launch plan;
  st = make_plan(p, 0, -1, layout, &plan);
  if (st != FUSEDNORM_OK) return st;

  const bool fused = p->has_residual != 0;
  /* At most twice: a grid-sum plan that cannot run is planned again once, without it. */
  for (int again = 0; plan.kernel == FUSEDNORM_KERNEL_FWD_WIDE; ++again) {
    fn::FwdWideParams k = {};
    fwd_params(k, p, a, layout);
    k.cluster = plan.ctas_per_row; k.chunk = (int)plan.chunk;
    k.grid_sum = plan.cluster == 1;
    /* the staged slots per thread, from the bytes the plan gave them (x, and r for the fused add;
     * with weight_smem, every slot's weight) */
    k.wstage = plan.weight_smem ? fn_fwd_wide_weight_bytes(p->x_dtype, p->w_dtype) : 0;
    k.staged = (int)fn_fwd_wide_staged(plan.smem_bytes, plan.block_threads, plan.slots_per_thread, fused ? 32 : 16,
                                       k.wstage);
    const void *kernel = fn::fwd_wide_kernel(p->x_dtype, plan.slots_per_thread, fused, plan.unaligned != 0, k.grid_sum,
                                              k.wstage != 0);
    if (!k.grid_sum || kernel == nullptr) return launch(kernel, plan, &k, stream, "rms_norm_fwd_wide launch");
    fusednorm_device_info info;
    st = device_info(-1, &info);
    if (st != FUSEDNORM_OK) return st;
    if (co_resident(kernel, plan.block_threads, plan.smem_bytes, plan.grid, info.sm_count))
      return launch(kernel, plan, &k, stream, "rms_norm_fwd_wide launch");
    /* The grid sum needs every CTA resident; where the compiled kernel's occupancy says otherwise
     * (a device shared with other work), AUTO runs the cluster plan where the code has clusters
     * (a forced WIDE's plan there), else the generic forward; a forced WIDE answers that its
     * family cannot run the problem here. */
    if (p->mode != FUSEDNORM_MODE_AUTO || again > 0) return FUSEDNORM_ERR_MODE_UNSUPPORTED;
    fusednorm_problem q = *p;
    q.mode = fn_fwd_wide_max_cluster(info.cc_major) >= 2 ? FUSEDNORM_MODE_WIDE : FUSEDNORM_MODE_MULTI_WAVE_RELOAD;
    st = make_plan(&q, 0, -1, layout, &plan);
    if (st != FUSEDNORM_OK) return st;
  }
  fn::FwdParams k = {};
  fwd_params(k, p, a, layout);
  k.team = plan.block_threads / plan.rows_per_cta;
  k.fused = fused;
  const void *kernel = nullptr;
  switch (plan.kernel) {
    case FUSEDNORM_KERNEL_FWD_PIPE: kernel = fn::fwd_pipe_kernel(p->x_dtype, plan.slots_per_thread, fused, plan.unaligned != 0); break;
    case FUSEDNORM_KERNEL_FWD_ROW: {
      const bool w32 = p->has_weight && p->w_dtype == FUSEDNORM_F32;
      if (k.nd.dims <= 1 && p->rows <= INT_MAX && plan.grid >= p->rows) {
        /* rows of one stride, one row per CTA: the lean instances, their packed parameter block */
        fn::LeanFwdParams t = lean_fwd_params(k);
        return launch(fn::fwd_row_kernel(p->x_dtype, plan.slots_per_thread, fused, w32, plan.unaligned != 0, true),
                      plan, &t, stream, "rms_norm_fwd_row_lean launch");
      }
      kernel = fn::fwd_row_kernel(p->x_dtype, plan.slots_per_thread, fused, w32, plan.unaligned != 0, false);
      break;
    }
    case FUSEDNORM_KERNEL_FWD_GENERIC:
      kernel = fn::fwd_kernel(p->x_dtype, plan.slots_per_thread);
      k.head_split = plan.unaligned;
      break;
    case FUSEDNORM_KERNEL_FWD_TILE:
      kernel = fn::fwd_tile_kernel(p->x_dtype, plan.slots_per_thread, fused);
      k.tile_rows = plan.rows_per_cta;
      k.team = fn_fwd_tile_lanes(p->n);
      break;
    case FUSEDNORM_KERNEL_FWD_TINY:
      if (k.nd.dims <= 1 && plan.slots_per_thread == 1 && p->rows <= INT_MAX &&
          (int64_t)plan.grid * (plan.block_threads / fn_tiny_lanes(p->n)) >= p->rows) {
        /* rows of one stride, a team per row in one step, 32-bit row indices: the lean
         * instances, their packed parameter block */
        fn::LeanFwdParams t = lean_fwd_params(k);
        return launch(fn::fwd_tiny_lean_kernel(p->x_dtype, fn_tiny_lanes(p->n), fused), plan, &t, stream,
                      "rms_norm_fwd_tiny_lean launch");
      }
      kernel = fn::fwd_tiny_kernel(p->x_dtype, plan.slots_per_thread, fused);
      k.team = fn_tiny_lanes(p->n);
      break;
    case FUSEDNORM_KERNEL_FWD_THREAD: kernel = fn::fwd_thread_kernel(p->x_dtype, (int)p->n, fused); break;
    case FUSEDNORM_KERNEL_FWD_WARP: {
      /* rows of one stride, at most INT_MAX of them (select.c fwd_warp): the packed parameter
       * block; rows a warp = the CTA's rows over its warps */
      fn::LeanFwdParams t = lean_fwd_params(k);
      if (plan.load_elems > 1) /* the sub-vector instance: two rows a warp, the plain forward */
        return launch(fused ? nullptr : fn::fwd_warp_vec_kernel(p->x_dtype, plan.load_elems, plan.slots_per_thread),
                      plan, &t, stream, "rms_norm_fwd_warp_vec launch");
      return launch(fn::fwd_warp_kernel(p->x_dtype, plan.slots_per_thread, fused,
                                        plan.rows_per_cta / (plan.block_threads / 32)),
                    plan, &t, stream, "rms_norm_fwd_warp launch");
    }
    case FUSEDNORM_KERNEL_FWD_LANES:
      kernel = fn::fwd_lanes_kernel(p->x_dtype, plan.slots_per_thread, fused, k.nd.dims > 1);
      k.team = fn_fwd_lanes_team(p->n / fn_vec_elems(p->x_dtype));
      break;
    default: break; /* a backward family: a bug in select.c */
  }
  return launch(kernel, plan, &k, stream, "rms_norm_fwd launch");
}

fusednorm_status fusednorm_backward_workspace_size_cuda(const fusednorm_problem *p, int device,
                                                        size_t *bytes) {
  if (bytes == nullptr) return FUSEDNORM_ERR_NULL_POINTER;
  fusednorm_status st = fn_validate_problem(p);
  if (st != FUSEDNORM_OK) return st;
  *bytes = 0;
  if (p->rows == 0) return FUSEDNORM_OK;
  fusednorm_device_info info;
  st = device_info(device, &info);
  if (st != FUSEDNORM_OK) return st;
  return fusednorm_select_workspace(p, &info, bytes); /* enough for every layout */
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
  fusednorm_layout layout;
  st = fusednorm_backward_layout(p, a, &layout);
  if (st != FUSEDNORM_OK) return st;
  fusednorm_launch plan;
  st = make_plan(p, 1, -1, layout, &plan);
  if (st != FUSEDNORM_OK) return st;
  float *ws = nullptr;
  if (p->has_weight) {
    if (a->workspace == nullptr || a->workspace_bytes < plan.workspace_bytes) return FUSEDNORM_ERR_WORKSPACE_TOO_SMALL;
    ws = reinterpret_cast<float *>(((uintptr_t)a->workspace + 15) & ~(uintptr_t)15);
  }
  const void *ds = p->has_residual ? a->ds : nullptr;

  if (plan.kernel == FUSEDNORM_KERNEL_BWD_SPLIT) {
    /* Partial-dot slots reset on the stream ("unpublished": all bits set, rmsnorm_bwd_wide.cu
     * kUnpublished), then one cooperative launch. */
    fn::SplitParams k;
    bwd_params(k, p, a, ws, layout);
    k.dots = ws + (size_t)plan.partial_rows * (size_t)p->n;
    k.gc = plan.ctas_per_row; k.gr = (int)plan.partial_rows; k.chunk = (int)plan.chunk;
    k.stages = plan.stages; k.lookahead = plan.lookahead;
    k.dw = plan.dw_in_kernel && p->has_weight ? a->dw : nullptr; /* one row group (select.c) */
    FN_CUDA_TRY(cudaMemsetAsync(k.dots, 0xff, (size_t)p->rows * (size_t)plan.ctas_per_row * sizeof(float), stream));
    const bool by_residue = plan.unaligned && k.nd.dims <= 1 &&
                            fn_bwd_row_by_residue(plan.partial_rows, p->rows, k.dy_stride,
                                                  (int64_t)fusednorm_dtype_size(p->x_dtype));
    st = launch(fn::bwd_split_kernel(p->x_dtype, plan.slots_per_thread, plan.unaligned != 0, plan.ds_direct != 0,
                                     by_residue),
                plan, &k, stream,
                "rms_norm_bwd_split launch");
  } else {
    fn::BwdParams k;
    bwd_params(k, p, a, ws, layout);
    k.team = plan.block_threads / plan.rows_per_cta; k.cluster = plan.cluster; k.chunk = (int)plan.chunk;
    k.dw_smem = plan.dw_smem;
    k.w_smem = plan.weight_smem;
    const void *kernel = nullptr;
    switch (plan.kernel) {
      case FUSEDNORM_KERNEL_BWD_PIPE:
        kernel = fn::bwd_pipe_kernel(p->x_dtype, plan.slots_per_thread, ds != nullptr, k.nd.dims > 1);
        break;
      case FUSEDNORM_KERNEL_BWD_ROW: {
        /* at most one row a CTA, head-split, one slot per thread, rows of at most
         * FN_BWD_ROW_U1_MAX_SLOTS: the instance without the staging, which needs no dynamic
         * shared memory */
        const int64_t xs = (int64_t)fusednorm_dtype_size(p->x_dtype);
        const bool one_row = plan.unaligned && plan.slots_per_thread == 1 && plan.grid >= p->rows &&
                             (p->n * xs + 15) / 16 <= FN_BWD_ROW_U1_MAX_SLOTS(xs);
        const bool by_residue = k.nd.dims <= 1 && fn_bwd_row_by_residue(plan.grid, p->rows, k.dy_stride, xs);
        kernel = fn::bwd_row_kernel(p->x_dtype, plan.slots_per_thread, ds != nullptr, plan.unaligned != 0, one_row,
                                    plan.weight_smem == 2, plan.narrow != 0, by_residue);
        if (one_row) plan.smem_bytes = 0;
        break;
      }
      case FUSEDNORM_KERNEL_BWD_GENERIC: kernel = fn::bwd_kernel(p->x_dtype, plan.slots_per_thread); break;
      case FUSEDNORM_KERNEL_BWD_WARP: kernel = fn::bwd_warp_kernel(p->x_dtype, plan.slots_per_thread, ds != nullptr); break;
      case FUSEDNORM_KERNEL_BWD_TINY:
        if (k.nd.dims <= 1 && plan.rows_per_cta >= p->rows &&
            plan.block_threads <= FN_TINY_BWD_LEAN_THREADS(plan.slots_per_thread)) {
          /* rows of one stride, one row a team (rows <= the CTA's teams, so 32-bit indices): the
           * lean instance, its packed parameter block */
          fn::LeanBwdParams t = {};
          t.dy = k.dy; t.s = k.s; t.w = k.w; t.rstd = k.rstd;
          t.dy_stride = k.dy_stride; t.s_stride = k.s_stride;
          t.rows = (int)p->rows; t.n = k.n; t.w_dtype = k.w_dtype; t.llama = k.llama;
          t.ds = k.ds; t.dx = k.dx; t.dw = p->has_weight ? a->dw : nullptr;
          t.ds_stride = k.ds_stride; t.dx_stride = k.dx_stride; t.offset = k.offset;
          return launch(fn::bwd_tiny_lean_kernel(p->x_dtype, plan.slots_per_thread, fn_tiny_lanes(p->n), ds != nullptr),
                        plan, &t, stream, "rms_norm_bwd_tiny_lean launch");
        }
        kernel = fn::bwd_tiny_kernel(p->x_dtype, plan.slots_per_thread, ds != nullptr);
        break;
      default: break; /* a forward family: a bug in select.c */
    }
    if (plan.kernel == FUSEDNORM_KERNEL_BWD_TINY) { /* one CTA writes dw itself */
      k.dw = p->has_weight ? a->dw : nullptr;
      return launch(kernel, plan, &k, stream, "rms_norm_bwd_tiny launch");
    }
    /* dw summed in the kernel needs every CTA resident (a grid-wide barrier); where the compiled
     * kernel's occupancy says otherwise, the two launches (the same sum). */
    if (plan.dw_in_kernel) {
      fusednorm_device_info info;
      if (kernel == nullptr || !p->has_weight || device_info(-1, &info) != FUSEDNORM_OK ||
          !co_resident(kernel, plan.block_threads, plan.smem_bytes, plan.grid, info.sm_count))
        plan.dw_in_kernel = 0;
    }
    k.dw = plan.dw_in_kernel ? a->dw : nullptr;
    st = launch(kernel, plan, &k, stream, "rms_norm_bwd launch");
  }
  if (st != FUSEDNORM_OK || !p->has_weight || plan.dw_in_kernel) return st;
  return launch_dw_reduce(p, plan, ws, a->dw, stream);
}

}  // extern "C"
