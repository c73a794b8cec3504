"""fusednorm.capture — record the RMSNorm calls of a running PyTorch job into HDF5 (data/FORMAT.md).

    import fusednorm
    with fusednorm.capture("norms.h5", model, steps=range(2), max_rows=2048) as cap:
        for batch in loader:
            loss = model(**batch).loss
            loss.backward()
            opt.step(); opt.zero_grad()
            cap.step()                       # advances the step counter (like torch.profiler)

then `bazel-bin/verify/replay norms.h5` (or `mpirun -np N ... norms*.h5`) replays every call through
fusednorm and scores it, and the job's own outputs, against float64.

What is hooked: `torch.nn.RMSNorm`, `fusednorm.RMSNorm`, the Hugging Face RMSNorm classes (Llama-style
casting, Gemma-style offset 1) and, while the context is open, the functions `fusednorm.rms_norm` /
`fusednorm.fused_add_rms_norm`; any other function with their signature via `Capture.wrap`.
Selection: layer-name regex, steps, rows per record (evenly strided, recorded in the file), a total row
budget and a record limit. One file per rank (torch.distributed, else the OpenMPI/torchrun environment).

The job's results do not change (a test checks the loss and every gradient bitwise): the hooks only read.
To get the gradients of *this* call (and not the sum over every use of a tensor), the norm is fed an
identity view of its input and weight (`view_as`, whose backward passes the gradient through
untouched) and the gradients of those views are read. Nothing random is drawn. Data leave the device
as each tensor becomes available and are written at once, so memory stays bounded by one record.

This module needs torch, numpy and h5py, not the compiled fusednorm ops (the sample maker uses it
without them). Calling the module itself works too: `fusednorm.capture(path, model, ...)`.
"""
import math
import os
import re
import sys
import threading
import types

import h5py
import numpy as np

FORMAT_NAME = "fusednorm-capture"
FORMAT_VERSION = 1
PRODUCER = "fusednorm.capture 0.1"
# Datasets above this many bytes are chunked by whole rows (FORMAT.md).
_CHUNK_BYTES = 1 << 20

__all__ = ["Capture", "CaptureWriter", "FORMAT_NAME", "FORMAT_VERSION", "encode", "decode"]


# ---------------------------------------------------------------------------------------------
# Low level: the file format (no torch needed)
# ---------------------------------------------------------------------------------------------

def encode(array, dtype):
    """numpy array -> (stored array, dtype name). f16/bf16 are kept as uint16 bit patterns."""
    if dtype == "f32":
        return np.ascontiguousarray(array, dtype=np.float32), "f32"
    if dtype in ("f16", "bf16"):
        if array.dtype == np.float16:
            array = array.view(np.uint16)
        if array.dtype != np.uint16:
            raise TypeError(f"{dtype} data must be given as uint16 bit patterns or float16")
        return np.ascontiguousarray(array), dtype
    raise ValueError(f"unknown dtype {dtype!r} (f32, f16, bf16)")


def decode(dataset):
    """h5py dataset -> float64 numpy array (exact; bf16/f16 bit patterns are widened)."""
    dtype = _attr_str(dataset.attrs["dtype"])
    raw = dataset[()]
    if dtype == "f32":
        return raw.astype(np.float64)
    if dtype == "f16":
        return raw.view(np.float16).astype(np.float64)
    if dtype == "bf16":
        return (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    raise ValueError(f"unknown dtype attribute {dtype!r}")


def _attr_str(v):
    return v.decode() if isinstance(v, bytes) else str(v)


class CaptureWriter:
    """Writes a version-1 capture file record by record. Usable without torch (tests, tools)."""

    def __init__(self, path, *, producer=PRODUCER, framework=None, description=None):
        self.path = path
        # libver earliest: readable by the HDF5 1.10 libraries of the GPU machines.
        self.file = h5py.File(path, "w", libver="earliest")
        a = self.file.attrs
        a["format"] = FORMAT_NAME
        a["format_version"] = np.int64(FORMAT_VERSION)
        a["producer"] = producer
        if framework:
            a["framework"] = framework
        if description:
            a["description"] = description
        self.records = self.file.create_group("records")
        self.count = 0

    def new_record(self, **attrs):
        """Creates /records/rNNNNNN with `attrs` (FORMAT.md names); returns the h5py group."""
        g = self.records.create_group(f"r{self.count:06d}")
        self.count += 1
        for k, v in attrs.items():
            if isinstance(v, bool):
                v = np.int64(v)
            elif isinstance(v, int):
                v = np.int64(v)
            elif isinstance(v, float):
                v = np.float64(v)
            elif isinstance(v, (tuple, list)):
                v = np.asarray(v, dtype=np.int64)
            g.attrs[k] = v
        return g

    @staticmethod
    def put(group, name, array, dtype):
        """Writes dataset `name` (may be 'job/y') with its dtype attribute."""
        data, dtype = encode(array, dtype)
        chunks = None
        if data.nbytes > _CHUNK_BYTES and data.ndim == 2:
            rows = max(1, _CHUNK_BYTES // max(1, data.shape[1] * data.itemsize))
            chunks = (min(rows, data.shape[0]), data.shape[1])
        # track_times=False: identical inputs give byte-identical files (the committed sample).
        ds = group.create_dataset(name, data=data, chunks=chunks, track_times=False)
        ds.attrs["dtype"] = dtype
        return ds

    def flush(self):
        self.file.attrs["record_count"] = np.int64(self.count)
        self.file.flush()

    def close(self):
        if self.file is not None:
            self.flush()
            self.file.close()
            self.file = None


# ---------------------------------------------------------------------------------------------
# torch side
# ---------------------------------------------------------------------------------------------

def _torch():
    import torch  # local: the writer above works without torch
    return torch


def _dtype_name(t):
    torch = _torch()
    return {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}.get(t.dtype)


def _to_numpy(t):
    """Detached CPU copy as (numpy array, dtype name); 16-bit floats as bit patterns."""
    torch = _torch()
    name = _dtype_name(t)
    if name is None:
        raise TypeError(f"dtype {t.dtype} is not capturable (f32, f16, bf16)")
    t = t.detach()
    if name == "f32":
        return t.to("cpu", copy=True).contiguous().numpy(), name
    return t.to("cpu", copy=True).contiguous().view(torch.int16).numpy().view(np.uint16), name


# HF classes by casting. Others named *RMSNorm with Llama's attributes are treated as Llama.
_HF_GEMMA = {"GemmaRMSNorm", "Gemma2RMSNorm", "Gemma3RMSNorm"}


def _classify(module, extra):
    """(impl, casting, offset, eps or None, weight attr name or None) for a norm module, else None."""
    torch = _torch()
    cls = type(module)
    if cls in extra:
        casting, offset = extra[cls]
        eps = getattr(module, "variance_epsilon", getattr(module, "eps", None))
        return cls.__name__, casting, float(offset), eps
    fn = sys.modules.get("fusednorm")
    fn_cls = getattr(fn, "RMSNorm", None) if fn is not None else None
    if isinstance(fn_cls, type) and isinstance(module, fn_cls):
        return ("fusednorm.RMSNorm", getattr(module, "casting", "fp32"),
                float(getattr(module, "offset", 0.0)), getattr(module, "eps", None))
    if isinstance(module, torch.nn.RMSNorm):
        return "torch.nn.RMSNorm", "fp32", 0.0, module.eps
    if cls.__module__.startswith("transformers.") and cls.__name__.endswith("RMSNorm"):
        if cls.__name__ in _HF_GEMMA:
            return cls.__name__, "gemma", 1.0, getattr(module, "eps", None)
        if hasattr(module, "variance_epsilon") and isinstance(
                getattr(module, "weight", None), torch.nn.Parameter):
            return cls.__name__, "llama", 0.0, module.variance_epsilon
    return None


def _rank_and_world():
    torch = _torch()
    dist = getattr(torch, "distributed", None)
    if dist is not None and dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    for r, w in (("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"), ("RANK", "WORLD_SIZE"),
                 ("PMI_RANK", "PMI_SIZE")):
        if r in os.environ:
            return int(os.environ[r]), int(os.environ.get(w, "1"))
    return 0, 1


class _Call:
    """State of one captured call between its forward and its backward."""
    __slots__ = ("group", "rows_sel", "n", "x_view", "r_view", "w_view", "w_orig", "meta",
                 "fused")


class Capture:
    """Context manager recording RMSNorm calls into an HDF5 file (see the module docstring).

    path        file name; "{rank}" is replaced by the rank, else with world_size > 1 ".rankN" is
                inserted before the extension (one file per rank, no parallel HDF5 needed)
    model       nn.Module whose norm submodules are hooked (names = module paths); None: hook every
                recognised norm module globally (names = Class#k)
    layers      regex searched in the layer name (None: all)
    steps       iterable of step numbers to capture (None: all); cap.step() advances the step
    max_rows    rows per record; larger calls are subsampled evenly (row_step recorded)
    row_budget  total rows in the file (None: unlimited); max_records likewise
    functional  also capture fusednorm.rms_norm / fused_add_rms_norm while open
    classes     {module class: (casting, offset)} for norm classes not recognised automatically
    """

    def __init__(self, path, model=None, *, layers=None, steps=None, max_rows=4096,
                 row_budget=None, max_records=None, model_name=None, functional=True,
                 classes=None, description=None, writer=None):
        torch = _torch()
        if max_rows is not None and max_rows < 1:
            raise ValueError("max_rows must be >= 1")
        self.rank, self.world_size = _rank_and_world()
        self.path = self._rank_path(path)
        self.model = model
        self.layers = re.compile(layers) if isinstance(layers, str) else layers
        self.steps = None if steps is None else set(int(s) for s in steps)
        self.max_rows = max_rows
        self.row_budget = row_budget
        self.max_records = max_records
        self.model_name = model_name or (type(model).__name__ if model is not None else "")
        self.functional = functional
        self.classes = dict(classes or {})
        self.description = description
        self.current_step = 0
        self.rows_written = 0
        self._calls_this_step = 0
        self._names = {}          # module -> layer name (global mode: Class#k)
        self._handles = []
        self._patched = []
        self._active = {}         # id(module) -> stack of _Call / None
        self._local = threading.local()
        self._lock = threading.Lock()
        # writer: an open CaptureWriter to share (several models into one file); not closed here.
        self.writer = writer
        self._own_writer = writer is None
        self._torch_version = torch.__version__

    # -- public ------------------------------------------------------------------------------
    def __enter__(self):
        self.open()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def open(self):
        torch = _torch()
        fw = f"torch {self._torch_version}"
        tf = sys.modules.get("transformers")
        if tf is not None:
            fw += f", transformers {tf.__version__}"
        if self.writer is None:
            self.writer = CaptureWriter(self.path, framework=fw, description=self.description)
        if self.model is not None:
            for name, m in self.model.named_modules():
                info = _classify(m, self.classes)
                if info is None:
                    continue
                self._names[m] = name
                self._hook_module(m)
        else:
            mm = torch.nn.modules.module
            self._handles.append(mm.register_module_forward_pre_hook(self._global_pre))
            self._handles.append(mm.register_module_forward_hook(self._global_post,
                                                                 always_call=True))
        if self.functional:
            self._patch_fusednorm_functions()
        return self

    def step(self):
        """Marks the end of a training step: flushes the file, advances the step counter."""
        if self.writer is not None:
            self.writer.flush()
        self.current_step += 1
        self._calls_this_step = 0

    def close(self):
        for h in self._handles:
            h.remove()
        self._handles = []
        for obj, name, orig in reversed(self._patched):
            setattr(obj, name, orig)
        self._patched = []
        if self.writer is not None and self._own_writer:
            self.writer.close()
        self.writer = None

    def wrap(self, fn, *, op="rms_norm", name=None, impl=None, casting="fp32", offset=0.0):
        """Returns fn wrapped so that its calls are captured. fn must have the signature of
        fusednorm.rms_norm (x, weight=None, eps=1e-6, *, offset, casting, ...) -> y, or, with
        op="fused_add_rms_norm", of fusednorm.fused_add_rms_norm (x, residual, weight=None,
        eps=1e-6, *, ...) -> (y, residual_out). casting/offset are the defaults when the call does
        not pass them."""
        if op not in ("rms_norm", "fused_add_rms_norm"):
            raise ValueError(f"op must be rms_norm or fused_add_rms_norm, not {op!r}")
        fused = op == "fused_add_rms_norm"
        label = name or getattr(fn, "__name__", "function")
        impl = impl or f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', label)}"
        counter = [-1, 0]   # [step, calls in that step]: names repeat step after step
        default_casting, default_offset = casting, offset

        def wrapper(*args, **kwargs):
            if getattr(self._local, "depth", 0) > 0 or self.writer is None:
                return fn(*args, **kwargs)   # inside a captured module: the module records it
            names = ["x", "residual", "weight", "eps"] if fused else ["x", "weight", "eps"]
            bound = dict(zip(names, args))
            extra_pos = args[len(names):]
            for k in names:
                if k in kwargs:
                    bound[k] = kwargs.pop(k)
            x = bound["x"]
            res = bound.get("residual")
            w = bound.get("weight")
            eps = bound.get("eps", 1e-6)
            if counter[0] != self.current_step:
                counter[:] = [self.current_step, 0]
            layer = f"{label}#{counter[1]}"
            counter[1] += 1
            call = self._begin(layer, x, res, w, casting=kwargs.get("casting", default_casting),
                               offset=kwargs.get("offset", default_offset), eps=eps,
                               op=op, impl=impl, shape_n=x.shape[-1] if x.dim() else 1)
            if call is None:
                return fn(*args, **kwargs)
            bound["x"] = call.x_view if call.x_view is not None else x
            if fused:
                bound["residual"] = call.r_view if call.r_view is not None else res
            if w is not None:
                bound["weight"] = call.w_view if call.w_view is not None else w
            pos = []
            for k in names:               # positional while contiguous, keywords after a gap
                if k not in bound:
                    break
                pos.append(bound.pop(k))
            if extra_pos and bound:
                raise TypeError(f"{label}: cannot mix extra positional arguments with a gap")
            out = fn(*pos, *extra_pos, **bound, **kwargs)
            if fused:
                return self._finish(call, out[0], out[1])
            return self._finish(call, out, None)

        wrapper.__wrapped__ = fn
        wrapper.__name__ = getattr(fn, "__name__", "wrapped")
        wrapper.__doc__ = getattr(fn, "__doc__", None)
        return wrapper

    # -- selection ---------------------------------------------------------------------------
    def _rank_path(self, path):
        path = os.fspath(path)
        if "{rank}" in path:
            return path.format(rank=self.rank)
        if self.world_size > 1:
            root, ext = os.path.splitext(path)
            return f"{root}.rank{self.rank}{ext or '.h5'}"
        return path

    def _selected(self, layer):
        if self.writer is None:
            return False
        if self.steps is not None and self.current_step not in self.steps:
            return False
        if self.layers is not None and not self.layers.search(layer):
            return False
        if self.max_records is not None and self.writer.count >= self.max_records:
            return False
        if self.row_budget is not None and self.rows_written >= self.row_budget:
            return False
        return True

    # -- module hooks ------------------------------------------------------------------------
    def _hook_module(self, m):
        self._handles.append(m.register_forward_pre_hook(self._module_pre, with_kwargs=True))
        self._handles.append(m.register_forward_hook(self._module_post, always_call=True))

    def _global_pre(self, module, args):
        if module not in self._names:
            if _classify(module, self.classes) is None:
                return None
            k = sum(1 for v in self._names.values() if v.startswith(type(module).__name__ + "#"))
            self._names[module] = f"{type(module).__name__}#{k}"
        res = self._module_pre(module, args, {})
        return None if res is None else res[0]

    def _global_post(self, module, args, output):
        if module in self._names:
            self._module_post(module, args, output)

    def _module_pre(self, module, args, kwargs):
        stack = self._active.setdefault(id(module), [])
        self._local.depth = getattr(self._local, "depth", 0) + 1
        x = args[0] if args else kwargs.get("hidden_states", kwargs.get("x", kwargs.get("input")))
        residual = args[1] if len(args) > 1 else kwargs.get("residual")
        info = _classify(module, self.classes)
        layer = self._names.get(module, type(module).__name__)
        call = None
        if info is not None and x is not None and self._selected(layer):
            impl, casting, offset, eps = info
            w = getattr(module, "weight", None)
            if eps is None:   # torch.nn.RMSNorm(eps=None) uses the machine epsilon of x
                eps = float(_torch().finfo(x.dtype).eps)
            call = self._begin(layer, x, residual, w, casting=casting, offset=offset, eps=eps,
                               op="rms_norm" if residual is None else "fused_add_rms_norm",
                               impl=impl,
                               shape_n=w.numel() if w is not None else x.shape[-1])
        stack.append(call)
        if call is None:
            return None
        if call.w_view is not None:
            call.w_orig = module._parameters["weight"]
            # The forward reads self.weight; an identity view makes dw of this call observable.
            module._parameters["weight"] = call.w_view
        if call.x_view is None and call.r_view is None:
            return None
        args, kwargs = list(args), dict(kwargs)
        for view, pos, names in ((call.x_view, 0, ("hidden_states", "x", "input")),
                                 (call.r_view, 1, ("residual",))):
            if view is None:
                continue
            if len(args) > pos:
                args[pos] = view
            else:
                for k in names:
                    if k in kwargs:
                        kwargs[k] = view
                        break
        return tuple(args), kwargs

    def _module_post(self, module, args, output):
        self._local.depth = max(0, getattr(self._local, "depth", 1) - 1)
        stack = self._active.get(id(module))
        call = stack.pop() if stack else None
        if call is None:
            return None
        if call.w_orig is not None:
            module._parameters["weight"] = call.w_orig
        if isinstance(output, tuple) and len(output) == 2 and call.fused:
            return self._finish(call, output[0], output[1])
        if output is None or not hasattr(output, "dtype"):
            return None   # forward raised (always_call) or returned something unexpected
        self._finish(call, output, None)
        return None

    # -- one call ----------------------------------------------------------------------------
    def _begin(self, layer, x, residual, weight, *, casting, offset, eps, op, impl, shape_n):
        """Writes the inputs of a selected call; returns the _Call or None (not capturable)."""
        torch = _torch()
        if not isinstance(x, torch.Tensor) or _dtype_name(x) is None or x.numel() == 0:
            return None
        n = int(shape_n)
        if n < 1 or x.numel() % n:
            return None
        rows_total = x.numel() // n
        step = 1
        if self.max_rows is not None and rows_total > self.max_rows:
            step = math.ceil(rows_total / self.max_rows)
        rows_sel = slice(0, None, step)
        nrows = len(range(rows_total)[rows_sel])
        with torch.no_grad():
            xs = self._rows(x, n, rows_sel)
            rs = self._rows(residual, n, rows_sel) if residual is not None else None
        xd = _dtype_name(x)
        wd = _dtype_name(weight) if weight is not None else "none"
        if weight is not None and wd is None:
            return None
        with self._lock:
            g = self.writer.new_record(
                op=op, casting=str(casting), eps=float(eps), offset=float(offset),
                has_weight=int(weight is not None), x_dtype=xd, w_dtype=wd,
                rows_total=rows_total, row_start=0, row_step=step, layer=layer,
                model=self.model_name, impl=impl, step=self.current_step,
                call=self._calls_this_step, rank=self.rank, world_size=self.world_size,
                shape=list(x.shape))
            self._calls_this_step += 1
            self.rows_written += nrows
            self.writer.put(g, "x", *_to_numpy(xs))
            if rs is not None:
                self.writer.put(g, "residual", *_to_numpy(rs))
            if weight is not None:
                self.writer.put(g, "weight", *_to_numpy(weight.reshape(-1)))
        call = _Call()
        call.group, call.rows_sel, call.n, call.meta = g, rows_sel, n, (layer,)
        call.fused = residual is not None
        call.w_orig = None
        grad = torch.is_grad_enabled()
        call.x_view = x.view_as(x) if grad and x.requires_grad else None
        call.r_view = (residual.view_as(residual)
                       if grad and residual is not None and residual.requires_grad else None)
        call.w_view = (weight.view_as(weight)
                       if grad and weight is not None and weight.requires_grad else None)
        return call

    def _finish(self, call, y, residual_out):
        """Writes the job's outputs and arms the gradient hooks of a call. Returns the outputs to
        hand to the caller: y, or (y, residual_out) for a fused add, where residual_out is then
        an identity view: an implementation may use the tensor it returns inside its own norm
        (an unfused x + r does), and only the view's gradient is the caller's ds."""
        torch = _torch()
        g = call.group
        if residual_out is not None and residual_out.requires_grad:
            residual_out = residual_out.view_as(residual_out)
        with torch.no_grad():
            self._put(g, "job/y", self._rows(y, call.n, call.rows_sel))
            if residual_out is not None:
                self._put(g, "job/residual_out", self._rows(residual_out, call.n, call.rows_sel))
        g.require_group("job").attrs["impl"] = g.attrs["impl"]
        sel, n = call.rows_sel, call.n
        # Hooks return None: they observe the gradient and never replace it.
        if y.requires_grad:
            y.register_hook(lambda grad: self._put(g, "dy", self._rows(grad, n, sel)))
        if residual_out is not None and residual_out.requires_grad:
            residual_out.register_hook(lambda grad: self._put(g, "ds", self._rows(grad, n, sel)))
        if call.x_view is not None:
            call.x_view.register_hook(lambda grad: self._put(g, "job/dx", self._rows(grad, n, sel)))
        if call.r_view is not None:
            call.r_view.register_hook(
                lambda grad: self._put(g, "job/dresidual", self._rows(grad, n, sel)))
        if call.w_view is not None:
            call.w_view.register_hook(lambda grad: self._put(g, "job/dw", grad.reshape(-1)))
        return y if residual_out is None else (y, residual_out)

    def _put(self, g, name, t):
        if self.writer is None or name in g:   # closed, or a second backward through the graph
            return None
        arr, dt = _to_numpy(t)
        with self._lock:
            self.writer.put(g, name, arr, dt)
        return None

    @staticmethod
    def _rows(t, n, sel):
        t = t.detach().reshape(-1, n)
        return t if sel.step == 1 else t[sel]

    # -- fusednorm functions -----------------------------------------------------------------
    def _patch_fusednorm_functions(self):
        fn = sys.modules.get("fusednorm")
        if fn is None:
            return
        for name, op in (("rms_norm", "rms_norm"), ("fused_add_rms_norm", "fused_add_rms_norm")):
            orig = getattr(fn, name, None)
            if orig is None:
                continue
            self._patched.append((fn, name, orig))
            setattr(fn, name, self.wrap(orig, op=op, name=f"fusednorm.{name}",
                                        impl=f"fusednorm.{name}"))


def capture(path, model=None, **kwargs):
    """fusednorm.capture(path, model=None, ...) -> Capture (a context manager); see Capture."""
    return Capture(path, model, **kwargs)


class _CallableModule(types.ModuleType):
    """Lets `fusednorm.capture(...)` work whether `fusednorm.capture` resolves to this module
    (lazy submodule import) or to the function above."""

    def __call__(self, *args, **kwargs):
        return Capture(*args, **kwargs)


if __name__ in sys.modules:   # absent when exec'd from a spec without registering it
    sys.modules[__name__].__class__ = _CallableModule
