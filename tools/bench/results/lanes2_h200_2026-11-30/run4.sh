#!/bin/bash
# After the lanes sections gained widths where the engine's rotation gives the two-vector kernel a
# weight (and fail without such a launch): the final build's (fin2) test_cuda --quick, and mutL1
# (the second vector normalized with the first one's weight), whose lanes cases must fail.
# Device tool: carry=["gpu_dev/fin2/test_cuda", "gpu_dev/mutL1/test_cuda"] (run as one command line).
W=/tmp/r4; mkdir -p $W; date -u
timeout 200 gpu_dev/fin2/test_cuda --quick > $W/test_cuda_quick.fin2.log 2>&1; echo "fin2 rc=$?"
grep -E "^FAIL|runs failed|two vectors" $W/test_cuda_quick.fin2.log | head
timeout 120 gpu_dev/mutL1/test_cuda --quick "--filter=M=20001 " > $W/mutL1.log 2>&1; echo "mutL1 rc=$?"
grep -E "^FAIL|runs failed" $W/mutL1.log | cut -c1-230 | head -4
date -u; tar czf $OUT/run4.tgz -C $W .
