set -u
W=$OUT/r5; mkdir -p $W
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u +%T
S=$(for m in 132 133 170 264 350 700; do for n in 24064 28000 45000 48128 57344 90000; do printf "%sx%s," $m $n; done; done); S=${S%,}
B="python3 tools/bench/bench.py --dtypes bf16,fp32 --ops fwd,add_fwd --inputs cold --seed 11 --shapes $S --providers fusednorm:auto --time-budget 60"
i=0; for v in o90 n90b n90b o90; do i=$((i+1)); FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so timeout 80 $B --out $W/${v}_$i > $W/${v}_$i.log 2>&1; echo "$v $i rc=$? $(date -u +%T)"; done
t0=$(date +%s); timeout 150 gpu_dev/n90b/bin/test_cuda --quick > $W/q.log 2>&1; echo "n90b quick rc=$? $(tail -1 $W/q.log) $(( $(date +%s)-t0 ))s"
grep -E "^FAIL" $W/q.log | head -5
cd $W && tar czf json.tgz */bench.json && rm -rf */
