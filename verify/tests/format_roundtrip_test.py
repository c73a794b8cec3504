"""Format round trip, bitwise, both directions:
  h5py writer (fusednorm.capture.CaptureWriter) -> C reader/writer (verify/h5copy) -> h5py reader
  C-written file -> h5py writer -> C again -> equal to the original.
Every FORMAT.md attribute and dataset is compared exactly (bit patterns of 16-bit floats, float32
bits, attribute values and types), for every dtype, op, weight/no weight, forward-only, job
outputs, and a chunked (> 1 MiB) dataset. Also checks h5dump can read the C-written file."""
import os
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
T = common.tmpdir()


def write_python(path):
    w = cap.CaptureWriter(path, framework="numpy test", description="round trip")
    cases = [  # (op, x_dtype, w_dtype, rows, n, backward, job)
        ("rms_norm", "bf16", "bf16", 7, 64, True, True),
        ("rms_norm", "f16", "f32", 1, 127, True, False),
        ("fused_add_rms_norm", "f32", "bf16", 33, 100, True, True),
        ("rms_norm", "f32", "none", 5, 1, False, True),
        ("fused_add_rms_norm", "bf16", "f32", 1100, 512, True, True),  # 1.1 MB: chunked
    ]
    for k, (op, xd, wd, rows, n, bwd, job) in enumerate(cases):
        g = w.new_record(op=op, casting=["fp32", "llama", "gemma"][k % 3], eps=1e-6 * (k + 1),
                         offset=float(k % 2), has_weight=int(wd != "none"), x_dtype=xd, w_dtype=wd,
                         rows_total=rows * 2, row_start=0, row_step=2, layer=f"layers.{k}.norm",
                         model="synthetic", impl="numpy", step=k, call=k, rank=0, world_size=1,
                         shape=[rows, 2, n])
        def put(name, shape, dt):
            bits, _ = common.random_values(rng, shape, dt)
            w.put(g, name, bits, dt)
        put("x", (rows, n), xd)
        if op == "fused_add_rms_norm":
            put("residual", (rows, n), xd)
        if wd != "none":
            put("weight", (n,), wd)
        if bwd:
            put("dy", (rows, n), "f32" if k == 0 else xd)
            if op == "fused_add_rms_norm":
                put("ds", (rows, n), xd)
        if job:
            put("job/y", (rows, n), "f32")
            if bwd:
                put("job/dx", (rows, n), xd)
                if wd != "none":
                    put("job/dw", (n,), wd)
            if op == "fused_add_rms_norm":
                put("job/residual_out", (rows, n), xd)
                if bwd:
                    put("job/dresidual", (rows, n), xd)
            g["job"].attrs["impl"] = "numpy job"
    w.close()
    return len(cases)


def h5copy(src, dst):
    p = subprocess.run([common.binary("h5copy"), src, dst], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, f"h5copy {src} failed: {p.stderr}"


def same_attr(a, b):
    if isinstance(a, bytes):
        a = a.decode()
    if isinstance(b, bytes):
        b = b.decode()
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype.kind == b.dtype.kind and a.shape == b.shape and np.array_equal(a, b)
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return np.asarray(a).dtype.kind == np.asarray(b).dtype.kind and np.array_equal(a, b)


def compare(pa, pb):
    """Every FORMAT.md item of file a is in b with identical value/bits."""
    n = 0
    with h5py.File(pa) as a, h5py.File(pb) as b:
        for k in ("format", "format_version", "record_count", "framework", "description"):
            assert same_attr(a.attrs[k], b.attrs[k]), f"root attribute {k}: {a.attrs[k]!r} vs {b.attrs[k]!r}"
        assert list(a["records"]) == list(b["records"])
        for name in a["records"]:
            ga, gb = a["records"][name], b["records"][name]
            for k, v in ga.attrs.items():
                assert k in gb.attrs, f"{name}: attribute {k} lost"
                assert same_attr(v, gb.attrs[k]), f"{name}.{k}: {v!r} vs {gb.attrs[k]!r}"
            def visit(path, obj):
                nonlocal n
                if isinstance(obj, h5py.Dataset):
                    db = gb[path]
                    assert obj.dtype == db.dtype, f"{name}/{path}: dtype {obj.dtype} vs {db.dtype}"
                    assert obj.shape == db.shape, f"{name}/{path}: shape"
                    assert obj[()].tobytes() == db[()].tobytes(), f"{name}/{path}: data differ"
                    assert obj.attrs["dtype"] == db.attrs["dtype"]
                    n += 1
                elif path == "job":
                    assert same_attr(obj.attrs.get("impl", ""), gb["job"].attrs.get("impl", ""))
            ga.visititems(visit)
            # nothing extra either
            cnt = []
            gb.visititems(lambda p, o: cnt.append(p) if isinstance(o, h5py.Dataset) else None)
            mine = []
            ga.visititems(lambda p, o: mine.append(p) if isinstance(o, h5py.Dataset) else None)
            assert sorted(cnt) == sorted(mine), f"{name}: datasets {cnt} vs {mine}"
    return n


def python_rewrite(src, dst):
    """h5py reader -> CaptureWriter (the Python writer) with the same content."""
    w = cap.CaptureWriter(dst, producer="rewrite", framework=h5py.File(src).attrs["framework"],
                          description=h5py.File(src).attrs["description"])
    with h5py.File(src) as f:
        for name in f["records"]:
            g = f["records"][name]
            attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in g.attrs.items()}
            attrs = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in attrs.items()}
            out = w.new_record(**attrs)
            def visit(path, obj):
                if isinstance(obj, h5py.Dataset):
                    w.put(out, path, obj[()], obj.attrs["dtype"])
            g.visititems(visit)
            if "job" in g and "impl" in g["job"].attrs:
                out["job"].attrs["impl"] = g["job"].attrs["impl"]
    w.close()


def main():
    a = os.path.join(T, "py_written.h5")
    b = os.path.join(T, "c_copy.h5")
    c = os.path.join(T, "py_rewrite_of_c.h5")
    d = os.path.join(T, "c_copy_of_py_rewrite.h5")
    nrec = write_python(a)
    h5copy(a, b)
    n1 = compare(a, b)
    python_rewrite(b, c)
    h5copy(c, d)
    n2 = compare(b, d) + compare(a, d)
    with h5py.File(b) as f:
        chunked = [n for n in f["records"] if f["records"][n]["x"].chunks]
        assert chunked, "no dataset above 1 MiB got chunked by the C writer"
    print(f"python -> C -> python: {nrec} records, {n1} datasets bitwise equal")
    print(f"C -> python -> C: {n2} dataset comparisons bitwise equal; chunked: {chunked}")
    # the sample too (what users actually replay)
    e = os.path.join(T, "sample_copy.h5")
    h5copy(common.data_file("sample_capture.h5"), e)
    print(f"sample: {compare(common.data_file('sample_capture.h5'), e)} datasets bitwise equal")
    if shutil.which("h5dump"):
        p = subprocess.run(["h5dump", "-A", b], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0 and "fusednorm-capture" in p.stdout, p.stderr
        print("h5dump reads the C-written file")
    else:
        print("NOTE: h5dump not installed (Debian hdf5-tools); h5dump check not run")
    print("PASS")


if __name__ == "__main__":
    main()
