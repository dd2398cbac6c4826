#!/usr/bin/env python3
"""Dataframe peers of slab's W3 (groupby), W4 (merge), W5 (rolling) from docs/WORKLOADS.md.

  frames.py run W3 pandas|polars|duckdb|dask-threaded --rows N
  frames.py run W4 IMPL --rows N --right-rows M
  frames.py run W5-1000 IMPL --rows N          # rolling(1000).mean(), min_periods=1000
  frames.py run W5-1h IMPL --rows N            # rolling('1h').mean() on t, window (t-1h, t], min_periods=1

Inputs come from the vectorised hash of workloads.py (bit-identical to slab's --generate) and are built before the
clock starts: pandas/polars frames in memory, a native DuckDB table, a persisted dask.dataframe (20 partitions of
1,000,000 rows; W4-right 4 partitions). The timed part is the query with its result materialised in this process
(a pandas/polars frame or numpy arrays); the check values are computed from that result afterwards.
Threads: polars POLARS_MAX_THREADS=2, DuckDB SET threads=2, dask threaded scheduler with 2 workers; pandas uses one.
Prints one JSON line like workloads.py run.
"""
import argparse
import json
import os
import sys
import time

os.environ.setdefault("POLARS_MAX_THREADS", "2")   # before polars is imported

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workloads import h, U_range, self_peak_rss  # noqa: E402

NAMES = ["Alice", "Bob", "Charlie", "Dan", "Edith", "Frank", "George", "Hannah", "Ingrid", "Jerry", "Kevin", "Laura",
         "Michael", "Norbert", "Oliver", "Patricia", "Quinn", "Ray", "Sarah", "Tim", "Ursula", "Victor", "Wendy",
         "Xavier", "Yvonne", "Zelda"]
NAME_IDX = {n: i for i, n in enumerate(NAMES)}
PART = 1_000_000       # rows per dask partition (W3, W4-left, W5)
RIGHT_PARTS = 4        # W4-right partitions
W4_KEYS = 2_000_000    # key modulus of W4's left side (fixed, as slab-merge does)
T0_NS = np.datetime64("2000-01-01T00:00:00", "ns").astype(np.int64)


# ---------------------------------------------------------------------------------------------------------------
# Generators (row ranges [r0, r1))

def _idx(r0, r1):
    return np.arange(r0, r1, dtype=np.uint64)


def gen_w3(r0, r1):
    i = _idx(r0, r1)
    ident = (h(3, i) % np.uint64(1000)).astype(np.int64)
    code = (h(4, i) % np.uint64(26)).astype(np.int8)
    x = 2.0 * U_range(5, r0, r1) - 1.0
    y = 2.0 * U_range(6, r0, r1) - 1.0
    return ident, code, x, y


def gen_w4_left(r0, r1):
    return (h(7, _idx(r0, r1)) % np.uint64(W4_KEYS)).astype(np.int64), U_range(8, r0, r1)


def gen_w4_right(q0, q1, m):
    """key[q] = (q * 1,000,003) mod M (M = 2,000,000 at full size; slab-merge uses M for other sizes too)."""
    q = np.arange(q0, q1, dtype=np.int64)
    return (q * 1_000_003) % m, U_range(9, q0, q1)


def gen_w5(r0, r1):
    t = (T0_NS + np.arange(r0, r1, dtype=np.int64) * 1_000_000_000).view("datetime64[ns]")
    return t, U_range(10, r0, r1)


def pd_w3(r0, r1):
    import pandas as pd
    ident, code, x, y = gen_w3(r0, r1)
    return pd.DataFrame({"id": ident, "name": pd.Categorical.from_codes(code, NAMES), "x": x, "y": y},
                        index=pd.RangeIndex(r0, r1))


def pd_w4_left(r0, r1):
    import pandas as pd
    k, v = gen_w4_left(r0, r1)
    return pd.DataFrame({"key": k, "value": v}, index=pd.RangeIndex(r0, r1))


def pd_w4_right(q0, q1, m):
    import pandas as pd
    k, v = gen_w4_right(q0, q1, m)
    return pd.DataFrame({"key": k, "value2": v}, index=pd.RangeIndex(q0, q1))


def pd_w5(r0, r1, time_index=False):
    import pandas as pd
    t, v = gen_w5(r0, r1)
    if time_index:
        return pd.DataFrame({"v": v}, index=pd.DatetimeIndex(t, name="t"))
    return pd.DataFrame({"t": t, "v": v}, index=pd.RangeIndex(r0, r1))


# ---------------------------------------------------------------------------------------------------------------
# Check values (the same as slab's apps)

def checks_w3(ident, names, count, x_sum, x_mean, x_std, y_min, y_max):
    ident = np.asarray(ident, dtype=np.int64)
    code = np.array([NAME_IDX[str(n)] for n in names], dtype=np.int64)
    order = np.argsort(ident * 26 + code, kind="stable")
    ident, code = ident[order], code[order]
    cols = [np.asarray(c, dtype=np.float64)[order] for c in (x_sum, x_mean, x_std, y_min, y_max)]
    count = np.asarray(count, dtype=np.int64)[order]
    x_sum, x_mean, x_std, y_min, y_max = cols
    return {"ngroups": int(ident.shape[0]), "sum_count": int(count.sum()), "sum_x_sum": float(x_sum.sum()),
            "sum_x_mean": float(x_mean.sum()), "sum_x_std": float(np.nansum(x_std)),
            "sum_y_min": float(y_min.sum()), "sum_y_max": float(y_max.sum()),
            "wsum_xsum": float(((ident * 26 + code).astype(np.float64) * x_sum).sum()),
            "first_id": int(ident[0]), "first_name": NAMES[code[0]], "first_count": int(count[0])}


def checks_w4(key, value, value2):
    key = np.asarray(key, dtype=np.int64)
    value, value2 = np.asarray(value, dtype=np.float64), np.asarray(value2, dtype=np.float64)
    return {"nrows": int(key.shape[0]), "sum_key": int(key.sum()), "sum_value_x_value2": float((value * value2).sum()),
            "sum_value2": float(value2.sum())}


def checks_w5(res):
    res = np.asarray(res, dtype=np.float64)
    n = res.shape[0]
    pick = lambda k: float(res[k]) if k < n else None  # noqa: E731
    return {"n_valid": int(np.count_nonzero(~np.isnan(res))), "nansum": float(np.nansum(res)), "r999": pick(999),
            "r3600": pick(3600), "last": float(res[-1]) if n else None}


def pandas_w3_checks(g):
    """g: the pandas result with a MultiIndex (id, name) and columns (x, mean|sum|count|std), (y, min|max)."""
    return checks_w3(g.index.get_level_values(0).to_numpy(), g.index.get_level_values(1).astype(str).to_numpy(),
                     g[("x", "count")].to_numpy(), g[("x", "sum")].to_numpy(), g[("x", "mean")].to_numpy(),
                     g[("x", "std")].to_numpy(), g[("y", "min")].to_numpy(), g[("y", "max")].to_numpy())


W3_AGG = {"x": ["mean", "sum", "count", "std"], "y": ["min", "max"]}


# ---------------------------------------------------------------------------------------------------------------
# pandas

def run_pandas(wl, n, m):
    import pandas as pd
    extra = {"pandas": pd.__version__, "scheduler": "one thread (pandas)"}
    if wl == "W3":
        df = pd_w3(0, n)
        extra["method"] = "df.groupby(['id','name'], observed=True).agg(...) (sorted), name Categorical"
        t0 = time.perf_counter()
        g = df.groupby(["id", "name"], observed=True).agg(W3_AGG)
        sec = time.perf_counter() - t0
        return sec, pandas_w3_checks(g), extra
    if wl == "W4":
        left, right = pd_w4_left(0, n), pd_w4_right(0, m, m)
        extra["method"] = "left.merge(right, on='key', how='inner')"
        t0 = time.perf_counter()
        j = left.merge(right, on="key", how="inner")
        sec = time.perf_counter() - t0
        return sec, checks_w4(j["key"].to_numpy(), j["value"].to_numpy(), j["value2"].to_numpy()), extra
    if wl == "W5-1000":
        s = pd_w5(0, n)["v"]
        extra["method"] = "s.rolling(1000).mean()"
        t0 = time.perf_counter()
        r = s.rolling(1000).mean()
        sec = time.perf_counter() - t0
        return sec, checks_w5(r.to_numpy()), extra
    s = pd_w5(0, n, time_index=True)["v"]
    extra["method"] = "s.rolling('1h').mean() on a DatetimeIndex t"
    t0 = time.perf_counter()
    r = s.rolling("1h").mean()
    sec = time.perf_counter() - t0
    return sec, checks_w5(r.to_numpy()), extra


# ---------------------------------------------------------------------------------------------------------------
# polars

def run_polars(wl, n, m):
    import polars as pl
    extra = {"polars": pl.__version__, "scheduler": "POLARS_MAX_THREADS=%s (pool %d)" % (
        os.environ.get("POLARS_MAX_THREADS"), pl.thread_pool_size())}
    if wl == "W3":
        ident, code, x, y = gen_w3(0, n)
        import pyarrow as pa
        name = pl.from_arrow(pa.DictionaryArray.from_arrays(pa.array(code.astype(np.int32)), pa.array(NAMES)))
        df = pl.DataFrame({"id": ident, "name": name.cast(pl.Enum(NAMES)), "x": x, "y": y})
        del ident, code, x, y
        extra["method"] = "df.group_by(['id','name']).agg(mean, sum, count, std(ddof=1), min, max).sort(id, name); name Enum"
        t0 = time.perf_counter()
        g = (df.group_by(["id", "name"])
             .agg(pl.col("x").mean().alias("x_mean"), pl.col("x").sum().alias("x_sum"),
                  pl.col("x").count().alias("x_count"), pl.col("x").std(ddof=1).alias("x_std"),
                  pl.col("y").min().alias("y_min"), pl.col("y").max().alias("y_max"))
             .sort(["id", "name"]))
        sec = time.perf_counter() - t0
        return sec, checks_w3(g["id"].to_numpy(), g["name"].cast(pl.String).to_numpy(), g["x_count"].to_numpy(),
                              g["x_sum"].to_numpy(), g["x_mean"].to_numpy(), g["x_std"].to_numpy(),
                              g["y_min"].to_numpy(), g["y_max"].to_numpy()), extra
    if wl == "W4":
        k, v = gen_w4_left(0, n)
        left = pl.DataFrame({"key": k, "value": v})
        k, v = gen_w4_right(0, m, m)
        right = pl.DataFrame({"key": k, "value2": v})
        extra["method"] = "left.join(right, on='key', how='inner')"
        t0 = time.perf_counter()
        j = left.join(right, on="key", how="inner")
        sec = time.perf_counter() - t0
        return sec, checks_w4(j["key"].to_numpy(), j["value"].to_numpy(), j["value2"].to_numpy()), extra
    t, v = gen_w5(0, n)
    df = pl.DataFrame({"t": t, "v": v})
    if wl == "W5-1000":
        extra["method"] = "pl.col('v').rolling_mean(1000) (min_samples 1000)"
        t0 = time.perf_counter()
        r = df.select(pl.col("v").rolling_mean(window_size=1000))
        sec = time.perf_counter() - t0
    else:
        extra["method"] = "pl.col('v').rolling_mean_by('t', '1h') (closed='right': (t-1h, t])"
        t0 = time.perf_counter()
        r = df.select(pl.col("v").rolling_mean_by("t", window_size="1h", closed="right"))
        sec = time.perf_counter() - t0
    return sec, checks_w5(r["v"].to_numpy()), extra


# ---------------------------------------------------------------------------------------------------------------
# DuckDB

def _np(col):
    return np.ma.filled(col, np.nan) if isinstance(col, np.ma.MaskedArray) else np.asarray(col)


def run_duckdb(wl, n, m):
    import duckdb
    con = duckdb.connect()
    con.execute("SET threads=2")
    extra = {"duckdb": duckdb.__version__, "scheduler": "SET threads=2; inputs loaded into native tables first"}
    if wl == "W3":
        df = pd_w3(0, n)
        con.execute("CREATE TABLE w3 AS SELECT * FROM df")   # name: ENUM from the Categorical
        del df
        q = ("SELECT id, name, avg(x) AS x_mean, sum(x) AS x_sum, count(x) AS x_count, stddev_samp(x) AS x_std, "
             "min(y) AS y_min, max(y) AS y_max FROM w3 GROUP BY id, name ORDER BY id, name")
        extra["method"] = q
        t0 = time.perf_counter()
        g = con.execute(q).fetchnumpy()
        sec = time.perf_counter() - t0
        names = [str(x) for x in g["name"]]
        return sec, checks_w3(_np(g["id"]), names, _np(g["x_count"]), _np(g["x_sum"]), _np(g["x_mean"]),
                              _np(g["x_std"]), _np(g["y_min"]), _np(g["y_max"])), extra
    if wl == "W4":
        ldf, rdf = pd_w4_left(0, n), pd_w4_right(0, m, m)
        con.execute("CREATE TABLE l AS SELECT * FROM ldf")
        con.execute("CREATE TABLE r AS SELECT * FROM rdf")
        del ldf, rdf
        q = "SELECT l.key, l.value, r.value2 FROM l JOIN r ON l.key = r.key"
        extra["method"] = q + " (fetched as numpy)"
        t0 = time.perf_counter()
        j = con.execute(q).fetchnumpy()
        sec = time.perf_counter() - t0
        return sec, checks_w4(_np(j["key"]), _np(j["value"]), _np(j["value2"])), extra
    df = pd_w5(0, n)
    df["r"] = np.arange(n, dtype=np.int64)
    con.execute("CREATE TABLE w5 AS SELECT r, CAST(t AS TIMESTAMP) AS t, v FROM df")
    del df
    if wl == "W5-1000":
        q = ("SELECT CASE WHEN count(v) OVER w = 1000 THEN avg(v) OVER w END AS m FROM w5 "
             "WINDOW w AS (ORDER BY r ROWS BETWEEN 999 PRECEDING AND CURRENT ROW) ORDER BY r")
    else:   # (t - 1h, t] with microsecond timestamps = [t - 3599999999 us, t]
        q = ("SELECT avg(v) OVER (ORDER BY t RANGE BETWEEN INTERVAL 3599999999 MICROSECONDS PRECEDING "
             "AND CURRENT ROW) AS m FROM w5 ORDER BY t")
    extra["method"] = q + " (fetched as numpy)"
    t0 = time.perf_counter()
    r = con.execute(q).fetchnumpy()
    sec = time.perf_counter() - t0
    return sec, checks_w5(_np(r["m"])), extra


# ---------------------------------------------------------------------------------------------------------------
# dask.dataframe (threaded scheduler, 2 workers)

def _starts(n, part):
    return [(k, min(n, k + part)) for k in range(0, n, part)]


def run_dask(wl, n, m):
    import dask
    import dask.dataframe as dd
    extra = {"dask": dask.__version__, "scheduler": "threads, num_workers=2; inputs persisted before the clock"}
    with dask.config.set(scheduler="threads", num_workers=2):
        if wl == "W3":
            ddf = dd.from_map(lambda ab: pd_w3(*ab), _starts(n, PART)).persist()
            extra["method"] = "ddf.groupby(['id','name'], observed=True).agg(...).compute().sort_index(), %d partitions" % ddf.npartitions
            t0 = time.perf_counter()
            g = ddf.groupby(["id", "name"], observed=True).agg(W3_AGG).compute().sort_index()
            sec = time.perf_counter() - t0
            return sec, pandas_w3_checks(g), extra
        if wl == "W4":
            left = dd.from_map(lambda ab: pd_w4_left(*ab), _starts(n, PART)).persist()
            right = dd.from_map(lambda ab: pd_w4_right(*ab, m), _starts(m, -(-m // RIGHT_PARTS))).persist()
            extra["method"] = "dd.merge(left, right, on='key', how='inner').compute(), %d x %d partitions" % (
                left.npartitions, right.npartitions)
            t0 = time.perf_counter()
            j = dd.merge(left, right, on="key", how="inner").compute()
            sec = time.perf_counter() - t0
            return sec, checks_w4(j["key"].to_numpy(), j["value"].to_numpy(), j["value2"].to_numpy()), extra
        if wl == "W5-1000":
            st = _starts(n, PART)
            ddf = dd.from_map(lambda ab: pd_w5(*ab), st, divisions=[a for a, _ in st] + [n - 1]).persist()
            extra["method"] = "ddf['v'].rolling(1000).mean().compute(), %d partitions" % ddf.npartitions
            t0 = time.perf_counter()
            r = ddf["v"].rolling(1000).mean().compute()
            sec = time.perf_counter() - t0
            return sec, checks_w5(r.to_numpy()), extra
        st = _starts(n, PART)
        import pandas as pd
        divs = [pd.Timestamp(gen_w5(a, a + 1)[0][0]) for a, _ in st] + [pd.Timestamp(gen_w5(n - 1, n)[0][0])]
        ddf = dd.from_map(lambda ab: pd_w5(*ab, time_index=True), st, divisions=divs).persist()
        extra["method"] = "ddf['v'].rolling('1h').mean().compute() on a DatetimeIndex, %d partitions" % ddf.npartitions
        t0 = time.perf_counter()
        r = ddf["v"].rolling("1h").mean().compute()
        sec = time.perf_counter() - t0
        return sec, checks_w5(r.to_numpy()), extra


RUNNERS = {"pandas": run_pandas, "polars": run_polars, "duckdb": run_duckdb, "dask-threaded": run_dask}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("workload", choices=["W3", "W4", "W5-1000", "W5-1h"])
    r.add_argument("impl", choices=list(RUNNERS))
    r.add_argument("--rows", type=int, default=20_000_000)
    r.add_argument("--right-rows", type=int, default=2_000_000)
    args = ap.parse_args()
    sec, checks, extra = RUNNERS[args.impl](args.workload, args.rows, args.right_rows)
    size = {"rows": args.rows}
    if args.workload == "W4":
        size["right_rows"] = args.right_rows
    rec = {"workload": args.workload, "impl": args.impl, "seconds": sec, "peak_rss_bytes": self_peak_rss(),
           "checks": checks, "size": size, "python": sys.version.split()[0], "numpy": np.__version__}
    rec.update(extra)
    print(json.dumps(rec))


if __name__ == "__main__":
    main()
