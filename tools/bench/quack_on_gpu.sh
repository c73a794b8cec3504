#!/bin/bash
# Quack (quack-kernels, CuTe-DSL) for bench.py's `quack` provider on the GPU machine, which has no
# network: its wheels, unzipped into one folder, travel as an xz archive split in parts small enough
# for the device tool (64 MiB a call, the working tree included), one part per call, while the
# machine stays warm (/tmp survives between calls until it goes idle).
#
#   bash tools/bench/quack_on_gpu.sh --stage   copy the parts carried in this call (.quack/) to
#                                              /tmp/quack_parts and stop (the first call)
#   bash tools/bench/quack_on_gpu.sh           stage this call's parts too, check every part named in
#                                              SHA256SUMS is there and intact, join, unpack into
#                                              /tmp/quack_site, check `import quack` works, and print
#                                              the PYTHONPATH to use (one line on stdout; the rest on
#                                              stderr). Unpacks once: a later call only checks.
#   export PYTHONPATH="$(bash tools/bench/quack_on_gpu.sh):$PYTHONPATH" || exit
#
# Exit: 0 ready, 1 a part missing or corrupt or the import failed (the reason on stderr), 2 bad usage.
# How .quack/ is made (on a machine with network): tools/bench/README.md "Quack".
set -euo pipefail
cd "$(dirname "$0")/../.."
parts=/tmp/quack_parts
site=/tmp/quack_site
pp="$site:$site/nvidia_cutlass_dsl/dsl_packages"
say() { echo "quack_on_gpu: $*" >&2; }

case "${1:-}" in
  ""|--stage) ;;
  *) say "usage: $0 [--stage]"; exit 2 ;;
esac

mkdir -p "$parts"
shopt -s nullglob
staged=0
for f in .quack/quack_site.tar.xz.part-* .quack/SHA256SUMS; do
  [ -f "$f" ] || continue
  cp -f "$f" "$parts/"
  staged=$((staged + 1))
done
say "staged $staged file(s) from .quack/ into $parts: $(cd "$parts" && ls | tr '\n' ' ')"
[ "${1:-}" = --stage ] && exit 0

if [ -f "$site/.unpacked" ] && cmp -s "$site/.unpacked" "$parts/SHA256SUMS" 2>/dev/null; then
  say "already unpacked in $site"
else
  if [ ! -f "$parts/SHA256SUMS" ]; then
    say "no SHA256SUMS in .quack/ or $parts: carry .quack/SHA256SUMS with a part"; exit 1
  fi
  # Every part the archive was split into must be here and intact before anything is unpacked.
  missing=$(cd "$parts" && awk '{print $2}' SHA256SUMS | while read -r p; do [ -f "$p" ] || echo "$p"; done)
  if [ -n "$missing" ]; then
    say "missing part(s): $(echo $missing) (carry each in a call while the machine is warm)"; exit 1
  fi
  if ! (cd "$parts" && sha256sum --quiet -c SHA256SUMS) >&2; then
    say "a part is corrupt (sha256 mismatch)"; exit 1
  fi
  rm -rf "$site" "$site.tmp"
  mkdir -p "$site.tmp"
  (cd "$parts" && cat $(awk '{print $2}' SHA256SUMS)) | xz -d | tar -x -C "$site.tmp"
  mv "$site.tmp/quack_site" "$site"
  rm -rf "$site.tmp"
  cp "$parts/SHA256SUMS" "$site/.unpacked"
  say "unpacked $(du -sh "$site" | cut -f1) into $site"
fi

# The import is the check: cutlass (its MLIR libraries), cuda.bindings, tvm_ffi and quack.rmsnorm.
if ! PYTHONPATH="$pp${PYTHONPATH:+:$PYTHONPATH}" python3 -c '
import importlib.metadata as md, sys
import quack.rmsnorm  # noqa: F401
print("quack_on_gpu: import quack.rmsnorm ok; " + ", ".join(
    f"{d} {md.version(d)}" for d in ("quack-kernels", "nvidia-cutlass-dsl", "cuda-bindings", "apache-tvm-ffi")),
    file=sys.stderr)' >&2; then
  say "import quack.rmsnorm failed with PYTHONPATH=$pp"; exit 1
fi
echo "$pp"
