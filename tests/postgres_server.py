"""A throwaway PostgreSQL server for the classroom tests and benchmark.

Debian's server programs (``initdb``, ``pg_ctl`` from /usr/lib/postgresql/*/bin,
package ``postgresql``) make a cluster in a new temporary folder and run it on
a random free port of 127.0.0.1, its socket in the same folder; nothing runs as
a system service and the folder is deleted at the end. initdb refuses to run as
root: as root the programs run as the system user ``postgres`` (the package
creates it). Used by tests/test_classroom.py (its ``postgres`` fixture) and
benchmarks/bench_classroom.py.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

USER = "rope"  # the cluster's superuser (initdb -U)


def _free_port() -> int:
    # not e2e_server.free_port: importing that module imports Streamlit (seconds)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bin_dir() -> Path | None:
    """The newest /usr/lib/postgresql/<version>/bin holding initdb and pg_ctl."""
    found = [Path(d) for d in glob.glob("/usr/lib/postgresql/*/bin")
             if os.access(Path(d) / "initdb", os.X_OK) and os.access(Path(d) / "pg_ctl", os.X_OK)]
    return max(found, key=lambda d: int(d.parent.name)
               if d.parent.name.isdigit() else 0, default=None)


def missing_reason() -> str | None:
    """Why a PostgreSQL server cannot be started here, or None when it can."""
    if bin_dir() is None:
        return ("PostgreSQL's initdb and pg_ctl not found in /usr/lib/postgresql/*/bin: "
                "install Debian's postgresql package")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no system user postgres to run initdb as"
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        return "psycopg or psycopg_pool is not installed (requirements.txt)"
    return None


def skip_without_postgres() -> None:
    """Skip the calling test when PostgreSQL is missing, unless ROPE_REQUIRE_POSTGRES
    is set (as .ci/run does): then that is an error."""
    import pytest

    missing = missing_reason()
    if missing:
        if os.environ.get("ROPE_REQUIRE_POSTGRES"):  # CI must not skip these
            raise RuntimeError(f"ROPE_REQUIRE_POSTGRES is set but {missing}")
        pytest.skip(f"PostgreSQL tests skipped: {missing}")


class PostgresServer:
    """``with PostgresServer() as pg:`` a running cluster; ``pg.url`` connects to its
    database ``postgres`` as superuser ``rope`` (trust authentication, local only)."""

    def __init__(self) -> None:
        self.bin = bin_dir()
        self.port = _free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="rope-pg-"))
        self.data = self.folder / "data"
        self.url = f"postgresql://{USER}@127.0.0.1:{self.port}/postgres"
        self._as = {}
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
            self._as = {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}

    def _run(self, *args: str) -> None:
        done = subprocess.run([str(self.bin / args[0]), *args[1:]], capture_output=True,
                              text=True, cwd=self.folder, timeout=120, **self._as)
        if done.returncode:
            log = self.folder / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): "
                               f"{done.stdout}{done.stderr}{tail}")

    def start(self) -> None:
        options = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
                   "-c max_connections=200")
        self._run("pg_ctl", "start", "-w", "-t", "60", "-D", str(self.data),
                  "-l", str(self.folder / "server.log"), "-o", options)

    def stop(self, mode: str = "fast") -> None:
        """``mode`` "immediate" is a crash: the server recovers from its WAL at the next start."""
        self._run("pg_ctl", "stop", "-w", "-t", "60", "-m", mode, "-D", str(self.data))

    def restart(self, mode: str = "immediate") -> None:
        self.stop(mode)
        self.start()

    def __enter__(self) -> PostgresServer:
        try:
            self._run("initdb", "-D", str(self.data), "-U", USER, "--auth=trust",
                      "-E", "UTF8", "--locale=C", "--no-sync")
            self.start()
        except BaseException:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.stop("immediate")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
