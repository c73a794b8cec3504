#!/bin/bash
# tools/bazel/ptx_sources.py --ptx over every kernel file, on the GPU machine's 16 cores (the
# front end once a file and architecture: about 15 minutes on 2 cores).
set -u
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc); "$NVCC" --version | tail -2; date -u
ls kernels/cuda/*.cu | xargs -P 10 -I{} python3 tools/bazel/ptx_sources.py "$NVCC" gcc @tools/bazel/cuda.bzl {} --ptx > $OUT/ptx_sources_full.txt 2>&1
echo "xargs rc=$?"; date -u
grep -c " == " $OUT/ptx_sources_full.txt; grep -v " == " $OUT/ptx_sources_full.txt | head -20
