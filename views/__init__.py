"""The figure builders of every page, one module per page (``views.long_context`` for
pages/long_context.py), with the cached tables that feed them and the sentences a page
writes from numbers, so that each page script reads top to bottom as the lesson:
controls, cached calls, figures, explanations, CSVs (docs/architecture.md). pages/ holds
only pages (a fresh server may serve any file there), so these live here. A view may
import rope_core and ui; nothing in rope_core or ui imports a view, a view never imports
a page or another view (what pages share lives in ui/)."""
