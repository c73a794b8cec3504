#!/bin/bash
# tools/kerneldev/pack.sh SPEC... — pack staged builds' binaries into one xz tarball that a single
# device call can carry beside the working tree (the call carries at most 64 MiB in all; a
# bench_modes or test_cuda is ~7.7 MB, xz takes each to about a third).
#   SPEC: NAME (gpu_dev/NAME/bench_modes) or NAME+test (bench_modes and test_cuda)
#   env: DEV_DIR (default gpu_dev), PACK (default gpu_dev_pack/builds.tar.xz)
# Then: run(carry=["gpu_dev_pack"], command="DEV_TAR=gpu_dev_pack/builds.tar.xz VARIANTS='...' bash
# tools/kerneldev/compare.sh"). Exits 2 with the reason on a bad SPEC, a missing binary, or (in a
# git checkout) a pack that would not fit the carry limit beside the tracked files.
set -euo pipefail
cd "$(dirname "$0")/../.."
D="${DEV_DIR:-gpu_dev}"; P="${PACK:-gpu_dev_pack/builds.tar.xz}"
[ $# -ge 1 ] || { echo "usage: tools/kerneldev/pack.sh NAME[+test]..." >&2; exit 2; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
for spec in "$@"; do
  name="${spec%+test}"
  case "$name" in ""|*/*|*+*) echo "pack.sh: bad SPEC '$spec' (NAME or NAME+test)" >&2; exit 2 ;; esac
  files=bench_modes; [ "$spec" != "$name" ] && files="bench_modes test_cuda"
  mkdir -p "$tmp/$name"
  for f in $files; do
    [ -x "$D/$name/$f" ] || { echo "pack.sh: $D/$name/$f is missing (tools/kerneldev/stage.sh $name first)" >&2; exit 2; }
    cp "$D/$name/$f" "$tmp/$name/"
  done
done
mkdir -p "$(dirname "$P")"
tar -C "$tmp" -cf - . | xz -T0 -6 > "$P.part" && mv "$P.part" "$P"
bytes=$(stat -c %s "$P")
limit=$((64 * 1024 * 1024))
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # allocated blocks, as tools/gpu/collect.sh counts them (bytes under-count what the tool refuses)
  tree=$(git ls-files -z | xargs -0 du -cB1 2>/dev/null | tail -1 | cut -f1)
  echo "pack.sh: $P $bytes bytes ($*); tracked tree $tree; carry limit $limit"
  if [ $((bytes + tree)) -gt $limit ]; then
    echo "pack.sh: $P and the tracked tree exceed the carry limit: pack fewer builds" >&2
    rm -f "$P"; exit 2
  fi
else
  echo "pack.sh: $P $bytes bytes ($*)"
fi
