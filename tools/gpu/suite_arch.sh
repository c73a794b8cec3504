#!/bin/bash
# GPU suite section: the GPU code the bundle carries.
#   fatbin (cuobjdump)  lib/libfusednorm.so holds exactly the build's architectures
#                       (gpu_bundle/cuda_archs.txt, from tools/bazel/cuda.bzl or --define): every
#                       sm_XY[a] as SASS (cuobjdump --list-elf), every compute_XY[a] as PTX
#                       (--list-ptx), the same number of each (one per .cu file), nothing else
#   this GPU            what this GPU runs from it: SASS of its own architecture, or PTX the driver
#                       JIT-compiles (a PTX-only build such as compute_80 says so here); FAIL if
#                       neither exists (the first kernel launch would fail with "no kernel image")
#   binaries carry no GPU code  bin/* and lib/libfusednorm_ops.so hold no fatbin of their own:
#                       the kernels exist once, in libfusednorm.so
. "$(dirname "$0")/common.sh"
LIB="$BUNDLE/lib/libfusednorm.so"
suite_require "$LIB" "$BUNDLE/cuda_archs.txt" || exit 0

cuobjdump="$(command -v cuobjdump || true)"
for d in "${CUDA_HOME:-/usr/local/cuda}/bin" /usr/local/cuda/bin; do
  [ -z "$cuobjdump" ] && [ -x "$d/cuobjdump" ] && cuobjdump="$d/cuobjdump"
done
want="$(grep -v '^\s*$' "$BUNDLE/cuda_archs.txt" | paste -sd, -)"

# cuobjdump names images FILE.N.sm_XY[a].cubin / FILE.N.sm_XY[a].ptx; the list says sm_XY[a]
# (SASS) and compute_XY[a] (PTX).
check_fatbin() {
  local elf ptx have expect counts
  elf="$("$cuobjdump" --list-elf "$LIB")" || { echo "cuobjdump --list-elf failed"; return 1; }
  ptx="$("$cuobjdump" --list-ptx "$LIB")" || { echo "cuobjdump --list-ptx failed"; return 1; }
  echo "$elf"; echo "$ptx"
  have="$( { echo "$elf" | grep -oE 'sm_[0-9]+[af]?\.cubin$' | sed 's/\.cubin$//';
             echo "$ptx" | grep -oE '(sm|compute)_[0-9]+[af]?\.ptx$' | sed -E 's/^(sm|compute)_/compute_/; s/\.ptx$//'; } )"
  expect="$(tr ',' '\n' <<< "$want" | sort -u)"
  if [ "$(sort -u <<< "$have")" != "$expect" ]; then
    echo "FAIL: images $(sort -u <<< "$have" | paste -sd, -), expected $want"
    return 1
  fi
  counts="$(sort <<< "$have" | uniq -c | awk '{print $1}' | sort -u)"
  if [ "$(wc -l <<< "$counts")" -ne 1 ]; then
    echo "FAIL: uneven image counts (a .cu file built without some architecture):"
    sort <<< "$have" | uniq -c
    return 1
  fi
  echo "images: $want, $counts of each (one per .cu file)"
}

# What this GPU loads: SASS for its compute capability (sm_XY, or sm_XYa built for exactly it; a
# cubin also runs on a later minor version of the same major), else PTX of an equal or lower
# version, JIT-compiled by the driver.
gpu_runs() {
  local cc list a best_sass="" best_ptx="" n v
  cc="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' ')" || return 1
  [ -n "$cc" ] || { echo "FAIL: nvidia-smi gave no compute capability"; return 1; }
  v=$(( ${cc%%.*} * 10 + ${cc#*.} ))
  for a in $(tr ',' ' ' <<< "$want"); do
    n="$(sed -E 's/^(sm|compute)_([0-9]+)[af]?$/\2/' <<< "$a")"
    case "$a" in
      sm_*a) [ "$n" -eq "$v" ] && best_sass="$a" ;;
      sm_*) [ $(( n / 10 )) -eq $(( v / 10 )) ] && [ "$n" -le "$v" ] && best_sass="$a" ;;
      compute_*) [ "$n" -le "$v" ] && best_ptx="$a" ;;
    esac
  done
  if [ -n "$best_sass" ]; then
    echo "compute capability $cc: runs SASS $best_sass"
  elif [ -n "$best_ptx" ]; then
    echo "compute capability $cc: no SASS for it; the driver JIT-compiles PTX $best_ptx"
  else
    echo "FAIL: compute capability $cc: neither SASS nor PTX it can run in $want"
    return 1
  fi
}

# The one copy: no other bundled ELF file carries GPU code.
one_copy() {
  local f bad=0 n=0
  for f in "$BUNDLE"/bin/* "$BUNDLE"/lib/*.so; do
    [ "$f" = "$LIB" ] && continue
    n=$((n + 1))
    if readelf -SW "$f" 2>/dev/null | grep -q '\.nv_fatbin'; then
      echo "FAIL: $f has its own .nv_fatbin"; bad=1
    fi
  done
  [ $bad -eq 0 ] && echo "none of $n other binaries/libraries has a .nv_fatbin"
  return $bad
}

# suite_check runs a command (under timeout), so the checks are exported functions run by bash -c.
export LIB want cuobjdump
export -f check_fatbin gpu_runs one_copy

if [ -z "$cuobjdump" ]; then
  suite_row "fatbin (cuobjdump)" FAIL "cuobjdump not found (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin)"
else
  suite_check "fatbin (cuobjdump) = $want" --detail '^(images|FAIL)' -- bash -c check_fatbin
fi

suite_check "this GPU" --detail 'compute capability' -- bash -c gpu_runs
suite_check "kernels only in libfusednorm.so" --detail '^(none|FAIL)' -- bash -c one_copy
