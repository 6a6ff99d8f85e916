"""deploy/serve.py: Streamlit processes on other machines as nginx upstreams,
with the same session affinity, and a clean stop on Ctrl-C and SIGTERM.

Two Streamlit processes bound to 127.0.0.2 and 127.0.0.3 stand for two
machines (Linux routes all of 127.0.0.0/8 to the loopback interface); serve.py
runs as its own process, as an operator would start it. Skipped when nginx is
missing (an error instead when ROPE_REQUIRE_BROWSER is set, as in .ci/run).
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import os
import re
import secrets
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from e2e_server import ARTIFACTS, ROOT, nginx_missing_reason

sys.path.insert(0, str(ROOT / "deploy"))
from serve import (  # noqa: E402
    Upstream,
    _is_public,
    free_port,
    main,
    parse_upstream,
)

SERVE = ROOT / "deploy" / "serve.py"
HOSTS = ("127.0.0.2", "127.0.0.3")


# ------------------------------------------------------------ addresses ----
@pytest.mark.parametrize(("text", "expected"), [
    ("10.0.0.5:8501", ("10.0.0.5", 8501)),
    ("class-b.example.org:80", ("class-b.example.org", 80)),
    ("Node7:65535", ("node7", 65535)),
    ("[2001:db8::5]:1", ("2001:db8::5", 1)),
    (" 127.0.0.2:8501 ", ("127.0.0.2", 8501)),
])
def test_upstream_addresses_accepted(text, expected):
    up = parse_upstream(text)
    assert tuple(up) == expected
    # nginx's spelling: IPv6 in brackets, everything else as host:port
    assert str(up) == (f"[{expected[0]}]:{expected[1]}" if ":" in expected[0]
                       else f"{expected[0]}:{expected[1]}")


def test_public_upstreams_are_noted():
    assert _is_public("203.0.114.7") and _is_public("2a00:1450::1")
    assert not any(map(_is_public, ["10.0.0.5", "192.168.1.2", "127.0.0.2", "fd00::5",
                                    "class-b.example.org"]))


@pytest.mark.parametrize(("text", "reason"), [
    ("10.0.0.5", "not host:port"),
    ("10.0.0.5:0", "port must be a whole number from 1 to 65535"),
    ("10.0.0.5:65536", "port must be a whole number from 1 to 65535"),
    ("10.0.0.5:-1", "port must be a whole number from 1 to 65535"),
    ("10.0.0.5:85O1", "port must be a whole number from 1 to 65535"),
    ("10.0.0.5:\u0663", "port must be a whole number from 1 to 65535"),  # Arabic-Indic 3
    ("10.0.0.5:", "port must be a whole number from 1 to 65535"),
    ("2001:db8::5:8501", "IPv6 address in brackets"),
    ("[2001:db8::5]8501", "not [IPv6 address]:port"),
    ("[10.0.0.x]:8501", "in brackets is not an IPv6 address"),
    ("300.1.1.1:8501", "neither an IP address nor a host name"),
    ("-bad.example:8501", "neither an IP address nor a host name"),
    ("a..b:8501", "neither an IP address nor a host name"),
    ("two words:8501", "neither an IP address nor a host name"),
    (":8501", "neither an IP address nor a host name"),
    ("0.0.0.0:8501", "not the address of one machine"),
    ("[::]:8501", "not the address of one machine"),
    ("224.0.0.1:8501", "not the address of one machine"),
])
def test_bad_upstream_addresses_refused_with_the_rule(text, reason):
    with pytest.raises(ValueError, match=re.escape(reason)) as err:
        parse_upstream(text)
    assert repr(text) in str(err.value)  # names the address as given (stripped)


@pytest.mark.parametrize(("args", "message"), [
    (["--upstream", "10.0.0.5"], "argument --upstream: upstream '10.0.0.5' is not host:port"),
    (["--upstream", "10.0.0.5:70000"], "the port must be a whole number from 1 to 65535"),
    (["--upstream", "10.0.0.5:8501", "--upstream", "10.0.0.5:8501"], "given twice"),
    (["--processes", "0"], "needs at least one upstream"),
    (["--processes", "65"], "from 0 to 64"),
    (["--port", "70000"], "--port 70000: the port must be from 1 to 65535"),
    (["--host", "0.0.0.0", "--port", "8501", "--upstream", "127.0.0.1:8501"],
     "nginx's own address"),
])
def test_command_line_errors_are_one_line_not_a_traceback(args, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(args)
    assert exit_.value.code == 2  # argparse's usage error
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


# ------------------------------------------------------------ processes ----
def _need_nginx() -> None:
    missing = nginx_missing_reason()
    if missing:
        if os.environ.get("ROPE_REQUIRE_BROWSER"):
            raise RuntimeError(f"ROPE_REQUIRE_BROWSER is set but {missing}")
        pytest.skip(missing)


def _health(url: str) -> bool:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    try:
        conn = http.client.HTTPConnection(host.strip("[]"), int(port), timeout=2)
        conn.request("GET", "/_stcore/health")
        return conn.getresponse().read().strip() == b"ok"
    except OSError:
        return False


SECRET = secrets.token_hex(16)  # one cookie secret on every machine, as docs/hosting.md asks


@contextlib.contextmanager
def streamlit_on(*hosts: str):
    """One Streamlit process per host address, started as an operator would start
    them on those machines; yields (their Upstreams, the processes) once all answer."""
    _need_nginx()
    ARTIFACTS.mkdir(exist_ok=True)
    env = {**os.environ, "STREAMLIT_SERVER_COOKIE_SECRET": SECRET}
    ups, procs, logs = [], [], []
    try:
        for host in hosts:
            port = free_port(host)
            logs.append(open(ARTIFACTS / f"serve-upstream-{host}.log", "w"))
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", host,
                 "--server.port", str(port), "--server.headless", "true"],
                cwd=ROOT, env=env, stdout=logs[-1], stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True))
            ups.append(Upstream(host, port))
        deadline = time.monotonic() + 90
        for up, proc in zip(ups, procs):
            while not _health(up.url):
                assert proc.poll() is None, f"streamlit on {up} exited"
                assert time.monotonic() < deadline, f"streamlit on {up} did not start"
                time.sleep(0.25)
        yield ups, procs
    finally:
        _stop(procs)
        for f in logs:
            f.close()


def _stop(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture(scope="module")
def machines():
    """Two Streamlit processes, on 127.0.0.2 and 127.0.0.3, standing for two machines."""
    with streamlit_on(*HOSTS) as (ups, _):
        yield ups


class Serve:
    """deploy/serve.py run as its own process, in its own process group (as in a
    terminal, where Ctrl-C signals the whole foreground group)."""

    def __init__(self, *args: str) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, str(SERVE), "--port", str(self.port), *args],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, text=True, start_new_session=True)
        self.output = ""
        self.url = f"http://127.0.0.1:{self.port}"

    def wait_output(self, pattern: str, timeout: float = 90) -> re.Match:
        deadline = time.monotonic() + timeout
        while not (found := re.search(pattern, self.output)):
            assert time.monotonic() < deadline, f"no {pattern!r} in: {self.output}"
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.5)
            if ready:
                line = self.proc.stdout.readline()
                assert line or self.proc.poll() is None, f"serve.py exited: {self.output}"
                self.output += line
        return found

    def finish(self, timeout: float = 40) -> int:
        try:
            rest, _ = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        self.output += rest
        return self.proc.returncode

    def kill(self) -> None:
        """The test's own cleanup: SIGTERM, then SIGKILL to serve.py and every
        process below it (each child leads its own process group)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                for pid in _descendants(self.proc.pid):
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(pid, signal.SIGKILL)
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def _start_time(pid: int) -> str | None:
    """The process's start time (field 22 of /proc/PID/stat), None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return None if fields[0] == "Z" else fields[19]


def _descendants(pid: int) -> dict[int, str]:
    """Every process below pid, each with its start time (a pid reused by a new
    process does not count as left behind)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat[stat.rindex(")") + 2:].split()[1])
    found, todo = {}, [pid]
    while todo:
        parent = todo.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in found:
                start = _start_time(child)
                if start is not None:
                    found[child] = start
                    todo.append(child)
    return found


def _still_running(children: dict[int, str], wait: float = 0) -> set[int]:
    """Those of children (pid -> start time) still running, after waiting up to
    wait seconds for them to end."""
    deadline = time.monotonic() + wait
    while True:
        left = {pid for pid, start in children.items() if _start_time(pid) == start}
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.1)


def _port_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as servers bind
        try:
            s.bind((host, port))
            s.listen()
        except OSError:
            return False
    return True


def _request(port: int, path: str, cookie: str | None = None,
             websocket: bool = False) -> tuple[int, dict[str, str]]:
    """One request through nginx, (status, headers); websocket=True sends the
    opening handshake of Streamlit's session websocket (/_stcore/stream)."""
    headers = {"Host": f"127.0.0.1:{port}"}
    if cookie:
        headers["Cookie"] = f"rope_sid={cookie}"
    if websocket:
        headers.update({"Upgrade": "websocket", "Connection": "Upgrade",
                        "Sec-WebSocket-Version": "13",
                        "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
                        "Sec-WebSocket-Protocol": "streamlit",
                        "Origin": f"http://127.0.0.1:{port}"})
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers=headers)
        r = conn.getresponse()
        if not websocket:
            r.read()
        return r.status, {k.lower(): v for k, v in r.getheaders()}
    finally:
        conn.close()


def test_upstreams_on_two_machines_share_students_with_affinity(machines, tmp_path):
    serve = Serve(*(a for up in machines for a in ("--upstream", str(up))),
                  "--log-dir", str(tmp_path / "logs"))
    try:
        serve.wait_output(r"RoPE Explorer behind nginx at ")
        assert "127.0.0.2" in serve.output and "127.0.0.3" in serve.output
        expected = {str(up) for up in machines}
        first_backends = []
        for _ in range(16):  # 16 students, each opening the app for the first time
            status, headers = _request(serve.port, "/")
            assert status == 200
            sid = re.fullmatch(r"rope_sid=([0-9a-f]+); Path=/; HttpOnly; SameSite=Lax",
                               headers["set-cookie"]).group(1)
            backend = headers["x-rope-backend"]
            assert backend in expected
            # the student's websocket session and later requests: the same machine
            status, ws_headers = _request(serve.port, "/_stcore/stream", sid, websocket=True)
            assert status == 101, (status, ws_headers)
            assert ws_headers["x-rope-backend"] == backend
            for path in ("/_stcore/health", "/frequencies?dim=64"):
                status, again = _request(serve.port, path, sid)
                assert status == 200 and again["x-rope-backend"] == backend
            first_backends.append(backend)
        assert set(first_backends) == expected  # both machines receive students
        serve.proc.send_signal(signal.SIGTERM)
        assert serve.finish() == 0, serve.output
    finally:
        serve.kill()
    assert all(_health(up.url) for up in machines)  # SIGTERM leaves the upstreams alone
    assert (tmp_path / "logs" / "nginx.log").exists()  # --log-dir: kept after the stop


def test_students_of_a_machine_that_stops_move_to_one_other_and_stay(machines):
    with streamlit_on("127.0.0.4") as ([third], third_procs):
        serve = Serve(*(a for up in [*machines, third] for a in ("--upstream", str(up))))
        try:
            serve.wait_output(r"RoPE Explorer behind nginx at ")
            on_third = []
            while len(on_third) < 3:  # students the hash sends to the third machine
                _, headers = _request(serve.port, "/")
                if headers["x-rope-backend"] == str(third):
                    on_third.append(re.search(r"rope_sid=(\w+)", headers["set-cookie"])[1])
            _stop(third_procs)  # the third machine goes down
            live = {str(up) for up in machines}
            for sid in on_third:
                served_by = set()
                for _ in range(4):
                    status, headers = _request(serve.port, "/_stcore/health", sid)
                    assert status == 200
                    served_by.add(headers["x-rope-backend"].split(", ")[-1])
                assert len(served_by) == 1 and served_by <= live, served_by
            assert serve.proc.poll() is None  # a machine elsewhere does not stop serve.py
        finally:
            serve.kill()


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm", "sigterm-while-starting", "sigkill"])
def test_stop_leaves_no_process_and_frees_the_port(machines, how):
    """Ctrl-C (SIGINT to the terminal's foreground group) or SIGTERM (to serve.py
    alone, as a supervisor sends it): nginx and the Streamlit process started here
    end, the port is free, exit status 0; the upstream elsewhere keeps running.
    SIGKILL cannot be caught: the children still end (Linux's parent-death signal)."""
    serve = Serve("--processes", "1", "--upstream", str(machines[0]))
    children: dict[int, str] = {}
    try:
        if how == "sigterm-while-starting":
            deadline = time.monotonic() + 30
            while not _descendants(serve.proc.pid):  # the Streamlit process is starting
                assert time.monotonic() < deadline and serve.proc.poll() is None
                time.sleep(0.05)
        else:
            serve.wait_output(r"RoPE Explorer behind nginx at ")
            assert _health(serve.url)
        children = _descendants(serve.proc.pid)
        # streamlit; and, once started, nginx's master and its worker
        assert len(children) >= (1 if how == "sigterm-while-starting" else 3), children
        if how == "ctrl-c":
            os.killpg(serve.proc.pid, signal.SIGINT)
        elif how == "sigkill":
            serve.proc.kill()
        else:
            serve.proc.send_signal(signal.SIGTERM)
        code = serve.finish()
        # serve.py waits for its children; without it (SIGKILL) they end on their own
        left = _still_running(children, wait=20 if how == "sigkill" else 0)
    finally:
        serve.kill()
        for pid in _still_running(children):  # the test's own cleanup
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
    assert not left, f"left running: {left}"
    if how == "sigkill":
        assert code == -signal.SIGKILL
    else:
        assert code == 0, serve.output
        assert "Stopped." in serve.output and "Traceback" not in serve.output
    if how == "sigterm-while-starting":
        assert "RoPE Explorer behind nginx" not in serve.output  # it was still starting
    assert _port_free(serve.port)
    for port in map(int, re.findall(r"127\.0\.0\.1:(\d+)", serve.output)):
        assert _port_free(port)  # the local Streamlit process's port too
    assert _health(machines[0].url)  # not ours to stop


def test_an_upstream_that_does_not_answer_is_a_clear_error(capsys):
    _need_nginx()
    port = free_port(HOSTS[0])  # nothing listens there
    handlers = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)]
    code = main(["--upstream", f"{HOSTS[0]}:{port}", "--timeout", "1",
                 "--port", str(free_port())])
    err = capsys.readouterr().err
    assert code == 1
    assert f"upstream {HOSTS[0]}:{port} did not answer" in err and "Traceback" not in err
    assert [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)] == handlers
