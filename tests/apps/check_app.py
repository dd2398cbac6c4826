#!/usr/bin/env python3
"""Run a slab app with --json and check its check values against independent references.

    check_app.py WORKLOAD [--write-csv TABLE=PATH ...] -- command...

WORKLOAD names the checks: the references are computed here, in pure Python, from the counter-based hash of
docs/WORKLOADS.md (independent of slab's C++), or are invariants (orthogonality, symmetry).
--write-csv first writes an input table (w3, w4_left, w4_right, w5; sizes from the command's --rows and
--right-rows) as CSV, written here without slab, for the app to read with --input.
"""
import datetime
import json
import math
import subprocess
import sys

M = (1 << 64) - 1


def h(s, i):
    z = ((s << 40) + i + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def U(s, i):
    return (h(s, i) >> 11) * 2.0**-53


def close(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


NAMES = ["Alice", "Bob", "Charlie", "Dan", "Edith", "Frank", "George", "Hannah", "Ingrid", "Jerry", "Kevin", "Laura",
         "Michael", "Norbert", "Oliver", "Patricia", "Quinn", "Ray", "Sarah", "Tim", "Ursula", "Victor", "Wendy",
         "Xavier", "Yvonne", "Zelda"]
W4_KEYS = 2_000_000
W4_STEP = 1_000_003


def w3_row(r):
    return h(3, r) % 1000, h(4, r) % 26, 2 * U(5, r) - 1, 2 * U(6, r) - 1


def w4_right_key(q, m):
    return (q * W4_STEP) % m  # slab's datasets::w4_right: a permutation of 0..m-1 (m = 2,000,000 in W4)


def write_csv(table, path, rows, right_rows):
    """One of the workloads' inputs as CSV (floats as repr: they read back exactly)."""
    with open(path, "w") as f:
        if table == "w3":
            f.write("id,name,x,y\n")
            for r in range(rows):
                i, n, x, y = w3_row(r)
                f.write(f"{i},{NAMES[n]},{x!r},{y!r}\n")
        elif table == "w4_left":
            f.write("key,value\n")
            for r in range(rows):
                f.write(f"{h(7, r) % W4_KEYS},{U(8, r)!r}\n")
        elif table == "w4_right":
            f.write("key,value2\n")
            for q in range(right_rows):
                f.write(f"{w4_right_key(q, right_rows)},{U(9, q)!r}\n")
        elif table == "w5":
            t0 = datetime.datetime(2000, 1, 1)
            f.write("t,v\n")
            for r in range(rows):
                f.write(f"{(t0 + datetime.timedelta(seconds=r)).isoformat()},{U(10, r)!r}\n")
        else:
            raise SystemExit(f"unknown table {table}")


def w3_reference(n):
    groups = {}
    for r in range(n):
        i, k, x, y = w3_row(r)
        groups.setdefault((i, k), []).append((x, y))
    out = {"ngroups": len(groups), "sum_count": n, "rows": n}
    xs, xm, xd, ymin, ymax, w = [], [], [], [], [], []
    for (i, k), vals in groups.items():
        x = [v[0] for v in vals]
        s = math.fsum(x)
        mean = s / len(x)
        xs.append(s)
        xm.append(mean)
        if len(x) > 1:
            xd.append(math.sqrt(math.fsum((v - mean) ** 2 for v in x) / (len(x) - 1)))
        ymin.append(min(v[1] for v in vals))
        ymax.append(max(v[1] for v in vals))
        w.append((i * 26 + k) * s)
    out.update(sum_x_sum=math.fsum(xs), sum_x_mean=math.fsum(xm), sum_x_std=math.fsum(xd), sum_y_min=math.fsum(ymin),
               sum_y_max=math.fsum(ymax), wsum_xsum=math.fsum(w))
    if groups:
        first = min(groups)
        out.update(first_id=first[0], first_name=NAMES[first[1]], first_count=len(groups[first]))
    return out


def w4_reference(n, m):
    """Inner join of W4's left (n rows) and right (m unique keys): a left key k < m matches right row q with
    q * W4_STEP = k (mod m)."""
    inv = pow(W4_STEP, -1, m)
    keys, prods, v2s = [], [], []
    for r in range(n):
        k = h(7, r) % W4_KEYS
        if k < m:
            q = k * inv % m
            assert w4_right_key(q, m) == k
            keys.append(k)
            prods.append(U(8, r) * U(9, q))
            v2s.append(U(9, q))
    return {"nrows": len(keys), "sum_key": sum(keys), "sum_value_x_value2": math.fsum(prods),
            "sum_value2": math.fsum(v2s), "left_rows": n, "right_rows": m}


def w5_reference(n, window):
    """Rolling means by exact integer prefix sums (U(10, r) = k * 2^-53 with k an integer): a count window
    of w rows (min_periods = w) or a time window of w seconds = w rows (min_periods = 1)."""
    rows_window = window.isdigit()
    w = int(window) if rows_window else {"h": 3600, "min": 60, "s": 1}[window.lstrip("0123456789")] * int(
        "".join(ch for ch in window if ch.isdigit()))
    prefix = [0]
    for r in range(n):
        prefix.append(prefix[-1] + (h(10, r) >> 11))
    means = []
    for r in range(n):
        lo = r - w + 1
        if lo < 0 and rows_window:
            means.append(float("nan"))
            continue
        lo = max(lo, 0)
        means.append((prefix[r + 1] - prefix[lo]) / (r + 1 - lo) * 2.0**-53)
    valid = [v for v in means if v == v]
    at = lambda r: means[r] if r < n else float("nan")
    return {"rows": n, "n_valid": len(valid), "nansum": math.fsum(valid), "r999": at(999), "r3600": at(3600),
            "last": means[-1] if n else float("nan")}


def main():
    workload = sys.argv[1]
    cmd = sys.argv[sys.argv.index("--") + 1:]
    opts = sys.argv[2:sys.argv.index("--")]
    value_of = lambda flag, default=None: cmd[cmd.index(flag) + 1] if flag in cmd else default
    for i, o in enumerate(opts):
        if o == "--write-csv":
            table, path = opts[i + 1].split("=", 1)
            write_csv(table, path, int(value_of("--rows", 0)), int(value_of("--right-rows", 0)))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
    if proc.returncode != 0 or len(lines) != 1:
        print(f"FAILED: exit {proc.returncode}, {len(lines)} JSON line(s)\n{proc.stdout}\n{proc.stderr}")
        return 1
    out = json.loads(lines[0])
    c = out["checks"]
    failures = []

    def expect(name, ok, detail=""):
        if not ok:
            failures.append(f"{name}: {detail}")

    for key in ("app", "ranks", "place", "seconds", "phases", "peak_bytes", "spilled_bytes", "fallbacks", "staged",
                "checks"):
        expect("json", key in out, f"missing '{key}'")
    # Host fallbacks (slab/engine/host_fallback.hpp): recorded only on a rank that takes device paths (a CUDA
    # device; --kernels reference, whose apps here have a device path for every operation), so a host run reports
    # none; their total is the sum over the operations.
    fb = out.get("fallbacks", {})
    expect("fallbacks", isinstance(fb.get("ops"), dict) and fb.get("total") == sum(fb["ops"].values()), fb)
    if out.get("place") == "host":
        expect("fallbacks.total", fb.get("total") == 0, f"{fb} on a host run")
    # On a GPU ("place": "cuda", the default there) and on the reference place (the device paths on the CPU) every
    # operation of these apps has a device path: none falls back.
    on_gpu = out.get("place") == "cuda"
    if on_gpu or out.get("place") == "reference":
        expect("fallbacks.total", fb.get("total") == 0, f"{fb} on the {out.get('place')} place")
    st = out.get("staged", {})
    expect("staged", isinstance(st.get("tasks"), int) and isinstance(st.get("bytes"), int), st)
    if out.get("place") == "host":
        expect("staged.tasks", st.get("tasks") == 0, f"{st} where the device tier is host memory")
    arg = lambda flag: int(cmd[cmd.index(flag) + 1])
    if "--memory-limit" in cmd:  # the reported device high-water stays within the limit
        text = cmd[cmd.index("--memory-limit") + 1]
        units = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
        limit = next((int(text[:-3]) * f for u, f in units.items() if text.endswith(u)), None)
        if limit is not None:
            peak = out["peak_bytes"]["device"]
            expect("peak_bytes.device", 0 < peak <= limit, f"{peak} > limit {limit}")
    if workload == "W6":
        n = arg("--n")
        a = [U(11, k) for k in range(n)]
        mean = math.fsum(a) / n
        std = math.sqrt(math.fsum((x - mean) ** 2 for x in a) / n)
        expect("sum", close(c["sum"], math.fsum(a), 1e-12), f"{c['sum']} vs {math.fsum(a)}")
        expect("mean", close(c["mean"], mean, 1e-12), f"{c['mean']} vs {mean}")
        expect("std", close(c["std"], std, 1e-10), f"{c['std']} vs {std}")
        expect("max", c["max"] == max(a), f"{c['max']} vs {max(a)}")
    elif workload == "W1":
        expect("resid_rows0_1000", c["resid_rows0_1000"] < 1e-12, c["resid_rows0_1000"])
        expect("orth_V", c["orth_V"] < 1e-12, c["orth_V"])
        # Frobenius norm: sum of s^2 equals sum of A^2 (computed from the hash).
        m, n = arg("--rows"), arg("--cols")
        fro2 = math.fsum(U(1, k) ** 2 for k in range(m * n))
        expect("s1 <= ||A||_F", c["s1"] <= math.sqrt(fro2) * (1 + 1e-12), c["s1"])
        if n <= 5:
            s2sum = sum(c[f"s{i}"] ** 2 for i in range(1, n + 1))
            expect("sum s^2 = ||A||_F^2", close(s2sum, fro2, 1e-10), f"{s2sum} vs {fro2}")
    elif workload == "W2":
        rows, cols = arg("--rows"), arg("--cols")
        x = [[U(2, i * cols + j) for j in range(cols)] for i in range(rows)]
        trace = math.fsum(v * v for r in x for v in r)
        y00 = math.fsum(v * v for v in x[0])
        y10 = math.fsum(a * b for a, b in zip(x[1], x[0]))
        total = math.fsum(math.fsum(col) ** 2 for col in zip(*x))  # sum of all Y = sum_j (sum_i X_ij)^2
        expect("trace_Y", close(c["trace_Y"], trace, 1e-12), f"{c['trace_Y']} vs {trace}")
        expect("Y00", close(c["Y00"], y00, 1e-12), f"{c['Y00']} vs {y00}")
        expect("Y10", close(c["Y10"], y10, 1e-12), f"{c['Y10']} vs {y10}")
        expect("sum_Y", close(c["sum_Y"], total, 1e-12), f"{c['sum_Y']} vs {total}")
        expect("asym_max", c["asym_max"] == 0.0, c["asym_max"])
    elif workload in ("W3", "W4", "W5"):
        if workload == "W3":
            ref = w3_reference(arg("--rows"))
        elif workload == "W4":
            ref = w4_reference(arg("--rows"), arg("--right-rows"))
        else:
            ref = w5_reference(arg("--rows"), value_of("--window", "1000"))
        for name, want in ref.items():
            got = c.get(name)
            if isinstance(want, float) and math.isnan(want):  # JSON has no NaN: slab writes null
                ok = got is None or (isinstance(got, float) and math.isnan(got))
            elif isinstance(want, float):
                ok = isinstance(got, (int, float)) and close(got, want, 1e-9)
            else:
                ok = got == want
            expect(name, ok, f"{got} vs {want}")
    else:
        failures.append(f"unknown workload {workload}")
    if failures:
        print("FAILED:\n  " + "\n  ".join(str(f) for f in failures) + "\n" + lines[0])
        return 1
    if "--device-memory" in cmd and not on_gpu:
        # The checks above held on the host; the GPU run they are for did not happen (ctest: SKIP_REGULAR_EXPRESSION).
        print(f"SKIPPED: no CUDA device here (place {out.get('place')}): {workload} on GPU memory is not run")
        return 0
    print(f"ok: {workload} checks agree ({out['ranks']} ranks, {out['seconds']:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
