#!/usr/bin/env python3
"""CPU checks of the benchmark harness (tools/bench/bench.py): `python3 tools/bench/test_bench.py`.

Runs the --dry-run pipeline end to end on tiny shapes, and proves the gates can fail: a provider
with a planted numeric bug must be flagged BAD (exit 1), a forced mode that declines a shape must be
'unsupported' (not a failure), and the target table must say MISSED when a target is missed.
A stand-in `fusednorm` module is injected so these run without the built op library.
"""
import json
import os
import sys
import tempfile
import types
import unittest

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402


def fake_fusednorm(scale_mode=None):
    """F.rms_norm behind fusednorm's API; mode `scale_mode` returns 1.1*y (a planted bug), mode
    'row_packed' declines N > 1024 the way FUSEDNORM_ERR_MODE_UNSUPPORTED reads in Python."""
    mod = types.ModuleType("fusednorm")
    mod.MODES = ("auto", "row_packed", "wide")

    def check(x, mode):
        if mode == "row_packed" and x.shape[-1] > 1024:
            raise RuntimeError("fusednorm: rms_norm_fwd: the forced mode cannot run this shape")

    def rms_norm(x, weight=None, eps=1e-6, *, offset=0.0, casting="fp32", mode=None):
        check(x, mode)
        y = F.rms_norm(x, (x.shape[-1],), weight, eps)
        return y * 1.1 if scale_mode is not None and mode == scale_mode else y

    def fused_add_rms_norm(x, residual, weight=None, eps=1e-6, *, offset=0.0, casting="fp32", mode=None):
        check(x, mode)
        s = x + residual
        return F.rms_norm(s, (s.shape[-1],), weight, eps), s

    mod.rms_norm, mod.fused_add_rms_norm = rms_norm, fused_add_rms_norm
    return mod


class BenchHarness(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="bench_test_")
        self._saved = sys.modules.get("fusednorm")

    def tearDown(self):
        if self._saved is None:
            sys.modules.pop("fusednorm", None)
        else:
            sys.modules["fusednorm"] = self._saved

    def run_bench(self, *extra):
        args = ["--dry-run", "--iters", "2", "--warmup", "0", "--seed", "123", "--out", self.tmp]
        rc = bench.main(args + list(extra))
        with open(os.path.join(self.tmp, "bench.json")) as f:
            return rc, json.load(f)

    def test_byte_formulas(self):
        # kernels/README.md "Measuring speed", bf16 (2 bytes).
        self.assertEqual(bench.bytes_moved("fwd", 4, 8, 2), (2 * 32 + 8) * 2)
        self.assertEqual(bench.bytes_moved("bwd", 4, 8, 2), (3 * 32 + 16) * 2)
        self.assertEqual(bench.bytes_moved("add_fwd", 4, 8, 2), 4 * 32 * 2)
        self.assertEqual(bench.bytes_moved("add_bwd", 4, 8, 4), 4 * 32 * 4)
        self.assertEqual(bench.bytes_moved("copy", 4, 8, 2), 2 * 32 * 2)

    def test_rotation_covers_l2(self):
        l2 = 60 << 20
        n = bench.n_sets("fwd", 4096, 4096, 2, l2, 64)
        self.assertGreaterEqual(n * bench.bytes_moved("fwd", 4096, 4096, 2), 4 * l2)
        self.assertEqual(bench.n_sets("fwd", 256, 1048576, 2, l2, 64), 1)  # 1 GB: no rotation needed

    def test_dry_run_end_to_end_peers(self):
        sys.modules["fusednorm"] = None  # import fails: peers only, noted, not an error
        rc, js = self.run_bench("--shapes", "8x64,3x300", "--dtypes", "bf16,fp32")
        self.assertEqual(rc, 0)
        rows = [r for r in js["results"] if r["provider"] == "torch"]
        self.assertEqual(len(rows), 2 * 2 * 4 * 2)  # shapes x dtypes x ops x input modes
        for mode in ("cold", "hot"):
            self.assertEqual(sum(1 for r in rows if r["inputs"] == mode), 16, mode)
        for r in rows:
            self.assertEqual(r["status"], "ok", r)
            self.assertTrue(r["check_ok"], r)
            self.assertGreater(r["gbps"], 0)
            self.assertEqual(r["bytes"], bench.bytes_moved(r["op"], r["M"], r["N"], 2 if r["dtype"] == "bf16" else 4))
            self.assertEqual(r["nsets"], 1 if r["inputs"] == "hot" else 2, r)
        self.assertIn("fusednorm", js["meta"]["notes"])
        self.assertIn("quack", js["meta"]["notes"])  # needs CUDA: noted, not an error
        self.assertEqual(js["meta"]["inputs"], ["cold", "hot"])
        self.assertEqual(sorted(c["inputs"] for c in js["copy"]), ["cold"] * 4 + ["hot"] * 4)
        for f in ("bench.md", "bench.png"):
            self.assertGreater(os.path.getsize(os.path.join(self.tmp, f)), 0, f)
        with open(os.path.join(self.tmp, "bench.md")) as f:
            md = f.read()
        self.assertLess(md.index("## cold inputs"), md.index("## hot inputs"))

    def test_planted_bug_is_flagged_and_unsupported_is_not(self):
        sys.modules["fusednorm"] = fake_fusednorm(scale_mode="wide")
        rc, js = self.run_bench("--shapes", "5x2000", "--dtypes", "bf16", "--providers", "fusednorm,torch")
        self.assertEqual(rc, 1)
        by = {(r["provider"], r["op"]): r for r in js["results"]}
        self.assertFalse(by[("fusednorm:wide", "fwd")]["check_ok"])
        self.assertFalse(by[("fusednorm:wide", "bwd")]["check_ok"])
        self.assertTrue(by[("fusednorm:wide", "add_fwd")]["check_ok"])  # the bug is in rms_norm only
        self.assertTrue(by[("fusednorm:auto", "fwd")]["check_ok"])
        self.assertEqual(by[("fusednorm:row_packed", "fwd")]["status"], "unsupported")
        with open(os.path.join(self.tmp, "bench.md")) as f:
            md = f.read()
        self.assertIn("| bf16 | 5x2000 | fwd |", md)

    def test_all_good_exits_zero(self):
        sys.modules["fusednorm"] = fake_fusednorm(scale_mode=None)
        rc, js = self.run_bench("--shapes", "4x128", "--dtypes", "fp16", "--providers", "fusednorm,torch")
        self.assertEqual(rc, 0)
        self.assertEqual({r["status"] for r in js["results"]}, {"ok"})

    def test_target_report(self):
        def row(op, m, n, prov, us, gbps):
            return {"dtype": "bf16", "M": m, "N": n, "op": op, "provider": prov, "status": "ok",
                    "check_ok": True, "median_us": us, "gbps": gbps, "bytes": 1 << 30}
        res = [row("fwd", 16384, 8192, "fusednorm:auto", 100.0, 4500.0),
               row("fwd", 16384, 8192, "torch", 150.0, 3000.0),
               row("bwd", 16384, 8192, "fusednorm:auto", 100.0, 3000.0),  # misses 3900
               row("bwd", 16384, 8192, "torch", 90.0, 3300.0),            # and loses to a peer
               row("bwd", 16384, 8192, "fusednorm:wide", 80.0, 3700.0)]   # AUTO picked badly
        text = "\n".join(bench.target_report(res, {"device": "NVIDIA H200"}))
        self.assertRegex(text, r"large .* fwd \| >= 4300 GB/s \| min 4500 .*\| met \|")
        self.assertRegex(text, r"large .* bwd \| >= 3900 GB/s \| min 3000 .*\| MISSED \| 16384x8192 3000 \(-23%\)")
        self.assertRegex(text, r"never slower than the best peer \| 0 cases \| 1 of 2 slower \| MISSED")
        self.assertRegex(text, r"AUTO within 3% of the fastest mode \| all cases \| 0 of 1 \| MISSED")
        h100 = "\n".join(bench.target_report(res, {"device": "NVIDIA H100 80GB HBM3"}))
        self.assertIn(">= 3001 GB/s", h100)  # 4300 * 3.35 / 4.8

    def test_bad_usage_exits_2(self):
        with self.assertRaises(SystemExit) as cm:
            bench.main(["--dry-run", "--dtypes", "fp8"])
        self.assertEqual(cm.exception.code, 2)
        with self.assertRaises(SystemExit) as cm:
            bench.main(["--dry-run", "--shapes", "12by4"])
        self.assertEqual(cm.exception.code, 2)


if __name__ == "__main__":
    torch.manual_seed(0)
    unittest.main(verbosity=2)
