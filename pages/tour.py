"""Guided tour: numbered steps through the lesson. Each step opens a page with its
settings, says what to look at, and asks for a prediction before revealing the
answer, computed live with rope_core.teaching.tour from the step's own settings."""


import streamlit as st

import ui
from ui.controls import undrawn_number
from ui.i18n import _
from ui.navigation import TOUR_STEP_KEY, by_name, tour_query, tour_steps
from views.tour import STEPS, N, answer, say

ui.settings()
st.title(_("Guided tour"))
st.markdown(_(
    "{n} steps through the lesson. Each opens a page with the settings it needs: look at "
    "what the step names, predict the answer, then reveal it, computed live. The step "
    "number is in the address (?tour_step=3), so a link opens any step.").format(n=N))
# the step lives in the address alone: each move is a link, one history entry per step
number = undrawn_number(_("Step"), 1, N, 1, TOUR_STEP_KEY)
st.progress(number / N, text=_("Step {number} of {n}").format(number=number, n=N))
tour_steps(number, N)

step = STEPS[number - 1]
spec = by_name(step.page)
st.header(f"{number}. {say(step.title)}")
st.page_link(spec.file, label=_("Open {page} with this step's settings").format(
    page=_(spec.title)), icon=spec.icon, query_params=tour_query(number, step.params))
# the link's values as the address carries them: code, the same in both languages
st.caption(_("Settings: {values}").format(
    values=", ".join(f"`{k} = {v}`" for k, v in step.params.items())))
st.markdown(_("**Look at:** {look}").format(look=say(step.look)))
guess = ui.choice(_("**Predict:** {prompt}").format(prompt=say(step.prompt)), step.choices,
                  None, f"tour_guess_{number}", fmt=say, horizontal=False, in_link=False)
if st.toggle(_("Reveal the answer"), key=f"tour_reveal_{number}"):
    with ui.friendly_errors():
        result = answer(number)
    right = step.choices[step.verdict(result)]
    st.markdown(_("**Answer: {answer}.** {reveal}").format(answer=say(right),
                                                          reveal=step.reveal(result)))
    if guess is None:
        st.info(_("No prediction made: try the next one before revealing."))
    elif guess == right:
        st.success(_("Your prediction, “{guess}”, was right.").format(guess=say(guess)))
    else:
        st.info(_("Your prediction was “{guess}”; the live numbers say “{right}”.").format(
            guess=say(guess), right=say(right)))
