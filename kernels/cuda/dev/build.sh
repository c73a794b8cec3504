#!/bin/bash
# kernels/cuda/dev/build.sh — build the CUDA backend's test and timing binaries with nvcc + gcc
# directly (no Bazel), for quick iterations on the kernels: here, or on the GPU machine from the
# carried source tree. Output: ${OUT_DIR:-gpu_dev}/{test_cuda,test_select,bench_modes}.
#   bash kernels/cuda/dev/build.sh            (from the repo root; -j: one job per core)
#   DEFS="-DFN_SPLIT_THREADS=256" OUT_DIR=gpu_dev/t256 bash kernels/cuda/dev/build.sh
#                                             (a variant build: DEFS go to both nvcc and gcc)
set -euo pipefail
cd "$(dirname "$0")/../../.."
O="${OUT_DIR:-gpu_dev}"; mkdir -p "$O/obj"
CUDA="${CUDA_HOME:-/usr/local/cuda}"
NVCC="$CUDA/bin/nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 -I. -Xptxas -v ${DEFS:-}"
CC="gcc -std=c11 -O2 -fopenmp -I. -I$CUDA/include ${DEFS:-}"
for f in kernels/cuda/*.cu; do $NVCC -c "$f" -o "$O/obj/$(basename "$f" .cu).o" > "$O/obj/$(basename "$f" .cu).ptxas" 2>&1 & done
for f in kernels/src/common.c kernels/src/cpu.c kernels/src/select.c kernels/ref/fusednorm_ref.c \
         kernels/tests/engine.c kernels/tests/test_cuda.c kernels/tests/test_select.c kernels/cuda/dev/bench_modes.c; do
  $CC -c "$f" -o "$O/obj/$(basename "$f" .c).o" &
done
wait
for f in "$O"/obj/*.ptxas; do grep -q error "$f" && { cat "$f"; exit 1; }; done
LIB="$O/obj/common.o $O/obj/cpu.o $O/obj/select.o $(for f in kernels/cuda/*.cu; do echo "$O/obj/$(basename "$f" .cu).o"; done)"
LINK="-L$CUDA/lib64 -lcudart_static -ldl -lrt -lpthread -fopenmp -lm"
g++ -o "$O/test_cuda" "$O/obj/test_cuda.o" "$O/obj/engine.o" "$O/obj/fusednorm_ref.o" $LIB $LINK
g++ -o "$O/bench_modes" "$O/obj/bench_modes.o" $LIB $LINK
g++ -o "$O/test_select" "$O/obj/test_select.o" "$O/obj/select.o" "$O/obj/common.o" -lm
echo "built: $O/test_cuda $O/bench_modes $O/test_select"
