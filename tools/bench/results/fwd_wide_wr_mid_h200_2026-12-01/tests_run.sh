#!/bin/bash
# Call 5: wrmid's test_cuda --wide-fwd (full) with its AUTO check of 400 x 24576 f16; --plan-sections.
set -u
cd "$(dirname "$0")/.."
D=$(mktemp -d); tar -C $D -xJf gpu_dev_pack/builds.tar.xz
( timeout 300 $D/wrmid/test_cuda --wide-fwd > $OUT/widefwd.log 2>&1; echo "wide-fwd rc=$?" >> $OUT/rc.txt ) &
( timeout 300 $D/wrmid/test_cuda --plan-sections > $OUT/plan_sections.log 2>&1; echo "plan-sections rc=$?" >> $OUT/rc.txt ) &
wait
gzip -f $OUT/*.log
cat $OUT/rc.txt; zcat $OUT/widefwd.log.gz | grep -E "every slot|FAIL|OK" | tail -12; zcat $OUT/plan_sections.log.gz | tail -3
