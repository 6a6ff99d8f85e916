"""Results shared by every session, bounded by bytes as well as by entries.

``st.cache_resource`` bounds a cache by its number of entries only, and the
app's results differ in size by four orders of magnitude: a Sinusoidal table of
2¹⁷ rows is 7 MB, a Derivation check table a few kB. Thirty-two settings of every
function were fine for a class in lockstep (every student the same values);
a class that explores (issue 18) fills every cache with settings of its own.

:class:`Shared` is the store behind :func:`ui.table` and :func:`ui.figure`:
one least-recently-used list per store, each entry counted by its size
(:func:`size_of`), with at most ``max_entries`` entries per function and
``max_bytes`` in all; the oldest entries go first. A result larger than a
half of the budget is returned but not kept. Each result is computed once
even when several sessions ask for it at the same moment (a lock per key), and
every session gets the same object (nothing is copied per session: results
are read-only). The stores are process-wide, like ``st.cache_resource``.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd

MIB = 2**20
# At most this many results are computed at once in the whole process (one per
# core of a small host). A class that explores starts many cold computations in
# the same second; run together they only share the cores, and each holds its
# temporary arrays while it waits, so the peak memory (VmHWM) grows with the
# number of students rather than with the cores. Nested computations (a figure
# asking for its table) pass through the gate their outermost call holds.
COLD_RUNS = 2
_cold = threading.BoundedSemaphore(COLD_RUNS)
_depth = threading.local()


class cold_gate:  # noqa: N801 (used as a context manager, like a lock)
    """Hold one of the :data:`COLD_RUNS` places while computing a result."""

    def __enter__(self) -> None:
        depth = getattr(_depth, "n", 0)
        if depth == 0:
            _cold.acquire()
        _depth.n = depth + 1

    def __exit__(self, *exc) -> None:
        _depth.n -= 1
        if _depth.n == 0:
            _cold.release()

_OBJECT_CELL = 64  # bytes counted per value of an object (string) column


def _python_objects(dtype) -> bool:
    """A column of Python objects (pointers only in memory_usage(deep=False)); a
    pyarrow-backed string column counts its buffers itself."""
    storage = getattr(dtype, "storage", None)
    return storage == "python" or (storage is None and dtype.kind == "O")


def _frame_bytes(df: pd.DataFrame) -> int:
    """``df.memory_usage(deep=False).sum()`` plus 64 bytes a Python-object cell, read
    from the frame's blocks (one array per dtype): 5 µs instead of 0.2 ms for pandas
    making a Series of every column, for each table a run computes."""
    total = df.index.nbytes
    blocks = getattr(getattr(df, "_mgr", None), "blocks", None)
    if blocks is None:  # not pandas' block manager: column by column
        for _name, column in df.items():
            total += column.array.nbytes + (
                _OBJECT_CELL * len(df) if _python_objects(column.dtype) else 0)
        return int(total)
    for block in blocks:  # block.shape: (columns, rows)
        total += block.values.nbytes
        if _python_objects(block.dtype):
            total += _OBJECT_CELL * len(df) * block.shape[0]
    return int(total)


def size_of(value: Any, _depth: int = 0) -> int:
    """Bytes held by a result, near enough for a budget: numpy, torch and pandas
    buffers exactly, string columns at 64 bytes a value, containers by their items,
    a figure by its JSON length (``nbytes`` of :class:`ui.figures.Frozen`)."""
    if _depth > 4:
        return sys.getsizeof(value)
    if isinstance(value, pd.DataFrame):  # memory_usage's sum, block by block
        return _frame_bytes(value)
    if isinstance(value, pd.Series):
        return int(value.memory_usage(index=True, deep=False)) + (
            _OBJECT_CELL * len(value) if _python_objects(value.dtype) else 0)
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    nbytes = getattr(value, "nbytes", None)
    if isinstance(nbytes, int):
        return nbytes
    if hasattr(value, "element_size") and hasattr(value, "nelement"):  # a torch tensor
        return int(value.element_size() * value.nelement())
    if isinstance(value, dict):
        return sys.getsizeof(value) + sum(size_of(v, _depth + 1) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sys.getsizeof(value) + sum(size_of(v, _depth + 1) for v in value)
    return sys.getsizeof(value)


class Shared:
    """A process-wide least-recently-used store bounded by bytes and entries."""

    def __init__(self, name: str, max_bytes: int) -> None:
        self.name = name
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._per_function: dict[str, int] = {}
        self._bytes = 0
        self._lock = threading.Lock()
        self._computing: dict[Hashable, threading.Lock] = {}

    @property
    def nbytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, function: str, key: Hashable, make: Callable[[], Any],
            max_entries: int) -> Any:
        """The kept result for ``(function, key)``, or ``make()`` kept."""
        full = (function, key)
        with self._lock:
            if full in self._entries:
                self._entries.move_to_end(full)
                return self._entries[full][0]
        # A place first, then the key's lock: whoever holds a key's lock also holds a
        # place (or runs inside a computation that does), so it never waits for one.
        with cold_gate():
            with self._lock:
                gate = self._computing.setdefault(full, threading.Lock())
            with gate:  # one computation per key; the others wait for it
                with self._lock:
                    if full in self._entries:
                        self._entries.move_to_end(full)
                        return self._entries[full][0]
                try:
                    value = make()
                    self._keep(function, full, value, max_entries)
                finally:
                    with self._lock:
                        self._computing.pop(full, None)
        return value

    def _keep(self, function: str, full: Hashable, value: Any, max_entries: int) -> None:
        nbytes = size_of(value)
        if nbytes > self.max_bytes // 2:
            return  # too large to keep: it would push out everything else
        with self._lock:
            self._entries[full] = (value, nbytes)
            self._bytes += nbytes
            self._per_function[function] = self._per_function.get(function, 0) + 1
            if self._per_function[function] > max_entries:  # this function's oldest
                oldest = next(k for k in self._entries if k[0] == function)
                self._drop(oldest)
            while self._bytes > self.max_bytes and len(self._entries) > 1:
                self._drop(next(iter(self._entries)))

    def _drop(self, full: Hashable) -> None:
        _value, nbytes = self._entries.pop(full)
        self._bytes -= nbytes
        self._per_function[full[0]] -= 1

    def clear(self, function: str | None = None) -> None:
        """Forget every result (of ``function`` only, if given)."""
        with self._lock:
            for full in [k for k in self._entries if function is None or k[0] == function]:
                self._drop(full)


def key_of(args: tuple, kwargs: dict) -> Hashable:
    """A dict key for a call's arguments (plain numbers, strings and tuples; anything
    unhashable is keyed by its repr)."""
    key = (args, tuple(sorted(kwargs.items())))
    try:
        hash(key)
    except TypeError:
        return repr(key)
    return key


TABLE_BYTES = 48 * MIB  # results of @ui.table functions, all pages together
FIGURE_BYTES = 16 * MIB  # figures of @ui.figure builders, as sent (JSON)
TABLES = Shared("tables", TABLE_BYTES)
FIGURES = Shared("figures", FIGURE_BYTES)


def clear_all() -> None:
    """Empty both stores (benchmarks measuring uncached runs; never the server)."""
    TABLES.clear()
    FIGURES.clear()
