"""Switching the language keeps every choice chosen and every link value the same
(issue 46, item 5): on every page, each radio, segmented control, select slider and
multiselect bound to the URL is set to a value that is not its default by a link, then
the language is switched to Chinese and back.

What the browser shows is what it is told: Streamlit keeps a choice's value in the
browser as its shown label, and the browser sends that label back when the language
changes (so do these tests: apptest_helpers reads the widget states in the session's
language, which is still the old one in the run that switches). A choice stays chosen
when the run's element gives it a label of its current options (``set_value``), or when
the label the browser holds is still one of them. Before issue 46 a radio whose labels
are translated kept the old label, which matched no option: nothing was chosen, and the
app wrote the translated label into the link (``decay_axis=对数``).
"""

from __future__ import annotations

import pytest
from apptest_helpers import run_page, warnings

from ui import i18n
from ui.navigation import PAGES

KINDS = ("radio", "segmented_control", "select_slider", "multiselect")
SKIP = ("lang", "pick_")  # the switch itself, the sidebar's presets (bound to no link)


def labels(widget) -> list[str]:
    """The option labels the element carries (in the run's language)."""
    options = widget.proto.options
    return [getattr(o, "content", o) for o in options]


def shown(widget, held: list[str]) -> list[str]:
    """The labels the browser shows after this run, given the labels it ``held``."""
    proto = widget.proto
    if proto.set_value:
        raw = proto.raw_values if hasattr(proto, "raw_values") else proto.raw_value
        return [raw] if isinstance(raw, str) else list(raw)
    return held


def choices(at) -> dict[str, object]:
    return {w.key: w for kind in KINDS for w in at.get(kind)
            if w.key and not w.key.startswith(SKIP) and not w.key.startswith("tour_guess")}


def label_of(at, widget, value) -> list[str]:
    """The labels of ``value`` (an option or a list of them) in the session's language."""
    values = value if isinstance(value, list) else [value]
    with i18n.speaking(at.session_state[i18n.LANG_KEY]):
        return [widget.format_func(v) for v in values]


def link(at, key: str) -> list[str]:
    """What the address carries for ``key``."""
    value = at.query_params.get(key, [])
    return [value] if isinstance(value, str) else list(value)


def another(at, widget) -> str | list[str]:
    """A link value (English labels, which every choice reads) that is not the default."""
    options = labels(widget)
    current = label_of(at, widget, widget.value)
    if widget.type == "multiselect":
        extra = [o for o in options if o not in current][:1]
        chosen = (current + extra)[: widget.proto.max_selections or None]
        return chosen if chosen != current else extra
    return next(o for o in reversed(options) if o not in current)


@pytest.fixture(scope="module")
def links():
    """page -> {key: a link value that is not the control's default}."""
    out = {}
    for spec in PAGES:
        at = run_page(spec.name, {"lang": "en"})
        out[spec.name] = {key: another(at, w) for key, w in choices(at).items()}
    return out


@pytest.mark.parametrize("spec", PAGES, ids=lambda s: s.name)
def test_switching_language_keeps_every_choice_and_link_value(spec, links):
    query = links[spec.name]
    at = run_page(spec.name, {"lang": "en", **query})
    # (a value chosen for one control can leave another's out of its range: Long context's
    # target context depends on its head dim; that one then keeps its default)
    start = choices(at)
    assert start, f"{spec.name}: no choice found"
    values = {key: w.value for key, w in start.items()}
    carried = {key: link(at, key) for key in start}
    held = {key: label_of(at, w, w.value) for key, w in start.items()}
    for lang in ("zh", "en", "zh"):
        at.sidebar.segmented_control(key="lang").set_value(lang).run()
        assert not at.exception
        now = choices(at)
        for key, widget in now.items():
            assert widget.value == values[key], (spec.name, lang, key, widget.value)
            seen = shown(widget, held[key])
            assert seen == label_of(at, widget, values[key]), (spec.name, lang, key, seen)
            assert set(seen) <= set(labels(widget)), (spec.name, lang, key, seen)
            held[key] = seen
            # the link carries the same value in both languages
            assert link(at, key) == carried[key], (spec.name, lang, key, link(at, key))
        assert at.query_params["lang"] == lang
        assert not [w for w in warnings(at) if w.startswith(("The link sets", "链接"))]


def test_a_prediction_stays_chosen_across_a_language_switch():
    """The tour's prediction (a choice no link carries) is shown in the new language."""
    at = run_page("tour", {"tour_step": "6"})
    at.radio(key="tour_guess_6").set_value("It shrinks").run()
    for lang, label in (("zh", "变短"), ("en", "It shrinks")):
        at.sidebar.segmented_control(key="lang").set_value(lang).run()
        radio = at.radio(key="tour_guess_6")
        assert radio.value == "It shrinks"
        assert radio.proto.set_value and radio.proto.raw_value == label
