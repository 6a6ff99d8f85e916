"""Tidy tables (pandas DataFrames): the one way every module turns tensors into the
table behind a plot, the CSV a visitor downloads.

Every table describes itself: the settings that produced it come first, as
constant columns (base, dim, layout, seed, ...), so that a CSV read on its own
says what it is and tables for several settings concatenate into one. Column
names are plain ASCII; a unit is written in square brackets only where there is
one ("theta_i [rad/token]", "distance [tokens]"; a score has none). Integers are
stored as integers, and a matrix is stored in long form (one row per cell).

A table leaves as a CSV file through :func:`csv_bytes` (or :func:`write_csv`, which
writes those bytes to a file) and comes back through :func:`read_csv`: the app's
download buttons and the notebooks that recompute a page write the same bytes.
"""

from __future__ import annotations

import io
import math
from numbers import Integral, Real
from pathlib import Path

import numpy as np
import pandas as pd
import torch


def _plain(value):
    """A setting as a CSV cell: whole floats become ints (10000.0 -> 10000)."""
    if isinstance(value, bool) or isinstance(value, (str, Integral)):
        return value
    if isinstance(value, Real) and math.isfinite(value) and float(value).is_integer():
        return int(value)
    return value


_STR = pd.Series(["x"]).dtype  # pandas' own dtype for a column of strings
_ARROW_STR = getattr(_STR, "storage", None) == "pyarrow"


def _column(value, rows: int):
    """``value`` as a column of ``rows`` rows, of the dtype pandas would give it, made
    without pandas' per-element path where that is slow: a constant setting as one
    filled array, a list of strings handed to Arrow at once (pandas' str dtype keeps
    its strings in Arrow; building that column value by value cost about 0.1 µs a
    row, 7 ms for the 65,536 rows of a sinusoidal table). Anything else is returned
    as it is, for pandas."""
    if isinstance(value, bool):
        return np.full(rows, value, dtype=bool)
    if isinstance(value, int) and -2**63 <= value < 2**63:
        return np.full(rows, value, dtype=np.int64)
    if isinstance(value, float):
        return np.full(rows, value, dtype=np.float64)
    if not _ARROW_STR:
        return value
    import pyarrow as pa

    if isinstance(value, str):
        one = pa.array([value], type=pa.large_string())
        return pd.array(one.take(pa.array(np.zeros(rows, dtype=np.int32))), dtype=_STR)
    if isinstance(value, list) and value and isinstance(value[0], str):
        try:
            strings = pa.array(value, type=pa.large_string())
        except (pa.ArrowTypeError, pa.ArrowInvalid):  # not all strings: pandas decides
            return value
        if strings.null_count == 0:
            return pd.array(strings, dtype=_STR)
    return value


def labels(names: list[str], codes) -> object:
    """A column of strings that repeats a few labels: row r is ``names[codes[r]]``.

    The column pandas makes of ``[names[c] for c in codes]``, made as one Arrow
    take of the few ``names`` instead of a Python string per row (Sinusoidal's
    "function" column at 131,072 rows: 2.7 -> 0.4 ms; Beyond RoPE's six encodings
    over 8,256 rows each: 2.5 -> 0.2 ms).

    Args:
        names: ``(k,)`` labels; codes: ``(rows,)`` integers in 0 ... k-1.
    Returns:
        ``(rows,)`` column for :func:`to_frame`.
    """
    codes = np.asarray(codes)
    if not _ARROW_STR:
        return list(np.asarray(names, dtype=object)[codes])
    import pyarrow as pa

    return pd.array(pa.array(names, type=pa.large_string()).take(codes.astype(np.int32)),
                    dtype=_STR)


def to_frame(columns: dict, **settings) -> pd.DataFrame:
    """One row per element; ``settings`` become constant leading columns.

    Tensors become numpy arrays (float64 stays exact, int64 stays integer).
    The frame is the one ``pd.DataFrame`` makes of the same dict, column for column
    (dtypes included); only constant settings and lists of strings are made faster
    (:func:`_column`).
    """
    data = {name: _plain(v) for name, v in settings.items()}
    data.update({name: (v.detach().cpu().numpy() if isinstance(v, torch.Tensor) else v)
                 for name, v in columns.items()})
    if all(not hasattr(v, "__len__") or isinstance(v, str) for v in data.values()):
        return pd.DataFrame([data])
    lengths = {len(v) for v in data.values() if hasattr(v, "__len__") and not isinstance(v, str)}
    if len(lengths) != 1:
        return pd.DataFrame(data)  # pandas says which lengths differ
    rows = lengths.pop()
    return pd.DataFrame({name: _column(v, rows) for name, v in data.items()})


def csv_bytes(df: pd.DataFrame) -> bytes:
    """``df`` as a UTF-8 CSV: a header row, then one line per row, its leading columns the
    settings that produced it; floats written to full round-trip precision (pandas'
    ``repr``), no index. Every CSV the app offers is these bytes."""
    buffer = io.StringIO()
    df.to_csv(buffer, index=False)
    return buffer.getvalue().encode("utf-8")


def write_csv(df: pd.DataFrame, path: str | Path) -> Path:
    """Write ``df`` to the file ``path`` as :func:`csv_bytes` writes it (the bytes the
    app's download button gives for the same table); returns the path."""
    path = Path(path)
    path.write_bytes(csv_bytes(df))
    return path


def read_csv(data: bytes) -> pd.DataFrame:
    """A CSV written by :func:`csv_bytes` read back exactly (the same columns, integers
    as integers, floats to the last bit)."""
    return pd.read_csv(io.BytesIO(data))
