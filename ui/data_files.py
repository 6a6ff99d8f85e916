"""The lesson's lists kept as data: TOML files in ui/ (``pages.toml``: the pages, read by
:mod:`ui.navigation`; ``glossary.toml``: the terms, read by :mod:`ui.glossary`), so that a
teacher or a translator edits them without reading Python.

Each file holds ``[[section]]`` tables, each with a ``title`` (a catalog message) and a
list of entries; an entry becomes one record of a frozen dataclass, whose fields say what
an entry may hold: a field without a default is required, one with a default optional,
and a value must have the field's type (``str``, a non-empty string, or ``bool``). A file
that breaks this raises :class:`DataFileError` when the module that reads it is imported,
naming the file, the entry and the field. Which fields are catalog messages is said in
each file's header and in babel.cfg (``tools/i18n.py``'s TOML extractor).
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent  # the app's folder: where app.py and pages/ are
_TYPES = {"str": str, "bool": bool}


class DataFileError(ValueError):
    """A data file of ui/ that does not say what its reader expects."""


def sections(name: str, entry: str) -> list[tuple[str, list[tuple[str, dict]]]]:
    """The sections of ui/``name``, in the file's order: (title, [(where, table), ...]),
    each entry's table (the ``[[section.<entry>]]`` tables) with the words that name it in
    an error (``ui/glossary.toml, section 2 "The rotation", term 4 "theta"``)."""
    path = HERE / name
    where = f"ui/{name}"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise DataFileError(f"{where} is not valid TOML: {error}") from None
    _only(data, {"section"}, where)
    found = data.get("section")
    if not isinstance(found, list) or not found:
        raise DataFileError(f"{where} has no [[section]] tables")
    out = []
    for number, section in enumerate(found, start=1):
        title = section.get("title") if isinstance(section, dict) else None
        here = f"{where}, section {number}" + (f' "{title}"' if title else "")
        if not isinstance(title, str) or not title:
            raise DataFileError(f"{here}: no title, or one that is not a string")
        _only(section, {"title", entry}, here)
        entries = section.get(entry)
        if not isinstance(entries, list) or not entries or not all(
                isinstance(table, dict) for table in entries):
            raise DataFileError(f"{here} has no [[section.{entry}]] tables")
        out.append((title, [(f'{here}, {entry} {n} "{next(iter(table.values()), "")}"', table)
                            for n, table in enumerate(entries, start=1)]))
    return out


def record(cls: type, table: dict, where: str, **given):
    """``cls(**table, **given)``, the table checked against ``cls``'s fields (all but those
    ``given``): no unknown field, every required one present, each of its field's type."""
    fields = {f.name: f for f in dataclasses.fields(cls) if f.name not in given}
    _only(table, set(fields), where)
    missing = [name for name, field in fields.items()
               if name not in table and field.default is dataclasses.MISSING]
    if missing:
        raise DataFileError(f"{where}: missing {', '.join(missing)}")
    for name, value in table.items():
        kind = _TYPES[fields[name].type]
        if not isinstance(value, kind) or value == "":
            raise DataFileError(f"{where}: {name} = {value!r} is not "
                              f"{'a non-empty string' if kind is str else 'true or false'}")
    return cls(**table, **given)


def unique(values: list[str], what: str, name: str) -> None:
    """Raise if a value stands twice in ``values`` (the ``what`` of ui/``name``)."""
    twice = sorted({value for value in values if values.count(value) > 1})
    if twice:
        raise DataFileError(f"ui/{name}: {what} used twice: {', '.join(twice)}")


def _only(table: dict, allowed: set[str], where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise DataFileError(f"{where}: unknown field {', '.join(unknown)} "
                          f"(allowed: {', '.join(sorted(allowed))})")
