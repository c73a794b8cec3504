#!/bin/bash
# The split-row backward's warp stall reasons (per issued instruction), instructions and shared /
# global traffic: f32 and bf16 1024 x 65536, one launch each (w16b's bench_modes = main).
# Device tool: carry=["gpu_dev/base_bm"].
O=${OUT:-/tmp}
M=smsp__inst_executed.sum,smsp__cycles_active.avg,sm__cycles_elapsed.max
for r in barrier long_scoreboard short_scoreboard membar sleeping wait lg_throttle mio_throttle math_pipe_throttle not_selected selected dispatch_stall drain branch_resolving no_instruction imc_miss misc; do
  M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio
done
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
M=$M,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed_op_ldgsts.sum
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for c in "f32:--dtype=f32" "bf16:--dtype=bf16"; do
  label="${c%%:*}"; flags="${c#*:}"
  timeout 150 ncu -k regex:rms_norm_bwd_split --launch-skip 2 --launch-count 1 --metrics $M \
    gpu_dev/base_bm/bench_modes $flags --bwd --modes=auto --shapes=1024x65536 --iters=3 > "$O/ncu_stalls_$label.txt" 2>&1 || echo "$label rc=$?"
  echo "== $label"; grep -E "smsp__|l1tex__|lts__|dram__|sm__" "$O/ncu_stalls_$label.txt" | sed 's/  */ /g; s/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//'
done
date -u
