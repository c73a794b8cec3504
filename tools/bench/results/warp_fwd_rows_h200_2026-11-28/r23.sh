set -u
W=/tmp/r23; mkdir -p $W
date -u +%T; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export LD_LIBRARY_PATH=$PWD/gpu_dev/w91/lib
t0=$(date +%s); timeout 500 gpu_dev/fwr/fwr 78 2 > $W/fwr_2.txt 2>&1; echo "fwr rc=$? $(( $(date +%s)-t0 ))s"
cd /tmp && tar czf $OUT/r23.tgz r23/fwr_2.txt
tail -3 $W/fwr_2.txt
