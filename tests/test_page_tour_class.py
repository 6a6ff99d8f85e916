"""A class that answers together on the Guided tour (issue 47; ui/classroom.py): a teacher
starts a class, students join with ?class=CODE and predict, the teacher's counts, the
reveal on every student's screen, the end of the class, and every bad link refused with a
warning. Real components: each test's class database is a SQLite file in its own
temporary folder (ROPE_CLASS_DB), shared by the teacher's and the students' sessions as
the app's processes share it; the counts are checked against what the test's students
chose and against the database itself."""

from __future__ import annotations

import re
import sqlite3
import threading
from contextlib import closing
from urllib.parse import parse_qs, urlsplit

import pytest
from apptest_helpers import APP, TIMEOUT, no_exceptions, shown, warnings
from streamlit.testing.v1 import AppTest

import classroom
from views.tour import STEPS

KEY_FORM = "A" * 43  # a teacher key of the right form (43 characters) that opens nothing


@pytest.fixture
def db(tmp_path, monkeypatch):
    """This test's class database: a SQLite file of its own (the app opens it by URL)."""
    path = tmp_path / "class.sqlite3"
    monkeypatch.setenv(classroom.ENV, f"sqlite://{path}")
    return path


def tour(query: dict | None = None) -> AppTest:
    """A browser session on the tour, opened with ``query`` as its address."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.switch_page("pages/tour.py")
    at.run()
    no_exceptions(at)
    return at


def start_class() -> tuple[AppTest, str, str]:
    """A teacher's session that started a class: (the session, the code, the teacher key),
    read from what the teacher is shown."""
    teacher = tour()
    teacher.button(key="class_start").click().run()
    no_exceptions(teacher)
    (code,) = [m.value for m in teacher.metric]
    join, teacher_link = [c.value for c in teacher.code]
    query = parse_qs(urlsplit(join).query)
    assert query == {"class": [code.replace("-", "")]}
    secret = parse_qs(urlsplit(teacher_link).query)
    assert secret["class"] == query["class"] and len(secret["key"][0]) == 43
    return teacher, code, secret["key"][0]


def text(at: AppTest) -> str:
    return " ".join(shown(e.value) for kind in ("markdown", "caption", "info", "success")
                    for e in getattr(at, kind))


def bars(at: AppTest) -> dict[str, tuple[int, str]]:
    """The class's distribution as drawn: {choice label: (students, mark)}, read from the
    bars' texts ('✓ label: n (p %)'); the tour's own progress bar left out."""
    out = {}
    for bar in at.get("progress"):
        m = re.fullmatch(r"(?:(✓) )?(.*): (\d+) \((\d+) %\)", shown(bar.proto.text))
        if m:
            out[m[2]] = (int(m[3]), m[1] or "")
    return out


def answer(at: AppTest, number: int, choice: int) -> AppTest:
    radio = at.radio(key=f"tour_guess_{number}")
    radio.set_value(radio.options[choice]).run()
    no_exceptions(at)
    return at


def stored(path) -> list[tuple]:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT code, student, question, choice FROM classroom_answers "
                            "ORDER BY student").fetchall()


def test_teacher_starts_a_class_students_join_answer_and_the_counts_are_right(db):
    teacher, code, _ = start_class()
    page = text(teacher)
    assert f"0 students in class {code}" in page
    (qr,) = [h.proto.body for h in teacher.get("html") if "QR code" in h.proto.body]
    assert f'alt="QR code of the join link of class {code}"' in qr
    assert 'src="data:image/svg+xml' in qr
    choices = STEPS[0].choices
    assert bars(teacher) == {c: (0, "") for c in choices}
    # three students: one typed the code in lower case with its hyphen
    students = [tour({"class": c}) for c in (code, code.lower(), code.replace("-", ""))]
    for at in students:
        assert not warnings(at), warnings(at)
        assert "Saved" not in text(at)  # nothing answered yet
    for at, choice in zip(students, (0, 0, 2), strict=True):
        answer(at, 1, choice)
        assert "Saved: the class has your prediction." in text(at)
    answer(students[1], 1, 1)  # a changed answer replaces the old one
    teacher.run()
    assert f"3 students in class {code}" in text(teacher)
    assert "3 answers to this question" in text(teacher)
    assert bars(teacher) == {choices[0]: (1, ""), choices[1]: (1, ""), choices[2]: (1, "")}
    rows = stored(db)
    assert len(rows) == 3 and {r[2] for r in rows} == {"tour-1"}
    assert sorted(r[3] for r in rows) == ["0", "1", "2"]
    assert len({r[1] for r in rows}) == 3  # three random ids, no name


def test_reveal_shows_the_answer_beside_the_class_distribution_on_every_student_screen(db):
    teacher, code, _ = start_class()
    students = [tour({"class": code}) for _ in range(2)]
    step = STEPS[0]
    for at, choice in zip(students, (0, 1), strict=True):
        answer(at, 1, choice)
        assert "Answer:" not in text(at) and not bars(at)  # nothing before the reveal
        assert not at.get("toggle") or not [t for t in at.toggle if t.key == "tour_reveal_1"]
    teacher.button(key="class_reveal").click().run()
    no_exceptions(teacher)
    assert "Answer:" in text(teacher)
    assert not [b for b in teacher.button if b.key == "class_reveal"]  # revealed once
    # the right choice, as the tour's own tests derive it (tests/test_page_tour.py)
    (right,) = [n for n, c in enumerate(step.choices) if f"Answer: {c}." in text(teacher)]
    for at, choice in zip(students, (0, 1), strict=True):
        at.run()
        no_exceptions(at)
        page = text(at)
        assert f"Answer: {step.choices[right]}." in page
        drawn = bars(at)
        assert drawn[step.choices[right]][1] == "✓"  # the right one marked after the reveal
        assert {label: n for label, (n, _) in drawn.items()} == {
            step.choices[0]: 1, step.choices[1]: 1, step.choices[2]: 0}
        assert at.radio(key="tour_guess_1").disabled  # answers are closed
        judged = "was right" if choice == right else "the live numbers say"
        assert judged in page


def test_a_student_cannot_reveal_or_end(db):
    teacher, code, _ = start_class()
    student = tour({"class": code})
    keys = {b.key for b in student.button}
    assert not keys & {"class_reveal", "class_end", "class_start"}
    assert "class_leave" in keys
    # a student who forges a key of the right form is refused, and stays no teacher
    forged = tour({"class": code, "key": KEY_FORM})
    assert any(f"does not open class {code}" in w for w in warnings(forged))
    assert not {b.key for b in forged.button} & {"class_reveal", "class_end"}
    assert "key" not in forged.query_params  # the key never stays in the address


def test_the_teacher_link_opens_the_class_as_its_teacher_in_another_session(db):
    _, code, key = start_class()
    other = tour({"class": code, "key": key})
    assert not warnings(other)
    assert {"class_reveal", "class_end"} <= {b.key for b in other.button}
    assert "key" not in other.query_params  # the secret leaves the address bar


def test_end_deletes_the_class_at_once_and_students_are_told(db):
    teacher, code, _ = start_class()
    student = answer(tour({"class": code}), 1, 0)
    assert len(stored(db)) == 1
    teacher.button(key="class_end").click().run()
    no_exceptions(teacher)
    assert f"Class {code} has ended: its answers are deleted." in text(teacher)
    assert stored(db) == []
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT count(*) FROM classroom_classes").fetchone() == (0,)
    assert {"class_start"} <= {b.key for b in teacher.button}  # a new class can start
    student.run()
    no_exceptions(student)
    assert f"Class {code} has ended" in text(student)
    assert "class" not in student.query_params
    # the join link now says that no such class runs
    late = tour({"class": code})
    assert any(f"No class {code} is running" in w for w in warnings(late))


@pytest.mark.parametrize(("query", "said"), [
    ({"class": "abc"}, "class code 'abc' is refused: a class code is 8 characters"),
    ({"class": "22222222"}, "No class 2222-2222 is running"),
    ({"class": "0OI1ABCD"}, "(no 0, O, 1 or I)"),
    ({"class": "[prize](https://evil.example)"}, "class code '[prize](https"),
    ({"class": ["22222222", "33333333"]}, "class code '22222222 33333333' is refused"),
    ({"key": KEY_FORM}, "The link has a teacher key but no class code"),
    ({"class": "22222222", "key": "short"}, "The teacher key is refused"),
])
def test_a_bad_class_link_warns_and_the_tour_keeps_working(db, query, said):
    at = tour(query)
    (warning,) = [w for w in at.warning if "class" in shown(w.value).lower()
                  or "teacher" in shown(w.value)]
    assert said in shown(warning.value)
    assert "](" not in warning.value.replace("\\]\\(", "")  # no link drawn from the address
    assert "short" not in shown(warning.value)  # a key is never quoted
    assert at.radio(key="tour_guess_1")  # the step still works, without a class
    assert {"class_start"} <= {b.key for b in at.button}
    assert "class" not in at.query_params and "key" not in at.query_params


def test_class_warnings_and_teacher_view_in_chinese(db):
    at = tour({"class": "abc", "lang": "zh"})
    assert any("班级代码" in w and "不被接受" in w for w in warnings(at))
    _, code, key = start_class()
    teacher = tour({"class": code, "key": key, "lang": "zh"})
    page = text(teacher)
    assert f"班级 {code} 有 0 名学生" in page and "这道题有 0 个回答" in page
    assert "向全班揭晓" in {b.label for b in teacher.button}


def test_students_answering_at_once_are_each_counted_once(db):
    """Eight sessions answer at the same moment (threads): eight answers stored, and the
    teacher's next refresh counts them all."""
    teacher, code, _ = start_class()
    students = [tour({"class": code}) for _ in range(8)]
    go = threading.Barrier(len(students))
    errors = []

    def run(at, choice):
        try:
            radio = at.radio(key="tour_guess_1")
            radio.set_value(radio.options[choice])
            go.wait()
            at.run()
            assert "Saved" in text(at)
        except Exception as err:  # reported below
            errors.append(err)

    threads = [threading.Thread(target=run, args=(at, n % 3)) for n, at in enumerate(students)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    rows = stored(db)
    assert len(rows) == 8 and len({r[1] for r in rows}) == 8
    teacher.run()
    choices = STEPS[0].choices
    assert {label: n for label, (n, _) in bars(teacher).items()} == {
        choices[0]: 3, choices[1]: 3, choices[2]: 2}
