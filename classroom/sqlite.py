"""The SQLite backend: one file shared by every process on one machine.

WAL mode lets readers go on while one process writes; ``BEGIN IMMEDIATE``
makes writers take turns (a busy file is waited for, then retried by the
store). Within a process, writers queue on a lock first: SQLite's own wait
for a busy file sleeps in steps of up to 100 ms, so threads left to it would
wait far longer than the few milliseconds a write takes. ``synchronous=FULL``
syncs the WAL at every commit, so a committed answer survives a killed process
and a power cut alike. Foreign keys are switched on per connection (SQLite's
default is off), for ON DELETE CASCADE.
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import contextmanager, nullcontext
from pathlib import Path

from .store import transaction

IDLE = 8  # connections kept open per process (each thread borrows one per call)
BUSY_TIMEOUT_S = 5.0  # wait this long for another writer, then the store retries


class SQLiteDB:
    begin_write, begin_read = "BEGIN IMMEDIATE", "BEGIN"
    serialize = ""  # BEGIN IMMEDIATE already serializes writers

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._idle: list[sqlite3.Connection] = []
        self._lock = threading.Lock()  # guards _idle
        self._write = threading.Lock()  # one write transaction at a time in this process

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                               check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    @contextmanager
    def transaction(self, write: bool):
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        conn = conn or self._connect()
        try:
            with self._write if write else nullcontext(), \
                    transaction(conn, self.begin_write if write else self.begin_read):
                yield conn
        finally:
            with self._lock:
                keep = len(self._idle) < IDLE and not conn.in_transaction
                if keep:
                    self._idle.append(conn)
            if not keep:
                conn.close()

    @staticmethod
    def sql(text: str) -> str:
        """The store's SQL for SQLite: without PostgreSQL's row locks."""
        return text.replace(" FOR SHARE", "").replace(" FOR UPDATE", "")

    @staticmethod
    def transient(err: Exception) -> bool:
        """A busy or locked file: another process is writing."""
        return isinstance(err, sqlite3.OperationalError) and any(
            word in str(err) for word in ("locked", "busy"))

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
