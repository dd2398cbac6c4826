#!/usr/bin/env python3
"""Strong scaling of one slab app: run it at several rank counts, write a CSV and PNG plots.

    python3 perf/scaling/run.py --app slab-svd --ranks 1,2,4 -- --generate --rows 200000 --cols 256
    python3 perf/scaling/run.py --collect $PSCRATCH/slab-scaling/1234567 --name svd-perlmutter   # from slurm
    python3 perf/scaling/run.py --plot perf/results/scaling/svd.csv                              # plots again

Each run is `scripts/mpirun -n R build/bin/APP ARGS --json --trace T.json` (the median of --repeats runs by
"seconds"). Its row: ranks, nodes, seconds (the app's own timed job), speedup and parallel efficiency against the
fewest ranks, and where each rank's time went, from the trace: every instant of a rank's timeline goes to the
innermost event covering it (a spill inside a task counts as spill), an instant no event covers is "other", and
the seconds are the mean over ranks over the whole traced run (input generation included, as kind generate).
--collect reads what slurm/perlmutter/strong-scaling.sbatch left in its run directory (run-N.json with the
--json line, trace-N.json) and writes the same CSV. Plots need matplotlib: the script re-runs itself in
perf/.venv (made by perf/peers/setup_venv.sh) and installs matplotlib there if missing.
"""
import argparse
import csv
import datetime
import glob
import json
import os
import platform
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VENV_PY = os.path.join(ROOT, "perf", ".venv", "bin", "python")
KINDS = ["compute", "generate", "comm", "io", "spill", "other"]
FIELDS = ["app", "ranks", "nodes", "seconds", "speedup", "efficiency"] + [k + "_s" for k in KINDS] + [
    "traced_s", "repeats", "args", "host", "date", "load_avg"]


def ensure_venv():
    """Re-run in perf/.venv with matplotlib (creating the venv with perf/peers/setup_venv.sh when needed)."""
    if os.path.realpath(sys.prefix) == os.path.realpath(os.path.join(ROOT, "perf", ".venv")):
        try:
            import matplotlib  # noqa: F401
            return
        except ImportError:
            subprocess.run([sys.executable, "-m", "pip", "install", "-q", "matplotlib"], check=True)
            os.execv(sys.executable, [sys.executable] + sys.argv)
    subprocess.run(["bash", os.path.join(ROOT, "perf", "peers", "setup_venv.sh")], check=True)
    os.execv(VENV_PY, [VENV_PY] + sys.argv)


def breakdown(trace_path):
    """Mean over ranks of the seconds per kind (innermost event wins; uncovered time is 'other'), and the
    mean traced span. Events of category 'other' are markers (an app's steps) and are ignored."""
    with open(trace_path) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    per_rank = {}
    for e in events:
        per_rank.setdefault(e["pid"], []).append(e)
    totals = dict.fromkeys(KINDS, 0.0)
    span = 0.0
    for evs in per_rank.values():
        t0 = min(e["ts"] for e in evs)
        t1 = max(e["ts"] + e["dur"] for e in evs)
        spans = sorted(((e["ts"], e["ts"] + e["dur"], e["cat"]) for e in evs if e["cat"] != "other"),
                       key=lambda s: (s[0], -s[1]))
        out = dict.fromkeys(KINDS, 0.0)
        stack, cursor = [], t0

        def give(until):
            nonlocal cursor
            if until > cursor:
                out[stack[-1][2] if stack else "other"] += until - cursor
            cursor = max(cursor, until)

        for s, f, kind in spans:
            while stack and stack[-1][1] <= s:
                give(stack[-1][1])
                stack.pop()
            give(s)
            if stack:
                f = min(f, stack[-1][1])  # one thread's events nest; clip if not
            stack.append((s, f, kind if kind in out else "other"))
        while stack:
            give(stack[-1][1])
            stack.pop()
        give(t1)
        for k in KINDS:
            totals[k] += out[k] / 1e6
        span += (t1 - t0) / 1e6
    n = max(1, len(per_rank))
    return {k: v / n for k, v in totals.items()}, span / n


def load_avg():
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return ""


def run_once(app_path, ranks, args, trace):
    cmd = [os.path.join(ROOT, "scripts", "mpirun"), "-n", str(ranks), app_path] + args + ["--json", "--trace", trace]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or len(lines) != 1:
        sys.exit(f"run failed (exit {proc.returncode}): {' '.join(cmd)}\n{proc.stdout}\n{proc.stderr}")
    return json.loads(lines[0])


def make_row(out, trace, nodes, repeats, args, host, load):
    kinds, traced = breakdown(trace)
    row = {"app": out["app"], "ranks": out["ranks"], "nodes": nodes, "seconds": out["seconds"], "repeats": repeats,
           "traced_s": round(traced, 6), "args": " ".join(args), "host": host,
           "date": datetime.date.today().isoformat(), "load_avg": load}
    row.update({k + "_s": round(v, 6) for k, v in kinds.items()})
    return row


def finish(rows, csv_path):
    rows.sort(key=lambda r: int(r["ranks"]))
    base = rows[0]
    for r in rows:
        speedup = float(base["seconds"]) / float(r["seconds"])
        r["speedup"] = round(speedup, 4)
        r["efficiency"] = round(speedup / (int(r["ranks"]) / int(base["ranks"])), 4)
    os.makedirs(os.path.dirname(os.path.abspath(csv_path)), exist_ok=True)
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})
    print(f"wrote {csv_path}")
    plot(csv_path)


def plot(csv_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(csv_path) as f:
        rows = sorted(csv.DictReader(f), key=lambda r: int(r["ranks"]))
    ranks = [int(r["ranks"]) for r in rows]
    speedup = [float(r["speedup"]) for r in rows]
    eff = [float(r["efficiency"]) for r in rows]
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.2))
    ax[0].plot(ranks, speedup, "o-", label="measured")
    ax[0].plot(ranks, [r / ranks[0] for r in ranks], "k--", lw=1, label="ideal")
    ax[0].set(xscale="log", ylim=(0, None), xlabel="ranks", ylabel="speedup", title="speedup")
    ax[1].plot(ranks, eff, "o-")
    ax[1].axhline(1.0, color="k", ls="--", lw=1)
    ax[1].set(xscale="log", ylim=(0, 1.15), xlabel="ranks", ylabel="parallel efficiency", title="efficiency")
    bottom = [0.0] * len(rows)
    colors = {"compute": "#4c72b0", "generate": "#8172b2", "comm": "#dd8452", "io": "#55a868", "spill": "#c44e52",
              "other": "#999999"}
    xs = range(len(rows))
    for k in KINDS:
        v = [float(r[k + "_s"]) for r in rows]
        ax[2].bar(xs, v, bottom=bottom, color=colors[k], label=k)
        bottom = [b + x for b, x in zip(bottom, v)]
    ax[2].set(xticks=list(xs), xticklabels=[str(r) for r in ranks], xlabel="ranks",
              ylabel="seconds per rank (traced run)", title="where the time went")
    ax[2].legend(fontsize=8)
    from matplotlib.ticker import NullFormatter
    for a in ax[:2]:
        a.set_xticks(ranks)
        a.set_xticklabels([str(r) for r in ranks])
        a.xaxis.set_minor_formatter(NullFormatter())
        a.grid(alpha=0.3)
    r0 = rows[0]
    loads = ", ".join(str(r["load_avg"]) for r in rows if r["load_avg"] != "")
    fig.suptitle(f"{r0['app']} {r0['args']}  ({r0['host']}, {r0['date']}" + (f", load average {loads}" if loads else "")
                 + ")", fontsize=10)
    fig.tight_layout()
    png = os.path.splitext(csv_path)[0] + ".png"
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--app", help="the app in the build's bin/ (slab-svd, slab-groupby, slab-tour, ...)")
    ap.add_argument("--ranks", default="1,2,4", help="rank counts, comma-separated")
    ap.add_argument("--repeats", type=int, default=1, help="runs per rank count (the median by seconds is kept)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory")
    ap.add_argument("--name", help="CSV/PNG name under --out (default: the app)")
    ap.add_argument("--out", default=os.path.join(ROOT, "perf", "results", "scaling"))
    ap.add_argument("--collect", metavar="DIR", help="make the CSV from a slurm run directory instead of running")
    ap.add_argument("--plot", metavar="CSV", help="only draw the plots of an existing CSV")
    argv = sys.argv[1:]
    app_args = argv[argv.index("--") + 1:] if "--" in argv else []
    opts = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    ensure_venv()
    if opts.plot:
        return plot(opts.plot)
    host = platform.node()
    if opts.collect:
        rows = []
        for path in glob.glob(os.path.join(opts.collect, "run-*.json")):
            with open(path) as f:
                lines = [line for line in f if line.startswith("{")]
            if len(lines) != 1:
                print(f"skipping {path}: {len(lines)} JSON lines")
                continue
            out = json.loads(lines[0])
            n = os.path.basename(path)[len("run-"):-len(".json")]
            meta = {}
            if os.path.exists(os.path.join(opts.collect, "meta.json")):
                with open(os.path.join(opts.collect, "meta.json")) as f:
                    meta = json.load(f)
            rows.append(make_row(out, os.path.join(opts.collect, f"trace-{n}.json"), int(n), 1,
                                 meta.get("args", "").split(), meta.get("host", "perlmutter"), ""))
        if not rows:
            sys.exit(f"no run-*.json in {opts.collect}")
        return finish(rows, os.path.join(opts.out, (opts.name or rows[0]["app"]) + ".csv"))
    if not opts.app:
        ap.error("give --app (or --collect / --plot)")
    app_path = os.path.join(opts.build, "bin", opts.app)
    if not os.access(app_path, os.X_OK):
        sys.exit(f"{app_path} is not built (cmake --build {opts.build} --target {opts.app})")
    rows = []
    with tempfile.TemporaryDirectory(prefix="slab-scaling-") as tmp:
        for ranks in [int(r) for r in opts.ranks.split(",")]:
            runs = []
            for rep in range(opts.repeats):
                trace = os.path.join(tmp, f"trace-{ranks}-{rep}.json")
                load = load_avg()
                out = run_once(app_path, ranks, app_args, trace)
                runs.append((out["seconds"], out, trace, load))
                print(f"{opts.app} at {ranks} rank(s): {out['seconds']:.3f} s (load {load})", flush=True)
            runs.sort(key=lambda r: r[0])
            _, out, trace, load = runs[len(runs) // 2]
            rows.append(make_row(out, trace, 1, opts.repeats, app_args, host, load))
    finish(rows, os.path.join(opts.out, (opts.name or opts.app) + ".csv"))


if __name__ == "__main__":
    main()
