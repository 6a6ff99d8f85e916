"""Guided tour: every step renders, links a real page with values it accepts, and
reveals live answers that match closed forms derived here."""

import math
from urllib.parse import parse_qs

import pytest
from apptest_helpers import run_page, shown, warnings
from i18n_helpers import untranslated

from ui.navigation import PAGES, by_name

WIDGETS = ("select_slider", "slider", "number_input", "radio", "segmented_control",
           "toggle", "text_input", "multiselect")


def count_steps() -> int:
    """The number of steps, read from the page: the step slider's largest value."""
    return int(run_page("tour").slider(key="tour_step").max)


N = count_steps()


def test_tour_is_the_second_page_in_start():
    assert PAGES[1].name == "tour" and PAGES[1].section == "Start"
    assert PAGES[1].title == "Guided tour"
    assert 8 <= N <= 12


def link_of(at):
    (link,) = at.get("page_link")
    # the default page's URL path is "/": its link names no page
    page = link.proto.page or next(spec.name for spec in PAGES if spec.default)
    return page, parse_qs(link.proto.query_string, keep_blank_values=True)


def as_link(value):
    """A widget's value written the way the app writes it into links."""
    if isinstance(value, bool):
        return ["true" if value else "false"]
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return [str(value)]


@pytest.mark.parametrize("number", range(1, N + 1))
def test_every_step_renders_and_links_a_page_that_accepts_its_values(number):
    at = run_page("tour", {"tour_step": str(number)})
    assert not warnings(at) and not at.first_warnings
    assert at.slider(key="tour_step").value == number
    assert at.header[0].value.startswith(f"{number}. ")
    assert f"Step {number} of {N}" in at.get("progress")[0].proto.text
    radio = at.radio(key=f"tour_guess_{number}")
    assert radio.value is None and 2 <= len(radio.options) <= 4
    page, query = link_of(at)
    assert page in {spec.name for spec in PAGES} - {"tour"}
    # the linked page, opened with the link's values: the link rule accepts every one
    target = run_page(page, {k: v if len(v) > 1 else v[0] for k, v in query.items()})
    assert not target.first_warnings and not warnings(target), (page, query)
    found = {w.key: w.value for kind in WIDGETS for w in target.get(kind) if w.key}
    for key, values in query.items():
        assert key in found, (page, key)
        assert as_link(found[key]) == values, (page, key, found[key], values)


def reveal(number, guess=None):
    at = run_page("tour", {"tour_step": str(number)})
    if guess is not None:
        at.radio(key=f"tour_guess_{number}").set_value(guess)
    at.toggle(key=f"tour_reveal_{number}").set_value(True)
    at.run()
    assert not at.exception
    text = " ".join(shown(m.value) for m in at.markdown)
    return at, text


@pytest.fixture(scope="module")
def titles():
    """(linked page, step title) of every step, in order."""
    out = []
    for number in range(1, N + 1):
        at = run_page("tour", {"tour_step": str(number)})
        out.append((link_of(at)[0], at.header[0].value.split(". ", 1)[1]))
    return out


def number_of(titles, page, title_start=""):
    return next(n for n, (p, t) in enumerate(titles, start=1)
                if p == page and t.startswith(title_start))


def test_base_change_stretches_pair_40_by_50_to_the_0625(titles):
    number = number_of(titles, "frequencies", "A larger base")
    ratio = (500_000 / 10_000) ** (2 * 40 / 128)
    at, text = reveal(number, "It grows, by 5× to 20×")
    assert f"{ratio:.4g}×" in text  # 11.53
    before = 2 * math.pi * 10_000 ** (80 / 128)
    assert f"from {before:,.0f} to {before * ratio:,.0f} tokens" in text
    assert "**Answer: It grows, by 5× to 20×.**" in " ".join(m.value for m in at.markdown)
    assert at.success and "was right" in at.success[0].value


def test_turning_pairs_is_the_log_bound(titles):
    number = number_of(titles, "frequencies", "Which pairs")
    count = math.floor(64 * math.log(4096 / (2 * math.pi)) / math.log(10_000)) + 1  # 46
    at, text = reveal(number, "All 64")
    assert f"{count} of 64 pairs" in text
    assert "Answer: Between 32 and 63." in text
    assert not at.success and "Between 32 and 63" in at.info[0].value


def test_causal_row_gives_one_over_m_plus_one(titles):
    number = number_of(titles, "attention")
    at, text = reveal(number)
    assert f"{1 / 16:.6f} = 1/16" in text
    assert "Answer: 1/16, like every key it can see." in text


def test_decay_bound_far_away_against_a_direct_sum(titles):
    number = number_of(titles, "decay")
    th = [10_000 ** (-2 * i / 128) for i in range(64)]
    re_sum = im_sum = total = 0.0
    for t in th:
        re_sum += math.cos(1e6 * t)
        im_sum += math.sin(1e6 * t)
        total += math.hypot(re_sum, im_sum)
    far = total / 64
    _, text = reveal(number)
    assert f"bound(10⁶) = {far:.4f}, bound(0) = (d/2 + 1)/2 = 32.5" in text
    assert f"{100 * far / 32.5:.1f} %" in text


def test_bfloat16_and_ntk_answers(titles):
    _, text = reveal(number_of(titles, "precision"))
    assert f"{2**8:,} = 2⁸" in text and "1,001 is held as 1,000" in text
    _, text = reveal(number_of(titles, "context_extension"))
    assert f"{1.0:.4f} for pair 0 and {8 ** (-2 * 63 / 126):.4f} = 1/s" in text
    assert "Answer: The slowest pairs (large i)." in text


def test_next_and_previous_change_the_step():
    at = run_page("tour", {"tour_step": "1"})
    assert at.button(key="tour_previous").disabled
    at.button(key="tour_next").click().run()
    assert at.slider(key="tour_step").value == 2
    at.button(key="tour_previous").click().run()
    assert at.slider(key="tour_step").value == 1
    last = run_page("tour", {"tour_step": str(N)})
    assert last.button(key="tour_next").disabled


def test_links_use_the_navigation_names():
    for number in (1, N):
        page, _ = link_of(run_page("tour", {"tour_step": str(number)}))
        assert by_name(page).file == f"pages/{page}.py"


def test_first_negative_b_m_inside_llama_2s_context(titles):
    import numpy as np

    th = 10_000.0 ** (-2 * np.arange(64) / 128)
    b = np.cos(np.outer(np.arange(4096), th)).sum(axis=1)
    first = int(np.argmax(b < 0))  # 1707
    _, text = reveal(number_of(titles, "long_context"))
    assert f"At m = {first:,} (B_m = {b[first]:.4f}), inside Llama 2's" in text
    assert "Answer: Inside the training context, before 4,096." in text


# ------------------------------------------------------------------ Chinese ----
@pytest.mark.parametrize("number", range(1, N + 1))
def test_every_step_in_chinese_with_its_answer_shows_no_english(number):
    at = run_page("tour", {"lang": "zh", "tour_step": str(number)})
    at.toggle(key=f"tour_reveal_{number}").set_value(True)
    at.run()
    assert not at.exception
    assert at.header[0].value.startswith(f"{number}. ")
    assert f"第 {number} 步，共 {N} 步" in at.get("progress")[0].proto.text
    assert any(m.value.startswith("**答案：") for m in at.markdown)
    assert at.info and at.info[0].value.startswith("没有做出预测")
    assert untranslated(at) == {}


def test_prediction_survives_a_language_switch_and_is_judged_in_chinese(titles):
    # AppTest formats a radio's value outside the run, that is in English: so the
    # guess is made in English and the language switched afterwards
    number = number_of(titles, "frequencies", "A larger base")
    at, _text = reveal(number, "It shrinks")
    at.sidebar.segmented_control(key="lang").set_value("zh").run()
    assert not at.exception
    radio = at.radio(key=f"tour_guess_{number}")
    assert at.session_state[f"tour_guess_{number}"] == "It shrinks"  # the value stays English
    assert radio.options == ["变短", "变长，但不到 5 倍", "变长 5 到 20 倍", "和底数一样变长 50 倍"]
    assert at.info[0].value == "你的预测是“变短”；实时计算的结果是“变长 5 到 20 倍”。"
    text = " ".join(m.value for m in at.markdown)
    assert "**答案：变长 5 到 20 倍**。λ₄₀ 从 1,987 词元变为 22,911 词元" in text
    assert untranslated(at) == {}
    at, _text = reveal(number, "It grows, by 5× to 20×")
    assert at.success[0].value == "Your prediction, “It grows, by 5× to 20×”, was right."
    at.sidebar.segmented_control(key="lang").set_value("zh").run()
    assert at.success[0].value == "你的预测“变长 5 到 20 倍”是对的。"
