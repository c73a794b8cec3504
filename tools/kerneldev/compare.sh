#!/bin/bash
# tools/kerneldev/compare.sh — time several kernel builds side by side in one GPU run (each staged
# under gpu_dev/<name>/ by tools/kerneldev/stage.sh: e.g. base = the previous commit, new = the
# working tree, variants built with --define=kerneldev_set=...), then check the first non-base
# build with test_cuda --quick.
#   run(carry=["gpu_dev"], command="VARIANTS='base new t2' bash tools/kerneldev/compare.sh")
# Env: VARIANTS, SHAPES (bf16 and fused add), F32_SHAPES, F32_FUSED_SHAPES (the f32 fused add; none
# unless set), ARGS (extra bench_modes flags, e.g.
# --fwd-only), ITERS, TEST (0 = no test_cuda), DEV_DIR (default gpu_dev), DEV_TAR (a pack.sh
# tarball, unpacked into a temporary DEV_DIR: builds within the device tool's carry limit),
# MODES (bench_modes --modes, e.g.
# auto), TAR_LOGS (1: the per-build logs packed into $OUT/compare_logs.tgz, paired.log kept),
# PAIRED (1: the builds run in the order given and then in reverse, e.g. base new new base,
# so that the machine's drift over the run weighs on both; tools/kerneldev/pair_table.py then
# prints AUTO's mean time per build and the first build's over each other's). Logs go to $OUT; a
# table of AUTO's GB/s per build last.
cd "$(dirname "$0")/../.."
O="${OUT:-/tmp}"; V="${VARIANTS:-base new}"; IT="${ITERS:-12}"; D="${DEV_DIR:-gpu_dev}"
mkdir -p "$O"
if [ -n "${DEV_TAR:-}" ]; then
  D="$(mktemp -d)"
  tar -C "$D" -xJf "$DEV_TAR" || { echo "compare.sh: cannot unpack $DEV_TAR" >&2; exit 2; }
fi
S="${SHAPES:-1048576x128,262144x256,131072x512,65536x1024,32768x2880,16384x4096,16384x7168,8192x8192,4096x16384,1024x65536}"
S32="${F32_SHAPES:-1048576x128,65536x1024,16384x4096,8192x8192}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
ORDER="$V"
[ "${PAIRED:-0}" = 1 ] && ORDER="$V $(printf '%s\n' $V | tac | tr '\n' ' ')"
rm -f "$O/paired.log"; seen=" "
for v in $ORDER; do
  case "$seen" in *" $v "*) sfx=.2 ;; *) sfx= ;; esac; seen="$seen$v "
  for cfg in "bf16:--dtype=bf16:$S" "fused:--dtype=bf16 --fused:$S" "f32:--dtype=f32:$S32" \
             "f32fused:--dtype=f32 --fused:${F32_FUSED_SHAPES:-}"; do
    IFS=: read -r tag flags shapes <<< "$cfg"
    [ -n "$shapes" ] || continue
    log="$O/$v.$tag$sfx.log"
    timeout 120 $D/$v/bench_modes $flags ${ARGS:-} ${MODES:+--modes=$MODES} --iters=$IT --shapes=$shapes > "$log" 2>&1 || echo "$v $tag rc=$?"
    { echo "### $v $tag"; cat "$log"; } >> "$O/paired.log"
  done
done
if [ "${TEST:-1}" != 0 ]; then
  t=$(for v in $V; do [ "$v" != base ] && echo $v && break; done)
  timeout ${T_TEST:-200} $D/$t/test_cuda --quick > "$O/test_cuda.$t.log" 2>&1; echo "test_cuda ($t) rc=$?"
  grep -E "FAIL|runs failed|graph|bad-arg" "$O/test_cuda.$t.log" | cut -c1-200 | head -30
fi
# Table: per (config, shape, dir) the AUTO GB/s of every build, and each build's best forced mode.
python3 - "$O" $V <<'PY'
import sys, re, collections
out, vs = sys.argv[1], sys.argv[2:]
rows = collections.OrderedDict()
for v in vs:
    for tag in ("bf16", "fused", "f32", "f32fused"):
        try: lines = open(f"{out}/{v}.{tag}.log").read().splitlines()
        except OSError: continue
        for l in lines:
            m = re.match(r"\s*(\d+x\d+)\s+(fwd|bwd)\s+(\S+)\s+([\d.]+)\s+(\d+)\s+(.*)", l)
            if not m: continue
            shape, d, mode, us, gbs, cfg = m.groups()
            key = (tag, shape, d)
            r = rows.setdefault(key, {})
            if mode == "auto":
                r[v] = (int(gbs), cfg.split("->")[-1].strip())
            else:
                r[v + ":" + mode] = int(gbs)
                b = r.get(v + "*")
                if b is None or int(gbs) > b[0]: r[v + "*"] = (int(gbs), mode)
        for l in lines:
            if l.startswith("copy"): print(v, tag, l)
print("%-8s %-14s %-3s " % ("cfg", "shape", "dir") + " ".join("%-26s" % (v + " auto/pers/rp") for v in vs) + " | best forced per build")
for (tag, shape, d), r in rows.items():
    cells = " ".join("%-26s" % ("%d %s/%s/%s" % (r[v][0], r[v][1][:4], r.get(v + ":persistent", "-"), r.get(v + ":row_packed", "-")) if v in r else "-") for v in vs)
    best = " ".join("%s:%d/%s" % (v, *r[v + "*"]) for v in vs if v + "*" in r)
    print("%-8s %-14s %-3s %s | %s" % (tag, shape, d, cells, best))
PY
if [ "${PAIRED:-0}" = 1 ]; then
  python3 tools/kerneldev/pair_table.py "$O/paired.log" --modes=auto
fi
# TAR_LOGS=1: the per-build logs (and test_cuda's) packed into $O/compare_logs.tgz and removed,
# paired.log kept: the device tool brings back only a few files from $OUT.
if [ "${TAR_LOGS:-0}" = 1 ]; then
  logs=$(cd "$O" && ls *.log 2>/dev/null | grep -v '^paired\.log$' || true)
  if [ -n "$logs" ]; then
    (cd "$O" && tar czf compare_logs.tgz $logs && rm -f $logs) || echo "compare.sh: cannot pack the logs in $O" >&2
  fi
fi
