#!/usr/bin/env python3
"""Run slab-sweep at a tiny size and check it against a pure-Python reference (no numpy needed).

    check_sweep.py --np N --work DIR [--reference] -- mpirun ... N path/to/slab-sweep

The reference generates W7's X and y from the counter-based hash of WORKLOADS.md and solves each fold's ridge
problem by the normal equations (X_t^T X_t + alpha I) w = X_t^T y_t with a Cholesky factorisation in exact
Python floats; at these sizes X is well conditioned, so it agrees with slab's QR to ~1e-13. Also checked: the
--output CSV (grid order, grid columns carried through), a bad grid CSV and an unwritable --output (exit 1, the
same message on every rank, no output file).
"""
import json
import math
import os
import re
import subprocess
import sys

# The counter-based hash in pure Python, shared with the other apps' checks.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "apps"))
from check_app import U  # noqa: E402


def w7(rows, cols):
    w = [2.0 * U(13, j) - 1.0 for j in range(cols)]
    X = [[2.0 * U(12, i * cols + j) - 1.0 for j in range(cols)] for i in range(rows)]
    y = [math.fsum(X[i][j] * w[j] for j in range(cols)) + 0.1 * (2.0 * U(14, i) - 1.0) for i in range(rows)]
    return X, y


def cholesky_solve(A, b):
    n = len(A)
    L = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = A[i][j] - math.fsum(L[i][k] * L[j][k] for k in range(j))
            L[i][j] = math.sqrt(s) if i == j else s / L[j][j]
    z = [0.0] * n
    for i in range(n):
        z[i] = (b[i] - math.fsum(L[i][k] * z[k] for k in range(i))) / L[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (z[i] - math.fsum(L[k][i] * x[k] for k in range(i + 1, n))) / L[i][i]
    return x


def cv_error(X, y, alpha, folds):
    n, p = len(X), len(X[0])
    total = []
    for f in range(folds):
        lo, hi = f * n // folds, (f + 1) * n // folds
        train = [i for i in range(n) if not lo <= i < hi]
        A = [[math.fsum(X[i][a] * X[i][b] for i in train) + (alpha if a == b else 0.0) for b in range(p)]
             for a in range(p)]
        rhs = [math.fsum(X[i][a] * y[i] for i in train) for a in range(p)]
        w = cholesky_solve(A, rhs)
        total += [(math.fsum(X[i][j] * w[j] for j in range(p)) - y[i]) ** 2 for i in range(lo, hi)]
    return math.fsum(total) / n


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    return p.returncode, p.stdout, p.stderr


def main():
    args = sys.argv[1:]
    base = args[args.index("--") + 1:]
    work = args[args.index("--work") + 1]
    np_ = int(args[args.index("--np") + 1])
    os.makedirs(work, exist_ok=True)
    failures = []

    def expect(name, ok, detail=""):
        if not ok:
            failures.append("%s: %s" % (name, detail))

    rows, cols = 150, 4
    X, y = w7(rows, cols)

    # 1. The built-in grid: --tasks alphas 10^(-3 + 6k/(tasks-1)), 5 folds; the --json checks.
    tasks = 7
    rc, out, err = run(base + ["--generate", "--rows", str(rows), "--cols", str(cols), "--tasks", str(tasks), "--json"])
    lines = [l for l in out.splitlines() if l.startswith("{")]
    if rc != 0 or len(lines) != 1:
        print("FAILED: exit %s, %d JSON lines\n%s\n%s" % (rc, len(lines), out, err))
        return 1
    c = json.loads(lines[0])["checks"]
    ref = [cv_error(X, y, 10.0 ** (-3 + 6 * k / (tasks - 1)), 5) for k in range(tasks)]
    expect("sum_err", close(c["sum_err"], math.fsum(ref)), "%r vs %r" % (c["sum_err"], math.fsum(ref)))
    expect("argmin", c["argmin"] == min(range(tasks), key=lambda k: ref[k]), "%r vs %r" % (c["argmin"], ref))
    expect("err0", close(c["err0"], ref[0]), "%r vs %r" % (c["err0"], ref[0]))
    expect("err6", close(c["err6"], ref[-1]), "%r vs %r" % (c.get("err6"), ref[-1]))
    expect("points", c["points"] == tasks, c["points"])

    # 1b. --refit (every point from the raw rows) gives the same values.
    rc, out, err = run(base + ["--generate", "--rows", str(rows), "--cols", str(cols), "--tasks", str(tasks), "--json",
                               "--refit"])
    lines = [l for l in out.splitlines() if l.startswith("{")]
    expect("refit run", rc == 0 and len(lines) == 1, "exit %s\n%s" % (rc, err[-2000:]))
    if rc == 0 and len(lines) == 1:
        r = json.loads(lines[0])["checks"]
        expect("refit sum_err", close(r["sum_err"], math.fsum(ref)), "%r vs %r" % (r["sum_err"], math.fsum(ref)))
        expect("refit argmin", r["argmin"] == c["argmin"], "%r vs %r" % (r["argmin"], c["argmin"]))

    # 1c. On the reference place (--kernels reference: the GPU's wiring on the CPU), where the build has it: the same
    # values, and no operation falls back to a host kernel (so none would on a GPU).
    if "--reference" in args:
        rc, out, err = run(base + ["--generate", "--rows", str(rows), "--cols", str(cols), "--tasks", str(tasks),
                                   "--json", "--kernels", "reference"])
        lines = [l for l in out.splitlines() if l.startswith("{")]
        expect("reference run", rc == 0 and len(lines) == 1, "exit %s\n%s" % (rc, err[-2000:]))
        if rc == 0 and len(lines) == 1:
            j = json.loads(lines[0])
            r = j["checks"]
            expect("reference place", j.get("place") == "reference", j.get("place"))
            expect("reference sum_err", close(r["sum_err"], math.fsum(ref)), "%r vs %r" % (r["sum_err"], math.fsum(ref)))
            expect("reference argmin", r["argmin"] == c["argmin"], "%r vs %r" % (r["argmin"], c["argmin"]))
            fb = j.get("fallbacks", {})
            expect("reference fallbacks", fb.get("total") == 0 and fb.get("ops") == {}, fb)

    # 2. A grid CSV with fold counts of its own and an extra column carried through; --output in grid order.
    grid = os.path.join(work, "grid.csv")
    output = os.path.join(work, "results.csv")
    points = [(2.5, 3, 1), (0.01, 5, 2), (100.0, 2, 3), (0.01, 3, 4)]
    with open(grid, "w") as f:
        f.write("# alpha, folds and a tag\nalpha,folds,tag\n")
        f.writelines("%r,%d,%d\n" % p for p in points)
    if os.path.exists(output):
        os.remove(output)
    rc, out, err = run(base + ["--generate", "--rows", str(rows), "--cols", str(cols), "--grid", grid,
                               "--output", output, "--json"])
    expect("grid run", rc == 0, "exit %s: %s" % (rc, err[-2000:]))
    if rc == 0:
        text = open(output).read().splitlines()
        expect("output header", text[0] == "alpha,folds,tag,err,rank,seconds", text[0])
        expect("output rows", len(text) == 1 + len(points), len(text))
        for k, (alpha, folds, tag) in enumerate(points):
            v = [float(x) for x in text[1 + k].split(",")]
            want = cv_error(X, y, alpha, folds)
            expect("row %d" % k, v[0] == alpha and v[1] == folds and v[2] == tag and close(v[3], want),
                   "%s vs err %r" % (text[1 + k], want))
            expect("row %d rank" % k, 0 <= v[4] < np_, v[4])
    expect("no temporary files", not [n for n in os.listdir(work) if ".tmp-" in n], os.listdir(work))

    # 3. A bad grid row: exit 1, the file, line and column named once per rank, no output written.
    bad = os.path.join(work, "bad.csv")
    with open(bad, "w") as f:
        f.write("alpha,folds\n0.1,5\n0.5,x5\n")
    bad_out = os.path.join(work, "bad_results.csv")
    rc, out, err = run(base + ["--generate", "--rows", "40", "--cols", "3", "--grid", bad, "--output", bad_out])
    want = "%s:3: column 2 ('folds'): 'x5' is not a number" % bad
    n = len(re.findall(re.escape(want), out + err))
    expect("bad grid", rc == 1 and n == np_, "exit %s, message %d times (want %d)\n%s%s" % (rc, n, np_, out, err))
    expect("bad grid output", not os.path.exists(bad_out), "output written")

    # 3b. A grid without an alpha column, and a bad fold count: agreed errors, exit 1 on every rank.
    for name, text, want in [("noalpha.csv", "alph,folds\n0.1,5\n", "Grid: no column 'alpha' (columns: alph, folds)"),
                             ("badfolds.csv", "alpha,folds\n0.1,5\n0.2,1\n",
                              "point 1 (alpha=0.20000000000000001, folds=1): folds must be an integer in [2, rows]")]:
        path = os.path.join(work, name)
        with open(path, "w") as f:
            f.write(text)
        rc, out, err = run(base + ["--generate", "--rows", "40", "--cols", "3", "--grid", path])
        n = len(re.findall(re.escape(want), out + err))
        expect(name, rc == 1 and n == np_ and "aborting" not in err,
               "exit %s, message %d times (want %d)\n%s%s" % (rc, n, np_, out, err))

    # 4. An output that cannot be written: exit 1 before the sweep, named once per rank.
    rc, out, err = run(base + ["--generate", "--rows", "40", "--cols", "3", "--output", "/proc/version/r.csv"])
    n = len(re.findall(re.escape("cannot write '/proc/version/r.csv'"), out + err))
    expect("unwritable output", rc == 1 and n == np_, "exit %s, message %d times\n%s%s" % (rc, n, out, err))

    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("ok: %d ranks, checks %s" % (np_, json.dumps(c)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
