#!/bin/bash
# The final build (r8d: the rules of r8c and the test_cuda section of S = 8): test_cuda --quick;
# the S = 8 cases (--filter "M=1100 ") of two mutants, which must fail (mut8n: rstd from n - 1
# columns at S = 8; mut8w: the last slot's weight from the slot before); memcheck over the same
# cases; then bench.py against torch, torch.compile and Liger (no Quack in this call) on the
# shapes the rules moved, hot and cold. Tarred to $OUT.
# Device tool: carry=["gpu_dev/r8d", "gpu_dev/mut8n", "gpu_dev/mut8w", ".whl"].
O=${OUT:-/tmp}; W=/tmp/r4; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 200 gpu_dev/r8d/test_cuda --quick > $W/test_cuda_quick.r8d.log 2>&1; echo "test_cuda r8d rc=$?"
grep -E "FAIL|runs failed|eight slots" $W/test_cuda_quick.r8d.log | head -20
for m in mut8n mut8w; do
  timeout 120 gpu_dev/$m/test_cuda --quick "--filter=M=1100 " > $W/test_cuda.$m.log 2>&1; echo "test_cuda $m rc=$?"
  grep -E "FAIL|runs failed" $W/test_cuda.$m.log | cut -c1-200 | head -4
done
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 gpu_dev/r8d/test_cuda --quick "--filter=M=1100 " > $W/memcheck.r8d.log 2>&1; echo "memcheck rc=$?"
grep -E "ERROR SUMMARY|runs failed|eight slots" $W/memcheck.r8d.log | head
date -u
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl 2>/dev/null
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site FUSEDNORM_LIBRARY=$PWD/gpu_dev/r8d/lib/libfusednorm_ops.so PYTHONUNBUFFERED=1
timeout 300 python3 tools/bench/bench.py --shapes 4096x32768,2048x32768,4096x24576,1056x20480,8192x28672 --dtypes bf16 \
  --ops fwd,add_fwd --inputs both --providers fusednorm:auto,torch,compile,liger --out $W/bench_bf16 > $W/bench_bf16.log 2>&1; echo "bench bf16 rc=$?"
timeout 200 python3 tools/bench/bench.py --shapes 4096x12288,8192x10240,4096x16384,4096x24576 --dtypes fp32 \
  --ops fwd,add_fwd --inputs both --providers fusednorm:auto,torch,compile,liger --out $W/bench_f32 > $W/bench_f32.log 2>&1; echo "bench f32 rc=$?"
date -u
tar czf $O/run4.tgz -C $W .
