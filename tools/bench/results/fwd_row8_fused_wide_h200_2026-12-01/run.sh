set -e
mkdir -p /tmp/gd && tar -C /tmp/gd -xJf gpu_dev_pack/builds.tar.xz
B=/tmp/gd/h0/bench_modes
date -u
for rep in 1 2; do
for dt in bf16 f16; do
$B --dtype=$dt --fused --fwd-only --modes=auto,wide --shapes=1056x20480,4096x20480,8192x20480,1056x24576,4096x24576,8192x24576,1056x28672,2112x28672,4096x28672,8192x28672,1056x32768,2112x32768,4096x32768,8192x32768,1056x22000,4096x30000 --iters=20
done
$B --dtype=f32 --fused --fwd-only --modes=auto,wide --shapes=1056x10240,4096x10240,8192x10240,1056x12288,4096x12288,8192x12288,1056x14336,4096x14336,1056x16384,2112x16384,4096x16384,8192x16384,4096x11000 --iters=20
done > $OUT/p4.txt 2>&1
grep -v "^shape\|^device\|^copy" $OUT/p4.txt | awk '{print $1,$3,$4,$6,$7,$9,$10}' | head -20
