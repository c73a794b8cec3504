"""The bench's accuracy gate for fusednorm is the C reference (fusednorm.reference ->
kernels/ref/fusednorm_ref.c), run with the real op library on the CPU (dry run):
  * every fusednorm row is judged by the C rules and passes;
  * a planted bug too small for a relative-L2 gate (one y element moved 4 ulps) fails the C gate.
Run: FUSEDNORM_LIBRARY=bazel-bin/shim/libfusednorm_ops.so PYTHONPATH=shim/python \
         python3 tools/bench/test_bench_reference.py   (bazel test //tools/bench:bench_reference_test)
"""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import bench  # noqa: E402
import fusednorm  # noqa: E402


class BenchCReference(unittest.TestCase):
    def run_bench(self, *extra):
        out = tempfile.mkdtemp(prefix="bench_ref_")
        rc = bench.main(["--dry-run", "--iters", "2", "--warmup", "0", "--out", out] + list(extra))
        with open(os.path.join(out, "bench.json")) as f:
            return rc, json.load(f)

    def test_fusednorm_rows_use_the_c_rules(self):
        rc, js = self.run_bench("--shapes", "33x300,3x5000", "--dtypes", "bf16,fp32",
                                "--providers", "fusednorm:auto,torch", "--check-elems", "10000")
        self.assertEqual(rc, 0)
        rows = [r for r in js["results"] if r["provider"] == "fusednorm:auto"]
        self.assertEqual(len(rows), 16 * 2)  # cold and hot inputs
        for r in rows:
            self.assertTrue(r["check_ok"], r)
            self.assertTrue(r["gate"].startswith("C rules"), r["gate"])
            key = "y" if r["op"].endswith("fwd") else "dx"
            self.assertIn("max ulp", r["check"][key], r)
        # 33x300 fits the 10000-element budget: dw by the C rule; 3x5000 does not: a row sample.
        whole = [r for r in rows if r["M"] == 33 and r["op"].endswith("bwd")]
        self.assertTrue(all("dw" in r["check"] and "rows" not in r["gate"] for r in whole), whole)
        part = [r for r in rows if r["M"] == 3]
        self.assertTrue(all("first 2 of 3 rows" in r["gate"] for r in part), part)
        peers = [r for r in js["results"] if r["provider"] == "torch"]
        self.assertTrue(peers and all(r["gate"].endswith("(peer)") for r in peers))
        # the binaries that ran: the op library and the kernel library it loaded, by hash
        libs = {os.path.basename(x["path"]): x for x in js["meta"]["libraries"]}
        self.assertIn("libfusednorm_ops.so", libs, js["meta"]["libraries"])
        self.assertIn("libfusednorm.so", libs, js["meta"]["libraries"])
        for x in libs.values():
            self.assertRegex(x["sha256"] or "", r"^[0-9a-f]{16}$")

    def test_planted_bug_fails_the_c_gate(self):
        real = fusednorm.rms_norm

        def off_by_4ulp(x, weight=None, eps=1e-6, **kw):
            y = real(x, weight, eps, **kw)
            with torch.no_grad():
                y.view(-1)[7] = y.view(-1)[7] * (1 + 4 * 2.0 ** -7)  # bf16: 4 ulps, rel L2 ~1e-4
            return y
        fusednorm.rms_norm = off_by_4ulp
        try:
            rc, js = self.run_bench("--shapes", "33x300", "--dtypes", "bf16", "--ops", "fwd",
                                    "--providers", "fusednorm:auto,torch")
        finally:
            fusednorm.rms_norm = real
        self.assertEqual(rc, 1)
        for mode in ("cold", "hot"):
            (r,) = [r for r in js["results"] if r["provider"] == "fusednorm:auto" and r["inputs"] == mode]
            self.assertFalse(r["check_ok"], r)
            self.assertIn("beyond 1 ulp", r["check"]["y"])
            (t,) = [r for r in js["results"] if r["provider"] == "torch" and r["inputs"] == mode]
            self.assertTrue(t["check_ok"], t)


if __name__ == "__main__":
    unittest.main()
