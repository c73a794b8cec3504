#!/bin/bash
# Every mode on the worst cases of the 2026-12-02 suite and sweep (bench_modes, cold, 30 iters):
# does AUTO leave a faster mode on the table where it trails the peers?
# Run on the device from the repository root: bash tools/bench/results/modes_worst_h200_2026-12-02/run.sh gpu_dev/s71
B="$1/bench_modes"
set -x
$B --dtype=bf16 --fwd-only --shapes=4096x32768,1024x65536,256x1048576,512x262144,16x215342,201x34306,65536x128,4096x128
$B --dtype=bf16 --fused --fwd-only --shapes=4096x32768,1024x65536
$B --dtype=f16 --fused --fwd-only --shapes=265x48540,7042x280,539974x12,1025612x1
$B --dtype=f16 --fwd-only --shapes=277x29,288x32390,5601x92
$B --dtype=f32 --fwd-only --shapes=274156x39,256x1048576
$B --dtype=bf16 --bwd --shapes=1x6732,132371x1
$B --dtype=bf16 --fused --bwd --shapes=2x260444,24x2746
$B --dtype=f32 --fused --bwd --shapes=9384x11020,42x93
$B --dtype=f16 --bwd --shapes=43x1750
