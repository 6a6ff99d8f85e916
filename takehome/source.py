"""A page's cached calls as code a student reads: the source of each ``@ui.table``
function a download uses, without its decorator, with everything it needs from its
module (the imports, the constants, the helper functions), so that the cell runs with
rope_core, numpy, pandas and torch alone.

A function may use, from its module: modules of :data:`ALLOWED` (imported under the
module's own alias: ``import rope_core as rc``, ``from rope_core.limits import breaks as
br``), names imported from them, constants written as Python literals, and other functions
and classes of the app (their source goes in first, with what they need in turn). A module
of the app (``ui``, ``ui.constants``) is refused by name, unless the page's recipe gives
the code of what it reads there (``takehome.recipes.Recipe.code``): such a function
belongs in rope_core, or its recipe says how a student computes it.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import math
import pprint
import re
import sys
import textwrap
import types
from collections.abc import Callable
from pathlib import Path

import numpy as np

ALLOWED = ("rope_core", "numpy", "pandas", "torch", "math", "pyarrow", "itertools",
           "functools", "collections", "typing", "pathlib")
REPO = Path(__file__).resolve().parents[1]  # the app's own code: pages, views, ui, ...


def unwrapped(fn: Callable) -> Callable:
    """The function under ``@ui.table`` (or ``@ui.prose``)."""
    return getattr(fn, "__wrapped__", fn)


def plain(value):
    """``value`` with numpy scalars and arrays turned into Python numbers and tuples."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return tuple(plain(v) for v in value.tolist())
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    return value


def literal(value, width: int = 88) -> str:
    """``value`` (numbers, strings, None, and tuples, lists and dicts of them) as Python
    source that evaluates to it; TypeError for anything else."""
    value = plain(value)
    text = pprint.pformat(value, width=width, sort_dicts=False)
    try:
        back = eval(text, {"__builtins__": {}}, {"inf": math.inf})  # noqa: S307 (our text)
    except Exception as err:  # noqa: BLE001
        raise TypeError(f"{value!r} is not a Python literal") from err
    if back != value or type(back) is not type(value):
        raise TypeError(f"{value!r} is not a Python literal")
    return text


def import_line(alias: str, module: types.ModuleType) -> str:
    """The import that binds ``module`` to ``alias``."""
    name = module.__name__
    if "." in name:
        parent, last = name.rsplit(".", 1)
        return f"from {parent} import {last}" + ("" if alias == last else f" as {alias}")
    return f"import {name}" + ("" if alias == name else f" as {alias}")


def _allowed(module_name: str) -> bool:
    return module_name.split(".")[0] in ALLOWED


def _node(obj) -> tuple[ast.FunctionDef | ast.ClassDef, list[str]]:
    lines = textwrap.dedent(inspect.getsource(obj)).splitlines()
    node = ast.parse("\n".join(lines)).body[0]
    if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        raise TypeError(f"{obj!r} is neither a function nor a class")
    return node, lines


def free_names(node: ast.FunctionDef | ast.ClassDef) -> list[str]:
    """The global names a function (or a class body) reads, in order of first use (its
    decorators left out; its parameters, assignments, loop and comprehension variables,
    and builtins are not global)."""
    if isinstance(node, ast.FunctionDef):
        parts = [node.args, *node.body] + ([node.returns] if node.returns else [])
    else:
        parts = [*node.bases, *node.body]
    nodes = [n for part in parts for n in ast.walk(part)]
    bound = {node.name}
    for n in nodes:
        if isinstance(n, ast.arg):
            bound.add(n.arg)
        elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            bound.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in n.names}
        elif isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            bound.add(n.name)
    names = [n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return [name for name in dict.fromkeys(names)
            if name not in bound and not hasattr(builtins, name)]


def _attributes(node: ast.AST, alias: str) -> list[str]:
    """The attributes read of the name ``alias`` (``constants.tiny_record``: tiny_record)."""
    return list(dict.fromkeys(
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Name) and n.value.id == alias))


class Code:
    """The code a notebook has written so far: its imports and its definitions (each
    once), and what each new function adds.

    ``replacements`` (a recipe's ``code``): a name's own code (a function, whose source is
    taken as any other, or source text) in place of the one the app uses; where a function
    reads it as an attribute of a module of the app (``constants.tiny_record()``, a
    process constant of ``ui.constants``), that reading becomes the bare name
    (``tiny_record()``). ``given``: names the notebook's settings define."""

    def __init__(self, replacements: dict | None = None, given=()) -> None:
        self.imports: dict[str, None] = {}  # lines, in order
        self.defined: dict[str, str] = {name: "setting" for name in given}
        self.replacements = dict(replacements or {})

    def _replace(self, name: str) -> list[str]:
        if name in self.defined:
            return []
        code = self.replacements[name]
        if isinstance(code, str):
            self.defined[name] = "recipe"
            return [code]
        return self.define(code, name)

    def define(self, fn, name: str | None = None) -> list[str]:
        """The blocks (constants, then functions and classes, dependencies first) that
        ``fn`` needs and that are not written yet, its own source last."""
        f = unwrapped(fn)
        name = name or f.__name__
        if name in self.defined:
            return []
        node, lines = _node(f)
        self.defined[name] = inspect.getsourcefile(f) or ""
        namespace = f.__globals__ if inspect.isfunction(f) else vars(sys.modules[f.__module__])
        blocks: list[str] = []
        constants: list[str] = []
        own = "\n".join(lines[node.lineno - 1:])  # from "def", the decorators left out
        for free in free_names(node):
            if free in self.defined:
                continue
            if free in self.replacements:
                blocks += self._replace(free)
                continue
            if free not in namespace:
                raise NameError(f"{f.__qualname__} reads {free}, which its module lacks")
            value = namespace[free]
            if isinstance(value, types.ModuleType):
                if _allowed(value.__name__):
                    self.imports[import_line(free, value)] = None
                    self.defined[free] = "import"
                    continue
                attributes = _attributes(node, free)
                missing = [a for a in attributes if a not in self.replacements]
                if missing:
                    raise TypeError(f"{f.__qualname__} uses the module {value.__name__} (as "
                                    f"{free}: {', '.join(missing)}): only {', '.join(ALLOWED)}"
                                    " and what its recipe gives")
                for attribute in attributes:
                    blocks += self._replace(attribute)
                own = re.sub(rf"\b{free}\.({'|'.join(attributes)})\b", r"\1", own)
            elif callable(value):
                inner = unwrapped(value)
                module = getattr(inner, "__module__", "") or ""
                where = inspect.getsourcefile(inner) if not _allowed(module) else None
                if _allowed(module):
                    real = getattr(inner, "__name__", free)
                    self.imports[f"from {module} import {real}"
                                 + ("" if real == free else f" as {free}")] = None
                    self.defined[free] = "import"
                elif where and Path(where).resolve().is_relative_to(REPO):
                    blocks += self.define(value, free)  # the app's own helper: its source
                else:
                    raise TypeError(f"{f.__qualname__} calls {free} from {module}: "
                                    "not rope_core")
            else:
                constants.append(f"{free} = {literal(value, 96 - len(free))}")
                self.defined[free] = "constant"
        return ["\n".join(constants)] * bool(constants) + blocks + [own]
