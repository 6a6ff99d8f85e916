"""Glossary page and the pages' "Terms on this page" boxes (ui.glossary): every term an
anchor, every definition in both languages, every page's terms known, and the numbers the
definitions quote derived again here."""

from __future__ import annotations

import ast
import math
import pathlib
import re

import pytest
import torch
from apptest_helpers import no_exceptions, run_page

from ui.glossary import BY_KEY, TERMS
from ui.navigation import PAGES, by_name

ROOT = pathlib.Path(__file__).resolve().parents[1]


def term_calls() -> dict[str, list[str]]:
    """{page name: the keys its ``ui.terms(...)`` call names} for every page that has one."""
    out = {}
    for spec in PAGES:
        tree = ast.parse((ROOT / spec.file).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "terms"):
                out[spec.name] = [arg.value for arg in node.args]
    return out


def test_every_term_has_a_unique_ascii_anchor_and_a_page():
    keys = [term.key for term in TERMS]
    assert len(keys) == len(set(keys))
    assert all(re.fullmatch(r"[a-z0-9_]+", key) for key in keys)
    for term in TERMS:
        by_name(term.page)  # a page of the navigation (KeyError otherwise)


def test_the_issue_s_terms_are_all_there():
    """Issue 46 item 10 names these; each is one entry (some entries hold two names)."""
    names = " | ".join(term.name for term in TERMS)
    for word in ("θᵢ", "λᵢ", "base", "head dim", "pair i", "pair layout", "Bₘ", "L_train",
                 "extrapolation", "interpolation", "NTK", "YaRN", "NoPE", "ALiBi", "M-RoPE",
                 "bfloat16", "critical dimension", "partial rotary", "attention factor",
                 "window", "p-RoPE", "xPos"):
        assert word in names, word


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_glossary_page_draws_every_term_under_its_anchor(lang):
    at = run_page("glossary", {"lang": lang})
    no_exceptions(at)
    anchors = [h.proto.anchor for h in at.subheader]
    assert anchors == [term.key for term in TERMS]
    # the list at the top links to every anchor on the page
    jump = at.markdown[1].value
    assert all(f"](#{term.key})" in jump for term in TERMS)
    # each entry names a page of the lesson, linked in the run's language
    links = re.findall(r"\]\(([a-z_./]*)\?lang=(\w+)\)", " ".join(m.value for m in at.markdown))
    assert len(links) == len(TERMS)
    assert {language for _path, language in links} == {lang}
    assert {path for path, _language in links} <= {
        "./" if spec.default else spec.name for spec in PAGES}


def test_every_page_s_terms_are_glossary_terms_and_every_term_is_used():
    calls = term_calls()
    for page, keys in calls.items():
        assert keys and len(keys) == len(set(keys)), page
        assert set(keys) <= set(BY_KEY), (page, set(keys) - set(BY_KEY))
    used = {key for keys in calls.values() for key in keys}
    assert used == set(BY_KEY), set(BY_KEY) - used


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_terms_box_links_each_term_to_its_anchor_and_stays_closed(lang):
    at = run_page("frequencies", {"lang": lang})
    keys = term_calls()["frequencies"]
    box = [e for e in at.expander if e.label.startswith(("Terms on this page", "本页术语"))]
    assert len(box) == 1 and not box[0].proto.expanded
    text = box[0].markdown[0].value
    assert re.findall(r"\]\(glossary\?lang=(\w+)#(\w+)\)", text) == [(lang, k) for k in keys]


def test_terms_refuses_an_unknown_key():
    from ui.glossary import _box

    with pytest.raises(KeyError):
        _box(("no_such_term",))


# --- the numbers the definitions quote, derived again -------------------------------------

def test_critical_dimension_quoted_for_llama_2():
    """'d = 128, base 10⁴ and L_train = 4,096: 92 (46 pairs)': pair i completes a turn
    within L when 2π·base^(2i/d) < L, i.e. i < (d/2)·log_base(L/2π) = 45.03."""
    assert "92 (46 pairs)" in BY_KEY["critical"].text
    x = 64 * math.log(4096 / (2 * math.pi)) / math.log(10_000)
    turning = [i for i in range(64) if 2 * math.pi * 10_000 ** (2 * i / 128) < 4096]
    assert len(turning) == 46 == math.ceil(x) and 2 * len(turning) == 92


def test_number_formats_quoted_for_bfloat16_and_float16():
    """bfloat16: integers exact up to 256, spacing 4,096 near a million; float16: exact up
    to 2,048, 65,520 and above overflow; as the torch types themselves round."""
    for text in ("256", "4,096 near a million", "2,048", "65,520"):
        assert text in BY_KEY["bfloat16"].text

    def exact(dtype, n):
        return torch.tensor(float(n), dtype=torch.float64).to(dtype).double().item() == n

    assert all(exact(torch.bfloat16, n) for n in range(257)) and not exact(torch.bfloat16, 257)
    assert all(exact(torch.float16, n) for n in range(2049)) and not exact(torch.float16, 2049)
    near = torch.tensor([1_000_000.0], dtype=torch.bfloat16)
    assert (torch.nextafter(near, torch.tensor([2e6], dtype=torch.bfloat16)) - near).item() \
        == 4096
    assert math.isinf(torch.tensor(65_520.0).half().item())
    assert torch.tensor(65_519.0).half().item() == 65_504


def test_spectrum_ends_quoted_in_theta_and_wavelength():
    """The last pair's θ = base^(−(d−2)/d) lies just above 1/base, its wavelength just under
    2π·base; pair 0 needs 2π ≈ 6.3 tokens."""
    for base in (10.0, 1e4, 5e5, 1e8):
        for d in (2, 4, 128, 1024):
            last = base ** (-(d - 2) / d)
            assert last >= 1 / base and 2 * math.pi / last <= 2 * math.pi * base
    assert round(2 * math.pi, 1) == 6.3
