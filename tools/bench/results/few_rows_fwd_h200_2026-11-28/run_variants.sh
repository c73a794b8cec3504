set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1
W=/tmp/w; rm -rf $W; mkdir -p $W; date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( gpu_dev/row2/bin/test_cuda --quick > $W/tq.log 2>&1; echo "row2 test_cuda --quick rc=$? $(tail -1 $W/tq.log)" ) > $W/checks.txt 2>&1 &
P1=$!
A="5x114,11x52,1x223,38x200,100x250,1x64,64x128,7x100,120x33,8x301,38x365,157x52,277x29"
B="140x1214,200x1214,264x1214,264x2000,200x4000,264x600,264x397,180x3000,150x800,250x4096,264x8000"
run() { FUSEDNORM_LIBRARY=$PWD/gpu_dev/$2/lib/libfusednorm_ops.so python3 tools/bench/bench.py --dtypes $3 --ops fwd,add_fwd --inputs cold --seed 7 --providers fusednorm:auto --shapes $4 --out $W/$1 > $W/$1.log 2>&1; echo "$1 rc=$? $(date -u +%T) $(grep -E 'measurements|FAIL' $W/$1.log | head -2)"; }
run a1o row1 bf16,fp16,fp32 $A
run a1n row2 bf16,fp16,fp32 $A
run a2n row2 bf16,fp16,fp32 $A
run a2o row1 bf16,fp16,fp32 $A
run b1o row2 bf16,fp32 $B
run b1n row3 bf16,fp32 $B
run b2n row3 bf16,fp32 $B
run b2o row2 bf16,fp32 $B
wait $P1
cat $W/checks.txt
cd $W && python3 $OLDPWD/tools/bench/compare.py a1o/bench.json,a2o/bench.json a1n/bench.json,a2n/bench.json --labels row1,row2 --out apaired.md | tail -3
python3 $OLDPWD/tools/bench/compare.py b1o/bench.json,b2o/bench.json b1n/bench.json,b2n/bench.json --labels row2,row3 --out bpaired.md | tail -3
cd $OLDPWD
M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__cycles_active.max,sm__cycles_elapsed.max,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,launch__grid_size,launch__block_size,launch__registers_per_thread
for c in "bf16 5 114" "bf16 38 365" "fp16 277 29" "fp16 8 301"; do for p in fn ind; do
  echo "== $c $p"
  FUSEDNORM_LIBRARY=$PWD/gpu_dev/row2/lib/libfusednorm_ops.so timeout 100 ncu --profile-from-start off --cache-control all --clock-control none --metrics $M --csv python3 gpu_dev/onef2.py $c $p 2>/dev/null | grep -v "^==PROF" | awk -F'","' 'NR>1{n=$5; sub(/\(.*/,"",n); printf "%s | %s = %s\n", substr(n,1,40), $(NF-2), $NF}'
done; done > $W/ncu.txt 2>&1
tar czf $OUT/row2.tgz -C $W .
