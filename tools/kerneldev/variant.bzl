"""kernel_variant: the kernel sources copied with constants changed by --define=kerneldev_set.

    bazel build --define=kerneldev_set=FN_SPLIT_THREADS=256 //tools/kerneldev:test_cuda_variant

The copies live under <package>/variant/kernels/...; output groups "cu", "hdrs", "c" and "test"
(kernels/tests/ sources, whose includes of the kernels' headers must see the variant's constants)
split them for cuda_library, cc_library and the test binary. Without the define, the copies equal
the production sources.
"""

def _kernel_variant_impl(ctx):
    spec = ctx.var.get("kerneldev_set", "")
    root = ctx.label.package + "/variant"
    outs = {"cu": [], "hdrs": [], "c": [], "test": []}
    all_outs = []
    for src in ctx.files.srcs:
        rel = src.short_path[src.short_path.index("kernels/"):]
        out = ctx.actions.declare_file("variant/" + rel)
        all_outs.append(out)
        if rel.startswith("kernels/tests/"):
            outs["test"].append(out)
        elif rel.endswith(".cu"):
            outs["cu"].append(out)
        elif rel.endswith(".c"):
            outs["c"].append(out)
        else:
            outs["hdrs"].append(out)
    args = ctx.actions.args()
    args.add(ctx.file._script)
    args.add(ctx.bin_dir.path + "/" + root)
    args.add(root)
    args.add(spec)
    args.add("--")
    args.add_all(ctx.files.srcs)
    ctx.actions.run(
        executable = "python3",
        arguments = [args],
        inputs = ctx.files.srcs + [ctx.file._script],
        outputs = all_outs,
        mnemonic = "KernelVariant",
        progress_message = "kernel variant sources (%s)" % (spec or "production constants"),
        use_default_shell_env = True,
    )
    return [
        DefaultInfo(files = depset(all_outs)),
        OutputGroupInfo(
            cu = depset(outs["cu"]),
            hdrs = depset(outs["hdrs"]),
            c = depset(outs["c"]),
            test = depset(outs["test"]),
        ),
    ]

kernel_variant = rule(
    implementation = _kernel_variant_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = True),
        "_script": attr.label(default = ":variant.py", allow_single_file = True),
    },
)
