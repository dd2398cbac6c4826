#!/usr/bin/env python3
"""Run a slab app with --json and check its check values against independent references.

    check_app.py WORKLOAD -- command...

WORKLOAD names the checks: the references are computed here, in pure Python, from the counter-based hash of
../shared/WORKLOADS.md (independent of slab's C++), or are invariants (orthogonality, symmetry).
"""
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


def main():
    workload = sys.argv[1]
    cmd = sys.argv[sys.argv.index("--") + 1:]
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

    for key in ("app", "ranks", "seconds", "phases", "peak_bytes", "spilled_bytes", "checks"):
        expect("json", key in out, f"missing '{key}'")
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
    else:
        failures.append(f"unknown workload {workload}")
    if failures:
        print("FAILED:\n  " + "\n  ".join(str(f) for f in failures) + "\n" + lines[0])
        return 1
    print(f"ok: {workload} checks agree ({out['ranks']} ranks, {out['seconds']:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
