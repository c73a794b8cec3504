#!/bin/bash
# The fatbin of LIB holds exactly the architectures listed in ARCHS (fatbin.py --expect), and the
# check can fail: the same library against the list minus its first entry, and plus an
# architecture it was not built for, must both be rejected.
# usage: test_fatbin.sh fatbin.py LIB ARCHS
set -u
fatbin="$1"; lib="$2"; archs="$3"
py="$(command -v python3)"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail=0
"$py" "$fatbin" "$lib" --expect "$archs" || { echo "test_fatbin: FAIL: $lib does not hold $(paste -sd, "$archs")"; fail=1; }
tail -n +2 "$archs" > "$tmp/fewer.txt"
if [ -s "$tmp/fewer.txt" ] && "$py" "$fatbin" "$lib" --expect "$tmp/fewer.txt" > /dev/null 2>&1; then
  echo "test_fatbin: FAIL: the check accepted a list without $(head -n 1 "$archs")"; fail=1
fi
{ cat "$archs"; echo sm_50; } > "$tmp/more.txt"
if "$py" "$fatbin" "$lib" --expect "$tmp/more.txt" > /dev/null 2>&1; then
  echo "test_fatbin: FAIL: the check accepted a list with sm_50 (nvcc 13 cannot build it)"; fail=1
fi
[ $fail -eq 0 ] && echo "test_fatbin: OK ($(paste -sd, "$archs"); planted mismatches rejected)"
exit $fail
