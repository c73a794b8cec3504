set -u
W=/tmp/r28; mkdir -p $W
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export LD_LIBRARY_PATH=$PWD/gpu_dev/w93/lib
t0=$(date +%s); timeout 200 gpu_dev/fwr/fvw 79 > $W/fvw.txt 2>&1; echo "fvw rc=$? $(( $(date +%s)-t0 ))s"
cd /tmp && tar czf $OUT/r28.tgz r28/fvw.txt
cut -c1-200 $W/fvw.txt
