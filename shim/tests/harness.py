"""A tiny test runner (no pytest needed): plain functions named test_*, plain asserts.

    python3 shim/tests/test_ops.py [--device cpu|cuda] [-k SUB[,SUB]|^SUB[,SUB]] [--seed N]

Prints one line per test (PASS/FAIL/SKIP, time) and a footer; exit 0 all passed (or skipped), 1 a
test failed. A test that cannot run on this device calls skip(reason): SKIP with the reason, named
in the footer, never PASS.
Honours Bazel sharding (TEST_TOTAL_SHARDS / TEST_SHARD_INDEX): tests are dealt round-robin.
The seed is printed; every test reseeds from it (plus a per-test offset), so a failure replays
with --seed and -k.
"""

import argparse
import hashlib
import os
import sys
import time
import traceback

import torch

DEVICE = "cpu"
SEED = None


def _parse():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default=os.environ.get("FUSEDNORM_TEST_DEVICE", "cpu"))
    p.add_argument("-k", default="")
    p.add_argument("--seed", type=int, default=None)
    return p.parse_args()


class Skipped(Exception):
    """Raised by skip(): the test did not run here (the reason says where it does)."""


def skip(reason):
    raise Skipped(reason)


def seed_for(name):
    return (SEED + int(hashlib.sha1(name.encode()).hexdigest()[:8], 16)) % (2 ** 31)


def main(module_globals):
    global DEVICE, SEED
    args = _parse()
    DEVICE = args.device
    SEED = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little") % 100000
    module_globals["DEVICE"] = DEVICE
    if DEVICE.startswith("cuda") and not torch.cuda.is_available():
        print("FAIL: --device cuda but torch.cuda.is_available() is False")
        return 1
    tests = [(n, f) for n, f in module_globals.items() if n.startswith("test_") and callable(f)]
    keys = args.k.split(",")  # -k a,b: tests whose name contains a or b; -k ^a: all but those
    if args.k.startswith("^"):
        tests = [(n, f) for n, f in tests if not any(k in n for k in args.k[1:].split(","))]
    else:
        tests = [(n, f) for n, f in tests if any(k in n for k in keys)]
    shards = int(os.environ.get("TEST_TOTAL_SHARDS", "1"))
    index = int(os.environ.get("TEST_SHARD_INDEX", "0"))
    if "TEST_SHARD_STATUS_FILE" in os.environ:
        open(os.environ["TEST_SHARD_STATUS_FILE"], "w").close()
    tests = tests[index::shards]
    print(f"seed {SEED} device {DEVICE} torch {torch.__version__} shard {index}/{shards}: "
          f"{len(tests)} tests", flush=True)
    failed, skipped = [], []
    for name, fn in tests:
        torch.manual_seed(seed_for(name))
        t0 = time.time()
        try:
            fn()
            print(f"PASS {name} ({time.time() - t0:.1f}s)", flush=True)
        except Skipped as e:
            print(f"SKIP {name}: {e}", flush=True)
            skipped.append(name)
        except Exception:  # noqa: BLE001 - report every failure, keep going
            print(f"FAIL {name} ({time.time() - t0:.1f}s)\n{traceback.format_exc()}", flush=True)
            failed.append(name)
    if not tests and shards == 1:
        print("FAIL: no tests selected")
        return 1
    ran = len(tests) - len(skipped)
    print(("OK" if not failed else "FAILED: " + ", ".join(failed)) +
          f" ({ran - len(failed)}/{ran} passed" + (f", skipped here: {', '.join(skipped)}" if skipped else "") +
          f", seed {SEED})", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit("harness.py is a library; run a test_*.py file")
