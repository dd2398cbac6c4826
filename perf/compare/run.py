#!/usr/bin/env python3
"""Peer comparison: slab's apps against NumPy and Dask (W1, W1b, W2, W6), against pandas, Polars, DuckDB and
dask.dataframe (W3, W4, W5 = W5-1000 + W5-1h; perf/peers/frames.py, checked against the pandas row) and against
serial NumPy, joblib and dask.delayed (W7, the parameter sweep of seed 003) on the workloads of WORKLOADS.md,
same inputs, same machine.

  python3 perf/compare/run.py --workloads W1,W2,W6 [--quick] [--repeats 3] [--impls numpy,dask-threaded,dask-cluster]
                              [--ranks 2] [--no-slab] [--debian] [--timeout 3600] [--bin-dir build/bin]

(a) sets up perf/.venv (perf/peers/setup_venv.sh) and re-runs itself there; (b) runs each workload in slab
(scripts/mpirun -n RANKS build/bin/slab-..., --json) and in each peer (perf/peers/workloads.py, one process per
run); (c) compares every row's check values with the NumPy row within WORKLOADS.md's tolerances (mismatches are
printed loudly and marked in the table); (d) writes perf/results/<date>-<workload>[-quick].json and rebuilds
perf/results/latest.md from the newest JSON of each workload and mode.

Peak memory is the largest sampled (every 50 ms) sum of the RSS of the run's whole process tree (mpirun and its
ranks; a peer and its LocalCluster nannies/workers), or the process's own ru_maxrss where that is larger; it
covers the whole run (input generation included), so that slab and the peers are measured the same way.
slab and the peers run with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE removed from the environment, so that both pick
their BLAS kernels by CPU detection; slab keeps its one BLAS thread per rank (scripts/mpirun).
"""
import argparse
import datetime
import glob
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PERF = os.path.join(ROOT, "perf")
VENV_PY = os.path.join(PERF, ".venv", "bin", "python")
WORKLOADS_PY = os.path.join(PERF, "peers", "workloads.py")
RESULTS = os.path.join(PERF, "results")
TMP = os.path.join(RESULTS, "tmp")          # ignored by git (/perf/results/tmp/)
FRAMES_PY = os.path.join(PERF, "peers", "frames.py")
PEERS = ["numpy", "dask-threaded", "dask-cluster"]
FRAME_PEERS = ["pandas", "polars", "duckdb", "dask-threaded"]   # W3, W4, W5-*: perf/peers/frames.py
FRAME_WLS = ("W3", "W4", "W5-1000", "W5-1h")
SWEEP_PEERS = ["numpy", "joblib", "dask-delayed"]   # W7: perf/peers/workloads.py
# Extra slab rows: (label, flags). W7 --refit refits every point from the raw rows, as the peers' tasks do (the
# like-for-like row); the main row shares the folds' QR factors across all points.
SLAB_VARIANTS = {"W7": [(" --refit", ["--refit"])]}
ALIASES = {"W5": ["W5-1000", "W5-1h"]}


def ref_impl(wl):
    """The row every other row's check values are compared with."""
    return "pandas" if wl in FRAME_WLS else "numpy"

SIZES = {  # full, quick
    "W1": ({"rows": 100_000, "cols": 1000}, {"rows": 20_000, "cols": 500}),
    "W1b": ({"rows": 400_000, "cols": 1000}, {"rows": 40_000, "cols": 500}),
    "W2": ({"rows": 5000, "cols": 100_000}, {"rows": 1000, "cols": 20_000}),
    "W6": ({"n": 200_000_000}, {"n": 20_000_000}),
    "W3": ({"rows": 20_000_000}, {"rows": 2_000_000}),
    "W4": ({"rows": 20_000_000, "right_rows": 2_000_000}, {"rows": 2_000_000, "right_rows": 200_000}),
    "W5-1000": ({"rows": 20_000_000, "window": "1000"}, {"rows": 2_000_000, "window": "1000"}),
    "W5-1h": ({"rows": 20_000_000, "window": "1h"}, {"rows": 2_000_000, "window": "1h"}),
    "W7": ({"rows": 20_000, "cols": 75, "tasks": 64}, {"rows": 5_000, "cols": 75, "tasks": 16}),
}
SLAB_APP = {"W1": "slab-svd", "W1b": "slab-svd", "W2": "slab-gram", "W6": "slab-reduce", "W3": "slab-groupby",
            "W4": "slab-merge", "W5-1000": "slab-rolling", "W5-1h": "slab-rolling", "W7": "slab-sweep"}


# ---------------------------------------------------------------------------------------------------------------
# Tolerances (WORKLOADS.md: ~1e-12 for singular values relative to s1, ~1e-9 for long sums, max exactly)

def compare_checks(wl, ref, got):
    """Returns a list of mismatch strings (empty: the check values agree)."""
    bad = []

    def need(k):
        if k not in got:
            bad.append("%s missing" % k)
            return False
        if k not in ref:
            bad.append("%s missing in the reference" % k)
            return False
        return True

    if wl in ("W1", "W1b"):
        s1 = abs(ref.get("s1", 0.0))
        for k in ["s1", "s2", "s3", "s4", "s5", "sum_s"]:
            if need(k) and abs(got[k] - ref[k]) > 1e-12 * s1:
                bad.append("%s %.17g vs %.17g (|diff|/s1 %.2e > 1e-12)" % (k, got[k], ref[k],
                                                                            abs(got[k] - ref[k]) / s1))
        for k in ["resid_rows0_1000", "orth_V"]:   # accuracy figures: each must be small on its own
            if k in got and not (got[k] <= 1e-10):
                bad.append("%s %.3g > 1e-10" % (k, got[k]))
            elif k not in got:
                bad.append("%s missing" % k)
    elif wl == "W2":
        for k in ["sum_Y", "trace_Y", "Y00", "Y10", "Ylast"]:
            if need(k) and abs(got[k] - ref[k]) > 1e-9 * abs(ref[k]):
                bad.append("%s %.17g vs %.17g (rel %.2e > 1e-9)" % (k, got[k], ref[k],
                                                                     abs(got[k] - ref[k]) / abs(ref[k])))
        if need("asym_max") and not (got["asym_max"] <= 1e-12 * abs(ref.get("Y00", 1.0))):
            bad.append("asym_max %.3g > 1e-12 * Y00" % got["asym_max"])
    elif wl == "W6":
        for k in ["sum", "mean", "std"]:
            if need(k) and abs(got[k] - ref[k]) > 1e-9 * abs(ref[k]):
                bad.append("%s %.17g vs %.17g (rel %.2e > 1e-9)" % (k, got[k], ref[k],
                                                                     abs(got[k] - ref[k]) / abs(ref[k])))
        if need("max") and got["max"] != ref["max"]:
            bad.append("max %.17g vs %.17g (must be equal)" % (got["max"], ref["max"]))
    elif wl == "W7":
        # Sums of 64 small errors: 1e-9 relative; the argmin exactly (neighbouring errors differ by ~2e-9
        # relative at full size, far above the ~1e-13 that QR vs SVD least squares changes).
        last = [k for k in ref if k.startswith("err") and k != "err0"]
        for k in ["sum_err", "err0"] + last:
            if need(k) and abs(got[k] - ref[k]) > 1e-9 * abs(ref[k]):
                bad.append("%s %.17g vs %.17g (rel %.2e > 1e-9)" % (k, got[k], ref[k],
                                                                     abs(got[k] - ref[k]) / abs(ref[k])))
        if need("argmin") and got["argmin"] != ref["argmin"]:
            bad.append("argmin %s vs %s (must be equal)" % (got["argmin"], ref["argmin"]))
    elif wl in FRAME_WLS:
        # Integers and names exactly; floating-point sums and values within 1e-9 relative (denominator
        # max(|ref|, 1), since sums of +-1 values like sum_x_mean can lie near 0).
        exact = {"W3": ["ngroups", "sum_count", "first_id", "first_name", "first_count"],
                 "W4": ["nrows", "sum_key"]}.get(wl, ["n_valid"])
        close = {"W3": ["sum_x_sum", "sum_x_mean", "sum_x_std", "sum_y_min", "sum_y_max", "wsum_xsum"],
                 "W4": ["sum_value_x_value2", "sum_value2"]}.get(wl, ["nansum", "r999", "r3600", "last"])
        for k in exact:
            if need(k) and got[k] != ref[k]:
                bad.append("%s %s vs %s (must be equal)" % (k, got[k], ref[k]))
        for k in close:
            if need(k):
                g, r = got[k], ref[k]
                if g is None or r is None or g != g or r != r:
                    if not (g is None and r is None) and not (g != g and r != r):
                        bad.append("%s %s vs %s" % (k, g, r))
                elif abs(g - r) > 1e-9 * max(abs(r), 1.0):
                    bad.append("%s %.17g vs %.17g (|diff|/max(|ref|,1) %.2e > 1e-9)"
                               % (k, g, r, abs(g - r) / max(abs(r), 1.0)))
    return bad


# ---------------------------------------------------------------------------------------------------------------
# Running one thing, with its process tree's peak RSS

def run_measured(cmd, env, timeout):
    import psutil
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    peak = [0]
    stop = threading.Event()

    def sample():
        try:
            top = psutil.Process(p.pid)
        except Exception:
            return
        while not stop.is_set():
            total = 0
            try:
                procs = [top] + top.children(recursive=True)
            except Exception:
                procs = [top]
            for q in procs:
                try:
                    total += q.memory_info().rss
                except Exception:
                    pass
            peak[0] = max(peak[0], total)
            stop.wait(0.05)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        import signal
        try:
            os.killpg(p.pid, signal.SIGKILL)   # the run's own process group (mpirun and its ranks, dask workers)
        except OSError:
            p.kill()
        out, err = p.communicate()
        rc = "timeout after %d s" % timeout
    stop.set()
    th.join()
    rec = None
    for line in reversed(out.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                rec = json.loads(line)
                break
            except ValueError:
                pass
    return rec, rc, out, err, peak[0], time.perf_counter() - t0


def blas_env():
    """The environment without the machine's OpenBLAS kernel pins (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE): slab and the
    peers pick their BLAS kernels the same way, by CPU detection (a pin to Haswell halved slab's dsyrk rate on an
    AVX-512 machine while numpy ran unpinned)."""
    env = dict(os.environ)
    for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(k, None)
    return env


def peer_env():
    env = blas_env()
    # The peers use both cores through BLAS (numpy) or two dask workers; no inherited thread caps.
    for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.pop(k, None)
    return env


# ---------------------------------------------------------------------------------------------------------------
# Facts about the machine and versions

def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=60).stdout.strip()
    except Exception:
        return ""


def machine_info():
    lscpu = sh("lscpu")
    model = re.search(r"Model name:\s*(.+)", lscpu)
    mem = re.search(r"MemTotal:\s*(\d+)", open("/proc/meminfo").read())
    return {"cpu_model": model.group(1).strip() if model else platform.processor(),
            "cpus": os.cpu_count(), "mem_gib": round(int(mem.group(1)) / 2 ** 20, 1) if mem else None,
            "kernel": platform.release(), "hostname": platform.node()}


def versions(py):
    v = {}
    out = sh("%s -c 'import sys, numpy, h5py; print(sys.version.split()[0], numpy.__version__, h5py.__version__)'"
             % py).split()
    if len(out) == 3:
        v["python"], v["numpy"], v["h5py"] = out
    d = sh("%s -c 'import dask, distributed; print(dask.__version__, distributed.__version__)'" % py).split()
    if len(d) == 2:
        v["dask"], v["distributed"] = d
    f = sh("%s -c 'import pandas, polars, duckdb, pyarrow; print(pandas.__version__, polars.__version__, "
           "duckdb.__version__, pyarrow.__version__)'" % py).split()
    if len(f) == 4:
        v["pandas"], v["polars"], v["duckdb"], v["pyarrow"] = f
    j = sh("%s -c 'import joblib; print(joblib.__version__)'" % py)
    if j:
        v["joblib"] = j
    return v


def slab_version():
    info = os.path.join(ROOT, "build", "bin", "slab-info")
    ver = sh("%s --version" % info) if os.path.exists(info) else ""
    return {"slab": ver or "not built", "git": sh("git describe --always --dirty"),
            "mpi": sh("mpirun --version").splitlines()[0] if sh("mpirun --version") else "unknown"}


# ---------------------------------------------------------------------------------------------------------------

def w2_file(size, log):
    path = os.path.join(TMP, "w2_%dx%d.h5" % (size["rows"], size["cols"]))
    sys.path.insert(0, os.path.dirname(WORKLOADS_PY))
    import workloads
    if os.path.exists(path) and workloads.w2_file_ok(path, size["rows"], size["cols"]):
        log("W2 input: reusing %s" % path)
        return path
    log("W2 input: generating %s (%d x %d) with perf/peers/workloads.py gen-w2" % (path, size["rows"], size["cols"]))
    subprocess.run([VENV_PY, WORKLOADS_PY, "gen-w2", path, "--rows", str(size["rows"]), "--cols",
                    str(size["cols"])], check=True, env=peer_env())
    return path


def delete_y(path):
    import h5py
    with h5py.File(path, "a") as f:
        if "Y" in f:
            del f["Y"]


def slab_cmd(wl, size, ranks, w2path, bin_dir):
    app = os.path.join(bin_dir, SLAB_APP[wl])
    mpirun = [os.path.join(ROOT, "scripts", "mpirun"), "-n", str(ranks), app]
    if wl in ("W1", "W1b"):
        return mpirun + ["--generate", "--rows", str(size["rows"]), "--cols", str(size["cols"]), "--json"]
    if wl == "W2":
        return mpirun + ["--input", w2path + ":/X", "--output", w2path + ":/Y", "--memory-limit", "1GiB", "--json"]
    if wl == "W3":
        return mpirun + ["--generate", "--rows", str(size["rows"]), "--json"]
    if wl == "W4":
        return mpirun + ["--generate", "--rows", str(size["rows"]), "--right-rows", str(size["right_rows"]), "--json"]
    if wl in ("W5-1000", "W5-1h"):
        return mpirun + ["--generate", "--rows", str(size["rows"]), "--window", size["window"], "--json"]
    if wl == "W7":
        return mpirun + ["--generate", "--rows", str(size["rows"]), "--cols", str(size["cols"]), "--tasks",
                         str(size["tasks"]), "--json"]
    return mpirun + ["--generate", "--n", str(size["n"]), "--json"]


def peer_cmd(py, wl, impl, size, w2path):
    if wl in FRAME_WLS:
        return [py, FRAMES_PY, "run", wl, impl, "--rows", str(size["rows"])] + (
            ["--right-rows", str(size["right_rows"])] if wl == "W4" else [])
    base = [py, WORKLOADS_PY, "run", "W1" if wl == "W1b" else wl, impl]
    if wl in ("W1", "W1b"):
        return base + ["--rows", str(size["rows"]), "--cols", str(size["cols"])]
    if wl == "W7":
        return base + ["--rows", str(size["rows"]), "--cols", str(size["cols"]), "--tasks", str(size["tasks"])]
    if wl == "W2":
        return base + ["--file", w2path]
    return base + ["--n", str(size["n"])]


def ideal_lines(wl, size, ideal):
    if not ideal or wl in FRAME_WLS or wl == "W7":
        return []
    rate = ideal["dgemm_flops_per_s"]
    bw = max(ideal["read_bytes_per_s_1thread"], ideal["read_bytes_per_s_2threads"])
    if wl in ("W1", "W1b"):
        m, n = size["rows"], size["cols"]
        return [{"what": "ideal: 4 m n^2 / dgemm rate (%.1f GFLOP/s, numpy, 2 threads)" % (rate / 1e9),
                 "seconds": 4.0 * m * n * n / rate}]
    if wl == "W2":
        m, n = size["rows"], size["cols"]
        return [{"what": "ideal: m^2 n (syrk) / dgemm rate (%.1f GFLOP/s); file read not counted" % (rate / 1e9),
                 "seconds": float(m) * m * n / rate}]
    return [{"what": "ideal: 8 N bytes / read bandwidth (%.1f GB/s, numpy sum)" % (bw / 1e9),
             "seconds": 8.0 * size["n"] / bw}]


def run_median(cmd, env, timeout, repeats, before=None):
    """run_measured `repeats` times (each its own process; `before` runs first each time, e.g. removing W2's /Y)
    and return the run with the median seconds, plus every run's seconds. A failed run is returned at once."""
    runs = []
    for _ in range(max(1, repeats)):
        if before:
            before()
        r = run_measured(cmd, env, timeout)
        if r[0] is None or r[1] != 0:
            return r, [x[0]["seconds"] for x in runs]
        runs.append(r)
    runs.sort(key=lambda r: r[0]["seconds"])
    return runs[len(runs) // 2], [r[0]["seconds"] for r in runs]


def wait_load(args, log):
    """Waits (up to --max-wait s) for the 1-minute load average to fall below --max-load; returns it as text."""
    if args.max_load is not None:
        t0 = time.time()
        if os.getloadavg()[0] >= args.max_load:
            log("waiting up to %d s for the load average (%.2f) to fall below %.2f"
                % (args.max_wait, os.getloadavg()[0], args.max_load))
        while os.getloadavg()[0] >= args.max_load and time.time() - t0 < args.max_wait:
            time.sleep(5)
        if os.getloadavg()[0] >= args.max_load:
            log("!!! load average %.2f still >= %.2f after %d s: running anyway (figures unreliable)"
                % (os.getloadavg()[0], args.max_load, args.max_wait))
    return "%.2f" % os.getloadavg()[0]


def gib(b):
    return "-" if b is None else "%.2f GiB" % (b / 2 ** 30)


def render_markdown(records):
    lines = ["# slab vs peers: latest results", "",
             "Generated by `perf/compare/run.py` from the newest JSON of each workload and mode in perf/results/. "
             "One run on one machine; seconds are the query only (W2 includes reading /X and writing /Y). "
             "Peak memory: largest sampled RSS sum of the run's process tree (input included). "
             "Ratio: implementation seconds / slab seconds (> 1: slab is faster). "
             "Checks: agreement with the NumPy row (W3-W5: the pandas row) within WORKLOADS.md's tolerances.", ""]
    for rec in records:
        m, v = rec["machine"], rec["versions"]
        lines.append("## %s%s: %s (%s)" % (rec["workload"], " (quick)" if rec["quick"] else "",
                                            ", ".join("%s=%s" % kv for kv in rec["size"].items()), rec["date"]))
        lines.append("")
        if rec["workload"] == "W7":
            vs = "numpy %s (BLAS %s), joblib %s, dask %s" % (v.get("numpy"), rec.get("blas_kernel"),
                                                           v.get("joblib"), v.get("dask"))
        elif rec["workload"] in FRAME_WLS:
            vs = "pandas %s, polars %s, duckdb %s, pyarrow %s, dask %s, numpy %s" % (
                v.get("pandas"), v.get("polars"), v.get("duckdb"), v.get("pyarrow"), v.get("dask"), v.get("numpy"))
        else:
            vs = "numpy %s (BLAS %s), dask %s, distributed %s, h5py %s" % (
                v.get("numpy"), rec.get("blas_kernel"), v.get("dask"), v.get("distributed"), v.get("h5py"))
        lines.append("Machine: %s, %s CPUs, %s GiB; load average before the runs %s. Versions: %s, Python %s; "
                     "slab %s (git %s); %s."
                     % (m["cpu_model"], m["cpus"], m["mem_gib"], rec.get("loadavg_start"), vs, v.get("python"),
                        rec["slab"]["slab"], rec["slab"]["git"], rec["slab"]["mpi"]))
        dv = rec.get("debian_versions")
        if dv:
            lines[-1] += (" Rows marked (Debian): /usr/bin/python3 %s, numpy %s, dask %s, distributed %s, h5py %s."
                          % (dv.get("python"), dv.get("numpy"), dv.get("dask"), dv.get("distributed"), dv.get("h5py")))
        lines.append("")
        lines.append("| workload | implementation | seconds | peak memory | ratio | checks agree | notes |")
        lines.append("|---|---|---|---|---|---|---|")
        slab_s = next((r["seconds"] for r in rec["rows"] if r["impl"].startswith("slab") and r.get("seconds")), None)
        for r in rec["rows"]:
            if r.get("seconds") is None:
                lines.append("| %s | %s | %s | - | - | - | %s |" % (rec["workload"], r["impl"],
                                                                    r.get("status", "failed"), r.get("note", "")))
                continue
            ratio = "%.2f" % (r["seconds"] / slab_s) if slab_s else "-"
            agree = r.get("agree")
            agree_s = "-" if agree is None else ("yes" if agree else "**NO**: " + "; ".join(r["mismatches"]))
            note = r.get("note", "")
            if r.get("loadavg_before"):
                note = (note + "; " if note else "") + "load %s" % r["loadavg_before"]
            if len(r.get("all_seconds") or []) > 1:
                note += "; median of %d runs (%s s)" % (len(r["all_seconds"]),
                                                       ", ".join("%.3f" % x for x in sorted(r["all_seconds"])))
            lines.append("| %s | %s | %.3f | %s | %s | %s | %s |" % (rec["workload"], r["impl"], r["seconds"],
                                                                   gib(r.get("peak_bytes")), ratio, agree_s, note))
        for i in rec.get("ideal", []):
            lines.append("| %s | %s | %.3f | - | %s | - | |" % (
                rec["workload"], i["what"], i["seconds"], "%.2f" % (i["seconds"] / slab_s) if slab_s else "-"))
        ref = next((r for r in rec["rows"] if r["impl"] == ref_impl(rec["workload"]) and r.get("checks")), None)
        if ref:
            lines.append("")
            lines.append("Check values (%s): " % ref["impl"] + ", ".join(
                "%s=%s" % (k, "%.17g" % x if isinstance(x, float) else x) for k, x in ref["checks"].items()))
        lines.append("")
    return "\n".join(lines) + "\n"


def rebuild_latest():
    newest = {}
    for p in sorted(glob.glob(os.path.join(RESULTS, "*.json"))):
        try:
            rec = json.load(open(p))
        except ValueError:
            continue
        key = (rec["workload"], rec["quick"])
        if key not in newest or rec["timestamp"] >= newest[key]["timestamp"]:
            newest[key] = rec
    order = {"W1": 0, "W1b": 1, "W2": 2, "W3": 3, "W4": 4, "W5-1000": 5, "W5-1h": 6, "W6": 7, "W7": 8}
    recs = sorted(newest.values(), key=lambda r: (r["quick"], order.get(r["workload"], 9)))
    with open(os.path.join(RESULTS, "latest.md"), "w") as f:
        f.write(render_markdown(recs))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workloads", default="W1,W2,W6",
                    help="comma list of W1, W1b, W2, W3, W4, W5 (= W5-1000,W5-1h), W6, W7")
    ap.add_argument("--quick", action="store_true", help="small sizes (W1 20,000 x 500, W2 1000 x 20,000, W6 2e7)")
    ap.add_argument("--impls", default=None, help="peers to run (comma list of %s; W3-W5: %s; W7: %s; default all)"
                    % (",".join(PEERS), ",".join(FRAME_PEERS), ",".join(SWEEP_PEERS)))
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "build", "bin"),
                    help="where slab's apps are (default build/bin)")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--no-slab", action="store_true", help="peers only")
    ap.add_argument("--debian", action="store_true",
                    help="also run the peers with Debian's /usr/bin/python3 (installs python3-dask etc. with apt)")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds per run")
    ap.add_argument("--repeats", type=int, default=1,
                    help="runs per implementation (each a fresh process); the median is reported")
    ap.add_argument("--max-load", type=float, default=None,
                    help="before each run, wait until the 1-minute load average is below this (other jobs)")
    ap.add_argument("--max-wait", type=int, default=600, help="seconds to wait for --max-load per run")
    args = ap.parse_args()

    # (a) the venv, then continue inside it (psutil, h5py needed here too)
    if os.environ.get("SLAB_COMPARE_IN_VENV") != "1":
        subprocess.run([os.path.join(PERF, "peers", "setup_venv.sh")], check=True)
        os.environ["SLAB_COMPARE_IN_VENV"] = "1"
        os.execv(VENV_PY, [VENV_PY] + sys.argv)

    def log(msg):
        print("[compare %s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)

    os.makedirs(TMP, exist_ok=True)
    st = subprocess.run([VENV_PY, WORKLOADS_PY, "selfcheck"], capture_output=True, text=True, env=peer_env())
    if st.returncode != 0:
        print(st.stdout, st.stderr)
        sys.exit("!!! the hash does not reproduce WORKLOADS.md's test vectors: stopping")
    log("hash self-check: 4 test vectors ok")

    pythons = [("", VENV_PY)]
    if args.debian:
        have = subprocess.run(["/usr/bin/python3", "-c", "import dask.array, distributed, h5py, psutil"],
                              capture_output=True).returncode == 0
        if not have:
            log("installing Debian's python3-dask etc. with apt-get")
            subprocess.run("apt-get install -y -q python3-dask python3-distributed python3-numpy python3-h5py "
                           "python3-psutil python3-threadpoolctl", shell=True, check=True)
        pythons.append((" (Debian)", "/usr/bin/python3"))

    machine = machine_info()
    vers = versions(VENV_PY)
    deb_vers = versions("/usr/bin/python3") if args.debian else None
    slab = slab_version()
    log("measuring the ideal-time inputs (numpy dgemm rate, read bandwidth)")
    ideal_rec, rc, _, err, _, _ = run_measured([VENV_PY, WORKLOADS_PY, "ideal"], peer_env(), 600)
    if ideal_rec is None:
        log("ideal measurement failed: %s" % err[-500:])

    any_mismatch = False
    wls = [x for w in args.workloads.split(",") if w.strip() for x in ALIASES.get(w.strip(), [w.strip()])]
    for wl in wls:
        if wl not in SIZES:
            sys.exit("unknown workload %s" % wl)
    for wl in wls:
        allowed = FRAME_PEERS if wl in FRAME_WLS else SWEEP_PEERS if wl == "W7" else PEERS
        impls = [i for i in (args.impls.split(",") if args.impls else allowed) if i and i in allowed]
        size = SIZES[wl][1 if args.quick else 0]
        w2path = w2_file(size, log) if wl == "W2" else None
        rec = {"workload": wl, "quick": args.quick, "size": size, "date": datetime.date.today().isoformat(),
               "timestamp": datetime.datetime.now().isoformat(timespec="seconds"), "machine": machine,
               "versions": vers, "debian_versions": deb_vers, "slab": slab, "ranks": args.ranks,
               "loadavg_start": "%.2f %.2f %.2f" % os.getloadavg(), "ideal": ideal_lines(wl, size, ideal_rec),
               "ideal_inputs": ideal_rec, "rows": []}
        # slab
        bin_dir = os.path.abspath(args.bin_dir)
        app = os.path.join(bin_dir, SLAB_APP[wl])
        if args.no_slab:
            pass
        elif not os.access(app, os.X_OK):
            rec["rows"].append({"impl": "slab", "seconds": None, "status": "slab: not built",
                                "note": "%s missing" % os.path.relpath(app, ROOT)})
            log("%s slab: not built (%s missing)" % (wl, os.path.relpath(app, ROOT)))
        else:
            for label, flags in [("", [])] + SLAB_VARIANTS.get(wl, []):
                cmd = slab_cmd(wl, size, args.ranks, w2path, bin_dir) + flags
                log("%s slab%s: %s" % (wl, label, " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c
                                                         for c in cmd)))
                la = wait_load(args, log)
                (out, rc, so, se, peak, wall), all_s = run_median(
                    cmd, blas_env(), args.timeout, args.repeats,
                    (lambda: delete_y(w2path)) if w2path else None)
                row = {"impl": "slab%s (%d ranks)" % (label, args.ranks), "command": cmd, "loadavg_before": la,
                       "wall": wall, "all_seconds": all_s}
                if out is None or rc != 0:
                    row.update({"seconds": None, "status": "slab: failed (rc %s)" % rc,
                                "note": (se or so).strip().splitlines()[-1][:200] if (se or so).strip() else ""})
                    log("!!! %s slab failed (rc %s): %s" % (wl, rc, (se or so)[-2000:]))
                else:
                    pb = out.get("peak_bytes", {})
                    row.update({"seconds": out.get("seconds"), "peak_bytes": max(peak, 0),
                                "checks": out.get("checks", {}), "slab_json": out,
                                "note": "slab peak_bytes device %s, host %s, disk %s; spilled %s" % (
                                    gib(pb.get("device")), gib(pb.get("host")), gib(pb.get("disk")),
                                    gib(out.get("spilled_bytes")))})
                    log("%s slab%s: %.3f s, peak %s" % (wl, label, row["seconds"], gib(peak)))
                rec["rows"].append(row)
        # peers
        for suffix, py in (pythons[:1] if wl in FRAME_WLS or wl == "W7" else pythons):   # --debian: arrays only
            for impl in impls:
                name = impl + suffix
                cmd = peer_cmd(py, wl, impl, size, w2path)
                log("%s %s: %s" % (wl, name, " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c
                                                       for c in cmd)))
                la = wait_load(args, log)
                (out, rc, so, se, peak, wall), all_s = run_median(cmd, peer_env(), args.timeout, args.repeats)
                row = {"impl": name, "command": cmd, "loadavg_before": la, "wall": wall, "all_seconds": all_s}
                if out is None or rc != 0:
                    row.update({"seconds": None, "status": "failed (rc %s)" % rc,
                                "note": se.strip().splitlines()[-1][:200] if se.strip() else ""})
                    log("!!! %s %s failed (rc %s): %s" % (wl, name, rc, se[-2000:]))
                else:
                    row.update({"seconds": out["seconds"], "peak_bytes": max(peak, out.get("peak_rss_bytes", 0)),
                                "checks": out["checks"], "peer_json": out,
                                "note": "; ".join(x for x in [out.get("method", ""), out.get("scheduler", "")] if x)})
                    if "blas_kernel" not in rec and out.get("blas"):
                        b = out["blas"][0]
                        rec["blas_kernel"] = "%s %s %s" % (b.get("internal_api"), b.get("version"),
                                                           b.get("architecture"))
                    log("%s %s: %.3f s, peak %s, checks %s" % (wl, name, row["seconds"], gib(row["peak_bytes"]),
                                                               json.dumps(out["checks"])))
                rec["rows"].append(row)
        # (c) agreement with the numpy row (W3-W5: the pandas row)
        ref = next((r["checks"] for r in rec["rows"] if r["impl"] == ref_impl(wl) and r.get("checks")), None)
        for r in rec["rows"]:
            if r.get("checks") is None:
                continue
            if ref is None:
                r["agree"], r["mismatches"] = None, ["no %s reference" % ref_impl(wl)]
                continue
            bad = compare_checks(wl, ref, r["checks"])
            r["agree"], r["mismatches"] = not bad, bad
            if bad:
                any_mismatch = True
                log("!!! CHECK MISMATCH %s %s vs %s:\n    %s" % (wl, r["impl"], ref_impl(wl), "\n    ".join(bad)))
        # (d) results
        path = os.path.join(RESULTS, "%s-%s%s.json" % (rec["date"], wl, "-quick" if args.quick else ""))
        with open(path, "w") as f:
            json.dump(rec, f, indent=1)
        log("wrote %s" % os.path.relpath(path, ROOT))
        rebuild_latest()
    log("wrote perf/results/latest.md")
    if any_mismatch:
        print("\n!!! SOME CHECK VALUES DISAGREE (see above and perf/results/latest.md) !!!\n", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
