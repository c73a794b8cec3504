"""Legal but unusual inputs that used to be replayed wrongly, and the command-line forms. Each case
runs directly and under mpirun -np 2 and 3 (every rank must agree and state any failure):
  - record names of 63 and 64 characters in one file (names were cut to 63: the 64-character
    record was replayed with the 63-character one's data): a fault injected into one of them must
    fail that record only, and the report must carry both names whole;
  - string attributes that are not valid UTF-8 (or hold quotes, backslashes, control characters):
    the JSON report must still parse, with U+FFFD for the bad bytes;
  - stdout on a full device (`> /dev/full`): exit 2 with the reason, not exit 0 with the table
    lost (direct runs; under mpirun, mpirun owns stdout);
  - getopt forms: `--key=value` and `--key value`, options before or after the files, `--` before
    a file name that starts with '-'."""
import os
import re
import shutil
import subprocess
import sys
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

SEED = int(os.environ.get("SEED", time.time_ns() % 2**31))
print(f"seed {SEED}")
rng = np.random.default_rng(SEED)
cap = common.load_capture_module()
T = os.path.join(common.tmpdir(), "edge")
shutil.rmtree(T, ignore_errors=True)
os.makedirs(T)
NPS = (None, 2, 3)


def write(path, names, layer=b"l"):
    w = cap.CaptureWriter(path)
    for _ in names:
        g = w.new_record(op="rms_norm", casting="llama", eps=1e-6, offset=0.0, has_weight=1,
                         x_dtype="bf16", w_dtype="bf16", rows_total=16, row_start=0, row_step=1,
                         layer="l", model="m", impl="t", step=0, rank=0)
        for name, shape in (("x", (16, 32)), ("weight", (32,)), ("dy", (16, 32))):
            w.put(g, name, common.random_values(rng, shape, "bf16")[0], "bf16")
    w.close()
    with h5py.File(path, "r+") as f:
        for i, n in enumerate(names):
            f["records"].move(f"r{i:06d}", n)
        for n in names:
            # Fixed-length byte string: HDF5 stores the bytes as they are, valid UTF-8 or not.
            f["records"][n].attrs["layer"] = np.bytes_(layer)
    return path


def replay(args, np_):
    rc, so, se = common.run_replay(args, np_)
    return rc, so, se


def main():
    # ---- record names of 63 and 64 characters ----
    a, b = "r" + "0" * 62, "r" + "0" * 63
    p = write(os.path.join(T, "names.h5"), [a, b])
    for np_ in NPS:
        rep = os.path.join(T, f"names_{np_}.json")
        rc, so, se = replay([p, "--report", rep, "--inject-fault", f"y:{b}:3:4:4096"], np_)
        assert rc == 1, f"np {np_}: exit {rc}, expected 1 (the injected fault)\n{so}\n{se}"
        r = common.load_report(rep)
        got = {x["name"]: x["verdict"] for x in r["records"]}
        assert got == {a: "ok", b: "FAILED"}, got
        rc, so, se = replay([p, "--report", rep, "--inject-fault", f"y:{a}:3:4:4096"], np_)
        got = {x["name"]: x["verdict"] for x in common.load_report(rep)["records"]}
        assert rc == 1 and got == {a: "FAILED", b: "ok"}, (rc, got, se)
    print("  names of 63 and 64 characters: kept whole, a fault in one fails that one only")

    # ---- strings that are not UTF-8 ----
    layer = b"\xff\xfe bad \xc3\x28 \xed\xa0\x80 \xf4\x90\x80\x80 ok \xc3\xa9 \"q\" \\ \x01 end"
    p = write(os.path.join(T, "utf8.h5"), ["r000000"], layer=layer)
    for np_ in NPS:
        rep = os.path.join(T, f"utf8_{np_}.json")
        rc, so, se = replay([p, "--report", rep], np_)
        assert rc == 0, (rc, so, se)
        raw = open(rep, "rb").read()
        raw.decode("utf-8")  # strict: raises on invalid UTF-8
        got = common.load_report(rep)["records"][0]["layer"]
        want = layer.decode("utf-8", errors="replace")
        # Python replaces a bad multi-byte sequence per maximal part; the report per byte. Both
        # keep every valid character and mark every bad byte run with U+FFFD.
        norm = lambda s: re.sub("\ufffd+", "\ufffd", s)
        assert norm(got) == norm(want), (got, want)
        assert "\u00e9" in got and '"q" \\ \x01 end' in got, got
    print("  non-UTF-8 attribute bytes: report is valid UTF-8 JSON, bad bytes as U+FFFD")

    # ---- stdout on a full device ----
    # Direct runs only: under mpirun the ranks' stdout is a pipe to mpirun, which forwards it and
    # does not report its own write errors (OpenMPI's I/O forwarding; nothing a rank can see).
    ok = write(os.path.join(T, "ok.h5"), ["r000000", "r000001"])
    for args in ([ok], ["--help"]):
        with open("/dev/full", "w") as full:
            pr = subprocess.run([common.binary("replay")] + args, stdout=full, stderr=subprocess.PIPE,
                                text=True, timeout=120, env=common.mpi_env())
        assert pr.returncode == 2, (args, pr.returncode, pr.stderr)
        assert re.search(r"replay\[rank 0/1\]: error: writing the (result table|usage) to stdout"
                         r"( failed)?: No space left on device", pr.stderr), pr.stderr
    print("  stdout on /dev/full (table, --help): exit 2 naming ENOSPC")

    # ---- command-line forms ----
    dash = os.path.join(T, "-dash.h5")
    shutil.copy(ok, dash)
    forms = [
        [ok, "--report", os.path.join(T, "f1.json"), "--device", "cpu", "--quiet"],
        ["--report=" + os.path.join(T, "f2.json"), "--device=cpu", "--quiet", ok],
        ["--y-max-ulp=1", "--dx-min-frac", "0.99", ok, "--report=" + os.path.join(T, "f3.json")],
        ["--report", os.path.join(T, "f4.json"), "--", "-dash.h5"],
    ]
    for i, args in enumerate(forms, 1):
        for np_ in NPS:
            out = os.path.join(T, f"f{i}.json")
            if os.path.exists(out):
                os.unlink(out)
            cmd = [os.path.abspath(common.binary("replay"))] + args
            if np_:
                cmd = [shutil.which("mpirun") or "mpirun", "-np", str(np_), "--oversubscribe"] + cmd
            pr = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=T,
                                env=common.mpi_env())
            assert pr.returncode == 0, (args, np_, pr.returncode, pr.stderr)
            r = common.load_report(out)
            assert r["summary"]["records"] == 2 and r["verdict"] == "OK", r["summary"]
            if i == 3:
                assert r["tolerances"]["y_max_ulp"] == 1 and r["tolerances"]["dx_min_frac"] == 0.99
    print("  --key=value, --key value, options anywhere, -- before a '-' file name: all accepted")
    print("PASS")


if __name__ == "__main__":
    main()
