set -u
W=/tmp/r12; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $W/gpu.txt
t0=$(date +%s); timeout 120 gpu_dev/g90u/bin/test_cuda --bitwise > $W/bitwise.log 2>&1; echo "bitwise rc=$? $(tail -1 $W/bitwise.log) $(( $(date +%s)-t0 ))s"; grep -E "^FAIL" $W/bitwise.log | head -3
t0=$(date +%s); timeout 200 gpu_dev/g90u/bin/test_cuda --unaligned --quick > $W/unal.log 2>&1; echo "unaligned quick rc=$? $(tail -1 $W/unal.log) $(( $(date +%s)-t0 ))s"; grep -E "^FAIL" $W/unal.log | head -3
for m in m1 m2; do t0=$(date +%s); timeout 200 gpu_dev/$m/bin/test_cuda --unaligned --quick > $W/$m.log 2>&1; echo "mutant $m rc=$? failing lines $(grep -c '^FAIL' $W/$m.log) $(( $(date +%s)-t0 ))s"; done
S=1x6732,2x630,6x467,10x605,24x2746,34x153,43x1750,51x871,67x109,100x3001,130x1025,7x267,171x69,230x59
B="python3 tools/bench/bench.py --inputs cold --seed 5 --providers fusednorm:auto --time-budget 60 --dtypes bf16,fp16,fp32 --ops bwd,add_bwd --shapes $S"
i=0; for v in g90 g90u g90u g90; do i=$((i+1)); FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so timeout 80 $B --out $W/b_${v}_$i > $W/b_${v}_$i.log 2>&1; echo "bench $v $i rc=$? $(date -u +%T)"; done
t0=$(date +%s); timeout 200 gpu_dev/g90u/bin/test_cuda --quick > $W/q.log 2>&1; echo "quick rc=$? $(tail -1 $W/q.log) $(( $(date +%s)-t0 ))s"; grep -E "^FAIL" $W/q.log | head -3
cd /tmp && tar czf $OUT/r12.tgz r12; ls -la $OUT
