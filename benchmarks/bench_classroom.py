#!/usr/bin/env python
"""The classroom store's throughput: answers/s on SQLite and PostgreSQL, side by side.

Students answer through ``classroom.Store.answer`` from several threads in
several processes (tests/classroom_workers.py: each student answers each
question twice, a first choice and then a changed one, and one student shared
by every thread answers from all of them at once). Every process opens its
store, then all start at the same moment (or as soon as it is open); answers/s
is all the answers over the time from the first start until the last process ends. Each answer is a
committed, durable transaction: SQLite in WAL mode with synchronous=FULL,
PostgreSQL with its default synchronous_commit=on (a server started for the
run in a temporary folder, tests/postgres_server.py). Then the 2-second refresh,
``Store.status``, in reads/s from 8 threads. Prints the 1-minute load average:
on a shared machine the figures are only comparable within one run.

Run from the repository root:
    .venv/bin/python benchmarks/bench_classroom.py [--students 60] [--questions 12]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from postgres_server import PostgresServer, missing_reason  # noqa: E402

import classroom  # noqa: E402

WORKERS = ROOT / "tests" / "classroom_workers.py"
SHAPES = ((1, 1), (1, 8), (2, 8), (4, 4))  # processes x threads


def answers_per_second(url: str, processes: int, threads: int, students: int,
                       questions: int) -> tuple[int, float, list[float]]:
    """(answers, seconds, each answer's seconds) of one run on a new class."""
    per_thread = max(1, students // (processes * threads))
    with classroom.open_store(url) as store:
        code, key = store.create_class()
        at = time.time() + 1.0 + 0.3 * processes  # after every process has opened its store
        runs = [subprocess.Popen([sys.executable, str(WORKERS), "answer", url, code, str(p),
                                  str(threads), str(per_thread), str(questions), str(at)],
                                 stdout=subprocess.PIPE, text=True) for p in range(processes)]
        lines = [run.communicate()[0].split() for run in runs]
        if any(run.returncode for run in runs):
            raise SystemExit(f"a worker failed on {url}")
        start = min(float(line[2]) for line in lines)  # each waited until ``at`` or ready
        ends = [float(line[3]) for line in lines]
        times = [float(t) for line in lines for t in line[4:]]
        tallies = store.tallies(code)
        counted = sum(sum(v.values()) for q, v in tallies.items() if not q.startswith("shared"))
        if counted != processes * threads * per_thread * questions:  # each counted once
            raise SystemExit(f"{counted} answers counted on {url}: expected "
                             f"{processes * threads * per_thread * questions}")
        store.end(code, key)
    return len(times), max(ends) - start, times


def status_per_second(url: str, threads: int = 8, seconds: float = 2.0) -> float:
    """Store.status calls per second from ``threads`` threads of one process."""
    with classroom.open_store(url) as store:
        code, key = store.create_class()
        for n in range(60):
            store.answer(code, f"student-{n:03d}", "q1", "abcd"[n % 4])
        store.ask(code, key, "q1")
        calls = [0] * threads
        stop = time.monotonic() + seconds

        def poll(t: int) -> None:
            while time.monotonic() < stop:
                store.status(code)
                calls[t] += 1

        workers = [threading.Thread(target=poll, args=(t,)) for t in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        store.end(code, key)
    return sum(calls) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=64, help="students per run (64)")
    parser.add_argument("--questions", type=int, default=12, help="questions each (12)")
    args = parser.parse_args()
    print(f"classroom store, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f}; {args.students} students x {args.questions} questions "
          "x 2 answers per run")
    with contextlib.ExitStack() as stack:
        folder = stack.enter_context(tempfile.TemporaryDirectory())
        backends = [("sqlite", f"sqlite://{folder}/bench.sqlite3")]
        missing = missing_reason()
        if missing:
            print(f"PostgreSQL skipped: {missing}")
        else:
            backends.append(("postgresql", stack.enter_context(PostgresServer()).url))
        print(f"{'backend':<11} {'processes x threads':>19} {'answers':>8} {'seconds':>8} "
              f"{'answers/s':>10} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7}")
        for name, url in backends:
            for processes, threads in SHAPES:
                n, seconds, times = answers_per_second(url, processes, threads,
                                                       args.students, args.questions)
                cuts = statistics.quantiles(times, n=100)
                print(f"{name:<11} {f'{processes} x {threads}':>19} {n:>8} {seconds:>8.2f} "
                      f"{n / seconds:>10.0f} {cuts[49] * 1e3:>7.1f} {cuts[94] * 1e3:>7.1f} "
                      f"{max(times) * 1e3:>7.0f}",
                      flush=True)
        for name, url in backends:
            print(f"{name:<11} Store.status from 8 threads: "
                  f"{status_per_second(url):.0f} reads/s", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
