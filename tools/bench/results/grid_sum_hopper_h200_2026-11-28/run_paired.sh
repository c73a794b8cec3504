set -u
W=$OUT/r8; mkdir -p $W
pip install --no-index --no-deps --target /tmp/bench_site .whl/liger_kernel-*.whl > /dev/null 2>&1
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $W/gpu.txt
for v in g90 g80; do t0=$(date +%s); timeout 200 gpu_dev/$v/bin/test_cuda --wide-fwd --quick > $W/wq_$v.log 2>&1; echo "$v wide-fwd quick rc=$? $(tail -1 $W/wq_$v.log) $(( $(date +%s)-t0 ))s"; grep -E "^FAIL|AUTO 2x|graph capture" $W/wq_$v.log | head -6; done
S=1x262144,2x262144,4x262144,1x524288,2x524288,4x524288,5x524288,1x786432,2x786432,3x786432,4x786432,5x786432,8x786432,1x1048576,4x1048576,5x1048576
H=1x400000,2x400000,3x400000,4x400000,1x600001,2x600001,4x600001,1x900000,3x900000,4x900000,6x900000
B="python3 tools/bench/bench.py --inputs cold --seed 21 --providers fusednorm:auto --time-budget 80"
for v in n90b g90 g90 n90b; do i=$((${i:-0}+1)); FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so timeout 100 $B --dtypes bf16,fp32 --ops fwd,add_fwd --shapes $S --out $W/grid_${v}_$i > $W/grid_${v}_$i.log 2>&1; echo "grid $v $i rc=$? $(date -u +%T)"; done
i=0; for v in n90b g90 g90 n90b; do i=$((i+1)); FUSEDNORM_LIBRARY=$PWD/gpu_dev/$v/lib/libfusednorm_ops.so timeout 100 $B --dtypes fp16,fp32 --ops fwd,add_fwd --shapes $H --out $W/held_${v}_$i > $W/held_${v}_$i.log 2>&1; echo "held $v $i rc=$? $(date -u +%T)"; done
export PYTHONPATH=$PWD/shim/python:/tmp/bench_site
for s in "fp32 2x736015 fwd" "bf16 1x335202 add_fwd"; do set -- $s
FUSEDNORM_LIBRARY=$PWD/gpu_dev/g90/lib/libfusednorm_ops.so timeout 150 python3 tools/bench/bench.py --dtypes $1 --ops $3 --inputs cold --seed 20261126 --shapes $2 --providers fusednorm:auto,torch,compile,liger --time-budget 120 --out $W/sweep_$1 > $W/sweep_$1.log 2>&1; echo "sweep $s rc=$?"
grep "fastest" $W/sweep_$1.log | cut -c1-300
done
t0=$(date +%s); timeout 200 gpu_dev/g90/bin/test_cuda --quick > $W/q90.log 2>&1; echo "g90 quick rc=$? $(tail -1 $W/q90.log) $(( $(date +%s)-t0 ))s"; grep -E "^FAIL" $W/q90.log | head -5
cd $W && tar czf json.tgz */bench.json && rm -rf */; ls | head -40
