"""Glossary: every term of the lesson, one short definition each, in the lesson's order.
Each term's heading is an anchor (glossary#theta): the pages' "Terms on this page" boxes
link to it."""

import streamlit as st

import ui
from ui.i18n import _
from views.glossary import entries, jump_links

ui.settings()
ui.intro(
    _("Glossary"),
    _("One short definition for every term the lesson uses, in the order the pages meet them, "
      "and the page where each matters most. Each page also explains its own terms in a box, "
      "*Terms on this page*, under its introduction."))
st.markdown(jump_links())
for section, items in entries():
    st.header(section)
    for key, name, text in items:
        st.subheader(name, anchor=key)
        st.markdown(text)
