#!/bin/bash
# Second device call (nvidia-h200, carry gpu_dev_pack): the committed rule (wr2: plain rows only,
# from one wave) against bf8c2ca (pp4b), paired (pp4b wr2 wr2 pp4b), on the shapes it takes, the
# boundary shapes it took without a measurement (64 x 131072 ...), and controls it leaves alone;
# then test_cuda --wide-fwd (full) and --quick on wr2, memcheck of --wide-fwd --quick, and two
# kernel mutants of the new instance under --wide-fwd --quick (mw1: each slot given the next
# slot's weight; mw2: the first slot left out of the sum of squares), which must fail.
cd "$(dirname "$0")/../../../.."
D=/tmp/gd; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz && tar -C $D -xJf gpu_dev_pack/mutants.tar.xz
O="${OUT:-/tmp/out}"; L=/tmp/wlogs2; mkdir -p "$O" $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B="1024x65536,2048x65536,512x262144,1024x131072,300x65536,140x65536,64x131072,33x262144,64x98304,100x65536,4096x49152,256x1048576"
F="1024x65536,512x131072,64x65536,200x98312,1500x40000"
for v in pp4b wr2 wr2 pp4b; do
  for cfg in "bf16:--dtype=bf16:$B" "f32:--dtype=f32:$F" "fused:--dtype=bf16 --fused:1024x65536,512x262144"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    { echo "### $v $tag"; timeout 100 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=12 --shapes=$shapes 2>&1; } >> $L/paired.log
  done
done
date -u
( timeout 220 $D/wr2/test_cuda --wide-fwd > $L/wr2_widefwd.log 2>&1; echo "wr2 wide-fwd rc=$?" >> $L/rc.txt ) &
( timeout 250 $D/wr2/test_cuda --quick > $L/wr2_quick.log 2>&1; echo "wr2 quick rc=$?" >> $L/rc.txt ) &
( timeout 220 compute-sanitizer --tool memcheck --error-exitcode 3 $D/wr2/test_cuda --wide-fwd --quick > $L/wr2_memcheck_widefwd.log 2>&1; echo "wr2 memcheck wide-fwd rc=$?" >> $L/rc.txt ) &
( timeout 200 $D/mw1/test_cuda --wide-fwd --quick > $L/mw1_widefwd.log 2>&1; echo "mw1 wide-fwd --quick rc=$?" >> $L/rc.txt ) &
( timeout 200 $D/mw2/test_cuda --wide-fwd --quick > $L/mw2_widefwd.log 2>&1; echo "mw2 wide-fwd --quick rc=$?" >> $L/rc.txt ) &
wait; date -u
cp $L/paired.log "$O/"; tar -C $L -czf "$O/wr2_logs.tgz" .
cat $L/rc.txt
for f in wr2_widefwd wr2_quick wr2_memcheck_widefwd mw1_widefwd mw2_widefwd; do echo "== $f"; grep -E "FAIL|runs failed|every slot|staged|ERROR SUMMARY|wide-fwd: OK" $L/$f.log | tail -6; done
python3 tools/kerneldev/pair_table.py $L/paired.log --base pp4b --modes auto 2>&1 | tail -25
