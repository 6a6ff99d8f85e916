#!/usr/bin/env python
"""Serve RoPE Explorer from several Streamlit processes behind nginx.

One Streamlit process runs its scripts on one core at a time (Python's GIL).
For a larger class, start one process per core behind nginx, which routes each
visitor to the same process for the whole visit (session affinity, see
nginx.conf.template). Processes on other machines join with --upstream: one
nginx then spreads the students over several machines. Usage, from the
repository root:

    .venv/bin/python deploy/serve.py --processes 2 --port 8501
    .venv/bin/python deploy/serve.py --processes 4 --host 0.0.0.0 --port 80
    .venv/bin/python deploy/serve.py --host 0.0.0.0 --port 80 \\
        --upstream 10.0.0.5:8501 --upstream 10.0.0.6:8501

Students open http://<host>:<port>/. Ctrl-C (SIGINT) or SIGTERM stops nginx,
then every Streamlit process this script started, and exits with status 0; the
processes on other machines are left running (they are not this script's).
Needs nginx from the system's packages (apt-get install nginx); nothing runs
as a system service and nothing is written outside a temporary folder (and
--log-dir, when given).
"""

from __future__ import annotations

import argparse
import ctypes
import ipaddress
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = Path(__file__).with_name("nginx.conf.template")
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# A DNS name: dot-separated labels of letters, digits and inner hyphens.
_LABEL = r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)"
_HOSTNAME = re.compile(rf"(?=.{{1,253}}$){_LABEL}(\.{_LABEL})*")


class Stopped(Exception):
    """A stop signal arrived while the cluster was starting."""


class Upstream(NamedTuple):
    """A Streamlit process's address; str() is nginx's spelling of it."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self}"


def parse_upstream(text: str) -> Upstream:
    """'host:port' (host a name, an IPv4 address or an [IPv6] address in brackets,
    port 1 to 65535) -> Upstream. Raises ValueError naming the address and the rule."""
    text = text.strip()
    match = re.fullmatch(r"\[([^\]]*)\]:([^:]*)|([^:\[\]]*):([^:]*)", text)
    if not match:
        if text.startswith("["):
            raise ValueError(f"upstream {text!r} is not [IPv6 address]:port "
                             "(for example [2001:db8::5]:8501)")
        if text.count(":") > 1:
            raise ValueError(f"upstream {text!r}: write an IPv6 address in brackets, "
                             "as [2001:db8::5]:8501")
        raise ValueError(f"upstream {text!r} is not host:port (for example 10.0.0.5:8501)")
    v6, host = match.group(1), match.group(3)
    port_text = match.group(2) if v6 is not None else match.group(4)
    host = v6 if v6 is not None else host
    if not re.fullmatch(r"[0-9]{1,5}", port_text) or not 1 <= int(port_text) <= 65535:
        raise ValueError(f"upstream {text!r}: the port must be a whole number "
                         "from 1 to 65535")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        if v6 is not None:
            raise ValueError(f"upstream {text!r}: {host!r} in brackets is not an "
                             "IPv6 address") from None
        if not _HOSTNAME.fullmatch(host) or host.replace(".", "").isdigit():
            raise ValueError(f"upstream {text!r}: {host!r} is neither an IP address "
                             "nor a host name") from None
        return Upstream(host.lower(), int(port_text))
    if getattr(address, "scope_id", None):
        raise ValueError(f"upstream {text!r}: give the address without a %zone")
    if address.is_unspecified or address.is_multicast:
        raise ValueError(f"upstream {text!r}: {host} is not the address of one machine")
    return Upstream(address.compressed, int(port_text))


def _prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _prctl()
_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> Callable[[], None] | None:
    """A preexec_fn (Linux) that has the child sent SIGTERM when serve.py dies,
    even by SIGKILL, which no handler can catch: no orphan keeps the ports.
    None where prctl is missing, or when other threads run (a preexec_fn is not
    safe then: the child could deadlock before exec; serve.py has one thread)."""
    if _PRCTL is None or threading.active_count() > 1:
        return None

    def preexec() -> None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # serve.py died before the line above
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx",
                                                                       os.X_OK) else None)
    if not found:
        raise SystemExit("nginx not found: install it from the system's packages "
                         "(apt-get install nginx)")
    return found


def _never() -> bool:
    return False


def wait_healthy(url: str, timeout: float, stopping: Callable[[], bool] = _never,
                 proc: subprocess.Popen | None = None) -> None:
    """Wait until url answers /_stcore/health with ok. Raises TimeoutError after
    timeout seconds, RuntimeError when proc (the process that should answer) has
    exited, Stopped when stopping() turns true."""
    deadline = time.monotonic() + timeout
    while True:
        if stopping():
            raise Stopped(url)
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return
        except OSError:
            pass
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the process for {url} exited with status {proc.returncode}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} did not answer /_stcore/health within {timeout:g} s")
        time.sleep(0.25)


class Cluster:
    """N Streamlit processes on loopback ports, plus Streamlit processes elsewhere
    (upstreams, "host:port"), and nginx in front of them all."""

    def __init__(self, processes: int = 2, host: str = "127.0.0.1", port: int | None = None,
                 python: str = sys.executable, app_dir: Path = ROOT,
                 extra_args: tuple[str, ...] = (), log_dir: Path | None = None,
                 upstreams: Sequence[str | Upstream] = ()) -> None:
        if not 0 <= processes <= 64:
            raise ValueError(f"processes={processes} is not allowed: from 0 to 64")
        self.upstreams = [u if isinstance(u, Upstream) else parse_upstream(u)
                          for u in upstreams]
        if processes == 0 and not self.upstreams:
            raise ValueError("processes=0 needs at least one upstream: nginx would "
                             "have nothing to send students to")
        repeated = {str(u) for u in self.upstreams if self.upstreams.count(u) > 1}
        if repeated:
            raise ValueError(f"upstream {sorted(repeated)[0]} is given twice")
        self.processes, self.host = processes, host
        self.port = port or free_port(host)
        for u in self.upstreams:
            if u.port == self.port and (u.host == host or (
                    host in ("0.0.0.0", "::") and _is_local(u.host))):
                raise ValueError(f"upstream {u} is nginx's own address: it would send "
                                 "requests to itself")
        self.python, self.app_dir, self.extra_args = python, Path(app_dir), extra_args
        self.run_dir = Path(tempfile.mkdtemp(prefix="rope-serve-"))
        self.log_dir = Path(log_dir).resolve() if log_dir else self.run_dir
        self.backend_ports: list[int] = []
        self.procs: list[subprocess.Popen] = []
        self.nginx: subprocess.Popen | None = None
        self._logs: list = []

    @property
    def listen(self) -> str:
        """nginx's listen address, host:port ([host]:port for IPv6)."""
        return str(Upstream(self.host, self.port))

    @property
    def url(self) -> str:
        local = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(self.host, self.host)
        return Upstream(local, self.port).url

    @property
    def backends(self) -> list[str]:
        """Every address nginx sends students to, as nginx spells it."""
        return [f"127.0.0.1:{p}" for p in self.backend_ports] + [str(u) for u in self.upstreams]

    def _log(self, name: str):
        f = open(self.log_dir / name, "w")
        self._logs.append(f)
        return f

    def start(self, timeout: float = 90.0, stopping: Callable[[], bool] = _never) -> Cluster:
        """Start the local processes, wait until every process (local and upstream)
        answers, then start nginx. stopping() is asked between steps; when it turns
        true, start raises Stopped (the caller then calls stop)."""
        # One cookie secret for all processes, so that any of them accepts the XSRF
        # cookie another one set (a visitor's first request may reach a different one).
        # Processes on other machines need the same one: set
        # STREAMLIT_SERVER_COOKIE_SECRET there and here.
        secret = os.environ.get("STREAMLIT_SERVER_COOKIE_SECRET") or secrets.token_hex(16)
        nginx = nginx_binary()  # before anything starts
        _check_can_listen(self.host, self.port)
        for n in range(self.processes):
            if stopping():
                raise Stopped("before starting every process")
            port = free_port()
            self.backend_ports.append(port)
            self.procs.append(subprocess.Popen(
                [self.python, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                 "--server.address", "127.0.0.1", "--server.headless", "true",
                 *self.extra_args],
                env={**os.environ, "STREAMLIT_SERVER_COOKIE_SECRET": secret},
                cwd=self.app_dir, stdout=self._log(f"streamlit-{n}.log"),
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                preexec_fn=_die_with_parent(os.getpid())))
        # A local process ends only with serve.py (which then stops): never mark it
        # down. A machine elsewhere can fail on its own: after one failed connection
        # nginx skips it for 30 s, and its students go to the next process on the
        # hash ring (each to one, so they stay put), not each request 5 s late.
        servers = "\n".join(
            [f"        server 127.0.0.1:{p} max_fails=0;" for p in self.backend_ports]
            + [f"        server {u} max_fails=1 fail_timeout=30s;" for u in self.upstreams])
        conf = TEMPLATE.read_text().format(run_dir=self.run_dir, servers=servers,
                                           log_dir=self.log_dir, listen=self.listen)
        (self.run_dir / "nginx.conf").write_text(conf)
        for n, (p, proc) in enumerate(zip(self.backend_ports, self.procs)):
            try:
                wait_healthy(f"http://127.0.0.1:{p}", timeout, stopping, proc)
            except (RuntimeError, TimeoutError) as err:
                raise RuntimeError(f"Streamlit process {n}: {err}\n"
                                   + self._tail(f"streamlit-{n}.log")) from None
        for u in self.upstreams:
            try:
                wait_healthy(u.url, timeout, stopping)
            except TimeoutError:
                raise RuntimeError(
                    f"upstream {u} did not answer {u.url}/_stcore/health within {timeout:g} s: "
                    "is Streamlit running there, started with --server.address set to an "
                    "address this machine can reach?") from None
        if stopping():
            raise Stopped("before starting nginx")
        self.nginx = subprocess.Popen(
            [nginx, "-c", str(self.run_dir / "nginx.conf"), "-p", str(self.run_dir)],
            stdout=self._log("nginx.log"), stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
            preexec_fn=_die_with_parent(os.getpid()))
        try:
            wait_healthy(self.url, 30, stopping, self.nginx)
        except (RuntimeError, TimeoutError) as err:
            raise RuntimeError(f"nginx on {self.listen}: {err}\n"
                               + (self._tail("nginx.log")
                                  or self._tail("nginx-error.log"))) from None
        return self

    def _tail(self, name: str, lines: int = 15) -> str:
        try:
            text = (self.log_dir / name).read_text(errors="replace")
        except OSError:
            return ""
        return "".join(f"  | {line}\n" for line in text.splitlines()[-lines:])

    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def exited(self) -> str | None:
        """Which child has exited on its own (None while all run)."""
        if self.nginx is not None and self.nginx.poll() is not None:
            return (f"nginx exited with status {self.nginx.returncode}\n"
                    + (self._tail("nginx.log") or self._tail("nginx-error.log")))
        for n, proc in enumerate(self.procs):
            if proc.poll() is not None:
                return (f"Streamlit process {n} exited with status {proc.returncode}\n"
                        + self._tail(f"streamlit-{n}.log"))
        return None

    def stop(self, timeout: float = 10.0) -> None:
        """Stop nginx first (no new requests reach a stopping process), then every
        local Streamlit process: SIGTERM to its process group, SIGKILL after
        timeout seconds. Upstreams on other machines are not touched. Safe to
        call more than once."""
        if self.nginx is not None:
            _terminate([self.nginx], timeout)
        _terminate(self.procs, timeout)
        for f in self._logs:
            f.close()
        self._logs.clear()
        shutil.rmtree(self.run_dir, ignore_errors=True)

    def __enter__(self) -> Cluster:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()


def _check_can_listen(host: str, port: int) -> None:
    """Fail before anything starts when nginx could not listen on host:port (taken,
    a privileged port, an address this machine does not have)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as nginx does
            s.bind((host, port))
            s.listen()
    except OSError as err:
        raise RuntimeError(f"cannot listen on {Upstream(host, port)}: "
                           f"{err.strerror or err}") from None


def _is_public(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_global
    except ValueError:
        return False  # a name: cannot tell without resolving it


def _is_local(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    # Each child leads its own process group (start_new_session): the group
    # holds nginx's worker and anything a Streamlit process started.
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _terminate(procs: list[subprocess.Popen], timeout: float) -> None:
    """SIGTERM to every process group, wait up to timeout seconds in all, SIGKILL
    the rest; returns once every process is reaped."""
    for proc in procs:
        if proc.poll() is None:
            _signal_group(proc, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for proc in procs:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGKILL)
            proc.wait()


class StopSignals:
    """SIGINT and SIGTERM set a flag instead of interrupting: the caller polls it
    and stops in its own time, so a signal never lands in the middle of starting
    a child (which would leave it unrecorded) or of stopping them. Restores the
    previous handlers on exit."""

    def __init__(self) -> None:
        self.received: int | None = None
        self._previous: dict[int, object] = {}

    def _handler(self, signum, frame) -> None:
        self.received = signum

    def __call__(self) -> bool:
        return self.received is not None

    def __enter__(self) -> StopSignals:
        for sig in STOP_SIGNALS:
            self._previous[sig] = signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)

    def wait(self, watch: Callable[[], str | None] = lambda: None,
             interval: float = 0.5) -> str | None:
        """Sleep until a stop signal arrives (returns None) or watch() names a
        problem (returns it), checking every interval seconds."""
        while not self():
            problem = watch()
            if problem:
                return problem
            time.sleep(interval)
        return None


def _upstream_arg(text: str) -> Upstream:
    try:
        return parse_upstream(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--processes", type=int, default=None,
                    help="Streamlit processes to start here, one per core (default: the "
                         "cores here, or 0 when --upstream is given)")
    ap.add_argument("--upstream", type=_upstream_arg, action="append", default=[],
                    metavar="HOST:PORT",
                    help="a Streamlit process on another machine (repeat for each); "
                         "IPv6 in brackets, [2001:db8::5]:8501")
    ap.add_argument("--host", default="127.0.0.1", help="address nginx listens on")
    ap.add_argument("--port", type=int, default=8501, help="port nginx listens on")
    ap.add_argument("--log-dir", type=Path, default=None,
                    help="keep the logs of nginx and the Streamlit processes here (default: "
                         "a temporary folder, removed when serve.py stops)")
    ap.add_argument("--timeout", type=float, default=90.0,
                    help="seconds to wait for each Streamlit process to answer (default 90)")
    args = ap.parse_args(argv)
    processes = args.processes
    if processes is None:
        processes = 0 if args.upstream else (os.cpu_count() or 2)
    if not 1 <= args.port <= 65535:
        ap.error(f"--port {args.port}: the port must be from 1 to 65535")
    if not 0 < args.timeout <= 3600:
        ap.error(f"--timeout {args.timeout:g}: from more than 0 to 3600 seconds")
    if args.log_dir is not None:
        try:
            args.log_dir.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            ap.error(f"--log-dir {args.log_dir}: {err.strerror or err}")
    with StopSignals() as stop:
        try:
            cluster = Cluster(processes, args.host, args.port, upstreams=args.upstream,
                              log_dir=args.log_dir)
        except ValueError as err:
            ap.error(str(err))
        try:
            cluster.start(args.timeout, stopping=stop)
            where = []
            if cluster.backend_ports:
                where.append(f"{processes} here on 127.0.0.1:"
                             + ", ".join(map(str, cluster.backend_ports)))
            if cluster.upstreams:
                where.append(f"{len(cluster.upstreams)} elsewhere: "
                             + ", ".join(map(str, cluster.upstreams)))
            print(f"RoPE Explorer behind nginx at {cluster.url}  (Streamlit processes: "
                  f"{'; '.join(where)}; logs in {cluster.log_dir}"
                  f"{'' if args.log_dir else ', removed at stop'}). Ctrl-C stops.", flush=True)
            for u in cluster.upstreams:
                if _is_public(u.host):
                    print(f"Note: upstream {u} has a public address; let only this machine "
                          "reach it (docs/hosting.md: More than one machine).", flush=True)
            problem = stop.wait(cluster.exited)
        except Stopped:
            problem = None
        except (RuntimeError, OSError) as err:
            problem = str(err)
        finally:
            print("Stopping nginx and the Streamlit processes started here ...", flush=True)
            cluster.stop()
    if problem:
        print(f"serve.py: {problem}", file=sys.stderr, flush=True)
        return 1
    print("Stopped.", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
