#!/bin/bash
# convergence/ci_test.sh — the CPU convergence test: `mpirun -np 2` over gloo, tiny models, 20 steps.
#
#   bazel test //convergence:convergence_cpu_test          (CI; args below come from BUILD)
#   bash convergence/ci_test.sh [PYTHON [LIBRARY]]          (from a checkout, after
#                                                            `bazel build //shim:fusednorm_ops`)
# PYTHON: the torch-bearing interpreter (default python3); LIBRARY: libfusednorm_ops.so (default
# $FUSEDNORM_LIBRARY, else bazel-bin/shim/libfusednorm_ops.so). CONVERGENCE_IMPL=contract runs the
# cases against the torch stand-in instead (tests this runner without the op library).
#
# Cases (each must behave as stated, or the test fails):
#   1. fusednorm vs stock RMSNorm, llama/qwen3/gemma3 x bf16/fp32, 20 steps (three launches with
#      lists of pairs): exit 0, every pair's JSON says passed, every check passed, the norms were
#      really swapped, two fusednorm runs bitwise equal.
#   2. one 40-step run (past the 32-step early window): the long-run path with 3 reference seeds.
#   3. the same run through the ctypes MPI bootstrap and the multi-node address probe.
#   4. a deliberately broken stand-in (mean of squares over N-1), fp32 and bf16 in one launch: exit 1,
#      step 1 named for each.
#   5. bad --data: exit 2 on every rank, no hang.
set -uo pipefail

PY="${1:-${PYTHON:-python3}}"
if [ -n "${TEST_SRCDIR:-}" ]; then
  ROOT="$TEST_SRCDIR/${TEST_WORKSPACE:-fusednorm}"
  LIB="${2:+$ROOT/$2}"
  WORK="$TEST_TMPDIR"
  export HOME="$WORK/home"; mkdir -p "$HOME"
else
  ROOT="$(cd "$(dirname "$0")/.." && pwd)"
  LIB="${2:-${FUSEDNORM_LIBRARY:-$ROOT/bazel-bin/shim/libfusednorm_ops.so}}"
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
fi
TRAIN="$ROOT/convergence/train.py"
[ -f "$TRAIN" ] || { echo "ci_test: $TRAIN missing" >&2; exit 2; }
IMPL="${CONVERGENCE_IMPL:-fusednorm}"
[ "$IMPL" != fusednorm ] || [ -f "$LIB" ] || { echo "ci_test: fusednorm op library '$LIB' missing (bazel build //shim:fusednorm_ops)" >&2; exit 2; }
export FUSEDNORM_LIBRARY="$LIB"
export PYTHONPATH="$ROOT/shim/python${PYTHONPATH:+:$PYTHONPATH}"
# Sandbox-friendly: caches in the scratch dir, nothing fetched.
export MPLCONFIGDIR="$WORK/mpl" HF_HOME="$WORK/hf" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export OMP_NUM_THREADS=1
# CI containers run as root; OpenMPI refuses root unless told. 2 ranks on <= 2 cores: oversubscribe.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun -np 2 --oversubscribe --bind-to none)
command -v mpirun >/dev/null || { echo "ci_test: mpirun not found (apt install openmpi-bin)" >&2; exit 2; }

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# check_json FILE [BOOTSTRAP]: the report must say passed, with every check passed and norms swapped.
check_json() {
  "$PY" - "$@" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
if len(sys.argv) > 2 and sys.argv[2]:
    assert r["bootstrap"]["mpi"] == sys.argv[2], r["bootstrap"]
    assert not r["bootstrap"]["addrs"][0].startswith("127."), r["bootstrap"]
bad = [c["check"] for c in r["checks"] if not c["passed"]]
assert r["passed"] and not bad, f"report says failed: {bad}"
assert r["world_size"] == 2 and r["backend"] == "gloo", (r["world_size"], r["backend"])
f = r["runs"]["fused"]
assert f["swapped"] == f["hf_norms"] > 0, f"swapped {f['swapped']} of {f['hf_norms']} norms"
names = {c["check"] for c in r["checks"]}
assert {"step1_loss", "step1_grad_norm", "early_loss", "early_mean_grad_norm", "final_params",
        "fused_bitwise_repeat"} <= names, names
assert any(n.startswith("early_eval_loss@") for n in names), names
if r["steps"] > r["early_steps"]:
    assert {"long_smoothed_loss", "long_mean_grad_norm", "final_eval_loss"} <= names and len(r["runs"]) == 5, names
EOF
}

run_case() {  # NAME EXPECTED_RC ARGS... ; output in $WORK/NAME.log
  local name="$1" want="$2"; shift 2
  local t0=$SECONDS
  env ${ENV_PREFIX:-} "${MPIRUN[@]}" "$PY" "$TRAIN" --log-every 10 --out "$WORK/out" --impl "$IMPL" "$@" > "$WORK/$name.log" 2>&1
  local rc=$?
  echo "---- $name: exit $rc (want $want), $((SECONDS - t0))s"
  grep -E "PASS|FAIL|error|Error" "$WORK/$name.log" | head -n 20
  if [ "$rc" -ne "$want" ]; then
    fail "$name exited $rc, expected $want"
    tail -n 40 "$WORK/$name.log"
    return 1
  fi
  return 0
}

# Case 1 in three launches (lists of models and dtypes: one report a pair, the imports paid once a
# launch); gemma3 fp32 alone, through the ctypes MPI bootstrap and the multi-node probe (case 3).
check_pairs() {  # NAME BOOT MODEL... (-- DTYPE...): every pair's report and PNG
  local name="$1" boot="$2"; shift 2
  local models=() dtypes=()
  while [ "$1" != -- ]; do models+=("$1"); shift; done; shift
  dtypes=("$@")
  for model in "${models[@]}"; do
    for dtype in "${dtypes[@]}"; do
      check_json "$WORK/out/${model}_${dtype}.json" "$boot" || fail "$name ${model}_${dtype}: report check"
      [ -s "$WORK/out/${model}_${dtype}.png" ] || fail "$name ${model}_${dtype}: no PNG"
    done
  done
}
if run_case pairs_bf16 0 --model llama,qwen3,gemma3 --dtype bf16 --steps 20; then
  check_pairs pairs_bf16 "" llama qwen3 gemma3 -- bf16
  grep -q "convergence: 3 pairs: llama bf16 passed, qwen3 bf16 passed, gemma3 bf16 passed" "$WORK/pairs_bf16.log" ||
    fail "pairs_bf16: no summary line"
fi
if run_case pairs_fp32 0 --model llama,qwen3 --dtype fp32 --steps 20; then
  check_pairs pairs_fp32 "" llama qwen3 -- fp32
fi
if ENV_PREFIX="FUSEDNORM_MPI_BOOTSTRAP=ctypes FUSEDNORM_RDZV_ALL_INTERFACES=1" \
   run_case gemma3_fp32 0 --model gemma3 --dtype fp32 --steps 20; then
  check_pairs gemma3_fp32 ctypes gemma3 -- fp32
fi

if run_case long_qwen3_bf16 0 --model qwen3 --dtype bf16 --steps 40 --eval-every 20; then
  check_json "$WORK/out/qwen3_bf16.json" || fail "long_qwen3_bf16: report check"
fi

# FSDP2 (fully_shard per decoder layer), the model patched after sharding; the report says so.
if run_case fsdp2_llama_fp32 0 --model llama --dtype fp32 --steps 12 --eval-every 6 --parallel fsdp2 --patch-after-shard; then
  check_json "$WORK/out/llama_fp32.json" || fail "fsdp2_llama_fp32: report check"
  "$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["parallel"] == "fsdp2" and r["patch_after_shard"], r.get("parallel")' \
    "$WORK/out/llama_fp32.json" || fail "fsdp2_llama_fp32: the report does not say fsdp2"
fi

# Both dtypes in one launch: exit 1, and each pair's failure names step 1.
if run_case broken_stand_in 1 --model llama --dtype fp32,bf16 --steps 20 --impl contract-broken; then
  for dtype in fp32 bf16; do
    grep -q "FAILED llama $dtype: first failing step 1 " "$WORK/broken_stand_in.log" ||
      fail "broken_stand_in $dtype: the failure message does not name step 1"
  done
fi

run_case bad_data 2 --model llama --dtype fp32 --steps 5 --data "$WORK/does-not-exist.txt" &&
  { grep -q "no such file" "$WORK/bad_data.log" || fail "bad_data: no reason given"; }

if [ "$fails" -ne 0 ]; then
  echo "convergence CPU test: $fails failure(s)"
  exit 1
fi
echo "convergence CPU test: all cases behaved as expected"
