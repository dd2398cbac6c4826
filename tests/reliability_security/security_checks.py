#!/usr/bin/env python3
"""Security checks on the source tree and on what a run writes.

  security_checks.py shellouts REPO
      No shell-outs: src/, include/ and apps/ call no system(), popen(), exec*(), fork() or posix_spawn*()
      (comments and string literals are ignored).
  security_checks.py secrets NP --bin DIR --mpiexec "mpiexec ... -n" --work DIR
      A run with secret-looking environment variables (SLAB_TEST_SECRET, AWS_SECRET_ACCESS_KEY, ...) writes
      a trace (--trace), a --json line and, when slab-report is built, an HTML report: none of them, nor the
      run's output, contains a secret's value.
Each check appends one line to $SLAB_RELIABILITY_DIR/security.jsonl.
"""
import argparse
import os
import re
import secrets
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reliability_faults"))
import reliability as rel  # noqa: E402

SHELL_OUT = re.compile(r"(?<![\w:.>])(?:std::|::)?(system|popen|execl|execlp|execle|execv|execvp|execvpe|fork|vfork|"
                       r"posix_spawn|posix_spawnp)\s*\(")
SOURCES = (".c", ".cc", ".cpp", ".cu", ".h", ".hpp", ".cuh", ".in")


def strip_comments_and_strings(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


def shellouts(repo):
    hits, scanned = [], 0
    for top in ("src", "include", "apps"):
        for base, _, files in os.walk(os.path.join(repo, top)):
            for name in files:
                if not name.endswith(SOURCES):
                    continue
                path = os.path.join(base, name)
                scanned += 1
                with open(path, errors="replace") as f:
                    code = strip_comments_and_strings(f.read())
                for m in SHELL_OUT.finditer(code):
                    line = code.count("\n", 0, m.start()) + 1
                    hits.append(f"{os.path.relpath(path, repo)}:{line}: {m.group(1)}(")
    ok = scanned > 0 and not hits
    detail = f"{scanned} files scanned, {len(hits)} calls" + (": " + ", ".join(hits[:5]) if hits else "")
    rel.record("security", "no shell-outs in src/, include/, apps/ (system, popen, exec*, fork, posix_spawn)",
               "none", ok, detail)
    print(("ok: " if ok else "FAILED: ") + detail)
    return ok


def secret_runs(a):
    work = os.path.join(a.work, f"secrets_np{a.np}")
    os.makedirs(work, exist_ok=True)
    values = {name: "s3cr3t-" + secrets.token_hex(8)
              for name in ("SLAB_TEST_SECRET", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "DB_PASSWORD")}
    values["SLAB_TEST_SECRET"] = "hunter2-" + secrets.token_hex(4)
    trace = os.path.join(work, "trace.json")
    for leftover in (trace, trace + ".html"):
        if os.path.exists(leftover):
            os.remove(leftover)
    r = rel.run(rel.mpi_cmd(a.mpiexec, a.np, os.path.join(a.bin, "slab-reduce"), "--generate", "--n", "100000",
                            "--chunk", "10000", "--trace", trace, "--json", "--verbose", "--memory-limit", "200KiB",
                            "--host-memory-limit", "200KiB", "--spill-dir", work),
                a.timeout, values)
    problems = []
    if r.rc != 0 or not os.path.exists(trace):
        problems.append(f"the run failed (exit {r.rc}): {r.out[-500:]}")
    written = {"output": r.out}
    if os.path.exists(trace):
        with open(trace, errors="replace") as f:
            written["trace"] = f.read()
    report = os.path.join(a.bin, "slab-report")
    if os.path.exists(report) and os.path.exists(trace):
        html = trace + ".html"
        p = subprocess.run([report, trace, "--output", html], capture_output=True, text=True, env={**os.environ,
                                                                                                  **values})
        if p.returncode == 0 and os.path.exists(html):
            with open(html, errors="replace") as f:
                written["report"] = f.read()
            written["report output"] = p.stdout + p.stderr
    for name, value in values.items():
        for what, text in written.items():
            if value in text:
                problems.append(f"{name}'s value is in the {what}")
    ok = not problems
    detail = (f"{len(values)} secret variables; checked " + ", ".join(sorted(written)) +
              f" ({sum(len(t) for t in written.values())} bytes)") if ok else "; ".join(problems)
    rel.record("security", "trace, report and output of a run with secret environment variables "
               "(SLAB_TEST_SECRET=hunter2..., AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, DB_PASSWORD)",
               "no secret value written", ok, detail, a.np)
    print(("ok: " if ok else "FAILED: ") + detail)
    return ok


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("shellouts")
    s.add_argument("repo")
    t = sub.add_parser("secrets")
    t.add_argument("np", type=int)
    t.add_argument("--bin", required=True)
    t.add_argument("--mpiexec", required=True)
    t.add_argument("--work", required=True)
    t.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()
    ok = shellouts(a.repo) if a.cmd == "shellouts" else secret_runs(a)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
