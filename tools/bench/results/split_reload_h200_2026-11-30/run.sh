D=/tmp/d; mkdir -p $D && tar -C $D -xJf gpu_dev_slim/b.tar.xz
S=256x1048576,128x1048576,16x1048576,1024x65536,2048x65536
S32=256x1048576,64x1048576,512x786432,1024x600000,1024x65536,1844x69916
VARIANTS='m0 rl75 rlall' PAIRED=1 MODES=auto ARGS=--bwd SHAPES=$S F32_SHAPES=$S32 TEST=0 DEV_DIR=$D ITERS=20 bash tools/kerneldev/compare.sh > $OUT/compare.txt 2>&1
for v in m0 rl75 rlall rlall rl75 m0; do echo "### $v f32fused"; $D/$v/bench_modes --dtype=f32 --fused --bwd --modes=auto --iters=20 --shapes=256x1048576,128x1048576,1024x600000,1024x65536; done > $OUT/f32fused.log 2>&1
python3 tools/kerneldev/pair_table.py $OUT/f32fused.log --modes=auto > $OUT/f32fused.txt 2>&1
timeout 120 $D/rlall/test_cuda --quick --mode=wide > $OUT/wide_rlall.log 2>&1; echo wide rlall rc=$?; tail -1 $OUT/wide_rlall.log
timeout 150 compute-sanitizer --tool memcheck $D/rlall/test_cuda --mode=wide --filter="M=7 " > $OUT/memcheck.log 2>&1; echo memcheck rc=$?; tail -1 $OUT/memcheck.log
timeout 200 $D/rl75/test_cuda --quick > $OUT/quick_rl75.log 2>&1; echo quick rl75 rc=$?; grep -E "runs failed|FAIL" $OUT/quick_rl75.log | head -5
grep -h " rl" $OUT/*.log | head -3
tail -32 $OUT/compare.txt | cut -c1-150; cat $OUT/f32fused.txt
