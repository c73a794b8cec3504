#!/bin/bash
# Call 2 (carry=[".quack/quack_site.tar.xz.part-aa"]): stage Quack's first part; Nsight Compute of
# torch.compile's forwards.
set -u
bash tools/bench/quack_on_gpu.sh --stage
bash tools/bench/results/wide_fwd_ncu_h200_2026-11-30/run_peers.sh "cmp_h8k:compile bf16 16384x8192 fwd" \
  "cmp_add32k:compile bf16 4096x32768 add_fwd" "cmp_w65k:compile bf16 1024x65536 fwd" > $OUT/ncu_compile.txt 2>&1
cd $OUT && tar czf ncu_compile.tgz ncu_cmp_*.txt && rm -f ncu_cmp_*.txt; cat ncu_compile.txt | grep -E "^==|Duration|DRAM Thr|Registers|Achieved|Grid Size|Block Size" 
