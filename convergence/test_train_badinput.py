"""train.py's bad-input and failure behaviour under mpirun -np 1/2/3 (CPU, gloo):
  - every bad argument exits 2 with the reason on every rank, before torch is even imported (np 1
    and 3);
  - a bad --data or --out exits 2 on every rank (rank 0's reason, named as such) before training;
  - --dry-run checks everything on every rank and exits 0 without training;
  - --global-batch not divisible by the ranks: exit 2 on every rank;
  - a stock reference that diverges (--lr 1e30): exit 2 on every rank, fusednorm not blamed;
  - a failure on one rank in the middle of training (CONVERGENCE_TEST_FAIL) ends every rank within
    10 s with exit 3 and the failing rank's reason.

    python3 convergence/test_train_badinput.py [--quick]     (--quick: np 2 only for the slow cases)
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN = os.path.join(HERE, "train.py")
PY = sys.executable
WORK = os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp()
TIMEOUT = 300
# The argument and data checks run this many launches at a time: each exits before torch is imported
# or before training, so a launch is mostly mpirun's start-up (waiting, not CPU) and the phases take a
# fraction of their serial time on the 2-core CI machine. The torch phase stays one launch at a time
# (CPU-bound imports, and a failure timed to the second).
WORKERS = int(os.environ.get("TRAIN_BADINPUT_WORKERS", "4"))


def env():
    e = dict(os.environ)
    e.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1",
             OMPI_MCA_rmaps_base_oversubscribe="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
             MPLCONFIGDIR=os.path.join(WORK, "mpl"), HF_HOME=os.path.join(WORK, "hf"))
    e.setdefault("OMPI_MCA_btl", "self,vader")
    e.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    return e


def launch(np_, args, extra_env=None):
    cmd = [shutil.which("mpirun") or "mpirun", "-np", str(np_), "--oversubscribe", "--bind-to", "none",
           PY, TRAIN, "--model", "llama", "--dtype", "fp32", "--impl", "contract"] + args
    e = env()
    e.update(extra_env or {})
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, env=e, cwd=WORK)
    except subprocess.TimeoutExpired as ex:
        raise AssertionError(f"hung (> {TIMEOUT} s): {' '.join(cmd)}\n{ex.stderr}") from None
    return p.returncode, p.stdout + p.stderr, time.time() - t0


def expect_usage(np_, args, reason):
    """argparse's answer: 'train.py: error: ...' once per rank, exit 2."""
    rc, out, dt = launch(np_, args)
    n = len(re.findall(r"train\.py: error: " + reason, out))
    assert rc == 2 and n == np_, f"np {np_} {args}: exit {rc}, {n} of {np_} ranks said {reason!r}\n{out}"
    return dt


def expect_rank_errors(np_, args, reason, code=2):
    """'[rank r] error: <reason>' from every rank r, exit `code`."""
    rc, out, dt = launch(np_, args)
    assert rc == code, f"np {np_} {args}: exit {rc}, expected {code}\n{out}"
    for r in range(np_):
        assert re.search(rf"\[rank {r}\] error: {reason}", out), f"np {np_} rank {r}: no '{reason}'\n{out}"
    return dt


def run_all(check, base, cases, nps):
    """check(np, base + [--out of the case's own] + args, reason) for every (args, reason) case at
    every size in nps, WORKERS cases at a time; one line a case, in order. The first failure
    raises."""
    def one(i, args, reason):
        dt = 0.0
        for np_ in nps:
            dt = check(np_, base + ["--out", os.path.join(WORK, f"out{i}")] + args, reason)
        return dt
    with concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS) as pool:
        futs = [pool.submit(one, i, args, reason) for i, (args, reason) in enumerate(cases)]
        for (args, reason), fut in zip(cases, futs):
            dt = fut.result()
            print(f"  {' '.join(a[-24:] for a in args):28s} exit 2 on every rank ({dt:.1f} s at np {nps[-1]}): {reason}")


def main():
    quick = "--quick" in sys.argv
    data = os.path.join(WORK, "data.txt")
    with open(data, "wb") as f:  # enough byte tokens for the tiny model (seq 64), read fast
        f.write(b"".join(bytes([(i * 7919 + j) % 251 for j in range(1000)]) for i in range(300)))
    base = ["--steps", "3", "--data", data, "--out", os.path.join(WORK, "out")]
    even = ["--global-batch", "12"]  # splits over 1, 2 and 3 ranks (the tiny default, 8, does not)
    nps = (1, 2, 3)

    # ---- arguments: refused before torch is imported ----
    bad_args = [
        (["--global-batch", "0"], r"argument --global-batch: 0 is outside \[1, "),
        (["--data-seed", "-1"], r"argument --data-seed: -1 is outside \[0, "),
        (["--seed", str(2**70)], r"argument --seed: \d+ is outside \[0, 9223372036854775807\]"),
        (["--seed=9223372036854775807"], r"--seed 9223372036854775807: the spread runs use seeds up to"),
        (["--lr", "nan"], r"argument --lr: nan must be a finite number > 0"),
        (["--lr=-1e-3"], r"argument --lr: -1e-3 must be a finite number > 0"),
        (["--clip", "nan"], r"argument --clip: nan must be a finite number > 0"),
        (["--clip", "inf"], r"argument --clip: inf must be a finite number > 0"),
        (["--steps", "x"], r"argument --steps: 'x' is not an integer"),
        (["--eval-batches", "0"], r"argument --eval-batches: 0 is outside"),
        (["--model", "llama,bogus"], r"argument --model: 'bogus' is not one of llama, qwen3, gemma3"),
        (["--dtype", "bf16,bf16"], r"argument --dtype: 'bf16,bf16' names one twice"),
    ]
    # Each rank parses its arguments alike, before any communication: one size above 1 shows that
    # every rank refuses them.
    run_all(expect_usage, base, bad_args, (1, 3))

    # ---- data and output directory: rank 0 checks, every rank is told, before training ----
    empty = os.path.join(WORK, "empty.txt")
    open(empty, "w").close()
    corrupt = os.path.join(WORK, "corrupt.npy")
    with open(corrupt, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00garbage")
    afile = os.path.join(WORK, "a_file")
    open(afile, "w").close()
    pre = [
        (["--data", os.path.join(WORK, "missing.txt")], r"--data .*missing\.txt: no such file"),
        (["--data", empty], r"--data .*empty\.txt: the file is empty"),
        (["--data", corrupt], r"--data .*corrupt\.npy: cannot be read"),
        (["--data", WORK], r"--data .*: not a regular file"),
        (["--out", "/proc/x"], r"--out /proc/x: cannot write there"),
        (["--out", os.path.join(afile, "sub")], r"--out .*a_file/sub: cannot write there"),
    ]
    run_all(expect_rank_errors, base, pre, nps)

    # ---- the torch phase: dry run, a batch the ranks cannot split, a rank failing mid-run ----
    slow_nps = (2,) if quick else nps
    for np_ in slow_nps:
        rc, out, dt = launch(np_, base + even + ["--steps=3", "--dry-run"])
        assert rc == 0 and f"checked on {np_} rank(s); no training" in out, (np_, rc, out)
        print(f"  --dry-run (np {np_}) exit 0 in {dt:.1f} s, no training")
    for np_ in slow_nps:
        if np_ == 1:
            continue
        dt = expect_rank_errors(np_, base + ["--global-batch", "7"],
                                rf"--global-batch 7 is not a multiple of the world size {np_}")
        print(f"  --global-batch 7 (np {np_}) exit 2 on every rank in {dt:.1f} s")
    # A reference that diverges (absurd learning rate) gives no verdict on fusednorm: exit 2.
    dt = expect_rank_errors(2, base + ["--steps", "4", "--lr", "1e30", "--no-repeat"],
                            r"the stock-RMSNorm reference run 'ref' itself diverged \(loss nan at step \d+\)"
                            r".*not fusednorm; no verdict")
    print(f"  --lr 1e30 (np 2): the reference diverges; exit 2 on every rank, no verdict ({dt:.1f} s)")
    for np_ in slow_nps:
        if np_ == 1:
            continue
        # The last rank fails at step 2 of the first run; the others are then inside DDP's
        # all-reduce (gloo) waiting for it. Timed from the failing rank's message to the job's end.
        cmd = [shutil.which("mpirun") or "mpirun", "-np", str(np_), "--oversubscribe", "--bind-to", "none",
               PY, TRAIN, "--model", "llama", "--dtype", "fp32", "--impl", "contract"] + base + even
        e = env()
        e["CONVERGENCE_TEST_FAIL"] = f"{np_ - 1}:2"
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=e, cwd=WORK)
        lines, t_fail = [], None
        t0 = time.time()
        for line in p.stdout:
            lines.append(line)
            if t_fail is None and re.search(rf"\[rank {np_ - 1}\] error: RuntimeError: injected failure", line):
                t_fail = time.time()
            if time.time() - t0 > TIMEOUT:
                p.kill()
                raise AssertionError("hung:\n" + "".join(lines))
        rc = p.wait(timeout=60)
        end = time.time()
        out = "".join(lines)
        assert t_fail is not None, f"np {np_}: the failing rank printed no reason\n{out}"
        assert rc == 3, f"np {np_}: exit {rc}, expected 3\n{out}"
        assert end - t_fail <= 10, f"np {np_}: the job took {end - t_fail:.1f} s to end after the failure\n{out}"
        print(f"  rank {np_ - 1} fails at step 2 (np {np_}): every rank ended {end - t_fail:.1f} s later, exit 3")
    print("PASS")


if __name__ == "__main__":
    main()
