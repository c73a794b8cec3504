set -u
W=/tmp/r13; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u +%T
t0=$(date +%s); timeout 100 gpu_dev/g90v/bin/test_cuda --unaligned --quick > $W/unal.log 2>&1; echo "unaligned quick rc=$? $(tail -1 $W/unal.log) $(( $(date +%s)-t0 ))s"
timeout 30 gpu_dev/g90v/bin/test_cuda --bitwise > $W/bitwise.log 2>&1; echo "bitwise rc=$? $(tail -1 $W/bitwise.log)"
S=3x300,20x300,90x300,3x777,20x777,90x777,3x1000,20x1000,90x1000,3x1030,20x1030,3x1500,20x1500,90x1500,3x2000,20x2000,90x2000,3x2100,20x2100
B="python3 tools/bench/bench.py --inputs cold --seed 9 --providers fusednorm:auto --time-budget 50 --dtypes bf16,fp32 --ops bwd,add_bwd --shapes $S"
i=0; for v in g90 g90v g90v g90; do i=$((i+1)); FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so timeout 70 $B --out $W/b_${v}_$i > $W/b_${v}_$i.log 2>&1; echo "bench $v $i rc=$? $(date -u +%T)"; done
cd /tmp && tar czf $OUT/r13.tgz r13; ls -la $OUT
