"""cuda_library: compile .cu files with nvcc into objects any cc_library / cc_test / cc_binary
(static or linkshared) can depend on.

    load("//tools/bazel:cuda.bzl", "cuda_library")
    cuda_library(
        name = "kernels_cuda",
        srcs = glob(["cuda/*.cu"]),
        hdrs = glob(["cuda/*.cuh"]) + ["include/fusednorm.h"],
        deps = [...],            # cc_library deps: their headers, includes and defines reach nvcc
        copts = [...],           # extra nvcc flags
    )

Each .cu is one nvcc call (whole-program compilation, no -rdc, so no device-link step is needed)
producing position-independent objects for every architecture at once (nvcc --threads 0 compiles
the architectures of one call in parallel). The result carries a CcInfo with its headers and a
static archive, linked against the static CUDA runtime (@cuda//:cudart_static: binaries need only
the driver's libcuda.so.1 on the GPU machine). Include root: the workspace root and the bin
(genfiles) dir, so `#include "kernels/include/fusednorm.h"` works in .cu files exactly as in .c
files.

GPU architectures — the ONE place they are chosen: DEFAULT_CUDA_ARCHS below.
    default: SASS for every NVIDIA training GPU generation, plus PTX for GPUs that come after them
    (the driver JIT-compiles PTX for a newer device at load time):
        sm_80    A100, A30                      sm_90a   H100, H200 (Hopper-only instructions)
        sm_86    A10, A40, RTX 30xx, RTX A6000  sm_100   B200, GB200, B300 (CC 10.x)
        sm_89    L4, L40S, RTX 40xx             sm_120   RTX 50xx, RTX PRO 6000 (CC 12.x)
        compute_100 PTX (any GPU of CC >= 10.0 without its own SASS above: 11.x, 13.x, ...)
    sm_100 rather than sm_100a: the kernels use no Blackwell-only instruction, and sm_100 SASS
    also runs on CC 10.3 (B300) where sm_100a SASS does not.
    `sm_86@compute_80`: sm_86 SASS compiled (ptxas) from the compute_80 PTX instead of its own. The
    front end (cicc, ~60% of a kernel file's compile time) then runs once a PTX, not once a SASS:
    3 times instead of 7 for the default. The kernels' device code tells architectures apart only
    at 900 (FN_HAS_CLUSTERS, griddepcontrol), so compute_80/86/89 PTX are the same text but for
    the .target line, and so are compute_100/120; ptxas gives the same SASS from either (nvcc 13.0,
    kernels/cuda/*.cu: tools/bazel/README.md).
    override: bazel build --define=cuda_archs=LIST //...
        LIST is comma separated; `sm_XY[a|f]` adds SASS (-gencode=arch=compute_XY[a|f],code=sm_XY[a|f]),
        `sm_XY@compute_V` adds SASS from compute_V's PTX (V <= XY; an arch-specific `a` PTX only for
        its own SASS, a family `f` PTX only within its major), `compute_XY[a|f]` adds PTX. Entries
        with one PTX source share one -gencode (one front-end run).
        e.g. --define=cuda_archs=sm_90a,compute_90 (a Hopper-only build: one SASS, ~6x faster),
             --define=cuda_archs=compute_80 (PTX only: every GPU JIT-compiles the sm_80 code path)
    --define=cuda_ptxas_verbose=1 adds `-Xptxas -v` (registers, spills, smem per kernel).
    //tools/bazel:cuda_archs writes the images of the list in effect to cuda_archs.txt, one a line
    without the `@` source (the fatbin checks read it).

nvcc runs with -O3 -std=c++17 -lineinfo -Xcompiler -fPIC, the fatbin compressed, and gcc 12 as
host compiler (@cuda found it; CUDA_HOST_CC overrides). Targets built here also compile on a
machine without a GPU. The line table (source view in Nsight Compute) is kept; the driver
decompresses only the image it loads.
    --define=cuda_compress=balance (default): `--compress-mode=balance -Xfatbin=-compress-all`
        (zstd on every image, ~1 s of fatbinary a file). rmsnorm_fwd_row.cu, the default seven
        images: 10.4 MB of fatbin (nvcc 13.0).
    --define=cuda_compress=size: `--compress-mode=size`: the same file 7.0 MB, but fatbinary
        takes ~70 s of it (a third of the file's nvcc time); for the smallest artifact (a GPU
        bundle that has to fit the device tool's carry).
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("@cuda//:defs.bzl", "CUDA_FOUND", "HOST_CC", "NVCC")

DEFAULT_CUDA_ARCHS = "sm_80,sm_86@compute_80,sm_89@compute_80,sm_90a,sm_100,sm_120@compute_100,compute_100"

def cuda_archs(ctx):
    """The architecture list in effect: --define=cuda_archs=... or the default."""
    return ctx.var.get("cuda_archs", DEFAULT_CUDA_ARCHS)

def _arch_parts(a, what):
    """'sm_90a' -> ('sm', 90, 'a'); fails unless a is sm_XY[a|f] or compute_XY[a|f]."""
    kind, _, rest = a.partition("_")
    suffix = rest[-1:] if rest[-1:] in ("a", "f") else ""
    num = rest[:len(rest) - len(suffix)]
    if kind not in ("sm", "compute") or not num.isdigit():
        fail("--define=cuda_archs: %s '%s' is neither sm_XY[a|f] (SASS) nor compute_XY[a|f] (PTX); e.g. --define=cuda_archs=sm_90a,compute_90" % (what, a))
    return (kind, int(num), suffix)

def _cuda_arch_entries(archs):
    """[(image, virtual arch)]: 'sm_86@compute_80' -> ('sm_86', 'compute_80'), 'sm_90a' ->
    ('sm_90a', 'compute_90a'), 'compute_100' -> ('compute_100', 'compute_100')."""
    entries = []
    for e in [x.strip() for x in archs.split(",") if x.strip()]:
        image, at, src = e.partition("@")
        image = image.strip()
        kind, num, suffix = _arch_parts(image, "entry")
        if not at:
            src = "compute_%d%s" % (num, suffix)
        else:
            src = src.strip()
            skind, snum, ssuffix = _arch_parts(src, "PTX source of '%s'" % e)
            if kind != "sm" or skind != "compute":
                fail("--define=cuda_archs: '%s': only SASS compiles from another PTX (sm_XY@compute_V)" % e)
            if snum > num:
                fail("--define=cuda_archs: '%s': PTX of a newer architecture than its SASS" % e)
            if ssuffix == "a" and (snum != num or suffix != "a"):
                fail("--define=cuda_archs: '%s': arch-specific PTX (compute_XYa) compiles only to its own sm_XYa" % e)
            if ssuffix == "f" and snum // 10 != num // 10:
                fail("--define=cuda_archs: '%s': family PTX (compute_XYf) compiles only within its major version" % e)
        entries.append((image, src))
    if not entries:
        fail("--define=cuda_archs is empty")
    return entries

def cuda_gencode_flags(archs):
    """'sm_80,sm_86@compute_80,sm_90a,compute_90' -> one -gencode per PTX source, in list order:
    -gencode=arch=compute_80,code=[sm_80,sm_86] ...; fails on anything else."""
    codes = {}
    order = []
    seen = []
    for image, src in _cuda_arch_entries(archs):
        if image in seen:
            fail("--define=cuda_archs: '%s' listed twice" % image)
        seen.append(image)
        if src not in codes:
            codes[src] = []
            order.append(src)
        codes[src].append(image)
    return ["-gencode=arch=%s,code=[%s]" % (src, ",".join(codes[src])) for src in order]

_CU_EXTENSIONS = [".cu"]

def _cuda_library_impl(ctx):
    if not CUDA_FOUND:
        fail("cuda_library %s: no CUDA toolkit was found (set CUDA_HOME or install CUDA 13 at /usr/local/cuda, then `bazel shutdown`)" % ctx.label)

    cc_toolchain = find_cpp_toolchain(ctx)
    feature_configuration = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )

    dep_infos = [d[CcInfo] for d in ctx.attr.deps]
    dep_cc = cc_common.merge_cc_infos(cc_infos = dep_infos) if dep_infos else CcInfo()
    dep_comp = dep_cc.compilation_context

    archs = cuda_archs(ctx)
    common = ctx.actions.args()
    common.add("-ccbin", HOST_CC)
    common.add_all(["-x", "cu", "-O3", "-std=c++17", "-lineinfo", "-Xcompiler", "-fPIC"])

    # Fatbin compression, every image (nvcc 13's default leaves SASS uncompressed: ~4x larger).
    # balance: zstd at a level that takes ~1 s a file; size: ~1.5x smaller, but fatbinary then
    # takes ~70 s a file for the default seven images, about a third of each nvcc action.
    compress = ctx.var.get("cuda_compress", "balance")
    if compress not in ("balance", "size"):
        fail("--define=cuda_compress=%s: expected balance (the default) or size" % compress)
    common.add("--compress-mode=" + compress)
    if compress == "balance":
        common.add("-Xfatbin=-compress-all")
    common.add_all(["--threads", "0"])
    common.add_all(cuda_gencode_flags(archs))
    if ctx.var.get("cuda_ptxas_verbose", "0") not in ("", "0"):
        common.add_all(["-Xptxas", "-v"])

    # Include roots: workspace root (also external/<repo> roots via the deps' include paths) and
    # the generated-files root, then every include path the cc deps declare.
    common.add("-I.")
    common.add("-I" + ctx.bin_dir.path)
    common.add_all(dep_comp.quote_includes, format_each = "-I%s")
    common.add_all(dep_comp.includes, format_each = "-I%s")
    common.add_all(dep_comp.system_includes, before_each = "-isystem")
    common.add_all(dep_comp.defines, format_each = "-D%s")
    common.add_all(ctx.attr.defines, format_each = "-D%s")
    common.add_all(ctx.attr.copts)

    inputs = depset(ctx.files.hdrs + ctx.files.srcs, transitive = [dep_comp.headers])
    objects = []
    for src in ctx.files.srcs:
        if not src.basename.endswith(".cu"):
            fail("cuda_library %s: srcs must be .cu files, got %s" % (ctx.label, src.path))

        # Keyed by the source path so two dirs may hold files of the same name.
        out = ctx.actions.declare_file("_objs/%s/%s.pic.o" % (ctx.label.name, src.path[:-3].replace("/", "_")))
        args = ctx.actions.args()
        args.add("-c", src)
        args.add("-o", out)
        ctx.actions.run(
            executable = NVCC,
            arguments = [common, args],
            inputs = inputs,
            outputs = [out],
            mnemonic = "NvccCompile",
            progress_message = "nvcc %s (%s)" % (src.short_path, archs),
            # nvcc needs PATH for its helpers (cudafe++, ptxas, fatbinary live beside it, but the
            # host compiler's assembler and linker come from PATH).
            use_default_shell_env = True,
        )
        objects.append(out)

    own_comp = cc_common.create_compilation_context(
        headers = depset(ctx.files.hdrs),
        defines = depset(ctx.attr.defines),
    )
    compilation_outputs = cc_common.create_compilation_outputs(
        objects = depset(objects),
        pic_objects = depset(objects),
    )
    linking_context, _ = cc_common.create_linking_context_from_compilation_outputs(
        actions = ctx.actions,
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        compilation_outputs = compilation_outputs,
        linking_contexts = [dep_cc.linking_context],
        name = ctx.label.name,
        alwayslink = ctx.attr.alwayslink,
        disallow_dynamic_library = True,
    )
    own = CcInfo(compilation_context = own_comp, linking_context = linking_context)
    return [
        DefaultInfo(files = depset(objects)),
        cc_common.merge_cc_infos(cc_infos = [own, dep_cc]),
    ]

_cuda_library = rule(
    implementation = _cuda_library_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = _CU_EXTENSIONS),
        "hdrs": attr.label_list(allow_files = [".h", ".cuh", ".hpp", ".inc"]),
        "deps": attr.label_list(providers = [CcInfo]),
        "copts": attr.string_list(),
        "defines": attr.string_list(),
        "alwayslink": attr.bool(default = False),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    incompatible_use_toolchain_transition = True,
)

def cuda_library(name, srcs = [], hdrs = [], deps = [], copts = [], defines = [], alwayslink = False, **kwargs):
    """nvcc-compiled .cu sources as a C/C++ library (static CUDA runtime linked in).

    Args:
      name: target name; cc_library/cc_test/cc_binary may list it in deps.
      srcs: .cu files, one nvcc call each.
      hdrs: headers the .cu files include and that dependents may include (.h/.cuh).
      deps: cc_library targets (their headers/includes/defines reach nvcc; they are linked too).
      copts: extra nvcc flags, after the defaults (e.g. ["-Xptxas", "-v"]).
      defines: -D for nvcc, also propagated to dependents.
      alwayslink: link every object even if nothing references it (as cc_library's), e.g. into
        a shared library that exports the objects' symbols.
      **kwargs: visibility, tags, testonly, ...
    """
    _cuda_library(
        name = name,
        srcs = srcs,
        hdrs = hdrs,
        deps = deps + ["@cuda//:cudart_static"],
        copts = copts,
        defines = defines,
        alwayslink = alwayslink,
        **kwargs
    )

def cuda_arch_list(archs):
    """'sm_86@compute_80, compute_90' -> ['sm_86', 'compute_90']: the images, validated as
    cuda_gencode_flags does."""
    cuda_gencode_flags(archs)
    return [image for image, _ in _cuda_arch_entries(archs)]

def _cuda_archs_file_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".txt")
    archs = cuda_archs(ctx)
    if ctx.attr.sources:
        lines = ["%s@%s" % e for e in _cuda_arch_entries(archs)]
    else:
        lines = cuda_arch_list(archs)
    ctx.actions.write(out, "\n".join(lines) + "\n")
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

# NAME.txt: the architectures of this build, one a line (--define=cuda_archs or the default), for
# the checks that read the fatbin (tools/bazel/fatbin.py, tools/gpu/suite_arch.sh); with
# sources = True each as IMAGE@PTX_SOURCE (sm_86@compute_80, sm_90a@compute_90a,
# compute_100@compute_100), for tools/bazel/ptx_sources.py.
cuda_archs_file = rule(
    implementation = _cuda_archs_file_impl,
    attrs = {"sources": attr.bool(default = False)},
)
