"""The PostgreSQL backend, for a class served from several machines.

psycopg 3 with a psycopg_pool connection pool per process, imported only
here (an app on SQLite needs neither). Connections are in autocommit mode and
the store sends BEGIN and COMMIT itself, as on SQLite. A connection that broke
(a restart, a network cut) fails its call with an OperationalError, which the
store retries; the pool drops the broken connection and opens a new one.
"""

from __future__ import annotations

from contextlib import contextmanager
from functools import lru_cache

from .store import transaction

POOL_SIZE = 8  # connections per process at most: one per concurrent call
POOL_WAIT_S = 2.0  # wait for a free connection this long, then the store retries


class PostgresDB:
    begin_write, begin_read = "BEGIN", "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
    # One schema change, class creation or purge at a time (a transaction-scoped lock).
    serialize = "SELECT pg_advisory_xact_lock(47470047)"

    def __init__(self, url: str) -> None:
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError as err:
            raise ImportError("a postgresql:// class database needs psycopg and psycopg_pool "
                              "(pip install -r requirements.txt)") from err
        self._operational = psycopg.OperationalError
        self.pool = ConnectionPool(url, min_size=1, max_size=POOL_SIZE, timeout=POOL_WAIT_S,
                                   kwargs={"autocommit": True}, name="classroom", open=True)

    @contextmanager
    def transaction(self, write: bool):
        with self.pool.connection() as conn, \
                transaction(conn, self.begin_write if write else self.begin_read):
            yield conn

    @staticmethod
    @lru_cache(maxsize=128)
    def sql(text: str) -> str:
        """The store's SQL for psycopg: %s placeholders (the store's SQL has no %)."""
        return text.replace("?", "%s")

    def transient(self, err: Exception) -> bool:
        """A lost connection, a server restarting or shutting down, a pool timeout,
        a serialization failure or deadlock: psycopg's OperationalError family."""
        return isinstance(err, self._operational)

    def close(self) -> None:
        self.pool.close()
