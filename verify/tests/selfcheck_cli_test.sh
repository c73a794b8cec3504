#!/bin/bash
# kernels/tools/selfcheck's command line (getopt_long): every bad argument exits 2 with the reason
# before any work; --key=value and --key value both parse; --help to a full device exits 2.
#   selfcheck_cli_test.sh SELFCHECK
set -u
S="$1"
fails=0
expect() {  # WANT_RC REGEX ARGS...
  local want="$1" re="$2"; shift 2
  local out rc
  out=$(timeout 60 "$S" "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qE -- "$re" <<< "$out"; then
    echo "FAIL: selfcheck $*: exit $rc (want $want), stderr: $out"; fails=$((fails + 1))
  else
    echo "  selfcheck $* -> exit $rc: $(head -n 1 <<< "$out")"
  fi
}
expect 2 "bad --seed '-1': expected a decimal integer in \[0, 2\^64\)" --seed -1
expect 2 "bad --seed 'abc'" --seed=abc
expect 2 "bad --seed '18446744073709551616'" --seed 18446744073709551616
expect 2 "bad --seed ''" --seed=
expect 2 "--device must be auto, cuda or cpu \(got 'gpu'\)" --device=gpu
expect 2 "--device must be auto, cuda or cpu \(got 'tpu'\)" --device tpu
expect 2 "--device needs a value" --device
expect 2 "unknown option '--bogus'" --bogus
expect 2 "unknown option '-x'" -x
expect 2 "unexpected argument 'extra'" extra
out=$("$S" --help); rc=$?
[ "$rc" -eq 0 ] && grep -q "usage: selfcheck" <<< "$out" || { echo "FAIL: --help exit $rc"; fails=$((fails + 1)); }
err=$("$S" --help 2>&1 > /dev/full); rc=$?
[ "$rc" -eq 2 ] && grep -q "No space left on device" <<< "$err" || { echo "FAIL: --help > /dev/full exit $rc: $err"; fails=$((fails + 1)); }
echo "  --help exit 0; --help > /dev/full exit 2 (ENOSPC named)"
[ "$fails" -eq 0 ] && echo PASS || { echo "$fails failure(s)"; exit 1; }
