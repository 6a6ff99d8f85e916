"""Every page in both languages: no exception, and in Chinese no English words.

The Chinese run collects every visible text of the page (tests/i18n_helpers.py)
and allows no English word of four or more letters outside formulas, code,
units and names. The English run is the app as before, with ?lang=en.
"""

from __future__ import annotations

import pytest
from apptest_helpers import run_page
from i18n_helpers import untranslated

from ui.navigation import PAGES

NAMES = [spec.name for spec in PAGES]


@pytest.mark.parametrize("page", NAMES)
def test_page_in_chinese_shows_no_english(page):
    at = run_page(page, {"lang": "zh"})
    assert at.sidebar.header[0].value == "设置"
    found = untranslated(at)
    assert not found, "\n".join(f"{words}: {text!r}" for text, words in found.items())


@pytest.mark.parametrize("page", NAMES)
def test_page_in_english_renders(page):
    at = run_page(page, {"lang": "en"})
    assert at.sidebar.header[0].value == "Settings"
    assert not at.first_warnings


def test_language_survives_a_page_change_and_stays_in_the_link():
    at = run_page("frequencies", {"lang": "zh"})
    assert at.query_params["lang"] == "zh"
    at.switch_page("pages/decay.py").run()
    assert at.sidebar.header[0].value == "设置"
    assert at.query_params["lang"] == "zh"


def test_switching_language_keeps_the_settings():
    at = run_page("frequencies", {"dim": "64", "base": "500000"})
    at.sidebar.segmented_control(key="lang").set_value("zh").run()
    assert at.sidebar.header[0].value == "设置"
    assert at.session_state["dim"] == 64 and at.session_state["base"] == 500000
    assert at.query_params["lang"] == "zh"


def test_bad_language_in_the_link_warns_and_keeps_english():
    at = run_page(None, {"lang": "fr"})
    assert at.sidebar.header[0].value == "Settings"
    assert any("lang" in w and "“fr”" in w for w in at.first_warnings), at.first_warnings
    assert at.query_params["lang"] == "en"
