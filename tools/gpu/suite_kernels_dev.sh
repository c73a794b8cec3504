#!/bin/bash
# Developer GPU pass of the CUDA kernels (kernels/cuda/dev/build.sh output in gpu_dev/):
# test_select, test_cuda --quick over every mode, then bench_modes. Results go to $OUT.
cd "$(dirname "$0")/../.."
D=gpu_dev; O="${OUT:-/tmp}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
$D/test_select | tail -1
timeout ${T_TEST:-300} $D/test_cuda --quick ${TEST_ARGS:-} > $O/test_cuda.log 2>&1; echo "test_cuda rc=$?"
grep -E "FAIL|cases|graph|bad-arg|ran in AUTO|runs failed|max ulp|^\[cuda[^]]*\] (f32|f16|bf16) " $O/test_cuda.log | head -${HEAD:-80}
if [ -n "${BENCH:-1}" ]; then
  timeout ${T_BENCH:-200} $D/bench_modes ${BENCH_ARGS:-} > $O/bench.log 2>&1; echo "bench rc=$?"
  cat $O/bench.log
  timeout 100 $D/bench_modes --fused --iters=20 --shapes=16384x4096,1024x65536,1048576x128 > $O/bench_fused.log 2>&1
  timeout 100 $D/bench_modes --dtype=f32 --iters=20 --shapes=16384x4096,65536x1024 > $O/bench_f32.log 2>&1
  grep -v "^copy\|^device\|^shape" $O/bench_fused.log | sed 's/^/fused /'; grep -v "^copy\|^device\|^shape" $O/bench_f32.log | sed 's/^/f32 /'
fi
