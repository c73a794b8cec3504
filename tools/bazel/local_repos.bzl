"""Repository rules for the system dependencies of the offline build: @cuda, @mpi, @hdf5, @torch.

Nothing is downloaded. Each rule looks for an installed copy (environment variable, then a tool on
PATH, then fixed Debian paths), symlinks its headers into the repository (so Bazel's include
checking sees declared files) and writes a BUILD file. When a dependency is missing the repository
still loads (so `bazel query //...` and unrelated targets keep working); every target of it then
depends on a genrule that fails with a message naming what to install. All rules are `local`:
they re-run when the Bazel server restarts, so a newly installed package is picked up.

Generated files, per repository:
  @cuda//:headers  @cuda//:cudart_static  @cuda//:defs.bzl (CUDA_HOME, NVCC, HOST_CC, CUDA_FOUND)
  @mpi//:mpi
  @hdf5//:hdf5  @hdf5//:hdf5_hl
  @torch//:headers  @torch//:libs  @torch//:defs.bzl (TORCH_FOUND, TORCH_VERSION, TORCH_LIB_DIR,
                                                      TORCH_PYTHON)
"""

_MISSING_BUILD = """
# {what} was not found when this repository was set up:
#   {why}
# Every target below fails at build time with that message; install it and rerun bazel
# (`bazel shutdown` or `bazel sync --configure` if the server already cached this result).
package(default_visibility = ["//visibility:public"])

genrule(
    name = "missing",
    outs = ["missing.h"],
    cmd = "echo 'fusednorm build: {what} not found: {why}. Install it ({hint}) and run `bazel shutdown`.' >&2; exit 1",
)
"""

_MISSING_LIB = """
cc_library(
    name = "{name}",
    hdrs = [":missing"],
)
"""

def _missing(rctx, what, why, hint, libs, extra = ""):
    build = _MISSING_BUILD.format(what = what, why = why.replace("'", ""), hint = hint)
    for lib in libs:
        build += _MISSING_LIB.format(name = lib)
    rctx.file("BUILD.bazel", build + extra)

def _env(rctx, name, default = None):
    v = rctx.os.environ.get(name, "")
    return v if v else default

def _symlink_dir(rctx, src, dst):
    """Links directory `src` as `dst` inside the repository; returns False if src is missing."""
    p = rctx.path(src)
    if not p.exists:
        return False
    rctx.symlink(p, dst)
    return True

def _shell_words(s):
    return [w for w in s.replace("\n", " ").replace("\t", " ").split(" ") if w]

# ---------------------------------------------------------------------------------------------
# @cuda: CUDA_HOME (or /usr/local/cuda). Headers for C/C++ code that calls the runtime, the static
# runtime (so binaries need no libcudart.so on the GPU machine; it dlopens libcuda.so.1 itself),
# and the nvcc / host compiler paths for tools/bazel/cuda.bzl.

def _cuda_impl(rctx):
    home = _env(rctx, "CUDA_HOME", _env(rctx, "CUDA_PATH", "/usr/local/cuda"))
    nvcc = rctx.path(home + "/bin/nvcc")

    # nvcc must use gcc 12 (the compiler Bazel uses for everything else, and one nvcc 13 supports).
    host_cc = _env(rctx, "CUDA_HOST_CC", None)
    if not host_cc:
        cc = rctx.which("gcc-12") or rctx.which("gcc")
        host_cc = str(cc) if cc else ""

    defs = "CUDA_HOME = %r\nNVCC = %r\nHOST_CC = %r\nCUDA_FOUND = %s\n"
    if not nvcc.exists or not rctx.path(home + "/include/cuda_runtime_api.h").exists:
        rctx.file("defs.bzl", defs % (home, "", host_cc, "False"))
        _missing(rctx, "CUDA toolkit", "no bin/nvcc and include/cuda_runtime_api.h under " + home,
                 "set CUDA_HOME or install CUDA 13 at /usr/local/cuda", ["headers", "cudart_static"],
                 extra = 'exports_files(["defs.bzl"])\n')
        return
    rctx.file("defs.bzl", defs % (home, str(nvcc), host_cc, "True"))

    _symlink_dir(rctx, home + "/include", "include")
    lib = home + "/lib64/libcudart_static.a"
    if not rctx.path(lib).exists:
        lib = home + "/targets/x86_64-linux/lib/libcudart_static.a"
    rctx.symlink(lib, "lib/libcudart_static.a")

    rctx.file("BUILD.bazel", """
package(default_visibility = ["//visibility:public"])

exports_files(["defs.bzl"])

# Only the runtime API headers and what they include (crt/); the full tree (cccl, nv, ...) is only
# read by nvcc itself, which finds it through its own absolute include path.
cc_library(
    name = "headers",
    hdrs = glob(["include/*.h", "include/*.hpp", "include/crt/**"]),
    includes = ["include"],
)

cc_library(
    name = "cudart_static",
    srcs = ["lib/libcudart_static.a"],
    linkopts = ["-ldl", "-lpthread", "-lrt"],
    deps = [":headers"],
)
""")

cuda_repository = repository_rule(
    implementation = _cuda_impl,
    environ = ["CUDA_HOME", "CUDA_PATH", "CUDA_HOST_CC", "PATH"],
    local = True,
)

# ---------------------------------------------------------------------------------------------
# @mpi: OpenMPI as `mpicc --showme:compile/--showme:link` reports it (MPICC overrides the wrapper),
# else the fixed Debian 12 / Ubuntu 24.04 paths.

def _mpi_impl(rctx):
    incs, linkopts = [], []
    mpicc = _env(rctx, "MPICC", None)
    mpicc = rctx.path(mpicc) if mpicc else rctx.which("mpicc")
    if mpicc:
        c = rctx.execute([mpicc, "--showme:compile"])
        l = rctx.execute([mpicc, "--showme:link"])
        if c.return_code == 0 and l.return_code == 0:
            for w in _shell_words(c.stdout):
                if w.startswith("-I"):
                    incs.append(w[2:])
            linkopts = [w for w in _shell_words(l.stdout) if w.startswith("-L") or w.startswith("-l") or w.startswith("-Wl,")]
    if not incs:
        for d in ["/usr/lib/x86_64-linux-gnu/openmpi/include"]:
            if rctx.path(d + "/mpi.h").exists:
                incs = [d, d + "/openmpi"]
                linkopts = ["-L/usr/lib/x86_64-linux-gnu/openmpi/lib", "-lmpi"]
    found = [d for d in incs if rctx.path(d + "/mpi.h").exists]
    if not found:
        _missing(rctx, "OpenMPI", "no mpicc on PATH and no mpi.h in the Debian paths",
                 "apt-get install libopenmpi-dev openmpi-bin", ["mpi"])
        return

    # Each include dir gets its own link (OpenMPI's second -I is a subdirectory of the first).
    names = []
    for i, d in enumerate(incs):
        if _symlink_dir(rctx, d, "include%d" % i):
            names.append("include%d" % i)
    rctx.file("BUILD.bazel", """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "mpi",
    hdrs = glob([{globs}]),
    includes = {names},
    linkopts = {linkopts},
)
""".format(
        globs = ", ".join(['"%s/**/*.h"' % n for n in names]),
        names = repr(names),
        linkopts = repr(linkopts),
    ))

mpi_repository = repository_rule(
    implementation = _mpi_impl,
    environ = ["MPICC", "PATH"],
    local = True,
)

# ---------------------------------------------------------------------------------------------
# @hdf5: serial HDF5 (Debian's libhdf5-dev: headers in /usr/include/hdf5/serial, libhdf5_serial.so;
# soname libhdf5_serial.so.103, the same on Ubuntu 24.04's runtime package). HDF5_INCLUDE_DIR /
# HDF5_LIB_DIR override the paths.

def _hdf5_impl(rctx):
    inc = _env(rctx, "HDF5_INCLUDE_DIR", "/usr/include/hdf5/serial")
    libdir = _env(rctx, "HDF5_LIB_DIR", "/usr/lib/x86_64-linux-gnu")
    if not rctx.path(inc + "/hdf5.h").exists:
        _missing(rctx, "serial HDF5", "no hdf5.h in " + inc,
                 "apt-get install libhdf5-dev", ["hdf5", "hdf5_hl"])
        return
    _symlink_dir(rctx, inc, "include")

    # Debian names the serial flavour libhdf5_serial; a plain build calls it libhdf5.
    suffix = "_serial" if rctx.path(libdir + "/libhdf5_serial.so").exists else ""
    rctx.file("BUILD.bazel", """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "hdf5",
    hdrs = glob(["include/*.h"]),
    includes = ["include"],
    linkopts = ["-L{libdir}", "-lhdf5{suffix}"],
)

cc_library(
    name = "hdf5_hl",
    linkopts = ["-L{libdir}", "-lhdf5{suffix}_hl"],
    deps = [":hdf5"],
)
""".format(libdir = libdir, suffix = suffix))

hdf5_repository = repository_rule(
    implementation = _hdf5_impl,
    environ = ["HDF5_INCLUDE_DIR", "HDF5_LIB_DIR"],
    local = True,
)

# ---------------------------------------------------------------------------------------------
# @torch: the torch that `python3` imports (PYTHON_BIN_PATH overrides the interpreter). Headers for
# the stable-ABI shim, and the library directory so a cc_binary(linkshared) can link
# -ltorch_cpu -ltorch_cuda by soname (the .so is loaded by torch itself, so no rpath is needed).

_TORCH_PROBE = """
import os, sys
import torch
d = os.path.dirname(os.path.abspath(torch.__file__))
print(d)
print(torch.__version__)
print(sys.executable)
"""

def _torch_impl(rctx):
    python = _env(rctx, "PYTHON_BIN_PATH", None)
    python = rctx.path(python) if python else rctx.which("python3")
    if not python:
        _missing(rctx, "python3 with torch", "no python3 on PATH", "pip install -r tools/requirements.txt",
                 ["headers", "libs"], extra = 'exports_files(["defs.bzl"])\n')
        rctx.file("defs.bzl", "TORCH_FOUND = False\nTORCH_VERSION = ''\nTORCH_LIB_DIR = ''\nTORCH_PYTHON = ''\n")
        return
    r = rctx.execute([python, "-c", _TORCH_PROBE], timeout = 120)
    if r.return_code != 0:
        last = (r.stderr.strip().split("\n") or [""])[-1]
        _missing(rctx, "torch", "`%s -c import torch` failed: %s" % (python, last),
                 "pip install -r tools/requirements.txt", ["headers", "libs"],
                 extra = 'exports_files(["defs.bzl"])\n')
        rctx.file("defs.bzl", "TORCH_FOUND = False\nTORCH_VERSION = ''\nTORCH_LIB_DIR = ''\nTORCH_PYTHON = %r\n" % str(python))
        return
    root, version, exe = r.stdout.strip().split("\n")[-3:]
    libdir = root + "/lib"
    for so in ["libtorch_cpu.so", "libtorch_cuda.so", "libc10.so"]:
        if not rctx.path(libdir + "/" + so).exists:
            _missing(rctx, "torch " + so, "torch %s at %s has no lib/%s (a CPU-only build?)" % (version, root, so),
                     "pip install the CUDA build: -r tools/requirements.txt", ["headers", "libs"],
                     extra = 'exports_files(["defs.bzl"])\n')
            rctx.file("defs.bzl", "TORCH_FOUND = False\nTORCH_VERSION = %r\nTORCH_LIB_DIR = ''\nTORCH_PYTHON = %r\n" % (version, exe))
            return
    _symlink_dir(rctx, root + "/include", "include")
    rctx.file("defs.bzl", "TORCH_FOUND = True\nTORCH_VERSION = %r\nTORCH_LIB_DIR = %r\nTORCH_PYTHON = %r\n" % (version, libdir, exe))
    rctx.file("BUILD.bazel", """
# torch {version} at {root} (found with {exe})
package(default_visibility = ["//visibility:public"])

exports_files(["defs.bzl"])

cc_library(
    name = "headers",
    hdrs = glob(["include/**/*.h", "include/**/*.hpp", "include/**/*.cuh"]),
    includes = ["include", "include/torch/csrc/api/include"],
)

# Link by soname against the installed torch: NEEDED libtorch_cpu.so / libtorch_cuda.so, resolved
# at load time from the torch that torch.ops.load_library runs in. No copy, no rpath.
cc_library(
    name = "libs",
    linkopts = ["-L{libdir}", "-ltorch_cpu", "-ltorch_cuda"],
)
""".format(version = version, root = root, exe = exe, libdir = libdir))

torch_repository = repository_rule(
    implementation = _torch_impl,
    environ = ["PYTHON_BIN_PATH", "PATH", "PYENV_VERSION", "VIRTUAL_ENV"],
    local = True,
)

def _version_impl(rctx):
    v = rctx.read(rctx.path(rctx.attr.src)).strip()
    parts = v.split(".")
    if len(parts) != 3 or not all([p.isdigit() for p in parts]):
        fail("%s: '%s' is not a version MAJOR.MINOR.PATCH" % (rctx.attr.src, v))
    rctx.file("BUILD", "")
    rctx.file("defs.bzl", '"""From %s (the one place the version is written)."""\n\nFUSEDNORM_VERSION = "%s"\n' % (rctx.attr.src, v))

# @fusednorm_version//:defs.bzl: FUSEDNORM_VERSION, read from the package's VERSION file (which the
# Python package and the wheel builder read too). Re-read whenever the file changes.
version_repository = repository_rule(
    implementation = _version_impl,
    attrs = {"src": attr.label(allow_single_file = True)},
)

def fusednorm_local_repositories():
    cuda_repository(name = "cuda")
    mpi_repository(name = "mpi")
    hdf5_repository(name = "hdf5")
    torch_repository(name = "torch")
    version_repository(name = "fusednorm_version", src = "//shim:python/fusednorm/VERSION")
