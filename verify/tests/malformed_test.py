"""A corpus of malformed inputs, generated here (no committed binaries). Each must end every rank
with exit 2 and a clear message naming the problem (checked on every rank's stderr), within a
timeout (no hang), without writing a report. Run directly and under mpirun -np 2 and 3 (bad arguments: 3,
FILE_NPS / ARG_NPS); the NaN case is placed in a record owned by rank 1, so rank 0 learns the reason
from another rank."""
import concurrent.futures
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
# The replay's CPU limit per HDF5 read step (its default is 120 s): the looping input ends sooner.
os.environ["FUSEDNORM_REPLAY_HDF5_CPU_LIMIT"] = "3"
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


def regression_dir():
    for base in (os.environ.get("TEST_SRCDIR", ""), common.REPO):
        for p in (os.path.join(base, "fusednorm", "verify", "fuzz", "regressions"),
                  os.path.join(base, "verify", "fuzz", "regressions")):
            if os.path.isdir(p):
                return p
    raise FileNotFoundError("verify/fuzz/regressions")


# MPI sizes a case runs at (None: without mpirun). A bad file's records are split over the ranks,
# so its cases run at 2 and 3 ranks. A bad argument (an option, or a fault spec checked against
# the file's list of records) is refused by every rank alike, whatever its share of the records:
# one size above 1 shows that every rank says so and none hangs.
FILE_NPS = (None, 2, 3)
ARG_NPS = (None, 3)


def cases():
    c = []
    nps = [FILE_NPS]
    add = lambda name, path, expect, extra=(): c.append((name, path, expect, list(extra), nps[0]))
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
    add("truncated file", p, r"HDF5 cannot open this file .*HDF5: truncated file")
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
    # ---- inputs that could hang the replay or be read as zeros ----
    p = os.path.join(T, "fifo.h5")
    os.mkfifo(p)
    add("FIFO", p, r"is a FIFO, not a regular file: refused")
    fifo = p
    add("/dev/zero", "/dev/zero", r"is a device, not a regular file: refused")
    def elink_dataset(f):
        del rec(f)["x"]
        rec(f)["x"] = h5py.ExternalLink(fifo, "/x")
    add("external link (dataset)", mutate("elink_x", elink_dataset),
        r"'x' is an external link \(data in another file\): refused")
    def elink_record(f):
        del f["records"]["r000001"]
        f["records"]["r000001"] = h5py.ExternalLink(fifo, "/records/r000000")
    add("external link (record)", mutate("elink_rec", elink_record),
        r"member 'r000001' is an external link .*refused")
    def soft_link(f):
        del rec(f, 1)["x"]
        rec(f, 1)["x"] = h5py.SoftLink("/records/r000000/x")
    add("soft link (dataset)", mutate("soft_x", soft_link), r"'x' is a soft link: refused")
    raw = os.path.join(T, "external_raw.bin")
    def external_raw(f):
        x = rec(f)["x"][()]
        del rec(f)["x"]
        d = rec(f).create_dataset("x", shape=x.shape, dtype=x.dtype, external=[(raw, 0, x.nbytes)])
        d[...] = x
        d.attrs["dtype"] = "bf16"
    p = mutate("external_raw", external_raw)
    with open(raw, "r+b") as fh:  # shorter than declared: HDF5 would read the rest as zeros
        fh.truncate(100)
    add("external raw storage (short)", p, r"dataset 'x' has external raw storage \(1 file\(s\)\): refused")
    raw_fifo_file = os.path.join(T, "external_raw_fifo.bin")
    def external_raw_fifo(f):
        x = rec(f)["x"][()]
        del rec(f)["x"]
        d = rec(f).create_dataset("x", shape=x.shape, dtype=x.dtype,
                                  external=[(raw_fifo_file, 0, x.nbytes)])
        d[...] = x
        d.attrs["dtype"] = "bf16"
    p = mutate("external_raw_fifo", external_raw_fifo)
    os.unlink(raw_fifo_file)
    os.mkfifo(raw_fifo_file)
    add("external raw storage (FIFO)", p, r"dataset 'x' has external raw storage")
    src = os.path.join(T, "vds_source.h5")
    def vds(f):
        x = rec(f)["x"][()]
        with h5py.File(src, "w") as s:
            s["x"] = x
        layout = h5py.VirtualLayout(shape=x.shape, dtype=x.dtype)
        layout[...] = h5py.VirtualSource(src, "x", shape=x.shape)
        del rec(f)["x"]
        rec(f).create_virtual_dataset("x", layout)
        rec(f)["x"].attrs["dtype"] = "bf16"
    p = mutate("vds", vds)
    os.unlink(src)  # the source is gone: HDF5 would read the fill value (zeros)
    add("virtual dataset, source gone", p, r"dataset 'x' is a virtual dataset .*refused")
    def unwritten(f):
        del rec(f)["dy"]
        rec(f).create_dataset("dy", shape=(16, 32), dtype=np.uint16).attrs["dtype"] = "bf16"
    add("dataset never written", mutate("unwritten", unwritten),
        r"dataset 'dy': storage was never written: refused")
    def missing_chunk(f):
        del rec(f)["dy"]
        d = rec(f).create_dataset("dy", shape=(16, 32), dtype=np.uint16, chunks=(8, 32))
        d[:8] = np.ones((8, 32), np.uint16)  # the second chunk is never written
        d.attrs["dtype"] = "bf16"
    add("chunk never written", mutate("chunk", missing_chunk),
        r"dataset 'dy': storage is only partly written \(missing chunks\): refused")
    def checksum(f):
        x = rec(f)["x"][()]
        del rec(f)["x"]
        d = rec(f).create_dataset("x", data=x, chunks=(16, 32), fletcher32=True)
        d.attrs["dtype"] = "bf16"
    p = mutate("checksum", checksum)
    with h5py.File(p, "r") as f:
        off = f["records/r000000/x"].id.get_chunk_info(0).byte_offset
    b = bytearray(open(p, "rb").read())
    b[off + 5] ^= 0xFF
    open(p, "wb").write(bytes(b))
    add("checksum error", p, r"rows 0\.\.15 cannot be read \(HDF5: data error detected by Fletcher32 checksum")
    def long_name(f):
        f["records"].move("r000001", "r" + "0" * 299 + "1")
    add("record name > 255 bytes", mutate("longname", long_name),
        r"record name of 301 bytes is longer than the 255 this replay keeps: refused")
    def overflow(f):
        rec(f).attrs["row_start"] = np.int64(2**63 - 1)
        rec(f).attrs["row_step"] = np.int64(2**62)
        rec(f).attrs["rows_total"] = np.int64(2**63 - 1)
    add("row span overflows int64", mutate("overflow", overflow), r"overflows int64")
    add("eps inf as fp32", mutate("eps39", lambda f: rec(f).attrs.__setitem__("eps", 1e39)),
        r"eps 1e\+39 is finite as a double but not as fp32")
    add("offset inf as fp32", mutate("off300", lambda f: rec(f).attrs.__setitem__("offset", 1e300)),
        r"offset 1e\+300 is finite as a double but not as fp32")
    def f16_dy(f):
        for i in (0, 1):
            g = rec(f, i)
            g.attrs["x_dtype"] = "f16"
            g.attrs["w_dtype"] = "f16"
            replace(g, "x", common.random_values(rng, (16, 32), "f16")[0], "f16")
            replace(g, "weight", common.random_values(rng, (32,), "f16")[0], "f16")
            dy = rng.standard_normal((16, 32)).astype(np.float32)
            if i == 1:
                dy[2, 3] = 1e5  # finite fp32, beyond f16's 65504
            replace(g, "dy", dy, "f32")
    add("fp32 dy overflows f16", mutate("f16dy", f16_dy),
        r"input 'dy' is stored as f32 and 1 of its finite values overflow f16, .*row 2, col 3")
    # Inputs on which HDF5 1.10 itself loops forever or corrupts memory (found by verify/fuzz):
    # refused with exit 2 on every rank, neither a hang nor a crash.
    reg = regression_dir()
    add("HDF5 loops (fuzz input)", os.path.join(reg, "hdf5_global_heap_loop.h5"),
        r"HDF5 used 3 s of CPU reading the metadata of .*without returning: a corrupt file can make "
        r"HDF5 loop forever; refused")
    add("HDF5 crashes (fuzz input)", os.path.join(reg, "hdf5_global_heap_overflow.h5"),
        r"HDF5 crashed \(signal \d+, .*\) reading the metadata of .*: a corrupt file; refused")
    # HDF5 overruns one of its heap blocks reading a variable-length string attribute from a corrupt
    # global heap; without a sanitizer the damage surfaces later, in the next free() of the reader.
    add("HDF5 overruns its heap (fuzz input)", os.path.join(reg, "hdf5_vlen_attr_heap_overrun.h5"),
        r"HDF5 crashed \(signal \d+, .*\) reading the metadata of .*: a corrupt file; refused")
    p = os.path.join(T, "locked.h5")
    good(p)
    add("locked by a writer", p, r"locked by another process .*unable to lock")
    ok = good(os.path.join(T, "ok.h5"))
    nps[0] = ARG_NPS  # the rest: bad arguments
    add("no arguments", None, r"no capture file given")
    add("unknown option", ok, r"unknown option '--frobnicate'", ["--frobnicate"])
    add("bad device", ok, r"--device 'gpu': use auto, cuda or cpu", ["--device", "gpu"])
    add("bad mode", ok, r"--mode 'fastest': use one of auto", ["--mode", "fastest"])
    add("bad override", ok, r"--dx-min-frac 2: at most 1", ["--dx-min-frac", "2"])
    add("bad fault spec", ok, r"--inject-fault 'y:1'", ["--inject-fault", "y:1"])
    add("unwritable report dir", ok, r"is not writable|No such file",
        ["--report", os.path.join(T, "no_such_dir", "r.json")])
    add("report = input", ok, r"is the input .*ok\.h5 itself; refusing", ["--report=" + ok])
    hard = os.path.join(T, "hardlink.json")
    os.link(ok, hard)
    add("report = input (hard link)", ok, r"is the input .* itself", ["--report", hard])
    add("report is a directory", ok, r"--report .*: is a directory", ["--report", T])
    add("--report --quiet", ok, r"--report '--quiet': expected a file name", ["--report", "--quiet"])
    for opt, val, why in (("--y-max-ulp", "inf", "expected a finite number >= 0"),
                          ("--y-max-ulp", "1e19", "at most 4.29497e\\+09"),
                          ("--y-max-ulp", "0.5", "a whole number of ulps"),
                          ("--dx-l2-factor", "nan", "expected a finite number >= 0"),
                          ("--dx-max-factor", "-1", r"expected a finite number >= 0 \(a negative tolerance"),
                          ("--dw-factor", "2x", "expected a finite number >= 0"),
                          ("--dx-min-frac", "", "expected a finite number >= 0")):
        add(f"{opt} {val!r}", ok, f"{opt} '?{re.escape(val) if val else ''}'?: {why}", [f"{opt}={val}"])
    add("option without value", ok, r"--mode needs a value",
        ["--report=" + os.path.join(T, "report.json"), "--mode"])
    add("fault: unknown record", ok, r"no record named 'r999999'", ["--inject-fault", "y:r999999:0:0:1"])
    add("fault: row outside", ok, r"record r000000 is 16 x 32; row 16 col 0 is outside it",
        ["--inject-fault", "dx:r000000:16:0:1"])
    add("fault: col outside", ok, r"row 0 col 32 is outside it", ["--inject-fault", "y:r000000:0:32:1"])
    add("fault: zero ulps", ok, r"ULPS must be a non-zero integer", ["--inject-fault", "y:r000000:0:0:0"])
    add("fault: bad tensor", ok, r"tensor 'rstd' is not y, dx or dw", ["--inject-fault", "rstd:r000000:0:0:1"])
    add("fault: negative row", ok, r"ROW and COL must be integers >= 0", ["--inject-fault", "y:r000000:-1:0:1"])
    fwd = os.path.join(T, "fwd_only.h5")
    good(fwd)
    with h5py.File(fwd, "r+") as f:
        del rec(f)["dy"]
    add("fault: dx of a forward-only record", fwd, r"record r000000 has no backward \(no dy\): no dx",
        ["--inject-fault", "dx:r000000:0:0:1"])
    return c


# Cases run this many at a time (each case's MPI sizes in turn): a run is mostly mpirun's start-up,
# ~1.5 s of waiting for ~0.3 s of CPU (OpenMPI 4.1, this 2-core CI machine), so the corpus takes a
# fraction of its serial time without loading the machine.
WORKERS = int(os.environ.get("MALFORMED_WORKERS", "4"))


def run_case(idx, path, extra, nps):
    """One case at each of its MPI sizes, its report (unless the case names one) in a folder of its
    own. Returns (np, rc, stdout, stderr, seconds, report written, temp files left) per size."""
    rdir = os.path.join(T, "reports", str(idx))
    os.makedirs(rdir)
    report = os.path.join(rdir, "report.json")
    out = []
    for np_ in nps:
        args = ([] if path is None else [path]) + extra
        if not any(e.startswith("--report") for e in extra):
            args += ["--report", report]
        t0 = time.time()
        rc, so, se = common.run_replay(args, np_, timeout=120)
        out.append((np_, rc, so, se, time.time() - t0, os.path.exists(report),
                    [f for f in os.listdir(rdir) if ".tmp." in f]))
    return out


def main():
    n = 0
    all_cases = cases()
    # A writer holding the file open (HDF5's file lock) for the "locked" case.
    locker = h5py.File(os.path.join(T, "locked.h5"), "r+")
    only = os.environ.get("ONLY")  # a regex of case names, for manual reruns
    todo = [(i, c) for i, c in enumerate(all_cases) if not only or re.search(only, c[0])]
    with concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS) as pool:
        runs = [pool.submit(run_case, i, path, extra, nps) for i, (name, path, expect, extra, nps) in todo]
        for (i, (name, path, expect, extra, nps)), fut in zip(todo, runs):
            secs = 0.0
            for np_, rc, so, se, dt, wrote, temps in fut.result():
                ranks = np_ or 1
                secs += dt
                assert rc == 2, f"{name} (np {ranks}): exit {rc}, expected 2\n{so}\n{se}"
                for r in range(ranks):
                    lines = [l for l in se.splitlines() if l.startswith(f"replay[rank {r}/{ranks}]: error:")]
                    assert lines, f"{name} (np {ranks}): rank {r} printed no error line\n{se}"
                    assert re.search(expect, lines[0]), f"{name} (np {ranks}) rank {r}: {lines[0]!r} !~ {expect!r}"
                assert not wrote, f"{name} (np {ranks}): a report was written"
                assert not temps, f"{name} (np {ranks}): temp report left: {temps}"
                n += 1
            print(f"  {name:22s} exit 2 on every rank ({secs:4.1f} s over {len(nps)} runs): "
                  f"{lines[0][len('replay[rank 0/2]: error: '):][:100]}")
    # (cases naming their own report put any temp file beside it, in this folder)
    left = [f for f in os.listdir(T) if ".tmp." in f]
    assert not left, f"temp reports left: {left}"
    locker.close()
    # Permission denied names errno (root reads anything: a notice instead).
    p = os.path.join(T, "noperm.h5")
    good(p)
    os.chmod(p, 0)
    rc, so, se = common.run_replay([p])
    if os.geteuid() == 0:
        print("NOTE: running as root, which reads a mode-000 file: the permission-denied case does not apply")
    else:
        assert rc == 2 and "cannot open: Permission denied" in se, (rc, se)
        print("  permission denied       exit 2: cannot open: Permission denied")
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
