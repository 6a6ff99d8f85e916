"""Guided tour: every step renders, links a real page with values it accepts, and
reveals live answers that match closed forms derived here."""

import json
import math
import re
from urllib.parse import parse_qs

import pytest
from apptest_helpers import APP, TIMEOUT, no_exceptions, run_page, shown, warnings
from i18n_helpers import long_paragraphs, untranslated
from streamlit.testing.v1 import AppTest

from ui.links import LESSON
from ui.navigation import PAGES, TOUR_PAGES, by_name
from views.tour import PARTS, STEPS

WIDGETS = ("select_slider", "slider", "number_input", "radio", "segmented_control",
           "toggle", "text_input", "multiselect")


KEPT = r"(?:\w+=true&amp;)*"  # slide mode and the handout, kept by every step link
STEP_LINK = re.compile(r'<a data-rope-link href="tour\?' + KEPT + r'tour_step=(\d+)" '
                       r'aria-label="([^"]*)"'
                       r'( aria-current="step")?>(\d+)</a>')
MOVE = re.compile(r'<(a|span) data-rope-link class="rope-move" href="tour\?' + KEPT
                  + r'tour_step=(\d+)">'
                  r'|<span class="rope-move rope-off" aria-disabled="true">')


def steps_bar(at) -> str:
    """The tour's moves (ui.navigation.tour_steps): one HTML element."""
    (bar,) = [h.proto.body for h in at.get("html") if 'class="rope-steps"' in h.proto.body]
    return bar


def current_step(at) -> int:
    (number,) = [int(m[0]) for m in STEP_LINK.findall(steps_bar(at)) if m[2]]
    return number


def count_steps() -> int:
    """The number of steps, read from the page: the links to every step."""
    return len(STEP_LINK.findall(steps_bar(run_page("tour"))))


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


def open_page(page: str, query: dict) -> AppTest:
    """``pages/<page>.py`` opened directly with ``query`` (a link of the app opens the page
    itself, not the opening page first as run_page does)."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    at.switch_page(by_name(page).file)
    at.run()
    no_exceptions(at)
    return at


def step_params(at) -> dict[str, str]:
    """The step's own values, as its caption lists them ("Settings: `k = v`, …")."""
    (caption,) = [c.value for c in at.caption if c.value.startswith("Settings: ")]
    return dict(re.findall(r"`(\w+) = ([^`]*)`", caption))


def go(at, number: int) -> AppTest:
    """Follow the link to step ``number`` in the same session (the step is in the address)."""
    at.query_params["tour_step"] = str(number)
    return at.run()


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
    assert current_step(at) == number
    assert at.header[0].value.startswith(f"{number}. ")
    assert f"Step {number} of {N}" in at.get("progress")[0].proto.text
    radio = at.radio(key=f"tour_guess_{number}")
    assert radio.value is None and 2 <= len(radio.options) <= 4
    page, query = link_of(at)
    assert page in {spec.name for spec in PAGES} - {"tour"}
    # the linked page, opened with the link's values: the link rule accepts every one
    assert page == TOUR_PAGES[number - 1]  # ui.navigation's list of the steps' pages
    # the link names the sidebar's lesson settings (its values or the defaults) and the
    # step, for the way back
    assert {k: query[k] for k in LESSON} == {k: [v] for k, v in LESSON.items()} | {
        k: [v] for k, v in step_params(at).items() if k in LESSON}
    assert query.pop("tour") == [str(number)]
    # the linked page, opened with the link's values: the link rule accepts every one
    target = open_page(page, {k: v if len(v) > 1 else v[0] for k, v in query.items()}
                       | {"tour": str(number)})
    assert not warnings(target), (page, query)
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
    # and offers the way back to this step, at its top
    back = target.get("page_link")[0]
    assert back.proto.label == f"Back to step {number} of the tour"
    assert back.proto.page == "tour" and back.proto.query_string == f"tour_step={number}"


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


def moves(at) -> tuple[int | None, int | None]:
    """The steps that Previous and Next link to (None: not a link at this step)."""
    found = MOVE.findall(steps_bar(at))
    assert len(found) == 2, found
    return tuple(int(step) if step else None for _tag, step in found)


def test_previous_next_and_every_step_are_links_with_the_current_step_marked():
    """Each move is a link of the app (ui.links: one history entry per step, Back returns
    to the step before); the step lives in the address alone, no widget holds it (a
    button that set it through st.session_state made Streamlit warn that the step's
    slider had a default value and a value set through the Session State API)."""
    first = run_page("tour", {"tour_step": "1"})
    assert moves(first) == (None, 2)
    steps = STEP_LINK.findall(steps_bar(first))
    assert [int(s[0]) for s in steps] == list(range(1, N + 1))
    assert [s[1] for s in steps] == [f"Step {n} of {N}" for n in range(1, N + 1)]
    assert [s[3] for s in steps] == [str(n) for n in range(1, N + 1)]
    assert current_step(first) == 1
    assert moves(run_page("tour", {"tour_step": "5"})) == (4, 6)
    last = run_page("tour", {"tour_step": str(N)})
    assert moves(last) == (N - 1, None) and current_step(last) == N
    assert not last.main.get("slider")  # no button moves: the class's own are not moves
    assert [b.key for b in last.main.get("button")] == ["class_start"]


@pytest.mark.parametrize("value", ["0", str(N + 1), "2.0", "two", ""])
def test_a_step_outside_the_tour_warns_and_opens_step_1(value):
    at = run_page("tour", {"tour_step": value})
    assert current_step(at) == 1
    assert any("tour_step" in w and f"from 1 to {N}" in w for w in warnings(at)), warnings(at)


def test_the_way_back_shows_only_on_the_page_of_that_step():
    """?tour=N is the mark of a page opened by step N: drawn on step N's page only; on
    another page, or with a step that does not exist, the rule for links drops it."""
    assert open_page("rotation", {"tour": "4"}).get("page_link")[0].proto.label == (
        "Back to step 4 of the tour")
    assert not open_page("rotation", {}).get("page_link")
    for page, value in (("rotation", "5"), ("rotation", "99"), ("sinusoidal", "4"),
                        ("serving", "1"), ("rotation", "4.0")):
        at = open_page(page, {"tour": value})
        assert not at.get("page_link"), (page, value)
        assert any("tour" in w and f"“{value}”" in w for w in warnings(at)), warnings(at)
    both = open_page("frequencies", {"tour": "7"})  # steps 6 and 7 both open Frequencies
    assert both.get("page_link")[0].proto.query_string == "tour_step=7"
    chinese = open_page("decay", {"tour": "9", "lang": "zh"})
    assert chinese.get("page_link")[0].proto.label == "返回导览第 9 步"
    assert untranslated(chinese) == {}


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
    go(at, 8)
    assert current_step(at) == 8
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
    go(at, 7)
    radio = at.radio(key="tour_guess_7")
    assert radio.value == "All 64" and radio.disabled
    assert at.toggle(key="tour_reveal_7").value
    # start the part again: no score, step 1
    go(at, 8)
    at.button(key="tour_again").click().run()
    assert current_step(at) == 1
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
        "Teach it as a class", "Open the page of this step", "All steps"]
    assert long_paragraphs(at) == {}
    at.button(key="tour_next").click().run()  # → the recap of part 1, a slide of its own
    assert [h.value for h in at.main.header] == ["Recap: Part 1: the basics"]
    assert not at.get("plotly_chart")
    at.button(key="tour_next").click().run()  # → step 9
    assert current_step(at) == 9
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


def test_normal_mode_moves_are_links_not_buttons():
    """Outside slide mode the arrow keys stay the page's (no shortcut is taken): the
    moves are the links of ui.navigation.tour_steps."""
    at = run_page("tour", {"tour_step": "3"})
    assert [b.key for b in at.main.get("button")] == ["class_start"]  # no move
    assert moves(at) == (2, 4)


def test_step_links_keep_slide_mode():
    at = run_page("tour", {"tour_step": "3", "slides": "true"})
    assert 'href="tour?slides=true&amp;tour_step=4"' in steps_bar(at)


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
