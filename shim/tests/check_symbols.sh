#!/bin/bash
# The stable-ABI promise, checked on the built library (shim/README.md "Ops contract"):
#   * no undefined C++ symbols of libtorch's unstable API (_ZN3c10 / _ZN2at / _ZN5torch);
#   * no Python C-API symbols (the wheel is Python-version independent);
#   * the torch entry points it does use are the C shim (aoti_torch_* / torch_*);
#   * NEEDED names libtorch_cpu.so and libtorch_cuda.so by soname, and no libc10/libpython;
#   * the kernels come from libfusednorm.so (NEEDED, found through RUNPATH $ORIGIN: next to this
#     library in the wheel and the GPU bundle), which exports only fusednorm_* (its static CUDA
#     runtime and C++ host stubs stay private) and needs no CUDA toolkit library.
# usage: check_symbols.sh path/to/libfusednorm_ops.so path/to/libfusednorm.so
set -u
lib="${1:?usage: check_symbols.sh LIB_OPS.so LIBFUSEDNORM.so}"
core="${2:?usage: check_symbols.sh LIB_OPS.so LIBFUSEDNORM.so}"
fail=0
say() { echo "check_symbols: $*"; }

undef=$(nm -D --undefined-only "$lib") || { say "nm failed on $lib"; exit 1; }
bad=$(echo "$undef" | awk '{print $NF}' | grep -E '^_ZN(3c10|2at|5torch)' || true)
if [ -n "$bad" ]; then
  say "FAIL: unstable libtorch C++ symbols are referenced:"; echo "$bad" | head -20; fail=1
fi
py=$(echo "$undef" | awk '{print $NF}' | grep -E '^_?Py' || true)
if [ -n "$py" ]; then say "FAIL: Python C-API symbols referenced:"; echo "$py" | head; fail=1; fi
shim=$(echo "$undef" | awk '{print $NF}' | grep -cE '^(aoti_torch_|torch_)' || true)
if [ "$shim" -lt 5 ]; then say "FAIL: only $shim C-shim symbols: is this the shim library?"; fail=1; fi
for need in aoti_torch_get_current_cuda_stream torch_library_impl; do
  echo "$undef" | awk '{print $NF}' | grep -qx "$need" || { say "FAIL: $need not referenced"; fail=1; }
done

needed=$(readelf -d "$lib" | awk '/NEEDED/ {gsub(/[\[\]]/, "", $NF); print $NF}')
for so in libtorch_cpu.so libtorch_cuda.so; do
  echo "$needed" | grep -qx "$so" || { say "FAIL: NEEDED lacks $so (got: $(echo $needed))"; fail=1; }
done
if echo "$needed" | grep -qE '^(libc10|libpython|libtorch_python)'; then
  say "FAIL: links an unstable or Python library: $(echo $needed)"; fail=1
fi
soname=$(readelf -d "$lib" | awk '/SONAME/ {gsub(/[\[\]]/, "", $NF); print $NF}')
[ "$soname" = "libfusednorm_ops.so" ] || { say "FAIL: soname is '$soname'"; fail=1; }

echo "$needed" | grep -qx libfusednorm.so || { say "FAIL: NEEDED lacks libfusednorm.so (got: $(echo $needed))"; fail=1; }
readelf -d "$lib" | grep -E 'RUNPATH|RPATH' | grep -qE '\$ORIGIN(:|\])' || { say "FAIL: no \$ORIGIN in the RUNPATH"; fail=1; }
csoname=$(readelf -d "$core" | awk '/SONAME/ {gsub(/[\[\]]/, "", $NF); print $NF}')
[ "$csoname" = "libfusednorm.so" ] || { say "FAIL: $core soname is '$csoname'"; fail=1; }
exported=$(nm -D --defined-only "$core" | awk '$2 ~ /^[TDBRVW]$/ {print $3}')
nexp=$(echo "$exported" | grep -c '^fusednorm_' || true)
other=$(echo "$exported" | grep -v '^fusednorm_' | grep -v '^$' || true)
[ -z "$other" ] || { say "FAIL: $core exports more than fusednorm_*:"; echo "$other" | head; fail=1; }
for need in fusednorm_forward_cuda fusednorm_forward_cpu fusednorm_ref_forward fusednorm_rule_y; do
  echo "$exported" | grep -qx "$need" || { say "FAIL: $core does not export $need"; fail=1; }
done
cneeded=$(readelf -d "$core" | awk '/NEEDED/ {gsub(/[\[\]]/, "", $NF); print $NF}')
if echo "$cneeded" | grep -qE '^lib(cudart|cuda|nvrtc|torch)'; then
  say "FAIL: $core needs a CUDA toolkit or torch library: $(echo $cneeded)"; fail=1
fi

if [ $fail -eq 0 ]; then
  say "OK: libfusednorm.so exports $nexp fusednorm_* symbols and nothing else; NEEDED: $(echo $cneeded)"
  say "OK: $(echo "$undef" | wc -l) undefined symbols, $shim from the C shim, none unstable; NEEDED: $(echo $needed)"
fi
exit $fail
