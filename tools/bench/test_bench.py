#!/usr/bin/env python3
"""CPU checks of the benchmark harness (tools/bench/bench.py): `python3 tools/bench/test_bench.py`.

Runs the --dry-run pipeline end to end on tiny shapes, and proves the gates can fail: a provider
with a planted numeric bug must be flagged BAD (exit 1), a forced mode that declines a shape must be
'unsupported' (not a failure), and the target table must say MISSED when a target is missed.
A stand-in `fusednorm` module is injected so these run without the built op library.
"""
import contextlib
import io
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

    def test_shape_presets(self):
        # --shapes takes the named lists beside MxN tokens; a bad token still fails
        self.assertEqual(bench.parse_shapes("narrow,8x12288"), bench.SHAPE_PRESETS["narrow"] + [(8, 12288)])
        self.assertIn((65536, 128), bench.parse_shapes("narrow"))
        self.assertTrue(all(m <= 256 for m, _ in bench.parse_shapes("few-rows")))
        with self.assertRaises(Exception):
            bench.parse_shapes("narrowish")

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

    def test_unaligned_targets(self):
        # AUTO at a width that is not whole 16-byte vectors against AUTO at the nearest aligned width
        # of the same run, per element: 2879 / 2880 f32 (v = 4), 127 / 128 bf16 (v = 8); 1000 bf16
        # is aligned (not a pair), 1001 bf16 has no 1000 fwd row of AUTO that passed (not a pair)
        def row(dt, m, n, op, prov, us, ok=True):
            return {"dtype": dt, "M": m, "N": n, "op": op, "provider": prov, "status": "ok",
                    "check_ok": ok, "median_us": us, "gbps": 1.0, "bytes": 1 << 20}
        res = [row("fp32", 4000, 2879, "fwd", "fusednorm:auto", 10.5), row("fp32", 4000, 2880, "fwd", "fusednorm:auto", 10.0),
               row("bf16", 64, 127, "bwd", "fusednorm:auto", 13.0), row("bf16", 64, 128, "bwd", "fusednorm:auto", 10.0),
               row("bf16", 64, 127, "fwd", "fusednorm:auto", 5.0), row("bf16", 64, 128, "fwd", "torch", 4.0),
               row("bf16", 8, 1001, "fwd", "fusednorm:auto", 5.0), row("bf16", 8, 1000, "fwd", "fusednorm:auto", 4.0, ok=False)]
        self.assertEqual(bench.aligned_neighbour(2879, 4), 2880)
        self.assertEqual(bench.aligned_neighbour(6, 4), 8)     # a tie goes up
        self.assertEqual(bench.aligned_neighbour(3, 2), 8)     # never 0
        self.assertEqual(bench.aligned_neighbour(131, 2), 128)
        (line,) = bench.unaligned_targets(res)
        x = (13.0 / 127) / (10.0 / 128)
        self.assertRegex(line, r"\| every pair \| 1 of 2 within, worst %.2fx \| MISSED \| bf16 64x127 bwd %.2fx 64x128 \|$" % (x, x))
        # fp32 rows of 12 columns are 48 bytes: whole vectors, not a pair (not paired with themselves)
        (ok,) = bench.unaligned_targets(res[:2] + [row("fp32", 4000, 12, "fwd", "fusednorm:auto", 3.0)])
        self.assertRegex(ok, r"1 of 1 within, worst 1.05x \| met \|")
        self.assertEqual(bench.unaligned_targets(res[4:]), [])
        self.assertIn((16, 215343), bench.parse_shapes("unaligned"))
        for m, n in bench.parse_shapes("unaligned"):  # every odd width's neighbour is in the preset
            if n % 8:
                self.assertIn((m, bench.aligned_neighbour(n, 2)), bench.SHAPE_PRESETS["unaligned"])
                self.assertEqual(bench.aligned_neighbour(n, 4), bench.aligned_neighbour(n, 2))

    # ---- hot inputs ----------------------------------------------------------------------------
    def test_hot_inputs_are_rewritten_before_each_timed_call(self):
        seen = []

        def fwd(x, w):
            seen.append(float(x[0, 0]))
            return bench.eager_fwd(x, w)
        prov = bench.Provider("probe", "probe", fwd, bench.eager_add_fwd, True)
        dev, dt = torch.device("cpu"), torch.bfloat16
        ref = bench.reference("fwd", bench.make_set("fwd", 4, 32, dt, dev, 9))
        cfg = {"inputs": "hot", "nsets": 2, "iters": 4, "warmup": 1, "check_elems": 0}
        times, errs, ok, lb, gate = bench.measure(prov, "fwd", 4, 32, dt, dev, cfg, ref, 9, bench.CpuTimer())
        self.assertTrue(ok, errs)
        self.assertEqual(len(times), 4)
        # step(0) (checked), then each warmup and timed call after one sign flip of the one set.
        v = seen[0]
        self.assertNotEqual(v, 0.0)
        self.assertEqual(seen, [v, -v, v, -v, v, -v])
        seen.clear()
        bench.measure(prov, "fwd", 4, 32, dt, dev, dict(cfg, inputs="cold"), ref, 9, bench.CpuTimer())
        # cold: step(0) and the warmup on set 0, then sets 0, 1, 0, 1 in turn, never rewritten
        a, b = seen[0], seen[3]
        self.assertEqual(seen, [a, a, a, b, a, b])
        self.assertNotEqual(abs(a), abs(b))

    def test_hot_writer_touches_the_ops_fresh_inputs(self):
        d = bench.make_set("add_bwd", 3, 16, torch.float32, torch.device("cpu"), 1)
        before = {k: v.clone() for k, v in d.items()}
        bench.hot_writer("add_bwd", d)(0)
        for k in ("dy", "ds"):
            self.assertTrue(torch.equal(d[k], -before[k]), k)
        for k in ("x", "r", "w"):
            self.assertTrue(torch.equal(d[k], before[k]), k)

    def test_timer_excludes_the_hot_writer(self):
        import time as _t
        times, _ = bench.CpuTimer().time(lambda i: None, 3, 0.0, pre=lambda i: _t.sleep(0.05))
        self.assertEqual(len(times), 3)
        self.assertLess(max(times), 25.0)  # ms: the 50 ms writer is outside the window

    def test_hot_only_run(self):
        sys.modules["fusednorm"] = fake_fusednorm()
        rc, js = self.run_bench("--shapes", "6x40", "--dtypes", "fp16", "--inputs", "hot",
                                "--providers", "fusednorm:auto,torch")
        self.assertEqual(rc, 0)
        self.assertEqual({r["inputs"] for r in js["results"] + js["copy"]}, {"hot"})
        self.assertEqual(len(js["results"]), 4 * 2)
        with open(os.path.join(self.tmp, "bench.md")) as f:
            md = f.read()
        self.assertIn("## hot inputs", md)
        self.assertNotIn("## cold inputs", md)

    def test_out_of_memory_case_is_named_not_fatal(self):
        """A case whose inputs or float64 reference do not fit the device is dropped whole and named;
        the other cases still run and the exit code stays 0."""
        sys.modules["fusednorm"] = fake_fusednorm()
        real = bench.reference

        def reference(op, sets):
            if sets["x"].shape[0] == 8:
                raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 17.62 GiB.")
            return real(op, sets)
        bench.reference = reference
        self.addCleanup(setattr, bench, "reference", real)
        rc, js = self.run_bench("--shapes", "6x40,8x40", "--dtypes", "fp32", "--ops", "fwd,bwd",
                                "--providers", "fusednorm:auto,torch")
        self.assertEqual(rc, 0)
        self.assertEqual({(r["M"], r["N"]) for r in js["results"] + js["copy"]}, {(6, 40)})
        self.assertEqual(len(js["meta"]["skipped_oom"]), 1)
        self.assertIn("8x40", js["meta"]["skipped_oom"][0])
        self.assertIn("OutOfMemoryError: CUDA out of memory", js["meta"]["skipped_oom"][0])
        with open(os.path.join(self.tmp, "bench.md")) as f:
            self.assertIn("Not measured (out of device memory): fp32 8x40", f.read())

    # ---- latency column ------------------------------------------------------------------------
    def test_latency_column_under_1mb(self):
        def row(m, n, prov, us):
            b = bench.bytes_moved("fwd", m, n, 2)
            return {"dtype": "bf16", "M": m, "N": n, "op": "fwd", "provider": prov, "status": "ok",
                    "check_ok": True, "median_us": us, "gbps": b / us / 1e3, "bytes": b}
        res = [row(8, 4096, "fusednorm:auto", 4.25), row(8, 4096, "quack", 3.5), row(8, 4096, "torch", 9.0),
               row(4096, 4096, "fusednorm:auto", 20.0), row(4096, 4096, "torch", 30.0)]
        hdr, units, lines = bench.summary_table(res, ["fusednorm:auto", "torch", "quack"], {})
        col = hdr.index("latency auto/best")
        self.assertEqual(units[col], "us, < 1 MB")
        by = {ln[1]: ln for ln in lines}
        self.assertEqual(by["8x4096"][col], "4.2 / 3.5 quack")
        self.assertEqual(by["4096x4096"][col], "")  # 33 MB: GB/s speaks for itself
        self.assertEqual(by["8x4096"][hdr.index("auto/best peer")], "0.82x")

    # ---- sweep -------------------------------------------------------------------------------
    def test_sweep_generation(self):
        cap = 1 << 29
        a = bench.sweep_cases(200, 42, cap)
        self.assertEqual(a, bench.sweep_cases(200, 42, cap))                # seeded: reproducible
        self.assertNotEqual(a, bench.sweep_cases(200, 43, cap))
        self.assertEqual(a[:50], bench.sweep_cases(50, 42, cap))           # case i depends on (seed, i)
        self.assertEqual([c["index"] for c in a], list(range(200)))
        for c in a:
            self.assertTrue(1 <= c["M"] <= 1 << 20 and 1 <= c["N"] <= 1 << 20, c)
            self.assertLessEqual(c["M"] * c["N"], cap, c)
        ns = [c["N"] for c in a]
        self.assertGreater(sum(n % 2 for n in ns), 40)                    # odd widths
        self.assertGreater(sum(n % 8 != 0 for n in ns), 100)              # rows not 16-byte multiples
        self.assertTrue(any(n <= 64 for n in ns) and any(n >= 1 << 15 for n in ns), ns)
        ms = [c["M"] for c in a]
        self.assertTrue(any(m <= 64 for m in ms) and any(m >= 1 << 15 for m in ms), ms)
        self.assertEqual({c["dtype"] for c in a}, set(bench.DTYPES))
        self.assertEqual({c["op"] for c in a}, set(bench.OPS))
        small = bench.sweep_cases(100, 42, 1000)                          # a tight cap is obeyed
        self.assertTrue(all(c["M"] * c["N"] <= 1000 for c in small))
        only = bench.sweep_cases(30, 5, cap, ("fp16",), ("bwd", "add_bwd"))
        self.assertEqual({(c["dtype"], c["op"] in ("bwd", "add_bwd")) for c in only}, {("fp16", True)})

    def test_sweep_cap_from_free_memory(self):
        for free in (80 << 30, 139 << 30, 3 * 10 ** 9 + 17, 1000):
            cap = bench.sweep_cap(free)
            self.assertEqual(cap & (cap - 1), 0, cap)                     # a power of two
            self.assertLessEqual(cap * bench.SWEEP_BYTES_PER_ELEM, max(free, bench.SWEEP_BYTES_PER_ELEM))
            self.assertGreater(2 * cap * bench.SWEEP_BYTES_PER_ELEM, free)
        self.assertEqual(bench.sweep_cap(139 << 30), 1 << 29)             # an H200's free memory
        self.assertEqual(bench.sweep_cap(132 << 30), 1 << 29)             # a little less: same cases

    def test_sweep_dry_run_split_and_merge(self):
        sys.modules["fusednorm"] = fake_fusednorm()
        common = ["--sweep", "8", "--providers", "fusednorm:auto,torch", "--inputs", "cold"]
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc, whole = self.run_bench(*common)
        self.assertEqual(rc, 0)
        # the seed and cap are printed as the command line that draws the same cases
        self.assertIn("reproduce with --sweep 8 --seed 123 --sweep-max-elems 16384", buf.getvalue())
        sw = whole["meta"]["sweep"]
        self.assertEqual((whole["meta"]["seed"], sw["k"], sw["max_elems"]), (123, 8, bench.DRY_SWEEP_MAX_ELEMS))
        self.assertEqual(sw["cases"], bench.sweep_cases(8, 123, bench.DRY_SWEEP_MAX_ELEMS))
        for c in sw["cases"]:  # one op per case, both providers measured on the drawn shape
            rows = [r for r in whole["results"] if r["case"] == c["index"]]
            self.assertEqual({(r["M"], r["N"], r["dtype"], r["op"]) for r in rows},
                             {(c["M"], c["N"], c["dtype"], c["op"])})
            self.assertEqual(len(rows), 2)
        parts = []
        for rng in ("0:3", "3:"):
            out = tempfile.mkdtemp(prefix="bench_part_")
            self.assertEqual(bench.main(["--dry-run", "--iters", "2", "--warmup", "0", "--seed", "123",
                                         "--out", out, "--sweep-range", rng] + common), 0)
            parts.append(os.path.join(out, "bench.json"))
        merged_dir = tempfile.mkdtemp(prefix="bench_merged_")
        self.assertEqual(bench.main(["--merge", ",".join(parts), "--out", merged_dir]), 0)
        with open(os.path.join(merged_dir, "bench.json")) as f:
            merged = json.load(f)
        self.assertEqual(merged["meta"]["sweep"]["cases"], sw["cases"])
        key = lambda r: (r["case"], r["provider"], r["inputs"])  # noqa: E731
        self.assertEqual(sorted(map(key, merged["results"])), sorted(map(key, whole["results"])))
        with open(os.path.join(merged_dir, "bench.md")) as f:
            md = f.read()
        # the sweep table ranks AUTO / best peer from best to worst: the worst case is listed last
        table = md.split("worst last)")[1].split("###")[0]
        ratios = [float(ln.rstrip(" |").rsplit("|", 1)[1].strip().rstrip("x"))
                  for ln in table.splitlines() if ln.startswith("| ") and ln.rstrip(" |").endswith("x")]
        self.assertEqual(len(ratios), 8)
        self.assertEqual(ratios, sorted(ratios, reverse=True))
        self.assertIn("no case below 0.97x the best peer", md)
        # a sweep with a different seed is not merged into this one
        rc = bench.main(["--dry-run", "--iters", "1", "--warmup", "0", "--seed", "124", "--out", merged_dir,
                         "--sweep", "8", "--sweep-range", "0:1", "--providers", "torch", "--inputs", "cold"])
        self.assertEqual(rc, 0)
        self.assertEqual(bench.main(["--merge", parts[0] + "," + os.path.join(merged_dir, "bench.json"),
                                     "--out", tempfile.mkdtemp()]), 2)

    def test_sweep_time_budget_says_how_to_resume(self):
        sys.modules["fusednorm"] = None
        rc, js = self.run_bench("--sweep", "5", "--providers", "torch", "--inputs", "cold", "--time-budget",
                                "1e-9")
        self.assertEqual(rc, 0)
        self.assertEqual(js["meta"]["skipped_cases"], [0, 1, 2, 3, 4])
        self.assertIn("--sweep-range 0:5", bench.skipped_hint(js["meta"]))
        self.assertIn("--sweep-max-elems", bench.skipped_hint(js["meta"]))

    # ---- quack -------------------------------------------------------------------------------
    def fake_quack(self, bad_scale=1.0, reject_n=None):
        """quack.rmsnorm.rmsnorm's signature over F.rms_norm; rejects N == reject_n the way a CuTe-DSL
        compilation fails; scales y by bad_scale (a planted bug)."""
        calls = []

        def rmsnorm(x, weight=None, bias=None, residual=None, out_dtype=None, residual_dtype=None, eps=1e-6,
                    prenorm=False, weight_offset=0.0):
            calls.append((tuple(x.shape), residual is not None, prenorm))
            if x.shape[-1] == reject_n:
                raise RuntimeError("\nDSLRuntimeError: 💥💥💥 Error during runtime code generation 💥💥💥\n"
                                   "  error: vector size does not divide N")
            s = x if residual is None else x + residual
            y = F.rms_norm(s, (s.shape[-1],), weight, eps) * bad_scale
            return (y, s) if residual is not None and prenorm else y
        q = types.ModuleType("quack")
        qr = types.ModuleType("quack.rmsnorm")
        qr.rmsnorm = rmsnorm
        q.rmsnorm = qr
        self._quack_saved = {k: sys.modules.get(k) for k in ("quack", "quack.rmsnorm")}
        sys.modules.update({"quack": q, "quack.rmsnorm": qr})
        self.addCleanup(self._restore_quack)
        return calls

    def _restore_quack(self):
        for k, v in self._quack_saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v

    def quack_rows(self, op_shapes, **kw):
        calls = self.fake_quack(**kw)
        prov, err = bench.quack_provider()
        self.assertIsNone(err)
        self.assertTrue(prov.peer and prov.declines_on_error)
        dev, rows = torch.device("cpu"), []
        for op, (m, n) in op_shapes:
            ref = bench.reference(op, bench.make_set(op, m, n, torch.bfloat16, dev, 3))
            for mode in ("cold", "hot"):
                cfg = {"inputs": mode, "nsets": 2, "iters": 2, "warmup": 0, "check_elems": 0}
                rows.append(bench.provider_case(prov, op, "bf16", m, n, dev, cfg, ref, 3, bench.CpuTimer(), None))
        return rows, calls

    def test_quack_provider_passes_the_peer_gate(self):
        rows, calls = self.quack_rows([(op, (5, 96)) for op in bench.OPS])
        for r in rows:
            self.assertEqual(r["status"], "ok", r)
            self.assertTrue(r["check_ok"], r)
            self.assertTrue(r["gate"].endswith("(peer)"), r)
        self.assertIn(((5, 96), True, True), calls)  # fused add: residual= and prenorm=True

    def test_quack_planted_bug_is_flagged(self):
        rows, _ = self.quack_rows([("fwd", (5, 96)), ("add_bwd", (5, 96))], bad_scale=1.1)
        self.assertEqual([r["check_ok"] for r in rows], [False, False, False, False])
        self.assertTrue(all(bench.is_failure(r) for r in rows))

    def test_quack_decline_is_a_reason_not_a_failure(self):
        rows, _ = self.quack_rows([("fwd", (4, 2897)), ("bwd", (4, 2897))], reject_n=2897)
        for r in rows:
            self.assertEqual(r["status"], "unsupported", r)
            self.assertEqual(r["reason"], "RuntimeError: DSLRuntimeError: 💥💥💥 Error during runtime code "
                                          "generation 💥💥💥")
            self.assertFalse(bench.is_failure(r))
        self.assertIn("quack declined 2 case(s) (bf16 4x2897 fwd, bf16 4x2897 bwd)", bench.declined_lines(rows)[0])
        # the same exception from a provider that does not decline on errors is a failure
        prov = bench.Provider("strict", "strict", sys.modules["quack.rmsnorm"].rmsnorm, None, True)
        ref = bench.reference("fwd", bench.make_set("fwd", 4, 2897, torch.bfloat16, torch.device("cpu"), 3))
        cfg = {"inputs": "cold", "nsets": 1, "iters": 1, "warmup": 0, "check_elems": 0}
        r = bench.provider_case(prov, "fwd", "bf16", 4, 2897, torch.device("cpu"), cfg, ref, 3, bench.CpuTimer(), None)
        self.assertEqual(r["status"], "error")

    def test_quack_not_importable_is_a_note(self):
        saved = sys.modules.get("quack.rmsnorm")
        sys.modules["quack.rmsnorm"] = None
        try:
            prov, err = bench.quack_provider()
        finally:
            if saved is None:
                sys.modules.pop("quack.rmsnorm", None)
            else:
                sys.modules["quack.rmsnorm"] = saved
        self.assertIsNone(prov)
        self.assertRegex(err, r"^ModuleNotFoundError: .*quack")

    def test_bad_usage_exits_2(self):
        with self.assertRaises(SystemExit) as cm:
            bench.main(["--dry-run", "--dtypes", "fp8"])
        self.assertEqual(cm.exception.code, 2)
        with self.assertRaises(SystemExit) as cm:
            bench.main(["--dry-run", "--shapes", "12by4"])
        self.assertEqual(cm.exception.code, 2)
        for bad in (["--sweep", "0"], ["--sweep", "4", "--quick"], ["--sweep", "4", "--shapes", "4x4"],
                    ["--sweep-range", "0:2"], ["--sweep", "4", "--sweep-range", "3:1"],
                    ["--sweep", "4", "--sweep-range", "9:"], ["--sweep", "4", "--sweep-max-elems", "0"],
                    ["--inputs", "warm"]):
            with self.assertRaises(SystemExit, msg=bad) as cm:
                bench.main(["--dry-run"] + bad)
            self.assertEqual(cm.exception.code, 2, bad)
        self.assertEqual(bench.main(["--merge", os.path.join(self.tmp, "missing.json")]), 2)


if __name__ == "__main__":
    torch.manual_seed(0)
    unittest.main(verbosity=2)
