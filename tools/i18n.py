"""The translation catalogs, managed with Babel: one command per step.

    python tools/i18n.py extract   # messages in the code -> locale/messages.pot
    python tools/i18n.py update    # .pot -> locale/<lang>/LC_MESSAGES/messages.po
    python tools/i18n.py compile   # .po -> .mo, which the app loads
    python tools/i18n.py all       # the three in turn

Each step is one ``pybabel`` command (printed before it runs), so a translator
can also run it by hand. The keywords say which calls hold messages:
``_``, ``N_``, ``ngettext`` in the UI, rope_core's error templates
(``fail``'s third argument, ``RopeError`` and ``Message``) and the class store's
refusals (``ClassroomError`` and its subclasses). The lesson's lists kept as data
(ui/pages.toml, ui/glossary.toml) are read by :func:`extract_toml`, a Babel extraction
method that babel.cfg maps to every TOML file of the sources.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCALE_DIR = ROOT / "locale"
DOMAIN = "messages"
POT = LOCALE_DIR / f"{DOMAIN}.pot"
SOURCES = ("app.py", "pages", "views", "ui", "takehome", "rope_core", "classroom")
# the class store's refusals: ClassroomError and its subclasses, whose first argument
# is the template the app shows translated (ui.classroom.refusal)
CLASSROOM_ERRORS = ("ClassroomError", "InvalidValue", "UnknownClass", "WrongKey", "Closed",
                    "Full", "Unavailable")
KEYWORDS = ("_", "N_", "ngettext:1,2", "fail:3", "RopeError:1", "Message:1",
            *(f"{name}:1" for name in CLASSROOM_ERRORS))
TRANSLATOR_TAG = "Translators:"
# the fields of ui/*.toml that hold catalog messages (the files' headers say the same);
# every other field (key, page, symbol, file, icon, default, charts) is not translated
TOML_MESSAGES = ("title", "name", "short", "text", "summary")


def extract_toml(fileobj, keywords, comment_tags, options) -> Iterator[tuple]:
    """Babel's extraction method for the TOML files of the sources (babel.cfg): every
    string whose field is one of TOML_MESSAGES, in any table, is a message, found at the
    line of its field (the line ``name = …`` or ``text = \"\"\"``). A comment right
    above that line that starts with a translator tag (``# Translators: …``) goes with it,
    as in Python code. Yields ``(lineno, funcname, message, comments)``."""
    source = fileobj.read().decode("utf-8")
    lines = source.splitlines()
    line = 0  # index of the next line to look at
    inside = False  # in a multi-line string, where a line is text, not a field

    def step() -> None:  # past lines[line], noting whether it opens or closes a string
        nonlocal line, inside
        inside ^= (lines[line].count('"""') + lines[line].count("'''")) % 2 == 1
        line += 1

    for field, message in _toml_strings(tomllib.loads(source)):
        start = re.compile(rf"\s*{field}\s*=")
        while inside or not start.match(lines[line]):
            step()
        above = []  # the comment lines right above the field, top first
        while line > len(above) and lines[line - len(above) - 1].lstrip().startswith("#"):
            above.insert(0, lines[line - len(above) - 1].lstrip().lstrip("#").strip())
        comments = above if above and above[0].startswith(tuple(comment_tags)) else []
        step()
        yield line, None, message, comments


def _toml_strings(table: dict) -> Iterator[tuple[str, str]]:
    """(field, text) of every message field in ``table`` and the tables in it, in the
    file's order (tomllib keeps it)."""
    for field, value in table.items():
        if field in TOML_MESSAGES and isinstance(value, str):
            yield field, value
        for inner in value if isinstance(value, list) else [value]:
            if isinstance(inner, dict):
                yield from _toml_strings(inner)


def commands() -> dict[str, list[str]]:
    keywords = [arg for k in KEYWORDS for arg in ("-k", k)]
    pybabel = [sys.executable, "-m", "babel.messages.frontend"]
    return {
        "extract": [*pybabel, "extract", "-F", "babel.cfg", "--no-default-keywords", *keywords,
                    "--add-location=file", "--sort-by-file", "--no-wrap",
                    "-c", TRANSLATOR_TAG, "--project", "RoPE Explorer",
                    "-o", str(POT.relative_to(ROOT)), *SOURCES],
        "update": [*pybabel, "update", "-i", str(POT.relative_to(ROOT)), "-d", "locale",
                   "-D", DOMAIN, "--no-wrap", "--no-fuzzy-matching", "--ignore-obsolete"],
        "compile": [*pybabel, "compile", "-d", "locale", "-D", DOMAIN, "--statistics"],
    }


def main(argv: list[str]) -> int:
    steps = ["extract", "update", "compile"] if argv == ["all"] else argv
    if not steps or any(s not in commands() for s in steps):
        print(__doc__)
        return 2
    for step in steps:
        cmd = commands()[step]
        print("$", shlex.join(["pybabel", *cmd[3:]]))
        subprocess.run(cmd, cwd=ROOT, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
