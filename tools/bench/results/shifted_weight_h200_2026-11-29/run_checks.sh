#!/bin/bash
# (1) test_cuda --quick of the mutant um (ld_words_shifted ignoring the odd word of the shift):
# must fail; (2) test_cuda --quick of u4's kernels built for compute_80 PTX only (w5): the driver
# JIT-compiles them on the H200.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
s=$(date +%s); timeout 280 gpu_dev/um/test_cuda --quick > $OUT/mutant_test_cuda_quick.txt 2>&1; echo "mutant rc=$? $(( $(date +%s) - s )) s: $(tail -1 $OUT/mutant_test_cuda_quick.txt)"
grep -c "FAIL" $OUT/mutant_test_cuda_quick.txt; grep "FAIL" $OUT/mutant_test_cuda_quick.txt | cut -c1-160 | head -8
s=$(date +%s); timeout 300 gpu_dev/w5/test_cuda --quick > $OUT/w5_test_cuda_quick_compute80.txt 2>&1; echo "w5 rc=$? $(( $(date +%s) - s )) s: $(tail -1 $OUT/w5_test_cuda_quick_compute80.txt)"
gzip -9 $OUT/*.txt
