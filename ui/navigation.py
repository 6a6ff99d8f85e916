"""The one list of pages, in the order of the lesson, grouped in sections, and the
navigation drawn from it. The list is data, ui/pages.toml, read and checked here once
per process (:data:`PAGES`).

app.py gives the pages to ``st.navigation`` (hidden: it only routes addresses) and
draws the app's own navigation in the sidebar (:func:`draw`): one list per section,
the current page marked (``aria-current``), each page a link of the app
(:mod:`ui.links`: one history entry per move). The opening page's links, the browser
tests and README follow the same list. A page's URL path is its file name without
``.py`` ("/" for the default page).

A page opened from a step of the guided tour says so (``?tour=4``) and offers the way
back to that step at its top (:func:`back_to_tour`).
"""

from __future__ import annotations

import copy
import functools
import html
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import urlencode

from . import data_files
from .i18n import _, lang


@dataclass(frozen=True)
class PageSpec:
    file: str  # path relative to the app's folder, "pages/<name>.py"
    title: str  # title, section and summary are catalog messages: show _(spec.title)
    icon: str  # a Material icon, ":material/<name>:"
    section: str
    summary: str  # one line for the opening page's list of pages
    default: bool = False
    charts: bool = True  # the page draws at least one figure

    @functools.cached_property
    def name(self) -> str:
        return PurePosixPath(self.file).stem

    @property
    def url_path(self) -> str:
        return "/" if self.default else f"/{self.name}"

    @property
    def path(self) -> str:
        """The URL path as st.Page has it: "" for the default page."""
        return "" if self.default else self.name


def _read() -> tuple[PageSpec, ...]:
    """The pages of ui/pages.toml, checked (:mod:`ui.data_files`): every file exists and is
    named once, exactly one page is the default."""
    pages = tuple(data_files.record(PageSpec, table, where, section=title)
                  for title, entries in data_files.sections("pages.toml", "page")
                  for where, table in entries)
    data_files.unique([spec.file for spec in pages], "file", "pages.toml")
    absent = [spec.file for spec in pages if not (data_files.ROOT / spec.file).is_file()]
    if absent:
        raise data_files.DataFileError(f"ui/pages.toml: no such file: {', '.join(absent)}")
    if sum(spec.default for spec in pages) != 1:
        raise data_files.DataFileError("ui/pages.toml: exactly one page must have default = true")
    return pages


PAGES: tuple[PageSpec, ...] = _read()  # in lesson order; edit ui/pages.toml


def by_name(name: str) -> PageSpec:
    """The page whose file is pages/<name>.py."""
    for spec in PAGES:
        if spec.name == name:
            return spec
    raise KeyError(name)


def by_path(path: str) -> PageSpec:
    """The page whose st.Page has this ``url_path`` ("" for the default page)."""
    for spec in PAGES:
        if spec.path == path:
            return spec
    raise KeyError(path)


def sections() -> dict[str, list[PageSpec]]:
    """The pages grouped by section, both in lesson order."""
    out: dict[str, list[PageSpec]] = {}
    for spec in PAGES:
        out.setdefault(spec.section, []).append(spec)
    return out


_BUILT: dict[str, dict] = {}  # language -> {section title: [st.Page, ...]}


def st_pages() -> dict[str, list]:
    """The navigation for ``st.navigation``: {section title: [st.Page, ...]} in the
    run's language. ``st.Page`` resolves its file on disk (a realpath per page,
    about 1 ms for the eighteen pages on every run), so each language's pages are
    made once per process; every run gets copies, because ``st.navigation`` marks
    the page it returns (which a concurrent run must not see)."""
    import streamlit as st

    built = _BUILT.get(lang())
    if built is None:
        built = {_(section): [st.Page(spec.file, title=_(spec.title), icon=spec.icon,
                                      default=spec.default) for spec in specs]
                 for section, specs in sections().items()}
        _BUILT[lang()] = built  # a race only builds it twice
    return {section: [copy.copy(page) for page in pages] for section, pages in built.items()}


# ------------------------------------------------------------ the navigation ----
_REMEMBERED = "_page_links"  # session state: page name -> its query when last left


def draw(current: PageSpec) -> None:
    """The sidebar's navigation, with the script of the app's links (:mod:`ui.links`).

    A ``<nav>`` of lists, one per section, each page a link; the current page is marked
    (``aria-current="page"``, drawn bold on a shaded row). Tab reaches every link and
    Enter opens it. A page's link carries the values it had when the visitor last left
    it in this session, so the navigation returns to a page as it was left (Back does
    too); a page not seen yet opens at its defaults. One ``st.html`` element: the same
    bytes on every run of a page (sent as a reference once the browser holds it)."""
    import streamlit as st

    from .links import script

    remembered = st.session_state.get(_REMEMBERED, {})
    st.sidebar.html(_nav_html(lang(), current.name, tuple(sorted(remembered.items())))
                    + script(), unsafe_allow_javascript=True)


@functools.lru_cache(maxsize=256)
def _nav_html(language: str, current: str, remembered: tuple[tuple[str, str], ...]) -> str:
    """The navigation in ``language`` with ``current`` marked, each page's link carrying
    its ``remembered`` query (page name, query string), once per combination."""
    queries = dict(remembered)
    head, links, tail = _nav_parts(language)
    parts = [head]
    for name, path, before, after in links:
        if before is None:  # a section's end and the next one's title
            parts.append(after)
            continue
        mark = ' aria-current="page"' if name == current else ""
        query = queries.get(name)
        address = html.escape((path or "./") + (f"?{query}" if query else ""))
        parts.append(f'{before}{address}"{mark}{after}')
    parts.append(tail)
    return "".join(parts)


@functools.cache
def _nav_parts(language: str) -> tuple[str, tuple, str]:
    """The navigation's fixed HTML in ``language``, around each link's address and mark:
    made once per language (the titles are the catalog's)."""
    from .translation import speaking

    with speaking(language):
        name = html.escape(_("Pages"))  # outside the f-string, where the extractor finds it
        head = f'<nav class="rope-nav" aria-label="{name}"><ul>'
        links = []
        for number, (section, specs) in enumerate(sections().items()):
            title = f"rope-nav-{number}"
            links.append((None, None, None,
                          ("</ul></li>" if number else "")
                          + f'<li><span class="rope-nav-section" id="{title}">'
                          f'{html.escape(_(section))}</span><ul aria-labelledby="{title}">'))
            for spec in specs:
                icon = spec.icon.removeprefix(":material/").removesuffix(":")
                links.append((spec.name, spec.path, '<li><a data-rope-link href="',
                              f'><span class="rope-icon" aria-hidden="true">{icon}</span>'
                              f"<span>{html.escape(_(spec.title))}</span></a></li>"))
    return head, tuple(links), "</ul></li></ul></nav>"


def remember(current: PageSpec) -> None:
    """Keep the values of the controls drawn on ``current`` in this run, as the address
    carries them, for its link in the navigation (app.py calls this after the page)."""
    import streamlit as st

    from .controls import drawn_keys, link_values
    from .links import CARRIED

    keys = [key for key in drawn_keys() if key not in CARRIED and key != TOUR_KEY]
    query = urlencode(link_values(keys), doseq=True)
    remembered = st.session_state.get(_REMEMBERED, {})
    if remembered.get(current.name, "") != query:
        st.session_state[_REMEMBERED] = {**remembered, current.name: query}


# ------------------------------------------------------------- the tour's links ----
TOUR_STEP_KEY = "tour_step"  # the tour's step: ?tour_step=4
TOUR_KEY = "tour"  # on a page a tour step opened: ?tour=4
# The page each step of the guided tour opens, in order (pages/tour.py's steps; its
# test holds the two to the same list).
TOUR_PAGES = ("overview", "sinusoidal", "derivation", "rotation", "step_by_step",
              "frequencies", "frequencies", "attention", "decay", "long_context",
              "precision", "context_extension")


def tour_query(number: int, values: Mapping[str, str]) -> dict[str, str]:
    """The address of step ``number``'s page: the sidebar's lesson settings at their
    defaults, the step's own values over them, and the step's number (``?tour=``) for
    the way back. Opened as a link of the app, every other control of that page starts
    at its default."""
    from .links import LESSON

    return {**LESSON, **values, TOUR_KEY: str(number)}


def back_to_tour(current: PageSpec) -> None:
    """On a page that a step of the tour opened (``?tour=N``), a link back to that step
    at the top of the page (app.py draws it before the page). Under the app's rule for
    links, ``N`` must be a step that opens this very page; anything else is dropped
    with a warning."""
    import streamlit as st

    from .controls import check_link, code, link_value

    steps = [str(n) for n, page in enumerate(TOUR_PAGES, start=1) if page == current.name]

    def valid(values: list[str]) -> str | None:
        if len(values) == 1 and values[0] in steps:
            return None
        if not steps:
            return _("no step of the tour opens this page")
        return _("it must be {values}, a step of the tour that opens this page").format(
            values=_(", ").join(map(code, steps)))

    check_link(TOUR_KEY, _("The way back to the tour"), valid, _("none"))
    values = link_value(TOUR_KEY)
    if values:
        st.page_link(by_name("tour").file, icon=":material/arrow_back:",
                     label=_("Back to step {number} of the tour").format(number=values[0]),
                     query_params={TOUR_STEP_KEY: values[0]})


def tour_steps(number: int, total: int, kept: Mapping[str, str] | None = None) -> None:
    """The tour's moves: Previous, every step's number, Next; each a link of the app
    (one history entry per step), the current step marked (``aria-current="step"``);
    ``kept``: the tour's own settings each link keeps (slide mode, the handout)."""
    import streamlit as st

    from .links import href

    def address(n: int) -> str:
        return html.escape(href(by_name("tour").path, {**(kept or {}), TOUR_STEP_KEY: str(n)}))

    def move(n: int, text: str, icon: str, cls: str) -> str:
        mark = f'<span class="rope-icon" aria-hidden="true">{icon}</span>'
        words = f"<span>{html.escape(text)}</span>"
        inner = words + mark if icon == "arrow_forward" else mark + words
        if 1 <= n <= total:
            return f'<a data-rope-link class="{cls}" href="{address(n)}">{inner}</a>'
        return f'<span class="{cls} rope-off" aria-disabled="true">{inner}</span>'

    name = _("Step {number} of {n}")
    numbers = "".join(
        f'<li><a data-rope-link href="{address(n)}" '
        f'aria-label="{html.escape(name.format(number=n, n=total))}"'
        f'{CURRENT_STEP if n == number else ""}>{n}</a></li>' for n in range(1, total + 1))
    steps = _("Steps of the tour")
    st.html(f'<nav class="rope-steps" aria-label="{html.escape(steps)}">'
            + move(number - 1, _("Previous"), "arrow_back", "rope-move")
            + f"<ol>{numbers}</ol>"
            + move(number + 1, _("Next"), "arrow_forward", "rope-move")
            + "</nav>")


CURRENT_STEP = ' aria-current="step"'
