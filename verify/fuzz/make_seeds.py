"""Seed corpus for capture_fuzz: small captures of every kind the format allows (made with the
writer in shim/python/fusednorm/capture.py), the smallest records of data/sample_capture.h5 in a
file of their own, and the malformed-file corpus of verify/tests/malformed_test.py (regular files
only). Files above 64 KiB are left out (they slow every mutation down).

    python3 verify/fuzz/make_seeds.py OUT_DIR
"""
import os
import shutil
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import common  # noqa: E402

MAX = 160 << 10


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)
    cap = common.load_capture_module()
    variants = [
        dict(op="rms_norm", casting="llama", x="bf16", w="bf16", rows=4, n=8, dy=True),
        dict(op="fused_add_rms_norm", casting="fp32", x="f32", w="f32", rows=3, n=5, dy=True, ds=True, job=True),
        dict(op="rms_norm", casting="gemma", x="f16", w="f32", rows=2, n=16, dy=False, offset=1.0),
        dict(op="rms_norm", casting="fp32", x="bf16", w="none", rows=5, n=4, dy=True, job=True),
    ]
    for i, v in enumerate(variants):
        path = os.path.join(out, f"seed_{i}.h5")
        w = cap.CaptureWriter(path, description="fuzz seed")
        hw = v["w"] != "none"
        g = w.new_record(op=v["op"], casting=v["casting"], eps=1e-6, offset=v.get("offset", 0.0),
                         has_weight=int(hw), x_dtype=v["x"], w_dtype=v["w"], rows_total=v["rows"] * 2,
                         row_start=1, row_step=2, layer=f"layer{i}", model="m", impl="t", step=0,
                         rank=0, call=0, world_size=1, shape=[v["rows"] * 2, v["n"]])
        shape = (v["rows"], v["n"])
        w.put(g, "x", common.random_values(rng, shape, v["x"])[0], v["x"])
        if v["op"] == "fused_add_rms_norm":
            w.put(g, "residual", common.random_values(rng, shape, v["x"])[0], v["x"])
        if hw:
            w.put(g, "weight", common.random_values(rng, (v["n"],), v["w"])[0], v["w"])
        if v["dy"]:
            w.put(g, "dy", common.random_values(rng, shape, "f32")[0], "f32")
        if v.get("ds"):
            w.put(g, "ds", common.random_values(rng, shape, v["x"])[0], v["x"])
        if v.get("job"):
            w.put(g, "job/y", common.random_values(rng, shape, v["x"])[0], v["x"])
            w.put(g, "job/dx", common.random_values(rng, shape, v["x"])[0], v["x"])
        w.close()
    # The sample's smallest records, copied as they are.
    path = os.path.join(out, "sample_small.h5")
    with h5py.File(common.data_file("sample_capture.h5"), "r") as src, h5py.File(path, "w", libver="earliest") as dst:
        for k, val in src.attrs.items():
            dst.attrs[k] = val
        recs = sorted(src["records"], key=lambda k: src["records"][k]["x"].size)[:2]
        g = dst.create_group("records")
        for k in recs:
            src.copy(src["records"][k], g, name=k)
        dst.attrs["record_count"] = np.int64(len(recs))
    # The malformed corpus (its generator writes into the test temp dir).
    os.environ.setdefault("TEST_TMPDIR", os.path.join(out, ".malformed_tmp"))
    import malformed_test  # noqa: E402  (module top level only prepares its directory)
    malformed_test.cases()
    for name in sorted(os.listdir(malformed_test.T)):
        p = os.path.join(malformed_test.T, name)
        if os.path.isfile(p) and not os.path.islink(p) and os.path.getsize(p) <= MAX:
            shutil.copy(p, os.path.join(out, "malformed_" + name))
    shutil.rmtree(os.path.join(out, ".malformed_tmp"), ignore_errors=True)
    kept = [f for f in os.listdir(out) if os.path.getsize(os.path.join(out, f)) <= MAX]
    for f in os.listdir(out):
        if f not in kept:
            os.unlink(os.path.join(out, f))
    print(f"{len(kept)} seed files in {out}")


if __name__ == "__main__":
    main(sys.argv[1])
