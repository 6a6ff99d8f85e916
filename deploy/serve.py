#!/usr/bin/env python
"""Serve RoPE Explorer from several Streamlit processes behind nginx.

One Streamlit process runs its scripts on one core at a time (Python's GIL).
For a larger class, start one process per core behind nginx, which routes each
visitor to the same process for the whole visit (session affinity, see
nginx.conf.template). Usage, from the repository root:

    .venv/bin/python deploy/serve.py --processes 2 --port 8501
    .venv/bin/python deploy/serve.py --processes 4 --host 0.0.0.0 --port 80

Students open http://<host>:<port>/. Ctrl-C stops nginx and every process.
Needs nginx from the system's packages (apt-get install nginx); nothing runs
as a system service and nothing is written outside a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = Path(__file__).with_name("nginx.conf.template")


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx",
                                                                       os.X_OK) else None)
    if not found:
        raise SystemExit("nginx not found: install it from the system's packages "
                         "(apt-get install nginx)")
    return found


def wait_healthy(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} did not answer /_stcore/health within {timeout:.0f} s")
        time.sleep(0.25)


class Cluster:
    """N Streamlit processes on loopback ports and nginx in front of them."""

    def __init__(self, processes: int = 2, host: str = "127.0.0.1", port: int | None = None,
                 python: str = sys.executable, app_dir: Path = ROOT,
                 extra_args: tuple[str, ...] = (), log_dir: Path | None = None) -> None:
        if not 1 <= processes <= 64:
            raise ValueError(f"processes={processes} is not allowed: from 1 to 64")
        self.processes, self.host = processes, host
        self.port = port or free_port(host)
        self.python, self.app_dir, self.extra_args = python, Path(app_dir), extra_args
        self.run_dir = Path(tempfile.mkdtemp(prefix="rope-serve-"))
        self.log_dir = Path(log_dir) if log_dir else self.run_dir
        self.backend_ports: list[int] = []
        self.procs: list[subprocess.Popen] = []
        self.nginx: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://{'127.0.0.1' if self.host == '0.0.0.0' else self.host}:{self.port}"

    def start(self, timeout: float = 90.0) -> Cluster:
        # One cookie secret for all processes, so that any of them accepts the XSRF
        # cookie another one set (a visitor's first request may reach a different one).
        secret = secrets.token_hex(16)
        for n in range(self.processes):
            port = free_port()
            self.backend_ports.append(port)
            log = open(self.log_dir / f"streamlit-{n}.log", "w")
            self.procs.append(subprocess.Popen(
                [self.python, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                 "--server.address", "127.0.0.1", "--server.headless", "true",
                 *self.extra_args],
                env={**os.environ, "STREAMLIT_SERVER_COOKIE_SECRET": secret},
                cwd=self.app_dir, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True))
        servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=0;"
                            for p in self.backend_ports)
        conf = TEMPLATE.read_text().format(run_dir=self.run_dir, servers=servers,
                                           host=self.host, port=self.port)
        (self.run_dir / "nginx.conf").write_text(conf)
        for p in self.backend_ports:
            wait_healthy(f"http://127.0.0.1:{p}", timeout)
        self.nginx = subprocess.Popen(
            [nginx_binary(), "-c", str(self.run_dir / "nginx.conf"), "-p", str(self.run_dir)],
            stdout=open(self.log_dir / "nginx.log", "w"), stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)
        wait_healthy(self.url, 30)
        return self

    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def stop(self) -> None:
        for proc in ([self.nginx] if self.nginx else []) + self.procs:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for proc in ([self.nginx] if self.nginx else []) + self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        shutil.rmtree(self.run_dir, ignore_errors=True)

    def __enter__(self) -> Cluster:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--processes", type=int, default=os.cpu_count() or 2,
                    help="Streamlit processes, one per core (default: the cores here)")
    ap.add_argument("--host", default="127.0.0.1", help="address nginx listens on")
    ap.add_argument("--port", type=int, default=8501, help="port nginx listens on")
    args = ap.parse_args(argv)
    cluster = Cluster(args.processes, args.host, args.port)
    try:
        cluster.start()
        print(f"RoPE Explorer: {args.processes} Streamlit processes behind nginx at "
              f"{cluster.url}  (backends on 127.0.0.1:{', '.join(map(str, cluster.backend_ports))};"
              f" logs in {cluster.log_dir}). Ctrl-C stops.", flush=True)
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
