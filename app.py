"""RoPE Explorer: the frame. Navigation, the shared sidebar, then the page."""

import streamlit as st

from pages import shared

st.set_page_config(page_title="RoPE Explorer", page_icon="🌀", layout="wide")

PAGES = [
    st.Page("pages/overview.py", title="Overview", icon="🌀", default=True),
    st.Page("pages/frequencies.py", title="Frequencies", icon="📶"),
    st.Page("pages/rotation.py", title="Rotation", icon="🔄"),
    st.Page("pages/sinusoidal.py", title="Sinusoidal", icon="〰️"),
    st.Page("pages/decay.py", title="Long-term decay", icon="📉"),
    st.Page("pages/step_by_step.py", title="Step by step", icon="🧮"),
    st.Page("pages/attention.py", title="Attention", icon="🎯"),
]

page = st.navigation(PAGES)
st.session_state["_settings"] = shared.sidebar_settings()
page.run()
