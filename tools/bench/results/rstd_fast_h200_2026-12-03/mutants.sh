#!/bin/bash
# test_rstd built against mutated copies of kernels/cuda/rmsnorm_common.cuh (nvcc, sm_90a): each
# must fail it. Run from the repository root: bash mutants.sh OUTDIR (binaries OUTDIR/test_rstd_NAME;
# run2.sh runs them with --quick from gpu_dev/rt).
set -e
O="${1:?usage: mutants.sh OUTDIR}"; mkdir -p "$O"; O="$(cd "$O" && pwd)"
mk() { # name, python replacement old, new
  local name="$1"; rm -rf $O/m_$name; mkdir -p $O/m_$name; cp -r kernels $O/m_$name/
  python3 - "$name" "$2" "$3" "$O" <<'PY'
import sys
name, old, new, _ = sys.argv[1:]
p=f'{sys.argv[4]}/m_{name}/kernels/cuda/rmsnorm_common.cuh'
s=open(p).read()
assert s.count(old)==1, (name, s.count(old))
open(p,'w').write(s.replace(old,new))
PY
  /usr/local/cuda/bin/nvcc -arch=sm_90a -O3 -std=c++17 -I$O/m_$name -Ikernels/include $O/m_$name/kernels/tests/rstd_check.cu kernels/tests/test_rstd.c -o $O/test_rstd_$name
  echo built $name
}
mk sqrt_nocorr 'return fn_rcp_rn_fast(__fmaf_rn(__fmaf_rn(-s0, s0, v), h, s0));' 'return fn_rcp_rn_fast(s0);'
mk div_nocorr 'return __fmaf_rn(__fmaf_rn(-fn, q0, a), y, q0);' 'return q0;'
mk rcp_nonewton 'return __fmaf_rn(r0, -__fmaf_rn(r0, d, -1.0f), r0);' 'return r0;'
mk range_wide 'return __float_as_uint(v) - 0x0d000000u <= 0x727fffffu;' 'return __float_as_uint(v) - 0x00800000u <= 0x7effffffu;'
mk slow_noeps 'return 1.0f / sqrtf(__fadd_rn(q, eps));' 'return 1.0f / sqrtf(q);'
mk div_nmax '#define FN_RSTD_FAST_DIV_MAX_N 1024' '#define FN_RSTD_FAST_DIV_MAX_N (1 << 24)'
mk zero_ok 'return n <= FN_RSTD_FAST_DIV_MAX_N && (fn_rstd_fast_range(a) || __float_as_uint(a) == 0u);' 'return n <= FN_RSTD_FAST_DIV_MAX_N && (fn_rstd_fast_range(a) || __float_as_uint(a) < 0x00800000u);'
mk neg_zero 'return n <= FN_RSTD_FAST_DIV_MAX_N && (fn_rstd_fast_range(a) || __float_as_uint(a) == 0u);' 'return n <= FN_RSTD_FAST_DIV_MAX_N && (fn_rstd_fast_range(a) || a == 0.0f);'
mk alias 'r[i] = rstd_of(ss[i], n, eps);' 'r[i] = rstd_of(ss_in[i], n, eps);'
