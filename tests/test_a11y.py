"""Accessibility without a browser (docs/accessibility.md): the theme's text
contrast, every chart's text alternative, and the colours of every figure. The
browser half is tests/test_e2e_pages.py (axe-core) and tests/test_e2e_a11y.py (the keyboard).

* The theme (.streamlit/config.toml): Streamlit draws captions and help text in the
  text colour at 60 % opacity; that, links and inline code reach 4.5:1 on the page
  and on the sidebar, and the app's CSS for disabled labels uses the same 60 %.
* Text alternatives: every ``ui.show`` call in pages/ and views/ passes ``alt`` (a page added
  later too), ``ui.show`` refuses an empty one, and every chart a page draws carries
  a non-empty one to Streamlit.
* Figures: every page of ui/navigation.PAGES (a page added later is checked too) is
  run with AppTest at its defaults, and every chart it draws is read back as
  Streamlit sends it. For each figure:

  - every line and marker that carries meaning has a contrast of at least 3:1 against
    the plot's background (WCAG 2.1, 1.4.11 non-text contrast), its opacity included;
    reference lines (shapes) too, and text drawn in the plot (annotations) 4.5:1.
    A trace that is neither in the legend nor answers to the pointer (``showlegend``
    False and ``hoverinfo`` "skip", e.g. the unit circle behind the Rotation page's
    arrows) is context and is not checked.
  - the colours that tell its series apart (one per legend entry; the categories of a
    stepped colour scale) differ pairwise by at least ΔE00 = 10 (CIEDE2000) with
    normal vision and under simulated protanopia and deuteranopia (Machado et al.
    2009, severity 1: complete dichromacy). Okabe and Ito's palette, the usual choice
    for colour-blind readers, has its closest pair at 12.2 under protanopia; D3's
    category10, which the app used before, 1.3 (green and orange).
  - a continuous colour scale keeps its lightness in order under each simulation
    (monotone: sequential, or rising then falling: diverging, with its two arms
    apart), so that its values can still be read (a rainbow such as Turbo cannot).

The colour arithmetic is in tests/colour_vision.py and is checked here against
published values.
"""

from __future__ import annotations

import ast
import itertools
import json
import pathlib
import re
import tomllib

import numpy as np
import pytest
from apptest_helpers import run_page
from colour_vision import (
    MACHADO,
    VISIONS,
    contrast,
    delta_e2000,
    difference,
    lab,
    over,
    parse,
    simulate,
)

import ui
from ui.css import BASE_CSS
from ui.navigation import PAGES

ROOT = pathlib.Path(__file__).resolve().parents[1]

MIN_MARK_CONTRAST = 3.0
MIN_TEXT_CONTRAST = 4.5
MIN_DELTA_E = 10.0
BACKGROUND = "#ffffff"  # Streamlit's chart theme draws on the app's background


# ------------------------------------------------------- the arithmetic ----
@pytest.mark.parametrize(("lab1", "lab2", "expected"), [
    # Sharma, Wu and Dalal (2005), Table 1: pairs 1, 2, 7, 17 and 25
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 3.1571, -77.2803), (50.0, 0.0, -82.7485), 2.8615),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
])
def test_ciede2000_matches_sharma_et_al(lab1, lab2, expected):
    assert delta_e2000(lab1, lab2) == pytest.approx(expected, abs=1e-4)
    assert delta_e2000(lab2, lab1) == pytest.approx(expected, abs=1e-4)


def test_contrast_and_lab_match_known_values():
    white, black = parse("#ffffff")[0], parse("#000000")[0]
    assert contrast(white, black) == pytest.approx(21.0)
    assert contrast(parse("#767676")[0], white) == pytest.approx(4.54, abs=0.01)  # WebAIM
    assert lab(white) == pytest.approx([100.0, 0.0, 0.0], abs=1e-3)
    assert lab(parse("#808080")[0])[0] == pytest.approx(53.585, abs=1e-2)
    assert over("rgba(0, 0, 0, 0.5)") == pytest.approx([0.5, 0.5, 0.5])


def test_simulation_keeps_greys_and_confuses_red_with_green():
    for matrix in MACHADO.values():
        assert matrix.sum(axis=1) == pytest.approx([1.0, 1.0, 1.0], abs=1e-3)  # white stays
    grey = parse("#808080")[0]
    for vision in VISIONS:
        assert simulate(grey, vision) == pytest.approx(grey, abs=2e-3)
    red, green = parse("#d62728")[0], parse("#2ca02c")[0]
    assert difference(red, green) > 40
    assert difference(red, green, "deuteranopia") < MIN_DELTA_E  # the classic confusion


# --------------------------------------------------------------- theme ----
def _theme() -> dict:
    with open(ROOT / ".streamlit" / "config.toml", "rb") as f:
        return tomllib.load(f)["theme"]


def test_theme_text_reaches_4_5_to_1():
    theme = _theme()
    for background in (theme["backgroundColor"], theme["secondaryBackgroundColor"]):
        bg = parse(background)[0]
        for key in ("textColor", "codeTextColor"):  # captions, help text, code in captions
            faded = over(theme[key], background, 0.6)
            assert contrast(faded, bg) >= MIN_TEXT_CONTRAST, (key, background)
        for key in ("textColor", "primaryColor", "codeTextColor"):
            assert contrast(parse(theme[key])[0], bg) >= MIN_TEXT_CONTRAST, (key, background)


def test_disabled_labels_use_the_caption_colour():
    """The CSS for disabled widget labels is the theme's text colour at 60 %."""
    r, g, b = (int(round(c * 255)) for c in parse(_theme()["textColor"])[0])
    assert re.search(rf"\[disabled\][^{{]*\{{\s*color: rgba\({r}, {g}, {b}, 0\.6\)", BASE_CSS)


# ---------------------------------------------------- text alternatives ----
def _show_calls(path: pathlib.Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "show" and isinstance(node.func.value, ast.Name) \
                and node.func.value.id == "ui":
            yield node


def test_every_ui_show_call_has_an_alt():
    """Every chart drawn by a page says what it shows: ``alt=`` on every ui.show
    call, not empty (a page added later is checked too)."""
    missing, calls = [], 0
    for path in sorted([*(ROOT / "pages").glob("*.py"), *(ROOT / "views").glob("*.py")]):
        for call in _show_calls(path):
            calls += 1
            alt = next((k.value for k in call.keywords if k.arg == "alt"), None)
            empty = isinstance(alt, ast.Constant) and not str(alt.value or "").strip()
            if alt is None or empty:
                missing.append(f"{path.name}:{call.lineno}")
    assert calls >= len([p for p in PAGES if p.charts])
    assert not missing, f"ui.show without alt: {missing}"


@pytest.mark.parametrize("alt", ["", "   ", None])
def test_show_refuses_an_empty_alt(alt):
    with pytest.raises(ValueError, match="alt"):
        ui.figures.alt_text(alt)
    with pytest.raises(TypeError):
        ui.show(None)  # alt is a required keyword


def test_alt_text_points_to_the_table():
    text = ui.figures.alt_text("Line chart: θᵢ against i.", "frequency table")
    assert text.startswith("Line chart: θᵢ against i. ")
    assert "frequency table" in text and "CSV" in text


# ------------------------------------------------------------- figures ----
@pytest.fixture(scope="module")
def drawn() -> dict[str, list]:
    """{page name: [its charts as Streamlit sends them]} for every page with charts."""
    out = {}
    for spec in PAGES:
        if spec.charts:
            at = run_page(spec.name)
            out[spec.name] = [c.proto for c in at.get("plotly_chart")]
    return out


@pytest.fixture(scope="module")
def figures(drawn) -> dict[str, list[dict]]:
    """{page name: [figure spec as sent]} for every page with charts."""
    return {page: [json.loads(p.spec) for p in protos] for page, protos in drawn.items()}


def test_every_chart_carries_its_text_alternative(drawn):
    short = [f"{page}: {json.loads(p.spec)['layout'].get('title')}"
             for page, protos in drawn.items() for p in protos if len(p.alt.strip()) < 40]
    assert not short, short


def _title(spec: dict) -> str:
    title = spec.get("layout", {}).get("title")
    return (title.get("text", "") if isinstance(title, dict) else title or "")[:60]


def _is_context(trace: dict) -> bool:
    return trace.get("showlegend") is False and trace.get("hoverinfo") == "skip"


def _colours(value) -> list[str]:
    """The CSS colours in a colour property (one colour or a list; a numeric array
    is mapped through a colour scale and gives none here)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return list(dict.fromkeys(v for v in value if isinstance(v, str)))
    return []


def marks(trace: dict) -> list[str]:
    """The colours of a trace's lines and markers as drawn (a bar's fill is its mark)."""
    kind = trace.get("type", "scatter")
    if kind not in ("scatter", "scattergl", "bar"):
        return []
    mode = trace.get("mode", "lines" if kind != "bar" else "")
    out = []
    line = trace.get("line") or {}
    if kind != "bar" and "lines" in mode and line.get("width", 2) > 0:
        out += _colours(line.get("color"))
    marker = trace.get("marker") or {}
    if kind == "bar" or "markers" in mode:
        out += _colours(marker.get("color"))
        if not out and isinstance(marker.get("line"), dict):
            out += _colours(marker["line"].get("color"))
    return out


def background(spec: dict) -> str:
    return spec.get("layout", {}).get("plot_bgcolor") or BACKGROUND


def stepped_scales(spec: dict) -> list[list[str]]:
    """The categories of each stepped colour scale (a colour held between two
    stops, as a categorical heatmap uses)."""
    out = []
    for trace in spec.get("data", []):
        scale = trace.get("colorscale")
        if isinstance(scale, list) and any(a[0] == b[0] for a, b in zip(scale, scale[1:])):
            out.append(list(dict.fromkeys(stop[1] for stop in scale)))
    return out


def smooth_scales(spec: dict) -> list[list[str]]:
    out = []
    for trace in spec.get("data", []):
        scale = trace.get("colorscale")
        if isinstance(scale, list) and not any(a[0] == b[0] for a, b in zip(scale, scale[1:])):
            out.append([stop[1] for stop in scale])
    for key, value in spec.get("layout", {}).items():
        if key.startswith("coloraxis") and isinstance(value, dict) \
                and isinstance(value.get("colorscale"), list):
            out.append([stop[1] for stop in value["colorscale"]])
    return out


def each_figure(figures):
    for page, specs in figures.items():
        for spec in specs:
            yield f"{page}: {_title(spec)!r}", spec


def test_every_chart_page_draws_figures(figures):
    assert all(figures.values()), {k: len(v) for k, v in figures.items()}


def test_lines_and_markers_stand_out_from_the_background(figures):
    problems = []
    for where, spec in each_figure(figures):
        bg = background(spec)
        for trace in spec.get("data", []):
            if _is_context(trace):
                continue
            for colour in marks(trace):
                ratio = contrast(over(colour, bg, trace.get("opacity", 1.0)), parse(bg)[0])
                if ratio < MIN_MARK_CONTRAST:
                    problems.append(f"{where} trace {trace.get('name', '')!r}: {colour} "
                                    f"(opacity {trace.get('opacity', 1)}) {ratio:.2f}:1")
        for shape in spec.get("layout", {}).get("shapes", []) or []:
            colour = (shape.get("line") or {}).get("color")
            if colour and (shape.get("line") or {}).get("width", 2) > 0:
                ratio = contrast(over(colour, bg, shape.get("opacity", 1.0)), parse(bg)[0])
                if ratio < MIN_MARK_CONTRAST:
                    problems.append(f"{where} shape: {colour} {ratio:.2f}:1")
        for category in itertools.chain.from_iterable(stepped_scales(spec)):
            ratio = contrast(over(category, bg), parse(bg)[0])
            if ratio < MIN_MARK_CONTRAST:
                problems.append(f"{where} colour-scale category: {category} {ratio:.2f}:1")
    assert not problems, "\n".join(problems)


def test_text_in_figures_is_readable(figures):
    problems = []
    for where, spec in each_figure(figures):
        bg = background(spec)
        for note in spec.get("layout", {}).get("annotations", []) or []:
            colour = (note.get("font") or {}).get("color")
            if colour and note.get("bgcolor") is None:
                ratio = contrast(over(colour, bg), parse(bg)[0])
                if ratio < MIN_TEXT_CONTRAST:
                    problems.append(f"{where} annotation {note.get('text', '')[:40]!r}: "
                                    f"{colour} {ratio:.2f}:1")
    assert not problems, "\n".join(problems)


def series_colours(spec: dict) -> list[list[str]]:
    """Groups of colours that must be told apart: the figure's legend entries, and
    the categories of each stepped colour scale."""
    legend = []
    for trace in spec.get("data", []):
        if _is_context(trace) or trace.get("showlegend") is False:
            continue
        legend += marks(trace)[:1] if trace.get("type") != "bar" else marks(trace)
    return [list(dict.fromkeys(legend)), *stepped_scales(spec)]


def test_series_stay_apart_with_colour_vision_deficiencies(figures):
    problems = []
    for where, spec in each_figure(figures):
        bg = background(spec)
        for group in series_colours(spec):
            shown = {c: over(c, bg) for c in group}
            for (a, ra), (b, rb) in itertools.combinations(shown.items(), 2):
                for vision in VISIONS:
                    d = difference(ra, rb, vision)
                    if d < MIN_DELTA_E:
                        problems.append(f"{where}: {a} and {b} ΔE00 {d:.1f} ({vision})")
    assert not problems, "\n".join(problems)


def scale_problem(scale: list[str], vision: str) -> str | None:
    """Why a continuous colour scale cannot be read with ``vision``, or None. Its
    lightness must rise or fall throughout (sequential), or do one then the other
    (diverging); then two stops of equal lightness (within 5 L*) on the two arms must
    still differ by ΔE00 >= 10, or a low value and a high one would look alike."""
    colours = [lab(simulate(over(c), vision)) for c in scale]
    lightness = np.round([c[0] for c in colours], 1)
    steps = np.sign(np.diff(lightness))
    turns = int(np.count_nonzero(np.diff(steps[steps != 0])))
    if turns > 1:
        return f"lightness {np.round(lightness).tolist()} turns {turns} times"
    if turns == 1:
        top = int(np.argmax(lightness) if lightness[len(scale) // 2] > lightness[0]
                  else np.argmin(lightness))
        for a in colours[:top]:
            for b in colours[top + 1:]:
                if abs(a[0] - b[0]) < 5 and delta_e2000(a, b) < MIN_DELTA_E:
                    return (f"its two arms meet: L* {a[0]:.0f} and {b[0]:.0f}, ΔE00 "
                            f"{delta_e2000(a, b):.1f}")
    return None


def test_scale_check_refuses_a_rainbow_and_takes_rdbu_and_cividis():
    import plotly.colors as pc

    def stops(name):
        return [colour for _position, colour in pc.get_colorscale(name)]
    assert any(scale_problem(stops("Turbo"), v) for v in VISIONS)
    for name in ("RdBu", "Cividis", "Viridis"):
        assert not any(scale_problem(stops(name), v) for v in VISIONS), name


def test_colour_scales_keep_lightness_in_order(figures):
    problems = []
    for where, spec in each_figure(figures):
        for scale in smooth_scales(spec):
            for vision in VISIONS:
                problem = scale_problem(scale, vision)
                if problem:
                    problems.append(f"{where}: scale {scale[:3]}… {vision}: {problem}")
    assert not problems, "\n".join(problems)
