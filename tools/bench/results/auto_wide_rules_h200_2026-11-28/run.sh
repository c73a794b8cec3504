set -u
export PYTHONPATH=$PWD/shim/python PYTHONUNBUFFERED=1 FUSEDNORM_LIBRARY=$PWD/gpu_dev/s28/fin/lib/libfusednorm_ops.so
W=$OUT; date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b() { timeout 120 python3 tools/bench/bench.py --dtypes $2 --ops $3 --inputs both --seed 11 --check-elems 65536 --providers $5 --shapes $4 --out $W/$1 > $W/$1.log 2>&1; echo "$1 rc=$? $(date -u +%T) $(grep -E 'measurements' $W/$1.log)"; rm -f $W/$1/bench.png; }
B16=""; for m in 132 600 2000 4020; do for n in 16400 21685 23927 32768; do B16="$B16,${m}x$n"; done; done; B16=${B16#,}
B32=""; for m in 132 600 2000 4020; do for n in 8200 11020 14000 16384; do B32="$B32,${m}x$n"; done; done; B32=${B32#,}
F16=""; for m in 200 1500 3167; do for n in 48540 98304 369199; do [ $((m*n)) -le 600000000 ] && F16="$F16,${m}x$n"; done; done; F16=${F16#,}
F32=""; for m in 200 1465; do for n in 48879 93854; do F32="$F32,${m}x$n"; done; done; F32=${F32#,}
P=fusednorm:auto,fusednorm:wide
b bwd16 bf16,fp16 bwd,add_bwd $B16 $P
b bwd32 fp32 bwd,add_bwd $B32 $P
b fadd16 bf16 add_fwd,fwd $F16 $P
b fadd32 fp32 add_fwd,fwd $F32 $P
T=""; for m in 4096 16384 65536 262144; do for n in 139 178 200 256; do T="$T,${m}x$n"; done; done; T="${T#,},643392x139"
for r in fin1:fin v31:v3 fin2:fin v32:v3; do FUSEDNORM_LIBRARY=$PWD/gpu_dev/s28/${r#*:}/lib/libfusednorm_ops.so b t_${r%%:*} fp32 bwd $T fusednorm:row_packed; done
(timeout 120 gpu_dev/s28/fin/bin/test_cuda --quick > $W/quick_sm90a.txt 2>&1; echo "quick sm_90a rc=$? $(date -u +%T)"; grep -E "FAIL|two slots" $W/quick_sm90a.txt | head -6; tail -1 $W/quick_sm90a.txt)
(timeout 150 gpu_dev/s28/c80/bin/test_cuda --quick > $W/quick_compute80.txt 2>&1; echo "quick compute_80 rc=$? $(date -u +%T)"; grep -E "FAIL|two slots" $W/quick_compute80.txt | head -6; tail -1 $W/quick_compute80.txt)
