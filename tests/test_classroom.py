"""The classroom store (classroom/) on real databases: SQLite files and a
PostgreSQL server started for this file (tests/postgres_server.py).

Every behaviour test runs on both backends. The PostgreSQL ones skip with a
reason when the server programs are missing, and fail instead when
ROPE_REQUIRE_POSTGRES is set (as .ci/run does). Concurrency: threads, and
processes (tests/classroom_workers.py) sharing one SQLite file or one server;
a writer killed with SIGKILL mid-stream; PostgreSQL crashed and restarted
while students answer. Each checks that every acknowledged answer is stored
exactly once and the tallies are exact.
"""

from __future__ import annotations

import hashlib
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest
from classroom_workers import expected_tallies
from postgres_server import PostgresServer, skip_without_postgres

import classroom
from classroom import (
    ClassroomError,
    Closed,
    Full,
    InvalidValue,
    Limits,
    Unavailable,
    UnknownClass,
    WrongKey,
)
from classroom.store import TABLES

ROOT = Path(__file__).resolve().parents[1]
WORKERS = Path(__file__).with_name("classroom_workers.py")
DAY = 24 * 3600


class Clock:
    """A clock the test moves: Unix seconds."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def postgres():
    skip_without_postgres()
    with PostgresServer() as pg:
        yield pg


def _query(url: str, text: str, params=()) -> list:
    """Read the database directly, not through the store."""
    kind, where = classroom.database(url)
    if kind == "sqlite":
        with closing(sqlite3.connect(where, isolation_level=None)) as conn:
            return conn.execute(text, params).fetchall()
    import psycopg

    with psycopg.connect(where, autocommit=True) as conn:
        cursor = conn.execute(text.replace("?", "%s"), params)
        return cursor.fetchall() if cursor.description else []


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path) -> str:
    """An empty class database of each kind."""
    if request.param == "sqlite":
        return f"sqlite://{tmp_path}/class.sqlite3"
    url = request.getfixturevalue("postgres").url
    _query(url, f"DROP TABLE IF EXISTS {', '.join(TABLES)}")
    return url


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(url, clock):
    with classroom.open_store(url, clock=clock) as store:
        yield store


def _rows(url: str) -> dict[str, int]:
    return {t: _query(url, f"SELECT count(*) FROM {t}")[0][0] for t in TABLES[:4]}


S1, S2, S3 = "student-one", "student-two", "student-three"


# ---------------------------------------------------------------- codes ----
def test_code_space_is_2_to_the_40():
    # digits and capitals without the look-alikes 0/O and 1/I
    letters = set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") - set("0O1I")
    assert sorted(classroom.ALPHABET) == sorted(letters) and len(letters) == 32
    assert len(letters) ** classroom.CODE_LENGTH == 2**40 == 1_099_511_627_776
    assert "1,099,511,627,776" in (ROOT / "docs" / "classroom.md").read_text()


@pytest.mark.parametrize("typed", ["k7qm-3xhp", "K7QM 3XHP", " K7QM3XHP ", "k7QM-3xhp"])
def test_code_typed_any_way_is_one_code(typed):
    assert classroom.normalize_code(typed) == "K7QM3XHP"
    assert classroom.format_code(typed) == "K7QM-3XHP"


def test_new_classes_have_distinct_readable_codes_and_long_keys(store):
    made = [store.create_class() for _ in range(30)]
    assert len({code for code, _ in made}) == 30
    for code, key in made:
        assert re.fullmatch("[2-9A-HJ-NP-Z]{8}", code)
        assert re.fullmatch("[A-Za-z0-9_-]{43}", key)  # 32 random bytes
    assert classroom.new_student_id() != classroom.new_student_id()
    assert re.fullmatch("[A-Za-z0-9_-]{22}", classroom.new_student_id())


# ----------------------------------------------------------- validation ----
BAD = [
    ("class code", {"code": "K7QM-3XH0"}, "'K7QM-3XH0'"),  # 0 is not in the alphabet
    ("class code", {"code": "K7QM3XH"}, "'K7QM3XH'"),
    ("class code", {"code": "K7QM3XHPP"}, "'K7QM3XHPP'"),
    ("class code", {"code": "'; DROP TABLE x; --"}, "\"'; DROP TABLE x; --\""),
    ("class code", {"code": 12345678}, "12345678"),
    ("class code", {"code": None}, "None"),
    ("student id", {"student": "short"}, "'short'"),
    ("student id", {"student": "s" * 65}, "'" + "s" * 39 + "…"),
    ("student id", {"student": "student one"}, "'student one'"),
    ("student id", {"student": "étudiant-1"}, "'étudiant-1'"),
    ("question", {"question": ""}, "''"),
    ("question", {"question": "q" * 65}, "'" + "q" * 39 + "…"),
    ("question", {"question": "-tour"}, "'-tour'"),
    ("question", {"question": "tour\n1"}, "'tour\\n1'"),
    ("question", {"question": "a' OR '1'='1"}, "\"a' OR '1'='1\""),
    ("choice", {"choice": ""}, "''"),
    ("choice", {"choice": "c" * 33}, "'" + "c" * 32),
    ("choice", {"choice": "<b>x</b>"}, "'<b>x</b>'"),
    ("choice", {"choice": 3}, "3"),
]


@pytest.mark.parametrize("name, bad, shown", BAD)
def test_bad_values_are_refused_naming_the_value(tmp_path, name, bad, shown):
    with classroom.open_store(f"sqlite://{tmp_path}/c.sqlite3") as store:
        code, _ = store.create_class()
        args = {"code": code, "student": S1, "question": "tour-1", "choice": "0", **bad}
        with pytest.raises(InvalidValue) as err:
            store.answer(**args)
        assert isinstance(err.value, ValueError)
        assert str(err.value).startswith(f"{name} {shown}") and "is refused" in str(err.value)
        assert str(err.value) == err.value.template.format(**err.value.params)
        assert store.tallies(code) == {}


@pytest.mark.parametrize("key", ["", "k" * 42, "k" * 44, "k" * 42 + "!", None])
def test_bad_teacher_keys_are_refused_without_quoting_them(tmp_path, key):
    with classroom.open_store(f"sqlite://{tmp_path}/c.sqlite3") as store:
        code, _ = store.create_class()
        for call in (lambda: store.reveal(code, key, "q1"), lambda: store.end(code, key),
                     lambda: store.ask(code, key, "q1"), lambda: store.is_teacher(code, key)):
            with pytest.raises(InvalidValue, match="teacher key is refused") as err:
                call()
            assert not key or key not in str(err.value)
        store.answer(code, S1, "q1", "a")  # the class goes on


# ------------------------------------------------------------ behaviour ----
def test_one_answer_per_student_and_question(store):
    code, _ = store.create_class()
    store.answer(code, S1, "tour-1", "a")
    store.answer(code, S1, "tour-1", "b")  # changed: replaces
    store.answer(code, S1, "tour-1", "b")  # again: no second count
    store.answer(code, S2, "tour-1", "b")
    store.answer(code, S2, "tour-2", "c")
    assert store.tallies(code) == {"tour-1": {"b": 2}, "tour-2": {"c": 1}}
    assert store.status(code).joined == 2


def test_reveal_closes_the_question_and_only_it(store):
    code, key = store.create_class()
    store.answer(code, S1, "tour-1", "a")
    store.reveal(code, key, "tour-1")
    store.reveal(code, key, "tour-1")  # twice: no error
    with pytest.raises(Closed, match="tour-1 has been revealed"):
        store.answer(code, S1, "tour-1", "b")
    with pytest.raises(Closed):
        store.answer(code, S2, "tour-1", "a")  # nor a first answer
    store.answer(code, S1, "tour-1", "a")  # the same answer again: a retry, accepted
    store.answer(code, S1, "tour-2", "b")
    assert store.tallies(code) == {"tour-1": {"a": 1}, "tour-2": {"b": 1}}
    assert store.status(code).joined == 1  # the refused first answer did not join S2


def test_status_is_what_a_refresh_shows(store):
    code, key = store.create_class()
    status = store.status(code)
    assert (status.joined, status.question, status.tallies, status.revealed) == (0, None, {}, ())
    store.join(code, S1)
    store.join(code, S1)
    store.join(code, S2)
    for who, choice in ((S1, "a"), (S2, "b"), (S3, "b")):
        store.answer(code, who, "tour-3", choice)
    store.answer(code, S1, "tour-4", "c")
    store.ask(code, key, "tour-3")
    status = store.status(code)
    assert (status.joined, status.question, status.tallies) == (3, "tour-3", {"a": 1, "b": 2})
    assert store.status(code, "tour-4").tallies == {"c": 1}
    assert store.status(code, "tour-9").tallies == {}
    store.reveal(code, key, "tour-4")
    store.reveal(code, key, "tour-3")
    assert store.status(code).revealed == ("tour-4", "tour-3")
    assert status.expires == 1_800_000_000 + DAY


def test_only_the_teacher_key_reveals_asks_or_ends(store, url):
    code, key = store.create_class()
    other_code, other_key = store.create_class()
    store.answer(code, S1, "q1", "a")
    for wrong in (other_key, key[:-1] + ("A" if key[-1] != "A" else "B")):
        with pytest.raises(WrongKey, match="does not open class"):
            store.reveal(code, wrong, "q1")
        with pytest.raises(WrongKey):
            store.ask(code, wrong, "q1")
        with pytest.raises(WrongKey):
            store.end(code, wrong)
        assert store.is_teacher(code, wrong) is False
    assert store.is_teacher(code, key) and store.is_teacher(other_code, other_key)
    assert store.status(code).revealed == () and store.tallies(code) == {"q1": {"a": 1}}
    # only a hash of the key is stored
    stored = sorted(h for (h,) in _query(url, "SELECT key_hash FROM classroom_classes"))
    assert stored == sorted(hashlib.sha256(k.encode()).hexdigest() for k in (key, other_key))
    if url.startswith("sqlite"):
        files = Path(classroom.database(url)[1]).parent.glob("class.sqlite3*")
        assert not any(key.encode() in f.read_bytes() for f in files)


def test_end_deletes_everything_at_once(store, url):
    code, key = store.create_class()
    kept, _ = store.create_class()
    for c in (code, kept):
        store.answer(c, S1, "q1", "a")
    store.reveal(code, key, "q1")
    assert _rows(url) == {"classroom_answers": 2, "classroom_students": 2,
                          "classroom_reveals": 1, "classroom_classes": 2}
    store.end(classroom.format_code(code), key)
    assert _rows(url) == {"classroom_answers": 1, "classroom_students": 1,
                          "classroom_reveals": 0, "classroom_classes": 1}
    store.end(code, key)  # ended twice: nothing happens
    for call in (lambda: store.answer(code, S1, "q2", "a"), lambda: store.join(code, S2),
                 lambda: store.tallies(code), lambda: store.status(code),
                 lambda: store.reveal(code, key, "q2")):
        with pytest.raises(UnknownClass, match="No class .* is running"):
            call()
    assert store.tallies(kept) == {"q1": {"a": 1}}


def test_a_class_expires_after_24_hours(store, url, clock):
    code, key = store.create_class()
    store.answer(code, S1, "q1", "a")
    clock.now += DAY - 1
    store.answer(code, S2, "q1", "a")
    clock.now += 1
    with pytest.raises(UnknownClass):
        store.answer(code, S1, "q1", "b")
    with pytest.raises(UnknownClass):
        store.status(code)
    assert _rows(url)["classroom_answers"] == 2  # invisible, deleted at the next purge
    assert store.purge_expired() == 1
    assert set(_rows(url).values()) == {0}
    store.end(code, key)  # nothing left to end: no error


def test_expired_classes_are_purged_when_a_class_is_created(store, url, clock):
    code, _ = store.create_class()
    store.answer(code, S1, "q1", "a")
    clock.now += DAY
    store.create_class()
    assert _rows(url)["classroom_answers"] == 0 and _rows(url)["classroom_classes"] == 1


def test_limits_bound_classes_students_and_answers(url, clock):
    limits = Limits(classes=2, students=3, answers=2)
    with classroom.open_store(url, limits=limits, clock=clock) as store:
        code, key = store.create_class()
        store.create_class()
        with pytest.raises(Full, match="already runs 2 classes"):
            store.create_class()
        for who in (S1, S2, S3):
            store.join(code, who)
        with pytest.raises(Full, match="full: 3 students"):
            store.answer(code, "student-four", "q1", "a")
        assert store.status(code).joined == 3
        store.answer(code, S1, "q1", "a")
        store.answer(code, S1, "q2", "a")
        store.answer(code, S1, "q2", "b")  # a changed answer is not one more
        with pytest.raises(Full, match="answered 2 questions"):
            store.answer(code, S1, "q3", "a")
        store.answer(code, S2, "q3", "a")  # another student still can
        store.reveal(code, key, "q1")
        store.reveal(code, key, "q2")
        with pytest.raises(Full, match="revealed 2 questions"):
            store.reveal(code, key, "q3")
        assert store.tallies(code) == {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"a": 1}}
        store.end(code, key)
        store.create_class()  # an ended class frees its place


def test_a_student_answers_only_the_class_named(store):
    first, _ = store.create_class()
    second, _ = store.create_class()
    store.answer(first, S1, "q1", "a")
    store.answer(second, S1, "q1", "b")  # the same browser id in another class: apart
    assert store.tallies(first) == {"q1": {"a": 1}}
    assert store.tallies(second) == {"q1": {"b": 1}}
    unused = next(c for c in ("22222222", "33333333") if c not in (first, second))
    with pytest.raises(UnknownClass):
        store.answer(unused, S1, "q1", "a")


def test_schema_is_versioned_and_a_newer_one_refused(url, clock):
    with classroom.open_store(url, clock=clock) as store:
        code, _ = store.create_class()
        store.answer(code, S1, "q1", "a")
    with classroom.open_store(url, clock=clock) as store:  # opened again: kept as it is
        assert store.tallies(code) == {"q1": {"a": 1}}
    assert _query(url, "SELECT version FROM classroom_schema") == [(1,)]
    _query(url, "INSERT INTO classroom_schema (version) VALUES (2)")
    with pytest.raises(ClassroomError, match="schema version 2; this app knows versions up to 1"):
        classroom.open_store(url, clock=clock)


def test_database_urls(monkeypatch, tmp_path):
    monkeypatch.delenv(classroom.ENV, raising=False)
    assert classroom.database() == ("sqlite", ROOT / "data" / "classroom.sqlite3")
    assert "data/" in (ROOT / ".gitignore").read_text().splitlines()
    monkeypatch.setenv(classroom.ENV, f"sqlite://{tmp_path}/x.sqlite3")
    assert classroom.database() == ("sqlite", tmp_path / "x.sqlite3")
    with classroom.open_store() as store:
        store.create_class()
    assert (tmp_path / "x.sqlite3").exists()
    pg = "postgresql://class:secret@db.example:5432/rope"
    assert classroom.database(pg) == ("postgresql", pg)
    for bad in ("sqlite://relative.db", "sqlite:///", "mysql://x", "", "/tmp/x.db"):
        with pytest.raises(InvalidValue, match="class database"):
            classroom.database(bad)
    with pytest.raises(InvalidValue) as err:
        classroom.database("mysql://user:secret@host/db")
    assert "secret" not in str(err.value)


def test_the_store_imports_no_streamlit_nor_psycopg_for_sqlite(tmp_path):
    code = ("import sys, classroom\n"
            f"classroom.open_store('sqlite://{tmp_path}/c.sqlite3').create_class()\n"
            "print(sorted(m for m in ('streamlit', 'psycopg', 'psycopg_pool', 'torch') "
            "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_missing_postgres_skips_here_and_fails_in_ci(monkeypatch):
    import postgres_server

    monkeypatch.setattr(postgres_server, "missing_reason", lambda: "no initdb")
    monkeypatch.delenv("ROPE_REQUIRE_POSTGRES", raising=False)
    with pytest.raises(pytest.skip.Exception, match="PostgreSQL tests skipped: no initdb"):
        postgres_server.skip_without_postgres()
    monkeypatch.setenv("ROPE_REQUIRE_POSTGRES", "1")
    with pytest.raises(RuntimeError, match="ROPE_REQUIRE_POSTGRES is set but no initdb"):
        postgres_server.skip_without_postgres()


# ---------------------------------------------------------- concurrency ----
def _check_workload(store, code, processes, threads, students, questions):
    want = expected_tallies(processes, threads, students, questions)
    got = store.tallies(code)
    assert set(got) == set(want)
    for question, tally in want.items():
        if tally is None:  # SHARED's answer from every thread: exactly one kept
            assert sum(got[question].values()) == 1
        else:
            assert got[question] == tally
    assert store.status(code).joined == processes * threads * students + 1


def test_students_on_threads_and_processes_count_once(url):
    from classroom_workers import answer_all

    processes, threads, students, questions = 3, 4, 3, 3
    with classroom.open_store(url) as store:
        code, _ = store.create_class()
        others = [subprocess.Popen([sys.executable, str(WORKERS), "answer", url, code, str(p),
                                    str(threads), str(students), str(questions)],
                                   stdout=subprocess.PIPE, text=True)
                  for p in range(1, processes)]
        times = answer_all(store, code, 0, threads, students, questions)
        outputs = [p.communicate(timeout=120)[0] for p in others]
        assert [p.returncode for p in others] == [0] * (processes - 1)
        assert len(times) == threads * students * questions * 2
        assert all(out.startswith(f"answered {len(times)} ") for out in outputs)
        _check_workload(store, code, processes, threads, students, questions)


def _at_once(calls) -> list:
    """Run the calls in threads started together; what each returned or raised."""
    results: list = [None] * len(calls)
    go = threading.Barrier(len(calls))

    def run(n: int) -> None:
        go.wait()
        try:
            results[n] = calls[n]()
        except Exception as err:
            results[n] = err

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_limits_hold_under_concurrent_calls(url):
    with classroom.open_store(url, limits=Limits(classes=4, students=10, answers=5)) as store:
        code, key = store.create_class()
        joins = _at_once([lambda n=n: store.answer(code, f"student-{n:03d}", "q1", "a")
                          for n in range(24)])
        assert sum(r is None for r in joins) == 10
        assert all(r is None or isinstance(r, Full) for r in joins)
        assert store.status(code).joined == 10 and store.tallies(code) == {"q1": {"a": 10}}
        joined = [f"student-{n:03d}" for n, r in enumerate(joins) if r is None]
        who = joined[0]  # one student in many tabs, answering new questions
        answers = _at_once([lambda n=n: store.answer(code, who, f"q{n + 2}", "b")
                            for n in range(12)])
        assert sum(r is None for r in answers) == 4  # q1 and 4 more
        assert _query(url, "SELECT count(*) FROM classroom_answers WHERE student = ?",
                      (who,)) == [(5,)]
        made = _at_once([store.create_class for _ in range(8)])
        assert sum(isinstance(r, tuple) for r in made) == 3
        # answers in flight while the teacher reveals: each is either counted (it came
        # first) or refused as closed, nothing in between
        results = _at_once([lambda: store.reveal(code, key, "q1")]
                           + [lambda s=s: store.answer(code, s, "q1", "c") for s in joined])
        changed = sum(r is None for r in results[1:])
        assert all(r is None or isinstance(r, Closed) for r in results)
        assert store.tallies(code)["q1"] == {k: v for k, v in
                                             {"a": 10 - changed, "c": changed}.items() if v}


def test_a_writer_killed_mid_stream_loses_no_saved_answer(url):
    with classroom.open_store(url) as store:
        code, _ = store.create_class()
        writer = subprocess.Popen([sys.executable, str(WORKERS), "stream", url, code],
                                  stdout=subprocess.PIPE, text=True)
        saved = []
        for line in writer.stdout:
            saved.append(tuple(line.split()))
            if len(saved) == 150:
                writer.send_signal(signal.SIGKILL)
                break
        writer.wait(timeout=30)
        saved += [tuple(line.split()) for line in writer.stdout if line.endswith("\n")]
        assert writer.returncode == -signal.SIGKILL
        stored = _query(url, "SELECT student, question, choice FROM classroom_answers")
        if url.startswith("sqlite"):
            assert _query(url, "PRAGMA integrity_check") == [("ok",)]
        assert set(saved) <= set(stored)
        # at most the one answer in flight was committed without being acknowledged
        assert len(stored) - len(saved) in (0, 1) and len(set(stored)) == len(stored)
        assert sum(sum(t.values()) for t in store.tallies(code).values()) == len(stored)


def test_busy_sqlite_is_waited_for_then_refused_not_lost(tmp_path, monkeypatch):
    import classroom.sqlite

    monkeypatch.setattr(classroom.sqlite, "BUSY_TIMEOUT_S", 0.1)
    url = f"sqlite://{tmp_path}/c.sqlite3"
    with classroom.open_store(url, retry_seconds=30) as store:
        code, _ = store.create_class()
        other = sqlite3.connect(tmp_path / "c.sqlite3", isolation_level=None,
                                check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")  # another process writing
        threading.Timer(0.4, other.execute, ("COMMIT",)).start()
        store.answer(code, S1, "q1", "a")  # waits, retries, saves
        assert store.retried > 0
        other.execute("BEGIN IMMEDIATE")
        store.retry_seconds = 1.0
        started = time.monotonic()
        with pytest.raises(Unavailable, match="nothing was saved"):
            store.answer(code, S2, "q1", "a")
        assert time.monotonic() - started < 3
        other.execute("COMMIT")
        assert store.tallies(code) == {"q1": {"a": 1}}


def test_postgres_restart_mid_class_loses_no_answer(postgres):
    url = postgres.url
    _query(url, f"DROP TABLE IF EXISTS {', '.join(TABLES)}")
    with classroom.open_store(url, retry_seconds=60) as store:
        code, _ = store.create_class()
        saved, errors, stop = [], [], threading.Event()

        def student(t: int) -> None:
            try:
                n = 0
                while not stop.is_set():
                    who, question = f"student-t{t}-{n // 40}", f"q{n % 40}"
                    store.answer(code, who, question, "abcd"[n % 4])
                    saved.append((who, question, "abcd"[n % 4]))
                    n += 1
            except BaseException as err:  # noqa: B036 (reported below)
                errors.append(err)

        threads = [threading.Thread(target=student, args=(t,)) for t in range(6)]
        for t in threads:
            t.start()
        _wait_for(lambda: len(saved) >= 60 or errors)
        postgres.restart("immediate")  # a crash: the server recovers from its WAL
        before = len(saved)
        _wait_for(lambda: len(saved) >= before + 60 or errors)
        stop.set()
        for t in threads:
            t.join(timeout=60)
        assert not errors and store.retried > 0
        stored = _query(url, "SELECT student, question, choice FROM classroom_answers")
        assert sorted(stored) == sorted(saved)  # every saved answer once, nothing else
        # with the server down, a call gives up after its retry time: nothing saved
        postgres.stop("fast")
        try:
            store.retry_seconds = 1.0
            with pytest.raises(Unavailable):
                store.answer(code, S1, "q1", "a")
        finally:
            postgres.start()
        store.retry_seconds = 60
        tallies: dict = {}
        for _, question, choice in saved:
            tallies.setdefault(question, {}).setdefault(choice, 0)
            tallies[question][choice] += 1
        assert store.tallies(code) == tallies


def _wait_for(condition, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
