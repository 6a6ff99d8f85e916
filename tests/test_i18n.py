"""The translation catalogs: complete, current, compiled, and used everywhere.

* every message extracted from the code (tools/i18n.py's keywords) is in the
  Chinese catalog with a translation, and the catalog has nothing else;
* each translation keeps its message's named placeholders;
* the compiled .mo says what the .po says;
* no visible string in pages/, views/ or ui/ bypasses the catalog (a literal or
  f-string with English words handed straight to a display call);
* rope_core's error templates translate, and numbers follow the locale.
"""

from __future__ import annotations

import ast
import gettext
import io
import pathlib
import re
import string
import sys

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from i18n_helpers import english_words, latex_words

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import i18n as tool  # noqa: E402 (tools/i18n.py: the one list of sources and keywords)

PO = ROOT / "locale" / "zh" / "LC_MESSAGES" / "messages.po"
MO = PO.with_suffix(".mo")
GLOSSARY = ROOT / "locale" / "GLOSSARY.md"


def _keywords() -> dict:
    out = {}
    for spec in tool.KEYWORDS:
        name, _, args = spec.partition(":")
        out[name] = tuple(int(a) for a in args.split(",")) if args else None
    return out


@pytest.fixture(scope="module")
def catalog():
    with PO.open("rb") as f:
        return read_po(f)


def _mapping() -> tuple[list, dict]:
    """babel.cfg's method map and options, as ``pybabel extract -F babel.cfg`` reads it."""
    from babel.messages.frontend import parse_mapping_cfg

    with open(ROOT / "babel.cfg", encoding="utf-8") as f:
        return parse_mapping_cfg(f, "babel.cfg")


@pytest.fixture(scope="module")
def extracted() -> dict:
    """msgid -> files, straight from the code and ui/'s TOML files with Babel's
    extractors, mapped as babel.cfg maps them."""
    from babel.messages.extract import check_and_call_extract_file

    method_map, options_map = _mapping()
    out: dict = {}
    for source in tool.SOURCES:
        path = ROOT / source
        if path.is_file():
            found = list(check_and_call_extract_file(
                str(path), method_map, options_map, None, _keywords(), (), False, str(ROOT)))
        else:
            found = [(f"{source}/{m[0]}", *m[1:]) for m in extract_from_dir(
                str(path), method_map=method_map, options_map=options_map,
                keywords=_keywords())]
        for file, _lineno, message, *_rest in found:
            key = message[0] if isinstance(message, tuple) else message
            out.setdefault(key, set()).add(file)
    return out


def _placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}


def test_catalog_holds_exactly_the_extracted_messages(catalog, extracted):
    in_catalog = {m.id[0] if isinstance(m.id, tuple) else m.id for m in catalog if m.id}
    missing = set(extracted) - in_catalog
    stale = in_catalog - set(extracted)
    fix = "run `python tools/i18n.py all`"
    assert not missing, f"{fix}; not in the catalog: {sorted(missing)[:10]}"
    assert not stale, f"{fix}; no longer in the code: {sorted(stale)[:10]}"


def test_every_message_has_a_chinese_translation(catalog):
    untranslated = [m.id for m in catalog if m.id and (
        m.fuzzy or not (all(m.string) if isinstance(m.string, tuple) else m.string))]
    assert not untranslated, f"{len(untranslated)} untranslated, e.g. {untranslated[:10]}"


_LATEX_COMMAND = re.compile(r"\\[A-Za-z]{2,}")


_WORD_COMMANDS = {r"\text", r"\textrm", r"\mathrm", r"\operatorname"}


def _maths(latex: str) -> list[str]:
    """A formula's LaTeX commands but those holding words (\\text and the like)."""
    return sorted(c for c in _LATEX_COMMAND.findall(latex) if c not in _WORD_COMMANDS)


def _is_formula(msgid: str) -> bool:
    """A LaTeX message shown as is (``st.latex(_(r"\\text{score} = …"))``): its braces
    are LaTeX groups, not placeholders. One that the code formats doubles them."""
    return bool(_LATEX_COMMAND.search(msgid)) and bool(re.search(r"[{^_]", msgid)) and \
        "{{" not in msgid


def test_translations_keep_the_named_placeholders(catalog):
    for m in catalog:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        for s in strings:
            if not s:
                continue  # untranslated: the completeness test reports it
            if _is_formula(ids[0]):  # the same mathematics, words translated (and moved)
                assert _maths(s) == _maths(ids[0]), (m.id, s)
                continue
            wanted = _placeholders(ids[-1]) | _placeholders(ids[0])
            assert _placeholders(s) <= wanted and _placeholders(ids[0]) - {"n"} <= \
                _placeholders(s) | {"n"}, (m.id, s)
            for text in (*ids, s):  # every message formats with its own fields
                text.format(**{k: "x" for k in _placeholders(text)})


def test_messages_use_named_placeholders_only(extracted):
    for msgid in extracted:
        if _is_formula(msgid):
            continue
        for _, field, _, _ in string.Formatter().parse(msgid):
            assert field is None or re.fullmatch(r"[a-z_][a-z0-9_]*", field), (msgid, field)


def test_chinese_catalog_is_chinese(catalog):
    for m in catalog:
        if not m.id:
            continue
        for s in (m.string if isinstance(m.string, tuple) else (m.string,)):
            assert not english_words(s), (m.id, s, english_words(s))


def test_compiled_catalog_matches_the_po(catalog):
    with MO.open("rb") as f:
        mo = gettext.GNUTranslations(f)
    for m in catalog:
        if not m.id:
            continue
        if not (m.string[0] if isinstance(m.id, tuple) else m.string):
            continue  # untranslated: the completeness test reports it
        if isinstance(m.id, tuple):
            assert mo.ngettext(m.id[0], m.id[1], 1) == m.string[0], m.id
        else:
            assert mo.gettext(m.id) == m.string, "run `python tools/i18n.py compile`"
    assert mo.info()["plural-forms"] == "nplurals=1; plural=0;"


def test_chinese_plural_form_is_one(catalog):
    assert catalog.num_plurals == 1


# ------------------------------------------------------ nothing bypasses _() ----
DISPLAY = {
    "markdown", "caption", "title", "header", "subheader", "write", "error", "warning",
    "info", "success", "toast", "button", "toggle", "radio", "selectbox", "slider", "metric",
    "tabs", "expander", "page_link", "download_button", "text_input", "number_input",
    "multiselect", "select_slider", "checkbox", "latex", "text", "popover", "text_area",
    "file_uploader", "segmented_control", "pills", "explain", "choice", "number", "status",
    "spinner", "add_annotation", "add_hline", "add_vline", "style",
}
VISIBLE_KEYWORDS = {
    "label", "help", "caption", "title", "name", "text", "placeholder", "hovertemplate",
    "x", "y", "prefix", "title_text", "annotation_text", "allowed", "captions", "value",
    "delta", "body", "legendgrouptitle_text", "colorbar_title", "texttemplate",
}
SAME_IN_BOTH = "# i18n: the same in both languages"


def _literals(node: ast.AST) -> list[str]:
    """The literal text in an argument: a string, an f-string's text parts, or the
    string items of a list or tuple (never what sits inside a call such as _())."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return ["".join(v.value if isinstance(v, ast.Constant) else " " for v in node.values)]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [t for item in node.elts for t in _literals(item)]
    if isinstance(node, ast.BinOp):
        return _literals(node.left) + _literals(node.right)
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    return []


def bypasses(source: str, filename: str) -> list[str]:
    """Literal English text handed to a display call without going through _()."""
    found = []
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Call):
            continue
        if SAME_IN_BOTH in lines[node.lineno - 1]:
            continue  # deliberately the same text in both languages
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        receiver = getattr(func, "value", None)
        if isinstance(receiver, ast.Name) and "log" in receiver.id.lower():
            continue  # a server log line, not shown to visitors
        # the first argument is the text (a widget's label); later positional ones
        # are values, options and keys
        args = list(node.args[:1]) if name in DISPLAY else []
        if name in {"format"}:  # "...".format(): the template itself must be _()'d
            args = [func.value] if isinstance(func, ast.Attribute) else []
        args += [kw.value for kw in node.keywords if kw.arg in VISIBLE_KEYWORDS]
        for arg in args:
            for text in _literals(arg):
                if name == "latex":
                    text = latex_words(text)
                if english_words(text):
                    found.append(f"{filename}:{node.lineno}: {text[:70]!r}")
    return found


def test_no_visible_string_bypasses_the_catalog():
    found = []
    for path in sorted([ROOT / "app.py", *(ROOT / "pages").glob("*.py"),
                        *(ROOT / "views").glob("*.py"), *(ROOT / "ui").glob("*.py")]):
        found += bypasses(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not found, "\n".join(found[:40])


def test_bypass_check_catches_literals():
    src = ('st.markdown("Hello world")\nst.caption(f"pairs {n}")\n'
           'ui.style(fig, title="Score against distance", x=_("ok"), y="θ")\n'
           'st.write("{n} pairs".format(n=1))\nst.markdown(_("Hello world"))\n')
    assert len(bypasses(src, "x.py")) == 4


# ------------------------------------------- the lesson's lists kept as TOML ----
# fields of ui/*.toml that are not messages: names, addresses and switches, and
# ``symbol``, a short name shown as it is in both languages
TOML_SAME_IN_BOTH = {"key", "page", "symbol", "file", "icon", "default", "charts"}


def _toml_fields(table: dict):
    for field, value in table.items():
        for inner in value if isinstance(value, list) else [value]:
            if isinstance(inner, dict):
                yield from _toml_fields(inner)
            else:
                yield field, inner


def test_every_toml_field_is_a_catalog_message_or_the_same_in_both_languages(extracted):
    """What a Python string is to test_no_visible_string_bypasses_the_catalog, a field of
    a TOML file is here: a message field (tools/i18n.py TOML_MESSAGES) is extracted from
    its file; any other field is one known to be the same in both languages, and a
    symbol holds no English word. A new kind of field must be declared one or the other."""
    import tomllib

    files = sorted(p for source in tool.SOURCES for p in (ROOT / source).rglob("*.toml"))
    assert {str(p.relative_to(ROOT)) for p in files} == {"ui/glossary.toml", "ui/pages.toml"}
    for path in files:
        name = str(path.relative_to(ROOT))
        messages = 0
        for field, value in _toml_fields(tomllib.loads(path.read_text(encoding="utf-8"))):
            if field in tool.TOML_MESSAGES:
                messages += 1
                assert name in extracted.get(value, ()), (name, field, value)
            else:
                assert field in TOML_SAME_IN_BOTH, f"{name}: is the field {field} a message?"
                assert not (field == "symbol" and english_words(value)), (name, value)
        assert messages > 40, name


def test_toml_extractor_finds_each_message_at_its_field_s_line():
    """tools/i18n.py extract_toml: the line of ``field =`` (a multi-line string's first
    line), never a line inside a multi-line string; a translator's comment right above a
    field goes with its message."""
    from babel.messages.extract import extract

    source = "\n".join([
        "# A header that is no translator comment",  # 1
        "[[section]]",  # 2
        'title = "Start"',  # 3
        "[[section.term]]",  # 4
        'key = "k"',  # 5
        "# Translators: a symbol, not a word",  # 6
        'name = "x = y"',  # 7
        'text = """',  # 8
        "text = not a field here, \\",  # 9
        'name = "nor here" """',  # 10
        "[[section.term]]",  # 11
        'text = "second"',  # 12
    ]).encode()
    found = [(line, message, comments) for line, message, comments, _context in extract(
        "tools.i18n:extract_toml", io.BytesIO(source), comment_tags=[tool.TRANSLATOR_TAG])]
    assert found == [
        (3, "Start", []),
        (7, "x = y", ["Translators: a symbol, not a word"]),
        (8, 'text = not a field here, name = "nor here" ', []),
        (12, "second", []),
    ]


# --------------------------------------------------------- rope_core errors ----
def test_rope_core_errors_translate(monkeypatch):
    import rope_core as rc
    from ui import i18n

    with pytest.raises(ValueError) as info:
        rc.theta(3)
    assert str(info.value).startswith("dim=3 is not allowed: dim must be")
    with i18n.speaking("zh"):
        text = i18n.error_text(info.value)
    assert "dim=3" in text and "4096" in text and not english_words(text), text


def test_every_rope_core_template_is_a_catalog_message(extracted):
    """fail()'s templates in rope_core are literals (so Babel extracts them):
    no f-string or concatenation is passed as the allowed text."""
    bad = []
    for path in sorted((ROOT / "rope_core").rglob("*.py")):  # every group
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") in (
                    "fail", "RopeError", "Message"):
                index = 2 if node.func.id == "fail" else 0
                if len(node.args) > index and not (
                        isinstance(node.args[index], ast.Constant)
                        or path.name == "_checks.py"):
                    bad.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and \
                    getattr(node.exc.func, "id", "") == "ValueError":
                bad.append(f"{path.name}:{node.lineno}: raise ValueError (use RopeError)")
    assert not bad, bad


# ------------------------------------------------------------------ numbers ----
def test_numbers_follow_the_locale():
    from babel.numbers import format_decimal

    from ui import i18n

    for lang, locale in i18n.BABEL_LOCALES.items():
        assert i18n.integer(131072, lang) == format_decimal(131072, "#,##0", locale=locale)
        assert i18n.number(0.5, "0.000", lang) == format_decimal(0.5, "0.000", locale=locale)
    assert i18n.integer(131072, "en") == "131,072"
    # the pattern and locale are kept between calls: the text is Babel's format_decimal's
    for lang, locale in i18n.BABEL_LOCALES.items():
        for pattern in ("0.000", "#,##0", "0.###", "0.#", "#,##0.0", "#,##0.###", "0.0##E0"):
            for value in (0, -1, 1 / 3, 131072, -12345.6789, 1e-9, 1e21, 2.0**53):
                assert i18n.number(value, pattern, lang) == format_decimal(
                    value, format=pattern, locale=locale)
    assert i18n.integer(131072, "zh") == "131,072"  # CLDR zh_Hans_CN groups by thousands too
    assert i18n.decimal_sign("zh") == "."


def test_glossary_lists_the_required_terms():
    text = GLOSSARY.read_text(encoding="utf-8")
    for term in ("旋转位置编码", "远程衰减", "正弦位置编码", "相对位置"):
        assert term in text


def test_glossary_terms_are_used_consistently(catalog):
    """Where a message says a glossary term in English, its translation uses the
    glossary's Chinese term (rows of the glossary's table: | English | 中文 |)."""
    enforced = GLOSSARY.read_text("utf-8").split("## Enforced terms")[1].split("\n## ")[0]
    rows = re.findall(r"^\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|", enforced, re.M)
    terms = {en.lower(): zh for en, zh in rows if zh != "中文"}
    assert len(terms) >= 10
    problems = []
    for m in catalog:
        if not m.id or isinstance(m.id, tuple):
            continue
        for en, zh in terms.items():
            if re.search(rf"\b{re.escape(en)}\b", m.id.lower()) and zh not in m.string:
                problems.append((en, zh, m.id[:60], m.string[:60]))
    assert not problems, problems[:10]


def test_wrap_title_breaks_chinese_lines():
    from ui.figures import text_width, wrap_title

    title = "每个相对距离上查询与键的得分，有无旋转位置编码的对比，以及远程衰减的上界"
    lines = wrap_title(title).split("<br>")
    assert len(lines) > 1 and "".join(lines) == title
    assert all(text_width(line) <= 42 for line in lines)
    assert wrap_title("a short title") == "a short title"
    # closing punctuation never starts a line
    angle = ("第 i = 8 对：q 位于 m = 0，k 位于 n = 10<br>"
             "从 q' 到 k' 的角度 = -139.2°（-2.430 弧度）")
    assert not any(line.startswith("）") for line in wrap_title(angle).split("<br>"))


def test_po_file_parses_back_identically():
    """The catalog is plain UTF-8 gettext that Babel reads and writes unchanged."""
    with PO.open("rb") as f:
        data = f.read()
    cat = read_po(io.BytesIO(data))
    assert cat.locale is not None and str(cat.locale) == "zh"


def test_toy_sentences_translate_word_for_word(catalog):
    """Each toy sentence (rope_core.teaching.lesson data) is a message whose translation has
    one word per English word, so the shuffle moves the same roles (ui.i18n.words)."""
    from rope_core.teaching.lesson import TOY_SENTENCES

    for sentence, (words, _order) in TOY_SENTENCES.items():
        entry = catalog.get(sentence)
        assert entry is not None and len(entry.string.split(" ")) == len(words), sentence


def test_a_lead_in_has_one_translation(catalog):
    """Screenshot review: "**What to notice.**" read "**注意。**" on one page and
    "**值得注意。**" everywhere else. Every message that starts with a bold lead-in
    shared by several messages starts its translation with the same words."""
    leads = {"**What to notice.**": "**值得注意。**"}
    for message in catalog:
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strs = message.string if isinstance(message.string, tuple) else (message.string,)
        for lead, zh in leads.items():
            if any(i.startswith(lead) for i in ids):
                assert all(t.startswith(zh) for t in strs), message.id
