#!/bin/bash
# Call 2: every mode on mid-row-count wide rows (bench_modes, alone on the GPU), then the kernels
# section's remaining checks side by side.
set -u
cd "$(dirname "$0")/.."
[ -d gpu_bundle/bin ] || tar -xJf gpu_dev_pack/bundle.tar.xz
B=gpu_bundle/bin
mkdir -p $OUT/m
{
S16="150x32768,201x34304,201x34306,264x32768,288x32392,288x32390,400x32768,200x49152,300x24576,776x18496,776x18494,18x25734,18x25728,1000x32768"
M=auto,persistent,multi_wave_reload,multi_wave_cached,wide
$B/bench_modes --dtype=bf16 --fwd-only --shapes=$S16 --modes=$M --iters=40
$B/bench_modes --dtype=bf16 --fused --fwd-only --shapes=776x18496,776x18494,265x48544,265x48540,201x34306,288x32390 --modes=$M --iters=40
$B/bench_modes --dtype=f16 --fwd-only --shapes=288x32392,288x32390,265x48544,265x48540 --modes=$M --iters=40
$B/bench_modes --dtype=f32 --fwd-only --shapes=285x48880,285x48879,201x17153,201x17152,400x16384 --modes=$M --iters=40
} > $OUT/m/modes.log 2>&1
echo "modes done $(date -u +%T)"
gzip -f $OUT/m/modes.log
