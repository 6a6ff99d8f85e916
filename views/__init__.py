"""The figure builders of the longest pages, one module per page (``views.long_context``
for pages/long_context.py), with the cached tables and helpers that only feed figures,
so that each page script reads top to bottom: controls, cached calls, figure,
explanation, CSV. pages/ holds only pages (a fresh server may serve any file there),
so these live here. A view may import rope_core and ui; nothing in rope_core or ui
imports a view, and a view never imports a page."""
