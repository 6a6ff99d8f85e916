"""A class on the Guided tour in real browsers (issue 47, ui/classroom.py): what AppTest
cannot see. A teacher's tab starts a class and shows its QR code; a student's tab (another
browser context: another session) joins by the join link and predicts; the teacher's
screen counts it by itself, through its 2-second refresh, without a reload; Reveal reaches
the student's screen the same way; the teacher link opens the class in a third tab and
leaves the address bar without its key; End reaches the student. The server's class
database is a SQLite file in a temporary folder. Skipped like the other browser tests
when Chromium or Playwright is missing (tests/e2e_server.py).

Run:  .venv/bin/python -m pytest tests/test_e2e_class.py -v
"""

from __future__ import annotations

import e2e_server as e2e
import pytest

import classroom

e2e.skip_without_browser()

REFRESH_MS = 30_000  # two 2-second refreshes, with room for a busy CI machine


@pytest.fixture(scope="module")
def server(browser, tmp_path_factory):
    db = tmp_path_factory.mktemp("class") / "class.sqlite3"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(classroom.ENV, f"sqlite://{db}")
        with e2e.warmed_server(browser, "e2e-class.log") as srv:
            yield srv


def tab(browser):
    return e2e.new_page(browser, viewport={"width": 1400, "height": 900}, locale="en-US")


def test_a_class_in_three_tabs(browser, server):
    teacher, student, again = tab(browser), tab(browser), tab(browser)
    try:
        e2e.open_path(teacher, server, "/tour?tour_step=1")
        teacher.get_by_text("Teach it as a class").click()
        teacher.get_by_role("button", name="Start a class").click()
        value = teacher.locator('[data-testid="stMetricValue"]')
        value.wait_for(timeout=2 * e2e.LOAD_MS)  # the class is made in the run the click starts
        code = value.inner_text().strip()
        assert classroom.format_code(code) == code
        qr = teacher.locator(f'img[alt="QR code of the join link of class {code}"]')
        qr.wait_for()
        assert qr.evaluate("img => img.naturalWidth") > 100  # the SVG decoded and drawn
        join = teacher.locator('[data-testid="stCode"]').first.inner_text().strip()
        assert join == f"{server.url}/tour?class={code.replace('-', '')}"

        e2e.open_path(student, server, f"/tour?class={code.replace('-', '')}&tour_step=1")
        student.locator('[data-testid="stRadio"] [role="radiogroup"] label').first.click()
        student.get_by_text("Saved: the class has your prediction.").wait_for()
        # the teacher's screen counts the student by itself
        teacher.get_by_text(f"1 student in class {code}").wait_for(timeout=REFRESH_MS)
        teacher.get_by_text("1 answer to this question").wait_for(timeout=REFRESH_MS)

        teacher.get_by_text("Your teacher link: keep it to yourself").click()
        link = teacher.locator('[data-testid="stCode"]').nth(1)
        link.wait_for()
        e2e.open_path(again, server, link.inner_text().strip().removeprefix(server.url))
        again.get_by_role("button", name="Reveal to the class").wait_for()
        assert "key=" not in again.url  # the secret left the address bar

        teacher.get_by_role("button", name="Reveal to the class").click()
        student.get_by_text("Answer:", exact=False).first.wait_for(timeout=REFRESH_MS)
        assert student.get_by_text("✓", exact=False).count() >= 1

        teacher.get_by_role("button", name="End the class").click()
        student.get_by_text(f"Class {code} has ended", exact=False).wait_for(timeout=REFRESH_MS)
    finally:
        for page in (teacher, student, again):
            page.context.close()
