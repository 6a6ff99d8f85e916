"""The shared UI of RoPE Explorer: one home for every piece pages have in common.

* :mod:`ui.controls`: widgets bound to the URL under one rule for link values
* :mod:`ui.sidebar`: the shared sidebar (presentation, base, head dim, layout; the device
  only on a server with a GPU)
* :mod:`ui.tables`: results (and text made from them) cached for every visitor, CSV downloads,
  shown tables kept as the Arrow tables Streamlit sends
* :mod:`ui.figures`: the figure style, and its presentation-mode form
* :mod:`ui.css`: the app's page CSS (formulas scroll in their box; presentation text)
* :mod:`ui.safety`: visitor text shown as plain text, errors without tracebacks
* :mod:`ui.configs`: a visitor's own ``config.json``, pasted or uploaded, read safely
* :mod:`ui.formatting`: number formatting, the explanation under a plot, formulas and rows
  as one element each
* :mod:`ui.i18n`: English and Chinese: ``_``, ``ngettext``, ``N_``, numbers per locale
  (from :mod:`ui.translation`, the lowest module); the language switch is a control
* :mod:`ui.glossary`: the glossary's terms (kept as data in ui/glossary.toml, as the
  list of pages is in ui/pages.toml: :mod:`ui.data_files`), and the box of a page's own
  terms (``ui.terms``)
* :mod:`ui.layers`: a model's layers as a strip of cells (Real models, Layers without RoPE)
* :mod:`ui.legacy`: the guard against Streamlit's legacy ``pages/`` mode
* :mod:`ui.hardening`: server limits a config file cannot set
* :mod:`ui.constants`: process constants, computed once per process in the background
* :mod:`ui.classroom`: a class that answers together (the Guided tour's predictions,
  collected live, revealed by the teacher on every screen), over the store ``classroom``

Pages use the names re-exported here (``import ui``; ``ui.slider(...)``).
"""

from .controls import (
                      choice,
                      multiselect,
                      number,
                      pair_index,
                      select_slider,
                      slider,
                      text,
                      toggle,
)
from .css import page_style
from .figures import (
                      COLORS,
                      FONT,
                      GREY,
                      LOG_AXIS,
                      Frozen,
                      at,
                      at_frame,
                      colorscale,
                      figure,
                      freeze,
                      hline,
                      hline_note,
                      kept,
                      kept_figure,
                      log_axis,
                      presented,
                      relayout,
                      show,
                      sketch,
                      square,
                      style,
                      typed,
                      vline,
)
from .formatting import (
                      bullets,
                      display_formula,
                      explain,
                      fmt_base,
                      formulas,
                      intro,
                      paragraphs,
                      row,
                      slow_pairs_in_low_precision,
                      slug,
)
from .glossary import terms
from .safety import capped, error, friendly_errors, plain, quoted, warning
from .sidebar import (
                      BASE_OPTIONS,
                      DEFAULTS,
                      DIM_OPTIONS,
                      Settings,
                      remember,
                      settings,
                      sidebar_settings,
)
from .tables import MAX_CSV_CELLS, arrow, csv_bytes, download, prose, read_csv, table

__all__ = [
    "choice", "multiselect", "number", "pair_index", "select_slider", "slider", "text",
    "toggle",
    "COLORS", "FONT", "GREY", "Frozen", "at_frame", "colorscale", "figure", "freeze",
    "presented", "relayout", "show", "sketch", "square", "style", "hline", "kept",
    "kept_figure", "typed", "vline",
    "LOG_AXIS", "at", "hline_note", "log_axis",
    "page_style",
    "capped", "error", "friendly_errors", "plain", "quoted", "warning",
    "BASE_OPTIONS", "DEFAULTS", "DIM_OPTIONS", "Settings", "remember", "settings",
    "sidebar_settings",
    "MAX_CSV_CELLS", "arrow", "csv_bytes", "download", "prose", "read_csv", "table",
    "bullets", "display_formula", "explain", "fmt_base", "formulas", "intro", "paragraphs", "row",
    "slow_pairs_in_low_precision", "slug",
    "terms",
]
