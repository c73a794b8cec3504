set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
QP=$(bash tools/bench/quack_on_gpu.sh) || exit 1
W=/tmp/wq; rm -rf $W; mkdir -p $W; date -u +%T
run() { PYTHONPATH=$PYTHONPATH:$QP FUSEDNORM_LIBRARY=$PWD/gpu_dev/new/lib/libfusednorm_ops.so python3 tools/bench/bench.py --dtypes $2 --ops $3 --inputs cold --seed 7 --providers fusednorm:auto,quack --shapes $4 --out $W/$1 > $W/$1.log 2>&1; echo "$1 rc=$? $(date -u +%T) $(grep -E 'measurements|FAIL' $W/$1.log | head -1)"; }
run bf16_add_fwd bf16 add_fwd 269x7,1x12,36x5,251x7
run fp16_fwd fp16 fwd 16x2,15x2,1x2,699x1,30x23,5x7
run bf16_fwd bf16 fwd 1x7,22x1
run fp32_fwd fp32 fwd 70x3,11x11,9x21,13x16
run fp16_add_fwd fp16 add_fwd 24x1,3x13
run fp32_add_fwd fp32 add_fwd 36x2,68x27,24x14
tar czf $OUT/q.tgz -C $W .
