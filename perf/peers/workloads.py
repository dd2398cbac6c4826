#!/usr/bin/env python3
"""Exact inputs and Python peer implementations of slab's workloads W1, W2, W6, W7 (see docs/WORKLOADS.md).

Every input comes from the counter-based hash h(s, i) (SplitMix64's first output for state (s << 40) + i), computed
here with vectorised numpy uint64 arithmetic, so that the peers see bit-identical inputs to slab's --generate.
Matrices use the row-major linear index i * cols + j (cols = 1000 for W1, 100,000 for W2 at full size).

Subcommands (each peer run is one process; perf/compare/run.py starts them):
  workloads.py selfcheck                                   # the 4 test vectors of WORKLOADS.md + a block-order check
  workloads.py gen-w2 FILE --rows 5000 --cols 100000       # writes /X (float64, chunks (rows, 5000), no filters)
  workloads.py run W1 numpy|dask-threaded|dask-cluster --rows M --cols N
  workloads.py run W2 numpy|dask-threaded|dask-cluster --file FILE
  workloads.py run W6 numpy|dask-threaded|dask-cluster --n N
  workloads.py run W7 numpy|joblib|dask-delayed --rows 20000 --cols 75 --tasks 64   # seed 003's sweep
  workloads.py ideal                                       # dgemm rate and read bandwidth of numpy on this machine
`run` prints one JSON line: {"workload", "impl", "seconds" (the query only), "peak_rss_bytes" (this process's
ru_maxrss; for dask-cluster the largest sampled sum of the workers' RSS plus this process's peak), "checks", ...}.
Works with the pip versions in perf/peers/requirements.txt and with Debian's older python3-numpy/dask/h5py.
"""
import argparse
import json
import os
import resource
import sys
import threading
import time

import numpy as np

# ---------------------------------------------------------------------------------------------------------------
# The hash

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def h(s, i):
    """h(s, i) for a uint64 array (or range) of indices i; returns a new uint64 array."""
    z = np.asarray(i, dtype=np.uint64).copy()
    z += (np.uint64(s) << np.uint64(40)) + _GOLDEN   # modulo 2^64 (numpy arrays wrap silently)
    z ^= z >> np.uint64(30)
    z *= _M1
    z ^= z >> np.uint64(27)
    z *= _M2
    z ^= z >> np.uint64(31)
    return z


def U(s, i):
    """U(s, i) = (h >> 11) * 2^-53, exact (values < 2^53 convert to double exactly)."""
    z = h(s, i)
    z >>= np.uint64(11)
    out = z.astype(np.float64)
    out *= 2.0 ** -53
    return out


def U_range(s, start, stop):
    return U(s, np.arange(start, stop, dtype=np.uint64))


TEST_VECTORS = [  # (s, i, h, U) from WORKLOADS.md
    (1, 0, 0x1fdd7128f310c389, 0.12447268724196459),
    (1, 1, 0x6d65027660c4cdc5, 0.4273225344666286),
    (2, 0, 0x35ee9d0b8065b0c5, 0.2106722024040184),
    (11, 199999999, 0xee234e658d7409ac, 0.930226230424026),
]


def selfcheck():
    ok = True
    for s, i, hv, uv in TEST_VECTORS:
        got_h = int(h(s, np.array([i], dtype=np.uint64))[0])
        got_u = float(U(s, np.array([i], dtype=np.uint64))[0])
        good = got_h == hv and got_u == uv
        ok &= good
        print("h(%d,%d) = %#018x U = %r %s" % (s, i, got_h, got_u, "ok" if good else
                                                "MISMATCH (want %#018x %r)" % (hv, uv)))
    # A block generated on its own equals the same rows of a bigger generation (order/offset independence).
    a = gen_w1_rows(0, 64, 50)
    b = gen_w1_rows(17, 40, 50)
    good = np.array_equal(a[17:40], b)
    ok &= good
    print("block independence:", "ok" if good else "MISMATCH")
    return ok


# ---------------------------------------------------------------------------------------------------------------
# Generators (blocks can be made anywhere, in any order)

def gen_w1_rows(r0, r1, cols):
    """Rows [r0, r1) of W1's A: A[i, j] = U(1, i*cols + j)."""
    return U_range(1, r0 * cols, r1 * cols).reshape(r1 - r0, cols)


def gen_w2_block(rows, cols, c0, c1):
    """Columns [c0, c1) of W2's X (all rows): X[i, j] = U(2, i*cols + j)."""
    i = np.arange(rows, dtype=np.uint64)[:, None] * np.uint64(cols)
    j = np.arange(c0, c1, dtype=np.uint64)[None, :]
    return U(2, i + j)


def gen_w6(start, stop):
    """a[k] = U(11, k) for k in [start, stop)."""
    return U_range(11, start, stop)


def _parallel_fill(out_flat, fn, block, threads=2):
    """out_flat[k0:k1] = fn(k0, k1) block by block on `threads` threads (numpy ufuncs release the GIL)."""
    from concurrent.futures import ThreadPoolExecutor
    n = out_flat.shape[0]

    def one(k0):
        k1 = min(n, k0 + block)
        out_flat[k0:k1] = fn(k0, k1)

    with ThreadPoolExecutor(threads) as ex:
        list(ex.map(one, range(0, n, block)))
    return out_flat


def make_w1(rows, cols):
    a = np.empty((rows, cols))
    per = max(1, (1 << 22) // cols)   # ~4M values per block
    from concurrent.futures import ThreadPoolExecutor

    def one(r0):
        r1 = min(rows, r0 + per)
        a[r0:r1] = gen_w1_rows(r0, r1, cols)

    with ThreadPoolExecutor(2) as ex:
        list(ex.map(one, range(0, rows, per)))
    return a


def make_w6(n):
    return _parallel_fill(np.empty(n), gen_w6, 1 << 22)


def make_w7(rows, cols):
    """W7's X (rows x cols) and y: X = 2 U(12, i*cols + j) - 1, y = X @ w_true + 0.1 (2 U(14, i) - 1)."""
    x = 2.0 * U_range(12, 0, rows * cols).reshape(rows, cols) - 1.0
    w_true = 2.0 * U_range(13, 0, cols) - 1.0
    y = x @ w_true + 0.1 * (2.0 * U_range(14, 0, rows) - 1.0)
    return x, y


def gen_w2_file(path, rows, cols, chunk_cols=5000):
    """Writes /X (rows x cols float64, chunks (rows, chunk_cols), no filters) to a new HDF5 file `path`."""
    import h5py
    tmp = path + ".part"
    with h5py.File(tmp, "w") as f:
        d = f.create_dataset("X", shape=(rows, cols), dtype="f8", chunks=(rows, min(chunk_cols, cols)))
        for c0 in range(0, cols, chunk_cols):
            c1 = min(cols, c0 + chunk_cols)
            d[:, c0:c1] = gen_w2_block(rows, cols, c0, c1)
    os.replace(tmp, path)


def w2_file_ok(path, rows, cols):
    """True when `path` holds /X of that shape and a few spot values match the generator."""
    import h5py
    try:
        with h5py.File(path, "r") as f:
            d = f["X"]
            if d.shape != (rows, cols) or d.dtype != np.float64:
                return False
            for i, j in [(0, 0), (1, 0), (rows - 1, cols - 1), (rows // 2, cols // 3)]:
                if d[i, j] != gen_w2_block(rows, cols, j, j + 1)[i, 0]:
                    return False
        return True
    except Exception:
        return False


# ---------------------------------------------------------------------------------------------------------------
# Peak memory

def self_peak_rss():
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss   # KiB on Linux
    return kb * 1024


class TreeSampler:
    """Samples the summed RSS of the given pids (a callable returning them) every `period` s; keeps the maximum."""

    def __init__(self, pids_fn, period=0.05):
        import psutil
        self._psutil = psutil
        self.pids_fn = pids_fn
        self.period = period
        self.peak = 0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        procs = {}
        while not self._stop.is_set():
            total = 0
            for pid in self.pids_fn():
                try:
                    p = procs.get(pid) or procs.setdefault(pid, self._psutil.Process(pid))
                    total += p.memory_info().rss
                except Exception:
                    pass
            self.peak = max(self.peak, total)
            self._stop.wait(self.period)

    def __enter__(self):
        self._t.start()
        return self

    def __exit__(self, *a):
        self._stop.set()
        self._t.join()


def blas_info():
    try:
        from threadpoolctl import threadpool_info
        return [{k: d.get(k) for k in ("internal_api", "version", "architecture", "num_threads", "filepath")}
                for d in threadpool_info() if d.get("user_api") == "blas"]
    except Exception as e:   # threadpoolctl missing (Debian row without it)
        return [{"error": "threadpoolctl unavailable: %s" % e}]


def blas_limit(n):
    """Context manager limiting BLAS threads in this process (no-op without threadpoolctl)."""
    try:
        from threadpoolctl import threadpool_limits
        return threadpool_limits(limits=n, user_api="blas")
    except Exception:
        import contextlib
        return contextlib.nullcontext()


# ---------------------------------------------------------------------------------------------------------------
# Check values

def checks_w1(u_rows, s, vt, a_rows):
    s = np.asarray(s)
    k = min(5, s.shape[0])
    out = {"s%d" % (i + 1): float(s[i]) for i in range(k)}
    out["sum_s"] = float(s.sum())
    r = a_rows - (u_rows * s[None, :]) @ vt
    out["resid_rows0_1000"] = float(np.linalg.norm(r) / np.linalg.norm(a_rows))
    out["orth_V"] = float(np.abs(vt @ vt.T - np.eye(vt.shape[0])).max())
    return out


def checks_w2(y):
    return {"sum_Y": float(y.sum()), "trace_Y": float(np.trace(y)), "Y00": float(y[0, 0]), "Y10": float(y[1, 0]),
            "Ylast": float(y[-1, -1]), "asym_max": float(np.abs(y - y.T).max())}


def checks_w7(errs):
    errs = [float(e) for e in errs]
    return {"sum_err": float(np.sum(errs)), "argmin": int(np.argmin(errs)), "err0": errs[0],
            "err%d" % (len(errs) - 1): errs[-1]}


def checks_w6(vals):
    s, m, sd, mx = (float(v) for v in vals)
    return {"sum": s, "mean": m, "std": sd, "max": mx}


# ---------------------------------------------------------------------------------------------------------------
# dask helpers

def start_cluster():
    from dask.distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    return cluster, client


def worker_pids(client=None):
    """This process and all its descendants (LocalCluster's nannies and workers)."""
    import psutil
    me = psutil.Process()
    try:
        return [me.pid] + [c.pid for c in me.children(recursive=True)]
    except Exception:
        return [me.pid]


def dask_versions():
    out = {}
    try:
        import dask
        out["dask"] = dask.__version__
        import distributed
        out["distributed"] = distributed.__version__
    except Exception:
        pass
    return out


def w1_dask_array(rows, cols, chunk_rows):
    import dask.array as da
    chunks = [min(chunk_rows, rows - r0) for r0 in range(0, rows, chunk_rows)]

    def block(block_info=None):
        (r0, r1), _ = block_info[None]["array-location"]
        return gen_w1_rows(r0, r1, cols)

    return da.map_blocks(block, chunks=(tuple(chunks), (cols,)), dtype=np.float64)


def w6_dask_array(n, chunk):
    import dask.array as da
    chunks = tuple(min(chunk, n - k) for k in range(0, n, chunk))

    def block(block_info=None):
        (k0, k1), = block_info[None]["array-location"]
        return gen_w6(k0, k1)

    return da.map_blocks(block, chunks=(chunks,), dtype=np.float64)


class H5Lazy:
    """A picklable array-like over an HDF5 dataset: opens the file on each read (for the distributed workers)."""

    def __init__(self, path, name):
        import h5py
        self.path, self.name = path, name
        with h5py.File(path, "r") as f:
            self.shape, self.dtype = f[name].shape, f[name].dtype
        self.ndim = len(self.shape)

    def __getitem__(self, idx):
        import h5py
        with h5py.File(self.path, "r") as f:
            return f[self.name][idx]


def store_y(path, y):
    """Writes Y as /Y of `path` (overwriting in place when an /Y of that shape exists)."""
    import h5py
    with h5py.File(path, "a") as f:
        if "Y" in f and (f["Y"].shape != y.shape or f["Y"].dtype != y.dtype):
            del f["Y"]
        if "Y" in f:
            f["Y"][...] = y
        else:
            f.create_dataset("Y", data=y)


# ---------------------------------------------------------------------------------------------------------------
# Peers. Each returns (seconds of the query, checks, extra dict); input generation is outside the timing
# (for dask the input is generated by the workers and persisted before the clock starts), except W2, whose
# query includes reading /X from the file and writing /Y back.

def run_w1(impl, rows, cols, chunk_rows=10000):
    extra = {}
    if impl == "numpy":
        a = make_w1(rows, cols)
        t0 = time.perf_counter()
        u, s, vt = np.linalg.svd(a, full_matrices=False)
        sec = time.perf_counter() - t0
        extra["method"] = "np.linalg.svd(full_matrices=False) (LAPACK gesdd)"
        return sec, checks_w1(u[:1000], s, vt, a[:1000]), extra
    import dask
    import dask.array as da
    a = w1_dask_array(rows, cols, chunk_rows)
    extra["method"] = "da.linalg.svd (TSQR), chunks (%d, %d); U, S, V^T persisted" % (chunk_rows, cols)
    if impl == "dask-threaded":
        extra["scheduler"] = "threads, num_workers=2, BLAS threads 1"
        with dask.config.set(scheduler="threads", num_workers=2), blas_limit(1):
            a = a.persist()
            t0 = time.perf_counter()
            u, s, vt = da.linalg.svd(a)
            u, s, vt = dask.persist(u, s, vt)
            sec = time.perf_counter() - t0
            uh, sh, vth, ah = dask.compute(u[:1000], s, vt, a[:1000])
        return sec, checks_w1(uh, sh, vth, ah), extra
    cluster, client = start_cluster()
    extra["scheduler"] = "LocalCluster 2 workers x 1 thread"
    try:
        with TreeSampler(lambda: worker_pids(client)) as ts:
            a = a.persist()
            from distributed import wait
            wait(a)
            t0 = time.perf_counter()
            u, s, vt = da.linalg.svd(a)
            u, s, vt = client.persist([u, s, vt])
            wait([u, s, vt])
            sec = time.perf_counter() - t0
            uh, sh, vth, ah = dask.compute(u[:1000], s, vt, a[:1000])
        extra["cluster_peak_rss_bytes"] = ts.peak
    finally:
        client.close()
        cluster.close()
    return sec, checks_w1(uh, sh, vth, ah), extra


def run_w2(impl, path, block_cols=5000):
    import h5py
    extra = {"file": path}
    with h5py.File(path, "r") as f:
        rows, cols = f["X"].shape
        extra["chunks"] = list(f["X"].chunks or ())
    if impl == "numpy":
        extra["method"] = "h5py column blocks of %d, Y += Xb @ Xb.T (numpy uses syrk), /Y written" % block_cols
        t0 = time.perf_counter()
        y = np.zeros((rows, rows))
        with h5py.File(path, "r") as f:
            d = f["X"]
            for c0 in range(0, cols, block_cols):
                xb = d[:, c0:min(cols, c0 + block_cols)]
                y += xb @ xb.T
                del xb
        store_y(path, y)
        sec = time.perf_counter() - t0
        return sec, checks_w2(y), extra
    import dask
    import dask.array as da
    extra["method"] = ("da.from_array(/X, chunks=(%d, %d)); Y = X @ X.T computed into memory, then written "
                       "to /Y with h5py (inside the timing)" % (rows, block_cols))
    if impl == "dask-threaded":
        extra["scheduler"] = "threads, num_workers=2, BLAS threads 1"
        with dask.config.set(scheduler="threads", num_workers=2), blas_limit(1):
            t0 = time.perf_counter()
            f = h5py.File(path, "r")
            x = da.from_array(f["X"], chunks=(rows, block_cols))
            y = (x @ x.T).compute()
            f.close()
            store_y(path, y)
            sec = time.perf_counter() - t0
        return sec, checks_w2(y), extra
    cluster, client = start_cluster()
    extra["scheduler"] = "LocalCluster 2 workers x 1 thread; /X read by the workers (file opened per chunk)"
    try:
        with TreeSampler(lambda: worker_pids(client)) as ts:
            t0 = time.perf_counter()
            x = da.from_array(H5Lazy(path, "X"), chunks=(rows, block_cols), lock=False)
            y = client.compute(x @ x.T).result()
            store_y(path, y)
            sec = time.perf_counter() - t0
        extra["cluster_peak_rss_bytes"] = ts.peak
    finally:
        client.close()
        cluster.close()
    return sec, checks_w2(y), extra


def run_w6(impl, n, chunk=None):
    chunk = chunk or -(-n // 20)   # 20 chunks (10,000,000 each at full size)
    extra = {}
    if impl == "numpy":
        a = make_w6(n)
        extra["method"] = "a.sum(), a.mean(), a.std(), a.max() (one thread, as numpy does)"
        t0 = time.perf_counter()
        vals = (a.sum(), a.mean(), a.std(), a.max())
        sec = time.perf_counter() - t0
        return sec, checks_w6(vals), extra
    import dask
    a = w6_dask_array(n, chunk)
    extra["method"] = "dask.compute(a.sum(), a.mean(), a.std(), a.max()), %d chunks of %d" % (
        len(a.chunks[0]), chunk)
    if impl == "dask-threaded":
        extra["scheduler"] = "threads, num_workers=2"
        with dask.config.set(scheduler="threads", num_workers=2):
            a = a.persist()
            t0 = time.perf_counter()
            vals = dask.compute(a.sum(), a.mean(), a.std(), a.max())
            sec = time.perf_counter() - t0
        return sec, checks_w6(vals), extra
    cluster, client = start_cluster()
    extra["scheduler"] = "LocalCluster 2 workers x 1 thread"
    try:
        with TreeSampler(lambda: worker_pids(client)) as ts:
            from distributed import wait
            a = a.persist()
            wait(a)
            t0 = time.perf_counter()
            vals = dask.compute(a.sum(), a.mean(), a.std(), a.max())
            sec = time.perf_counter() - t0
        extra["cluster_peak_rss_bytes"] = ts.peak
    finally:
        client.close()
        cluster.close()
    return sec, checks_w6(vals), extra


def w7_alphas(tasks):
    return [10.0 ** (-3.0 + 6.0 * k / max(1, tasks - 1)) for k in range(tasks)]


def w7_task(x, y, alpha, folds=5):
    """One grid point as a joblib user writes it (seed 003): k-fold CV of a ridge fit by least squares on
    [X_train; sqrt(alpha) I], [y_train; 0]; returns sum_f ||X_f w - y_f||^2 / n."""
    n, p = x.shape
    err = 0.0
    for f in range(folds):
        lo, hi = f * n // folds, (f + 1) * n // folds
        a = np.vstack([x[:lo], x[hi:], np.sqrt(alpha) * np.eye(p)])
        b = np.concatenate([y[:lo], y[hi:], np.zeros(p)])
        w = np.linalg.lstsq(a, b, rcond=None)[0]
        r = x[lo:hi] @ w - y[lo:hi]
        err += float(r @ r)
    return err / n


def run_w7(impl, rows, cols, tasks):
    """64 independent tasks (W7): serial NumPy, joblib (2 loky workers) or dask.delayed (2 threads)."""
    x, y = make_w7(rows, cols)
    alphas = w7_alphas(tasks)
    extra = {"method": "per task: 5 folds x np.linalg.lstsq([X_train; sqrt(a) I], [y_train; 0])"}
    if impl == "numpy":
        extra["scheduler"] = "serial loop, BLAS threads 1"
        with blas_limit(1):
            t0 = time.perf_counter()
            errs = [w7_task(x, y, a) for a in alphas]
            sec = time.perf_counter() - t0
    elif impl == "joblib":
        import joblib
        from joblib import Parallel, delayed
        extra["joblib"] = joblib.__version__
        extra["scheduler"] = "joblib.Parallel(n_jobs=2, backend='loky'), workers started before the clock"
        with Parallel(n_jobs=2, backend="loky") as par:
            par(delayed(abs)(i) for i in range(4))   # start the (reused) worker processes outside the timing
            t0 = time.perf_counter()
            errs = par(delayed(w7_task)(x, y, a) for a in alphas)
            sec = time.perf_counter() - t0
    else:
        import dask
        extra["scheduler"] = "dask.delayed, threads, num_workers=2, BLAS threads 1"
        with dask.config.set(scheduler="threads", num_workers=2), blas_limit(1):
            t0 = time.perf_counter()
            errs = dask.compute(*[dask.delayed(w7_task)(x, y, a) for a in alphas])
            sec = time.perf_counter() - t0
    return sec, checks_w7(errs), extra


# ---------------------------------------------------------------------------------------------------------------
# Ideal-time inputs: numpy's dgemm rate on both cores and a read bandwidth

def ideal():
    from concurrent.futures import ThreadPoolExecutor
    out = {}
    a = np.random.default_rng(0).random((4000, 4000))
    b = np.random.default_rng(1).random((4000, 1000))
    a @ b
    best = min(_timed(lambda: a @ b) for _ in range(3))
    out["dgemm_flops_per_s"] = 2 * 4000 * 4000 * 1000 / best
    out["dgemm_what"] = "numpy (4000x4000) @ (4000x1000), BLAS threads as set, best of 3"
    del a, b
    x = np.ones(1 << 27)   # 1 GiB
    x.sum()
    bw1 = x.nbytes / min(_timed(lambda: x.sum()) for _ in range(3))
    halves = [x[: x.shape[0] // 2], x[x.shape[0] // 2:]]
    with ThreadPoolExecutor(2) as ex:
        bw2 = x.nbytes / min(_timed(lambda: list(ex.map(np.sum, halves))) for _ in range(3))
    out["read_bytes_per_s_1thread"] = bw1
    out["read_bytes_per_s_2threads"] = bw2
    out["read_what"] = "numpy sum of a 1 GiB float64 array, 1 thread and 2 threads (halves), best of 3"
    return out


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


# ---------------------------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("selfcheck")
    g = sub.add_parser("gen-w2")
    g.add_argument("file")
    g.add_argument("--rows", type=int, default=5000)
    g.add_argument("--cols", type=int, default=100000)
    r = sub.add_parser("run")
    r.add_argument("workload", choices=["W1", "W2", "W6", "W7"])
    r.add_argument("impl", choices=["numpy", "dask-threaded", "dask-cluster", "joblib", "dask-delayed"])
    r.add_argument("--rows", type=int, default=100000)
    r.add_argument("--cols", type=int, default=1000)
    r.add_argument("--n", type=int, default=200_000_000)
    r.add_argument("--file")
    r.add_argument("--tasks", type=int, default=64)
    sub.add_parser("ideal")
    args = ap.parse_args()

    if args.cmd == "selfcheck":
        sys.exit(0 if selfcheck() else 1)
    if args.cmd == "gen-w2":
        t0 = time.perf_counter()
        gen_w2_file(args.file, args.rows, args.cols)
        print(json.dumps({"file": args.file, "rows": args.rows, "cols": args.cols,
                          "seconds": time.perf_counter() - t0}))
        return
    if args.cmd == "ideal":
        print(json.dumps(ideal()))
        return
    if args.workload == "W1":
        sec, checks, extra = run_w1(args.impl, args.rows, args.cols)
        size = {"rows": args.rows, "cols": args.cols}
    elif args.workload == "W2":
        sec, checks, extra = run_w2(args.impl, args.file)
        size = {}
    elif args.workload == "W7":
        sec, checks, extra = run_w7(args.impl, args.rows, args.cols, args.tasks)
        size = {"rows": args.rows, "cols": args.cols, "tasks": args.tasks}
    else:
        sec, checks, extra = run_w6(args.impl, args.n)
        size = {"n": args.n}
    peak = self_peak_rss()
    if "cluster_peak_rss_bytes" in extra:
        extra["client_peak_rss_bytes"] = peak
        peak = max(peak, extra["cluster_peak_rss_bytes"])
    rec = {"workload": args.workload, "impl": args.impl, "seconds": sec, "peak_rss_bytes": peak,
           "checks": checks, "size": size, "python": sys.version.split()[0], "numpy": np.__version__,
           "blas": blas_info()}
    rec.update(dask_versions() if args.impl.startswith("dask") else {})
    rec.update(extra)
    print(json.dumps(rec))


if __name__ == "__main__":
    main()
