D=/tmp/d; mkdir -p $D && tar -C $D -xJf gpu_dev_slim/b.tar.xz
S=256x1048576
S32=256x1048576,64x1048576,300x1000000,512x950000,1024x600000
VARIANTS='m0 la2' PAIRED=1 MODES=auto ARGS=--bwd SHAPES=$S F32_SHAPES=$S32 TEST=0 DEV_DIR=$D ITERS=20 bash tools/kerneldev/compare.sh > $OUT/compare.txt 2>&1
for v in m0 la2 la2 m0; do echo "### $v f32fused"; $D/$v/bench_modes --dtype=f32 --fused --bwd --modes=auto --iters=20 --shapes=512x786432,256x700000,1024x600000; done > $OUT/f32fused.log 2>&1
python3 tools/kerneldev/pair_table.py $OUT/f32fused.log --modes=auto > $OUT/f32fused.txt 2>&1
timeout 100 $D/la2s3/test_cuda --quick --mode=wide > $OUT/wide_q.log 2>&1; echo wide quick la2s3 rc=$?; tail -1 $OUT/wide_q.log
timeout 120 compute-sanitizer --tool memcheck $D/la2s3/test_cuda --mode=wide --filter="M=7 " > $OUT/memcheck.log 2>&1; echo memcheck rc=$?; tail -1 $OUT/memcheck.log
timeout 150 $D/la2s3/test_cuda --mode=wide > $OUT/wide_full.log 2>&1; echo wide full la2s3 rc=$?; tail -1 $OUT/wide_full.log
tail -9 $OUT/compare.txt | cut -c1-150; cat $OUT/f32fused.txt; grep -h "1048576" $OUT/la2.f32.log
