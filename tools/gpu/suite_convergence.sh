#!/bin/bash
# GPU suite section: convergence (convergence/train.py) on every GPU of the machine through NCCL.
#   <model>_<dtype>   llama/qwen3/gemma3 x bf16/fp32, `mpirun -np <GPUs>`, STEPS steps (default
#                     300): fusednorm vs stock RMSNorm, 3 reference seeds for the run-to-run spread,
#                     a second fusednorm run that must be bitwise identical. PASS iff train.py exits 0.
# The six jobs run at the same time: the models are tiny and launch-bound, so the GPUs have room
# and the section takes about as long as one job (each job's processes share the GPUs by time
# slicing; per-step timings are therefore not speed measurements).
# Artifacts: $SUITE_OUT/convergence.tar.gz (per config: JSON report + PNG, and each job's log);
# the device tool returns at most 8 files, so they travel as one.
# Env: STEPS (default 300), CONV_MODELS, CONV_DTYPES (space-separated subsets), NP (default: all GPUs),
# CONV_SEEDS (default 1234; several: one job per seed, e.g. to tell a systematic gap from chance),
# CONV_DEVICE (default cuda; cpu + NP=2 + CONV_IMPL=contract dry-runs this script on a CPU machine),
# CONV_ARGS (more train.py options for every job, e.g. "--compile --qk-norm inductor-when-compiled";
# the options appear in each row's detail).
. "$(dirname "$0")/common.sh"
REPO="$(cd "$BUNDLE/.." && pwd)"
TRAIN="$REPO/convergence/train.py"
suite_require "$TRAIN" "$BUNDLE/python/fusednorm/__init__.py" || exit 0

# Never NVLink multicast on the shared machines (device README/KINDS.md); -x carries these to
# every rank, also on other nodes.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export MPLCONFIGDIR="${TMPDIR:-/tmp}/mpl-conv"
# The package in the bundle carries its library; FUSEDNORM_LIBRARY (common.sh) names it too.
NP="${NP:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}"
STEPS="${STEPS:-300}"
if [ "${NP:-0}" -lt 1 ]; then
  suite_row "gpus" FAIL "nvidia-smi lists no GPU"
  exit 0
fi
work="$(mktemp -d)"
mkdir -p "$work/results"
pids=() names=()
seeds=(${CONV_SEEDS:-1234})
for model in ${CONV_MODELS:-llama qwen3 gemma3}; do
  for dtype in ${CONV_DTYPES:-bf16 fp32}; do
   for seed in "${seeds[@]}"; do
    name="${model}_${dtype}"
    out="$work/results"
    # Several seeds (a gap seen once: is it systematic?): one job and one output folder per seed.
    if [ "${#seeds[@]}" -gt 1 ]; then name="${name}_s${seed}"; out="$work/results/s${seed}"; fi
    mkdir -p "$out"
    # --bind-to none: OpenMPI would pin rank r of every concurrent job to core r.
    timeout --kill-after=10 "${CONV_TIMEOUT:-480}" \
      mpirun -np "$NP" --oversubscribe --bind-to none \
        -x NCCL_NVLS_ENABLE -x TORCH_SYMM_MEM_DISABLE_MULTICAST -x NVSHMEM_DISABLE_NVLS \
        -x PYTHONPATH -x FUSEDNORM_LIBRARY -x PYTHONUNBUFFERED -x OMP_NUM_THREADS -x MPLCONFIGDIR \
        python3 "$TRAIN" --model "$model" --dtype "$dtype" --steps "$STEPS" --device "${CONV_DEVICE:-cuda}" \
        --impl "${CONV_IMPL:-fusednorm}" \
        --seed "$seed" --log-every 50 ${CONV_ARGS:-} --out "$out" > "$work/results/$name.log" 2>&1 &
    pids+=($!) names+=("$name")
   done
  done
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}"
  rc=$?
  name="${names[$i]}"
  log="$work/results/$name.log"
  echo "---- [$SECTION] $name (exit $rc)"
  grep -E "^convergence:|step (50|$STEPS)/|PASS|FAIL|rror" "$log" | tail -n 40
  line="$(grep -E '^(PASSED|FAILED)' "$log" | tail -n 1 | sed 's/; report .*//')"
  [ -n "$line" ] || line="$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)"
  if [ "$rc" -eq 0 ]; then suite_row "$name" PASS "${NP} ranks, ${STEPS} steps${CONV_ARGS:+ ($CONV_ARGS)}: ${line}"
  elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then suite_row "$name" FAIL "timed out: ${line}"
  else suite_row "$name" FAIL "exit $rc: ${line}"
  fi
done
# Several seeds: the paired verdict over them (convergence/seeds.py: is there a systematic
# difference?), one row per config, beside each seed's own rows.
if [ "${#seeds[@]}" -ge 3 ]; then
  for model in ${CONV_MODELS:-llama qwen3 gemma3}; do
    for dtype in ${CONV_DTYPES:-bf16 fp32}; do
      reps=("$work"/results/s*/"${model}_${dtype}.json")
      python3 "$REPO/convergence/seeds.py" "${reps[@]}" --json "$work/results/${model}_${dtype}_seeds.json" \
        > "$work/results/${model}_${dtype}_seeds.md" 2>&1
      rc=$?
      cat "$work/results/${model}_${dtype}_seeds.md"
      line="$(grep -E 'final_eval_loss' "$work/results/${model}_${dtype}_seeds.md" | head -n 1 | tr '|' ' ' | tr -s ' ')"
      if [ "$rc" -eq 0 ]; then suite_row "${model}_${dtype} paired seeds" PASS "${#seeds[@]} seeds${CONV_ARGS:+ ($CONV_ARGS)}:${line}"
      else suite_row "${model}_${dtype} paired seeds" FAIL "exit $rc:${line:- $(tail -n 1 "$work/results/${model}_${dtype}_seeds.md")}"
      fi
    done
  done
fi
tar -czf "$SUITE_OUT/convergence.tar.gz" -C "$work" results
rm -rf "$work"
