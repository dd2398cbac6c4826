#!/usr/bin/env python3
"""slab-report end to end: an app run at N ranks writes a trace, slab-report turns it into a page, and headless
Chromium loads the page. Asserts that the page rendered, has exactly one task-stream lane per rank and no
console errors; that the report's numbers agree with the app's own --json (memory manager statistics) and
with sums taken here from the raw trace; and that bad inputs give exit code 2, a clear message and no page.

  check_report.py --np N --mpi "mpiexec --oversubscribe -n" --app build/bin/slab-groupby \
                  --report build/bin/slab-report --work DIR

Chromium is required (scripts/setup.sh installs it): without it the test fails.
"""
import argparse
import html.parser
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

FAILURES = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        FAILURES.append(what)


def run(cmd, timeout=300):
    print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome", "headless_shell"):
        path = shutil.which(name)
        if path:
            return path
    return None


class PageFacts(html.parser.HTMLParser):
    """What the dumped DOM says: <body> attributes, task-stream lanes, the error box."""

    def __init__(self):
        super().__init__()
        self.body = {}
        self.lanes = []
        self.stream_rects = 0
        self.in_errors = False
        self.errors_text = ""
        self.in_stream = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        elif tag == "svg" and a.get("id") == "stream-svg":
            self.in_stream = True
        elif tag == "g" and "lane" in a.get("class", "").split() and self.in_stream:
            self.lanes.append(a.get("data-rank"))
        elif tag == "rect" and self.in_stream and "data-i" in a:
            self.stream_rects += 1
        elif tag == "pre" and a.get("id") == "slab-errors":
            self.in_errors = True

    def handle_endtag(self, tag):
        if tag == "pre":
            self.in_errors = False
        elif tag == "svg":
            self.in_stream = False

    def handle_data(self, data):
        if self.in_errors:
            self.errors_text += data


def load_in_chromium(chromium, page, profile):
    """The DOM after load, and the browser's console lines (the page itself should log nothing)."""
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-first-run", "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0",
           "--window-size=1400,1000", "--virtual-time-budget=5000", "--dump-dom", "file://" + os.path.abspath(page)]
    r = run(cmd, timeout=120)
    console = [line for line in r.stderr.splitlines() if "CONSOLE" in line]
    facts = PageFacts()
    facts.feed(r.stdout)
    return r.returncode, facts, console


def check_page(chromium, page, profile, np_, label):
    rc, facts, console = load_in_chromium(chromium, page, profile)
    check(rc == 0, f"{label}: chromium exits 0 (got {rc})")
    check(facts.body.get("data-rendered") == "1", f"{label}: the page rendered (data-rendered={facts.body.get('data-rendered')})")
    check(facts.body.get("data-lanes") == str(np_), f"{label}: data-lanes is {np_} (got {facts.body.get('data-lanes')})")
    check(len(facts.lanes) == np_, f"{label}: {np_} lane groups in the task stream (got {len(facts.lanes)})")
    check(sorted(facts.lanes, key=int) == [str(r) for r in range(np_)] if facts.lanes else np_ == 0,
          f"{label}: one lane for each rank 0..{np_ - 1} (got {facts.lanes})")
    check(facts.body.get("data-errors") == "0" and facts.errors_text.strip() == "",
          f"{label}: no script errors ({facts.body.get('data-errors')}: {facts.errors_text.strip()[:200]})")
    check(not console, f"{label}: no console messages ({console[:3]})")
    return facts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--mpi", required=True, help="launcher up to the rank count, e.g. 'mpiexec -n'")
    ap.add_argument("--app", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    np_ = a.np
    os.makedirs(a.work, exist_ok=True)
    work = tempfile.mkdtemp(prefix=f"report-np{np_}-", dir=a.work)
    profile = os.path.join(work, "chromium-profile")
    trace = os.path.join(work, "run.json")
    page = os.path.join(work, "run.html")

    chromium = find_chromium()
    check(chromium is not None, "chromium is installed (scripts/setup.sh installs it)")
    if chromium is None:
        return 1

    # 1. A real run that spills to host and disk: W3 groupby with the device limit shrinking with the ranks.
    r = run(shlex.split(a.mpi) + [str(np_), a.app, "--generate", "--rows", "40000", "--partition-rows", "2000",
                                   "--memory-limit", f"{1600 // np_}KiB", "--host-memory-limit", "128KiB",
                                   "--spill-dir", work, "--trace", trace, "--json"])
    check(r.returncode == 0, f"the app exits 0 (got {r.returncode}: {r.stderr.strip()[:600]})")
    if r.returncode != 0:
        return 1
    app_json = json.loads([line for line in r.stdout.splitlines() if line.startswith("{")][-1])

    # 2. The report, and its numbers against the app's own and against the raw trace.
    r = run([a.report, trace, "-o", page, "--json"])
    check(r.returncode == 0, f"slab-report exits 0 (got {r.returncode}: {r.stderr.strip()})")
    if r.returncode != 0:
        return 1
    rep = json.loads(r.stdout.strip().splitlines()[-1])
    raw = json.load(open(trace))
    events = [e for e in raw["traceEvents"] if e.get("ph") == "X"]
    spilled = sum(e.get("args", {}).get("bytes", 0) for e in events
                  if e.get("cat") == "spill" and not e["name"].startswith("reload"))
    check(rep["ranks"] == np_, f"report: {np_} ranks (got {rep['ranks']})")
    check(rep["app"] == os.path.basename(a.app), f"report: app is {os.path.basename(a.app)} (got {rep['app']!r})")
    check(rep["events"] == len(events), f"report: {len(events)} events (got {rep['events']})")
    check(rep["spilled_bytes"] == spilled, f"report: spilled bytes {spilled} as summed from the trace (got {rep['spilled_bytes']})")
    check(rep["spilled_bytes"] == app_json["spilled_bytes"] and spilled > 0,
          f"report: spilled bytes equal the app's --json ({app_json['spilled_bytes']}, > 0)")
    for tier in ("device", "host", "disk"):
        check(rep["peak_bytes"][tier] == app_json["peak_bytes"][tier],
              f"report: peak {tier} {rep['peak_bytes'][tier]} equals the app's --json {app_json['peak_bytes'][tier]}")
    check(rep["peak_bytes"]["disk"] > 0, "report: the run spilled to disk")
    check(rep["memory_samples"] > 0, f"report: the trace has memory counters ({rep['memory_samples']})")
    spill_cats = {e.get("cat") for e in events if e["name"].startswith(("spill", "reload"))}
    check(spill_cats == {"spill"}, f"trace: spill and reload events have category 'spill' (got {spill_cats})")
    text = open(trace).read()
    for secret in ("PATH=", "HOME=", os.environ.get("HOME", "/root") + "/", "--memory-limit"):
        check(secret not in text, f"trace: no environment or command line ({secret!r} absent)")
    check(not os.path.exists(page + ".tmp"), "report: no temporary file left")

    # 3. The page in headless Chromium.
    facts = check_page(chromium, page, profile, np_, "page")
    check(facts.stream_rects > 0, f"page: task bars drawn ({facts.stream_rects})")

    # The checks above can fail: the same page with a script error must be caught.
    broken = os.path.join(work, "broken.html")
    with open(page) as f:
        content = f.read()
    with open(broken, "w") as f:
        f.write(content.replace("</body>", "<script>undefinedFunction();</script></body>", 1))
    rc, bfacts, bconsole = load_in_chromium(chromium, broken, profile)
    check(bfacts.body.get("data-errors") not in (None, "0") and bconsole,
          f"a page with a script error is caught (data-errors={bfacts.body.get('data-errors')}, {len(bconsole)} console lines)")

    # 4. Bad input: exit code 2, a message naming the problem, no page left behind.
    def bad(args, expect, out):
        r = run([a.report] + args)
        check(r.returncode == 2 and expect in r.stderr,
              f"slab-report {' '.join(args)}: exit 2 with '{expect}' (got {r.returncode}: {r.stderr.strip()[:200]})")
        if out:
            check(not os.path.exists(out) and not os.path.exists(out + ".tmp"), f"no output left at {out}")

    missing_out = os.path.join(work, "missing.html")
    bad([os.path.join(work, "missing.json"), "-o", missing_out], "cannot open trace file", missing_out)
    malformed = os.path.join(work, "malformed.json")
    with open(malformed, "w") as f:
        f.write(text[: len(text) // 2])  # a trace cut short
    malformed_out = os.path.join(work, "malformed.html")
    bad([malformed, "-o", malformed_out], "is not a slab trace", malformed_out)
    bad([trace, "-o", os.path.join(work, "no", "such", "dir", "x.html")], "cannot write report", None)
    bad([trace, "--no-such-flag"], "--no-such-flag", None)
    bad([], "trace is required", None)
    r = run([a.report, "--help"])
    check(r.returncode == 0 and "--output" in r.stdout, "slab-report --help exits 0 and lists --output")

    shutil.rmtree(work, ignore_errors=True)
    print(f"{len(FAILURES)} failure(s)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
