"""Golden values of test_array_numpy.cpp (ArrayNumpy.MatchesNumPy), computed with NumPy.

Regenerate from the repository root:  perf/.venv/bin/python tests/array/golden/make_numpy_golden.py
It writes tests/array/golden/numpy_ops.csv: one line per value, `what,index,value` (%.17g; nan for NaN), and
for each result its shape as `what.shape,axis,extent` lines. The inputs are the test's x_value, i_value and
vec_value (keep the three in step with the functions below).
"""
import math
import os

import numpy as np


def x_value(i, j):  # 7 x 5 float64 with ties and three NaN (flat indices 4, 17, 30)
    return math.nan if (i * 5 + j) % 13 == 4 else float((i * 7 + j * 3) % 11 - 5)


def i_value(i, j):  # 6 x 4 int64 with ties
    return (i * 5 + j * 7) % 9 - 4


def vec_value(seed, k):  # 1-D float64 vectors
    return float((k * 3 + seed * 5) % 7 - 3)


X = np.array([[x_value(i, j) for j in range(5)] for i in range(7)])
I = np.array([[i_value(i, j) for j in range(4)] for i in range(6)], dtype=np.int64)
u, v, w = (np.array([vec_value(s, k) for k in range(5)]) for s in (1, 2, 3))
c7 = np.array([vec_value(4, k) for k in range(7)])
J = np.array([2_000_000_000 - 1000 * k for k in range(5)], dtype=np.int32)

out = []


def put(what, a):
    a = np.asarray(a)
    for axis, n in enumerate(a.shape):
        out.append(f"{what}.shape,{axis},{n}")
    for k, val in enumerate(a.ravel()):
        val = float(val)
        out.append(f"{what},{k},{'nan' if math.isnan(val) else format(val, '.17g')}")


put("reshape_5x7", X.reshape(5, 7))
put("reshape_m1x35", X.reshape(-1, 35))
put("reshape_35", X.reshape(-1))
put("reshape_35x1", X.reshape(35, 1))
put("ravel_T", X.T.ravel())
put("concat0", np.concatenate([X, X[:2]], axis=0))
put("concat1", np.concatenate([X, X[:, :2], X[:, 4:]], axis=1))
put("concat_1d", np.concatenate([u, v[:2], w]))
put("stack0", np.stack([u, v, w], axis=0))
put("stack1", np.stack([u, v, w], axis=1))
put("vstack", np.vstack([u, X[:3], v]))
put("hstack_1d", np.hstack([u, w]))
put("hstack_2d", np.hstack([X, X[:, 1:3]]))
put("column_stack", np.column_stack([c7, X, c7]))
put("argmax0", np.argmax(X, axis=0))
put("argmax1", np.argmax(X, axis=1))
put("argmin0", np.argmin(X, axis=0))
put("argmin1", np.argmin(X, axis=1))
put("argmaxT1", np.argmax(X.T, axis=1))
put("iargmax0", np.argmax(I, axis=0))
put("iargmax1", np.argmax(I, axis=1))
put("iargmin0", np.argmin(I, axis=0))
put("iargmin1", np.argmin(I, axis=1))
put("mask_pos", X[X > 0])
put("mask_rows", X[X[:, 1] > 0])
put("imask_even", I[I % 2 == 0])
put("count_pos", [np.count_nonzero(X > 0)])
put("where_a0", np.where(X > 0, X, 0.0))
put("where_1a", np.where(X > 0, -1.0, X))
put("where_10", np.where(X > 0, 1.0, 0.0))
put("i32_sum", [J.sum()])
assert J.sum().dtype == np.int64 and np.cumsum(J).dtype == np.int64
put("i32_cumsum", np.cumsum(J))

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "numpy_ops.csv")
with open(path, "w") as f:
    f.write(f"# numpy {np.__version__}: perf/.venv/bin/python tests/array/golden/make_numpy_golden.py\n")
    f.write("\n".join(out) + "\n")
print(f"wrote {len(out)} values to {path}")
