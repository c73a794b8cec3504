#!/bin/bash
# Fifth device call: the illegal memory access that run4.sh's synccheck hit in the wide forward's
# "apart" section (33 x 98303, forced wide, rows apart: the element-wise instance), reproduced on
# the 33-row shapes alone under synccheck and memcheck, before (pp4b = bf8c2ca) and after (wr3).
cd "$(dirname "$0")/../../../.."
D=/tmp/gd; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz
O="${OUT:-/tmp/out}"; L=/tmp/wlogs5; mkdir -p "$O" $L
date -u
for b in pp4b wr3; do for t in synccheck memcheck; do
  s=$(date +%s); timeout 40 compute-sanitizer --tool $t $D/$b/test_cuda --wide-fwd --quick "--filter=M=33 " > $L/$b.$t.log 2>&1
  echo "$b $t rc=$? $(( $(date +%s) - s ))s: $(grep -c 'illegal memory' $L/$b.$t.log) illegal, $(grep -E 'ERROR SUMMARY' $L/$b.$t.log)"
done; done
tar -C $L -czf "$O/wr3_sync_logs.tgz" .; date -u
