set -u
W=$OUT/r9; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1 FUSEDNORM_LIBRARY=$PWD/gpu_dev/g90/lib/libfusednorm_ops.so
date -u +%T
timeout 400 python3 gpu_dev/prof.py "fp16 1x255 bwd" "bf16 34x153 add_bwd" "bf16 1x6732 bwd" "bf16 6x467 bwd" "fp16 43x1750 bwd" "bf16 3138x10 add_bwd" "fp16 1025612x1 add_fwd" "bf16 5265x142 fwd" "fp16 288x32390 fwd" > $W/prof.txt 2>&1; echo "prof rc=$?"
grep -v "^    " $W/prof.txt | head -40
