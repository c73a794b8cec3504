set -e
mkdir -p /tmp/gd && tar -C /tmp/gd -xJf gpu_dev_pack/builds.tar.xz
B=/tmp/gd/h0/bench_modes
date -u
M=auto,persistent,multi_wave_reload,multi_wave_cached,row_packed,wide
FULL=1048576x64,65536x128,1048576x128,262144x256,131072x512,65536x1024,32768x2880,4096x4096,32768x4096,16384x5120,16384x7168,16384x8192,8192x16384,4096x32768,1024x65536,512x262144,256x1048576
CORE=65536x128,1048576x128,65536x1024,4096x4096,32768x4096,16384x7168,1024x65536,256x1048576
( $B --dtype=bf16 --modes=$M --shapes=$FULL --iters=15
  $B --dtype=bf16 --fused --modes=$M --shapes=$FULL --iters=15
  for dt in f16 f32; do
  $B --dtype=$dt --modes=$M --shapes=$CORE --iters=15
  $B --dtype=$dt --fused --modes=$M --shapes=$CORE --iters=15
  done ) > $OUT/p5.txt 2>&1
date -u
tail -3 $OUT/p5.txt
