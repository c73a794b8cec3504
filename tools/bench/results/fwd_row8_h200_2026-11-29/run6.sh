#!/bin/bash
# The final build (r8g: S = 8 plain and fused, taken ahead of the wide forward): test_cuda --quick;
# the S = 8 cases (--filter "M=1100 ") of the mutant mut8r (the fused add's last residual slot
# read from the slot before), which must fail; memcheck over the same cases; bench_modes AUTO
# beside the forced reload and wide forwards on fused rows; bench.py against torch, torch.compile and Liger
# (no Quack in this call) on the shapes the rules moved, hot and cold. Tarred to $OUT.
# Device tool: carry=["gpu_dev/r8g/test_cuda", "gpu_dev/r8g/bench_modes", "gpu_dev/r8g/lib",
#   "gpu_dev/mut8r/test_cuda", ".whl"].
O=${OUT:-/tmp}; W=/tmp/r6; rm -rf $W; mkdir -p $W; IT=20
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 200 gpu_dev/r8g/test_cuda --quick > $W/test_cuda_quick.r8g.log 2>&1; echo "test_cuda r8g rc=$?"
grep -E "FAIL|runs failed|eight slots" $W/test_cuda_quick.r8g.log | head -20
timeout 120 gpu_dev/mut8r/test_cuda --quick "--filter=M=1100 " > $W/test_cuda.mut8r.log 2>&1; echo "test_cuda mut8r rc=$?"
grep -E "FAIL|runs failed" $W/test_cuda.mut8r.log | cut -c1-200 | head -4
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 gpu_dev/r8g/test_cuda --quick "--filter=M=1100 " > $W/memcheck.r8g.log 2>&1; echo "memcheck rc=$?"
grep -E "ERROR SUMMARY|runs failed|eight slots" $W/memcheck.r8g.log | head
date -u
M="--modes=auto,multi_wave_reload,wide"
timeout 120 gpu_dev/r8g/bench_modes --dtype=bf16 --fused --fwd-only $M --iters=$IT --shapes=264x24576,1056x20480,4096x20480,1056x24576,4096x32768,8192x28672,2048x16384 > $W/r8g.fused.log 2>&1 || echo "fused rc=$?"
timeout 120 gpu_dev/r8g/bench_modes --dtype=f32 --fused --fwd-only $M --iters=$IT --shapes=264x24576,1056x10240,8192x10240,4096x16384,1056x24576 > $W/r8g.f32fused.log 2>&1 || echo "f32fused rc=$?"
date -u
python3 -m pip install -q --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl 2>/dev/null
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site FUSEDNORM_LIBRARY=$PWD/gpu_dev/r8g/lib/libfusednorm_ops.so PYTHONUNBUFFERED=1
timeout 240 python3 tools/bench/bench.py --shapes 4096x32768,1056x20480,4096x24576,8192x28672 --dtypes bf16 \
  --ops fwd,add_fwd --inputs both --providers fusednorm:auto,torch,compile,liger --out $W/bench_bf16 > $W/bench_bf16.log 2>&1; echo "bench bf16 rc=$?"
timeout 150 python3 tools/bench/bench.py --shapes 4096x16384,8192x10240 --dtypes fp32 \
  --ops fwd,add_fwd --inputs both --providers fusednorm:auto,torch,compile,liger --out $W/bench_f32 > $W/bench_f32.log 2>&1; echo "bench f32 rc=$?"
date -u
tar czf $O/run6.tgz -C $W .
