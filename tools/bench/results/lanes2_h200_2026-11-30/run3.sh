#!/bin/bash
# Two mutants of the two-vector lanes kernel (mutL1: the second vector normalized with the first
# one's weight; mutL2: the row's sum without the second vector): test_cuda --quick's lanes cases
# (--filter "M=20001 ") must fail on each. Then the eager Llama step (tools/bench/e2e.py: stock,
# fusednorm, Liger) with the final build's op library. Tarred to $OUT.
# Device tool: carry=["gpu_dev/mutL1/test_cuda", "gpu_dev/mutL2/test_cuda", "gpu_dev/fin/lib", ".whl"].
O=${OUT:-/tmp}; W=/tmp/r3; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for m in mutL1 mutL2; do
  timeout 120 gpu_dev/$m/test_cuda --quick "--filter=M=20001 " > $W/$m.log 2>&1; echo "$m rc=$?"
  grep -E "^FAIL|runs failed" $W/$m.log | cut -c1-220 | head -3
done
date -u
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/liger_kernel-*.whl
export FUSEDNORM_LIBRARY=$PWD/gpu_dev/fin/lib/libfusednorm_ops.so PYTHONPATH=$PWD/shim/python:/tmp/site \
  PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
timeout 420 python3 tools/bench/e2e.py --models llama --modes eager --providers stock,fusednorm,liger \
  --out $W/e2e --budget-s 400 > $W/e2e.log 2>&1; echo "e2e rc=$?"
tail -12 $W/e2e.log
date -u
tar czf $O/run3.tgz -C $W .
