#!/bin/bash
# One device call (nvidia-h200, carry gpu_dev_pack): the kernels of bf8c2ca (unchanged to HEAD)
# from compute_80 PTX JIT-compiled on the H200 (p80: the launch plan sees cc 8.0, no clusters:
# the wide forward's grid sum, the split-row backward) and under compute-sanitizer on sm_90a
# (pp4b). Jobs run side by side (correctness only, no timing); each log is packed into one tgz.
cd "$(dirname "$0")/../../../.."
mkdir -p gpu_dev && tar -C gpu_dev -xJf gpu_dev_pack/builds.tar.xz
O="${OUT:-/tmp/out}"; L=/tmp/vlogs; mkdir -p "$O" $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
export CUDA_CACHE_MAXSIZE=4294967296
job() { local name=$1 t=$2; shift 2; ( s=$(date +%s); timeout $t "$@" > $L/$name.log 2>&1; echo "$name rc=$? $(( $(date +%s) - s ))s" >> $L/rc.txt ) & }
job p80_quick 560 gpu_dev/p80/test_cuda --quick
job p80_widefwd 560 gpu_dev/p80/test_cuda --wide-fwd
job p80_unaligned 560 gpu_dev/p80/test_cuda --unaligned --quick
SAN=compute-sanitizer
job mc_bitwise 560 $SAN --tool memcheck --error-exitcode 3 gpu_dev/pp4b/test_cuda --bitwise
job rc_bitwise 560 $SAN --tool racecheck --error-exitcode 3 gpu_dev/pp4b/test_cuda --bitwise
job sc_bitwise 560 $SAN --tool synccheck --error-exitcode 3 gpu_dev/pp4b/test_cuda --bitwise
job mc_widefwd 560 $SAN --tool memcheck --error-exitcode 3 gpu_dev/pp4b/test_cuda --wide-fwd --quick
wait
date -u
tar -C $L -czf "$O/verify_logs.tgz" .
cat $L/rc.txt
for f in $L/*.log; do echo "== $(basename $f)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|runs failed|: OK|FAIL" $f | tail -4; done
