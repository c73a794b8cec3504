#!/bin/bash
# Second run, after test_rstd and test_cuda --quick caught two faults in the first build (see
# README.md): the same checks and paired timings of the fixed build (base = HEAD before the change,
# new = the change), test_rstd also from compute_80 PTX only (JIT-compiled here), the mutants of
# mutants.sh, and the head-split row-pipelined forward (fwd_pipe_u, forced row_packed on rows at an
# element offset) whose register estimates the change raised. Logs packed into $OUT/logs.tgz.
set -u
[ -n "${DEV_TAR:-}" ] && { mkdir -p gpu_dev && tar -C gpu_dev -xJf "$DEV_TAR" || exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
L=$OUT/logs; mkdir -p $L; T=gpu_dev/rt
for t in test_rstd test_rstd_ptx80; do
  s=$(date +%s); $T/$t > $L/$t.txt 2>&1; echo "$t rc $? in $(( $(date +%s) - s )) s"; cat $L/$t.txt
done
for m in sqrt_nocorr div_nocorr rcp_nonewton range_wide slow_noeps div_nmax zero_ok neg_zero alias; do
  $T/test_rstd_$m --quick > $L/mutant_$m.txt 2>&1; echo "mutant $m rc $?: $(grep -v ' 0 mismatches' $L/mutant_$m.txt | grep -m1 -E 'mismatch|FN_RSTD' | cut -c1-150)"
done
date -u +%T
run() { # build label flags...
  local b=$1 l=$2; shift 2
  echo "### $b $l"; gpu_dev/$b/bench_modes --fwd-only "$@"
}
for b in base new new base; do
  run $b "bf16" --modes=auto --dtype=bf16 --shapes=209133x1,86289x1,22x1,366740x15,4096x128,65536x128,1048576x128,58551x295,131072x512,4096x4096,32768x8192,16x215342,256x1048576
  run $b "f16 --fused" --modes=auto --dtype=f16 --fused --shapes=1025612x1,539974x12,247656x26,60407x40,65536x128,7042x280,265x48540
  run $b "f16" --modes=auto --dtype=f16 --shapes=100000x3,100000x6,395x7,277x29,5601x92,65536x128,288x32390
  run $b "f32" --modes=auto --dtype=f32 --shapes=1000000x3,9859x6,274156x39,65536x128,157281x190,8192x4096,285x48879
  run $b "f32 --fused" --modes=auto --dtype=f32 --fused --shapes=12790x19,53x88,65536x128
  run $b "f32 --offset=1" --modes=auto,row_packed --dtype=f32 --offset=1 --shapes=65536x64,200000x100,65536x200
  run $b "bf16 --offset=1" --modes=auto,row_packed --dtype=bf16 --offset=1 --shapes=65536x128,200000x200,65536x500
  run $b "f32 --fused --offset=1" --modes=auto,row_packed --dtype=f32 --fused --offset=1 --shapes=65536x64,65536x200
done > $L/modes.log 2>&1
date -u +%T
timeout 300 gpu_dev/new/test_cuda --quick > $L/test_quick.txt 2>&1; echo "test_cuda --quick rc $?: $(tail -1 $L/test_quick.txt)"
grep -h FAIL $L/test_quick.txt | head -5
python3 tools/kerneldev/pair_table.py $L/modes.log --base base | tee $L/pair.txt
tar -C $OUT -czf $OUT/logs.tgz logs && rm -rf $L
date -u +%T
