D=/tmp/d; mkdir -p $D && tar -C $D -xJf gpu_dev_slim/b.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 60 $D/ddall/test_cuda --quick --mode=wide > $OUT/wide_q.log 2>&1; echo wide quick ddall rc=$?; tail -1 $OUT/wide_q.log
for v in m1 dd ddall ddall dd m1; do echo "### $v f32fused"; $D/$v/bench_modes --dtype=f32 --fused --bwd --modes=auto --iters=20 --shapes=256x1048576,64x1048576,512x900000,1024x600000,1024x65536
echo "### $v bf16fused"; $D/$v/bench_modes --dtype=bf16 --fused --bwd --modes=auto --iters=20 --shapes=256x1048576,1024x65536; done > $OUT/modes.log 2>&1
python3 tools/kerneldev/pair_table.py $OUT/modes.log --modes=auto > $OUT/table.txt 2>&1
timeout 90 compute-sanitizer --tool memcheck $D/ddall/test_cuda --mode=wide --filter="M=7 " > $OUT/memcheck.log 2>&1; echo memcheck rc=$?; tail -1 $OUT/memcheck.log
date -u; cat $OUT/table.txt
