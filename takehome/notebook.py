"""A page's record (``ui.record``) as a Jupyter notebook (nbformat 4): the settings, the
page's cached calls as code (:mod:`takehome.source`) that writes its CSV files, its figures
in Plotly (the page's recipe, :mod:`takehome.recipes`) and its explanations as Markdown,
in the page's order and the visitor's language (call it inside ``ui.i18n.speaking``).

Cells, top to bottom:

1. Markdown: the page, what the notebook does, how to install rope_core;
2. the settings: one variable per argument of the page's cached calls, named as the
   function's parameter (a second value for the same name gets the function's name too);
3. the imports;
4. then, in the page's order: each table (its functions' source, the call, the CSV files
   it gives, ``rope_core.write_csv``), each figure of the recipe (after the tables it
   draws), and each explanation;
5. Markdown: the files written.

Everything the visitor could have typed reaches the code only as a Python literal
(``repr``) and the link only URL-encoded, in a comment; the Markdown is the page's own,
whose visitor values ``ui.safety`` escaped.
"""

from __future__ import annotations

import fnmatch
import inspect
import re
import urllib.parse
from dataclasses import dataclass, field

import nbformat
from nbformat import v4

from ui.i18n import _, lang

from . import recipes, source

# what a figure's code may use without a table's function bringing it in
FIGURE_IMPORTS = {"px": "import plotly.express as px", "go": "import plotly.graph_objects as go",
                  "np": "import numpy as np", "pd": "import pandas as pd",
                  "rc": "import rope_core as rc", "math": "import math"}


@dataclass
class Call:
    """One cached call of the page and the CSV files it gives: (part, file, offered)."""

    fn: object
    args: tuple
    label: str
    var: str = ""
    writes: list[tuple] = field(default_factory=list)
    params: list[str] = field(default_factory=list)  # the settings' variables it takes

    @property
    def name(self) -> str:
        return source.unwrapped(self.fn).__name__


def _default_var(name: str) -> str:
    for suffix in ("_tables", "_table"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return f"{name}_result"


def _figure_text(fig) -> tuple[str, str | None, str | None, bool]:
    """The figure's title and axis titles (None: none) and whether it has one x and one
    y axis, as the page drew it."""
    layout = fig.to_dict().get("layout", {})

    def text(node) -> str | None:
        node = node.get("title") if isinstance(node, dict) else None
        node = node.get("text") if isinstance(node, dict) else node
        if not isinstance(node, str):
            return None
        joined = re.sub(r"\s*<br\s*/?>\s*", "" if lang() == "zh" else " ", node)  # wrapped
        return re.sub(r"<[^>]+>", "", joined).strip()

    single = not any(re.fullmatch(r"[xy]axis\d+", k) for k in layout)
    return (text(layout) or "", text(layout.get("xaxis", {})),
            text(layout.get("yaxis", {})), single)


def _heading(label: str) -> str:
    return label[:1].upper() + label[1:]


def _install() -> str:
    return _(
        "**Install once.** Open a terminal and run `pip install <path of your copy of RoPE "
        "Explorer> plotly`, the path being the folder of RoPE Explorer that holds "
        "`pyproject.toml` (for example `pip install ~/rope-explorer plotly`). That installs "
        "`rope_core`, the package that computes every number of the app (with torch, numpy "
        "and pandas), and Plotly for the figures; the app itself is not needed. For "
        "PyTorch's CPU-only build, install torch first: `pip install --index-url "
        "https://download.pytorch.org/whl/cpu torch==2.13.0`.")


def notebook(record) -> nbformat.NotebookNode:
    """The notebook of ``record``'s page (nbformat 4), in the current language."""
    entries = record.entries()
    recipe = recipes.recipe(record.page)

    # ---- the calls, one per (function, arguments), with the CSV files each gives
    calls: dict[tuple, Call] = {}
    first_by_name: dict[str, Call] = {}
    for kind, _key, data in entries:
        if kind != "csv":
            continue
        ident = (data["fn"].table_name, source.plain(data["args"]))
        call = calls.setdefault(ident, Call(data["fn"], data["args"], data["label"]))
        call.writes.append((data["part"], data["filename"], data["offered"]))
        first_by_name.setdefault(call.name, call)

    # ---- the order in which tables are computed: where first needed
    figures: list[tuple] = []  # (entry index, key, figure spec, data)
    order: list[Call] = []
    for index, (kind, key, data) in enumerate(entries):
        if kind == "figure":
            spec = next((f for pattern, f in recipe.figures.items()
                         if key and fnmatch.fnmatchcase(key, pattern)), None)
            if spec is not None and all(t in first_by_name for t in spec.tables):
                figures.append((index, key, spec, data))
                order += [first_by_name[t] for t in spec.tables
                          if first_by_name[t] not in order]
        elif kind == "csv":
            call = calls[(data["fn"].table_name, source.plain(data["args"]))]
            if call not in order:
                order.append(call)

    # ---- the code each call needs, then its variable and the settings
    code = source.Code(recipe.code, given=recipe.settings)
    blocks: dict[int, list[str]] = {}
    left_out: dict[int, str] = {}  # a call whose code the notebook cannot take: why
    for call in order:
        try:
            blocks[id(call)] = code.define(call.fn)
        except (TypeError, NameError) as err:
            left_out[id(call)] = str(err)
    order = [call for call in order if id(call) not in left_out]
    taken = set(code.defined)
    counts: dict[str, int] = {}
    for call in order:
        var = recipe.tables.get(call.name) or _default_var(call.name)
        if var in code.defined:
            raise ValueError(f"{record.page}: the variable {var} is also a name of its code")
        counts[var] = counts.get(var, 0) + 1
        call.var = var if counts[var] == 1 else f"{var}_{counts[var]}"
        taken.add(call.var)
    settings: dict[str, object] = {}
    for call in order:
        signature = inspect.signature(source.unwrapped(call.fn))
        bound = signature.bind(*call.args).arguments
        for param, value in bound.items():
            value = source.plain(value)
            name = param
            if name in taken or (name in settings and settings[name] != value):
                name = f"{param}_{call.name}"
            while name in taken or (name in settings and settings[name] != value):
                name += "_"
            settings[name] = value
            call.params.append(name)

    # ---- the cells
    cells = [v4.new_markdown_cell("\n\n".join([
        f"# {record.title}",
        _("This notebook is the page **{page}** of RoPE Explorer at your settings. Run from "
          "top to bottom, it recomputes the page's tables with `rope_core` (the very calls "
          "the page makes), writes the same CSV files as the page's download buttons into "
          "the folder it runs in, draws the page's figures with Plotly and gives the "
          "page's explanations.").format(page=record.title),
        _install()]), id="about")]
    link = urllib.parse.urlencode(record.query(), doseq=True)
    lines = ["# " + _("The page's settings when you took it home; change them and run every "
                      "cell again (the CSV files keep the names the page gave them)."),
             *([f"# ?{link}"] if link else []),
             *(f"{name} = {source.literal(value, 96 - len(name))}"
               for name, value in settings.items()),
             *(f"\n# {_(comment)}\n{text}" for comment, text in recipe.settings.values())]
    cells.append(v4.new_code_cell("\n".join(lines), id="settings"))
    figure_code = "\n".join(spec.code for _i, _k, spec, _d in figures)
    used = set(re.findall(r"\b([a-z]+)\.", figure_code))
    imports = ["import rope_core as rc", *code.imports,
               *(line for alias, line in FIGURE_IMPORTS.items() if alias in used)]
    cells.append(v4.new_code_cell("\n".join(dict.fromkeys(imports)), id="imports"))

    done: set[int] = set()
    files: list[str] = []

    def table_cells(call: Call) -> list:
        if id(call) in done:
            return []
        done.add(id(call))
        writes = []
        for part, filename, offered in call.writes:
            target = call.var if part is None else f"{call.var}[{part!r}]"
            line = f"rc.write_csv({target}, {filename!r})"
            if not offered:
                line = "# " + line + "  # " + _("too large for the page to offer")
            else:
                files.append(filename)
            writes.append(line)
        body = "\n\n\n".join(blocks[id(call)])
        run = f"{call.var} = {call.name}({', '.join(call.params)})"
        part = call.writes[0][0]  # the table shown under the cell: the first it writes
        shown = call.var if part is None else f"{call.var}[{part!r}]"
        text = (body + "\n\n\n" if body else "") + "\n".join([run, *writes, shown])
        n = len(done)
        return [v4.new_markdown_cell(f"## {_heading(call.label)}", id=f"table-{n}-about"),
                v4.new_code_cell(text, id=f"table-{n}")]

    figure_at = {index: (key, spec, data) for index, key, spec, data in figures}
    texts = 0
    for index, (kind, key, data) in enumerate(entries):
        if kind == "csv":
            call = calls[(data["fn"].table_name, source.plain(data["args"]))]
            if id(call) in left_out and id(call) not in done:
                done.add(id(call))
                cells.append(v4.new_markdown_cell(
                    f"## {_heading(call.label)}\n\n" + _(
                        "This table is not recomputed here: its code reads the app itself "
                        "({reason}). Download it from the page.").format(
                            reason=f"`{left_out[id(call)]}`"), id=f"table-left-{len(done)}"))
            else:
                cells += table_cells(call)
        elif kind == "figure" and index in figure_at:
            key, spec, data = figure_at[index]
            for name in spec.tables:
                cells += table_cells(first_by_name[name])
            title, x, y, single = _figure_text(data["figure"])
            changes = [f"title={title!r}"]
            if spec.axes and single:
                changes += [f"xaxis_title={x!r}"] * bool(x) + [f"yaxis_title={y!r}"] * bool(y)
            text = spec.code.strip()
            text += f"\nfig.update_layout({', '.join(changes)})\nfig.show()"
            cells += [v4.new_markdown_cell(f"### {title}\n\n*{data['alt']}*",
                                           id=f"figure-{key}-about"),
                      v4.new_code_cell(text, id=f"figure-{key}")]
        elif kind == "text":
            texts += 1
            cells.append(v4.new_markdown_cell(data, id=f"text-{texts}"))
    listing = "\n".join(f"- `{name}`" for name in dict.fromkeys(files))
    cells.append(v4.new_markdown_cell(
        _("The CSV files this notebook writes, the page's own:") + "\n\n" + listing,
        id="files"))
    nb = v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"}})
    nbformat.validate(nb)
    return nb
