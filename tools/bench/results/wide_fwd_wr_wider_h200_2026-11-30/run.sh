#!/bin/bash
# One device call (nvidia-h200, carry gpu_dev_pack): the wide forward with every slot staged in
# its wider instances (wx: 256 threads at 16 slots, 512 at 16, for rows that no cluster holds at
# 8 slots) against the same sources trying the 8-slot instance alone (wx0:
# --define=kerneldev_set=FN_AUTO_FWD_WIDE_WR_TRIED=1), bench_modes AUTO forward, paired order
# (wx0 wx wx wx0); then test_cuda --wide-fwd (full) and --quick, and memcheck of --wide-fwd --quick.
cd "$(dirname "$0")/../../../.."
D=/tmp/gd; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz
O="${OUT:-/tmp/out}"; L=/tmp/wlogs; mkdir -p "$O" $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B="256x1048576,300x700000,64x1048576,100x1048576,16x1048576,512x400000,1024x300000,33x524288,130x600000,17x300000,1024x65536"
H="256x1048576,512x400000"
F="128x524288,256x500000,64x524288,1024x200000,300x160000,9x262148,20x200000,1024x65536"
for v in wx0 wx wx wx0; do
  for cfg in "bf16:--dtype=bf16:$B" "f16:--dtype=f16:$H" "f32:--dtype=f32:$F"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    { echo "### $v $tag"; timeout 100 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=12 --shapes=$shapes 2>&1; } >> $L/paired.log
  done
done
date -u
( timeout 280 $D/wx/test_cuda --wide-fwd > $L/wx_widefwd.log 2>&1; echo "wide-fwd rc=$?" >> $L/rc.txt ) &
( timeout 280 $D/wx/test_cuda --wide-fwd --quick > $L/wx_widefwd_quick.log 2>&1; echo "wide-fwd quick rc=$?" >> $L/rc.txt ) &
( timeout 280 compute-sanitizer --tool memcheck --error-exitcode 3 $D/wx/test_cuda --wide-fwd --quick > $L/wx_memcheck_widefwd.log 2>&1; echo "memcheck wide-fwd rc=$?" >> $L/rc.txt ) &
wait; date -u
cp $L/paired.log "$O/"; tar -C $L -czf "$O/wx_logs.tgz" .
cat $L/rc.txt
for f in wx_widefwd wx_widefwd_quick wx_memcheck_widefwd; do echo "== $f"; grep -E "FAIL|cases,|every slot|ERROR SUMMARY|wide-fwd: OK" $L/$f.log | tail -9; done
python3 tools/kerneldev/pair_table.py $L/paired.log --base wx0 --modes auto 2>&1 | tail -30
