set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1 FUSEDNORM_LIBRARY=$PWD/gpu_dev/s28/two/lib/libfusednorm_ops.so
W=/tmp/two; rm -rf $W; mkdir -p $W; date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
(timeout 200 gpu_dev/s28/two/bin/test_cuda --quick > $W/quick_sm90a.txt 2>&1; echo "quick rc=$? $(date -u +%T)"; grep -E "FAIL|two slots" $W/quick_sm90a.txt | head -8; tail -1 $W/quick_sm90a.txt)
S32=""; for m in 1000 4096 16384 65536 262144; do for n in 136 139 178 200 256; do S32="$S32,${m}x$n"; done; done; S32=${S32#,}
S16=""; for m in 1000 4096 16384 65536 262144; do for n in 264 295 384 423 512; do S16="$S16,${m}x$n"; done; done; S16=${S16#,}
b() { timeout 200 python3 tools/bench/bench.py --dtypes $2 --ops bwd,add_bwd --inputs both --seed 7 --check-elems 65536 --providers fusednorm:auto,fusednorm:row_packed --shapes $3 --out $W/$1 > $W/$1.log 2>&1; echo "$1 rc=$? $(date -u +%T) $(grep -E 'measurements' $W/$1.log)"; }
b f32 fp32 $S32,643392x139
b h16 bf16,fp16 $S16
(timeout 120 compute-sanitizer --tool memcheck gpu_dev/s28/two/bin/test_cuda --quick --mode=row_packed > $W/memcheck.txt 2>&1; echo "memcheck rc=$? $(date -u +%T)"; grep -E "ERROR SUMMARY|FAIL" $W/memcheck.txt | head -3)
tar czf $OUT/two.tgz -C $W .
