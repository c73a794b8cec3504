#!/bin/bash
# tools/kerneldev/gpu_pass.sh — developer GPU pass of the CUDA kernels over the binaries staged in
# gpu_dev/${BUILD:-new}/ by tools/kerneldev/stage.sh (run it on a GPU machine, carrying gpu_dev/;
# not a tools/gpu suite section):
# test_select, test_cuda --quick (every mode), bench_modes (bf16, fused, f32), then
# compute-sanitizer memcheck over test_cuda --quick restricted to M = 199. Logs go to $OUT.
cd "$(dirname "$0")/../.."
D=gpu_dev/${BUILD:-new}; O="${OUT:-/tmp}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
$D/test_select | tail -1
timeout ${T_TEST:-170} $D/test_cuda --quick > $O/test_cuda.log 2>&1; echo "test_cuda rc=$?"
grep -E "FAIL|cases,|graph|bad-arg|ran in AUTO|runs failed|^\[cuda[^]]*\] (f32|f16|bf16) " $O/test_cuda.log | cut -c1-220 | head -${HEAD:-70}
S="${SHAPES:-1048576x128,65536x128,262144x512,65536x1024,32768x2880,16384x4096,8192x8192,4096x16384,2048x32768,1024x65536,256x1048576}"
timeout 90 $D/bench_modes --iters=15 --shapes=$S > $O/bench.log 2>&1; echo "bench rc=$?"
timeout 30 $D/bench_modes --fused --iters=15 --shapes=16384x4096,1048576x128,1024x65536 > $O/bench_fused.log 2>&1
timeout 20 $D/bench_modes --dtype=f32 --iters=15 --shapes=16384x4096 > $O/bench_f32.log 2>&1
for f in bench bench_fused bench_f32; do grep -E "auto|^copy" $O/$f.log | sed "s/^/$f /"; done
[ -n "${NO_SAN:-}" ] || timeout ${T_SAN:-90} compute-sanitizer --tool memcheck --error-exitcode 3 $D/test_cuda --quick "--filter=M=199 " > $O/memcheck.log 2>&1; echo "memcheck rc=$?"
grep -E "ERROR SUMMARY|runs failed|=========" $O/memcheck.log | head -20
