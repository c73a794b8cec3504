#!/bin/bash
# The final build (fr8b: AUTO takes the lean backward at 8 slots a thread for 16-bit rows of
# 2049-3072 slots from a row an SM, plain and fused, dw in shared memory): test_cuda --quick;
# the mutant mutdw (a thread's last slot never stores its dw back) under the forced persistent
# sections; compute-sanitizer memcheck of the 8-slot cases; bench.py against torch, torch.compile
# and Liger, hot and cold. Tarred to $OUT.
# Device tool: carry=["gpu_dev/fr8b", "gpu_dev/mutdw/test_cuda", ".whl"].
O=${OUT:-/tmp}; W=/tmp/r2; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 220 gpu_dev/fr8b/test_cuda --quick > $W/test_cuda_quick.log 2>&1; echo "test_cuda quick rc=$?"
grep -E "FAIL|runs failed|eight slots" $W/test_cuda_quick.log | head -8
timeout 120 gpu_dev/mutdw/test_cuda --quick --mode=persistent > $W/mutdw.log 2>&1; echo "mutdw rc=$? (must fail)"
grep -E "runs failed|eight slots" $W/mutdw.log | head -4; grep -c "^FAIL" $W/mutdw.log
date -u
for f in "N=16392" "N=24576" "N=8196"; do
  timeout 100 compute-sanitizer --tool memcheck gpu_dev/fr8b/test_cuda --quick --mode=persistent "--filter=$f" > $W/memcheck_${f#N=}.log 2>&1
  echo "memcheck $f rc=$?: $(grep -E 'ERROR SUMMARY' $W/memcheck_${f#N=}.log | tail -1)"
done
date -u
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/liger_kernel-*.whl > /dev/null 2>&1
export PYTHONPATH=$PWD/shim/python:/tmp/site FUSEDNORM_LIBRARY=$PWD/gpu_dev/fr8b/lib/libfusednorm_ops.so PYTHONUNBUFFERED=1
timeout 300 python3 tools/bench/bench.py --shapes 132x16400,264x20480,1000x20480,2000x18432,4096x16400,4096x24576 --dtypes bf16 \
  --ops bwd,add_bwd --inputs both --providers fusednorm:auto,torch,compile,liger --out $W/bench_bf16 > $W/bench_bf16.log 2>&1; echo "bench bf16 rc=$?"
date -u
tar czf $O/run2.tgz -C $W .
tail -40 $W/bench_bf16.log
