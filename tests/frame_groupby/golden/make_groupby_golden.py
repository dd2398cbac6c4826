"""Golden values of tests/frame_groupby/test_groupby_pandas.cpp, computed with pandas.

Regenerate from the repository root:  perf/.venv/bin/python tests/frame_groupby/golden/make_groupby_golden.py
(pandas 3.1.1 and numpy 2.4 in perf/.venv). It writes, next to this script:
  * input.csv: the input frame (header row; a null is an empty field; floats %.17g; t as int64 nanoseconds);
  * golden.csv: one line per case, `case,value,value,...`; a value is empty for a null (NaN, <NA>, NaT, None),
    floats are shortest round-trip (repr), integers integers, booleans True/False, strings as they are,
    timestamps int64 nanoseconds. A row-preserving case has one value per input row, in input order (slab aligns
    its result with the input); an aggregation case `agg.<name>.<column>` one value per group in pandas' sorted
    key order, under slab's column name.
The input is deterministic (numpy default_rng(1913)), so the files change only when pandas does.
"""
import math
import os

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
N = 80
rng = np.random.default_rng(1913)
i = np.arange(N)

k = pd.array(rng.integers(0, 6, N), dtype="Int64")
k[(i % 13) == 4] = pd.NA  # null keys
s = pd.Series(np.array(["ann", "bob", "cid", "dee"], dtype=object)[rng.integers(0, 4, N)], dtype="str")
s[(i % 11) == 6] = np.nan
x = np.round(rng.normal(0.0, 10.0, N), 3) + rng.uniform(0, 1e-3, N)  # full-precision floats
x[(i % 7) == 2] = np.nan
x[(i % 29) == 17] = 0.0
v = rng.integers(-3, 4, N)  # int64, small (cumprod stays exact)
b = rng.integers(0, 2, N).astype(bool)
hot = np.where(rng.uniform(0, 1, N) < 0.7, 7, rng.integers(0, 30, N))  # one key holds ~70% of the rows
u = rng.permutation(N)  # all-distinct keys
one = np.zeros(N, dtype=np.int64)  # a single group
t = pd.Timestamp("2024-01-01") + pd.to_timedelta(np.cumsum(rng.integers(1, 5, N)), unit="min")
t = pd.Series(t)
t[(i % 17) == 9] = pd.NaT
df = pd.DataFrame({"k": k, "s": s, "x": x, "v": v, "b": b, "hot": hot, "u": u, "one": one, "t": t})

out = []


def fmt(val):
    if val is None or val is pd.NA or val is pd.NaT:
        return ""
    if isinstance(val, (bool, np.bool_)):
        return "True" if val else "False"
    if isinstance(val, pd.Timestamp):
        return str(val.value)
    if isinstance(val, (int, np.integer)):
        return str(int(val))
    if isinstance(val, (float, np.floating)):
        return "" if math.isnan(val) else repr(float(val))
    return str(val)


def put(case, values):
    out.append(",".join([case] + [fmt(val) for val in list(values)]))


# Row-preserving operations, by key: an int64 key with nulls (dropped), the same with dropna=False, a string key
# with nulls, two keys, a hot key, all-distinct keys and one group.
groupers = {
    "k": df.groupby("k"),
    "kna": df.groupby("k", dropna=False),
    "s": df.groupby("s"),
    "sna": df.groupby("s", dropna=False),
    "ks": df.groupby(["k", "s"]),
    "hot": df.groupby("hot"),
    "u": df.groupby("u"),
    "one": df.groupby("one"),
}
for name, g in groupers.items():
    put(f"{name}.cumsum.x", g["x"].cumsum())
    put(f"{name}.cumsum.v", g["v"].cumsum())
    put(f"{name}.cumcount", g.cumcount())
    put(f"{name}.shift1.x", g["x"].shift(1))
    put(f"{name}.transform.mean.x", g["x"].transform("mean"))
    put(f"{name}.transform.median.x", g["x"].transform("median"))

g = groupers["k"]
put("k.cumprod.v", g["v"].cumprod())
put("k.cummin.x", g["x"].cummin())
put("k.cummax.v", g["v"].cummax())
put("k.cummax.b", g["b"].cummax())
put("k.cumsum.b", g["b"].cumsum())
put("k.cumcount.desc", g.cumcount(ascending=False))
put("k.shiftm1.x", g["x"].shift(-1))
put("k.shift1.s", g["s"].shift(1))
put("k.shift1.t", g["t"].shift(1))
put("k.shift1.b", g["b"].shift(1))
put("k.diffm2.v", g["v"].diff(-2))
put("k.ffill.x", g["x"].ffill())
put("k.bfill.s", g["s"].bfill())
put("k.ffill.t", g["t"].ffill())
for op in ["sum", "mean", "count", "size", "min", "max", "std", "var", "first", "last", "nunique", "median"]:
    put(f"k.transform.{op}.x", g["x"].transform(op))
for op in ["sum", "mean", "min", "max", "std", "median", "first", "nunique"]:
    put(f"k.transform.{op}.v", g["v"].transform(op))
put("k.transform.q0.9.x", g["x"].transform(lambda c: c.quantile(0.9)))
put("k.transform.first.s", g["s"].transform("first"))
put("k.transform.max.s", g["s"].transform("max"))
put("k.transform.count.s", g["s"].transform("count"))
put("k.transform.min.t", g["t"].transform("min"))
put("k.transform.sum.b", g["b"].transform("sum"))
put("k.shift2.v", g["v"].shift(2))
put("k.diff1.x", g["x"].diff(1))
put("k.transform.sum.v2", g["v"].transform("sum"))
for w, mp in [(3, None), (2, 1)]:
    tag = f"rolling{w}" + ("" if mp is None else f"mp{mp}")
    for op in ["mean", "sum", "min", "max", "std", "var", "count"]:
        put(f"k.{tag}.{op}.x", g["x"].transform(lambda c: getattr(c.rolling(w, min_periods=mp), op)()))
put("k.rolling3.sum.v", g["v"].transform(lambda c: c.rolling(3).sum()))
put("ks.rolling3.mean.x", groupers["ks"]["x"].transform(lambda c: c.rolling(3).mean()))
put("hot.rolling4mp2.std.x", groupers["hot"]["x"].transform(lambda c: c.rolling(4, min_periods=2).std()))

# Aggregations with median and quantile: keys as columns, sorted by key (nulls dropped or, dropna=False, last).
def put_agg(name, frame, rename=None):
    frame = frame.reset_index().rename(columns=rename or {})
    for c in frame.columns:
        put(f"agg.{name}.{c}", frame[c])


def q(p):
    return lambda c: c.quantile(p)


put_agg("k", df.groupby("k").agg(x_median=("x", "median"), x_mean=("x", "mean"), x_q=("x", q(0.9)),
                                 v_median=("v", "median"), v_sum=("v", "sum"), v_q=("v", q(0.25))),
        {"x_q": "x_q0.9", "v_q": "v_q0.25"})
put_agg("ks", df.groupby(["k", "s"]).agg(x_median=("x", "median"), size=("x", "size"), b_median=("b", "median")))
put_agg("sna", df.groupby("s", dropna=False).agg(x_median=("x", "median"), x_q0=("x", q(0.0)), x_q1=("x", q(1.0))))
put_agg("hot", df[["hot", "x", "v"]].groupby("hot").median(), {"x": "x_median", "v": "v_median"})
put_agg("one", df[["one", "x", "v"]].groupby("one").quantile(0.3), {"x": "x_q0.3", "v": "v_q0.3"})
put_agg("u", df.groupby("u").agg(x_median=("x", "median"), x_count=("x", "count")))

with open(os.path.join(HERE, "golden.csv"), "w") as f:
    f.write("\n".join(out) + "\n")
inp = df.copy()
inp["t"] = [("" if pd.isna(val) else str(val.value)) for val in df["t"]]
inp.to_csv(os.path.join(HERE, "input.csv"), index=False, float_format="%.17g", na_rep="", lineterminator="\n")
print(f"pandas {pd.__version__}: {len(out)} golden cases")
