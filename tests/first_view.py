"""The paragraphs a student reads on a page's first view, and their length in words.

A page's first view is what its main area shows without opening anything: every Markdown
paragraph, caption and notice outside a closed expander or popover, and in a row of tabs
only the first tab. :func:`paragraphs` splits each such element into paragraphs: at blank
lines, at hard line breaks (a card's lines), and one per list item; display formulas and
Markdown tables are left out.

:func:`words` counts a paragraph's words: every run of characters between spaces that
holds a letter or a digit is one word (a formula's pieces count, a lone "=" does not), a
link counts its text, and two Chinese characters count as one word, punctuation not
counted. (A sentence of 80 English words runs to about 130 to 170 characters in Chinese,
so a limit of 80 words allows 160 characters.)
"""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

# What the element tree calls the kinds of elements that hold text.
TEXT_ELEMENTS = ("markdown", "caption", "info", "warning", "error", "success")
# Containers closed on first view.
CLOSED = ("expander", "popover", "status")

_DISPLAY_MATH = re.compile(r"\$\$.+?\$\$", re.S)
_TAG = re.compile(r"<[^>]+>")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CJK_PUNCT = re.compile(r"[\u3000-\u303f\uff00-\uffef]")


def _visible(node, out: list) -> None:
    """Every text element under ``node`` a visitor sees without opening anything."""
    kind = getattr(node, "type", "")
    if kind in CLOSED and not getattr(node.proto, "expanded", False):
        return
    children = getattr(node, "children", None)
    if children is None:
        if kind in TEXT_ELEMENTS:
            out.append(str(node.value))
        return
    ordered = [children[k] for k in sorted(children)]
    if kind == "tab_container":
        ordered = ordered[:1]
    for child in ordered:
        _visible(child, out)


def paragraphs(at: AppTest) -> list[str]:
    """The paragraphs of the main area's first view, in order (see the module)."""
    texts: list[str] = []
    _visible(at.main, texts)
    out = []
    for text in texts:
        text = _DISPLAY_MATH.sub("\n\n", _TAG.sub(" ", text))
        for block in re.split(r"\n\s*\n|  \n|\\\n", text):
            lines = [line for line in block.splitlines()
                     if line.strip() and not line.lstrip().startswith("|")]
            item: list[str] = []
            for line in lines:
                if _LIST_ITEM.match(line) and item:
                    out.append(" ".join(item))
                    item = []
                item.append(_LIST_ITEM.sub("", line))
            if item:
                out.append(" ".join(item))
    return [p for p in out if p.strip()]


def words(paragraph: str) -> float:
    """A paragraph's length in words: Latin words, numbers and formulas between spaces
    count one each, Chinese characters half each."""
    text = _LINK.sub(r"\1", paragraph)
    cjk = len(_CJK.findall(text))
    rest = _CJK_PUNCT.sub(" ", _CJK.sub(" ", text))
    latin = [w for w in rest.split() if re.search(r"[A-Za-z0-9α-ωΑ-Ωθλπ]", w)]
    return len(latin) + cjk / 2


def longest(at: AppTest) -> tuple[float, str]:
    """The longest first-view paragraph: (words, text); (0, "") on a page without one."""
    return max(((words(p), p) for p in paragraphs(at)), default=(0.0, ""))
