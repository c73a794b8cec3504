#!/bin/bash
# Second device call (nvidia-h200, carry gpu_dev_pack = tools/kerneldev/pack.sh h86 fs3+test): the
# fused add's 16-bit backward of 3073-4096 slots off the lean 8-slot kernel (fs3:
# --define=kerneldev_set=FN_AUTO_BWD_ROW8_16_FUSED_MAX_SLOTS=3072, the split-row or cluster kernel
# then) against 86ee46f (h86), bench_modes AUTO, paired (h86 fs3 fs3 h86), bf16 and fp16, plus the
# plain backward as a control (the rule leaves it); then fs3's test_cuda --quick.
cd "$(dirname "$0")/../../../.."
D=/tmp/gd; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/builds.tar.xz
O="${OUT:-/tmp/out}"; L=/tmp/flogs; mkdir -p "$O" $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="132x32768,264x32768,400x32768,1000x32768,2000x32768,4096x32768,264x28672,1000x28672,4096x28672,1000x25600,4096x25600,1000x30000"
for v in h86 fs3 fs3 h86; do
  for cfg in "bf16:--dtype=bf16 --fused" "f16:--dtype=f16 --fused" "bf16plain:--dtype=bf16"; do
    IFS=: read -r tag flags <<< "$cfg"
    sh=$S; [ $tag = bf16plain ] && sh="264x32768,4096x32768"
    { echo "### $v $tag"; timeout 100 $D/$v/bench_modes $flags --bwd --modes=auto --iters=10 --shapes=$sh 2>&1; } >> $L/paired.log
  done
done
date -u
( timeout 240 $D/fs3/test_cuda --quick > $L/fs3_quick.log 2>&1; echo "fs3 quick rc=$?" >> $L/rc.txt )
date -u; cp $L/paired.log "$O/"; tar -C $L -czf "$O/fs3_logs.tgz" .
cat $L/rc.txt; grep -E "FAIL|runs failed" $L/fs3_quick.log | tail -4
python3 tools/kerneldev/pair_table.py $L/paired.log --base h86 --modes auto 2>&1 | tail -30
