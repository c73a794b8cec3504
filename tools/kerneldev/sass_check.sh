#!/bin/bash
# tools/kerneldev/sass_check.sh [IN_DIR [OUT_DIR]] — the SASS of two builds of the kernels,
# compared function by function (needs cuobjdump, i.e. the GPU machine; no GPU is used).
#
# IN_DIR (default sass_check/) holds base_<arch>.so and head_<arch>.so pairs: the objects of
# //kernels:fusednorm_cuda of two commits, each built for one architecture and linked into one
# shared object, e.g. for commit C and sm_90a:
#     git worktree add /tmp/base C && cd /tmp/base && . tools/setup.sh
#     bazel build --define=cuda_archs=sm_90a //kernels:fusednorm_cuda
#     g++ -shared -o base_sm90a.so bazel-bin/kernels/_objs/fusednorm_cuda/*.pic.o
# For each pair: `cuobjdump -sass` and `cuobjdump -res-usage` of both into OUT_DIR/<side>_<arch>/
# (default OUT_DIR: IN_DIR/out), then `ptx_compare.py --sass`
# (normalizations and why they are not semantic: its sass_functions) into
# OUT_DIR/compare_<arch>.txt, a unified diff per differing function in OUT_DIR/diffs_<arch>/, and a
# table on stdout: identical / differ / differ only in c[0x4] / only in base / only in head, then
# the differing functions by name; with IN_DIR/expected.txt ("DIFFERS|REMOVED|ADDED name" lines,
# e.g. from ptx_compare.py over the PTX of the same two trees), whether each architecture's list is
# exactly that one. When $OUT is set (the device machine), the table goes to
# $OUT/sass_check.txt and the comparisons and diffs to $OUT/sass_check.tgz (the listings stay
# behind: what comes back from $OUT is a few files). Exit 0 when every pair was compared (the table is the answer),
# 1 when a listing could not be made, 2 for bad arguments.
set -uo pipefail
IN=${1:-sass_check}
OUTD=${2:-$IN/out}
HERE=$(cd "$(dirname "$0")" && pwd)
if [ $# -gt 2 ] || [ ! -d "$IN" ]; then
  echo "usage: tools/kerneldev/sass_check.sh [IN_DIR [OUT_DIR]]   (IN_DIR holds base_<arch>.so, head_<arch>.so; default sass_check/)" >&2
  exit 2
fi
CUOBJDUMP=$(command -v cuobjdump || echo "${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump")
if [ ! -x "$CUOBJDUMP" ]; then
  echo "sass_check.sh: no cuobjdump (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin)" >&2
  exit 1
fi
"$CUOBJDUMP" --version | tail -1
mkdir -p "$OUTD"

archs=$(cd "$IN" && ls base_*.so 2>/dev/null | sed 's/^base_//; s/\.so$//')
[ -n "$archs" ] || { echo "sass_check.sh: no base_<arch>.so in $IN" >&2; exit 2; }
rc=0
table=$(printf '%-7s %9s %6s %13s %12s %12s\n' arch identical differ "c[0x4] only" only-in-base only-in-head)
names=""
expect_lines=""
for arch in $archs; do
  if [ ! -f "$IN/head_$arch.so" ]; then
    echo "sass_check.sh: $IN/base_$arch.so has no head_$arch.so" >&2; rc=1; continue
  fi
  ok=1
  for side in base head; do
    d="$OUTD/${side}_$arch"; mkdir -p "$d"
    if ! "$CUOBJDUMP" -sass "$IN/${side}_$arch.so" > "$d/listing.sass" ||
       ! "$CUOBJDUMP" -res-usage "$IN/${side}_$arch.so" > "$d/listing.res"; then
      echo "sass_check.sh: cuobjdump failed on $IN/${side}_$arch.so" >&2; ok=0; rc=1; continue
    fi
    # the image's architecture, so a mislabelled file cannot pass as the other build's
    echo "$side $arch: $(grep -c 'Function :' "$d/listing.sass") functions in" \
      "$(grep -c '^Fatbin elf code' "$d/listing.sass") images, archs: $(grep -o '^arch = sm_[0-9a-z]*' "$d/listing.sass" | sort -u | sed 's/arch = //' | tr '\n' ' ')"
  done
  [ $ok = 1 ] || continue
  rm -rf "$OUTD/diffs_$arch"
  python3 "$HERE/ptx_compare.py" --sass --diffs "$OUTD/diffs_$arch" "$OUTD/base_$arch" "$OUTD/head_$arch" \
    > "$OUTD/compare_$arch.txt" || { echo "sass_check.sh: ptx_compare.py failed for $arch" >&2; rc=1; continue; }
  c=$(tail -1 "$OUTD/compare_$arch.txt")
  num() { echo "$c" | tr ',' '\n' | awk -F': ' -v k="$1" '{ sub(/^ +/, "", $1) } $1 == k { print $2 }'; }
  table+=$'\n'$(printf '%-7s %9s %6s %13s %12s %12s' "$arch" "$(num identical)" "$(num different)" \
    "$(num 'different only in c[0x4]')" "$(num removed)" "$(num added)")
  names+=$(grep -v '^identical:' "$OUTD/compare_$arch.txt" | sed "s/^/$arch /")$'\n'
  if [ -f "$IN/expected.txt" ]; then
    # the kernels a change is meant to change (e.g. ptx_compare.py over the PTX of the same trees),
    # one "DIFFERS|REMOVED|ADDED name" a line
    got=$(grep -v '^identical:' "$OUTD/compare_$arch.txt" | awk '{ sub(/-C4-ONLY$/, "", $1); print $1, $3 }' | sort)
    if [ "$got" = "$(sort "$IN/expected.txt")" ]; then
      expect_lines+="$arch: the differing, removed and added functions are exactly those of $IN/expected.txt"$'\n'
    else
      expect_lines+="$arch: NOT the list of $IN/expected.txt (< expected, > found):"$'\n'
      expect_lines+=$(diff <(sort "$IN/expected.txt") <(printf '%s\n' "$got") | grep '^[<>]')$'\n'
    fi
  fi
done
{
  echo
  echo "$table"
  echo
  printf '%s' "$names" | grep -v '^$' | awk '{print $1, $2, $4}'
  [ -z "$expect_lines" ] || { echo; printf '%s' "$expect_lines"; }
} | tee "$OUTD/sass_check.txt"
echo "(listings, compare_<arch>.txt and diffs_<arch>/NNN.diff under $OUTD)"
if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
  cp "$OUTD/sass_check.txt" "$OUT/" &&
    (cd "$OUTD" && tar -czf "$OUT/sass_check.tgz" sass_check.txt compare_*.txt $(ls -d diffs_* 2>/dev/null)) &&
    echo "(sass_check.txt and sass_check.tgz in \$OUT)" || rc=1
fi
exit $rc
