#!/bin/bash
# compare.sh's plumbing without a GPU: stub bench_modes binaries (base 200 us, new 100 us) under a
# temporary DEV_DIR; PAIRED=1 must run base new new base for each configuration, pass MODES on,
# and end with pair_table.py's row of base/new = x2.000; the same through pack.sh's tarball
# (DEV_TAR); F32_FUSED_SHAPES must add the f32 fused add as a fourth configuration; TAR_LOGS=1 must
# pack the per-build logs and keep paired.log; and pack.sh must refuse a missing build or a bad
# SPEC with exit 2.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
for b in base new; do
  mkdir -p "$tmp/dev/$b"
  t=$([ $b = base ] && echo 200.0 || echo 100.0)
  cat > "$tmp/dev/$b/bench_modes" <<STUB
#!/bin/bash
echo "args: \$*"
echo "shape          dir  mode                       us      GB/s  config"
echo "   1024x65536   bwd  auto                    $t      1904  bwd_split threads=512 ->wide"
STUB
  chmod +x "$tmp/dev/$b/bench_modes"
done
out="$(OUT="$tmp/out" DEV_DIR="$tmp/dev" VARIANTS='base new' PAIRED=1 MODES=auto TEST=0 \
  bash "$here/compare.sh" 2>&1)" || true
order="$(grep '^###' "$tmp/out/paired.log" | awk '{print $2}' | uniq | tr '\n' ' ')"
fail() { echo "FAIL: $*"; echo "$out"; exit 1; }
[ "$order" = "base new base " ] || fail "paired order: '$order'"
[ "$(grep -c '^###' "$tmp/out/paired.log")" = 12 ] || fail "12 runs (2 builds x 2 rounds x 3 configurations)"
grep -q -- "--modes=auto" "$tmp/out/new.bf16.2.log" || fail "MODES not passed to bench_modes"
echo "$out" | grep -Eq '^fused +1024x65536 +bwd auto +200\.0 \(200\.0 200\.0\) +100\.0 \(100\.0 100\.0\) +x2\.000' ||
  fail "pair table row"
row='^fused +1024x65536 +bwd auto +200\.0 \(200\.0 200\.0\) +100\.0 \(100\.0 100\.0\) +x2\.000'

# F32_FUSED_SHAPES: a fourth configuration, the f32 fused add, run and tabled like the others
out="$(OUT="$tmp/out4" DEV_DIR="$tmp/dev" VARIANTS='base new' PAIRED=1 MODES=auto TEST=0 F32_FUSED_SHAPES=1024x65536 \
  bash "$here/compare.sh" 2>&1)" || true
[ "$(grep -c '^###' "$tmp/out4/paired.log")" = 16 ] || fail "16 runs with F32_FUSED_SHAPES"
grep -q -- "--dtype=f32 --fused" "$tmp/out4/base.f32fused.log" || fail "the f32 fused run's flags"
echo "$out" | grep -Eq '^f32fused +1024x65536 +bwd auto +200\.0 \(200\.0 200\.0\) +100\.0 \(100\.0 100\.0\) +x2\.000' ||
  fail "pair table row of the f32 fused add"

# pack.sh: the two stub builds into one tarball, then compare.sh from it
DEV_DIR="$tmp/dev" PACK="$tmp/pack/b.tar.xz" bash "$here/pack.sh" base new > "$tmp/pack.log" 2>&1 ||
  fail "pack.sh: $(cat "$tmp/pack.log")"
[ -s "$tmp/pack/b.tar.xz" ] || fail "pack.sh wrote no tarball"
out="$(OUT="$tmp/out2" DEV_TAR="$tmp/pack/b.tar.xz" VARIANTS='base new' PAIRED=1 MODES=auto TEST=0 \
  bash "$here/compare.sh" 2>&1)" || true
echo "$out" | grep -Eq "$row" || fail "pair table row through DEV_TAR"
# TAR_LOGS=1: the per-build logs in compare_logs.tgz and gone from OUT, paired.log and the table kept
out="$(OUT="$tmp/out3" DEV_DIR="$tmp/dev" VARIANTS='base new' PAIRED=1 MODES=auto TEST=0 TAR_LOGS=1 \
  bash "$here/compare.sh" 2>&1)" || true
echo "$out" | grep -Eq "$row" || fail "pair table row with TAR_LOGS"
[ -s "$tmp/out3/paired.log" ] || fail "TAR_LOGS removed paired.log"
[ "$(ls "$tmp/out3" | grep -c '\.log$')" = 1 ] || fail "TAR_LOGS left logs: $(ls "$tmp/out3")"
[ "$(tar tzf "$tmp/out3/compare_logs.tgz" | grep -c '\.log$')" = 12 ] ||
  fail "compare_logs.tgz: $(tar tzf "$tmp/out3/compare_logs.tgz" | tr '\n' ' ')"
tar tzf "$tmp/out3/compare_logs.tgz" | grep -qx "new.bf16.2.log" || fail "compare_logs.tgz lacks new.bf16.2.log"
rc=0; DEV_DIR="$tmp/dev" PACK="$tmp/pack/c.tar.xz" bash "$here/pack.sh" base+test > /dev/null 2>&1 || rc=$?
[ $rc = 2 ] || fail "pack.sh without test_cuda: rc $rc, not 2"
[ ! -e "$tmp/pack/c.tar.xz" ] || fail "pack.sh left a tarball after refusing"
rc=0; DEV_DIR="$tmp/dev" PACK="$tmp/pack/d.tar.xz" bash "$here/pack.sh" ../base > /dev/null 2>&1 || rc=$?
[ $rc = 2 ] || fail "pack.sh with a bad SPEC: rc $rc, not 2"
echo "compare_test: OK"
