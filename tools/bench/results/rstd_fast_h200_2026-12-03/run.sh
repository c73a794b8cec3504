#!/bin/bash
# The forward's exact rstd behind one range check (kernels/cuda/rmsnorm_common.cuh rstd_of_rows)
# against the kernels before it. Builds (tools/kerneldev, sm_90a, size-compressed): base = HEAD
# before the change, new = the change; test_rstd (kernels/tests/test_rstd.c) of the change and of
# its mutants (nvcc, sm_90a), all in $DEV_TAR. 1: test_rstd full, then each mutant --quick. 2:
# bench_modes AUTO forwards, cold, paired order base new new base, on the narrow forwards (thread,
# tile, tiny, lanes, warp families) and a few wide ones (rstd once a row: should not move). 3:
# test_cuda --quick of new.
set -u
[ -n "${DEV_TAR:-}" ] && { mkdir -p gpu_dev && tar -C gpu_dev -xJf "$DEV_TAR" || exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
T=gpu_dev/rt
s=$(date +%s); $T/test_rstd > $OUT/test_rstd.txt 2>&1; echo "test_rstd rc $? in $(( $(date +%s) - s )) s"; cat $OUT/test_rstd.txt
for m in sqrt_nocorr div_nocorr rcp_nonewton range_wide slow_noeps div_nmax zero_ok; do
  $T/test_rstd_$m --quick > $OUT/mutant_$m.txt 2>&1; echo "mutant $m rc $?: $(grep -c mismatch $OUT/mutant_$m.txt) lines; $(grep -v ' 0 mismatches' $OUT/mutant_$m.txt | grep mismatch | head -2 | tr '\n' ' ')"
done
date -u +%T
run() { # build label flags...
  local b=$1 l=$2; shift 2
  echo "### $b $l"; gpu_dev/$b/bench_modes --fwd-only --modes=auto "$@"
}
for b in base new new base; do
  run $b "bf16" --dtype=bf16 --shapes=209133x1,86289x1,22x1,366740x15,4096x128,65536x128,1048576x128,58551x295,131072x512,4096x4096,32768x8192
  run $b "f16 --fused" --dtype=f16 --fused --shapes=1025612x1,539974x12,247656x26,60407x40,65536x128,7042x280
  run $b "f16" --dtype=f16 --shapes=100000x3,100000x6,395x7,277x29,5601x92,65536x128
  run $b "f32" --dtype=f32 --shapes=1000000x3,9859x6,274156x39,65536x128,157281x190,8192x4096
  run $b "f32 --fused" --dtype=f32 --fused --shapes=12790x19,53x88,65536x128
done > $OUT/modes.log 2>&1
date -u +%T
timeout 300 gpu_dev/new/test_cuda --quick > $OUT/test_quick.txt 2>&1; echo "test_cuda --quick rc $?: $(tail -1 $OUT/test_quick.txt)"
grep -h FAIL $OUT/test_quick.txt | head -5
python3 tools/kerneldev/pair_table.py $OUT/modes.log --base base
date -u +%T
