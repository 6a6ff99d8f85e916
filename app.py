"""RoPE Explorer: the frame. Language, navigation, the shared sidebar, then the page.

Streamlit runs this file as a script (``__main__``) for every visitor's run: that is
the frame below. ``streamlit run app.py`` also imports it once, at start-up, and finds
``app``, an st.App that serves this very file and prepares the process before the
first visitor arrives (:mod:`ui.startup`: the libraries imported, the process
constants computed); ``streamlit run app.py`` is all it takes.
"""

import streamlit as st

import takehome
import ui
from ui import navigation
from ui.constants import warm_up
from ui.controls import language_switch
from ui.hardening import (
    limit_malloc_arenas,
    limit_torch_threads,
    refuse_clear_cache,
    serialize_ast_parse,
)

serialize_ast_parse()  # before any thread parses: Streamlit, numpy.load (ui.hardening)

if __name__ == "__main__":  # a visitor's run
    refuse_clear_cache()
    limit_malloc_arenas()
    limit_torch_threads()
    warm_up()  # the process constants, once, in the background (ui.constants)
    st.set_page_config(page_title="RoPE Explorer", page_icon=":material/rotate_right:",
                       layout="wide")

    language_switch()  # first: every title below is in the chosen language
    # Streamlit's navigation only routes addresses: the app draws its own (ui.navigation)
    page = st.navigation(navigation.st_pages(), position="hidden")
    spec = navigation.by_path(page.url_path)
    navigation.draw(spec)
    settings = ui.sidebar_settings()
    ui.remember(settings)
    ui.page_style(settings.present)
    navigation.back_to_tour(spec)
    try:
        takehome.run(page)  # the page, then its notebook's download button (takehome/)
    finally:  # also when the page stops early (st.stop)
        navigation.remember(spec)
else:  # imported once by `streamlit run app.py`, which then serves app.py through `app`
    from ui.startup import lifespan

    app = st.App(__file__, lifespan=lifespan)
