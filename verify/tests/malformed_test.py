"""A corpus of malformed inputs, generated here (no committed binaries). Each must end every rank
with exit 2 and a clear message naming the problem (checked on every rank's stderr), within a
timeout (no hang), without writing a report. Run directly and under mpirun -np 2; the NaN case is
placed in a record owned by rank 1, so rank 0 learns the reason from another rank."""
import os
import re
import shutil
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
T = os.path.join(common.tmpdir(), "malformed")
shutil.rmtree(T, ignore_errors=True)
os.makedirs(T)


def good(path, records=2):
    """A small valid capture: bf16 records with weight and backward."""
    w = cap.CaptureWriter(path)
    for i in range(records):
        g = w.new_record(op="rms_norm", casting="llama", eps=1e-6, offset=0.0, has_weight=1,
                         x_dtype="bf16", w_dtype="bf16", rows_total=16, row_start=0, row_step=1,
                         layer=f"l{i}", model="m", impl="t", step=0, rank=0)
        for name, shape in (("x", (16, 32)), ("weight", (32,)), ("dy", (16, 32))):
            w.put(g, name, common.random_values(rng, shape, "bf16")[0], "bf16")
    w.close()
    return path


def mutate(name, fn):
    p = os.path.join(T, name + ".h5")
    good(p)
    with h5py.File(p, "r+") as f:
        fn(f)
    return p


def rec(f, i=0):
    return f["records"][f"r{i:06d}"]


def replace(g, name, data, dtype_attr):
    del g[name]
    d = g.create_dataset(name, data=data)
    d.attrs["dtype"] = dtype_attr


def cases():
    c = []
    add = lambda name, path, expect, extra=(): c.append((name, path, expect, list(extra)))
    add("missing file", os.path.join(T, "nope.h5"), r"cannot open: No such file")
    add("directory", T, r"is a directory")
    p = os.path.join(T, "text.h5")
    open(p, "w").write("this is not HDF5\n" * 10)
    add("text file", p, r"not an HDF5 file")
    p = os.path.join(T, "empty.h5")
    open(p, "w").close()
    add("empty file", p, r"not an HDF5 file")
    p = os.path.join(T, "truncated.h5")
    src = open(common.data_file("sample_capture.h5"), "rb").read()
    open(p, "wb").write(src[: len(src) // 2])
    add("truncated file", p, r"truncated or corrupt")
    add("wrong format", mutate("fmt", lambda f: f.attrs.__setitem__("format", "other")),
        r"format is 'other', expected 'fusednorm-capture'")
    add("newer version", mutate("ver", lambda f: f.attrs.__setitem__("format_version", np.int64(2))),
        r"format_version 2 is not supported .*newer")
    add("no version", mutate("nover", lambda f: f.attrs.__delitem__("format_version")),
        r"attribute 'format_version' is missing")
    def zero(f):
        for k in list(f["records"]):
            del f["records"][k]
        f.attrs["record_count"] = np.int64(0)
    add("zero records", mutate("zero", zero), r"zero records")
    add("record_count mismatch", mutate("count", lambda f: f.attrs.__setitem__("record_count", np.int64(5))),
        r"record_count says 5 but /records holds 2")
    add("no /records", mutate("norecords", lambda f: f.__delitem__("records")), r"/records is missing")
    add("missing x", mutate("nox", lambda f: rec(f).__delitem__("x")), r"'x' is missing|dataset 'x'")
    add("missing weight", mutate("now", lambda f: rec(f).__delitem__("weight")),
        r"has_weight = 1 but dataset 'weight' is missing")
    add("shape mismatch", mutate("shape", lambda f: replace(rec(f), "dy", np.zeros((15, 32), np.uint16), "bf16")),
        r"dataset 'dy' is \[15, 32\] but x is \[16, 32\]")
    add("dtype vs storage", mutate("storage", lambda f: replace(rec(f), "x", np.ones((16, 32), np.float32), "bf16")),
        r"dtype bf16 must be stored as uint16 bit patterns, found float")
    add("unknown dtype", mutate("fp8", lambda f: rec(f)["x"].attrs.__setitem__("dtype", "fp8")),
        r"dtype 'fp8' is not f32, f16 or bf16")
    add("x_dtype mismatch", mutate("xdt", lambda f: rec(f).attrs.__setitem__("x_dtype", "f16")),
        r"x is stored as bf16 but x_dtype says f16")
    add("bad op", mutate("op", lambda f: rec(f).attrs.__setitem__("op", "layer_norm")), r"op 'layer_norm'")
    add("bad casting", mutate("cast", lambda f: rec(f).attrs.__setitem__("casting", "bf16")),
        r"casting 'bf16' is not fp32, llama or gemma")
    add("negative eps", mutate("eps", lambda f: rec(f).attrs.__setitem__("eps", -1.0)), r"eps -1 must be")
    add("eps wrong type", mutate("epst", lambda f: rec(f).attrs.__setitem__("eps", "small")),
        r"attribute 'eps' must be a single float")
    add("3-D x", mutate("x3d", lambda f: replace(rec(f), "x", np.zeros((2, 8, 32), np.uint16), "bf16")),
        r"dataset 'x' has 3 dimensions")
    add("weight length", mutate("wlen", lambda f: replace(rec(f), "weight", np.zeros(31, np.uint16), "bf16")),
        r"'weight' has 31 elements, expected n = 32")
    nan_bits = np.uint16(0x7FC0)
    def nan_x(f):  # record 1 = global unit 1 = rank 1 at np 2
        x = rec(f, 1)["x"][()]
        x[3, 5] = nan_bits
        rec(f, 1)["x"][...] = x
    add("NaN in x", mutate("nan", nan_x), r"input 'x' has 1 NaN/Inf values \(first at row 3, col 5\)")
    def inf_dy(f):
        d = rec(f)["dy"][()]
        d[0, 0] = np.uint16(0x7F80)
        d[9, 1] = np.uint16(0xFF80)
        rec(f)["dy"][...] = d
    add("Inf in dy", mutate("inf", inf_dy), r"input 'dy' has 2 NaN/Inf values")
    ok = good(os.path.join(T, "ok.h5"))
    add("no arguments", None, r"no capture file given")
    add("unknown option", ok, r"unknown option '--frobnicate'", ["--frobnicate"])
    add("bad device", ok, r"--device 'gpu': use auto, cuda or cpu", ["--device", "gpu"])
    add("bad mode", ok, r"--mode 'fastest': use one of auto", ["--mode", "fastest"])
    add("bad override", ok, r"--dx-min-frac 2: a fraction", ["--dx-min-frac", "2"])
    add("bad fault spec", ok, r"--inject-fault 'y:1'", ["--inject-fault", "y:1"])
    add("unwritable report dir", ok, r"is not writable|No such file",
        ["--report", os.path.join(T, "no_such_dir", "r.json")])
    return c


def main():
    report = os.path.join(T, "report.json")
    n = 0
    for name, path, expect, extra in cases():
        for np_ in (None, 2):
            args = ([] if path is None else [path]) + extra
            if "--report" not in extra:
                args += ["--report", report]
            t0 = time.time()
            rc, so, se = common.run_replay(args, np_, timeout=120)
            ranks = np_ or 1
            assert rc == 2, f"{name} (np {ranks}): exit {rc}, expected 2\n{so}\n{se}"
            for r in range(ranks):
                lines = [l for l in se.splitlines() if l.startswith(f"replay[rank {r}/{ranks}]: error:")]
                assert lines, f"{name} (np {ranks}): rank {r} printed no error line\n{se}"
                assert re.search(expect, lines[0]), f"{name} (np {ranks}) rank {r}: {lines[0]!r} !~ {expect!r}"
            assert not os.path.exists(report), f"{name}: a report was written"
            assert not [f for f in os.listdir(T) if ".tmp." in f], f"{name}: temp report left"
            n += 1
        print(f"  {name:22s} exit 2 on every rank in {time.time() - t0:4.1f} s: {lines[0][len('replay[rank 0/2]: error: '):][:100]}")
    # --device cuda without a GPU: exit 2 (skipped with a notice where a GPU exists)
    rc, so, se = common.run_replay([os.path.join(T, "ok.h5"), "--device", "cuda"])
    if rc == 0:
        print("NOTE: a CUDA device is present; the no-GPU --device cuda case does not apply here")
    else:
        assert rc == 2 and "no usable CUDA device" in se, (rc, se)
        print("  --device cuda, no GPU  exit 2: no usable CUDA device")
    print(f"{n} malformed runs: all exit 2 with the reason on every rank, no report, no hang")
    print("PASS")


if __name__ == "__main__":
    main()
