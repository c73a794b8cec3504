#!/bin/bash
# Fourth device call (nvidia-h200, carry gpu_dev_pack): the committed tree's test_cuda (wr3: its
# --wide-fwd asks the fused add's plan for the staged weight) under --wide-fwd --quick, and
# compute-sanitizer racecheck and synccheck of the same (the new instance's cp.async stage and
# its cluster sum), side by side.
cd "$(dirname "$0")/../../../.."
D=/tmp/gd; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz
O="${OUT:-/tmp/out}"; L=/tmp/wlogs4; mkdir -p "$O" $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
( timeout 200 $D/wr3/test_cuda --wide-fwd --quick > $L/wr3_widefwd_quick.log 2>&1; echo "wide-fwd --quick rc=$?" >> $L/rc.txt ) &
for t in racecheck synccheck; do
  ( timeout 220 compute-sanitizer --tool $t --error-exitcode 3 $D/wr3/test_cuda --wide-fwd --quick > $L/wr3_$t.log 2>&1; echo "$t rc=$?" >> $L/rc.txt ) &
done
wait; date -u
tar -C $L -czf "$O/wr3_logs.tgz" .
cat $L/rc.txt
for f in $L/*.log; do echo "== $(basename $f)"; grep -E "FAIL|every slot|staged|ERROR SUMMARY|RACECHECK SUMMARY|wide-fwd: OK" $f | tail -5; done
