#!/bin/bash
# Call 4 (carry=[".quack/quack_site.tar.xz.part-ac", ".quack/SHA256SUMS"]): join Quack; Nsight
# Compute of Quack's forwards on the shapes of call 1.
set -u
QP=$(bash tools/bench/quack_on_gpu.sh) || exit 1
export PYTHONPATH=$QP
bash tools/bench/results/wide_fwd_ncu_h200_2026-11-30/run_peers.sh "q_w65k:quack bf16 1024x65536 fwd" \
  "q_w262k:quack bf16 512x262144 fwd" "q_w1m:quack bf16 256x1048576 fwd" "q_add32k:quack bf16 4096x32768 add_fwd" \
  "q_h8k:quack bf16 16384x8192 fwd" "q_f32w65k:quack fp32 1024x65536 fwd" > $OUT/ncu_quack.txt 2>&1
cd $OUT && tar czf ncu_quack.tgz ncu_q_*.txt && rm -f ncu_q_*.txt
grep -E "^==|Duration|DRAM Thr|Registers|Achieved|Grid Size|Block Size|Cluster|Dynamic Shared" ncu_quack.txt
