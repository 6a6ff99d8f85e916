"""Text a room can read (issue 46, item 12): on a page's first view, its defaults with
nothing opened, no paragraph runs over WORD_LIMIT words, in English or in Chinese.

A paragraph, and how its words are counted, is defined in tests/first_view.py: Markdown,
captions and notices outside closed expanders, split at blank lines, hard line breaks
and list items; Latin words, numbers and formulas count one each, and two Chinese
characters count as one word (WORD_LIMIT words is then 2 × WORD_LIMIT characters). Details
belong in an expander whose title says what is inside.

Every page of ui/navigation.PAGES is checked except those in PENDING, whose text is being
rewritten on other branches: take a page's name out of PENDING once it passes.
"""

from __future__ import annotations

import pytest
from apptest_helpers import run_page
from first_view import paragraphs, words

from ui.navigation import PAGES

WORD_LIMIT = 80
# Pages whose first view is not yet held to the limit (issue 46: rewritten on other branches).
PENDING: frozenset[str] = frozenset()
CHECKED = [spec.name for spec in PAGES if spec.name not in PENDING]


def test_pending_pages_are_pages():
    assert PENDING <= {spec.name for spec in PAGES}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", CHECKED)
def test_no_paragraph_on_first_view_is_over_the_limit(page, lang):
    at = run_page(page, {"lang": lang})
    found = paragraphs(at)
    assert found, "the page shows no text at all"
    long = [f"{words(p):g} words: {p[:120]}…" for p in found if words(p) > WORD_LIMIT]
    assert not long, "\n".join(long)


@pytest.mark.parametrize("text, expected", [
    ("Each pair turns at its own speed.", 7),
    ("θᵢ = base^(−2i/d) rad/token", 3),  # a formula's pieces between spaces; "=" alone not
    ("每一对都以自己的速度旋转。", 6),  # 12 characters, punctuation not counted
    ("底数为 10⁴、d = 128 时", 5),  # 3 Latin pieces (not "=") and 4 characters
    ("**46 of 64 pairs** turn", 5),
    ("[θᵢ, frequency](glossary?lang=en#theta) falls", 3),  # a link counts its text
])
def test_words_counts_latin_words_and_chinese_characters(text, expected):
    assert words(text) == expected


def test_closed_expanders_are_not_on_first_view():
    """The terms box of Frequencies is closed: its definitions are not first-view text,
    while the sentences under the figures are."""
    at = run_page("frequencies", {"lang": "en"})
    shown = " ".join(paragraphs(at))
    assert "turn at least once within L = 4,096 tokens" in shown
    assert "How fast pair i turns" not in shown  # the glossary's θᵢ, inside the box
    assert "Long-context models raise the base for two other reasons" not in shown
