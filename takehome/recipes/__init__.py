"""Per-page recipes of the notebooks: one module per page (``takehome/recipes/<page>.py``,
the page's file name), each a :class:`Recipe` named ``RECIPE``.

What a notebook recomputes, the page itself tells (``ui.record``): each CSV download's
cached function and its arguments, its file name, and the page's explanations and figure
titles in the visitor's language. A recipe adds only what the page cannot say:

* ``tables``: the name of the variable that holds each cached function's result in the
  notebook (``{"theta_tables": "theta"}``; otherwise the function's name without
  ``_table``);
* ``figures``: for a figure's ``ui.show`` key (a glob: ``"iv_wave_*"``), the Plotly code
  that draws it from those variables (:class:`Figure`); a figure without one is
  left out (a diagram, a figure drawn from numbers the page does not offer);
* ``code``: for a name the page's functions read from a module of the app (a process
  constant of ``ui.constants``: ``constants.preset_bounds()``), the function that computes
  it with rope_core (its source goes into the notebook, and the reading becomes
  ``preset_bounds()``), or source text;
* ``settings``: more lines for the settings cell, ``{name: (comment, code)}`` (the
  comment a catalog message, ``N_``): where the trained tiny models' files are.

A page without a recipe still gets its notebook: its tables, CSV files and explanations.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Figure:
    """``code`` makes ``fig`` (Plotly: ``px`` is plotly.express, ``go``
    plotly.graph_objects) from the results of the cached functions ``tables`` (their
    names; their variables are the recipe's ``tables``). The notebook then gives it the
    page's title (and, with ``axes``, the page's axis titles) and shows it."""

    code: str
    tables: tuple[str, ...]
    axes: bool = True


def line(table: str, data: str, x: str, y: str, color: str, **options: str) -> Figure:
    """A Plotly Express line chart of the columns ``x`` and ``y`` of ``data`` (code: a
    variable, or ``compared["spectra"]``), one line per value of the column ``color``,
    from the result of the cached function ``table``; ``options``: more arguments of
    ``px.line``, as code (``log_y="True"``, ``log_x='axis == "log"'``)."""
    args = [data, f"x={x!r}", f"y={y!r}", f"color={color!r}",
            *(f"{name}={code}" for name, code in options.items())]
    lines, current = [], "fig = px.line("
    for arg in args:
        if len(current) + len(arg) > 92 and not current.endswith("("):
            lines.append(current.rstrip())
            current = " " * len("fig = px.line(")
        current += arg + ", "
    return Figure("\n".join([*lines, current[:-2] + ")"]), (table,))


@dataclass(frozen=True)
class Recipe:
    tables: dict[str, str] = field(default_factory=dict)
    figures: dict[str, Figure] = field(default_factory=dict)
    code: dict[str, object] = field(default_factory=dict)
    settings: dict[str, tuple[str, str]] = field(default_factory=dict)


def recipe(page: str) -> Recipe:
    """The recipe of ``page`` (its file name without ``.py``); an empty one if it has none."""
    try:
        module = importlib.import_module(f"{__name__}.{page}")
    except ModuleNotFoundError as err:
        if err.name != f"{__name__}.{page}":
            raise
        return Recipe()
    return module.RECIPE
