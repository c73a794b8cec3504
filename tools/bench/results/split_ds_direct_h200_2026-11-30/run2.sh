D=/tmp/d; mkdir -p $D && tar -C $D -xJf gpu_dev_slim/b.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for v in dd ddall ddall dd; do
echo "### $v bf16fused"; timeout 40 $D/$v/bench_modes --dtype=bf16 --fused --bwd --modes=auto --iters=15 --shapes=1024x65536,2048x65536,4096x65536,512x262144,256x1048576,128x1048576,16x1048576
echo "### $v f32fused"; timeout 40 $D/$v/bench_modes --dtype=f32 --fused --bwd --modes=auto --iters=15 --shapes=1024x65536,4096x32768,2048x131072,1024x600000,16x1048576
done > $OUT/modes.log 2>&1
date -u; python3 tools/kerneldev/pair_table.py $OUT/modes.log --modes=auto | tee $OUT/table.txt
