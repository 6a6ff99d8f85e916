"""Guided tour: every step renders, links a real page with values it accepts, and
reveals live answers that match closed forms derived here."""

import json
import math
from urllib.parse import parse_qs

import pytest
from apptest_helpers import run_page, shown, warnings
from i18n_helpers import long_paragraphs, untranslated

from ui.navigation import PAGES, by_name
from views.tour import PARTS, STEPS

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
    # the step's picture is that page's own figure at these settings (drawn by its view)
    (drawn,) = at.get("plotly_chart")
    assert drawn.proto.id.endswith("-tour_figure")
    shows = STEPS[number - 1].shows
    (same,) = [c for c in target.get("plotly_chart") if c.proto.id.endswith(f"-{shows}")]
    assert json.loads(drawn.proto.spec) == json.loads(same.proto.spec), (page, shows)
    assert len(drawn.proto.alt) > 40


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
    assert long_paragraphs(at) == {}


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


# ------------------------------------------------ parts, recap and score ----
def test_two_parts_the_research_steps_last():
    """Issue 46: steps 9-12 (the decay bound, B_m, bfloat16, NTK) are a second part."""
    assert [(part.first, part.last) for part in PARTS] == [(1, 8), (9, N)]
    assert [STEPS[n - 1].page for n in range(9, N + 1)] == [
        "decay", "long_context", "precision", "context_extension"]
    for number, part in ((1, "Part 1: the basics"), (8, "Part 1: the basics"),
                         (9, "Part 2: research level"), (N, "Part 2: research level")):
        text = run_page("tour", {"tour_step": str(number)}).get("progress")[0].proto.text
        assert text == f"Step {number} of {N} · {part}"


@pytest.mark.parametrize("number", range(1, N + 1))
def test_every_step_reads_in_short_paragraphs(number):
    """Issue 46: on first view no paragraph over about 80 words, before and after the
    reveal; the picture comes first, then what to look at (two or three sentences)."""
    at = run_page("tour", {"tour_step": str(number)})
    assert long_paragraphs(at) == {}
    look = next(m.value for m in at.markdown if m.value.startswith("**Look:**"))
    assert 1 <= look.count(". ") + 1 <= 3, look
    at.toggle(key=f"tour_reveal_{number}").set_value(True).run()
    assert long_paragraphs(at) == {}


def recap_of(at) -> str:
    return " ".join(m.value for m in at.markdown)


def test_score_counts_predictions_right_of_asked_and_the_recap_ends_part_1():
    at = run_page("tour", {"tour_step": "7"})
    at.radio(key="tour_guess_7").set_value("All 64")  # wrong: 46 of 64 turn
    at.toggle(key="tour_reveal_7").set_value(True).run()
    assert "**0 of 1 prediction right** in this part (7 steps not answered yet)." in [
        c.value for c in at.caption]
    # the prediction is locked in once revealed: changing it later changes no score
    assert at.radio(key="tour_guess_7").disabled
    at.button(key="tour_next").click().run()
    assert at.slider(key="tour_step").value == 8
    assert "Recap" not in recap_of(at)  # the recap follows the part's last answer
    at.radio(key="tour_guess_8").set_value("1/{keys}, like every key it can see")
    at.toggle(key="tour_reveal_8").set_value(True).run()
    assert at.success[0].value.startswith("Your prediction, “1/16, like every key")
    (recap,) = [h.value for h in at.subheader if h.value.startswith("Recap")]
    assert recap == "Recap: Part 1: the basics"
    text = recap_of(at)
    assert "**1 of 2 predictions right** in this part (6 steps not answered yet)." in text
    for number in range(1, 9):  # what each step taught, numbered as the steps
        assert f"{number}. " in text
    assert "7. Only the pairs whose wavelength is shorter than the context" in text
    links = {(link.proto.page, link.proto.query_string) for link in at.get("page_link")}
    assert ("tour", "tour_step=9") in links
    assert {"where_rope_sits", "real_models"} <= {page for page, _q in links}
    # back at step 7: its answer stays revealed with the prediction made then
    at.button(key="tour_previous").click().run()
    radio = at.radio(key="tour_guess_7")
    assert radio.value == "All 64" and radio.disabled
    assert at.toggle(key="tour_reveal_7").value
    # start the part again: no score, step 1
    at.slider(key="tour_step").set_value(8).run()
    at.button(key="tour_again").click().run()
    assert at.slider(key="tour_step").value == 1
    assert at.session_state["tour_record"] == {}


def test_a_reveal_without_a_prediction_counts_as_asked():
    at = run_page("tour", {"tour_step": str(N)})
    at.toggle(key=f"tour_reveal_{N}").set_value(True).run()
    text = recap_of(at)
    assert "Recap" in " ".join(h.value for h in at.subheader)
    assert ("**0 of 1 prediction right** in this part (1 answer revealed without a "
            "prediction, 3 steps not answered yet).") in text
    assert not any(link.proto.query_string == "tour_step=9" for link in at.get("page_link"))


# -------------------------------------------------------------- slide mode ----
def test_slide_mode_one_picture_a_slide_arrow_keys_and_a_recap_slide():
    at = run_page("tour", {"tour_step": "8", "slides": "true"})
    assert at.toggle(key="slides").value
    assert len(at.get("plotly_chart")) == 1
    assert at.button(key="tour_next").proto.shortcut == "right"
    assert at.button(key="tour_previous").proto.shortcut == "left"
    # the page behind the slide: in a closed expander
    assert [e.proto.label for e in at.get("expander")] == [
        "Open the page of this step", "All steps"]
    assert long_paragraphs(at) == {}
    at.button(key="tour_next").click().run()  # → the recap of part 1, a slide of its own
    assert [h.value for h in at.main.header] == ["Recap: Part 1: the basics"]
    assert not at.get("plotly_chart")
    at.button(key="tour_next").click().run()  # → step 9
    assert at.slider(key="tour_step").value == 9
    assert at.header[0].value.startswith("9. ")
    at.button(key="tour_previous").click().run()  # ← the recap again
    assert [h.value for h in at.main.header] == ["Recap: Part 1: the basics"]
    at.button(key="tour_previous").click().run()  # ← step 8
    assert at.header[0].value.startswith("8. ")
    assert len(at.get("plotly_chart")) == 1


def test_slide_mode_in_chinese():
    at = run_page("tour", {"tour_step": "3", "slides": "true", "lang": "zh"})
    assert at.toggle(key="slides").proto.label == "幻灯片模式"
    assert untranslated(at) == {}
    assert long_paragraphs(at) == {}


def test_normal_mode_buttons_have_no_shortcut():
    at = run_page("tour", {"tour_step": "3"})
    assert at.button(key="tour_next").proto.shortcut == ""


# ---------------------------------------------------------------- handout ----
@pytest.mark.parametrize(("number", "part"), [(3, 0), (11, 1)])
def test_handout_of_a_part_has_every_picture_question_and_answer(number, part):
    at = run_page("tour", {"tour_step": str(number), "handout": "true"})
    first, last = PARTS[part].first, PARTS[part].last
    charts = [c.proto.id.rsplit("-", 1)[1] for c in at.get("plotly_chart")]
    assert charts == [f"handout_figure_{n}" for n in range(first, last + 1)]
    assert at.header[0].value == f"RoPE Explorer · guided tour · {PARTS[part].title}"
    text = " ".join(shown(m.value) for m in at.markdown)
    for n in range(first, last + 1):
        assert shown(STEPS[n - 1].prompt.split("{")[0]) in text
        assert f"**{n}. " in " ".join(m.value for m in at.markdown)
    assert text.count("☐") == sum(len(STEPS[n - 1].choices) for n in range(first, last + 1))
    if part == 0:
        count = math.floor(64 * math.log(4096 / (2 * math.pi)) / math.log(10_000)) + 1
        assert f"{count} of 64 pairs" in text
        assert "**7. Between 32 and 63.**" in " ".join(m.value for m in at.markdown)
    else:
        assert f"{2**8:,} = 2⁸" in text
    assert [h.value for h in at.subheader][-2:] == ["Answers", "What we learned"]


def test_handout_in_chinese():
    at = run_page("tour", {"tour_step": "9", "handout": "true", "lang": "zh"})
    assert at.header[0].value == "RoPE Explorer · 导览 · 第 2 部分：研究层面"
    assert untranslated(at) == {}
