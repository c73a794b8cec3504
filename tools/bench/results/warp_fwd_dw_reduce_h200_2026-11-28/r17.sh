set -u
W=/tmp/r17; mkdir -p $W
date -u +%T
timeout 400 gpu_dev/fwp/fwp 1777 > $W/fwp_grid.txt 2>&1; echo "fwp rc=$?"
cd /tmp && tar czf $OUT/r17.tgz r17
cat $W/fwp_grid.txt
