#!/usr/bin/env python3
"""CPU checks of tools/bench/compare.py: `python3 tools/bench/test_compare.py`.

Two synthetic bench.json runs with known times: the per-case speed-ups and peer ratios, the
geomeans per input mode and direction, gzip input, results that failed their check or did not run
left out, and every bad input exiting 2 with its reason.
"""
import contextlib
import gzip
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402


def result(dtype, m, n, op, inputs, provider, us, status="ok", check_ok=True):
    return {"dtype": dtype, "M": m, "N": n, "op": op, "inputs": inputs, "provider": provider,
            "median_us": us, "status": status, "check_ok": check_ok}


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = compare.main(argv)
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()


class CompareTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        # (case, input mode, provider, before us, after us); None: absent from that run
        rows = [
            (("bf16", 4, 8, "fwd"), "cold", "fusednorm:auto", 10.0, 5.0),
            (("bf16", 4, 8, "fwd"), "cold", "compile", 4.0, 4.0),
            (("bf16", 4, 8, "fwd"), "cold", "liger", None, 2.5),
            (("bf16", 4, 8, "bwd"), "cold", "fusednorm:auto", 9.0, 9.0),
            (("bf16", 4, 8, "bwd"), "cold", "torch", 12.0, 12.0),
            (("fp32", 2, 3, "add_bwd"), "hot", "fusednorm:auto", 8.0, 2.0),
            (("fp32", 2, 3, "add_bwd"), "hot", "quack", 6.0, 6.0),
            (("bf16", 3, 5, "bwd"), "hot", "fusednorm:auto", 9.0, 1.0),
            (("bf16", 3, 5, "bwd"), "hot", "quack", 6.0, 6.0),
            (("fp16", 7, 7, "fwd"), "cold", "fusednorm:auto", 5.0, None),  # only in before
        ]
        before = [result(*c, i, p, t0) for c, i, p, t0, _ in rows if t0 is not None]
        after = [result(*c, i, p, t1) for c, i, p, _, t1 in rows if t1 is not None]
        before.append(result("fp16", 1, 1, "fwd", "cold", "fusednorm:auto", 5.0))
        after.append(result("fp16", 1, 1, "fwd", "cold", "fusednorm:auto", 1.0, check_ok=False))  # left out
        after.append(result("fp32", 9, 9, "bwd", "cold", "fusednorm:auto", 1.0, status="unsupported"))
        self.a = os.path.join(d, "a.json")
        self.b = os.path.join(d, "b.json.gz")
        with open(self.a, "w") as f:
            json.dump({"meta": {"device": "GPU A", "date": "day 1"}, "results": before}, f)
        with gzip.open(self.b, "wt") as f:
            json.dump({"meta": {"device": "GPU A", "date": "day 2"}, "results": after}, f)

    def tearDown(self):
        self.tmp.cleanup()

    def test_table(self):
        out_md = os.path.join(self.tmp.name, "c.md")
        code, out, err = run([self.a, self.b, "--labels", "old,new", "--out", out_md])
        self.assertEqual(code, 0, err)
        # speed-up old / new; the best peer of the new run (liger 2.5) and new's ratio to it
        self.assertIn("| bf16 4 x 8 fwd | cold | 10.00 | 5.00 | 2.00x | liger | 2.50 | 0.50x |", out)
        self.assertIn("| bf16 4 x 8 bwd | cold | 9.00 | 9.00 | 1.00x | torch | 12.00 | 1.33x |", out)
        self.assertIn("| fp32 2 x 3 add_bwd | hot | 8.00 | 2.00 | 4.00x | quack | 6.00 | 3.00x |", out)
        # geomeans: cold forward one case (old 4/10 vs compile, new 2.5/5 vs liger)
        self.assertIn("| cold | forward | 1 | 2.000x | 0.400x | 0.500x |", out)
        self.assertIn("| cold | backward | 1 | 1.000x | 1.333x | 1.333x |", out)
        # hot backward, two cases: speed-ups 4 and 9, geometric (6), not arithmetic (6.5)
        self.assertIn("| hot | backward | 2 | 6.000x | 0.707x | 4.243x |", out)
        # a failed check and a case that did not run are not compared; one case only in old
        self.assertNotIn("fp16 1 x 1", out)
        self.assertNotIn("fp32 9 x 9", out)
        self.assertIn("2 case(s) only in old, 0 only in new.", out)
        self.assertIn("GPU A, day 1", out)
        with open(out_md) as f:
            self.assertEqual(f.read(), out)

    def test_same_library_flagged(self):
        """Two runs that loaded the same libfusednorm.so (bench.py meta "libraries") compare a build
        with itself: said in the table and on stderr; different ones, or none recorded, are not."""
        def write(name, libs, gz=False):
            path = os.path.join(self.tmp.name, name)
            with (gzip.open(path, "wt") if gz else open(path, "w")) as f:
                src = self.b if gz else self.a
                with (gzip.open(src, "rt") if src.endswith(".gz") else open(src)) as g:
                    doc = json.load(g)
                doc["meta"]["libraries"] = libs
                json.dump(doc, f)
            return path
        ops = {"path": "/x/B/libfusednorm_ops.so", "sha256": "00aa"}
        same = [ops, {"path": "/x/T/lib/libfusednorm.so", "sha256": "1111"}]
        a, b = write("la.json", same), write("lb.json.gz", [ops, dict(same[1], path="/y/libfusednorm.so")], gz=True)
        code, out, err = run([a, b])
        self.assertEqual(code, 0, err)
        self.assertIn("Both runs loaded the same libfusednorm.so (sha256 1111)", out)
        self.assertIn("same libfusednorm.so", err)
        c = write("lc.json.gz", [dict(same[1], sha256="2222")], gz=True)
        code, out, err = run([a, c])
        self.assertEqual((code, "same libfusednorm.so" in out + err), (0, False))
        code, out, err = run([self.a, self.b])  # nothing recorded
        self.assertEqual((code, "same libfusednorm.so" in out + err), (0, False))

    def test_paired_runs(self):
        """B1,B2 against A1,A2: us = means, speed-up = geomean of B_i / A_i, drift = B_1 / B_2, only
        the cases every run has; unequal lists exit 2."""
        def write(name, rows):
            path = os.path.join(self.tmp.name, name)
            with open(path, "w") as f:
                json.dump({"meta": {"device": "GPU A", "date": name}, "results": [result(*r) for r in rows]}, f)
            return path
        c1, c2 = ("bf16", 4, 8, "fwd", "cold"), ("bf16", 2, 2, "bwd", "cold")
        b1 = write("b1.json", [c1 + ("fusednorm:auto", 10.0), c2 + ("fusednorm:auto", 3.0)])
        a1 = write("a1.json", [c1 + ("fusednorm:auto", 5.0), c2 + ("fusednorm:auto", 3.0),
                               c1 + ("compile", 4.0)])
        b2 = write("b2.json", [c1 + ("fusednorm:auto", 12.0)])  # c2 missing: not compared
        a2 = write("a2.json", [c1 + ("fusednorm:auto", 4.0), c2 + ("fusednorm:auto", 1.0),
                               c1 + ("compile", 4.4)])
        code, out, err = run([f"{b1},{b2}", f"{a1},{a2}"])
        self.assertEqual(code, 0, err)
        # sqrt(10/5 * 12/4) = 2.449; means 11 and 4.5; the peer from the last after run (4.4)
        self.assertIn("| bf16 4 x 8 fwd | cold | 11.00 | 4.50 | 2.45x | compile | 4.40 | 0.98x |", out)
        self.assertIn("| cold | forward | 1 | 2.449x | - | - | 0.833x |", out)  # no peer in the befores
        self.assertNotIn("bf16 2 x 2 bwd |", out)
        self.assertIn("2 interleaved pairs", out)
        code, _, err = run([f"{b1},{b2}", a1])
        self.assertEqual((code, "paired runs need as many of each" in err), (2, True))

    def test_bad_inputs(self):
        missing = os.path.join(self.tmp.name, "missing.json")
        code, _, err = run([missing, self.b])
        self.assertEqual(code, 2)
        self.assertIn("no such file", err)
        junk = os.path.join(self.tmp.name, "junk.json")
        with open(junk, "w") as f:
            f.write("{not json")
        code, _, err = run([junk, self.b])
        self.assertEqual((code, "not a bench.json" in err), (2, True))
        nores = os.path.join(self.tmp.name, "nores.json")
        with open(nores, "w") as f:
            json.dump({"meta": {}}, f)
        code, _, err = run([self.a, nores])
        self.assertEqual((code, "no 'results' list" in err), (2, True))
        code, _, err = run([self.a, self.b, "--provider", "fusednorm:wide"])
        self.assertEqual((code, "provider fusednorm:wide not in the run" in err), (2, True))
        other = os.path.join(self.tmp.name, "other.json")
        with open(other, "w") as f:
            json.dump({"results": [result("bf16", 1, 2, "fwd", "cold", "fusednorm:auto", 1.0)]}, f)
        code, _, err = run([self.a, other])
        self.assertEqual((code, "no case measured in both runs" in err), (2, True))
        code, _, err = run([self.a, self.b, "--labels", "one"])
        self.assertEqual((code, "--labels needs two names" in err), (2, True))


if __name__ == "__main__":
    unittest.main(verbosity=2)
