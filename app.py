"""RoPE Explorer: the frame. Navigation, the shared sidebar, then the page."""

import streamlit as st

from pages import shared

st.set_page_config(page_title="RoPE Explorer", page_icon=":material/rotate_right:",
                   layout="wide")

PAGES = [
    st.Page("pages/overview.py", title="Overview", icon=":material/home:", default=True),
    st.Page("pages/frequencies.py", title="Frequencies", icon=":material/equalizer:"),
    st.Page("pages/rotation.py", title="Rotation", icon=":material/rotate_right:"),
    st.Page("pages/sinusoidal.py", title="Sinusoidal", icon=":material/waves:"),
    st.Page("pages/decay.py", title="Long-term decay", icon=":material/trending_down:"),
    st.Page("pages/step_by_step.py", title="Step by step", icon=":material/calculate:"),
    st.Page("pages/attention.py", title="Attention", icon=":material/grid_on:"),
]

page = st.navigation(PAGES)
st.session_state["_settings"] = shared.sidebar_settings()
page.run()
