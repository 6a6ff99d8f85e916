"""The Guided tour's steps (pages/tour.py): for each, the page it opens with its settings,
what to look at, the question and its choices, and the live answer (computed with
rope_core.teaching.tour from the step's own settings) with the sentence that reveals it.
A module, not the page, holds them: a class or a table built in a page script would be
built again on every run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import rope_core.teaching.lesson as lesson
import rope_core.teaching.tour as tour
import ui
from ui import i18n
from ui.i18n import N_, _


@dataclass(frozen=True)
class Step:
    title: str  # title, look, prompt and choices are catalog messages (N_): show say(...)
    page: str  # pages/<page>.py
    params: dict  # URL values exactly as the page's widgets write them into links
    look: str  # what to look at on that page
    prompt: str  # the question to predict
    choices: tuple[str, ...]  # the radio's values (English); shown translated by say()
    answer: Callable[[dict], dict]  # the live numbers, from params
    verdict: Callable[[dict], int]  # the index of the right choice, from the live numbers
    reveal: Callable[[dict], str]  # the answer in words (translated), from the live numbers


def _bin(value: float, edges: tuple) -> int:
    """The index of the first edge that ``value`` lies below (len(edges) if none)."""
    return next((n for n, edge in enumerate(edges) if value < edge), len(edges))


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


SIDEBAR = {"base": "10000", "dim": "128", "layout": "interleaved"}
CHOSEN_PAIR = 40  # step 6: the pair whose wavelength the base change stretches
LAST_ROW = 15  # step 8: the last query of 16 tokens
SENTENCE = "dog bites man"  # step 1: a toy sentence of rope_core.lesson (pages/overview.py)
_ORDER = lesson.TOY_SENTENCES[SENTENCE][1]


def places() -> dict:
    """The values of the named placeholders in the steps' texts, in the run's language
    (the toy sentence's words are translated word for word: ui.i18n.words)."""
    words = i18n.words(SENTENCE)
    return {"pair": CHOSEN_PAIR, "row": LAST_ROW, "keys": LAST_ROW + 1,
            "sentence": " ".join(words), "shuffled": " ".join(words[t] for t in _ORDER),
            "word": words[0]}


def say(text: str) -> str:
    """A step's text (an N_ message) in the run's language, placeholders filled."""
    return _(text).format(**places())


def _self_similarity(r: dict) -> str:
    (m_a, a), (m_b, b), (m_c, c) = r.items()
    return _("PE_m · PE_m = {a} at m = {m_a}, {b} at m = {m_b} and {c} at m = {m_c}: each of "
             "the d_model/2 (sin, cos) pairs adds sin² + cos² = 1, at every position.").format(
        a=f"{a:.6g}", b=f"{b:.6g}", c=f"{c:.6g}", m_a=m_a, m_b=m_b, m_c=m_c)


def _first_negative(r: dict) -> str:
    if r["first"] is None:
        return _("B_m stays ≥ 0 up to 2²⁰.")
    if r["first"] < 4096:
        text = _("At m = {m} (B_m = {value}), inside Llama 2's 4,096-token context. Men et "
                 "al. 2024 ask for B_m ≥ 0 at every m < L before calling a base large enough "
                 "for a context L.")
    else:
        text = _("At m = {m} (B_m = {value}), beyond Llama 2's 4,096-token context. Men et "
                 "al. 2024 ask for B_m ≥ 0 at every m < L before calling a base large enough "
                 "for a context L.")
    return text.format(m=i18n.integer(r["first"]), value=f"{r['value']:.4f}")


STEPS: tuple[Step, ...] = (
    Step(
        N_("Attention alone cannot tell word orders apart"), "overview",
        {**SIDEBAR, "why_sentence": SENTENCE, "why_seed": "0"},
        N_("The two top panels: the output rows of the head without positions, for the "
           "sentence and for its shuffle. Find the row of “{word}” in each."),
        N_("Without position information the head reads “{shuffled}” instead of "
           "“{sentence}”. What happens to the output for “{word}”?"),
        (N_("It is the same vector, only in another row"), N_("It changes a little"),
         N_("It changes completely")),
        lambda p: tour.shuffle_gaps(p["why_sentence"], int(p["dim"]), float(p["base"]),
                                    p["layout"], int(p["why_seed"])),
        lambda r: _bin(r["none"], (1e-9, 0.1)),
        lambda r: _("Without positions, max |out(P x) − P out(x)| = {none}: rounding only, so "
                    "every output row just moves with its token. With RoPE on q and k the same "
                    "gap is {rope}: the order now matters.").format(
            none=f"{r['none']:.1e}", rope=f"{r['rope']:.3g}")),
    Step(
        N_("The sinusoidal table compared with itself"), "sinusoidal",
        {"base": "10000", "sin_positions": "512", "sin_dmodel": "128"},
        N_("The heatmap of PE_m · PE_n: its diagonal, where a position meets itself."),
        N_("For d_model = 128, what is PE_m · PE_m?"),
        ("1", "64", "128", N_("It grows with m")),
        lambda p: {m: tour.self_similarity(int(p["sin_dmodel"]), float(p["base"]), m)
                   for m in (0, 100, int(p["sin_positions"]) - 1)},
        lambda r: (3 if len({round(v, 9) for v in r.values()}) > 1 else
                   {1.0: 0, 64.0: 1, 128.0: 2}.get(round(next(iter(r.values())), 9), 3)),
        _self_similarity),
    Step(
        N_("The relative property"), "derivation",
        {**SIDEBAR, "der_i": "8", "der_m": "5", "der_n": "2", "der_shift": "100"},
        N_("The check that shifts both positions: the score at (m, n) = (5, 2) and at "
           "(m + s, n + s) with s = 100."),
        N_("Move the query and the key both 100 positions further. The score ⟨R_m q, R_n k⟩ …"),
        (N_("stays the same"), N_("grows"), N_("shrinks")),
        lambda p: tour.shift_scores(int(p["dim"]), float(p["base"]), p["layout"],
                                    int(p["der_m"]), int(p["der_n"]), int(p["der_shift"]), 0),
        lambda r: 0 if _same(r["score"], r["shifted"]) else (1 if r["shifted"] > r["score"]
                                                             else 2),
        lambda r: _("For one random q and k: {score} at (5, 2) and {shifted} at (105, 102), a "
                    "difference of {gap}. R_mᵀ R_n = R_(n−m): only n − m is left.").format(
            score=f"{r['score']:.10f}", shifted=f"{r['shifted']:.10f}", gap=f"{r['gap']:.1e}")),
    Step(
        N_("One pair turning"), "rotation",
        {**SIDEBAR, "rot_i": "8", "rot_step": "auto"},
        N_("The pair's angle as the query advances, and the dot product against position."),
        N_("With base 10⁴ and d = 128, how many tokens does pair i = 8 need for one full turn?"),
        (N_("About 6"), N_("About 20"), N_("About 200"), N_("About 10,000")),
        lambda p: {"wavelength": tour.pair_wavelength(int(p["dim"]), float(p["base"]),
                                                      int(p["rot_i"]))},
        lambda r: _bin(r["wavelength"], (12, 60, 2000)),
        lambda r: _("λ₈ = 2π·base^(2·8/d) = 2π·10^(4·16/128) = {length} tokens. Pair 0 "
                    "turns every 2π ≈ 6.3 tokens; each later pair is slower.").format(
            length=f"{r['wavelength']:.4g}")),
    Step(
        N_("Rotating a vector by hand"), "step_by_step",
        {"base": "10000", "layout": "interleaved", "step_q": "1, 2, 3, 4", "step_m": "1000"},
        N_("The rotated vector R_m q next to q, pair by pair."),
        N_("After turning q = (1, 2, 3, 4) to position m = 1000, its length …"),
        (N_("stays the same"), N_("grows with m"), N_("shrinks with m")),
        lambda p: tour.norm_after_rotation([float(v) for v in p["step_q"].split(",")],
                                           int(p["step_m"]), float(p["base"]), p["layout"]),
        lambda r: 0 if _same(r["before"], r["after"]) else (1 if r["after"] > r["before"]
                                                            else 2),
        lambda r: _("|q| = {before} and |R_m q| = {after}: R_m turns each pair and stretches "
                    "nothing, so RoPE changes directions, never lengths.").format(
            before=f"{r['before']:.12f}", after=f"{r['after']:.12f}")),
    Step(
        N_("A larger base"), "frequencies",
        {"base": "10000", "dim": "128", "compare": "500000"},
        N_("The wavelength plot: the curve for base 5·10⁵ next to 10⁴, at pair i = {pair}."),
        N_("Raise the base from 10⁴ to 5·10⁵ (Llama 2 → Llama 3). What happens to pair "
           "{pair}'s wavelength?"),
        (N_("It shrinks"), N_("It grows, by less than 5×"), N_("It grows, by 5× to 20×"),
         N_("It grows 50×, like the base")),
        lambda p: tour.wavelength_ratio(int(p["dim"]), float(p["base"]), float(p["compare"]),
                                        CHOSEN_PAIR),
        lambda r: _bin(r["ratio"], (1, 5, 20)),
        lambda r: _("λ₄₀ goes from {before} to {after} tokens: (5·10⁵ / 10⁴)^(2·40/128) = "
                    "50^0.625 = {ratio}×. Pair i's wavelength grows by (base′/base)^(2i/d): not "
                    "at all for pair 0, almost 50× for the last.").format(
            before=i18n.integer(round(r["before"])), after=i18n.integer(round(r["after"])),
            ratio=f"{r['ratio']:.4g}")),
    Step(
        N_("Which pairs turn within the context"), "frequencies",
        {"base": "10000", "dim": "128", "L": "4096"},
        N_("The dotted line at L = 4096 on the wavelength plot: pairs below it turn at least "
           "once within the context."),
        N_("How many of the 64 pairs complete at least one full turn within L = 4,096 tokens?"),
        (N_("All 64"), N_("Between 32 and 63"), N_("Between 8 and 31"), N_("Fewer than 8")),
        lambda p: {"pairs": tour.turning_pairs(int(p["dim"]), float(p["base"]), int(p["L"])),
                   "of": int(p["dim"]) // 2},
        lambda r: 0 if r["pairs"] == r["of"] else 3 - _bin(r["pairs"], (8, 32)),
        lambda r: _("{pairs} of {total} pairs: λᵢ ≤ L exactly when i ≤ (d/2)·ln(L/2π)/ln(base). "
                    "The other {rest} never see the same angle twice inside the context.").format(
            pairs=r["pairs"], total=r["of"], rest=r["of"] - r["pairs"])),
    Step(
        N_("Attention without and with RoPE"), "attention",
        {**SIDEBAR, "att_seq": "16", "att_seed": "0", "att_same": "true", "att_causal": "true"},
        N_("The weights without RoPE, row by row, then the same heatmap with RoPE."),
        N_("Every token has the same q and k, with a causal mask and no RoPE. How much weight "
           "does the last query (m = {row}) give to key 0?"),
        (N_("1/{keys}, like every key it can see"), N_("Almost 0: key 0 is far away"),
         N_("Almost all of it")),
        lambda p: tour.uniform_weight(int(p["att_seq"]), int(p["dim"]), float(p["base"]),
                                      int(p["att_seed"]), LAST_ROW),
        lambda r: 0 if _same(r["without"], 1 / (LAST_ROW + 1)) else (1 if r["without"] < 0.5
                                                                     else 2),
        lambda r: _("{without} = 1/{keys}: equal logits share the weight equally, 1/(m + 1) per "
                    "visible key. With RoPE the row ranges from {low} to {high}: the distance "
                    "now matters.").format(
            without=f"{r['without']:.6f}", keys=LAST_ROW + 1, low=f"{r['with_min']:.4f}",
            high=f"{r['with_max']:.4f}")),
    Step(
        N_("Long-term decay"), "decay",
        {**SIDEBAR, "decay_max": "1000000", "decay_axis": "log"},
        N_("RoFormer's upper bound on the log axis, out to 10⁶ tokens."),
        N_("At a distance of 10⁶ tokens, RoFormer's bound is what share of its value at r = 0?"),
        (N_("Under 5 %: it decays to about 0"), N_("Between 5 % and 90 %: it levels off"),
         N_("Over 90 %: it hardly decays")),
        lambda p: tour.far_bound(int(p["dim"]), float(p["base"]), float(p["decay_max"])),
        lambda r: _bin(r["ratio"], (0.05, 0.9)),
        lambda r: _("bound(10⁶) = {far}, bound(0) = (d/2 + 1)/2 = {zero}: {share} %. Far past "
                    "the longest wavelength the phases are effectively random and the bound "
                    "scatters around {plateau} instead of reaching 0.").format(
            far=f"{r['far']:.4f}", zero=f"{r['at_zero']:g}", share=f"{100 * r['ratio']:.1f}",
            plateau=f"{r['plateau']:.2f}")),
    Step(
        N_("Where B_m turns negative"), "long_context",
        {"base": "10000", "dim": "128", "lc_train": "4096", "lc_bmax": "1048576"},
        N_("The plot of B_m = Σᵢ cos(m·θᵢ) and its dashed line."),
        N_("For Llama 2's base 10⁴ and d = 128, where does B_m first turn negative?"),
        (N_("Inside the training context, before 4,096"), N_("Between 4,096 and 65,536"),
         N_("Beyond 65,536"), N_("Never, up to 10⁶")),
        lambda p: tour.first_negative_sum(int(p["dim"]), float(p["base"]), int(p["lc_bmax"])),
        lambda r: 3 if r["first"] is None else _bin(r["first"], (4096, 65536)),
        _first_negative),
    Step(
        N_("Positions in bfloat16"), "precision",
        {**SIDEBAR, "pr_max": "1000000"},
        N_("The plot of positions as bfloat16 holds them: a staircase."),
        N_("Up to which position does bfloat16 hold every integer exactly?"),
        ("256", "2,048", "65,536", "16,777,216"),
        lambda p: tour.exact_integers("bfloat16", 1001),
        lambda r: {256: 0, 2048: 1, 65536: 2, 16777216: 3}[r["largest"]],
        lambda r: _("{largest} = 2⁸: bfloat16 keeps 8 significant bits, so past 256 it skips "
                    "integers; position {position} is held as {held}.").format(
            largest=i18n.integer(r["largest"]), position=i18n.integer(r["position"]),
            held=i18n.integer(r["held"]))),
    Step(
        N_("Context extension: NTK-aware scaling"), "context_extension",
        {**SIDEBAR, "ce_model": "sidebar settings", "ce_L": "4096", "ce_s": "8"},
        N_("The NTK-aware curve among the methods, pair by pair."),
        N_("NTK-aware scaling extends L = 4,096 by s = 8 by raising the base. Which pairs does "
           "it slow down the most?"),
        (N_("The fastest pairs (small i)"), N_("The slowest pairs (large i)"),
         N_("All pairs equally, by 8×")),
        lambda p: tour.ntk_slowdown(int(p["dim"]), float(p["base"]), float(p["ce_s"])),
        lambda r: 2 if _same(r["first"], r["last"]) else (0 if r["first"] < r["last"] else 1),
        lambda r: _("θ′/θ = {first} for pair 0 and {last} = 1/s for the last pair: the base "
                    "becomes base·s^(d/(d−2)), so θ′ᵢ/θᵢ = s^(−2i/(d−2)). Local order stays "
                    "sharp while the long wavelengths stretch.").format(
            first=f"{r['first']:.4f}", last=f"{r['last']:.4f}")),
)
N = len(STEPS)


@ui.table
def answer(number: int) -> dict:
    """The live numbers of step ``number`` (1 ... N), from its own settings."""
    step = STEPS[number - 1]
    return step.answer(step.params)
