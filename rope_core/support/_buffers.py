"""Temporaries reused inside one call (private helper of capacity and precision).

The app has glibc serve every block above 128 KiB by its own mmap
(``ui.hardening.limit_malloc_arenas``: a fixed mmap threshold, so that freed
memory goes back to the system), so each fresh (rows x pairs) temporary costs
its page faults again, about 0.2 ms per MiB: at d = 1024 a loop that allocated
its blocks afresh for every recipe or chunk spent more time there than in the
arithmetic. A loop asks :class:`Buffers` for its blocks by name instead and
writes into them (``out=``, ``copy_``); the values are those of the same
operations on fresh tensors.
"""

from __future__ import annotations

import torch


class Buffers:
    """Reused blocks, by name and dtype. A buffer is grown when more rows (or another
    width) are asked for; :meth:`get` returns its first ``rows`` rows (contiguous)."""

    def __init__(self) -> None:
        self._kept: dict = {}
        self.kept: dict = {}  # anything else a loop keeps for its next rounds (tables)

    def get(self, name: str, rows: int, cols: int,
            dtype: torch.dtype = torch.float64) -> torch.Tensor:
        buf = self._kept.get((name, dtype))
        if buf is None or buf.shape[0] < rows or buf.shape[1] != cols:
            buf = self._kept[name, dtype] = torch.empty(rows, cols, dtype=dtype)
        return buf[:rows]  # (rows, cols)
