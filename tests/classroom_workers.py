"""Students answering a class, in threads of this process or of others.

Used by tests/test_classroom.py and benchmarks/bench_classroom.py. Run as a
script it is one process of students:

    python tests/classroom_workers.py answer URL CODE PROCESS THREADS STUDENTS QUESTIONS [AT]
    python tests/classroom_workers.py stream URL CODE

``answer``: the workload of :func:`answer_all` (from Unix time AT, once the
store is open, if given), then prints "answered N START END" and the seconds
each answer took (START and END: Unix times of the workload's run).
``stream``: answers new (student, question) pairs one after another, printing
"student question choice" once each is saved, until killed.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import classroom  # noqa: E402

SHARED = "student-shared"  # one student answering from every thread at once (many tabs)
SHARED_QUESTIONS = 10  # the questions SHARED answers: shared-0 to shared-9


def student(process: int, thread: int, k: int) -> str:
    return f"student-p{process}-t{thread}-s{k}"


def final_choice(process: int, thread: int, k: int, q: int) -> str:
    """The choice a student settles on (after a first, different one)."""
    return "abcd"[(7 * process + 5 * thread + 3 * k + q) % 4]


def answer_all(store, code: str, process: int, threads: int, students: int,
               questions: int) -> list[float]:
    """Each thread's students answer each question twice (a first choice, then
    final_choice), and SHARED answers questions shared-<k % 10> from every thread.
    Returns the seconds each answer took."""
    times: list[float] = []
    errors: list[BaseException] = []

    def run(thread: int) -> None:
        try:
            for k in range(students):
                for q in range(questions):
                    settled = final_choice(process, thread, k, q)
                    first = "abcd"[("abcd".index(settled) + 1) % 4]
                    for choice in (first, settled):
                        start = time.perf_counter()
                        store.answer(code, student(process, thread, k), f"q{q}", choice)
                        times.append(time.perf_counter() - start)
                store.answer(code, SHARED, f"shared-{k % SHARED_QUESTIONS}",
                             "abcd"[(process + thread) % 4])
        except BaseException as err:  # noqa: B036 (reported by the caller)
            errors.append(err)

    workers = [threading.Thread(target=run, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if errors:
        raise errors[0]
    return times


def expected_tallies(processes: int, threads: int, students: int, questions: int) -> dict:
    """The tallies answer_all leaves, counted from final_choice alone."""
    out: dict[str, dict[str, int]] = {}
    for p in range(processes):
        for t in range(threads):
            for k in range(students):
                for q in range(questions):
                    row = out.setdefault(f"q{q}", {})
                    choice = final_choice(p, t, k, q)
                    row[choice] = row.get(choice, 0) + 1
    for k in range(min(students, SHARED_QUESTIONS)):
        out[f"shared-{k}"] = None  # one answer, its choice the last thread's to commit
    return out


def stream(store, code: str) -> None:
    for n in range(10**9):
        who, question, choice = f"stream-student-{n // 40}", f"q{n % 40}", "abcd"[n % 4]
        store.answer(code, who, question, choice)
        print(who, question, choice, flush=True)


def main(argv: list[str]) -> None:
    command, url, code, *numbers = argv
    with classroom.open_store(url, retry_seconds=30) as store:
        if command == "stream":
            stream(store, code)
            return
        store.status(code)  # a connection open before the start
        if len(numbers) > 4:
            time.sleep(max(0.0, float(numbers.pop()) - time.time()))
        start = time.time()
        times = answer_all(store, code, *map(int, numbers))
        print("answered", len(times), f"{start:.6f} {time.time():.6f}",
              " ".join(f"{t:.6f}" for t in times), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
