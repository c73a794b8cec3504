#!/bin/bash
# Four rows a team (r4: FN_FWD_LANES_ROWS=4, FN_FWD_LANES_MIN_CTAS2=6, 70-80 registers, no spill)
# against two (lanes2) on the two-vector shapes, AUTO, cold, lanes2 / r4 / lanes2; then the
# final build (fin): test_cuda --quick, memcheck of the lanes cases (--filter "M=20001 "), and
# test_cuda --quick from compute_80 PTX JIT-compiled on this GPU (p80). Tarred to $OUT.
# Device tool: carry=["gpu_dev/lanes2/bench_modes", "gpu_dev/r4/bench_modes", "gpu_dev/fin/test_cuda", "gpu_dev/p80/test_cuda"].
O=${OUT:-/tmp}; W=/tmp/r2; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B16=9000x264,65536x264,262144x264,300000x288,131072x320,262144x384,65536x448,16384x512,131072x512,262144x512
F32=65536x132,262144x132,131072x176,65536x200,131072x256,262144x256
for d in bf16 f32; do
  S=$B16; [ $d = f32 ] && S=$F32
  for b in lanes2 r4 lanes2; do
    echo "### $b $d"; gpu_dev/$b/bench_modes --dtype=$d --fwd-only --modes=auto --shapes=$S --iters=30
  done
done > $W/modes.log 2>&1; echo "modes rc=$?"
date -u
timeout 200 gpu_dev/fin/test_cuda --quick > $W/test_cuda_quick.fin.log 2>&1; echo "test_cuda fin rc=$?"
grep -E "FAIL|runs failed|two vectors" $W/test_cuda_quick.fin.log | head -8
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 3 gpu_dev/fin/test_cuda --quick "--filter=M=20001 " > $W/memcheck.fin.log 2>&1; echo "memcheck rc=$?"
grep -E "ERROR SUMMARY|runs failed" $W/memcheck.fin.log | head -3
timeout 200 gpu_dev/p80/test_cuda --quick > $W/test_cuda_quick.p80.log 2>&1; echo "test_cuda p80 rc=$?"
grep -E "FAIL|runs failed|two vectors" $W/test_cuda_quick.p80.log | head -8
date -u
tar czf $O/run2.tgz -C $W .
