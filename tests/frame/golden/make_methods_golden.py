"""Golden values of test_frame_methods.cpp (FrameMethods.MatchesPandas), computed with pandas.

Regenerate from the repository root:  perf/.venv/bin/python tests/frame/golden/make_methods_golden.py
It writes tests/frame/golden/methods.csv: one line per value, `what,row,value` (%.17g; nan for NaN).
The input is the test's reference_table() (keep the two in step).
"""
import math
import os

import numpy as np
import pandas as pd

H = 3_600_000_000_000
df = pd.DataFrame({
    "id": [5, 3, 5, 1, 3, 5, 7, 1, 2, 5],
    "name": ["b", "a", "c", "b", "a", "b", None, "b", "c", "a"],
    "x": [1.0, np.nan, 2.5, -1.0, 4.0, 0.5, 3.0, 2.0, np.nan, 1.0],
    "y": [10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
    "t": pd.to_datetime([0, H // 2, H, 3 * H, 3 * H + 1, 4 * H, 6 * H, 6 * H + 5, 7 * H, 9 * H], unit="ns"),
})

out = []


def put(what, values):
    for i, v in enumerate(values):
        v = float(v)
        out.append(f"{what},{i},{'nan' if math.isnan(v) else format(v, '.17g')}")


g = df.groupby(["id", "name"]).agg(x_mean=("x", "mean"), x_sum=("x", "sum"), x_count=("x", "count"),
                                   x_std=("x", "std"), y_min=("y", "min"), y_max=("y", "max")).reset_index()
for c in ["id", "x_mean", "x_sum", "x_count", "x_std", "y_min", "y_max"]:
    put("groupby." + c, g[c])
put("rolling3.sum", df["x"].rolling(3).sum())
put("rolling3mp2.sum", df["x"].rolling(3, min_periods=2).sum())
put("rolling3.count", df["x"].rolling(3).count())
put("rolling2h.mean", df.rolling("2h", on="t")["x"].mean())
put("rolling2hmp2.var", df.rolling("2h", on="t", min_periods=2)["x"].var())
put("rolling2h.max", df.rolling("2h", on="t")["x"].max())
x = df["x"]
put("series.x", [x.sum(), x.mean(), x.std(), x.var(), x.min(), x.max(), x.count(), x.nunique()])

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "methods.csv")
with open(path, "w") as f:
    f.write(f"# pandas {pd.__version__}: perf/.venv/bin/python tests/frame/golden/make_methods_golden.py\n")
    f.write("\n".join(out) + "\n")
