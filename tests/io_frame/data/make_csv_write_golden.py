#!/usr/bin/env python3
"""pandas' to_csv bytes for test_csv_write.cpp (FrameCsvWrite.*), which builds the same frames in C++ and checks
that slab::io::write_csv writes the same bytes at every rank count.

Regenerate from the repository root:  perf/.venv/bin/python tests/io_frame/data/make_csv_write_golden.py
It writes, in tests/io_frame/data/:
  csv_write_default.csv   golden_frame().to_csv(index=False)
  csv_write_options.csv   the same with sep=";", na_rep="NA", float_format="%.4g", lineterminator="\\r\\n"
  csv_write_chunks.txt    chunk_frame().to_csv(index=False) as runs of equal lines, "<count> <line>" each:
                          100010 rows, to show that pandas picks a timestamp column's format per chunk of
                          100000 // ncols rows
The frames are defined here and in test_csv_write.cpp (golden_frame, chunk_frame): keep the two in step. Values
come from explicit lists and from splitmix64, whose integers both sides compute alike (floats from their bits or
by one exact division, never from libm).

A string with a bare carriage return is left out of the golden frame: CPython quotes it only from 3.11.9 / 3.12.3
on (gh-67044), so pandas' bytes depend on the Python it runs on (this venv's 3.11.7 writes it bare, which
read_csv then splits as a line end); the C++ test checks slab's quoting of it on its own.

With --check FILE it instead reads FILE (a file slab wrote from golden_frame) with pandas.read_csv and checks it
equals pandas' own reading of csv_write_default.csv.
"""
import os
import struct
import sys

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
M64 = (1 << 64) - 1
NS_DAY = 86_400 * 10**9
NS_HOUR = 3_600 * 10**9
BASE = 19_793 * NS_DAY  # 2024-03-11
N = 64


def splitmix64(x):
    z = (x + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def signed(u):
    return u - (1 << 64) if u >> 63 else u


F_SPECIAL = [0.1, 1e20, 1 / 3, -0.0, float("nan"), float("inf"), float("-inf"), 1e16, 1e15, 1e-4, 1e-5, 5e-324,
             1.7976931348623157e308, 2.2250738585072014e-308, 123456789.123, 1.0, 0.0, -2.5, 1e22,
             9007199254740993.0, 1.5e-323, 100.0, 1234567890123456.7, 0.000123, 2.0 / 3.0, -1e-7]
S_SPECIAL = ["a,b", 'q"x', "l\nm", "crlf\r\nx", " lead", "tail ", "é中文", "", None, "t\tab", "#", "'",
             "semi;colon", '""', "plain", "NA", "x;y,z\"w"]
I_SPECIAL = [0, 1, -1, 2**63 - 1, -(2**63), 42, -1000000007]


def f_value(k):
    if k < len(F_SPECIAL):
        return F_SPECIAL[k]
    u = splitmix64(k)
    if k % 2:
        return (u % 2_000_001 - 1_000_000) / 1000.0
    if (u >> 52) & 0x7FF == 0x7FF:  # no NaN or inf from the bits
        u &= ~(1 << 62)
    return struct.unpack("<d", struct.pack("<Q", u))[0]


def s_value(k):
    if k < len(S_SPECIAL):
        return S_SPECIAL[k]
    return None if k % 9 == 4 else f"w{k}"


def i_value(k):
    if k < len(I_SPECIAL):
        return I_SPECIAL[k]
    return signed(splitmix64(k + 500)) >> (k % 64)


def t_value(k):  # milliseconds at most; some before 1970; some null
    if k % 17 == 9:
        return None
    if k % 13 == 5:
        return -(k * 86_400 + 1) * 10**9 - 250_000_000
    return BASE + k * NS_HOUR + (k % 7) * 125_000_000


def tn_value(k):  # nanoseconds
    return BASE + k * 1_000_000_007


def d_value(k):  # dates only
    return None if k % 5 == 2 else BASE - k * 37 * NS_DAY


def timestamps(values):
    nat = np.iinfo(np.int64).min
    return np.array([nat if v is None else v for v in values], dtype=np.int64).view("datetime64[ns]")


def golden_frame():
    ks = range(N)
    return pd.DataFrame({
        "i": np.array([i_value(k) for k in ks], dtype=np.int64),
        "f": np.array([f_value(k) for k in ks], dtype=np.float64),
        "b": np.array([splitmix64(k + 1000) & 1 == 1 for k in ks]),
        'say "what", é': [s_value(k) for k in ks],
        "t": timestamps([t_value(k) for k in ks]),
        "tn": timestamps([tn_value(k) for k in ks]),
        "d": timestamps([d_value(k) for k in ks]),
        "in": pd.array([None if k % 4 == 1 else k * k - 500 for k in ks], dtype="Int64"),
        "bn": pd.array([None if k % 3 == 0 else k % 2 == 0 for k in ks], dtype="boolean"),
    })


CHUNK_ROWS = 100_010


def chunk_t(k):
    if k == 75_000:
        return BASE + 250_000_000
    if k == 100_005:
        return BASE + 12 * NS_HOUR
    return BASE


def chunk_frame():
    return pd.DataFrame({"t": timestamps([chunk_t(k) for k in range(CHUNK_ROWS)]),
                         "i": np.full(CHUNK_ROWS, 7, dtype=np.int64)})


def write_bytes(name, text):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(text.encode("utf-8"))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        ours = pd.read_csv(sys.argv[2])
        theirs = pd.read_csv(os.path.join(HERE, "csv_write_default.csv"))
        pd.testing.assert_frame_equal(ours, theirs)
        print("pandas reads", sys.argv[2], "as it reads its own file")
        return
    df = golden_frame()
    write_bytes("csv_write_default.csv", df.to_csv(index=False))
    write_bytes("csv_write_options.csv",
                df.to_csv(index=False, sep=";", na_rep="NA", float_format="%.4g", lineterminator="\r\n"))
    runs = []
    for line in chunk_frame().to_csv(index=False).split("\n")[:-1]:
        if runs and runs[-1][1] == line:
            runs[-1][0] += 1
        else:
            runs.append([1, line])
    write_bytes("csv_write_chunks.txt", "".join(f"{n} {line}\n" for n, line in runs))


if __name__ == "__main__":
    main()
