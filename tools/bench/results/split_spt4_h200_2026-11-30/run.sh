D=gpu_dev_slim
S=1024x65536,256x1048576,2048x65536,1450x40836,105x221953,36x296932
S32=1024x65536,1844x69916,256x1048576,4096x32768,529x201775
VARIANTS='m0 br' PAIRED=1 MODES=auto ARGS=--bwd SHAPES=$S F32_SHAPES=$S32 TEST=0 DEV_DIR=$D ITERS=20 bash tools/kerneldev/compare.sh > $OUT/compare.txt 2>&1
for v in m0 br br m0; do echo "### $v f32fused"; $D/$v/bench_modes --dtype=f32 --fused --bwd --modes=auto --iters=20 --shapes=1024x65536,256x1048576,1844x69916; done > $OUT/f32fused.log 2>&1
python3 tools/kerneldev/pair_table.py $OUT/f32fused.log --modes=auto > $OUT/f32fused.txt 2>&1
timeout 120 $D/br/test_cuda --quick --mode=wide > $OUT/wide.log 2>&1; echo wide rc=$?
timeout 150 compute-sanitizer --tool memcheck $D/br/test_cuda --mode=wide --filter="M=7 " > $OUT/memcheck.log 2>&1; echo memcheck rc=$?; tail -3 $OUT/memcheck.log
timeout 200 $D/br/test_cuda --quick > $OUT/quick.log 2>&1; echo quick rc=$?; grep -E "runs failed|FAIL" $OUT/quick.log | head; tail -2 $OUT/wide.log
tail -45 $OUT/compare.txt; cat $OUT/f32fused.txt
