#!/usr/bin/env python
"""A class answering together under load (issue 47): 60 students answer the tour's first
question within 5 s on a real server, against the floor app's step in the same run.

The students and the teacher are browserless websocket sessions of
``../shared/tools/ws_load.py`` (its ``Session``: the browser's handshake, reruns and
message cache; found as benchmarks/floor.py finds it). One run:

1. A fresh ``streamlit run app.py`` on a free port, its class database a fresh SQLite
   file (``--db`` for another ROPE_CLASS_DB, e.g. a postgresql:// URL), warmed up by one
   visit to the tour. A class is created in that database (the store, as the app's
   "Start a class" does); the teacher's session opens ``tour?class=CODE&key=KEY``.
2. ``--students`` sessions open the join link ``tour?class=CODE&tour_step=1`` (arriving
   over ``--ramp`` s). Every session, the teacher's too, then polls as its screen does:
   the fragment's rerun (``fragment_id``, ``is_auto_rerun``) every 2 s, as the
   ``auto_rerun`` message the server sent asks.
3. At a moment drawn uniformly in ``--within`` s (5), each student picks a choice of the
   prediction (the radio ``tour_guess_1``): the *answer step*, timed from the click
   (waiting for a poll in flight included) until its run has finished; it must show
   "Saved: the class has your prediction.".
4. Checked: the database holds exactly one answer per student, with the choice each
   picked; the teacher's next refresh after the last answer (one poll) shows
   "N students in class" and "N answers to this question" and each choice's count.
5. For comparison, each on a fresh server: the same students making the same prediction
   on the tour outside any class (no store, no refresh: the tour's own step), and the
   floor app (``../shared/tools/floor-app/``, with this app's ``.streamlit/config.toml``):
   as many sessions open it and each moves its slider once at a moment drawn in the same
   window: the floor's step.

Printed: the answers stored, the teacher's counts, the answer step's median, p95 and max,
the tour's and the floor's steps, and the ratios p95 / floor p95 (the seconds depend on
the machine; the ratio carries), with the load average and the CPU the rest of the
machine used. ``--runs`` repeats the three (the order alternating) and prints the median
ratios. Last, the server CPU of one step of each kind with nothing else running
(``--solo`` steps each: an answer, a poll, the prediction outside a class, the floor's
step), the costs behind the latencies. Exit status 1 unless every answer was stored once and the teacher's count right.

    .venv/bin/python benchmarks/bench_class_load.py               # 60 students, one run
    .venv/bin/python benchmarks/bench_class_load.py --runs 3 --json out.json
    .venv/bin/python benchmarks/bench_class_load.py --postgres   # PostgreSQL instead
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from contextlib import closing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from floor import WS_LOAD, floor_app, free_port, loadavg  # noqa: E402

sys.path.insert(0, str(WS_LOAD.parent))
import ws_load  # noqa: E402
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402

import classroom  # noqa: E402

QUESTION = "tour-1"
RADIO = "tour_guess_1"
SAVED = "Saved: the class has your prediction."
POLL_S = 2.0
FRAGMENT_DONE = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY


def p95(values: list[float]) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(0.95 * len(values)))] if values else float("nan")


def unescaped(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


class Screen(ws_load.Session):
    """A ws_load session that also keeps what its last run drew (text, bars), the
    fragment that asks to be rerun every 2 s, and polls it."""

    def reset_page_state(self):
        super().reset_page_state()
        self.texts: list[str] = []
        self.radios: dict[str, object] = {}  # key -> a radio as last drawn (id, options)
        self.fragment = ""
        self.lock = asyncio.Lock()
        self.polls = 0

    def on_frame(self, data: bytes, now: float):
        msg = ForwardMsg()
        msg.ParseFromString(data)
        if msg.WhichOneof("type") == "auto_rerun":
            self.fragment = msg.auto_rerun.fragment_id
        elif msg.WhichOneof("type") == "new_session":
            self.texts = []
        super().on_frame(data, now)

    def on_delta(self, msg, step):
        super().on_delta(msg, step)
        d = msg.delta
        if d.WhichOneof("type") == "new_element":
            el = d.new_element
            kind = el.WhichOneof("type")
            if kind == "markdown":
                self.texts.append(unescaped(el.markdown.body))
            elif kind == "progress":
                self.texts.append(unescaped(el.progress.text))
            elif kind == "radio":  # none chosen yet: ws_load keeps no state for it
                self.radios[el.radio.id.split("-", 2)[-1]] = el.radio

    async def rerun(self, step, *, fragment: str = "", states=None) -> None:
        """One rerun of the page shown (``fragment``: only that fragment, as its timer
        asks), waited for until its script_finished."""
        if not fragment:
            return await self.request(step, page_hash=self.page_hash,
                                      states=list((states or self.states).values()))
        msg = BackMsg()
        rs = msg.rerun_script
        rs.query_string = self.query_string()
        rs.page_script_hash = self.page_hash
        rs.widget_states.widgets.extend(self.states.values())
        rs.cached_message_hashes.extend(self.cache.keys())
        rs.context_info.CopyFrom(self.context_info(self.shown_path))
        rs.fragment_id = fragment
        rs.is_auto_rerun = True
        self.cur, self.seen_new_session, self.step_error = step, False, None
        self.pending = asyncio.get_running_loop().create_future()
        self.texts = []
        # a fragment's run leaves the rest of the page, and its widgets' values, as it was
        widgets, states = dict(self.widgets), dict(self.states)
        await self.ws.send(msg.SerializeToString())
        _, why = await asyncio.wait_for(asyncio.shield(self.pending), self.args.timeout)
        self.widgets, self.states = {**widgets, **self.widgets}, {**states, **self.states}
        self.cur = None
        if why == f"script_finished status {FRAGMENT_DONE}":
            why = None
        if why is not None:
            raise ws_load.StepFailed(why)

    async def poll(self) -> None:
        """The fragment's rerun, as the screen's 2-second timer sends it."""
        async with self.lock:
            step = ws_load.Step(self.sid, -1, "poll", "tour", 0.0, 0.0)
            await self.rerun(step, fragment=self.fragment)
            self.polls += 1

    async def poll_forever(self, stop: asyncio.Event) -> None:
        await asyncio.sleep(self.rng.uniform(0, POLL_S))
        while not stop.is_set():
            await self.poll()
            try:
                await asyncio.wait_for(stop.wait(), POLL_S)
            except TimeoutError:
                pass


def namespace(url: str, query: str) -> argparse.Namespace:
    return argparse.Namespace(url=url, query=query, timeout=60.0, assets=False,
                              compression=True, expect_chart=False, change="n",
                              values="step")


def start(app_dir: Path, port: int, env: dict) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
           "--server.address", "127.0.0.1", "--server.headless", "true"]
    return subprocess.Popen(cmd, cwd=app_dir, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                            start_new_session=True)


async def served(app_dir: Path, env: dict):
    port = free_port()
    proc = start(app_dir, port, env)
    url = f"http://127.0.0.1:{port}"
    await ws_load.wait_healthy(argparse.Namespace(url=url), proc)
    return proc, url


def machine_busy() -> tuple[float, float]:
    return ws_load.machine_busy_seconds()


async def warm_up(kind, url: str, query: str, page: str) -> None:
    """One visit before the measured ones (the server's imports and caches); ``kind`` is
    Screen or ws_load.Session."""
    warm = kind(-1, namespace(url, query), ws_load.Run(), random.Random(0))
    await warm.load(ws_load.Step(-1, 0, "load", page, 0.0, 0.0), page)
    await warm.close()


async def arrived(kind, url: str, query: str, page: str, run, args, seed: int) -> list:
    """``--students`` sessions of ``kind`` (ids 0, 1, ...; session i draws from
    Random(seed · 1000 + i)) that open ``page?query``, each at a moment drawn in ``--ramp`` s."""
    sessions = [kind(i, namespace(url, query), run, random.Random(seed * 1000 + i))
                for i in range(args.students)]

    async def arrive(s) -> None:
        await asyncio.sleep(s.rng.uniform(0, args.ramp))
        await s.load(ws_load.Step(s.sid, 0, "load", page, 0.0, 0.0), page)

    await asyncio.gather(*(arrive(s) for s in sessions))
    return sessions


async def crowd_step(args, seed: int, proc, url: str, kind, query: str, page: str,
                     label: str, step) -> dict:
    """The students open ``page?query`` on the server ``proc`` (after one warm-up visit) and
    each takes ``step(session)`` once, at a moment drawn in ``--within`` s, timed from that
    moment until its run has finished; the server is stopped after. The times' median, p95
    and max, and the failures (named ``label`` and the session's id)."""
    latencies: list[float] = []
    failures: list[str] = []
    try:
        await warm_up(kind, url, query, page)
        sessions = await arrived(kind, url, query, page, ws_load.Run(pid=proc.pid), args, seed)

        async def timed(s) -> None:
            await asyncio.sleep(s.rng.uniform(0, args.within))
            t = time.perf_counter()
            try:
                await step(s)
            except Exception as err:
                failures.append(f"{label} {s.sid}: {err}"[:200])
                return
            latencies.append(time.perf_counter() - t)

        await asyncio.gather(*(timed(s) for s in sessions))
        for s in sessions:
            await s.close()
    finally:
        ws_load.stop_server(proc)
    return {"median": statistics.median(latencies) if latencies else float("nan"),
            "p95": p95(latencies), "max": max(latencies, default=float("nan")),
            "failures": failures}


# ----------------------------------------------------------------- the class ----
async def class_run(args, seed: int) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="rope-class-load-"))
    db = args.db or f"sqlite://{tmp / 'class.sqlite3'}"
    env = {**os.environ, classroom.ENV: db}
    proc, url = await served(ROOT, env)
    try:
        await warm_up(Screen, url, "tour_step=1", "tour")
        with classroom.open_store(db) as store:
            code, key = store.create_class()
        run = ws_load.Run(pid=proc.pid)
        teacher = Screen(-2, namespace(url, urllib.parse.urlencode(
            {"class": code, "key": key, "tour_step": 1})), run, random.Random(seed + 1))
        await teacher.load(ws_load.Step(-2, 0, "load", "tour", 0.0, 0.0), "tour")
        students = await arrived(Screen, url, f"class={code}&tour_step=1", "tour", run, args,
                                 seed)
        assert teacher.fragment and all(s.fragment for s in students), "no 2-second fragment"
        stop = asyncio.Event()
        pollers = [asyncio.create_task(s.poll_forever(stop)) for s in (teacher, *students)]
        picked: dict[int, str] = {}
        latencies: list[float] = []
        failures: list[str] = []
        busy0, cpu0, t0 = machine_busy(), ws_load.tree_cpu_seconds(proc.pid), time.monotonic()

        async def answer(s: Screen) -> None:
            await asyncio.sleep(s.rng.uniform(0, args.within))
            clicked = time.perf_counter()
            async with s.lock:
                radio = s.radios[RADIO]
                wid, options = radio.id, list(radio.options)
                k = s.rng.randrange(len(options))
                s.states[wid] = WidgetState(id=wid, string_value=options[k])
                step = ws_load.Step(s.sid, 1, "answer", "tour", 0.0, 0.0)
                try:
                    await s.rerun(step)
                except Exception as err:  # reported
                    failures.append(f"student {s.sid}: {err}"[:200])
                    return
            latencies.append(time.perf_counter() - clicked)
            if any(SAVED in t for t in s.texts):
                picked[s.sid] = str(k)
            else:
                failures.append(f"student {s.sid}: no 'saved' shown")

        await asyncio.gather(*(answer(s) for s in students))
        answered_in = time.monotonic() - t0
        cpu = ws_load.tree_cpu_seconds(proc.pid) - cpu0
        busy1 = machine_busy()
        # the teacher's next refresh, after the last answer was saved
        await teacher.poll()
        screen = list(teacher.texts)
        stop.set()
        await asyncio.gather(*pollers)
        polls = sum(s.polls for s in students)
        for s in (teacher, *students):
            await s.close()
        with classroom.open_store(db) as store:
            tallies = store.tallies(code).get(QUESTION, {})
        rows = None
        if db.startswith("sqlite://"):
            with closing(sqlite3.connect(db.removeprefix("sqlite://"))) as conn:
                rows = conn.execute("SELECT count(*), count(DISTINCT student) FROM "
                                    "classroom_answers WHERE code = ?", (code,)).fetchone()
    finally:
        ws_load.stop_server(proc)
    expected = {c: sum(1 for v in picked.values() if v == c) for c in set(picked.values())}
    n = len(picked)
    joined_line = f"{args.students} students in class {classroom.format_code(code)}"
    counted = any(joined_line in t and f"{n} answers to this question" in t for t in screen)
    if not counted:
        print("  the teacher's screen:", screen)
    bars = {m[1]: int(m[2]) for t in screen if (m := re.fullmatch(r"(.*): (\d+) \(\d+ %\)", t))}
    options = list(teacher.radios[RADIO].options)
    counted = counted and bars == {label: expected.get(str(k), 0)
                                   for k, label in enumerate(options)}
    wall = (busy1[1] - busy0[1]) / (os.cpu_count() or 1)
    other = ((busy1[0] - busy0[0]) - cpu) / max(wall, 1e-9)  # cores busy with the rest
    return {"students": args.students, "answered": n, "failures": failures,
            "stored": sum(tallies.values()), "tallies_match": tallies == expected,
            "rows": rows, "teacher_counts_right": counted, "teacher_bars": bars,
            "median": statistics.median(latencies) if latencies else float("nan"),
            "p95": p95(latencies), "max": max(latencies, default=float("nan")),
            "answered_in_s": answered_in, "polls": polls, "server_cpu_s": cpu,
            "other_cpu_cores": other, "db": "sqlite" if db.startswith("sqlite") else "postgresql"}


# ------------------------------------------------- the tour without a class ----
async def tour_run(args, seed: int) -> dict:
    """The same students making the same prediction on the tour outside any class (no
    store, no 2-second refresh): what the tour's own step costs under this load."""
    tmp = Path(tempfile.mkdtemp(prefix="rope-class-load-"))
    proc, url = await served(ROOT, {**os.environ, classroom.ENV: f"sqlite://{tmp / 'c.sqlite3'}"})

    async def predict(s: Screen) -> None:
        radio = s.radios[RADIO]
        s.states[radio.id] = WidgetState(id=radio.id, string_value=s.rng.choice(
            list(radio.options)))
        await s.rerun(ws_load.Step(s.sid, 1, "predict", "tour", 0.0, 0.0))

    return await crowd_step(args, seed, proc, url, Screen, "tour_step=1", "tour", "tour",
                            predict)


# ----------------------------------------------------------------- the floor ----
async def floor_run(args, seed: int) -> dict:
    """As many sessions of the floor app, each moving its slider once: the floor's step."""
    proc, url = await served(floor_app(), dict(os.environ))
    return await crowd_step(args, seed, proc, url, ws_load.Session, "", "overview", "floor",
                            lambda s: s.change(ws_load.Step(s.sid, 1, "change", "overview",
                                                            0.0, 0.0)))


# --------------------------------------------------- one step at a time ----
async def solo_costs(args) -> dict:
    """Server CPU of one step with nothing else running (mean of ``--solo`` steps, each
    waited for): a student's answer, a student's 2-second poll, the same prediction
    outside a class (one server), and the floor's slider step (another)."""
    tmp = Path(tempfile.mkdtemp(prefix="rope-class-load-"))
    db = f"sqlite://{tmp / 'class.sqlite3'}"
    out = {}
    proc, url = await served(ROOT, {**os.environ, classroom.ENV: db})
    try:
        with classroom.open_store(db) as store:
            code, _ = store.create_class()
        run = ws_load.Run(pid=proc.pid)
        student = Screen(0, namespace(url, f"class={code}&tour_step=1"), run, random.Random(1))
        alone = Screen(1, namespace(url, "tour_step=1"), run, random.Random(2))
        for s in (student, alone):
            await s.load(ws_load.Step(s.sid, 0, "load", "tour", 0.0, 0.0), "tour")

        async def cost(s: Screen, what: str) -> float:
            cpu0 = ws_load.tree_cpu_seconds(proc.pid)
            for n in range(args.solo):
                step = ws_load.Step(s.sid, 1, what, "tour", 0.0, 0.0)
                if what == "poll":
                    await s.rerun(step, fragment=s.fragment)
                else:
                    radio = s.radios[RADIO]
                    s.states[radio.id] = WidgetState(id=radio.id,
                                                     string_value=radio.options[n % 2])
                    await s.rerun(step)
            return (ws_load.tree_cpu_seconds(proc.pid) - cpu0) / args.solo

        await cost(alone, "predict")  # warm
        out["answer"] = await cost(student, "answer")
        out["poll"] = await cost(student, "poll")
        out["tour"] = await cost(alone, "predict")
        for s in (student, alone):
            await s.close()
    finally:
        ws_load.stop_server(proc)
    proc, url = await served(floor_app(), dict(os.environ))
    try:
        s = ws_load.Session(0, namespace(url, ""), ws_load.Run(pid=proc.pid), random.Random(3))
        await s.load(ws_load.Step(0, 0, "load", "overview", 0.0, 0.0), "overview")
        cpu0 = ws_load.tree_cpu_seconds(proc.pid)
        for _ in range(args.solo):
            await s.change(ws_load.Step(0, 1, "change", "overview", 0.0, 0.0))
        out["floor"] = (ws_load.tree_cpu_seconds(proc.pid) - cpu0) / args.solo
        await s.close()
    finally:
        ws_load.stop_server(proc)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--within", type=float, default=5.0,
                        help="s: the answers come at moments drawn in this window (5)")
    parser.add_argument("--ramp", type=float, default=10.0,
                        help="s: the students arrive over this window before answering (10)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--db", default=None,
                        help="ROPE_CLASS_DB for the app (default: a fresh SQLite file)")
    parser.add_argument("--postgres", action="store_true",
                        help="the class database on a PostgreSQL server started for the run "
                             "in a temporary folder (tests/postgres_server.py)")
    parser.add_argument("--solo", type=int, default=20,
                        help="steps of each kind timed one at a time for their server CPU "
                             "(0: none)")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        if args.postgres:
            from postgres_server import PostgresServer

            args.db = stack.enter_context(PostgresServer()).url
        return measure(args)


def measure(args) -> int:
    print(f"{args.students} students answer within {args.within:g} s; {args.runs} run(s); "
          f"{loadavg()}")
    results = []
    parts = {"class": class_run, "tour": tour_run, "floor": floor_run}
    for i in range(args.runs):
        order = ("class", "tour", "floor") if i % 2 == 0 else ("floor", "tour", "class")
        got = {}
        for which in order:
            got[which] = asyncio.run(parts[which](args, i + 1))
        c, t, f = got["class"], got["tour"], got["floor"]
        ratio = c["p95"] / f["p95"]
        results.append({**got, "ratio": ratio, "tour_ratio": t["p95"] / f["p95"]})
        print(f"run {i + 1} ({' then '.join(order)}; {loadavg()}):")
        print(f"  class ({c['db']}): {c['answered']} of {c['students']} answers saved, "
              f"{c['stored']} stored (one per student: {c['rows']}, choices as picked: "
              f"{c['tallies_match']}), within {c['answered_in_s']:.1f} s; teacher's next "
              f"refresh right: {c['teacher_counts_right']} {c['teacher_bars']}; "
              f"{c['polls']} polls of the students' screens meanwhile")
        print(f"  answer step: median {c['median']:.3f} s, p95 {c['p95']:.3f} s, max "
              f"{c['max']:.3f} s; server CPU {c['server_cpu_s']:.1f} s; the rest of the "
              f"machine used {c['other_cpu_cores']:.2f} cores")
        print(f"  the tour's prediction outside a class: median {t['median']:.3f} s, p95 "
              f"{t['p95']:.3f} s, max {t['max']:.3f} s")
        print(f"  floor step:  median {f['median']:.3f} s, p95 {f['p95']:.3f} s, max "
              f"{f['max']:.3f} s")
        print(f"  p95 ratio: answer step {ratio:.2f}x the floor's (the tour outside a class: "
              f"{t['p95'] / f['p95']:.2f}x)")
        for problem in c["failures"] + t["failures"] + f["failures"]:
            print("  FAILED:", problem)
    ok = True
    if results:
        ratios = [r["ratio"] for r in results]
        ok = all(r["class"]["answered"] == args.students and r["class"]["stored"] == args.students
                 and r["class"]["tallies_match"] and r["class"]["teacher_counts_right"]
                 and not r["class"]["failures"] for r in results)
        print(f"median p95 ratio over {len(ratios)} run(s): {statistics.median(ratios):.2f}x "
              f"(outside a class: {statistics.median(r['tour_ratio'] for r in results):.2f}x); "
              f"every answer stored once and the teacher's count right: {ok}")
    solo = asyncio.run(solo_costs(args)) if args.solo else {}
    if solo:
        print(f"server CPU of one step, nothing else running (mean of {args.solo}): answer "
              f"{solo['answer'] * 1000:.0f} ms, 2-second poll {solo['poll'] * 1000:.0f} ms, the "
              f"prediction outside a class {solo['tour'] * 1000:.0f} ms, the floor's step "
              f"{solo['floor'] * 1000:.0f} ms ({solo['answer'] / solo['floor']:.1f}x, "
              f"{solo['tour'] / solo['floor']:.1f}x)")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": results, "solo": solo}, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
