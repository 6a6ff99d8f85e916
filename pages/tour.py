"""Guided tour: numbered steps through the lesson. Each step opens a page with its
settings, says what to look at, and asks for a prediction before revealing the
answer, computed live with rope_core.tour from the step's own settings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

import rope_core.tour as tour
import ui
from ui.navigation import by_name


@dataclass(frozen=True)
class Step:
    title: str
    page: str  # pages/<page>.py
    params: dict  # URL values exactly as the page's widgets write them into links
    look: str  # what to look at on that page
    prompt: str  # the question to predict
    choices: tuple[str, ...]
    answer: Callable[[dict], dict]  # the live numbers, from params
    verdict: Callable[[dict], int]  # the index of the right choice, from the live numbers
    reveal: Callable[[dict], str]  # the answer in words, from the live numbers


def _bin(value: float, edges: tuple) -> int:
    """The index of the first edge that ``value`` lies below (len(edges) if none)."""
    return next((n for n, edge in enumerate(edges) if value < edge), len(edges))


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


SIDEBAR = {"base": "10000", "dim": "128", "layout": "interleaved"}
CHOSEN_PAIR = 40  # step 6: the pair whose wavelength the base change stretches
LAST_ROW = 15  # step 8: the last query of 16 tokens

STEPS: tuple[Step, ...] = (
    Step(
        "Attention alone cannot tell word orders apart", "overview",
        {**SIDEBAR, "why_sentence": "dog bites man", "why_seed": "0"},
        "The two top panels: the output rows of the head without positions, for the sentence "
        "and for its shuffle. Find the row of “dog” in each.",
        "Without position information the head reads “man bites dog” instead of “dog bites "
        "man”. What happens to the output for “dog”?",
        ("It is the same vector, only in another row", "It changes a little",
         "It changes completely"),
        lambda p: tour.shuffle_gaps(p["why_sentence"], int(p["dim"]), float(p["base"]),
                                    p["layout"], int(p["why_seed"])),
        lambda r: _bin(r["none"], (1e-9, 0.1)),
        lambda r: f"Without positions, max |out(P x) − P out(x)| = {r['none']:.1e}: rounding "
                  "only, so every output row just moves with its token. With RoPE on q and k "
                  f"the same gap is {r['rope']:.3g}: the order now matters."),
    Step(
        "The sinusoidal table compared with itself", "sinusoidal",
        {"base": "10000", "sin_positions": "512", "sin_dmodel": "128"},
        "The heatmap of PE_m · PE_n: its diagonal, where a position meets itself.",
        "For d_model = 128, what is PE_m · PE_m?",
        ("1", "64", "128", "It grows with m"),
        lambda p: {m: tour.self_similarity(int(p["sin_dmodel"]), float(p["base"]), m)
                   for m in (0, 100, int(p["sin_positions"]) - 1)},
        lambda r: (3 if len({round(v, 9) for v in r.values()}) > 1 else
                   {1.0: 0, 64.0: 1, 128.0: 2}.get(round(next(iter(r.values())), 9), 3)),
        lambda r: "PE_m · PE_m = " + ", ".join(f"{v:.6g} at m = {m}" for m, v in r.items())
                  + ": each of the d_model/2 (sin, cos) pairs adds sin² + cos² = 1, at every "
                  "position."),
    Step(
        "The relative property", "derivation",
        {**SIDEBAR, "der_i": "8", "der_m": "5", "der_n": "2", "der_shift": "100"},
        "The check that shifts both positions: the score at (m, n) = (5, 2) and at "
        "(m + s, n + s) with s = 100.",
        "Move the query and the key both 100 positions further. The score ⟨R_m q, R_n k⟩ …",
        ("stays the same", "grows", "shrinks"),
        lambda p: tour.shift_scores(int(p["dim"]), float(p["base"]), p["layout"],
                                    int(p["der_m"]), int(p["der_n"]), int(p["der_shift"]), 0),
        lambda r: 0 if _same(r["score"], r["shifted"]) else (1 if r["shifted"] > r["score"]
                                                             else 2),
        lambda r: f"For one random q and k: {r['score']:.10f} at (5, 2) and "
                  f"{r['shifted']:.10f} at (105, 102), a difference of {r['gap']:.1e}. "
                  "R_mᵀ R_n = R_(n−m): only n − m is left."),
    Step(
        "One pair turning", "rotation",
        {**SIDEBAR, "rot_i": "8", "rot_step": "auto"},
        "The pair's angle as the query advances, and the dot product against position.",
        "With base 10⁴ and d = 128, how many tokens does pair i = 8 need for one full turn?",
        ("About 6", "About 20", "About 200", "About 10,000"),
        lambda p: {"wavelength": tour.pair_wavelength(int(p["dim"]), float(p["base"]),
                                                      int(p["rot_i"]))},
        lambda r: _bin(r["wavelength"], (12, 60, 2000)),
        lambda r: f"λ₈ = 2π·base^(2·8/d) = 2π·10^(4·16/128) = {r['wavelength']:.4g} tokens. "
                  "Pair 0 turns every 2π ≈ 6.3 tokens; each later pair is slower."),
    Step(
        "Rotating a vector by hand", "step_by_step",
        {"base": "10000", "layout": "interleaved", "step_q": "1, 2, 3, 4", "step_m": "1000"},
        "The rotated vector R_m q next to q, pair by pair.",
        "After turning q = (1, 2, 3, 4) to position m = 1000, its length …",
        ("stays the same", "grows with m", "shrinks with m"),
        lambda p: tour.norm_after_rotation([float(v) for v in p["step_q"].split(",")],
                                           int(p["step_m"]), float(p["base"]), p["layout"]),
        lambda r: 0 if _same(r["before"], r["after"]) else (1 if r["after"] > r["before"]
                                                            else 2),
        lambda r: f"|q| = {r['before']:.12f} and |R_m q| = {r['after']:.12f}: R_m turns each "
                  "pair and stretches nothing, so RoPE changes directions, never lengths."),
    Step(
        "A larger base", "frequencies",
        {"base": "10000", "dim": "128", "compare": "500000"},
        f"The wavelength plot: the curve for base 5·10⁵ next to 10⁴, at pair i = {CHOSEN_PAIR}.",
        f"Raise the base from 10⁴ to 5·10⁵ (Llama 2 → Llama 3). What happens to pair "
        f"{CHOSEN_PAIR}'s wavelength?",
        ("It shrinks", "It grows, by less than 5×", "It grows, by 5× to 20×",
         "It grows 50×, like the base"),
        lambda p: tour.wavelength_ratio(int(p["dim"]), float(p["base"]), float(p["compare"]),
                                        CHOSEN_PAIR),
        lambda r: _bin(r["ratio"], (1, 5, 20)),
        lambda r: f"λ₄₀ goes from {r['before']:,.0f} to {r['after']:,.0f} tokens: "
                  f"(5·10⁵ / 10⁴)^(2·40/128) = 50^0.625 = {r['ratio']:.4g}×. Pair i's wavelength "
                  "grows by (base′/base)^(2i/d): not at all for pair 0, almost 50× for the last."),
    Step(
        "Which pairs turn within the context", "frequencies",
        {"base": "10000", "dim": "128", "L": "4096"},
        "The dotted line at L = 4096 on the wavelength plot: pairs below it turn at least once "
        "within the context.",
        "How many of the 64 pairs complete at least one full turn within L = 4,096 tokens?",
        ("All 64", "Between 32 and 63", "Between 8 and 31", "Fewer than 8"),
        lambda p: {"pairs": tour.turning_pairs(int(p["dim"]), float(p["base"]), int(p["L"])),
                   "of": int(p["dim"]) // 2},
        lambda r: 0 if r["pairs"] == r["of"] else 3 - _bin(r["pairs"], (8, 32)),
        lambda r: f"{r['pairs']} of {r['of']} pairs: λᵢ ≤ L exactly when "
                  "i ≤ (d/2)·ln(L/2π)/ln(base). The other "
                  f"{r['of'] - r['pairs']} never see the same angle twice inside the context."),
    Step(
        "Attention without and with RoPE", "attention",
        {**SIDEBAR, "att_seq": "16", "att_seed": "0", "att_same": "true", "att_causal": "true"},
        "The weights without RoPE, row by row, then the same heatmap with RoPE.",
        f"Every token has the same q and k, with a causal mask and no RoPE. How much weight does "
        f"the last query (m = {LAST_ROW}) give to key 0?",
        (f"1/{LAST_ROW + 1}, like every key it can see", "Almost 0: key 0 is far away",
         "Almost all of it"),
        lambda p: tour.uniform_weight(int(p["att_seq"]), int(p["dim"]), float(p["base"]),
                                      int(p["att_seed"]), LAST_ROW),
        lambda r: 0 if _same(r["without"], 1 / (LAST_ROW + 1)) else (1 if r["without"] < 0.5
                                                                     else 2),
        lambda r: f"{r['without']:.6f} = 1/{LAST_ROW + 1}: equal logits share the weight "
                  f"equally, 1/(m + 1) per visible key. With RoPE the row ranges from "
                  f"{r['with_min']:.4f} to {r['with_max']:.4f}: the distance now matters."),
    Step(
        "Long-term decay", "decay",
        {**SIDEBAR, "decay_max": "1000000", "decay_axis": "log"},
        "RoFormer's upper bound on the log axis, out to 10⁶ tokens.",
        "At a distance of 10⁶ tokens, RoFormer's bound is what share of its value at r = 0?",
        ("Under 5 %: it decays to about 0", "Between 5 % and 90 %: it levels off",
         "Over 90 %: it hardly decays"),
        lambda p: tour.far_bound(int(p["dim"]), float(p["base"]), float(p["decay_max"])),
        lambda r: _bin(r["ratio"], (0.05, 0.9)),
        lambda r: f"bound(10⁶) = {r['far']:.4f}, bound(0) = (d/2 + 1)/2 = {r['at_zero']:g}: "
                  f"{100 * r['ratio']:.1f} %. Far past the longest wavelength the phases are "
                  f"effectively random and the bound scatters around {r['plateau']:.2f} "
                  "instead of reaching 0."),
    Step(
        "Where B_m turns negative", "long_context",
        {"base": "10000", "dim": "128", "lc_train": "4096", "lc_bmax": "1048576"},
        "The plot of B_m = Σᵢ cos(m·θᵢ) and its dashed line.",
        "For Llama 2's base 10⁴ and d = 128, where does B_m first turn negative?",
        ("Inside the training context, before 4,096", "Between 4,096 and 65,536",
         "Beyond 65,536", "Never, up to 10⁶"),
        lambda p: tour.first_negative_sum(int(p["dim"]), float(p["base"]), int(p["lc_bmax"])),
        lambda r: 3 if r["first"] is None else _bin(r["first"], (4096, 65536)),
        lambda r: ("B_m stays ≥ 0 up to 2²⁰." if r["first"] is None else
                   f"At m = {r['first']:,} (B_m = {r['value']:.4f}), "
                   f"{'inside' if r['first'] < 4096 else 'beyond'} Llama 2's 4,096-token "
                   "context. Men et al. 2024 ask for B_m ≥ 0 at every m < L before calling a "
                   "base large enough for a context L.")),
    Step(
        "Positions in bfloat16", "precision",
        {**SIDEBAR, "pr_max": "1000000"},
        "The plot of positions as bfloat16 holds them: a staircase.",
        "Up to which position does bfloat16 hold every integer exactly?",
        ("256", "2,048", "65,536", "16,777,216"),
        lambda p: tour.exact_integers("bfloat16", 1001),
        lambda r: {256: 0, 2048: 1, 65536: 2, 16777216: 3}[r["largest"]],
        lambda r: f"{r['largest']:,} = 2⁸: bfloat16 keeps 8 significant bits, so past 256 it "
                  f"skips integers; position {r['position']:,} is held as {r['held']:,}."),
    Step(
        "Context extension: NTK-aware scaling", "context_extension",
        {**SIDEBAR, "ce_model": "sidebar settings", "ce_L": "4096", "ce_s": "8"},
        "The NTK-aware curve among the methods, pair by pair.",
        "NTK-aware scaling extends L = 4,096 by s = 8 by raising the base. Which pairs does "
        "it slow down the most?",
        ("The fastest pairs (small i)", "The slowest pairs (large i)",
         "All pairs equally, by 8×"),
        lambda p: tour.ntk_slowdown(int(p["dim"]), float(p["base"]), float(p["ce_s"])),
        lambda r: 2 if _same(r["first"], r["last"]) else (0 if r["first"] < r["last"] else 1),
        lambda r: f"θ′/θ = {r['first']:.4f} for pair 0 and {r['last']:.4f} = 1/s for the last "
                  "pair: the base becomes base·s^(d/(d−2)), so θ′ᵢ/θᵢ = s^(−2i/(d−2)). Local "
                  "order stays sharp while the long wavelengths stretch."),
)
N = len(STEPS)


@ui.table
def answer(number: int) -> dict:
    """The live numbers of step ``number`` (1 ... N), from its own settings."""
    step = STEPS[number - 1]
    return step.answer(step.params)


def _go(number: int) -> None:
    st.session_state["tour_step"] = number


ui.settings()
st.title("Guided tour")
st.markdown(
    f"{N} steps through the lesson. Each opens a page with the settings it needs: look at "
    "what the step names, predict the answer, then reveal it, computed live. The step "
    "number is in the address (?tour_step=3), so a link opens any step.")
number = ui.slider("Step", 1, N, 1, "tour_step")
st.progress(number / N, text=f"Step {number} of {N}")
back, ahead = st.columns(2)
back.button("Previous", key="tour_previous", on_click=_go, args=(number - 1,),
            disabled=number == 1, icon=":material/arrow_back:", width="stretch")
ahead.button("Next", key="tour_next", on_click=_go, args=(number + 1,),
             disabled=number == N, icon=":material/arrow_forward:", width="stretch")

step = STEPS[number - 1]
spec = by_name(step.page)
st.subheader(f"{number}. {step.title}")
st.page_link(spec.file, label=f"Open {spec.title} with this step's settings", icon=spec.icon,
             query_params=step.params)
st.caption("Settings: " + ", ".join(f"{k} = {v}" for k, v in step.params.items()))
st.markdown(f"**Look at:** {step.look}")
guess = st.radio(f"**Predict:** {step.prompt}", step.choices, index=None,
                 key=f"tour_guess_{number}")
if st.toggle("Reveal the answer", key=f"tour_reveal_{number}"):
    with ui.friendly_errors():
        result = answer(number)
    right = step.choices[step.verdict(result)]
    st.markdown(f"**Answer: {right}.** {step.reveal(result)}")
    if guess is None:
        st.info("No prediction made: try the next one before revealing.")
    elif guess == right:
        st.success(f"Your prediction, “{guess}”, was right.")
    else:
        st.info(f"Your prediction was “{guess}”; the live numbers say “{right}”.")
