"""A class that answers together: the store of classes, answers and reveals.

``open_store()`` opens the class database named by ``url``, else by the
environment variable ROPE_CLASS_DB, else the SQLite file DEFAULT_PATH:

- ``sqlite:///absolute/path.sqlite3``: one machine (every process that
  deploy/serve.py starts shares the file); nothing to install.
- ``postgresql://user:password@host:port/database``: several machines serving
  one class (needs psycopg and psycopg_pool, from requirements.txt).

No Streamlit here: the user interface calls the :class:`Store`. docs/classroom.md
says how to run a class, the limits, the code space, privacy and expiry.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from .store import (
    ALPHABET,
    CODE_LENGTH,
    LIFETIME_S,
    ClassroomError,
    Closed,
    Full,
    InvalidValue,
    Limits,
    Status,
    Store,
    Unavailable,
    UnknownClass,
    WrongKey,
    format_code,
    new_student_id,
    normalize_code,
)

ENV = "ROPE_CLASS_DB"
DEFAULT_PATH = Path(__file__).resolve().parents[1] / "data" / "classroom.sqlite3"

__all__ = ["ALPHABET", "CODE_LENGTH", "DEFAULT_PATH", "ENV", "LIFETIME_S", "ClassroomError",
           "Closed", "Full", "InvalidValue", "Limits", "Status", "Store", "Unavailable",
           "UnknownClass", "WrongKey", "database", "format_code", "new_student_id",
           "normalize_code", "open_store"]


def database(url: str | None = None) -> tuple[str, str | Path]:
    """Which database ``url`` names, without opening it: ("sqlite", path) or
    ("postgresql", url). Raises InvalidValue for any other form."""
    url = url if url is not None else os.environ.get(ENV) or f"sqlite://{DEFAULT_PATH}"
    if isinstance(url, str) and url.startswith("sqlite://"):
        path = url.removeprefix("sqlite://")
        if path.startswith("/") and path != "/":
            return "sqlite", Path(path)
    elif isinstance(url, str) and url.startswith(("postgresql://", "postgres://")):
        return "postgresql", url
    shown = "<a postgresql URL>" if "@" in str(url) else repr(url)[:80]  # may hold a password
    raise InvalidValue("class database {url} is refused: it must be sqlite:///absolute/path or "
                       "postgresql://user:password@host:port/database (ROPE_CLASS_DB).",
                       url=shown)


def open_store(url: str | None = None, *, limits: Limits | None = None,
               clock: Callable[[], float] = time.time, retry_seconds: float = 15.0) -> Store:
    """The store of the database ``url`` names (see :func:`database`), its schema
    created or migrated. ``limits``: Limits() unless given; ``clock`` gives Unix
    seconds (tests move it); ``retry_seconds``: how long a call retries transient
    errors."""
    kind, where = database(url)
    if kind == "sqlite":
        from .sqlite import SQLiteDB
        db = SQLiteDB(where)
    else:
        from .postgres import PostgresDB
        db = PostgresDB(where)
    try:
        return Store(db, limits=limits or Limits(), clock=clock, retry_seconds=retry_seconds)
    except BaseException:
        db.close()
        raise
