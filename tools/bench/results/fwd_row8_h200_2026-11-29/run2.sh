#!/bin/bash
# Nsight Compute of bf16 4096 x 32768 forward: HEAD's S = 4 (1024 threads, one CTA an SM), r8a's
# S = 8 (512 threads, two), torch.compile's and Liger's kernels; then the f16 / f32 pairs and the
# fused wide comparison that run1.sh's call could not bring back. Everything tarred to $OUT.
# Device tool: carry=["gpu_dev/head", "gpu_dev/r8a", ".whl"].
O=${OUT:-/tmp}; W=/tmp/r2; mkdir -p $W; IT=${IT:-20}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/liger_kernel-*.whl && export PYTHONPATH=/tmp/site
S="--section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section SchedulerStats"
for v in head r8a; do
  timeout 120 ncu $S -k regex:rms_norm_fwd_row --launch-skip 3 --launch-count 1 gpu_dev/$v/bench_modes --dtype=bf16 --fwd-only --modes=auto --iters=4 --shapes=4096x32768 > $W/ncu_$v.txt 2>&1 || echo "ncu $v rc=$?"
done
timeout 240 ncu $S --nvtx --nvtx-include "prof/" python3 tools/bench/results/fwd_row8_h200_2026-11-29/peers_ncu.py 4096 32768 > $W/ncu_peers.txt 2>&1 || echo "ncu peers rc=$?"
date -u
R="66 132 264 528 1056 4096"
shp() { local s=""; for m in $R; do for n in $1; do s="$s,${m}x$n"; done; done; echo "${s#,}"; }
F32=$(shp "8196 12288 16384"); H16=$(shp "16392 24576 32768")
for i in 1 2; do
  for v in head r8a; do
    [ $i = 2 ] && v=$([ $v = head ] && echo r8a || echo head)
    timeout 120 gpu_dev/$v/bench_modes --dtype=f16 --fwd-only --modes=auto --iters=$IT --shapes=$H16 > $W/$v.f16.$i.log 2>&1 || echo "$v f16 $i rc=$?"
    timeout 120 gpu_dev/$v/bench_modes --dtype=f32 --fwd-only --modes=auto --iters=$IT --shapes=$F32 > $W/$v.f32.$i.log 2>&1 || echo "$v f32 $i rc=$?"
  done
done
R="132 264 1056 4096"
timeout 150 gpu_dev/head/bench_modes --dtype=bf16 --fused --fwd-only --modes=auto,wide --iters=$IT --shapes=$(shp "12288 16384 24576 32768 40000") > $W/wide_fused.bf16.log 2>&1 || echo "wide bf16 rc=$?"
timeout 150 gpu_dev/head/bench_modes --dtype=f32 --fused --fwd-only --modes=auto,wide --iters=$IT --shapes=$(shp "8192 12288 16384 24576") > $W/wide_fused.f32.log 2>&1 || echo "wide f32 rc=$?"
date -u
tar czf $O/run2.tgz -C $W .
for f in $W/ncu_*.txt; do echo "== $f"; grep -E "rms_norm|triton|_rms_norm|Duration|DRAM Throughput|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Issued Warp|Block Size|Grid Size" $f | sed 's/  */ /g' | head -40; done
