"""Guided tour: numbered steps through the lesson, in two parts. Each step shows one
picture (its page's figure at the step's settings), says what to look at, asks for a
prediction, then reveals the answer, computed live with rope_core.teaching.tour from the
step's own settings. Each part ends with a recap and the student's score. Slide mode
(?slides=true) makes it a deck for the projector; the handout (?handout=true) prints a
part. A teacher can run it as a class (ui.classroom): students join with ?class=CODE,
their predictions are counted live, and the teacher reveals each answer on every screen."""


import streamlit as st

import ui
from ui import classroom
from ui.controls import undrawn_number
from ui.i18n import _
from ui.navigation import TOUR_STEP_KEY, tour_steps
from views.tour import (
    HANDOUT_CSS,
    PARTS,
    SLIDE_CSS,
    STEPS,
    N,
    answer,
    figure,
    handout_title,
    judged,
    next_links,
    part_of,
    question,
    recap,
    right_choice,
    say,
    score_line,
    settings_note,
    step_link,
    tally,
    where,
)


def _move(number: int, recap: int | None = None) -> None:
    """Go to step ``number``; in slide mode with ``recap``, to that part's recap, the
    slide after its last step. The step lives in the address alone (?tour_step=)."""
    st.query_params[TOUR_STEP_KEY] = str(number)
    st.session_state["tour_recap"] = recap


def _record(number: int) -> None:
    """The first reveal of a step locks in its prediction (None: none made) for the score."""
    record = st.session_state.setdefault("tour_record", {})
    if st.session_state.get(f"tour_reveal_{number}") and number not in record:
        record[number] = st.session_state.get(f"tour_guess_{number}")


def _start_again(part: int) -> None:
    """Forget the predictions and reveals of ``part``, and go to its first step."""
    record = st.session_state.setdefault("tour_record", {})
    for number in range(PARTS[part].first, PARTS[part].last + 1):
        record.pop(number, None)
        st.session_state.pop(f"tour_guess_{number}", None)
        st.session_state.pop(f"tour_reveal_{number}", None)
    _move(PARTS[part].first)


s = ui.settings()
record = st.session_state.setdefault("tour_record", {})
screen = st.container(key="tour_screen_only")  # what a printed handout leaves out
screen.title(_("Guided tour"))
modes = ui.row(screen)
slides = ui.toggle(_("Slide mode"), False, "slides", container=modes,
                   help=_("For the projector: one step a screen, the sidebar folded away, "
                          "← and → to move."))
handout = ui.toggle(_("Printable handout"), False, "handout", container=modes,
                    help=_("Every step of this part with its picture, to print with the "
                           "browser."))
slides = slides and not handout
if slides:
    st.set_page_config(initial_sidebar_state="collapsed")
    st.html(f"<style>{SLIDE_CSS}</style>")
elif st.session_state.get("tour_slides_shown"):  # leaving slide mode: the sidebar back
    st.set_page_config(initial_sidebar_state="expanded")
st.session_state["tour_slides_shown"] = slides
if handout:
    st.html(f"<style>{HANDOUT_CSS}</style>")
room = classroom.joined()  # ?class=CODE: this browser answers with its class
if not handout:
    classroom.panel(room, screen)
if not slides and not handout:
    screen.markdown(_(
        "{n} steps in two parts, the basics and research level. Each step shows one "
        "picture and says what to look at; predict the answer, then reveal it, computed "
        "live. A link (?tour_step=3) opens any step.").format(n=N))

body = st.container()  # the step, the recap or the handout; in slide mode the moves below it
moves = st.container() if slides else screen
number = undrawn_number(_("Step"), 1, N, 1, TOUR_STEP_KEY)
part = part_of(number)
at_recap = slides and st.session_state.get("tour_recap") == part and number == PARTS[part].last
moves.progress(number / N, text=where(number))
# the modes this visitor chose travel with the step links (the app's links carry only the
# language and the sidebar's settings)
kept = {key: "true" for key, on in (("slides", slides), ("handout", handout)) if on}
kept |= classroom.kept(room)
if slides:  # the recap of each part is a slide of its own, between its last step and the next
    back, ahead = moves.columns(2)
    first, last = PARTS[part].first, PARTS[part].last
    before = ((number, None) if at_recap else
              (number - 1, part - 1) if number == first and part > 0 else (number - 1, None))
    after = (number + 1, None) if at_recap or number < last else (number, part)
    back.button(_("Previous"), key="tour_previous", on_click=_move, args=before,
                disabled=number == 1 and not at_recap, width="stretch", shortcut="ArrowLeft")
    ahead.button(_("Next"), key="tour_next", on_click=_move, args=after,
                 disabled=at_recap and number == N, width="stretch", shortcut="ArrowRight")
    with moves.expander(_("All steps")):
        tour_steps(number, N, kept)
else:  # Previous, every step, Next: links of the app, one history entry per step
    with moves:
        tour_steps(number, N, kept)

# ------------------------------------------------------------------ the handout ----
if handout:
    with body:
        screen.info(_("Print this page with your browser (Ctrl+P or ⌘P): only the handout "
                      "below is printed. The other part's handout: change the step."),
                    icon=":material/print:")
        st.header(handout_title(part))
        st.markdown(_(PARTS[part].intro))
        for n in range(PARTS[part].first, PARTS[part].last + 1):
            step = STEPS[n - 1]
            with st.container(key=f"handout_step_{n}"):
                st.subheader(f"{n}. {say(step.title)}")
                with ui.friendly_errors():
                    ui.show(figure(n, s.device), key=f"handout_figure_{n}", alt=say(step.alt))
                st.markdown(say(step.look))
                st.markdown(question(n))
        with st.container(key="handout_answers"):
            st.subheader(_("Answers"))
            with ui.friendly_errors():
                for n in range(PARTS[part].first, PARTS[part].last + 1):
                    st.markdown(_("**{number}. {answer}.** {reveal}").format(
                        number=n, answer=say(right_choice(n)),
                        reveal=STEPS[n - 1].reveal(answer(n))))
            st.subheader(_("What we learned"))
            st.markdown("\n".join(recap(part)))
    st.stop()

# ------------------------------------------------------------------ the step ----
step = STEPS[number - 1]
asked = f"tour-{number}"  # the class's name of this question; a choice's is its index
classroom.ask(room, asked)
revealed = asked in classroom.revealed(room)  # by the class's teacher, on every screen
if revealed and number not in record:
    record[number] = st.session_state.get(f"tour_guess_{number}")
locked = number in record  # revealed once: the prediction counts as it was
if not at_recap:
    with body:
        st.header(f"{number}. {say(step.title)}")
    # a slide: the picture on the left, what to look at and the question beside it
    left, right = (body.container(key="tour_slide").columns([3, 2], gap="medium") if slides
                   else (body, body))
    with left, ui.friendly_errors():
        ui.show(figure(number, s.device), key="tour_figure", alt=say(step.alt))
    with right:
        st.markdown(_("**Look:** {look}").format(look=say(step.look)))
        if locked:  # the prediction as it was when the answer was first revealed
            st.session_state[f"tour_guess_{number}"] = record[number]
        # a choice no link carries, kept chosen when the language changes (ui.choice)
        guess = ui.choice(_("**Predict:** {prompt}").format(prompt=say(step.prompt)),
                          step.choices, None, f"tour_guess_{number}", fmt=say,
                          horizontal=False, in_link=False, disabled=locked)
        if room is not None:  # the teacher reveals; the class's answers live beside it
            classroom.save(room, asked, None if guess is None else str(step.choices.index(guess)))
            with ui.friendly_errors():
                right_index = str(step.choices.index(right_choice(number)))
            classroom.live(room, asked, {str(k): say(c) for k, c in enumerate(step.choices)},
                           right_index)
        if revealed if room is not None else st.toggle(
                _("Reveal the answer"), value=locked, key=f"tour_reveal_{number}",
                on_change=_record, args=(number,)):
            with ui.friendly_errors():
                result = answer(number)
            right_one = right_choice(number)
            st.markdown(_("**Answer: {answer}.** {reveal}").format(answer=say(right_one),
                                                                  reveal=step.reveal(result)))
            if room is None or not room.teacher:
                kind, verdict = judged(record[number] if locked else guess, right_one)
                (st.success if kind == "success" else st.info)(verdict)
                st.caption(score_line(tally(record, part)))
        details = st.expander(_("Open the page of this step")) if slides else st.container()
        details.page_link(**step_link(number))
        details.caption(settings_note(number))

# ---------------------------------- the recap: after a part's last step is revealed ----
# (in slide mode, the slide after that step)
if at_recap or (not slides and number == PARTS[part].last and locked):
    with body.container(border=not slides):
        (st.header if slides else st.subheader)(
            _("Recap: {part}").format(part=_(PARTS[part].title)))
        st.markdown(score_line(tally(record, part)))
        st.markdown("\n".join(recap(part)))
        st.markdown(_("**Open next**"))
        for link in next_links(part):
            st.page_link(**link)
        st.button(_("Start this part again"), key="tour_again", on_click=_start_again,
                  args=(part,), icon=":material/restart_alt:")
