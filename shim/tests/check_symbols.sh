#!/bin/bash
# The stable-ABI promise, checked on the built library (shim/README.md "Ops contract"):
#   * no undefined C++ symbols of libtorch's unstable API (_ZN3c10 / _ZN2at / _ZN5torch);
#   * no Python C-API symbols (the wheel is Python-version independent);
#   * the torch entry points it does use are the C shim (aoti_torch_* / torch_*);
#   * NEEDED names libtorch_cpu.so and libtorch_cuda.so by soname, and no libc10/libpython.
# usage: check_symbols.sh path/to/libfusednorm_ops.so
set -u
lib="${1:?usage: check_symbols.sh LIB.so}"
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

if [ $fail -eq 0 ]; then
  say "OK: $(echo "$undef" | wc -l) undefined symbols, $shim from the C shim, none unstable; NEEDED: $(echo $needed)"
fi
exit $fail
