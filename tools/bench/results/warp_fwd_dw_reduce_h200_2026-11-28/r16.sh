set -u
W=/tmp/r16; mkdir -p $W
date -u +%T
timeout 120 gpu_dev/dwr/dwr 4243 > $W/dwr2.txt 2>&1; echo "dwr rc=$?"
timeout 200 gpu_dev/fwp/fwp 77 > $W/fwp.txt 2>&1; echo "fwp rc=$?"
cd /tmp && tar czf $OUT/r16.tgz r16
cat $W/dwr2.txt $W/fwp.txt
