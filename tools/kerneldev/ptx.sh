#!/bin/bash
# tools/kerneldev/ptx.sh SRC_ROOT OUT_DIR — the PTX (sm_90a, the nvcc flags of tools/bazel/cuda.bzl)
# of every kernels/cuda/*.cu of the tree at SRC_ROOT, one OUT_DIR/<name>.ptx each. With
# ptx_compare.py it shows which kernels a change of the sources really changes (no cuobjdump
# needed): e.g. `git worktree add /tmp/base HEAD~1`, ptx.sh /tmp/base /tmp/a, ptx.sh . /tmp/b,
# python3 tools/kerneldev/ptx_compare.py /tmp/a /tmp/b.
set -uo pipefail
if [ $# -ne 2 ] || [ ! -d "$1/kernels/cuda" ]; then
  echo "usage: tools/kerneldev/ptx.sh SRC_ROOT OUT_DIR   (SRC_ROOT holds kernels/cuda/)" >&2
  exit 2
fi
SRC=$(cd "$1" && pwd); mkdir -p "$2"; OUT=$(cd "$2" && pwd)
NVCC="${CUDA_HOME:-/usr/local/cuda}/bin/nvcc"
cd "$SRC"
rc=0
for f in kernels/cuda/*.cu; do
  "$NVCC" -ccbin "${CUDA_HOST_CC:-gcc-12}" -x cu -O3 -std=c++17 -lineinfo -Xcompiler -fPIC -ptx -arch=compute_90a -I. \
    "$f" -o "$OUT/$(basename "$f" .cu).ptx" || { echo "ptx.sh: $f failed" >&2; rc=1; }
done
exit $rc
