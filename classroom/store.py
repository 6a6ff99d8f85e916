"""The classroom store: classes, students' answers, reveals; its validation and SQL.

One API over two databases (classroom.sqlite, classroom.postgres): the SQL below
is written once, with ``?`` placeholders and PostgreSQL's row locks
(``FOR SHARE`` / ``FOR UPDATE``), which the SQLite backend drops (its write
transactions, ``BEGIN IMMEDIATE``, already lock the whole file). Every call is
one transaction, retried on a transient error (a busy SQLite file, a lost
PostgreSQL connection, a restart, a serialization failure) until
``retry_seconds`` have passed; a call returns only once its transaction is
committed, so an answer that returned is saved. Every write is idempotent, so
a retry after a commit whose acknowledgement was lost changes nothing.

Locks (PostgreSQL; in SQLite writers are one at a time): a call takes its
class's row first, then at most one student's row. Answers share the class row
(``FOR SHARE``), so they run side by side and a reveal (``FOR UPDATE``) waits
for those in flight: no answer counts after its question's reveal. A student's
first join takes the class row alone (``FOR UPDATE``), so the count of students
is exact; a student's answers take their student row, so their count is exact.

Docs: docs/classroom.md (codes, limits, privacy, expiry).
"""

from __future__ import annotations

import hashlib
import hmac
import random
import re
import secrets
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

# Class codes: 8 characters from 32, no 0/O or 1/I to confuse: 32**8 = 2**40 codes.
ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
CODE_LENGTH = 8
LIFETIME_S = 24 * 3600  # a class and its answers live 24 hours from its creation
PURGE_EVERY_S = 600  # each Store deletes expired classes at most this often
KEY_BYTES = 32  # teacher keys: secrets.token_urlsafe(32), 43 characters, 256 bits
STUDENT_BYTES = 16  # new_student_id(): 22 characters, 128 bits
SHOWN = 40  # characters of a refused value quoted in its error


@dataclass(frozen=True)
class Limits:
    """What one class and one server may hold (docs/classroom.md says why).

    ``answers``: the questions one student answers (a changed answer replaces the
    old one and does not count again), and the questions a teacher reveals.
    The worst case, classes x students x answers = 2,000,000 answers, is a
    276 MiB SQLite file (measured: docs/classroom.md)."""

    classes: int = 200  # live classes in one database
    students: int = 200  # students in one class
    answers: int = 50  # questions answered by one student


@dataclass(frozen=True)
class Status:
    """What a screen that refreshes every 2 s needs (Store.status)."""

    code: str
    joined: int  # students who joined
    question: str | None  # the question asked (the teacher's ``ask``), or the one requested
    tallies: dict[str, int]  # that question's answers, {choice: students}
    revealed: tuple[str, ...]  # the questions revealed so far, first revealed first
    expires: int  # when the class ends by itself, Unix seconds


# ------------------------------------------------------------------ errors ----
class ClassroomError(Exception):
    """A refusal the user interface shows: ``str(err)`` is the English sentence;
    ``err.template`` (a literal with named placeholders) and ``err.params`` let it
    be translated."""

    def __init__(self, template: str, **params) -> None:
        self.template = template
        self.params = params
        super().__init__(template.format(**params))


class InvalidValue(ClassroomError, ValueError):
    """A code, student id, question, choice or key of the wrong form."""


class UnknownClass(ClassroomError, LookupError):
    """No live class has this code (never created, ended or expired)."""


class WrongKey(ClassroomError, PermissionError):
    """The teacher key does not match the class's."""


class Closed(ClassroomError):
    """The question was revealed: its answers are final."""


class Full(ClassroomError):
    """A limit of :class:`Limits` is reached."""


class Unavailable(ClassroomError):
    """The database did not answer within the store's retry time: nothing was saved."""


# -------------------------------------------------------------- validation ----
def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN else text[:SHOWN] + "…"


def _check(name: str, value, pattern: re.Pattern, rule: str) -> str:
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise InvalidValue("{name} {value} is refused: {rule}.", name=name,
                           value=_shown(value), rule=rule)
    return value


_STUDENT = re.compile(r"[A-Za-z0-9_-]{8,64}")
_QUESTION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_CHOICE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
_KEY_LENGTH = (KEY_BYTES * 4 + 2) // 3  # base64 without padding: 43
_KEY = re.compile(f"[A-Za-z0-9_-]{{{_KEY_LENGTH}}}")
_CODE = re.compile(f"[{ALPHABET}]{{{CODE_LENGTH}}}")


def check_student(student) -> str:
    return _check("student id", student, _STUDENT,
                  "a student id is 8 to 64 characters from A-Z a-z 0-9 _ -")


def check_question(question) -> str:
    return _check("question", question, _QUESTION, "a question is 1 to 64 characters from "
                  "A-Z a-z 0-9 . _ -, starting with a letter or digit")


def check_choice(choice) -> str:
    return _check("choice", choice, _CHOICE, "a choice is 1 to 32 characters from "
                  "A-Z a-z 0-9 . _ -, starting with a letter or digit")


def check_key(teacher_key) -> str:
    """A teacher key's form (never quoted in the error: it is a secret)."""
    if isinstance(teacher_key, str) and _KEY.fullmatch(teacher_key):
        return teacher_key
    raise InvalidValue("The teacher key is refused: a teacher key is the {n} characters from "
                       "A-Z a-z 0-9 _ - after key= in the teacher link.", n=_KEY_LENGTH)


def normalize_code(code) -> str:
    """A class code as typed ('k7qm-3xhp', 'K7QM 3XHP') -> its canonical form
    'K7QM3XHP': upper case, spaces and hyphens dropped, then 8 characters of ALPHABET."""
    text = code.upper().replace("-", "").replace(" ", "") if isinstance(code, str) else code
    if isinstance(text, str) and _CODE.fullmatch(text):
        return text
    raise InvalidValue("class code {value} is refused: a class code is {n} characters from "
                       "{alphabet} (no 0, O, 1 or I).", value=_shown(code), n=CODE_LENGTH,
                       alphabet=ALPHABET)


def format_code(code: str) -> str:
    """'K7QM3XHP' -> 'K7QM-3XHP', to read aloud and type (normalize_code takes both)."""
    code = normalize_code(code)
    return f"{code[:4]}-{code[4:]}"


def new_student_id() -> str:
    """A random id for one browser session: no name, nothing personal."""
    return secrets.token_urlsafe(STUDENT_BYTES)


def _key_hash(key: str) -> str:
    # The key is 256 random bits, so one SHA-256 is as good as a slow password hash.
    return hashlib.sha256(key.encode()).hexdigest()


# --------------------------------------------------------------------- SQL ----
# The same schema on both databases; version n is MIGRATIONS[n - 1]. Deleting a
# class deletes its students, answers and reveals (ON DELETE CASCADE).
MIGRATIONS: tuple[tuple[str, ...], ...] = ((
    """CREATE TABLE classroom_classes (
        code TEXT PRIMARY KEY,
        key_hash TEXT NOT NULL,
        created BIGINT NOT NULL,
        expires BIGINT NOT NULL,
        question TEXT)""",
    "CREATE INDEX classroom_classes_expires ON classroom_classes (expires)",
    """CREATE TABLE classroom_students (
        code TEXT NOT NULL REFERENCES classroom_classes (code) ON DELETE CASCADE,
        student TEXT NOT NULL,
        joined BIGINT NOT NULL,
        PRIMARY KEY (code, student))""",
    """CREATE TABLE classroom_answers (
        code TEXT NOT NULL,
        student TEXT NOT NULL,
        question TEXT NOT NULL,
        choice TEXT NOT NULL,
        answered BIGINT NOT NULL,
        PRIMARY KEY (code, student, question),
        FOREIGN KEY (code, student) REFERENCES classroom_students (code, student)
            ON DELETE CASCADE)""",
    "CREATE INDEX classroom_answers_tally ON classroom_answers (code, question, choice)",
    """CREATE TABLE classroom_reveals (
        code TEXT NOT NULL REFERENCES classroom_classes (code) ON DELETE CASCADE,
        question TEXT NOT NULL,
        revealed BIGINT NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY (code, question))""",
),)
TABLES = ("classroom_answers", "classroom_students", "classroom_reveals",
          "classroom_classes", "classroom_schema")

_CLASS = "SELECT key_hash, question, expires FROM classroom_classes WHERE code = ?"
_STUDENT_ROW = "SELECT 1 FROM classroom_students WHERE code = ? AND student = ?"
_REVEALED = "SELECT 1 FROM classroom_reveals WHERE code = ? AND question = ?"
_PURGE = "DELETE FROM classroom_classes WHERE expires <= ?"
_CHOSEN = "SELECT choice FROM classroom_answers WHERE code = ? AND student = ? AND question = ?"

Sql = Callable[..., object]  # sql(text, params=()) -> a DB-API cursor


class Store:
    """Classes and their answers in one database (made by :func:`classroom.open_store`).

    Thread-safe: each call borrows a connection of the backend's pool. Arguments
    are validated first (:class:`InvalidValue`, a ValueError naming the value);
    refusals are the other :class:`ClassroomError` subclasses."""

    def __init__(self, db, *, limits: Limits = Limits(), clock: Callable[[], float] = time.time,
                 retry_seconds: float = 15.0) -> None:
        self._db = db
        self.limits = limits
        self._clock = clock
        self.retry_seconds = retry_seconds
        self.retried = 0  # transactions retried after a transient error, since opened
        self._run(self._migrate)
        self._next_purge = time.monotonic() + PURGE_EVERY_S
        self.purge_expired()

    # ----------------------------------------------------------- plumbing ----
    def _now(self) -> int:
        return int(self._clock())

    def _run(self, work: Callable[[Sql], object], write: bool = True):
        """``work(sql)`` in one transaction, retried on transient errors."""
        deadline = time.monotonic() + self.retry_seconds
        delay = 0.02
        while True:
            try:
                with self._db.transaction(write) as conn:
                    return work(lambda text, params=(): conn.execute(self._db.sql(text), params))
            except Exception as err:
                if isinstance(err, ClassroomError) or not self._db.transient(err):
                    raise
                if time.monotonic() + delay > deadline:
                    raise Unavailable("The class database did not answer for {seconds} s: "
                                      "nothing was saved, try again.",
                                      seconds=self.retry_seconds) from err
                self.retried += 1
                time.sleep(delay * random.uniform(0.5, 1.5))
                delay = min(2 * delay, 1.0)

    def _call(self, work: Callable[[Sql], object], write: bool = True):
        """A public call's transaction, after deleting expired classes when that is due."""
        if time.monotonic() >= self._next_purge:
            self._next_purge = time.monotonic() + PURGE_EVERY_S
            self.purge_expired()
        return self._run(work, write)

    def _migrate(self, sql: Sql) -> None:
        if self._db.serialize:
            sql(self._db.serialize)
        sql("CREATE TABLE IF NOT EXISTS classroom_schema (version INTEGER NOT NULL)")
        have = sql("SELECT max(version) FROM classroom_schema").fetchone()[0] or 0
        if have > len(MIGRATIONS):
            raise ClassroomError("The class database has schema version {have}; this app knows "
                                 "versions up to {known}: update the app.", have=have,
                                 known=len(MIGRATIONS))
        for version in range(have + 1, len(MIGRATIONS) + 1):
            for statement in MIGRATIONS[version - 1]:
                sql(statement)
            sql("INSERT INTO classroom_schema (version) VALUES (?)", (version,))

    def _live(self, sql: Sql, code: str, lock: str = "") -> tuple:
        """The live class's (key_hash, question, expires), with the row ``lock``."""
        row = sql(f"{_CLASS} AND expires > ? {lock}", (code, self._now())).fetchone()
        if row is None:
            raise UnknownClass("No class {code} is running: check the code (the class may "
                               "have ended).", code=format_code(code))
        return row

    @staticmethod
    def _teacher(code: str, teacher_key: str, row: tuple) -> None:
        """Refuse unless ``teacher_key`` is the key of the class ``row`` (constant time)."""
        if not hmac.compare_digest(_key_hash(teacher_key), row[0]):
            raise WrongKey("This teacher key does not open class {code}.", code=format_code(code))

    def _enter(self, sql: Sql, code: str, student: str) -> None:
        """Lock the class and the student's row, adding the student if new."""
        known = sql(_STUDENT_ROW, (code, student)).fetchone() is not None
        self._live(sql, code, "FOR SHARE" if known else "FOR UPDATE")
        if not known and sql("INSERT INTO classroom_students (code, student, joined) "
                             "VALUES (?, ?, ?) ON CONFLICT (code, student) DO NOTHING",
                             (code, student, self._now())).rowcount == 1:
            joined = sql("SELECT count(*) FROM classroom_students WHERE code = ?",
                         (code,)).fetchone()[0]
            if joined > self.limits.students:
                raise Full("Class {code} is full: {n} students have joined.",
                           code=format_code(code), n=self.limits.students)
        sql(f"{_STUDENT_ROW} FOR UPDATE", (code, student))

    # ----------------------------------------------------------- the API ----
    def create_class(self) -> tuple[str, str]:
        """A new class: (its code, the teacher key that reveals and ends it). Only a
        hash of the key is stored; show the key to the teacher alone."""
        key = secrets.token_urlsafe(KEY_BYTES)

        def work(sql: Sql) -> bool:
            if self._db.serialize:
                sql(self._db.serialize)
            row = sql("SELECT key_hash FROM classroom_classes WHERE code = ?", (code,)).fetchone()
            if row is not None:  # ours, when a retry follows a lost acknowledgement
                return hmac.compare_digest(row[0], _key_hash(key))
            sql(_PURGE, (self._now(),))
            live = sql("SELECT count(*) FROM classroom_classes").fetchone()[0]
            if live >= self.limits.classes:
                raise Full("This server already runs {n} classes: try again when one has "
                           "ended.", n=self.limits.classes)
            sql("INSERT INTO classroom_classes (code, key_hash, created, expires) "
                "VALUES (?, ?, ?, ?)", (code, _key_hash(key), self._now(),
                                        self._now() + LIFETIME_S))
            return True

        while True:  # a code already taken (one chance in 5e9 at most) draws another
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            if self._call(work):
                return code, key

    def join(self, code, student) -> None:
        """Record that ``student`` (new_student_id()) is in the class; joining again
        changes nothing. Answering joins too."""
        code, student = normalize_code(code), check_student(student)
        self._call(lambda sql: self._enter(sql, code, student))

    def answer(self, code, student, question, choice) -> None:
        """``student``'s answer to ``question``; a changed answer replaces the old one.
        Returns once saved. Refused (Closed) once the question is revealed, except
        the same answer again (a retry)."""
        code, student = normalize_code(code), check_student(student)
        question, choice = check_question(question), check_choice(choice)

        def work(sql: Sql) -> None:
            self._enter(sql, code, student)
            if sql(_REVEALED, (code, question)).fetchone():
                if sql(_CHOSEN, (code, student, question)).fetchone() == (choice,):
                    return
                raise Closed("The answer to {question} has been revealed: answers to it are "
                             "closed.", question=question)
            others = sql("SELECT count(*) FROM classroom_answers WHERE code = ? AND student = ? "
                         "AND question <> ?", (code, student, question)).fetchone()[0]
            if others >= self.limits.answers:
                raise Full("This student has answered {n} questions, the most one class "
                           "keeps.", n=self.limits.answers)
            sql("INSERT INTO classroom_answers (code, student, question, choice, answered) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (code, student, question) DO UPDATE "
                "SET choice = excluded.choice, answered = excluded.answered",
                (code, student, question, choice, self._now()))

        self._call(work)

    def tallies(self, code) -> dict[str, dict[str, int]]:
        """Every question's answers: {question: {choice: number of students}}."""
        code = normalize_code(code)

        def work(sql: Sql) -> dict:
            self._live(sql, code)
            out: dict[str, dict[str, int]] = {}
            for question, choice, n in sql(
                    "SELECT question, choice, count(*) FROM classroom_answers WHERE code = ? "
                    "GROUP BY question, choice ORDER BY question, choice", (code,)).fetchall():
                out.setdefault(question, {})[choice] = n
            return out

        return self._call(work, write=False)

    def status(self, code, question=None) -> Status:
        """The 2-second refresh, for the teacher and for each student: students
        joined, ``question``'s tallies (default: the question the teacher asked),
        and the questions revealed (a student's screen shows its answer when its
        question is in it). Reads only: a few indexed queries."""
        code = normalize_code(code)
        question = None if question is None else check_question(question)

        def work(sql: Sql) -> Status:
            _, asked, expires = self._live(sql, code)
            joined = sql("SELECT count(*) FROM classroom_students WHERE code = ?",
                         (code,)).fetchone()[0]
            shown = question or asked
            tallies = dict(sql("SELECT choice, count(*) FROM classroom_answers WHERE code = ? "
                               "AND question = ? GROUP BY choice ORDER BY choice",
                               (code, shown)).fetchall()) if shown else {}
            revealed = tuple(q for (q,) in sql(
                "SELECT question FROM classroom_reveals WHERE code = ? ORDER BY seq",
                (code,)).fetchall())
            return Status(code, joined, shown, tallies, revealed, expires)

        return self._call(work, write=False)

    def is_teacher(self, code, teacher_key) -> bool:
        """Whether ``teacher_key`` opens the live class ``code`` (for the teacher link)."""
        code, teacher_key = normalize_code(code), check_key(teacher_key)
        row = self._call(lambda sql: self._live(sql, code), write=False)
        return hmac.compare_digest(_key_hash(teacher_key), row[0])

    def ask(self, code, teacher_key, question) -> None:
        """Teacher only: make ``question`` the class's current one (Status.question)."""
        code, question = normalize_code(code), check_question(question)
        teacher_key = check_key(teacher_key)

        def work(sql: Sql) -> None:
            self._teacher(code, teacher_key, self._live(sql, code, "FOR UPDATE"))
            sql("UPDATE classroom_classes SET question = ? WHERE code = ?", (question, code))

        self._call(work)

    def reveal(self, code, teacher_key, question) -> None:
        """Teacher only: reveal ``question`` on every screen; its answers are final."""
        code, question = normalize_code(code), check_question(question)
        teacher_key = check_key(teacher_key)

        def work(sql: Sql) -> None:
            self._teacher(code, teacher_key, self._live(sql, code, "FOR UPDATE"))
            if sql(_REVEALED, (code, question)).fetchone():
                return
            n = sql("SELECT count(*) FROM classroom_reveals WHERE code = ?", (code,)).fetchone()[0]
            if n >= self.limits.answers:
                raise Full("Class {code} has revealed {n} questions, the most a class keeps.",
                           code=format_code(code), n=self.limits.answers)
            sql("INSERT INTO classroom_reveals (code, question, revealed, seq) "
                "VALUES (?, ?, ?, ?)", (code, question, self._now(), n + 1))

        self._call(work)

    def end(self, code, teacher_key) -> None:
        """Teacher only: delete the class and all its answers now. A class that is no
        longer there (ended, expired) is left as it is: ending twice is no error."""
        code, teacher_key = normalize_code(code), check_key(teacher_key)

        def work(sql: Sql) -> None:
            row = sql(f"{_CLASS} FOR UPDATE", (code,)).fetchone()  # expired or not
            if row is None:
                return
            self._teacher(code, teacher_key, row)
            sql("DELETE FROM classroom_classes WHERE code = ?", (code,))

        self._call(work)

    def purge_expired(self) -> int:
        """Delete the classes older than 24 hours with their answers; how many.
        Each Store does it when opened, on creating a class and every 10 minutes."""
        def work(sql: Sql) -> int:
            if self._db.serialize:  # one purge at a time: no deadlock between two
                sql(self._db.serialize)
            return sql(_PURGE, (self._now(),)).rowcount

        return self._run(work)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@contextmanager
def transaction(conn, begin: str):
    """``begin`` ... COMMIT on an autocommit connection; ROLLBACK if anything fails
    (a broken connection may refuse that too: its pool then drops it)."""
    conn.execute(begin)
    try:
        yield conn
    except BaseException:
        try:
            conn.execute("ROLLBACK")
        except Exception:
            pass
        raise
    conn.execute("COMMIT")
