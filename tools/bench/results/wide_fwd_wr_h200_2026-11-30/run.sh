#!/bin/bash
# One device call (nvidia-h200, carry gpu_dev_pack): the wide forward with every slot staged and
# the weight in registers (wr: the working tree; wr1: the same with FN_AUTO_FWD_WIDE_WR_MIN_WAVES=1)
# against the kernels before it (pp4b = bf8c2ca), bench_modes AUTO forward, paired order
# (pp4b wr wr1 wr1 wr pp4b); then test_cuda --wide-fwd and --quick on wr, and a memcheck of
# --wide-fwd --quick.
cd "$(dirname "$0")/../../../.."
D=/tmp/gd; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz
O="${OUT:-/tmp/out}"; L=/tmp/wlogs; mkdir -p "$O" $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B="1024x65536,2048x65536,512x262144,1024x131072,300x65536,264x65536,200x65536,140x65536,700x98304,4096x49152"
F="1024x65536,2048x65536,512x131072,1500x40000,264x65536,200x98312,300x160000"
for v in pp4b wr wr1 wr1 wr pp4b; do
  for cfg in "bf16:--dtype=bf16:$B" "fused:--dtype=bf16 --fused:$B" "f32:--dtype=f32:$F" "f32fused:--dtype=f32 --fused:$F"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    { echo "### $v $tag"; timeout 100 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=12 --shapes=$shapes 2>&1; } >> $L/paired.log
  done
done
date -u
( timeout 200 $D/wr/test_cuda --wide-fwd > $L/wr_widefwd.log 2>&1; echo "wide-fwd rc=$?" >> $L/rc.txt ) &
( timeout 230 $D/wr/test_cuda --quick > $L/wr_quick.log 2>&1; echo "quick rc=$?" >> $L/rc.txt ) &
( timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 $D/wr/test_cuda --wide-fwd --quick > $L/wr_memcheck_widefwd.log 2>&1; echo "memcheck wide-fwd rc=$?" >> $L/rc.txt ) &
wait; date -u
cp $L/paired.log "$O/"; tar -C $L -czf "$O/wr_logs.tgz" .
cat $L/rc.txt
grep -E "FAIL|runs failed|wide-fwd\]|: OK" $L/wr_widefwd.log | tail -8
grep -E "FAIL|runs failed" $L/wr_quick.log | tail -4
grep -E "ERROR SUMMARY|FAIL" $L/wr_memcheck_widefwd.log | tail -3
python3 tools/kerneldev/pair_table.py $L/paired.log --base pp4b --modes auto 2>&1 | tail -60
