"""Golden values of test_resample.cpp (FrameResample.MatchesPandas), computed with pandas' resample.

Regenerate from the repository root:  perf/.venv/bin/python tests/frame/golden/make_resample_golden.py
It writes tests/frame/golden/resample.csv: one line per value, `case,column,row,value`; `row` counts the result's
bins from 0; float values as %.17g, `nan` for NaN (pandas' NaN of an empty bin; slab gives a null outside float64
columns), strings as they are, timestamps as int64 nanoseconds. The input is the test's resample_input() (keep the
two in step): 40 rows in no particular time order, over four days of which the second has no row, with null
timestamps (dropped, as pandas drops NaT), NaN values and null strings.
"""
import math
import os

import numpy as np
import pandas as pd

N = 40
NS_MIN = 60 * 10**9
BASE = 19_793 * 86_400 * 10**9  # 2024-03-11


def minute(k):  # from 05:17 on the first day to the end of the fourth, nothing on the second
    m = 317 + (k * k * 37 + k * 11) % 4003
    return m + 2880 if 1440 <= m < 2880 else m


def resample_input():
    nat = np.iinfo(np.int64).min
    t = np.array([nat if k % 11 == 3 else BASE + minute(k) * NS_MIN + (k % 3) * 10**9 for k in range(N)],
                 dtype=np.int64).view("datetime64[ns]")
    return pd.DataFrame({
        "t": t,
        "x": [math.nan if k % 7 == 2 else (k * 13 % 17) * 0.5 - 3 for k in range(N)],
        "i": np.array([(k * 7919) % 101 - 50 for k in range(N)], dtype=np.int64),
        "s": [None if k % 5 == 1 else "bacd"[k % 4] for k in range(N)],
    })


ALL_X = ["sum", "mean", "count", "size", "min", "max", "std", "var", "first", "last", "nunique"]
ALL_I = ["sum", "mean", "min", "max", "first", "last"]
ALL_S = ["count", "first", "last", "nunique", "min", "max"]
FEW = {"x": ["sum", "count", "mean", "max"], "i": ["sum", "size"]}
# case name -> (freq, {column: ops})
CASES = {
    "1h": ("1h", {"x": ALL_X, "i": ALL_I, "s": ALL_S}),
    "45min": ("45min", FEW),
    "7h": ("7h", FEW),  # bins from midnight of the first day (pandas' origin='start_day'), not the epoch
    "2D": ("2D", FEW),
    "25min": ("25min", FEW),  # does not divide a day either
    "1D": ("1D", {"x": ALL_X, "i": ALL_I, "s": ALL_S}),
    "10D": ("10D", FEW),  # a single bin
}


def fmt(v):
    if isinstance(v, str):
        return v
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA or v is pd.NaT:
        return "nan"
    if isinstance(v, pd.Timestamp):
        return str(v.value)
    return format(float(v), ".17g")


def main():
    df = resample_input()
    out = []
    for name, (freq, aggs) in CASES.items():
        r = df.resample(freq, on="t").agg(aggs)
        out += [f"{name},t,{row},{ts.value}" for row, ts in enumerate(r.index)]
        for col, ops in aggs.items():
            for op in ops:
                values = r[(col, op)]
                label = "size" if op == "size" else f"{col}_{op}"
                out += [f"{name},{label},{row},{fmt(v)}" for row, v in enumerate(values)]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "resample.csv")
    with open(path, "w") as f:
        f.write(f"# pandas {pd.__version__}: perf/.venv/bin/python tests/frame/golden/make_resample_golden.py\n")
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
