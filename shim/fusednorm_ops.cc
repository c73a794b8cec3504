// fusednorm_ops.cc — torch.ops.fusednorm.*: the C API of kernels/include/fusednorm.h as torch ops.
//
// Built ONLY against the LibTorch stable ABI (torch/csrc/stable, the aoti_torch_* C shim, compiled
// with TORCH_TARGET_VERSION = 2.11), so one binary loads into torch 2.11 and later: the library
// must not reference any _ZN3c10 / _ZN2at / _ZN5torch symbol (shim/tests/check_symbols.sh).
//
// Contract of every op (shim/README.md "Ops contract"; numerics: kernels/README.md):
//   * inputs are [..., N]; the leading dims are the rows. Any tensor whose last dim is dense is
//     passed to the kernels as it is, its rows addressed through the strides of up to 4 merged
//     leading dims (row_space below); only the exceptions listed there are copied first.
//   * outputs are new contiguous tensors from the caching allocator (never views of inputs);
//     rstd is fp32 with the shape x.shape[:-1]; dw has the weight's dtype.
//   * the backward workspace is a uint8 tensor from the caching allocator on x's device, sized by
//     the C workspace query, so nothing is cudaMalloc'ed in the hot path (CUDA graphs work).
//   * CUDA: the kernels run on the caller's current stream, under a device guard for x's device.
//   * a C status != OK becomes a RuntimeError naming the op, the status string and the arguments.
#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/include/fusednorm.h"

namespace {

using torch::headeronly::ScalarType;
using torch::stable::Tensor;

// ---------------------------------------------------------------- descriptions for messages

const char *scalar_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Float: return "float32";
    case ScalarType::Half: return "float16";
    case ScalarType::BFloat16: return "bfloat16";
    case ScalarType::Double: return "float64";
    case ScalarType::Byte: return "uint8";
    case ScalarType::Char: return "int8";
    case ScalarType::Short: return "int16";
    case ScalarType::Int: return "int32";
    case ScalarType::Long: return "int64";
    case ScalarType::Bool: return "bool";
    case ScalarType::ComplexHalf: return "complex32";
    case ScalarType::ComplexFloat: return "complex64";
    case ScalarType::ComplexDouble: return "complex128";
    case ScalarType::Float8_e5m2: return "float8_e5m2";
    case ScalarType::Float8_e4m3fn: return "float8_e4m3fn";
    case ScalarType::Float8_e5m2fnuz: return "float8_e5m2fnuz";
    case ScalarType::Float8_e4m3fnuz: return "float8_e4m3fnuz";
    case ScalarType::UInt16: return "uint16";
    case ScalarType::UInt32: return "uint32";
    case ScalarType::UInt64: return "uint64";
    default: return "another dtype";
  }
}

const char *device_type_name(torch::stable::Device d) {
  switch (d.type()) {
    case torch::headeronly::DeviceType::CPU: return "cpu";
    case torch::headeronly::DeviceType::CUDA: return "cuda";
    case torch::headeronly::DeviceType::Meta: return "meta";
    default: return "an unsupported device type";
  }
}

std::string describe(const char *name, const Tensor &t) {
  std::ostringstream os;
  os << name << "=" << scalar_type_name(t.scalar_type()) << "[";
  auto sizes = t.sizes();
  auto strides = t.strides();
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? ", " : "") << sizes[i];
  os << "] strides (";
  for (size_t i = 0; i < strides.size(); ++i) os << (i ? ", " : "") << strides[i];
  torch::stable::Device d = t.device();
  os << ") on " << device_type_name(d);
  if (d.type() == torch::headeronly::DeviceType::CUDA) os << ":" << static_cast<int>(d.index());
  return os.str();
}

std::string describe(const char *name, const std::optional<Tensor> &t) {
  if (!t.has_value()) return std::string(name) + "=None";
  return describe(name, *t);
}

// The tensors of one call, by name, described only when a message needs them: building the
// description on every call would cost more than the kernel on small inputs.
struct ArgList {
  std::vector<std::pair<const char *, const std::optional<Tensor> *>> opt;
  std::vector<std::pair<const char *, const Tensor *>> req;
  std::vector<int> order;  // >= 0: req[i], < 0: opt[-1 - i]
  ArgList &add(const char *name, const Tensor &t) {
    order.push_back(static_cast<int>(req.size()));
    req.emplace_back(name, &t);
    return *this;
  }
  ArgList &add(const char *name, const std::optional<Tensor> &t) {
    order.push_back(-1 - static_cast<int>(opt.size()));
    opt.emplace_back(name, &t);
    return *this;
  }
  std::string str() const {
    std::string r;
    for (int i : order) {
      if (!r.empty()) r += ", ";
      r += i >= 0 ? describe(req[i].first, *req[i].second)
                  : describe(opt[-1 - i].first, *opt[-1 - i].second);
    }
    return r;
  }
};

[[noreturn]] void fail(const char *op, const std::string &why, const std::string &args) {
  throw std::runtime_error(std::string("fusednorm.") + op + ": " + why + " (" + args + ")");
}

// ---------------------------------------------------------------- argument conversion

bool to_fn_dtype(ScalarType t, fusednorm_dtype *out) {
  switch (t) {
    case ScalarType::Float: *out = FUSEDNORM_F32; return true;
    case ScalarType::Half: *out = FUSEDNORM_F16; return true;
    case ScalarType::BFloat16: *out = FUSEDNORM_BF16; return true;
    default: return false;
  }
}

bool parse_casting(const std::string &s, fusednorm_casting *out) {
  if (s == "fp32") { *out = FUSEDNORM_CAST_FP32; return true; }
  if (s == "llama") { *out = FUSEDNORM_CAST_LLAMA; return true; }
  if (s == "gemma") { *out = FUSEDNORM_CAST_GEMMA; return true; }
  return false;
}

// Mode names are the C library's own (fusednorm_mode_name), so the two can never disagree.
bool parse_mode(const std::optional<std::string> &s, fusednorm_mode *out) {
  if (!s.has_value()) { *out = FUSEDNORM_MODE_AUTO; return true; }
  for (int m = 0; m < FUSEDNORM_MODE_COUNT_; ++m) {
    const char *name = fusednorm_mode_name(static_cast<fusednorm_mode>(m));
    if (name != nullptr && *s == name) { *out = static_cast<fusednorm_mode>(m); return true; }
  }
  return false;
}

std::string mode_list() {
  std::string r = "None";
  for (int m = 0; m < FUSEDNORM_MODE_COUNT_; ++m) {
    const char *name = fusednorm_mode_name(static_cast<fusednorm_mode>(m));
    if (name != nullptr) r += std::string(", \"") + name + "\"";
  }
  return r;
}

std::vector<int64_t> sizes_of(const Tensor &t);

// ---------------------------------------------------------------- rows of a call
// Every [..., N] tensor of one call is addressed through the same leading dims (the problem's
// row_dims and row_shape, kernels/README.md "Layouts and strides"), each tensor with its own
// strides for them, so any layout whose last dim is dense reaches the kernels without a copy:
//   * leading dims of size 1 address nothing and are dropped;
//   * adjacent leading dims that every tensor of the call steps through as one (outer stride =
//     inner stride x inner size) are merged, so contiguous tensors and column slices have one dim;
//   * a tensor is copied to contiguous (a dispatcher call, the only copy an op makes) only when
//     its last dim is not dense, when its rows overlap by the C API's test (broadcast strides,
//     interleaved dims: kernels/src/common.c check_stride, mirrored in rows_valid), or when the
//     call would need more than FUSEDNORM_MAX_ROW_DIMS dims (or more than one dim with rows >=
//     2^31): then the tensors that do not collapse to one dim are copied.
struct RowSpace {
  int dims = 1;                              // problem.row_dims
  int64_t shape[FUSEDNORM_MAX_ROW_DIMS] = {0, 0, 0, 0};
  int64_t rows = 0, n = 0;
  std::vector<Tensor> t;                     // the tensors handed to the kernels
  std::vector<std::vector<int64_t>> str;     // per tensor: one stride per dim, outermost first
};

struct Group {
  int64_t size;
  int64_t inner, outer;  // innermost and outermost leading dim of the group
};

using Strides = std::vector<int64_t>;

Strides strides_of(const Tensor &t) {
  auto s = t.strides();
  return Strides(s.begin(), s.end());
}

// The merged dims (outermost first) of the leading dims `lead` (sizes > 1) for the tensors whose
// strides are `ts`.
std::vector<Group> merge_dims(const std::vector<int64_t> &sizes, const std::vector<int64_t> &lead,
                              const std::vector<const Strides *> &ts) {
  std::vector<Group> g;
  for (size_t j = lead.size(); j-- > 0;) {
    const int64_t i = lead[j];
    bool merge = !g.empty();
    for (const Strides *t : ts)
      if (merge && (*t)[i] != (*t)[g.back().outer] * sizes[g.back().outer]) merge = false;
    if (merge) {
      g.back().size *= sizes[i];
      g.back().outer = i;
    } else {
      g.push_back({sizes[i], i, i});
    }
  }
  return std::vector<Group>(g.rbegin(), g.rend());
}

// The C API's row test (kernels/src/common.c check_stride) for one tensor in dims `g`.
bool rows_valid(const Strides &t, const std::vector<Group> &g, int64_t n) {
  if (g.size() <= 1) return g.empty() || t[g[0].inner] >= n;
  std::vector<std::pair<int64_t, int64_t>> d;  // (stride, size)
  for (const Group &x : g) d.push_back({t[x.inner], x.size});
  std::sort(d.begin(), d.end());
  int64_t span = n;
  for (const auto &e : d) {
    if (e.first < span) return false;
    span += e.first * (e.second - 1);
  }
  return true;
}

RowSpace row_space(std::vector<Tensor> ts) {
  RowSpace r;
  const std::vector<int64_t> sizes = sizes_of(ts[0]);
  const int64_t last = static_cast<int64_t>(sizes.size()) - 1;
  r.n = sizes[last];
  r.rows = 1;
  std::vector<int64_t> lead;
  for (int64_t i = 0; i < last; ++i) {
    r.rows *= sizes[i];
    if (sizes[i] != 1) lead.push_back(i);
  }
  std::vector<Strides> st;
  for (Tensor &t : ts) {
    st.push_back(strides_of(t));
    if (r.n > 1 && st.back()[last] != 1) {
      t = torch::stable::contiguous(t);
      st.back() = strides_of(t);
    }
  }
  std::vector<Group> g;
  if (r.rows > 0) {
    for (;;) {  // each pass copies at least one tensor or ends: at most ts.size() + 1 passes
      std::vector<const Strides *> all;
      for (const Strides &x : st) all.push_back(&x);
      g = merge_dims(sizes, lead, all);
      const bool too_many = g.size() > FUSEDNORM_MAX_ROW_DIMS || (g.size() > 1 && r.rows > INT32_MAX);
      bool copied = false;
      for (size_t k = 0; k < ts.size(); ++k) {
        const bool keep = too_many ? merge_dims(sizes, lead, {&st[k]}).size() <= 1 : rows_valid(st[k], g, r.n);
        if (!keep && !ts[k].is_contiguous()) {
          ts[k] = torch::stable::contiguous(ts[k]);
          st[k] = strides_of(ts[k]);
          copied = true;
        }
      }
      if (!copied) break;
    }
  }
  r.dims = g.size() > 1 ? static_cast<int>(g.size()) : 1;
  if (g.size() > 1)
    for (size_t k = 0; k < g.size(); ++k) r.shape[k] = g[k].size;
  for (const Strides &t : st) {
    std::vector<int64_t> s;
    if (g.empty()) s.push_back(r.n);  // one row (or none): any stride >= n describes it
    for (const Group &x : g) s.push_back(t[x.inner]);
    r.str.push_back(s);
  }
  r.t = std::move(ts);
  return r;
}

// Strides of a contiguous [..., N] output in the call's dims.
std::vector<int64_t> dense_strides(const RowSpace &r) {
  std::vector<int64_t> st(r.dims);
  int64_t s = r.n;
  for (int k = r.dims - 1; k >= 0; --k) {
    st[k] = s;
    if (r.dims > 1) s *= r.shape[k];
  }
  return st;
}

// One tensor's strides into its argument fields: the innermost dim's stride and the outer block.
void put_strides(const std::vector<int64_t> &st, int64_t *stride, int64_t *outer) {
  *stride = st.back();
  for (size_t k = 0; k + 1 < st.size(); ++k) outer[k] = st[k];
}

void set_dims(fusednorm_problem &p, const RowSpace &r) {
  p.row_dims = r.dims;
  for (int k = 0; k < FUSEDNORM_MAX_ROW_DIMS; ++k) p.row_shape[k] = r.shape[k];
}

std::vector<int64_t> sizes_of(const Tensor &t) {
  auto s = t.sizes();
  return std::vector<int64_t>(s.begin(), s.end());
}

// Everything an op call shares: the validated problem and where it runs.
struct Call {
  const char *op;
  const ArgList *args;  // described only for error messages
  fusednorm_problem p;
  bool cuda = false;
  int32_t device = -1;
};

[[noreturn]] void fail(const Call &c, const std::string &why) { fail(c.op, why, c.args->str()); }

// `others` are the activation tensors that must match x in dtype and shape; `rstd` (backward)
// must be fp32 with one value per row. Every tensor must be on x's device: a mixed call would
// otherwise reach a kernel that reads another device's memory (CPU x with a CUDA weight), or,
// with a meta tensor among the inputs, be dispatched to the shape-only meta kernel.
Call make_call(const char *op, const ArgList &args, const Tensor &x,
               const std::optional<Tensor> &weight, const std::vector<const Tensor *> &others,
               const Tensor *rstd, double eps, double offset, const std::string &casting,
               const std::optional<std::string> &mode) {
  Call c;
  c.op = op;
  c.args = &args;
  fusednorm_dtype xd, wd;
  if (!to_fn_dtype(x.scalar_type(), &xd))
    fail(c, std::string("unsupported dtype ") + scalar_type_name(x.scalar_type()) +
                " (supported: float32, float16, bfloat16)");
  wd = xd;
  if (x.dim() < 1) fail(c, "inputs must have at least 1 dimension [..., N]");
  const torch::stable::Device dev = x.device();
  c.cuda = dev.type() == torch::headeronly::DeviceType::CUDA;
  if (!c.cuda && dev.type() != torch::headeronly::DeviceType::CPU)
    fail(c, std::string("tensors must be on a CPU or CUDA device, x is on ") +
                device_type_name(dev));
  c.device = c.cuda ? dev.index() : -1;
  auto check_device = [&](const char *what, const Tensor &t) {
    if (!(t.device() == dev))
      fail(c, std::string("device mismatch: ") + what + " is on " +
                  device_type_name(t.device()) + ", x on " + device_type_name(dev) +
                  "; every tensor must be on x's device");
  };
  const int64_t n = x.size(x.dim() - 1);
  for (const Tensor *t : others) {
    if (t->scalar_type() != x.scalar_type())
      fail(c, "dtype mismatch: every activation tensor must have the dtype of x");
    check_device("an activation tensor", *t);
    if (sizes_of(*t) != sizes_of(x))
      fail(c, "shape mismatch: every activation tensor must have x's shape");
  }
  if (weight.has_value()) {
    if (!to_fn_dtype(weight->scalar_type(), &wd))
      fail(c, std::string("unsupported weight dtype ") + scalar_type_name(weight->scalar_type()) +
                  " (supported: float32, float16, bfloat16)");
    check_device("weight", *weight);
    if (weight->dim() != 1 || weight->size(0) != n)
      fail(c, "weight must have shape [N] with N = x.shape[-1]");
  }
  int64_t rows = 1;
  for (int64_t i = 0; i + 1 < x.dim(); ++i) rows *= x.size(i);
  if (rstd != nullptr) {
    check_device("rstd", *rstd);
    if (rstd->scalar_type() != ScalarType::Float || rstd->numel() != rows)
      fail(c, "rstd must be the float32 x.shape[:-1] tensor the forward returned");
  }
  c.p = fusednorm_problem_init(rows, n, xd, wd);
  if (!parse_casting(casting, &c.p.casting))
    fail(c, "casting must be \"fp32\", \"llama\" or \"gemma\", got \"" + casting + "\"");
  if (!parse_mode(mode, &c.p.mode))
    fail(c, "mode must be one of " + mode_list() + ", got \"" + *mode + "\"");
  c.p.eps = static_cast<float>(eps);
  c.p.offset = static_cast<float>(offset);
  c.p.has_weight = weight.has_value() ? 1 : 0;
  return c;
}

void check_status(const Call &c, fusednorm_status st) {
  if (st == FUSEDNORM_OK) return;
  std::ostringstream why;
  why << fusednorm_status_string(st) << " [status " << static_cast<int>(st) << "]";
  if (st == FUSEDNORM_ERR_CUDA) why << ": " << fusednorm_cuda_error_string();
  why << "; rows=" << c.p.rows << " n=" << c.p.n;
  const char *mn = fusednorm_mode_name(c.p.mode);
  why << " mode=" << (mn ? mn : "?");
  fail(c, why.str());
}

#ifdef USE_CUDA
cudaStream_t current_stream(int32_t device) {
  void *s = nullptr;
  TORCH_ERROR_CODE_CHECK(aoti_torch_get_current_cuda_stream(device, &s));
  return static_cast<cudaStream_t>(s);
}
#endif

// Device guard only where it matters: constructing one for the CPU would pick an accelerator.
struct MaybeDeviceGuard {
  std::optional<torch::stable::accelerator::DeviceGuard> g;
  explicit MaybeDeviceGuard(const Call &c) {
    if (c.cuda) g.emplace(c.device);
  }
};

fusednorm_status run_forward(const Call &c, const fusednorm_fwd_args &a) {
  if (!c.cuda) return fusednorm_forward_cpu(&c.p, &a);
#ifdef USE_CUDA
  return fusednorm_forward_cuda(&c.p, &a, current_stream(c.device));
#else
  fail(c, "this build of fusednorm has no CUDA support");
#endif
}

fusednorm_status workspace_bytes(const Call &c, size_t *bytes) {
  if (!c.cuda) return fusednorm_backward_workspace_size_cpu(&c.p, bytes);
#ifdef USE_CUDA
  return fusednorm_backward_workspace_size_cuda(&c.p, c.device, bytes);
#else
  fail(c, "this build of fusednorm has no CUDA support");
#endif
}

fusednorm_status run_backward(const Call &c, const fusednorm_bwd_args &a) {
  if (!c.cuda) return fusednorm_backward_cpu(&c.p, &a);
#ifdef USE_CUDA
  return fusednorm_backward_cuda(&c.p, &a, current_stream(c.device));
#else
  fail(c, "this build of fusednorm has no CUDA support");
#endif
}

// The weight goes to the kernels as a dense [N] vector.
std::optional<Tensor> dense_weight(const std::optional<Tensor> &w) {
  if (!w.has_value()) return std::nullopt;
  return w->is_contiguous() ? *w : torch::stable::contiguous(*w);
}

std::vector<int64_t> leading_sizes(const Tensor &x) {
  std::vector<int64_t> s = sizes_of(x);
  s.pop_back();
  return s;
}

// ---------------------------------------------------------------- forward

std::tuple<Tensor, Tensor> rms_norm_fwd(Tensor x, std::optional<Tensor> weight, double eps,
                                        double offset, std::string casting,
                                        std::optional<std::string> mode) {
  const char *op = "rms_norm_fwd";
  ArgList args;
  args.add("x", x).add("weight", weight);
  Call c = make_call(op, args, x, weight, {}, nullptr, eps, offset, casting, mode);
  MaybeDeviceGuard guard(c);
  RowSpace rs = row_space({x});
  set_dims(c.p, rs);
  std::optional<Tensor> w = dense_weight(weight);
  Tensor y = torch::stable::new_empty(x, sizes_of(x));
  Tensor rstd = torch::stable::new_empty(x, leading_sizes(x), ScalarType::Float);
  fusednorm_fwd_args a{};
  a.x = rs.t[0].const_data_ptr();
  put_strides(rs.str[0], &a.x_stride, a.x_outer);
  a.weight = w ? w->const_data_ptr() : nullptr;
  a.y = y.mutable_data_ptr();
  put_strides(dense_strides(rs), &a.y_stride, a.y_outer);
  a.rstd = static_cast<float *>(rstd.mutable_data_ptr());
  check_status(c, run_forward(c, a));
  return {y, rstd};
}

std::tuple<Tensor, Tensor, Tensor> fused_add_rms_norm_fwd(Tensor x, Tensor residual,
                                                          std::optional<Tensor> weight, double eps,
                                                          double offset, std::string casting,
                                                          std::optional<std::string> mode) {
  const char *op = "fused_add_rms_norm_fwd";
  ArgList args;
  args.add("x", x).add("residual", residual).add("weight", weight);
  Call c = make_call(op, args, x, weight, {&residual}, nullptr, eps, offset, casting, mode);
  c.p.has_residual = 1;
  MaybeDeviceGuard guard(c);
  RowSpace rs = row_space({x, residual});
  set_dims(c.p, rs);
  std::optional<Tensor> w = dense_weight(weight);
  Tensor y = torch::stable::new_empty(x, sizes_of(x));
  Tensor residual_out = torch::stable::new_empty(x, sizes_of(x));
  Tensor rstd = torch::stable::new_empty(x, leading_sizes(x), ScalarType::Float);
  const std::vector<int64_t> dense = dense_strides(rs);
  fusednorm_fwd_args a{};
  a.x = rs.t[0].const_data_ptr();
  put_strides(rs.str[0], &a.x_stride, a.x_outer);
  a.residual = rs.t[1].const_data_ptr();
  put_strides(rs.str[1], &a.residual_stride, a.residual_outer);
  a.weight = w ? w->const_data_ptr() : nullptr;
  a.y = y.mutable_data_ptr();
  put_strides(dense, &a.y_stride, a.y_outer);
  a.residual_out = residual_out.mutable_data_ptr();
  put_strides(dense, &a.residual_out_stride, a.residual_out_outer);
  a.rstd = static_cast<float *>(rstd.mutable_data_ptr());
  check_status(c, run_forward(c, a));
  return {y, residual_out, rstd};
}

// ---------------------------------------------------------------- backward

std::tuple<Tensor, std::optional<Tensor>> backward_impl(const char *op, const Tensor &dy,
                                                        const Tensor &s,
                                                        const std::optional<Tensor> &ds,
                                                        const std::optional<Tensor> &weight,
                                                        const Tensor &rstd, double eps,
                                                        double offset, const std::string &casting,
                                                        const std::optional<std::string> &mode,
                                                        bool fused) {
  ArgList args;
  args.add("dy", dy).add("s", s);
  if (fused) args.add("ds", ds);
  args.add("weight", weight).add("rstd", rstd);
  std::vector<const Tensor *> same{&dy};
  if (ds.has_value()) same.push_back(&*ds);
  Call c = make_call(op, args, s, weight, same, &rstd, eps, offset, casting, mode);
  c.p.has_residual = fused ? 1 : 0;
  MaybeDeviceGuard guard(c);
  std::vector<Tensor> ins{dy, s};
  if (ds.has_value()) ins.push_back(*ds);
  RowSpace rs = row_space(ins);
  set_dims(c.p, rs);
  std::optional<Tensor> w = dense_weight(weight);
  Tensor rstd_c = rstd.is_contiguous() ? rstd : torch::stable::contiguous(rstd);
  Tensor dx = torch::stable::new_empty(s, sizes_of(s));
  std::optional<Tensor> dw;
  if (w.has_value()) dw = torch::stable::new_empty(*w, {c.p.n});
  size_t ws_bytes = 0;
  check_status(c, workspace_bytes(c, &ws_bytes));
  std::optional<Tensor> ws;
  if (ws_bytes > 0)
    ws = torch::stable::new_empty(s, {static_cast<int64_t>(ws_bytes)}, ScalarType::Byte);
  fusednorm_bwd_args a{};
  a.dy = rs.t[0].const_data_ptr();
  put_strides(rs.str[0], &a.dy_stride, a.dy_outer);
  a.s = rs.t[1].const_data_ptr();
  put_strides(rs.str[1], &a.s_stride, a.s_outer);
  if (ds.has_value()) {
    a.ds = rs.t[2].const_data_ptr();
    put_strides(rs.str[2], &a.ds_stride, a.ds_outer);
  }
  a.weight = w ? w->const_data_ptr() : nullptr;
  a.rstd = static_cast<const float *>(rstd_c.const_data_ptr());
  a.dx = dx.mutable_data_ptr();
  put_strides(dense_strides(rs), &a.dx_stride, a.dx_outer);
  a.dw = dw ? dw->mutable_data_ptr() : nullptr;
  a.workspace = ws ? ws->mutable_data_ptr() : nullptr;
  a.workspace_bytes = ws_bytes;
  check_status(c, run_backward(c, a));
  return {dx, dw};
}

std::tuple<Tensor, std::optional<Tensor>> rms_norm_bwd(Tensor dy, Tensor s,
                                                       std::optional<Tensor> weight, Tensor rstd,
                                                       double eps, double offset,
                                                       std::string casting,
                                                       std::optional<std::string> mode) {
  return backward_impl("rms_norm_bwd", dy, s, std::nullopt, weight, rstd, eps, offset, casting,
                       mode, false);
}

std::tuple<Tensor, std::optional<Tensor>> fused_add_rms_norm_bwd(
    Tensor dy, Tensor s, std::optional<Tensor> ds, std::optional<Tensor> weight, Tensor rstd,
    double eps, double offset, std::string casting, std::optional<std::string> mode) {
  return backward_impl("fused_add_rms_norm_bwd", dy, s, ds, weight, rstd, eps, offset, casting,
                       mode, true);
}

}  // namespace

// `s` is what the forward normalized: x for the plain op, residual_out for the fused add.
// `ds` is the gradient flowing into residual_out from its other uses (None: no other use).
STABLE_TORCH_LIBRARY(fusednorm, m) {
  m.def("rms_norm_fwd(Tensor x, Tensor? weight, float eps, float offset, str casting, str? mode)"
        " -> (Tensor y, Tensor rstd)");
  m.def("fused_add_rms_norm_fwd(Tensor x, Tensor residual, Tensor? weight, float eps,"
        " float offset, str casting, str? mode) -> (Tensor y, Tensor residual_out, Tensor rstd)");
  m.def("rms_norm_bwd(Tensor dy, Tensor s, Tensor? weight, Tensor rstd, float eps, float offset,"
        " str casting, str? mode) -> (Tensor dx, Tensor? dw)");
  m.def("fused_add_rms_norm_bwd(Tensor dy, Tensor s, Tensor? ds, Tensor? weight, Tensor rstd,"
        " float eps, float offset, str casting, str? mode) -> (Tensor dx, Tensor? dw)");
}

STABLE_TORCH_LIBRARY_IMPL(fusednorm, CPU, m) {
  m.impl("rms_norm_fwd", TORCH_BOX(&rms_norm_fwd));
  m.impl("fused_add_rms_norm_fwd", TORCH_BOX(&fused_add_rms_norm_fwd));
  m.impl("rms_norm_bwd", TORCH_BOX(&rms_norm_bwd));
  m.impl("fused_add_rms_norm_bwd", TORCH_BOX(&fused_add_rms_norm_bwd));
}

#ifdef USE_CUDA
STABLE_TORCH_LIBRARY_IMPL(fusednorm, CUDA, m) {
  m.impl("rms_norm_fwd", TORCH_BOX(&rms_norm_fwd));
  m.impl("fused_add_rms_norm_fwd", TORCH_BOX(&fused_add_rms_norm_fwd));
  m.impl("rms_norm_bwd", TORCH_BOX(&rms_norm_bwd));
  m.impl("fused_add_rms_norm_bwd", TORCH_BOX(&fused_add_rms_norm_bwd));
}
#endif
