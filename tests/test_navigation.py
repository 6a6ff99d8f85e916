"""The app's own navigation and links (ui.navigation, ui.links), without a browser: what
the sidebar's navigation carries, the links' addresses, and the controls' limits. What
the browser does with them (history entries, Back, the keyboard, axe) is tested in
tests/test_e2e_links.py, tests/test_e2e_a11y.py and tests/test_e2e_pages.py."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs

import pytest
from apptest_helpers import run_page

from ui.links import CARRIED, LESSON, href, script
from ui.navigation import PAGES, TOUR_PAGES, by_path, sections, tour_query

NAV_LINK = re.compile(r'<a data-rope-link href="([^"]*)"( aria-current="page")?>'
                      r'<span class="rope-icon" aria-hidden="true">([a-z_]+)</span>'
                      r"<span>([^<]*)</span></a>")


def navigation(at) -> str:
    (nav,) = [h.proto.body for h in at.sidebar.get("html") if "rope-nav" in h.proto.body]
    return nav


def test_the_navigation_lists_every_page_by_section_with_the_current_one_marked():
    at = run_page("frequencies")
    nav = navigation(at)
    assert nav.startswith('<nav class="rope-nav" aria-label="Pages"><ul>')
    links = NAV_LINK.findall(nav)
    assert [h for h, *_ in links] == [spec.path or "./" for spec in PAGES]
    assert [title for *_, title in links] == [spec.title for spec in PAGES]
    assert [icon for _h, _c, icon, _t in links] == [
        spec.icon.removeprefix(":material/").removesuffix(":") for spec in PAGES]
    assert [bool(current) for _h, current, *_ in links] == [
        spec.name == "frequencies" for spec in PAGES]
    # one list per section, labelled by its title, in lesson order
    titles = re.findall(r'<span class="rope-nav-section" id="(rope-nav-\d+)">([^<]*)</span>'
                        r'<ul aria-labelledby="(rope-nav-\d+)">', nav)
    assert [(t, label) for t, label, _ in titles] == [
        (f"rope-nav-{n}", section) for n, section in enumerate(sections())]
    assert all(t == labelled for t, _, labelled in titles)
    assert nav.count("<ul") == nav.count("</ul>") == len(sections()) + 1
    # with it, once, the script that makes each link one history entry
    assert nav.endswith(script()) and nav.count("<script>") == 1


def test_the_navigation_in_chinese():
    nav = navigation(run_page("decay", {"lang": "zh"}))
    assert 'aria-label="页面"' in nav and ">远程衰减</span></a>" in nav and ">开始</span>" in nav


def test_a_pages_link_in_the_navigation_carries_its_values_when_last_left():
    at = run_page("frequencies", {"L": "32768", "compare": ["100", "500000"], "base": "500"})
    at.switch_page("pages/decay.py").run()
    links = dict((title, h) for h, _c, _i, title in NAV_LINK.findall(navigation(at)))
    # the page's own values, not the viewer's settings (the links keep those: ui.links)
    assert parse_qs(html.unescape(links["Frequencies"]).split("?")[1]) == {
        "L": ["32768"], "compare": ["100", "500000"]}
    assert links["Long-term decay"] == "decay" and links["Rotation"] == "rotation"


def test_carried_settings_and_a_steps_address():
    assert CARRIED == ("lang", "base", "dim", "device", "layout", "present")
    assert LESSON == {"base": "10000", "dim": "128", "layout": "interleaved"}
    assert tour_query(6, {"base": "10000", "dim": "64", "compare": "500000"}) == {
        "base": "10000", "dim": "64", "layout": "interleaved", "compare": "500000",
        "tour": "6"}
    assert href("", {"tour": "1"}) == "./?tour=1"
    assert href("rotation", {"rot_q": "1, 2"}) == "rotation?rot_q=1%2C+2"
    assert by_path("") is PAGES[0] and by_path("tour").name == "tour"
    assert set(TOUR_PAGES) <= {spec.name for spec in PAGES} - {"tour"}


MULTISELECT_PAGES = ("frequencies", "decay", "precision", "real_models",
                     "layers_without_rope")


@pytest.mark.parametrize("name", MULTISELECT_PAGES)
def test_no_multiselect_offers_select_all(name):
    """Streamlit 1.67's "Select all" (and "Select N matches" under a typed filter, the
    first row, so Enter chose it) silently kept the first max_selections options."""
    boxes = run_page(name).get("multiselect")
    assert boxes
    assert all(box.proto.select_all == 0 and box.proto.max_selections for box in boxes)
