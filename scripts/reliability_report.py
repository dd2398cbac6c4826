#!/usr/bin/env python3
"""Run the reliability suites and write docs/RELIABILITY.md from what they record.

  python3 scripts/reliability_report.py [--build build] [--jobs 2] [--output docs/RELIABILITY.md]
  python3 scripts/reliability_report.py --records DIR      # only render lines already collected in DIR

Every reliability case (a fault injected, a bad input tried, a fuzz run, a sanitizer run, a soak, a security
check) appends one JSON line {"category", "case", "expected", "outcome", "detail", "ranks"} to
$SLAB_RELIABILITY_DIR/<category>.jsonl (tests/common/reliability_record.hpp; the Python tests write the
same line). This script runs `ctest -L reliability` with that variable set to a fresh folder, then turns
every line of every category it finds into the tables of the document: nothing in it is written by hand.
"""
import argparse
import collections
import datetime
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Known categories first, in this order, with a title; any other category found follows under its own name.
TITLES = {
    "fault_injection": "Faults injected (SLAB_FAULT)",
    "fail_alone": "One rank failing alone before each collective (comm level)",
    "spill_cleanup": "Spill folders after signals, aborts and SIGKILL",
    "atomic_output": "Atomic outputs (interrupted and side-by-side writes)",
    "liveness": "A rank that disappears (liveness ring)",
    "bad_input": "Bad inputs tried",
    "fuzz": "Fuzzing",
    "sanitizer": "Sanitizers",
    "soak": "Soak",
    "security": "Security",
}


def run_ctest(build, jobs, extra):
    records = tempfile.mkdtemp(prefix="slab-reliability-")
    env = dict(os.environ, SLAB_RELIABILITY_DIR=records)
    cmd = ["ctest", "--test-dir", build, "-L", "reliability", "--output-on-failure", "-j", str(jobs)] + extra
    print("$ SLAB_RELIABILITY_DIR=" + records + " " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    sys.stdout.write(p.stdout[-4000:])
    summary = ""
    m = re.search(r"(\d+% tests passed, \d+ tests failed out of \d+)", p.stdout)
    if m:
        summary = m.group(1)
    failed = re.findall(r"^\s*\d+ - (\S+) \(", p.stdout, flags=re.M)
    return records, summary, failed, p.returncode


def run_sanitized(build, jobs, records, fuzz_seconds):
    """The 2-rank suite of a SLAB_SANITIZE build (as .ci/run runs it), one "sanitizer" line per test, then its
    fuzzers (tests/fuzz/run_fuzzers.sh writes the "fuzz" lines). Returns the exit status."""
    env = dict(os.environ, SLAB_RELIABILITY_DIR=records)
    cmd = ["ctest", "--test-dir", build, "-L", "^(np2|fuzz)$", "-LE", "^tour$", "-j", str(jobs)]
    print("$ " + " ".join(cmd), flush=True)
    # The sanitized tests' own case lines would repeat the unsanitized ones: here only one line per test counts.
    quiet_env = {k: v for k, v in env.items() if k != "SLAB_RELIABILITY_DIR"}
    p = subprocess.run(cmd, env=quiet_env, capture_output=True, text=True)
    rc = p.returncode
    cache = open(os.path.join(build, "CMakeCache.txt")).read()
    flags = re.search(r"^SLAB_SANITIZE:STRING=(.*)$", cache, flags=re.M)
    flags = flags.group(1) if flags else "?"
    skipped = []
    with open(os.path.join(records, "sanitizer.jsonl"), "a") as out:
        for m in re.finditer(r"Test\s+#\d+: (\S+) \.+\s*(\*{0,3}\w+)[^\n]*?([\d.]+) sec", p.stdout):
            name, status, secs = m.group(1), m.group(2), m.group(3)
            if status.strip("*") == "Skipped":  # ran nothing under the sanitizer (a GPU test without a device)
                skipped.append(name)
                continue
            ok = status == "Passed"
            out.write(json.dumps({"category": "sanitizer", "case": name,
                                  "expected": f"no -fsanitize={flags} report; test passes",
                                  "outcome": "pass" if ok else "fail",
                                  "detail": f"{status.strip('*')} in {secs} s", "ranks": 2}) + "\n")
    if skipped:
        print(f"sanitizer: {len(skipped)} tests skipped themselves (not recorded): " + ", ".join(skipped), flush=True)
    if fuzz_seconds > 0:
        f = subprocess.run([os.path.join(REPO, "tests", "fuzz", "run_fuzzers.sh"), build, str(fuzz_seconds)], env=env,
                           capture_output=True, text=True)
        sys.stdout.write(f.stdout[-2000:])
        rc = rc or f.returncode
    return rc


def load(records):
    lines = []
    for path in sorted(glob.glob(os.path.join(records, "*.jsonl"))):
        with open(path) as f:
            for n, text in enumerate(f, 1):
                text = text.strip()
                if not text:
                    continue
                try:
                    rec = json.loads(text)
                except json.JSONDecodeError:
                    rec = {"category": os.path.basename(path)[:-6], "case": f"unreadable line {n} of {path}",
                           "expected": "", "outcome": "fail", "detail": text[:200], "ranks": 0}
                rec.setdefault("category", os.path.basename(path)[:-6])
                lines.append(rec)
    return lines


def cell(value):
    return str(value).replace("|", "\\|").replace("\n", " ").strip()


def git(*args):
    try:
        return subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def render(lines, summary, failed, command):
    by_cat = collections.OrderedDict()
    for cat in list(TITLES) + sorted({r["category"] for r in lines} - set(TITLES)):
        rows = sorted((r for r in lines if r["category"] == cat),
                      key=lambda r: (str(r.get("case", "")), int(r.get("ranks") or 0)))
        if rows:
            by_cat[cat] = rows
    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    if git("status", "--porcelain", "--untracked-files=no"):
        commit += " (with uncommitted changes)"
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = ["# Reliability", "",
           "Produced by `scripts/reliability_report.py` from the records the reliability tests write; do not edit "
           "by hand. Each row is one case a test ran, with the outcome it observed.", "",
           f"- Generated: {now}, commit {commit}",
           f"- Command: `{command}`" if command else "- Rendered from an existing records folder",
           f"- ctest: {summary}" if summary else "",
           ("- Failed ctest tests: " + ", ".join(failed)) if failed else "", "",
           "## Summary", "", "| category | cases | pass | fail |", "|---|---|---|---|"]
    total_pass = total_fail = 0
    for cat, rows in by_cat.items():
        p = sum(1 for r in rows if r.get("outcome") == "pass")
        f = len(rows) - p
        total_pass += p
        total_fail += f
        out.append(f"| {cat} | {len(rows)} | {p} | {f} |")
    out.append(f"| **all** | {total_pass + total_fail} | {total_pass} | {total_fail} |")
    for cat, rows in by_cat.items():
        out += ["", f"## {TITLES.get(cat, cat)}", "", "| case | ranks | expected | outcome | detail |",
                "|---|---|---|---|---|"]
        for r in rows:
            ranks = r.get("ranks") or ""
            out.append(f"| {cell(r.get('case', ''))} | {ranks} | {cell(r.get('expected', ''))} | "
                       f"{cell(r.get('outcome', ''))} | {cell(r.get('detail', ''))} |")
    out += ["", "## How to run", "",
            "```sh",
            "cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build",
            "python3 scripts/reliability_report.py --build build --jobs 2   # runs ctest -L reliability, writes this file",
            "ctest --test-dir build -L reliability --output-on-failure       # the same tests without the document",
            "SLAB_FAULT=allreduce:1:0 scripts/mpirun -n 2 build/bin/slab-reduce --generate --n 200000  # one fault by hand",
            "```", "",
            "`SLAB_FAULT=site:rank:step[:throw|kill]` (see `include/slab/core/fault.hpp`) makes the `step`-th "
            "occurrence of a fault site on one rank fail; sites: `allreduce`, `alltoallv`, `tsqr_level`, "
            "`hdf5_write`, `spill`, `partition_read`. Tests record their cases with `slab::testing::record_reliability` "
            "(`tests/common/reliability_record.hpp`) or the same JSON line from Python "
            "(`tests/reliability_faults/reliability.py`) when `SLAB_RELIABILITY_DIR` is set.", ""]
    return "\n".join(line for line in out if line is not None) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--output", default=os.path.join(REPO, "docs", "RELIABILITY.md"))
    ap.add_argument("--records", help="render the JSON lines in this folder instead of running ctest")
    ap.add_argument("--sanitizer-build", help="also run the 2-rank suite of this SLAB_SANITIZE build (and its fuzzers)")
    ap.add_argument("--fuzz-seconds", type=int, default=60, help="seconds per fuzzer with --sanitizer-build")
    ap.add_argument("ctest_args", nargs="*", help="extra ctest arguments (after --)")
    a = ap.parse_args()
    if a.records:
        records, summary, failed, rc = a.records, "", [], 0
        command = ""
    else:
        records, summary, failed, rc = run_ctest(a.build, a.jobs, a.ctest_args)
        command = f"python3 scripts/reliability_report.py --jobs {a.jobs}"
        if a.sanitizer_build:
            rc = run_sanitized(a.sanitizer_build, a.jobs, records, a.fuzz_seconds) or rc
            command += f" --sanitizer-build {os.path.relpath(a.sanitizer_build, REPO)} --fuzz-seconds {a.fuzz_seconds}"
        command += " -- " + " ".join(a.ctest_args) if a.ctest_args else ""
    lines = load(records)
    if not lines:
        print(f"no reliability records in {records}", file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(os.path.abspath(a.output)), exist_ok=True)
    with open(a.output, "w") as f:
        f.write(render(lines, summary, failed, command))
    counts = collections.Counter(r["category"] for r in lines)
    print(f"wrote {a.output}: {len(lines)} cases (" + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + ")")
    return 0 if rc == 0 and all(r.get("outcome") == "pass" for r in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
