"""rope_core's groups import one way: each only the groups its ``__init__`` allows,
and none imports Streamlit, the app's ui, pages or views (rope_core is pure computation)."""

import ast
from pathlib import Path

import pytest

import rope_core

PACKAGE = Path(rope_core.__file__).parent
# What each group may import (its own modules aside), as its __init__ says.
ALLOWED = {
    "support": set(),
    "rotary": {"support"},
    "models": {"support", "rotary"},
    "limits": {"support", "rotary", "models"},
    "beyond": {"support", "rotary", "models"},
    "teaching": {"support", "rotary", "models", "limits", "beyond"},
}
FOREIGN = ("streamlit", "ui", "pages", "views", "transformers")


def imports(path: Path) -> list[tuple[str, int]]:
    """(what, level) for every import in a module: ``from ..rotary.x import y`` is
    ("rotary.x", 2), ``import torch`` is ("torch", 0)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((node.module or "", node.level))
    return out


def group_of(module: str, level: int, group: str) -> str | None:
    """The rope_core group an import reaches, or None outside rope_core."""
    if level == 1:
        return group
    if level == 2:
        return module.split(".")[0]
    if module == "rope_core" or module.startswith("rope_core."):
        parts = module.split(".")
        return parts[1] if len(parts) > 1 else "rope_core"
    return None


def test_every_module_sits_in_a_group():
    loose = [p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"]
    assert loose == []
    assert {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()} == set(ALLOWED)


@pytest.mark.parametrize("group", sorted(ALLOWED))
def test_group_imports_only_what_it_may(group):
    for path in sorted((PACKAGE / group).glob("*.py")):
        for module, level in imports(path):
            assert module.split(".")[0] not in FOREIGN or level, (path.name, module)
            reached = group_of(module, level, group)
            if reached is None or reached == group:
                continue
            assert reached in ALLOWED[group], f"{group}/{path.name} imports {reached}"


@pytest.mark.parametrize("group", sorted(ALLOWED))
def test_group_says_what_it_holds_and_may_import(group):
    doc = (PACKAGE / group / "__init__.py").read_text(encoding="utf-8")
    assert "import" in doc
    for path in (PACKAGE / group).glob("*.py"):
        if path.stem != "__init__" and not path.stem.startswith("_"):
            assert f"``{path.stem}``" in doc, (group, path.stem)
