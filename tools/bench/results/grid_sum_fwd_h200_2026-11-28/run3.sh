set -u
W=$OUT/r3; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u +%T
for m in m1 m2; do t0=$(date +%s); timeout 120 gpu_dev/$m/bin/test_cuda --wide-fwd --quick > $W/$m.log 2>&1; echo "mutant $m rc=$? $(tail -1 $W/$m.log) failed runs: $(grep -c '^FAIL' $W/$m.log) $(( $(date +%s)-t0 ))s"; done
S=1025612x1,209133x1,86289x1,108860x2,486416x3,4096x3,65536x6,116265x1,4096x1,2500x2,65536x4,1048576x4,2000000x3,300000x6
B="python3 tools/bench/bench.py --dtypes bf16,fp16,fp32 --ops fwd,add_fwd --inputs cold --seed 7 --shapes $S --providers fusednorm:auto --time-budget 40"
for v in o90 n90 n90 o90; do i=$((${i:-0}+1)); FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so timeout 60 $B --out $W/${v}_$i > $W/${v}_$i.log 2>&1; echo "$v $i rc=$? $(date -u +%T)"; done
t0=$(date +%s); timeout 200 gpu_dev/n80/bin/test_cuda --quick > $W/q80.log 2>&1; echo "n80 quick rc=$? $(tail -1 $W/q80.log) $(( $(date +%s)-t0 ))s"
grep -E "^FAIL" $W/q80.log | head -5
cd $W && tar czf json.tgz */bench.json && rm -rf */; ls
