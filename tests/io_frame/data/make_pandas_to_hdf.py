#!/usr/bin/env python3
"""Write tests/io_frame/data/pandas_to_hdf.h5: one small frame saved by pandas' DataFrame.to_hdf (PyTables) in
both of its formats, key '/fixed' (format='fixed') and key '/table' (format='table'). slab refuses these groups
with a message naming pandas/PyTables (test_frame_hdf5.cpp, FrameHdf5.RefusesPandasToHdf).

Made with pandas 3.1.1, PyTables 3.11.1, numpy 2.4.6 in a private venv (pip install pandas==3.1.1 tables):

    python tests/io_frame/data/make_pandas_to_hdf.py

The test needs neither pandas nor PyTables: it reads the committed file.
"""
import os

import numpy as np
import pandas as pd

here = os.path.dirname(os.path.abspath(__file__))
path = os.path.join(here, "pandas_to_hdf.h5")
df = pd.DataFrame({
    "id": np.arange(5, dtype="int64"),
    "x": [0.5, np.nan, 2.5, 3.5, 4.5],
    "name": ["a", "b", "c", "d", "e"],
    "t": pd.date_range("2024-01-01", periods=5, freq="h"),
})
df.to_hdf(path, key="fixed", mode="w", format="fixed", complevel=9)
df.to_hdf(path, key="table", mode="a", format="table", index=False, complevel=9)
