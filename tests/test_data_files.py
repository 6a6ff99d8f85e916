"""The lesson's lists kept as data (ui/data_files.py): ui/pages.toml and ui/glossary.toml
read into ui.navigation.PAGES and ui.glossary.TERMS, and every mistake a person editing
them can make stopped, when the app starts, by an error that names the file, the entry
and the field.

Each case edits one line of a copy of the real file and reads the copy with the very
function the module runs at import (``_read``)."""

from __future__ import annotations

import pathlib
import tomllib

import pytest

from ui import data_files, glossary, navigation
from ui.glossary import TERMS, Term
from ui.navigation import PAGES, PageSpec

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _count(name: str, entry: str) -> int:
    data = tomllib.loads((ROOT / "ui" / name).read_text(encoding="utf-8"))
    return sum(len(section[entry]) for section in data["section"])


def test_the_files_give_the_records_in_their_order():
    assert len(PAGES) == _count("pages.toml", "page") == 20
    assert len(TERMS) == _count("glossary.toml", "term") == 43
    assert navigation._read() == PAGES and glossary._read() == TERMS
    assert all(isinstance(s, PageSpec) for s in PAGES) and all(isinstance(t, Term)
                                                             for t in TERMS)
    # the first and last entries of each file, as written there
    assert (PAGES[0].file, PAGES[0].section, PAGES[0].default) == (
        "pages/overview.py", "Start", True)
    assert (PAGES[2].name, PAGES[2].charts) == ("glossary", False)
    assert PAGES[-1].summary == ("seven position encodings, two tasks, five seeds each, "
                                 "evaluated past their length")
    theta = glossary.BY_KEY["theta"]
    assert (theta.section, theta.symbol, theta.short, theta.page) == (
        "The rotation", "θᵢ", "", "frequencies")
    assert TERMS[-1].text == (  # a text over two lines, joined as TOML joins them
        "Barbero et al. 2024: rotate only the fastest fraction p of the pairs and leave the "
        "slowest ones unrotated (θ = 0). p = 1 is RoPE, p = 0 is NoPE.")


@pytest.fixture
def edited(tmp_path, monkeypatch):
    """edited(name, old, new): ui/<name> with its first ``old`` replaced by ``new``,
    where the readers look for it (``data_files.HERE``)."""
    def edit(name: str, old: str, new: str) -> None:
        for real in ("pages.toml", "glossary.toml"):
            (tmp_path / real).write_text((ROOT / "ui" / real).read_text(encoding="utf-8"),
                                         encoding="utf-8")
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert old in text
        (tmp_path / name).write_text(text.replace(old, new, 1), encoding="utf-8")

    monkeypatch.setattr(data_files, "HERE", tmp_path)
    return edit


READERS = {"glossary.toml": glossary._read, "pages.toml": navigation._read}


def refused(name: str) -> str:
    """The error the reader of ui/<name> raises (it must raise one that names the file)."""
    with pytest.raises(data_files.DataFileError) as info:
        READERS[name]()
    assert str(info.value).startswith(f"ui/{name}")
    return str(info.value)


@pytest.mark.parametrize("name, old, new, error", [
    ("glossary.toml", 'page = "overview"\n', "", 'section 1 "Positions and attention", '
                                                   'term 1 "token": missing page'),
    ("glossary.toml", "short = ", "shrot = ", 'term 2 "position": unknown field shrot'),
    ("pages.toml", 'icon = ":material/tour:"\n', "", 'page 2 "pages/tour.py": missing icon'),
    ("pages.toml", "charts = false", "chart = false", "unknown field chart"),
])
def test_a_missing_or_unknown_field_is_named(edited, name, old, new, error):
    edited(name, old, new)
    assert error in refused(name)


def test_a_key_or_a_file_used_twice_is_named(edited):
    edited("glossary.toml", 'key = "bag"', 'key = "token"')
    assert refused("glossary.toml") == "ui/glossary.toml: key used twice: token"
    edited("pages.toml", 'file = "pages/tour.py"', 'file = "pages/overview.py"')
    assert refused("pages.toml") == "ui/pages.toml: file used twice: pages/overview.py"


def test_a_page_that_does_not_exist_is_named(edited):
    edited("glossary.toml", 'page = "overview"', 'page = "overveiw"')
    assert "term 1 \"token\": page = 'overveiw' is no page of ui/pages.toml" in refused(
        "glossary.toml")
    edited("pages.toml", 'file = "pages/tour.py"', 'file = "pages/tuor.py"')
    assert refused("pages.toml") == "ui/pages.toml: no such file: pages/tuor.py"


def test_a_value_of_the_wrong_kind_is_named(edited):
    for value, shown in (("1", "1"), ('""', "''")):  # TOML's value, Python's repr of it
        edited("glossary.toml", 'name = "token"', f"name = {value}")
        assert f"name = {shown} is not a non-empty string" in refused("glossary.toml")
    edited("pages.toml", "default = true", 'default = "yes"')
    assert "default = 'yes' is not true or false" in refused("pages.toml")
    edited("glossary.toml", 'symbol = "q, k, v"', 'symbol = "q, k, v"\nshort = "score"')
    assert 'term 4 "qkv": short or symbol, not both' in refused("glossary.toml")


def test_exactly_one_page_is_the_default(edited):
    for old, new in (("default = true", "default = false"),
                     ("charts = false", "charts = false\ndefault = true")):
        edited("pages.toml", old, new)
        assert refused("pages.toml") == \
            "ui/pages.toml: exactly one page must have default = true"


def test_a_file_that_is_not_as_the_readers_expect_is_named(edited):
    edited("glossary.toml", 'title = "The rotation"', 'titel = "The rotation"')
    assert "ui/glossary.toml, section 2: no title" in refused("glossary.toml")
    edited("glossary.toml", '[[section.term]]\nkey = "rope"', '[[section.terms]]\nkey = "rope"')
    assert 'section 2 "The rotation": unknown field terms' in refused("glossary.toml")
    edited("glossary.toml", 'name = "token"', 'name = "token')
    assert refused("glossary.toml").startswith("ui/glossary.toml is not valid TOML: ")
