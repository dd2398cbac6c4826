#!/usr/bin/env python3
"""Generate the pandas golden files of tests/frame_golden (test_frame_golden.cpp).

Produced with pandas 3.1.1 (numpy as installed alongside it in perf/.venv). Regenerate from the repository root:

    perf/.venv/bin/python tests/frame_golden/generate_goldens.py

The input is deterministic (numpy default_rng(20240601)); running the script again with the same pandas and
numpy rewrites identical files. Output conventions, relied on by the C++ test:
  * one header row, comma separated, no quoting needed (no value contains ',' or '"');
  * a null (NaN, <NA>, NaT, missing string) is an empty field; the input has no empty strings;
  * floats with '%.17g' (round trip exact); timestamps in results as int64 nanoseconds since the epoch;
  * row order is pandas' order, except where slab documents another order (noted per file below); for
    merge and drop_duplicates slab's order is unspecified and the test sorts both sides before comparing.
"""
import os

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = ["ann", "bob", "cid", "dee", "eve"]


def write(df, name, timestamps_as_ns=True):
    out = df.copy()
    for c in out.columns:
        if timestamps_as_ns and pd.api.types.is_datetime64_any_dtype(out[c]):
            ns = out[c].astype("datetime64[ns]").astype("int64").astype("Int64")
            ns[out[c].isna()] = pd.NA
            out[c] = ns
    for c in out.columns:
        if out[c].dtype == object or pd.api.types.is_string_dtype(out[c]):
            vals = out[c].dropna().astype(str)
            assert not vals.str.contains('[,"\n]').any() and not (vals == "").any(), (name, c)
    out.to_csv(os.path.join(HERE, name), index=False, float_format="%.17g", na_rep="", lineterminator="\n")


def make_input(n=200):
    rng = np.random.default_rng(20240601)
    i = np.arange(n)
    k1 = pd.array(rng.integers(0, 7, n), dtype="Int64")
    k1[(i % 23) == 5] = pd.NA
    s = pd.Series(np.array(NAMES, dtype=object)[rng.integers(0, 5, n)], dtype="str")
    s[(i % 19) == 7] = np.nan
    x = np.round(rng.normal(0.0, 10.0, n), 6) + rng.uniform(0, 1e-3, n)  # full-precision floats
    x[(i % 17) == 4] = np.nan
    y = rng.uniform(0.0, 1.0, n)
    v = rng.integers(-50, 50, n)
    steps = rng.choice([1, 1, 1, 2, 3], n)  # minutes, irregular so the time window size varies
    steps[0] = 0
    t = pd.Timestamp("2024-01-01 00:00:00") + pd.to_timedelta(np.cumsum(steps), unit="min")
    return pd.DataFrame({"k1": k1, "s": s, "x": x, "y": y, "v": pd.array(v, dtype="Int64"), "t": t})


def make_merge_inputs():
    left = pd.DataFrame({
        "k": pd.array([0, 1, 2, 2, 3, 5, 5, 5, 7, 8, 9, None], dtype="Int64"),  # null key only on the left
        "a": [0.5, 1.25, -2.0, 3.5, np.nan, 5.125, 6.0, -7.75, 8.5, 9.0, 10.5, 11.0],
        "s": pd.Series(["p", "q", "r", None, "t", "u", "v", "w", "x", "y", "z", "n"], dtype="str"),
    })
    right = pd.DataFrame({
        "k": pd.array([2, 2, 3, 5, 5, 6, 8, 10, 11, 11], dtype="Int64"),
        "b": [20.0, 21.5, np.nan, 50.25, 51.0, 60.5, 80.0, 100.0, 110.5, 111.0],
        "c": pd.array([1, 2, 3, None, 5, 6, 7, 8, 9, 10], dtype="Int64"),
        "s": pd.Series(["A", "B", "C", "D", None, "F", "G", "H", "I", "J"], dtype="str"),
    })
    return left, right


def make_inf_input(n=160):
    """x with NaN, +inf and -inf mixed (singly, in runs, +inf next to -inf) at irregular 1-9 minute steps, so
    that row windows of 5 and 7 and '1h' windows hold infinities, NaNs and partition/rank boundaries."""
    rng = np.random.default_rng(20240602)
    x = np.round(rng.normal(0.0, 10.0, n), 6) + rng.uniform(0, 1e-3, n)
    i = np.arange(n)
    x[(i % 13) == 3] = np.inf
    x[(i % 17) == 8] = -np.inf
    x[(i % 11) == 6] = np.nan
    x[40:46] = [np.inf, np.inf, -np.inf, np.nan, np.inf, -np.inf]  # a run of mixed non-finite values
    x[90:100] = np.inf  # longer than every row window and than some '1h' windows
    steps = rng.integers(1, 10, n)
    steps[0] = 0
    t = pd.Timestamp("2024-03-01 00:00:00") + pd.to_timedelta(np.cumsum(steps), unit="min")
    return pd.DataFrame({"x": x, "t": t})


def write_inf_goldens():
    # pandas >= 2 treats +-inf as NaN in every rolling aggregation except count (BaseWindow._prep_values).
    df = make_inf_input()
    write(df, "inf_input.csv", timestamps_as_ns=False)
    aggs = ["mean", "sum", "std", "min", "max", "count"]
    def table(r):
        return pd.DataFrame({f"x_{a}": getattr(r, a)() for a in aggs})
    write(table(df["x"].rolling(5)), "rolling_inf_5.csv")
    write(table(df["x"].rolling(7, min_periods=3)), "rolling_inf_7_minp3.csv")
    write(table(df.rolling("1h", on="t")["x"]), "rolling_inf_1h_t.csv")
    write(table(df.rolling("1h", on="t", min_periods=3)["x"]), "rolling_inf_1h_minp3_t.csv")


def main():
    write_inf_goldens()
    df = make_input()
    write(df, "input.csv", timestamps_as_ns=False)  # ISO text, parsed by read_csv

    # groupby(['k1', 's']).agg(...) as_index=False, sorted, null keys dropped; slab names "<col>_<op>", "size".
    g = df.groupby(["k1", "s"], dropna=True, sort=True)
    gb = g.agg(
        x_sum=("x", "sum"), x_mean=("x", "mean"), x_count=("x", "count"), x_min=("x", "min"),
        x_max=("x", "max"), x_std=("x", "std"), x_var=("x", "var"), x_first=("x", "first"),
        x_last=("x", "last"), x_nunique=("x", "nunique"), v_sum=("v", "sum"), v_min=("v", "min"),
        v_max=("v", "max"), v_first=("v", "first"), size=("y", "size"),
    ).reset_index()
    write(gb, "groupby_k1_s.csv")
    # groupby('s', dropna=False): the null group is kept, sorted last.
    gs = df.groupby("s", dropna=False, sort=True).agg(
        y_sum=("y", "sum"), y_mean=("y", "mean"), x_count=("x", "count"), k1_nunique=("k1", "nunique"),
        t_min=("t", "min"), t_max=("t", "max"), size=("y", "size")).reset_index()
    write(gs, "groupby_s_keepna.csv")

    # merge: duplicate keys on both sides, clashing column 's' -> s_x/s_y, a null key on the left only.
    left, right = make_merge_inputs()
    write(left, "merge_in_left.csv")
    write(right, "merge_in_right.csv")
    for how in ["inner", "left", "right", "outer"]:
        m = left.merge(right, on="k", how=how, suffixes=("_x", "_y"))
        write(m, f"merge_{how}.csv")  # order compared after sorting both sides

    # sort_values(['s', 'x'], ascending=[True, False]), stable, nulls last / first.
    for pos in ["last", "first"]:
        srt = df.sort_values(["s", "x"], ascending=[True, False], na_position=pos, kind="stable")
        write(srt, f"sort_s_asc_x_desc_na{pos}.csv")

    # rolling on x: fixed rows (5; 7 with min_periods=3) and a time window of 10 minutes on t.
    # count applies min_periods to the rows in the window, NaN included (rolling(5).count() is 4.0 for a
    # full window holding one NaN, 0.0 for an all-NaN window).
    r5 = df["x"].rolling(5)
    write(pd.DataFrame({"x_mean": r5.mean(), "x_sum": r5.sum(), "x_std": r5.std(), "x_min": r5.min(),
                        "x_max": r5.max(), "x_count": r5.count()}), "rolling_5.csv")
    r7 = df["x"].rolling(7, min_periods=3)
    write(pd.DataFrame({"x_mean": r7.mean(), "x_std": r7.std(), "x_count": r7.count()}), "rolling_7_minp3.csv")
    rt = df.rolling("10min", on="t")["x"]
    write(pd.DataFrame({"x_mean": rt.mean(), "x_sum": rt.sum(), "x_std": rt.std(), "x_min": rt.min(),
                        "x_max": rt.max(), "x_count": rt.count()}), "rolling_10min_t.csv")

    # value_counts: slab orders by count descending, then value ascending (pandas' tie order is first
    # appearance), so the golden is sorted that way explicitly.
    for col in ["s", "k1"]:
        vc = df[col].value_counts(dropna=True).rename("count").reset_index()
        vc = vc.sort_values(["count", col], ascending=[False, True], kind="stable")
        write(vc, f"value_counts_{col}.csv")

    # drop_duplicates(subset=['k1', 's'], keep='first') (nulls equal to nulls); compared after sorting.
    write(df.drop_duplicates(subset=["k1", "s"], keep="first"), "drop_duplicates_k1_s.csv")

    # cumsum of x, v and k1 (nulls skipped, stay null); other columns unchanged.
    cs = df.copy()
    cs[["k1", "x", "v"]] = df[["k1", "x", "v"]].cumsum()
    write(cs, "cumsum.csv")

    # shift(3), shift(-2) of every column; diff(1) of the int64/float64 columns (others unchanged).
    write(df.shift(3), "shift_3.csv")
    write(df.shift(-2), "shift_m2.csv")
    d = df.copy()
    d[["k1", "x", "y", "v"]] = df[["k1", "x", "y", "v"]].diff(1)
    write(d, "diff_1.csv")

    # fillna per column; dropna on a subset and on all columns.
    write(df.fillna({"x": 0.0}), "fillna_x.csv")
    write(df.fillna({"s": "zz"}), "fillna_s.csv")
    write(df.fillna({"k1": -1}), "fillna_k1.csv")
    write(df.dropna(subset=["x", "s"]), "dropna_x_s.csv")
    write(df.dropna(), "dropna_all.csv")

    # describe() of the int64/float64 columns; the first column holds the row labels.
    ds = df[["k1", "x", "y", "v"]].astype("float64").describe()
    ds.index.name = "stat"
    write(ds.reset_index(), "describe.csv")


if __name__ == "__main__":
    main()
