"""RoPE Explorer: the frame. Language, navigation, the shared sidebar, then the page."""

import streamlit as st

import ui
from ui.constants import warm_up
from ui.hardening import limit_malloc_arenas, limit_torch_threads, refuse_clear_cache
from ui.i18n import language_switch
from ui.navigation import st_pages

refuse_clear_cache()
limit_malloc_arenas()
limit_torch_threads()
warm_up()  # the process constants, once, in the background (ui.constants)
st.set_page_config(page_title="RoPE Explorer", page_icon=":material/rotate_right:",
                   layout="wide")

language_switch()  # first: every title below is in the chosen language
page = st.navigation(st_pages(), expanded=True)  # every page shown: no "View more"
settings = ui.sidebar_settings()
ui.remember(settings)
ui.page_style(settings.present)
page.run()
