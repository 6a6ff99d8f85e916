"""Crafted links and typed text on every page: never an exception, never
visitor Markdown rendered as a link, an image, a heading or a formula.

Every URL-bound control of every page is found by running the page once;
then the page is opened with *all* its controls set to each hostile value at
once, as a visitor's link opens it (one run, on that page: apptest_helpers.open_link).
Each control must show its default (or, for a text box, the text as typed), and the
page must finish its run.
"""

import re

import pytest
from apptest_helpers import APP_LINK_ADDRESS, open_link, run_page, shown

from rope_core.limits.breaks import NEOX_1003
from ui.navigation import PAGES

HOSTILE_VALUES = [
    "inf", "-inf", "Infinity", "NaN", "1e309", "1" + "0" * 400, "-1" + "0" * 400, "10.9",
    "TRUE", " 5", "0x10", "", "٣", "1_000", "[Claim your prize](https://evil.example)",
    "![x](https://evil.example/x.png)", "1, 2\n# Session expired", "<b>bold</b>",
    "$\\frac{1}{0}$", "a" * 5000,
]
INJECTIONS = [v for v in HOSTILE_VALUES if any(c in v for c in "[]!<>#$\n")]
# The app's own Markdown links: fixed addresses written by the app, never from a visitor
# (a link whose text and address the page writes itself, e.g. Precision's gpt-neox issue).
APP_LINKS = (NEOX_1003["url"],)
_OWN = "|".join([*(re.escape(url) for url in APP_LINKS), APP_LINK_ADDRESS])
# What each crafted string would turn into if it reached Markdown unescaped.
RENDERED = [re.compile(rf"(?<!\\)\]\((?!(?:{_OWN})\))"),
            re.compile(r"(?<!\\)!\["), re.compile(r"\n\s*#"),
            re.compile(r"(?<!\\)<b>"), re.compile(r"(?<!\\)\$\\frac"),
            # a bare address that GFM would turn into a link (the app's own links are fine)
            re.compile(r"(?i)https?\\?:\\?/\\?/evil")]
WIDGETS = ("select_slider", "slider", "number_input", "radio", "segmented_control", "toggle",
           "text_input", "multiselect")
SKIP_PREFIXES = ("show_", "pick_", "csv_")


def bound_controls(at):
    """key -> (widget kind, shown value) of every URL-bound control on the page."""
    out = {}
    for kind in WIDGETS:
        for w in at.get(kind):
            if w.key and not w.key.startswith(SKIP_PREFIXES):
                out[w.key] = (kind, w.value)
    return out


@pytest.fixture(scope="module")
def defaults():
    return {spec.name: bound_controls(run_page(spec.name)) for spec in PAGES}


TRIED = {"count": 0}


@pytest.mark.parametrize("spec", PAGES, ids=lambda s: s.name)
def test_every_hostile_value_on_every_control(spec, defaults):
    controls = defaults[spec.name]
    assert controls, f"{spec.name}: no URL-bound controls found"
    for value in HOSTILE_VALUES:
        at = open_link(spec.name, {key: value for key in controls})  # fails on an exception
        TRIED["count"] += len(controls)
        now = bound_controls(at)
        for key, (kind, default) in controls.items():
            if kind == "text_input" and now[key][1] == value:
                continue  # a text box takes the text (up to its length); the page checks it
            assert now[key] == (kind, default), (spec.name, key, value, now[key])
        for element in (*at.warning, *at.error, *at.info, *at.markdown, *at.caption):
            body = element.value
            for pattern in RENDERED:
                assert not pattern.search(body), (spec.name, value, body[:200])


def test_count_of_hostile_links_tried():
    # Reported in the closing note: controls x values, all without an exception.
    assert TRIED["count"] >= 20 * len(HOSTILE_VALUES), TRIED


@pytest.mark.parametrize("value", INJECTIONS)
def test_warning_quotes_visitor_text_capped(value):
    at = run_page(None, {"base": value})
    text = " ".join(at.first_warnings)
    assert "base = “" in text
    quoted = text.split("base = “", 1)[1].split("”", 1)[0]
    assert len(quoted) <= 61  # 60 characters, then an ellipsis
    assert "\n" not in quoted
    raw = " ".join(w.value for w in at.warning)
    for pattern in RENDERED:
        assert not pattern.search(raw), raw


def test_shown_text_round_trip():
    # the escaping used by ui.safety.plain is undone exactly by a Markdown reader
    from ui.safety import plain

    for value in ["[a](b)", "![x](y)", "# h", "$x$", "a_b*c*", "1\\2"]:
        assert shown(plain(value)) == value
