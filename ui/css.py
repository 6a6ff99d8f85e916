"""The app's own page CSS: formulas that scroll in their own box on a phone,
and larger text in presentation mode.

app.py injects it once per run (:func:`page_style`), after the sidebar has
read the settings, with the mode bar's export script (ui.figures.EXPORT_SCRIPT).
The CSS and the script are constants of the app: nothing a visitor sends reaches
them, only the choice between the normal and the presentation sheet and the
language of the script's tooltip. ``st.html`` with a script goes to the page, not
to Streamlit's event container (where a ``<style>`` alone goes): the sheet hides
its own element, so it takes no space on the page.
"""

from __future__ import annotations

import streamlit as st

# Every width. A display formula wider than its column breaks onto further lines
# where TeX would break an inline formula: after a relation (=, ≤) or a binary
# operator (+, −) at its outer level, and at \allowbreak. KaTeX builds a display
# formula of the same breakable pieces and only keeps them on one line with
# white-space: nowrap. A box that scrolls sideways could not be reached with the
# keyboard (axe: scrollable-region-focusable), so a formula scrolls only as a last
# resort, when one unbreakable piece is wider than the column. Markdown tables
# scroll in their box.
BASE_CSS = """
/* This sheet and the mode bar's script stand in an element of their own (page_style):
   it takes no room, not even the gap between elements. */
[data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > style + script) {
  display: none;
}
[data-testid="stMarkdownContainer"] .katex-display {
  overflow-x: auto; overflow-y: hidden; max-width: 100%;
  padding: 0.15em 0.25em 0.25em;  /* sideways: room for glyphs that jut out by a pixel or two */
}
[data-testid="stMarkdownContainer"] .katex-display > .katex { white-space: normal; }
/* The label of a disabled widget: Streamlit draws it in its text colour at 40 %
   (2.6:1 on white); at 60 %, as captions are, it is 4.96:1 and still lighter than
   an active label. (No theme option sets it.) */
[data-testid="stWidgetLabel"][disabled] [data-testid="stMarkdownContainer"],
[data-testid="stWidgetLabel"][disabled] [data-testid="stMarkdownContainer"] p {
  color: rgba(13, 17, 23, 0.6);
}
/* The chosen option of a segmented control (the language, the pair layout, the common
   bases): Streamlit writes it in the primary colour on the primary colour at 10 %, 4.25:1
   on the sidebar; a darker blue of the same hue gives 6.2:1. */
[data-testid="stButtonGroup"] button[data-selected="true"] [data-testid="stMarkdownContainer"] p {
  color: #0550ae;
}
[data-testid="stMarkdownContainer"] table { display: block; overflow-x: auto; max-width: 100%; }
/* Columns in the page wrap onto a new line when narrower than 14rem (Streamlit
   only stacks them below 640 px, and at 800 px the open sidebar leaves a
   four-column row 110 px per column); metric values and page links wrap
   instead of running past the edge or ending in an ellipsis. */
[data-testid="stMain"] [data-testid="stHorizontalBlock"] { flex-wrap: wrap; }
[data-testid="stMain"] [data-testid="stHorizontalBlock"] > [data-testid="stColumn"] {
  min-width: min(100%, 14rem);
}
/* A row of metrics (ui.row, one horizontal container) shares its width equally, as
   st.columns did, whatever each label's length, and wraps where a metric would get
   less than 12rem. */
[data-testid="stHorizontalBlock"]
  > [data-testid="stElementContainer"]:has(> [data-testid="stMetric"]) {
  flex: 1 1 0; min-width: min(100%, 12rem);
}
/* A toggle's or checkbox's label wraps onto a second line instead of ending in an
   ellipsis ("every token has the same …" in a narrow column at 800 px). */
[data-testid="stCheckbox"] [data-testid="stMarkdownContainer"],
[data-testid="stCheckbox"] [data-testid="stMarkdownContainer"] p {
  white-space: normal; overflow: visible; text-overflow: clip;
}
[data-testid="stDownloadButton"] button p, [data-testid="stButton"] button p,
[data-testid="stMetricValue"] > div, [data-testid="stMetricLabel"] p,
[data-testid="stPageLink"] a span, [data-testid="stPageLink"] p {
  white-space: normal !important; overflow-wrap: anywhere; text-overflow: clip;
}
/* Plots side by side get the full width below 1100 px (a laptop with the
   sidebar open, a projector at 800 px); Streamlit stacks them below 640 px. */
@media (max-width: 1100px) {
  [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stPlotlyChart"]) {
    flex-direction: column;
  }
  [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stPlotlyChart"])
    > [data-testid="stColumn"] { width: 100% !important; flex: 1 1 auto !important; }
}
"""

# The app's own navigation in the sidebar (ui.navigation.draw) and the tour's moves
# (ui.navigation.tour_steps), drawn like Streamlit's: the current page bold on a shaded
# row, a visible focus ring for the keyboard. Section titles in the text colour at 60 %
# (4.88:1 on the sidebar's #f6f8fa, as captions); links in the text colour.
NAV_CSS = """
.rope-nav ul, .rope-steps ol { list-style: none; margin: 0; padding: 0; }
.rope-nav > ul > li { margin: 0 0 0.5rem; padding: 0; }
.rope-nav li { margin: 0; padding: 0; }
.rope-nav-section {
  display: block; padding: 0.25rem 0.5rem; font-size: 0.875rem; font-weight: 600;
  color: rgba(13, 17, 23, 0.6);
}
.rope-nav a, .rope-steps a, .rope-steps .rope-off {
  display: flex; align-items: center; gap: 0.5rem; padding: 0.125rem 0.5rem;
  margin: 0.125rem 0; border-radius: 0.5rem; color: #0d1117; text-decoration: none;
  line-height: 2rem;
}
.rope-nav a:hover, .rope-steps a:hover { background: rgba(13, 17, 23, 0.08); }
.rope-nav a:focus-visible, .rope-steps a:focus-visible {
  outline: 2px solid #0969da; outline-offset: 1px;
}
.rope-nav a[aria-current="page"] { font-weight: 600; background: rgba(13, 17, 23, 0.1); }
.rope-icon {
  font-family: "Material Symbols Rounded"; font-size: 1.25rem; line-height: 1;
  font-weight: 400; font-style: normal; user-select: none; flex: none;
}
.rope-steps { display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 0.5rem; }
.rope-steps ol { display: flex; flex-wrap: wrap; gap: 0.25rem; }
.rope-steps a, .rope-steps .rope-off {
  border: 1px solid rgba(13, 17, 23, 0.2); justify-content: center; min-width: 2.5rem;
}
.rope-steps a[aria-current="step"] {
  background: #0969da; border-color: #0969da; color: #ffffff; font-weight: 600;
}
.rope-steps .rope-off { color: rgba(13, 17, 23, 0.6); }
"""

# Presentation mode: text for the back of a room; columns holding plots are
# stacked so that every plot takes the full width of the page.
PRESENT_CSS = """
[data-testid="stMain"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMain"] [data-testid="stMarkdownContainer"] li {
  font-size: 1.3rem; line-height: 1.5;
}
[data-testid="stMain"] [data-testid="stMarkdownContainer"] .katex { font-size: 1.4em; }
[data-testid="stMain"] [data-testid="stCaptionContainer"],
[data-testid="stMain"] [data-testid="stCaptionContainer"] p { font-size: 1.1rem; }
[data-testid="stMain"] [data-testid="stWidgetLabel"] p { font-size: 1.15rem; }
/* A slider's value grows with the text above: it stands on its thumb, anchored by its
   bottom (Streamlit places it 1.6em of 14 px above the thumb's centre, and a larger
   value hung down over the track). */
[data-testid="stMain"] [data-testid="stSliderThumbValue"] { top: auto; bottom: 100%; }
[data-testid="stMain"] h1 { font-size: 3.2rem; }
[data-testid="stMain"] h2 { font-size: 2.4rem; }
[data-testid="stMain"] h3 { font-size: 1.9rem; }
[data-testid="stMain"] [data-testid="stMetricValue"] { font-size: 2.6rem; }
[data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stPlotlyChart"]) {
  flex-direction: column;
}
[data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stPlotlyChart"])
  > [data-testid="stColumn"] { width: 100% !important; flex: 1 1 auto !important; }
"""


def page_css(present: bool) -> str:
    """The style sheet for this run."""
    return BASE_CSS + NAV_CSS + (PRESENT_CSS if present else "")


def page_style(present: bool) -> None:
    """Inject the app's CSS for this run, and the script that gives every chart's mode bar
    its SVG button (ui.figures.EXPORT_SCRIPT; a browser runs it once per page load): one
    element, hidden (app.py calls this once per run)."""
    from .figures import export_script
    from .i18n import lang

    st.html(f"<style>{page_css(present)}</style><script>{export_script(lang())}</script>",
            unsafe_allow_javascript=True)
