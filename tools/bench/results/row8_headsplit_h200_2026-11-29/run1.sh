#!/bin/bash
set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
export FUSEDNORM_LIBRARY=$PWD/gpu_dev/fin/lib/libfusednorm_ops.so
timeout 150 gpu_dev/p8/bwd8 1129 > $OUT/probe8.txt 2>&1; echo "probe rc $?"
date -u
timeout 200 python3 gpu_dev/s1/tiny_prof.py > $OUT/tiny.txt 2>&1; echo "tiny rc $?"
date -u
SH=288x32390,1000x20001,500x30001,2000x16390,200x34306,776x18494,265x48540,285x48879,140x24576
timeout 200 python3 tools/bench/bench.py --inputs cold --seed 1201 \
  --providers fusednorm:auto,fusednorm:wide,fusednorm:multi_wave_reload,fusednorm:persistent --dtypes bf16,fp16,fp32 --ops fwd,add_fwd --shapes $SH --time-budget 180 \
  --check-elems 20000 --out $OUT/gap > $OUT/gap.log 2>&1 || echo "gap rc $?"
date -u
cat $OUT/probe8.txt; cat $OUT/tiny.txt
