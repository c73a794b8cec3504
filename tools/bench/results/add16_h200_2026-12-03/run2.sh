#!/bin/bash
# The mutation of test_rstd's new check, then run.sh's timing again in the reverse order (ha h0 h0 ha ha h0: three runs each), to separate the
# change from the order's drift (run.sh's plain controls, whose kernels are the same in both
# builds, read 0.96-0.97x). Same pack, gpu_dev_pack/ha/builds.tar.xz.
set -u
D=/tmp/devbuilds_ha; mkdir -p $D && tar -C $D -xJf gpu_dev_pack/ha/builds.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%T
# The check's mutation (built with nvcc from a copy of the tree): fp16 as add.rn.ftz.f16x2
# (subnormal sums flushed), bf16 with the high element's last bit cleared. It must fail.
timeout 100 $D/ha/test_rstd_mut > $OUT/test_rstd_mut.txt 2>&1; echo "test_rstd_mut: rc $? (1 wanted)"
grep -E "add|OK|FAIL" $OUT/test_rstd_mut.txt | cut -c1-240
for v in ha h0 h0 ha ha h0; do
  for cfg in "f16fused:--dtype=f16 --fused:539974x12,247656x26,1000000x20,60000x45,1025612x1,400000x2,265x48540,4096x4096,65536x128,277x29,1x918" \
             "bf16fused:--dtype=bf16 --fused:366740x15,300000x30,1000000x5,209133x1,4096x8192,16384x1024,16x215342,29565x120,2x4096" \
             "bf16:--dtype=bf16:366740x15,4096x4096,2x4096" "f16:--dtype=f16:539974x12,1025612x1"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    echo "### $v $tag"
    timeout 100 $D/$v/bench_modes $flags --fwd-only --modes=auto --iters=30 --shapes=$shapes 2>&1
  done
done > $OUT/paired2.log
date -u +%T
python3 tools/kerneldev/pair_table.py $OUT/paired2.log --base h0 --modes auto > $OUT/pair_table2.txt
gzip -f $OUT/paired2.log
cat $OUT/pair_table2.txt
