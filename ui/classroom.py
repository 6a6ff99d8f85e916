"""A class that answers together (issue 47): what the teacher and the students see.

The store (package :mod:`classroom`, no Streamlit) keeps classes, answers and reveals;
this module is its user interface, for any page that asks a question (the Guided tour's
predictions). A page calls:

* :func:`joined` first: the class this browser session is in (a :class:`Room`), after
  reading the address: ``?class=CODE`` joins it as a student (a random id of the
  session, nothing personal), ``?class=CODE&key=KEY`` (the teacher link) opens it
  as its teacher, the key then removed from the address. Anything wrong (a code of the
  wrong form, a class that has ended or expired, a wrong key, the database away) is a
  warning; the page goes on without a class.
* :func:`panel`: the "Class" section: start a class; for its teacher the code, the join
  link and its QR code (segno) to project, the teacher link to keep, End class; for a
  student the class joined and Leave.
* :func:`revealed`, :func:`save`, :func:`live` around a question: the questions the
  teacher has revealed; a student's answer recorded ("saved" shown once the store has
  committed it); the part that refreshes every 2 s (``st.fragment(run_every=2)``): for
  the teacher how many joined and the distribution of answers (no right answer marked)
  with Reveal, for a student the class's distribution once revealed. A reveal or the
  end of the class reruns the whole page.

Questions and choices are the store's short identifiers (``tour-3``, ``0``), chosen by
the page. docs/classroom.md, "Running a class", says how a teacher uses it.
"""

from __future__ import annotations

import html
import logging
import os
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit, urlunsplit

import streamlit as st

import classroom
from classroom.store import check_key

from .i18n import _, ngettext
from .safety import plain, warning

CLASS_KEY = "class"  # ?class=K7QM3XHP: join as a student
TEACHER_KEY = "key"  # ?key=...: with ?class=, the teacher link (the store says key=)
_ROOM = "_class_room"  # session state: the Room this session is in
_SAVED = "_class_saved"  # session state: {(code, question): choice} saved in the store
_SEEN = "_class_seen"  # session state: the revealed questions the last full run drew
_ASKED = "_class_asked"  # session state: the question the teacher last made current
_NOTE = "_class_note"  # session state: a message for the next full run (the class ended)
REFRESH_S = 2  # how often the teacher's and the students' screens ask the store
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Room:
    code: str  # canonical, 'K7QM3XHP'
    teacher_key: str | None = None  # the teacher's session only
    student: str | None = None  # a student's session only: classroom.new_student_id()

    @property
    def teacher(self) -> bool:
        return self.teacher_key is not None

    @property
    def shown_code(self) -> str:
        return classroom.format_code(self.code)


@st.cache_resource(show_spinner=False, max_entries=4)
def _open(url: str | None) -> classroom.Store:
    return classroom.open_store(url)


def store() -> classroom.Store:
    """The process's store of the database ROPE_CLASS_DB names (opened once per URL)."""
    return _open(os.environ.get(classroom.ENV) or None)


def refusal(err: Exception) -> str:
    """The sentence for a refusal of the store, in the run's language (its template is
    in the catalog, tools/i18n.py); another error says only that the database failed."""
    if isinstance(err, classroom.ClassroomError):
        return _(err.template).format(**err.params)
    log.warning("class database error", exc_info=err)
    return _("The class database failed ({error}): nothing was saved, try again.").format(
        error=type(err).__name__)


def _warn(err: Exception) -> None:
    warning(refusal(err))  # shown as plain text: it may quote the address's values


FAILED = object()  # what _call returns when the store refused or failed


def _call(method: str, *args, later: bool = False):
    """``store().method(*args)``; a refusal or failure is a warning (``later``: on the
    next full run, for a button's callback) and returns FAILED. An unknown class (ended,
    expired) also takes this session out of it."""
    try:
        return getattr(store(), method)(*args)
    except Exception as err:  # a visitor never sees a traceback
        if isinstance(err, classroom.UnknownClass):
            _forget()
        if later:
            st.session_state[_NOTE] = refusal(err)
        else:
            _warn(err)
        return FAILED


# ------------------------------------------------------------------ joining ----
def _one(key: str) -> str | None:
    """The address's one value of ``key``; several values are refused as one odd value."""
    values = st.query_params.get_all(key)
    return None if not values else values[0] if len(values) == 1 else " ".join(values)


def _forget() -> None:
    """Take this session out of its class, and the class out of the address."""
    st.session_state.pop(_ROOM, None)
    for key in (CLASS_KEY, TEACHER_KEY):
        st.query_params.pop(key, None)


def joined() -> Room | None:
    """The class of this browser session, after applying the address (``?class=``,
    ``?key=``); None when it is in none. Draws the warnings of a bad link."""
    if (note := st.session_state.pop(_NOTE, None)) is not None:
        st.info(plain(note), icon=":material/groups:")
    room: Room | None = st.session_state.get(_ROOM)
    asked, key = _one(CLASS_KEY), _one(TEACHER_KEY)
    if asked is None:
        if key is not None:
            st.query_params.pop(TEACHER_KEY, None)
            warning(_("The link has a teacher key but no class code: it opens no class."))
        return room
    try:
        code = classroom.normalize_code(asked)
        if key is not None:
            key = check_key(key)
    except classroom.ClassroomError as err:
        for name in (CLASS_KEY, TEACHER_KEY):
            st.query_params.pop(name, None)
        _warn(err)
        return room
    if key is not None:
        st.query_params.pop(TEACHER_KEY, None)  # the secret leaves the address bar at once
        if room is not None and room.code == code and room.teacher_key == key:
            return room
        opens = _call("is_teacher", code, key)
        if opens is FAILED:
            return st.session_state.get(_ROOM)
        if not opens:
            st.query_params.pop(CLASS_KEY, None)
            warning(_("This teacher link does not open class {code}: its key is not the "
                      "class's.").format(code=classroom.format_code(code)))
            return room
        room = Room(code, teacher_key=key)
        st.session_state.pop(_ASKED, None)
    elif room is not None and room.code == code:
        return room
    else:
        student = classroom.new_student_id()  # random, once per browser session
        if _call("join", code, student) is FAILED:
            st.query_params.pop(CLASS_KEY, None)
            return st.session_state.get(_ROOM)
        room = Room(code, student=student)
    st.session_state[_ROOM] = room
    return room


def kept(room: Room | None) -> dict[str, str]:
    """What the page's own links keep of the class: a student's ``?class=`` (opened again,
    the address joins the class again); never the teacher's."""
    return {CLASS_KEY: room.code} if room is not None and not room.teacher else {}


def _start() -> None:
    created = _call("create_class", later=True)  # the store deletes expired classes first
    if created is not FAILED:
        code, key = created
        st.session_state[_ROOM] = Room(code, teacher_key=key)
        st.session_state.pop(_ASKED, None)
        for name in (CLASS_KEY, TEACHER_KEY):
            st.query_params.pop(name, None)


def _end(room: Room) -> None:
    if _call("end", room.code, room.teacher_key, later=True) is not FAILED:
        _forget()
        st.session_state[_NOTE] = _("Class {code} has ended: its answers are deleted.").format(
            code=room.shown_code)


def _leave(room: Room) -> None:
    _forget()
    st.session_state[_NOTE] = _("You left class {code}.").format(code=room.shown_code)


# -------------------------------------------------------------------- panel ----
def _address(query: dict[str, str]) -> str:
    """This page's address in the visitor's browser with ``query`` (relative when the
    browser did not say its address)."""
    url = st.context.url
    if not url:
        return "tour?" + urlencode(query)
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def qr_html(link: str, alt: str) -> str:
    """The QR code of ``link`` (segno, error correction M: read from the back of a room
    with a quarter of it hidden) as an <img> with its text alternative."""
    import segno

    uri = segno.make(link, error="m").svg_data_uri(scale=6, dark="#000", light="#fff")
    return (f'<img src="{html.escape(uri)}" alt="{html.escape(alt)}" '
            'style="max-width: 100%; height: auto; image-rendering: pixelated;">')


def panel(room: Room | None, container) -> None:
    """The "Class" section in ``container``: start a class; a teacher's code, join link,
    QR code, teacher link and End; a student's class and Leave."""
    if room is None:
        with container.expander(_("Teach it as a class"), icon=":material/groups:"):
            st.markdown(_(
                "Students join with a code or a QR code and predict on their own screens, "
                "with no name and no account. You see how the class answers, live, and "
                "reveal the answer on every screen at once. A class lasts 24 hours."))
            st.button(_("Start a class"), key="class_start", on_click=_start,
                      icon=":material/co_present:")
        return
    if not room.teacher:
        with container.container(border=True, key="class_student"):
            st.markdown(_("You are in class **{code}**. Your predictions go to the class "
                          "under a random id of this browser: no name.").format(
                              code=room.shown_code))
            st.button(_("Leave the class"), key="class_leave", on_click=_leave, args=(room,))
        return
    join = _address({CLASS_KEY: room.code})
    with container.expander(_("Class {code}").format(code=room.shown_code), expanded=True,
                            icon=":material/groups:"):
        left, right = st.columns([2, 1])
        left.metric(_("Class code"), room.shown_code)
        left.markdown(_("Students open this link, or scan the QR code:"))
        left.code(join, language=None, wrap_lines=True)
        left.caption(_("Each student joins under a random id of their browser: no name, no "
                       "account. The class and its answers are deleted after 24 hours, or "
                       "when you end it."))
        right.html(qr_html(join, _("QR code of the join link of class {code}").format(
            code=room.shown_code)))
        st.button(_("End the class"), key="class_end", on_click=_end, args=(room,),
                  icon=":material/stop_circle:",
                  help=_("Deletes the class and all its answers now."))
    with container.expander(_("Your teacher link: keep it to yourself"),
                            icon=":material/key:"):
        st.markdown(_("It opens this class as its teacher on another device or after the page "
                      "is reloaded. Whoever has it can reveal answers and end the class, so "
                      "do not project it."))
        st.code(_address({CLASS_KEY: room.code, TEACHER_KEY: room.teacher_key}),
                language=None, wrap_lines=True)


# ---------------------------------------------------------- around a question ----
def ask(room: Room | None, question: str) -> None:
    """The teacher's screen shows ``question``: it becomes the class's current one."""
    if room is None or not room.teacher or st.session_state.get(_ASKED) == (room.code, question):
        return
    if _call("ask", room.code, room.teacher_key, question) is not FAILED:
        st.session_state[_ASKED] = (room.code, question)


def revealed(room: Room | None) -> tuple[str, ...]:
    """The questions the class's teacher has revealed (read once per full run)."""
    if room is None:
        return ()
    status = _call("status", room.code)
    seen = () if status is FAILED else status.revealed
    st.session_state[_SEEN] = (room.code, seen)
    return seen


def save(room: Room | None, question: str, choice: str | None) -> None:
    """A student's answer to ``question``, sent to the store; "saved" is shown only once
    the store has committed it (a failed save is tried again on the next run)."""
    if room is None or room.teacher or choice is None:
        return
    saved = st.session_state.setdefault(_SAVED, {})
    if saved.get((room.code, question)) != choice:
        if _call("answer", room.code, room.student, question, choice) is FAILED:
            return
        saved[(room.code, question)] = choice
    st.caption(_("Saved: the class has your prediction."))


def _bars(tallies: dict[str, int], labels: dict[str, str], right: str | None) -> None:
    total = sum(tallies.values())
    for choice, label in labels.items():
        n = tallies.get(choice, 0)
        mark = "✓ " if choice == right else ""
        st.progress(n / total if total else 0.0, text=plain(mark + _(
            "{choice}: {n} ({percent} %)").format(choice=label, n=n,
                                                  percent=round(100 * n / total) if total else 0)))


def _reveal(room: Room, question: str) -> None:
    if _call("reveal", room.code, room.teacher_key, question, later=True) is not FAILED:
        st.session_state.pop(_SEEN, None)


@st.fragment(run_every=REFRESH_S)
def live(room: Room, question: str, labels: dict[str, str], right: str) -> None:
    """Every REFRESH_S seconds: the teacher's count of students and the distribution of
    ``question``'s answers (``labels``: {choice: text}), with Reveal; a student's view of
    the distribution once revealed, beside the answer (``right``: the right choice,
    marked only after the reveal). A new reveal, or the class gone, reruns the page."""
    try:
        status = store().status(room.code, question)
    except classroom.UnknownClass:
        _forget()
        st.session_state[_NOTE] = _("Class {code} has ended: it is no longer running.").format(
            code=room.shown_code)
        st.rerun(scope="app")
    except Exception as err:
        _warn(err)
        return
    if st.session_state.get(_SEEN) != (room.code, status.revealed):
        st.rerun(scope="app")  # a reveal since the page was drawn: draw the answer
    shown = question in status.revealed
    answered = sum(status.tallies.values())
    st.caption(ngettext("{n} student in class {code}", "{n} students in class {code}",
                        status.joined).format(n=status.joined, code=room.shown_code)
               + " · " + ngettext("{n} answer to this question", "{n} answers to this question",
                                  answered).format(n=answered))
    if room.teacher or shown:
        _bars(status.tallies, labels, right if shown else None)
    if room.teacher and not shown:
        st.button(_("Reveal to the class"), key="class_reveal", on_click=_reveal,
                  args=(room, question), type="primary", icon=":material/visibility:")
    elif not shown:
        st.caption(_("Your teacher reveals the answer on every screen at once."))
