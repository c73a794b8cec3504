#!/bin/bash
# Third device call (nvidia-h200, carry gpu_dev_pack): wr2 (the committed kernels) alone on the
# GPU: test_cuda --wide-fwd (full; in run2.sh it ran beside four other jobs and the call's limit
# cut its last section), then the full test_cuda.
cd "$(dirname "$0")/../../../.."
D=/tmp/gd; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz
O="${OUT:-/tmp/out}"; L=/tmp/wlogs3; mkdir -p "$O" $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
s=$(date +%s); timeout 250 $D/wr2/test_cuda --wide-fwd > $L/wr2_widefwd_full.log 2>&1; echo "wide-fwd rc=$? $(( $(date +%s) - s ))s"
s=$(date +%s); timeout 320 $D/wr2/test_cuda > $L/wr2_full.log 2>&1; echo "full rc=$? $(( $(date +%s) - s ))s"
date -u; tar -C $L -czf "$O/wr2_full_logs.tgz" .
grep -E "FAIL|cases,|every slot|staged|wide-fwd: OK" $L/wr2_widefwd_full.log | tail -12
grep -E "FAIL|runs failed" $L/wr2_full.log | tail -5; grep -c "0 failed: OK" $L/wr2_full.log
