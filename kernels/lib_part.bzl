"""lib_part: one part of libfusednorm.so (kernels/BUILD)."""

def lib_part(rule, **kwargs):
    """Declares a part of libfusednorm.so with `rule` (cc_library or cuda_library).

    Every part is linked whole (alwayslink: each public function it defines reaches the shared
    library's exports even when nothing inside the library calls it) and is private to kernels/
    (everything else links the one shared library). Declared here once so that no part can miss
    either.
    """
    rule(
        alwayslink = True,
        visibility = ["//visibility:private"],
        **kwargs
    )
