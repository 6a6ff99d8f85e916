"""The translation catalogs, managed with Babel: one command per step.

    python tools/i18n.py extract   # messages in the code -> locale/messages.pot
    python tools/i18n.py update    # .pot -> locale/<lang>/LC_MESSAGES/messages.po
    python tools/i18n.py compile   # .po -> .mo, which the app loads
    python tools/i18n.py all       # the three in turn

Each step is one ``pybabel`` command (printed before it runs), so a translator
can also run it by hand. The keywords say which calls hold messages:
``_``, ``N_``, ``ngettext`` in the UI, rope_core's error templates
(``fail``'s third argument, ``RopeError`` and ``Message``) and the class store's
refusals (``ClassroomError`` and its subclasses).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
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
