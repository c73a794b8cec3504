#!/bin/bash
# tools/kerneldev/stage.sh NAME — copy the binaries of the last `bazel build //tools/kerneldev:variant`
# (with or without --define=kerneldev_set=...) and //kernels:test_select into gpu_dev/NAME/
# (bench_modes, test_cuda, test_select), where compare.sh, gpu_pass.sh and ncu_fwd.sh look for
# them. Run it right after each build: every variant build writes the same bazel-bin paths.
set -euo pipefail
cd "$(dirname "$0")/../.."
name="${1:-}"
if [ -z "$name" ] || [ $# -ne 1 ] || [[ "$name" == */* ]]; then
  echo "usage: tools/kerneldev/stage.sh NAME   (a directory name under gpu_dev/)" >&2
  exit 2
fi
for f in bazel-bin/tools/kerneldev/bench_modes_variant bazel-bin/tools/kerneldev/test_cuda_variant \
         bazel-bin/kernels/test_select; do
  [ -x "$f" ] || { echo "stage.sh: $f is missing: bazel build //tools/kerneldev:variant //kernels:test_select first" >&2; exit 2; }
done
mkdir -p "gpu_dev/$name"
cp -f bazel-bin/tools/kerneldev/bench_modes_variant "gpu_dev/$name/bench_modes"
cp -f bazel-bin/tools/kerneldev/test_cuda_variant "gpu_dev/$name/test_cuda"
cp -f bazel-bin/kernels/test_select "gpu_dev/$name/test_select"
chmod u+w "gpu_dev/$name"/*
echo "staged gpu_dev/$name: bench_modes test_cuda test_select"
