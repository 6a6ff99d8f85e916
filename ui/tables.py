"""Cached results shared by every visitor, and their CSV downloads.

Memory per visitor stays small because nothing is copied per session:

* :func:`table` caches a function's result once per setting in a store shared
  by every session (:mod:`ui.cache`: the same object for every session, as
  ``st.cache_resource`` would give, bounded by bytes as well as entries;
  ``st.cache_data`` would hand each run its own unpickled copy). Results are
  read-only.
* :func:`prose` caches what a page writes from such results (sentences, a table
  with its columns renamed) once per setting and language, in the same store.
* :func:`download` gives the download button a small recipe (function name and
  arguments), not the table: the CSV bytes are made on click from the cached
  result and cached themselves, per setting, in a bounded cache, so 30
  downloads of one table write it once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

# the one CSV writer and reader (rope_core: a notebook writes the same bytes); ui.read_csv
from rope_core.support.frames import csv_bytes, read_csv  # noqa: F401

from . import cache, formatting, record
from .i18n import _, integer, lang

CACHE_ENTRIES = 32  # results kept per cached function (least recently used goes)
CSV_ENTRIES = 8  # CSV files kept in memory
CSV_BYTES = 48 * cache.MIB  # ... and at most this many bytes of them
CSVS = cache.Shared("csv", CSV_BYTES)
MAX_CSV_CELLS = 2**20  # rows x columns of any one download (about 20 MB of CSV)

_TABLES: dict[str, Callable] = {}


def table(fn: Callable | None = None, *, max_entries: int = CACHE_ENTRIES):
    """Cache ``fn`` (a function of plain numbers, strings and tuples) for every
    session, bounded to ``max_entries`` settings (and by bytes, with every other
    table: :data:`ui.cache.TABLES`), and register it for CSVs."""
    def wrap(f: Callable) -> Callable:
        # pages all run as __main__: their file tells their functions apart
        name = f"{f.__module__}:{f.__code__.co_filename}.{f.__qualname__}"

        @functools.wraps(f)
        def cached(*args, **kwargs):
            return cache.TABLES.get(name, cache.key_of(args, kwargs),
                                    lambda: f(*args, **kwargs), max_entries)
        cached.table_name = name
        cached.clear = lambda: cache.TABLES.clear(name)
        _TABLES[name] = cached
        return cached
    return wrap(fn) if fn is not None else wrap


def prose(fn: Callable | None = None, *, max_entries: int = CACHE_ENTRIES):
    """Cache ``fn``, a function of plain numbers, strings and tuples that writes text
    with ``_`` (a string, or a tuple of strings), for every session: once per setting
    and language (:data:`ui.cache.TABLES`). For text a page would otherwise build again
    on every run from a cached table, row by row (a model's card, a list of models)."""
    def wrap(f: Callable) -> Callable:
        name = f"{f.__module__}:{f.__code__.co_filename}.{f.__qualname__}"

        @functools.wraps(f)
        def in_language(*args, **kwargs):
            return cache.TABLES.get(name, (lang(), cache.key_of(args, kwargs)),
                                    lambda: f(*args, **kwargs), max_entries)
        in_language.clear = lambda: cache.TABLES.clear(name)
        return in_language
    return wrap(fn) if fn is not None else wrap


def _cached_csv(name: str, args: tuple, part: str | None) -> bytes:
    def write() -> bytes:
        result = _TABLES[name](*args)
        return csv_bytes(result if part is None else result[part])
    return CSVS.get(name, cache.key_of((args, part), {}), write, CSV_ENTRIES)


def _result(fn: Callable, args: tuple, part: str | None) -> pd.DataFrame:
    result = fn(*args)
    return result if part is None else result[part]


_INTS = (np.int8, np.int16, np.int32)
_UTF8 = pd.ArrowDtype(pa.string())


def view(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as :func:`download` shows it (``st.dataframe``), in fewer bytes and the
    very same cells: every 64-bit integer column in the narrowest integer type that
    holds its values (int8, int16 or int32), and every text column as Arrow's ``string``
    with 32-bit offsets instead of pandas' ``large_string`` (64-bit offsets; Streamlit's
    grid draws both as text). Sinusoidal's table of positions, dimensions and settings
    crosses the wire in 40 % of its bytes. Other columns are kept as they are, and the
    CSV is written from the table itself."""
    narrow = {}
    for name, col in df.items():
        if not len(col):
            continue
        if isinstance(col.dtype, np.dtype) and col.dtype.kind == "i" and col.dtype.itemsize > 4:
            low, high = col.min(), col.max()
            narrow[name] = next((t for t in _INTS
                                 if np.iinfo(t).min <= low and high <= np.iinfo(t).max), None)
        elif isinstance(col.dtype, pd.StringDtype) and col.dtype.storage == "pyarrow" \
                and col.str.len().sum() < 2**31 - 1:  # what 32-bit offsets can reach
            narrow[name] = _UTF8
    narrow = {k: t for k, t in narrow.items() if t is not None}
    return df.astype(narrow) if narrow else df


def download(fn: Callable, *args, filename: str, label: str, key: str,
             part: str | None = None) -> None:
    """A CSV download of the table ``fn(*args)`` (or its entry ``part``, for a
    function returning a dict of tables) and an optional view of it. ``label``
    names the table in the run's language ("θ table"); the CSV's columns
    stay English (programs read them).

    ``fn`` must be decorated with :func:`table`. The button carries only the
    recipe; the bytes are written on the first click and cached per setting.
    """
    if getattr(fn, "table_name", None) not in _TABLES:
        raise TypeError(f"{fn!r} is not a @ui.table function")
    df = _result(fn, args, part)
    rows, cols = df.shape
    offered = rows * cols <= MAX_CSV_CELLS
    record.note("csv", key, dict(fn=fn, args=args, part=part, filename=filename, label=label,
                                 offered=offered))
    row = formatting.row(vertical_alignment="center", gap="medium")
    button = _("Download {table} (CSV)").format(table=label)
    if not offered:
        row.button(button, disabled=True, key=f"csv_{key}",
                   help=_("{rows} × {cols} values is more than the {most} one download may "
                          "hold: choose a smaller setting.").format(
                       rows=integer(rows), cols=cols, most=integer(MAX_CSV_CELLS)))
    else:
        row.download_button(button,
                            data=functools.partial(_cached_csv, fn.table_name, args, part),
                            file_name=filename, mime="text/csv", on_click="ignore",
                            key=f"csv_{key}", icon=":material/download:",
                            help=_("{rows} rows × {cols} columns: {file}").format(
                                rows=integer(rows), cols=cols, file=filename))
    if row.toggle(_("Show the {table} ({rows} rows)").format(table=label, rows=integer(rows)),
                  key=f"show_{key}"):
        if lang() != "en":  # the table is the CSV: say why its columns are English
            st.caption(_("Column names stay in English, as in the CSV file, so that programs "
                         "can read them."))
        st.dataframe(_kept_view(fn, args, part, df), hide_index=True, width="stretch",
                     height=320)


def _kept_view(fn: Callable, args: tuple, part: str | None, df: pd.DataFrame) -> pa.Table:
    """:func:`view` of the table ``fn(*args)`` (its ``part``) as an Arrow table
    (:func:`arrow`), made when a visitor first opens it and kept with the tables, so
    that the runs that show it again (every change while it is open) neither narrow its
    columns nor convert it to Arrow again."""
    return cache.TABLES.get(f"{fn.table_name} (view)", cache.key_of((args, part), {}),
                            lambda: arrow(view(df)), CACHE_ENTRIES)


def arrow(df: pd.DataFrame) -> pa.Table:
    """``df`` as the Arrow table that ``st.dataframe`` sends: given a DataFrame,
    Streamlit 1.67 converts it with ``pa.Table.from_pandas`` on every run (the same
    call, so the same bytes on the wire); given this table it only serialises it. For a
    table shown on every run, made once per setting (:func:`prose`, :func:`table`)."""
    return pa.Table.from_pandas(df)
