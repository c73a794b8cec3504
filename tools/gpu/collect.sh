#!/bin/bash
# tools/gpu/collect.sh — gather what the GPU suite needs into gpu_bundle/ (ignored by git), so a
# machine without Bazel can run it: `run` the device tool with carry=["gpu_bundle"] and
# `bash tools/gpu/run_suite.sh` there.
#
#   bazel build --define=cuda_archs=sm_90a,compute_80 --define=cuda_compress=size //... && bash tools/gpu/collect.sh   (repo root)
#
# gpu_bundle/
#   bin/       every cc_test / cc_binary of the workspace; the kernels are not inside them: they
#              load lib/libfusednorm.so through RUNPATH $ORIGIN/../lib (else they need only libc,
#              libstdc++, libgomp, libmpi.so.40, libhdf5_serial.so.103 and the driver)
#   lib/       every linkshared .so: libfusednorm.so (kernels + C API + reference, the one copy of
#              the GPU code) and the torch op library libfusednorm_ops.so (finds it via $ORIGIN)
#   cuda_archs.txt  the architectures the build compiled for (//tools/bazel:cuda_archs)
#   python/    the fusednorm package (shim/python/fusednorm); common.sh sets FUSEDNORM_LIBRARY
#              to lib/libfusednorm_ops.so and PYTHONPATH to python/
#   wheel/     the wheel, if //shim:wheel was built
#   tools/gpu/ the suite sections (suite_*.sh) and common.sh
#   fuzz/      only with COLLECT_FUZZ=1 (8 MB): the capture-reader fuzzers (verify/fuzz/
#              run_fuzz.sh --build-only, clang here: the GPU machine has none), their seeds,
#              run_fuzz.sh and the regression inputs, for the opt-in section fuzz_long; the
#              binaries find libcapture_reader*.so through RUNPATH $ORIGIN and need only libc,
#              libstdc++, libm and libhdf5_serial.so.103; hdf5-build/ holds this machine's
#              libhdf5_serial.so.103 (fuzz_long's FUZZ_HDF5=build)
#   MANIFEST.txt  commit, date, GPU archs, the fatbin's images and sizes, every file with size
#              and sha256
# data/ (the sample capture) is not copied: it is tracked, so it travels with the working tree, and
# the bundle lies in the repo root (suite_verify.sh reads ../data from it).
# Symlinks are dereferenced. Fails if a target was not built, a binary that needs libfusednorm.so
# could not find it from the bundle, the fatbin does not hold the listed architectures, or the
# bundle does not fit beside the working tree in the device tool's 64 MiB (tracked files and the
# untracked ones git does not ignore travel with every call; the room left is printed); a bundle
# that fits only packed is also written as ${BUNDLE}_pack/bundle.tar.xz (xz), which run_suite.sh
# unpacks where the bundle is missing (carry that folder instead). A build for
# every architecture does not fit (libfusednorm.so ~35 MB, and the wheel holds a second copy):
# bundle a build for the lent GPUs, `bazel build --define=cuda_archs=sm_90a,compute_80 --define=cuda_compress=size //...`
# (Hopper SASS and the compute_80 PTX that the suite JIT-compiles); every architecture is built
# and checked here (CI).
#
#   BUNDLE=gpu_bundle_ptx80 bash tools/gpu/collect.sh    another directory (a variant build, e.g.
#              --define=cuda_archs=compute_80, collected next to the default one); run_suite.sh
#              takes the same BUNDLE=...
set -euo pipefail
cd "$(dirname "$0")/../.."
B="${BUNDLE:-gpu_bundle}"
B="${B%/}"
case "$B" in */*|.|..|"") echo "collect: BUNDLE must be a directory name in the repo root, got '$B'" >&2; exit 2 ;; esac
CARRY_BYTES=$((64 * 1048576))
case "${COLLECT_FUZZ:-0}" in
  0|1) ;;
  *) echo "collect: COLLECT_FUZZ must be 0 or 1, got '$COLLECT_FUZZ'" >&2; exit 2 ;;
esac

rm -rf "$B"
mkdir -p "$B/bin" "$B/lib" "$B/tools/gpu"

BIN="$(bazel info bazel-bin 2>/dev/null)"
missing=()

# Every C/C++ test and binary that `bazel build //...` builds (not those tagged manual, e.g.
# developer variant builds); a label //pkg:name lands at bazel-bin/pkg/name.
labels="$(bazel query 'kind("cc_(test|binary) rule", //...) except attr(tags, "manual", //...)' --output=label 2>/dev/null)"
for label in $labels; do
  pkg="${label#//}"; pkg="${pkg%%:*}"; name="${label##*:}"
  f="$BIN/$pkg/$name"
  if [ ! -f "$f" ]; then missing+=("$label"); continue; fi
  case "$name" in
    *.so) dest="$B/lib/$name" ;;
    *)    dest="$B/bin/$name" ;;
  esac
  if [ -e "$dest" ]; then
    echo "collect: two targets named '$name' ($label and an earlier one); rename one" >&2
    exit 1
  fi
  cp -L "$f" "$dest"
done
# Shared libraries made by other rule kinds (a genrule or alias around the op library).
if [ -d "$BIN/shim" ]; then
  while IFS= read -r -d '' f; do
    [ -e "$B/lib/$(basename "$f")" ] || cp -L "$f" "$B/lib/"
  done < <(find "$BIN/shim" -maxdepth 1 -name '*.so' -print0)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "collect: not built (run \`bazel build //...\` first): ${missing[*]}" >&2
  exit 1
fi

# The Python package from the source tree. The op library stays in lib/ only (a copy would add
# ~7 MB of fatbin to a 64 MiB carry): common.sh points FUSEDNORM_LIBRARY at it.
if [ -d shim/python/fusednorm ]; then
  mkdir -p "$B/python"
  cp -rL shim/python/fusednorm "$B/python/"
  find "$B/python" -name __pycache__ -prune -exec rm -rf {} +
fi
# Test dependencies the GPU machine lacks (it has no network): pure-Python packages pinned in
# tools/requirements.txt, copied from this machine's Python next to the fusednorm package.
for pkg in liger_kernel; do
  src="$(python3 -c "import importlib.util as u, os; s = u.find_spec('$pkg'); print(os.path.dirname(s.origin) if s else '')" 2>/dev/null || true)"
  if [ -z "$src" ]; then
    echo "collect: test dependency $pkg is not installed here (tools/setup.sh installs it)" >&2
    exit 1
  fi
  cp -rL "$src" "$B/python/$pkg"
done
find "$B/python" -name __pycache__ -prune -exec rm -rf {} +
# The newest wheel only: bazel-bin keeps the outputs of earlier builds, and a wheel whose name
# (tag, version) has changed since would otherwise be carried and tested as well.
wheels="$(ls -t $(find -L "$BIN/shim" -maxdepth 2 -name '*.whl' 2>/dev/null) 2>/dev/null | head -n 1 || true)"
if [ -n "$wheels" ]; then
  mkdir -p "$B/wheel"
  cp -L $wheels "$B/wheel/"
fi

# The architectures this build compiled for; the fatbin of libfusednorm.so must hold exactly them.
archs_file="$BIN/tools/bazel/cuda_archs.txt"
if [ ! -f "$archs_file" ]; then
  echo "collect: $archs_file not built (run \`bazel build //...\` first)" >&2
  exit 1
fi
cp -L "$archs_file" "$B/cuda_archs.txt"
mkdir -p "$B/tools/bazel"
cp -L tools/bazel/fatbin.py "$B/tools/bazel/"
if ! python3 tools/bazel/fatbin.py "$B/lib/libfusednorm.so" --expect "$B/cuda_archs.txt" > "$B/fatbin.txt"; then
  cat "$B/fatbin.txt" >&2
  echo "collect: $B/lib/libfusednorm.so does not hold exactly $(paste -sd, "$B/cuda_archs.txt")" >&2
  exit 1
fi

# Every ELF file that needs libfusednorm.so finds it from where it lies in the bundle
# (bin/ -> $ORIGIN/../lib, lib/ -> $ORIGIN), not from a Bazel path.
for f in "$B"/bin/* "$B"/lib/*.so; do
  readelf -d "$f" 2>/dev/null | grep -q 'NEEDED.*\[libfusednorm.so\]' || continue
  case "$f" in */bin/*) want='$ORIGIN/../lib' ;; *) want='$ORIGIN' ;; esac
  if ! readelf -d "$f" | grep -E 'RUNPATH|RPATH' | grep -qF "$want"; then
    echo "collect: $f needs libfusednorm.so but its RUNPATH lacks $want" >&2
    exit 1
  fi
done
# The fuzzers (the opt-in section fuzz_long; only with COLLECT_FUZZ=1, 8 MB): built with clang
# outside Bazel, as CI's fuzz test does.
if [ "${COLLECT_FUZZ:-0}" = 1 ]; then
  if ! bash verify/fuzz/run_fuzz.sh --build-only "$B/fuzz" > "$B/fuzz.log" 2>&1; then
    cat "$B/fuzz.log" >&2
    echo "collect: building the fuzzers failed (clang and libclang-rt-14-dev: tools/setup.sh)" >&2
    exit 1
  fi
  rm -f "$B/fuzz.log"
  cp -L verify/fuzz/run_fuzz.sh "$B/fuzz/"
  # Electric Fence for the triage of faults HDF5's plain-store overruns cause (the GPU machine has
  # no electric-fence package; the library depends on libc alone).
  if [ -f /usr/lib/libefence.so.0 ]; then
    cp -L /usr/lib/libefence.so.0 "$B/fuzz/libefence.so.0"
  else
    echo "collect: /usr/lib/libefence.so.0 missing (apt install electric-fence: tools/setup.sh)" >&2
    exit 1
  fi
  # The build machine's HDF5 (the one the reader is compiled against and CI fuzzes with), for
  # fuzz_long with FUZZ_HDF5=build: the GPU machine's own libhdf5_serial.so.103 is another release,
  # whose heap damage on corrupt files surfaces in other places. Its dependencies (libsz, libaec,
  # libcurl, libcrypto, libz) resolve from the GPU machine's system, whose own HDF5 needs them too.
  # awk reads to the end: exiting at the first match would SIGPIPE ldconfig, and pipefail with it.
  h5so="$(ldconfig -p | awk '/libhdf5_serial\.so\.103 .*x86-64/ && !f {print $NF; f = 1}')"
  if [ -n "$h5so" ] && [ -f "$h5so" ]; then
    mkdir -p "$B/fuzz/hdf5-build"
    cp -L "$h5so" "$B/fuzz/hdf5-build/libhdf5_serial.so.103"
  else
    echo "collect: libhdf5_serial.so.103 not found (apt install libhdf5-dev: tools/setup.sh)" >&2
    exit 1
  fi
  mkdir -p "$B/fuzz/regressions"
  cp -L verify/fuzz/regressions/*.h5 "$B/fuzz/regressions/"
  cp -RL verify/fuzz/triage_cases "$B/fuzz/"
  for f in "$B"/fuzz/capture_fuzz "$B"/fuzz/capture_fuzz_asan; do
    if ! readelf -d "$f" | grep -E 'RUNPATH|RPATH' | grep -qF '$ORIGIN'; then
      echo "collect: $f lacks RUNPATH \$ORIGIN (its libcapture_reader*.so lies next to it)" >&2
      exit 1
    fi
  done
fi
cp -L tools/gpu/common.sh "$B/tools/gpu/"
for s in tools/gpu/suite_*.sh; do
  [ -e "$s" ] && cp -L "$s" "$B/tools/gpu/"
done

{
  echo "fusednorm gpu_bundle"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' + local changes')"
  echo "collected: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  echo "cuda_archs: $(paste -sd, "$B/cuda_archs.txt")"
  echo
  cat "$B/fatbin.txt"
  echo
  (cd "$B" && find . -type f ! -name MANIFEST.txt | sort | while read -r f; do
     printf '%10d  %s  %s\n' "$(stat -c %s "$f")" "$(sha256sum "$f" | cut -c1-16)" "$f"
   done)
} > "$B/MANIFEST.txt"

rm -f "$B/fatbin.txt"
bytes=$(du -sb "$B" | cut -f1)
mb=$(( (bytes + 1048575) / 1048576 ))
# The working tree as the device tool counts it (the bundle itself is ignored, so not in it).
# Files listed but deleted in the working tree do not travel, so a failed stat counts nothing.
listed="$(mktemp)"
if ! git ls-files -z -c -o --exclude-standard > "$listed"; then
  rm -f "$listed"
  echo "collect: git ls-files failed: the room beside the working tree is measured from git" >&2
  exit 1
fi
# Counted as allocated blocks, not bytes: the device tool's 64 MiB carry limit counts what the
# files occupy, and their 4 KB blocks come to about 4.5 MB more than their bytes over this tree's
# 2000 files.
tree=$( (xargs -0 -r stat -c '%b %B' < "$listed" 2>/dev/null || true) | awk '{s += $1 * $2} END {print s + 0}')
rm -f "$listed"
room=$((CARRY_BYTES - tree))
echo "collect: $B/ is ${mb} MB: $(ls "$B/bin" | wc -l) binaries, $(ls "$B/lib" | wc -l) libraries, $(ls "$B"/tools/gpu/suite_*.sh 2>/dev/null | wc -l) suite sections; archs $(paste -sd, "$B/cuda_archs.txt"); libfusednorm.so $(stat -c %s "$B/lib/libfusednorm.so") bytes; room beside the working tree $((room / 1048576)) MB"
rm -rf "${B}_pack"
if [ "$bytes" -gt "$room" ]; then
  # Too large to travel as it is: packed (xz), it travels as ${B}_pack/ (ignored like the bundle;
  # carry=["gpu_bundle_pack"]) and run_suite.sh unpacks it there into $B/ before the sections.
  mkdir -p "${B}_pack"
  if ! tar -C "$(dirname "$B")" -cf - "$(basename "$B")" | xz -6 -T0 > "${B}_pack/bundle.tar.xz"; then
    rm -rf "${B}_pack" # no half-written pack for run_suite.sh to find
    echo "collect: packing $B/ into ${B}_pack/bundle.tar.xz failed" >&2
    exit 1
  fi
  packed=$(stat -c %s "${B}_pack/bundle.tar.xz")
  if [ "$packed" -gt "$room" ]; then
    echo "collect: $B/ ($bytes bytes, $packed packed) does not fit beside the working tree ($tree bytes) in the device tool's 64 MiB:" >&2
    du -sh "$B"/* >&2
    rm -rf "${B}_pack"
    echo "collect: bundle a build for the lent GPUs: bazel build --define=cuda_archs=sm_90a,compute_80 --define=cuda_compress=size //... (then collect again)" >&2
    exit 1
  fi
  echo "collect: $B/ does not travel beside the working tree as it is; packed: ${B}_pack/bundle.tar.xz, $(( (packed + 1048575) / 1048576 )) MB (carry [\"$(basename "$B")_pack\"]: run_suite.sh unpacks it)"
fi
