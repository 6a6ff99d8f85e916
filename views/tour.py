"""The Guided tour's steps (pages/tour.py): for each, the page it opens with its settings,
the picture it shows (that page's own figure, drawn by that page's view at the step's
settings), what to look at, the question and its choices, and the live answer (computed with
rope_core.teaching.tour from the step's own settings) with the sentence that reveals it.
The steps come in two parts, the basics and research level; each ends with a recap.

A module, not the page, holds them: a class or a table built in a page script would be
built again on every run.

The one exception to "a view imports no other view" (docs/architecture.md): the tour
shows other pages' pictures, so it imports the views of the pages its steps open and
calls their figure builders, rather than keeping copies of them
(tests/test_ui.py::test_every_page_is_a_lesson_with_its_view allows exactly these)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import rope_core as rc
import rope_core.teaching.lesson as lesson
import rope_core.teaching.tour as tour
import ui
from rope_core.limits import compare
from ui import i18n
from ui.css import PRESENT_CSS
from ui.i18n import N_, _, ngettext
from ui.navigation import by_name, tour_query
from views.attention import weights_figure
from views.context_extension import CUSTOM, ratio_figure
from views.decay import bound_figure
from views.derivation import identity_figure
from views.frequencies import wavelength_figure
from views.long_context import bm_figure
from views.overview import outputs_figure
from views.precision import spacing_figure
from views.rotation import rotation_figure
from views.sinusoidal import similarity_figure
from views.step_by_step import matrix_figure, parse_vector


@dataclass(frozen=True)
class Step:
    title: str  # title, look, prompt, choices, alt and takeaway are catalog messages (N_)
    page: str  # pages/<page>.py
    params: dict  # URL values exactly as the page's widgets write them into links
    figure: Callable[[dict, str], ui.Frozen]  # that page's picture at these settings
    shows: str  # the key of that figure on its page (the tests compare the two)
    alt: str  # the picture's text alternative
    look: str  # two or three sentences: what to look at in the picture
    prompt: str  # the question to predict
    choices: tuple[str, ...]  # the radio's values (English); shown translated by say()
    answer: Callable[[dict], dict]  # the live numbers, from params
    verdict: Callable[[dict], int]  # the index of the right choice, from the live numbers
    reveal: Callable[[dict], str]  # the answer in words (translated), from the live numbers
    takeaway: str  # what the step teaches, in one sentence (the recap, the handout)


@dataclass(frozen=True)
class Part:
    title: str  # N_
    intro: str  # N_: one or two sentences
    first: int  # its first and last step
    last: int
    next_pages: tuple[str, ...]  # what to open after it (ui.navigation names)


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
    (the toy sentence's words are translated word for word, ui.i18n.words, and written as
    the language writes a sentence, ui.i18n.sentence)."""
    words = i18n.words(SENTENCE)
    return {"pair": CHOSEN_PAIR, "row": LAST_ROW, "keys": LAST_ROW + 1,
            "sentence": i18n.sentence(words),
            "shuffled": i18n.sentence([words[t] for t in _ORDER]), "word": words[0]}


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


# ----------------------------------------------------------------- the pictures ----
# Each draws the figure its page draws when opened with the step's link: the step's values,
# every other control of that page at its default (pages/<page>.py), through that page's
# own view. tests/test_page_tour.py compares the two figure by figure.
def _lesson(p: dict) -> tuple[int, float, str]:
    """Head dim, base and layout: the step's values, else the sidebar's defaults."""
    return (int(p.get("dim", ui.DEFAULTS["dim"])), float(p.get("base", ui.DEFAULTS["base"])),
            p.get("layout", ui.DEFAULTS["layout"]))


def _outputs(p: dict, device: str) -> ui.Frozen:
    dim, base, layout = _lesson(p)
    return outputs_figure(p["why_sentence"], dim, base, layout, int(p["why_seed"]))


def _similarity(p: dict, device: str) -> ui.Frozen:
    # the page draws the first MAX_SIMILARITY = 128 positions of its P
    return similarity_figure(min(int(p["sin_positions"]), 128), int(p["sin_dmodel"]),
                             float(p["base"]), device)


def _identity(p: dict, device: str) -> ui.Frozen:
    return identity_figure(*_lesson(p), device)


def _rotation(p: dict, device: str) -> ui.Frozen:
    dim, base, _layout = _lesson(p)
    pair = min(int(p["rot_i"]), dim // 2 - 1)
    frames = 60  # the page's defaults: 60 frames, q = (1, 0.3), k = (0.6, 0.9), m₀ = 0, n₀ = 10
    step = rc.positions_per_frame(float(rc.theta(dim, base)[pair]), frames)
    return rotation_figure((1.0, 0.3), (0.6, 0.9), pair, dim, base, "advance", 0, 10, step,
                           frames)


def _matrix(p: dict, device: str) -> ui.Frozen:
    _dim, base, layout = _lesson(p)
    return matrix_figure(parse_vector(p["step_q"]), int(p["step_m"]), base, layout)


def _wavelengths(p: dict, device: str) -> ui.Frozen:
    dim, base, _layout = _lesson(p)
    bases = tuple(dict.fromkeys([base] + ([float(p["compare"])] if "compare" in p else [])))
    # the page's defaults: L = 4,096 tokens, no scaling (its factor 4 unused)
    return wavelength_figure(dim, bases, int(p.get("L", 4096)), "none", 4, device)


def _weights(p: dict, device: str) -> ui.Frozen:
    dim, base, layout = _lesson(p)
    return weights_figure(int(p["att_seq"]), int(p["att_seed"]), p["att_same"] == "true",
                          p["att_causal"] == "true", dim, base, layout, device)


def _bound(p: dict, device: str) -> ui.Frozen:
    dim, base, _layout = _lesson(p)
    return bound_figure(((base, dim),), int(p["decay_max"]), p["decay_axis"], device)


def _cos_sum(p: dict, device: str) -> ui.Frozen:
    dim, base, _layout = _lesson(p)
    return bm_figure(dim, base, int(p["lc_bmax"]))


def _spacing(p: dict, device: str) -> ui.Frozen:
    # the page's default: all three dtypes
    return spacing_figure(int(p["pr_max"]), ("float32", "float16", "bfloat16"))


def _ratios(p: dict, device: str) -> ui.Frozen:
    # the page's "sidebar settings" model: the sidebar's base, head dim and layout, L and s
    dim, base, layout = _lesson(p)
    context = int(p["ce_L"])
    config = rc.RopeConfig(name=CUSTOM, head_dim=dim, rotary_dim=dim, base=base,
                           layout=layout, original_context=context, max_context=context)
    return ratio_figure(compare.config_key(config), float(p["ce_s"]))


STEPS: tuple[Step, ...] = (
    Step(
        title=N_("Attention alone cannot tell word orders apart"), page="overview",
        params={**SIDEBAR, "why_sentence": SENTENCE, "why_seed": "0"},
        figure=_outputs, shows="why_outputs",
        alt=N_("Four heatmaps of one attention head's outputs, one row per word: “{sentence}” "
               "on the left, “{shuffled}” on the right; without positions above, with RoPE "
               "below."),
        look=N_("Each heatmap is one attention head's output: a row per word, a column per "
                "coordinate. On the left the head reads “{sentence}”, on the right the same "
                "words as “{shuffled}”. In the top pair, where the head has no positions, "
                "find the row of “{word}” on both sides."),
        prompt=N_("Without position information the head reads “{shuffled}” instead of "
                  "“{sentence}”. What happens to the output for “{word}”?"),
        choices=(N_("It is the same vector, only in another row"), N_("It changes a little"),
                 N_("It changes completely")),
        answer=lambda p: tour.shuffle_gaps(p["why_sentence"], int(p["dim"]), float(p["base"]),
                                           p["layout"], int(p["why_seed"])),
        verdict=lambda r: _bin(r["none"], (1e-9, 0.1)),
        reveal=lambda r: _("Without positions, max |out(P x) − P out(x)| = {none}: rounding "
                           "only, so every output row just moves with its token. With RoPE on "
                           "q and k the same gap is {rope}: the order now matters.").format(
            none=f"{r['none']:.1e}", rope=f"{r['rope']:.3g}"),
        takeaway=N_("Without positions, attention reads a sentence as a bag of words: shuffle "
                    "the words and each output just moves with its word.")),
    Step(
        title=N_("The sinusoidal table compared with itself"), page="sinusoidal",
        params={"base": "10000", "sin_positions": "512", "sin_dmodel": "128"},
        figure=_similarity, shows="sin_similarity",
        alt=N_("Heatmap of PE_m · PE_n for positions 0 to 127: brightest along the diagonal, "
               "where a position meets itself."),
        look=N_("The original Transformer adds a row PE_m of sines and cosines to the token at "
                "position m. This heatmap compares every row with every other: the dot "
                "product PE_m · PE_n. Follow the bright diagonal, where a position meets "
                "itself."),
        prompt=N_("For d_model = 128, what is PE_m · PE_m?"),
        choices=("1", "64", "128", N_("It grows with m")),
        answer=lambda p: {m: tour.self_similarity(int(p["sin_dmodel"]), float(p["base"]), m)
                          for m in (0, 100, int(p["sin_positions"]) - 1)},
        verdict=lambda r: (3 if len({round(v, 9) for v in r.values()}) > 1 else
                           {1.0: 0, 64.0: 1, 128.0: 2}.get(round(next(iter(r.values())), 9), 3)),
        reveal=_self_similarity,
        takeaway=N_("Every row of the sinusoidal table has the same length: each (sin, cos) "
                    "pair adds sin² + cos² = 1.")),
    Step(
        title=N_("The relative property"), page="derivation",
        params={**SIDEBAR, "der_i": "8", "der_m": "5", "der_n": "2", "der_shift": "100"},
        figure=_identity, shows="derivation_heatmap",
        alt=N_("Heatmap of the score of a rotated query at position m (rows) and a rotated "
               "key at position n (columns); each diagonal has one colour."),
        look=N_("Each cell is the score of one query rotated to position m (its row) and one "
                "key rotated to position n (its column). Follow a diagonal: along it both "
                "positions move by the same amount."),
        prompt=N_("Move the query and the key both 100 positions further. The score "
                  "⟨R_m q, R_n k⟩ …"),
        choices=(N_("stays the same"), N_("grows"), N_("shrinks")),
        answer=lambda p: tour.shift_scores(int(p["dim"]), float(p["base"]), p["layout"],
                                           int(p["der_m"]), int(p["der_n"]),
                                           int(p["der_shift"]), 0),
        verdict=lambda r: 0 if _same(r["score"], r["shifted"]) else (
            1 if r["shifted"] > r["score"] else 2),
        reveal=lambda r: _("For one random q and k: {score} at (5, 2) and {shifted} at "
                           "(105, 102), a difference of {gap}. R_mᵀ R_n = R_(n−m): only n − m "
                           "is left.").format(
            score=f"{r['score']:.10f}", shifted=f"{r['shifted']:.10f}", gap=f"{r['gap']:.1e}"),
        takeaway=N_("RoPE's score depends only on the distance n − m: move both tokens by the "
                    "same amount and it does not change.")),
    Step(
        title=N_("One pair turning"), page="rotation",
        params={**SIDEBAR, "rot_i": "8", "rot_step": "auto"},
        figure=_rotation, shows="rot_animation",
        alt=N_("Animation of pair 8: the query's and the key's pair as two arrows in their "
               "plane, and below, their dot product against the query position m."),
        look=N_("Top: pair 8 of the query and of the key as two arrows; ▶ Play turns the "
                "query as its position m grows. Below: their dot product against m, which "
                "repeats each time the pair comes round. Read the distance between two peaks."),
        prompt=N_("With base 10⁴ and d = 128, how many tokens does pair i = 8 need for one "
                  "full turn?"),
        choices=(N_("About 6"), N_("About 20"), N_("About 200"), N_("About 10,000")),
        answer=lambda p: {"wavelength": tour.pair_wavelength(int(p["dim"]), float(p["base"]),
                                                             int(p["rot_i"]))},
        verdict=lambda r: _bin(r["wavelength"], (12, 60, 2000)),
        reveal=lambda r: _("λ₈ = 2π·base^(2·8/d) = 2π·10^(4·16/128) = {length} tokens. Pair 0 "
                           "turns every 2π ≈ 6.3 tokens; each later pair is slower.").format(
            length=f"{r['wavelength']:.4g}"),
        takeaway=N_("Pair i turns by θᵢ = base^(−2i/d) per token: pair 0 once every 6.3 "
                    "tokens, each later pair more slowly.")),
    Step(
        title=N_("Rotating a vector by hand"), page="step_by_step",
        params={"base": "10000", "layout": "interleaved", "step_q": "1, 2, 3, 4",
                "step_m": "1000"},
        figure=_matrix, shows="step_matrix_plot",
        alt=N_("Heatmap of the 4 × 4 rotation matrix R_m at m = 1000: two 2 × 2 blocks on the "
               "diagonal, every other entry 0."),
        look=N_("This is the whole rotation R_m that turns q = (1, 2, 3, 4) to position "
                "m = 1000: one 2 × 2 block per pair, cos and sin of that pair's angle, and 0 "
                "everywhere else."),
        prompt=N_("After turning q = (1, 2, 3, 4) to position m = 1000, its length …"),
        choices=(N_("stays the same"), N_("grows with m"), N_("shrinks with m")),
        answer=lambda p: tour.norm_after_rotation([float(v) for v in p["step_q"].split(",")],
                                                  int(p["step_m"]), float(p["base"]),
                                                  p["layout"]),
        verdict=lambda r: 0 if _same(r["before"], r["after"]) else (
            1 if r["after"] > r["before"] else 2),
        reveal=lambda r: _("|q| = {before} and |R_m q| = {after}: R_m turns each pair and "
                           "stretches nothing, so RoPE changes directions, never lengths.").format(
            before=f"{r['before']:.12f}", after=f"{r['after']:.12f}"),
        takeaway=N_("R_m only turns pairs: RoPE changes directions, never lengths.")),
    Step(
        title=N_("A larger base"), page="frequencies",
        params={"base": "10000", "dim": "128", "compare": "500000"},
        figure=_wavelengths, shows="wavelength_plot",
        alt=N_("Line chart, log scale: the wavelength of every pair for base 10⁴ and for base "
               "5·10⁵, with the context L = 4,096 dotted."),
        look=N_("Each line gives every pair's wavelength, the tokens it needs for one full "
                "turn: one line for base 10⁴, one for 5·10⁵. The axis is logarithmic. Find "
                "pair i = {pair} on both lines."),
        prompt=N_("Raise the base from 10⁴ to 5·10⁵ (Llama 2 → Llama 3). What happens to pair "
                  "{pair}'s wavelength?"),
        choices=(N_("It shrinks"), N_("It grows, by less than 5×"), N_("It grows, by 5× to 20×"),
                 N_("It grows 50×, like the base")),
        answer=lambda p: tour.wavelength_ratio(int(p["dim"]), float(p["base"]),
                                               float(p["compare"]), CHOSEN_PAIR),
        verdict=lambda r: _bin(r["ratio"], (1, 5, 20)),
        reveal=lambda r: _("λ₄₀ goes from {before} to {after} tokens: (5·10⁵ / 10⁴)^(2·40/128) "
                           "= 50^0.625 = {ratio}×. Pair i's wavelength grows by "
                           "(base′/base)^(2i/d): not at all for pair 0, almost 50× for the "
                           "last.").format(
            before=i18n.integer(round(r["before"])), after=i18n.integer(round(r["after"])),
            ratio=f"{r['ratio']:.4g}"),
        takeaway=N_("A larger base stretches the slow pairs most: pair i's wavelength grows by "
                    "(base′/base)^(2i/d).")),
    Step(
        title=N_("Which pairs turn within the context"), page="frequencies",
        params={"base": "10000", "dim": "128", "L": "4096"},
        figure=_wavelengths, shows="wavelength_plot",
        alt=N_("Line chart, log scale: the wavelength of every pair for base 10⁴, with the "
               "context L = 4,096 as a dotted line."),
        look=N_("The same wavelengths for base 10⁴ alone, with a dotted line at L = 4,096 "
                "tokens. A pair below the line turns at least once within the context; a "
                "pair above it never completes a turn."),
        prompt=N_("How many of the 64 pairs complete at least one full turn within L = 4,096 "
                  "tokens?"),
        choices=(N_("All 64"), N_("Between 32 and 63"), N_("Between 8 and 31"),
                 N_("Fewer than 8")),
        answer=lambda p: {"pairs": tour.turning_pairs(int(p["dim"]), float(p["base"]),
                                                      int(p["L"])),
                          "of": int(p["dim"]) // 2},
        verdict=lambda r: 0 if r["pairs"] == r["of"] else 3 - _bin(r["pairs"], (8, 32)),
        reveal=lambda r: _("{pairs} of {total} pairs: λᵢ ≤ L exactly when "
                           "i ≤ (d/2)·ln(L/2π)/ln(base). The other {rest} never see the same "
                           "angle twice inside the context.").format(
            pairs=r["pairs"], total=r["of"], rest=r["of"] - r["pairs"]),
        takeaway=N_("Only the pairs whose wavelength is shorter than the context turn within "
                    "it; the slowest never complete a turn.")),
    Step(
        title=N_("Attention without and with RoPE"), page="attention",
        params={**SIDEBAR, "att_seq": "16", "att_seed": "0", "att_same": "true",
                "att_causal": "true"},
        figure=_weights, shows="att_weights",
        alt=N_("Two heatmaps of attention weights, query m by row and key n by column, "
               "without RoPE and with RoPE, on a log colour scale."),
        look=N_("Attention weights, a row per query m and a column per key n: without RoPE on "
                "the left, with RoPE on the right. Every token has the same q and k, and the "
                "causal mask hides the keys after each query. Read the last row, m = {row}."),
        prompt=N_("Every token has the same q and k, with a causal mask and no RoPE. How much "
                  "weight does the last query (m = {row}) give to key 0?"),
        choices=(N_("1/{keys}, like every key it can see"), N_("Almost 0: key 0 is far away"),
                 N_("Almost all of it")),
        answer=lambda p: tour.uniform_weight(int(p["att_seq"]), int(p["dim"]), float(p["base"]),
                                             int(p["att_seed"]), LAST_ROW),
        verdict=lambda r: 0 if _same(r["without"], 1 / (LAST_ROW + 1)) else (
            1 if r["without"] < 0.5 else 2),
        reveal=lambda r: _("{without} = 1/{keys}: equal logits share the weight equally, "
                           "1/(m + 1) per visible key. With RoPE the row ranges from {low} to "
                           "{high}: the distance now matters.").format(
            without=f"{r['without']:.6f}", keys=LAST_ROW + 1, low=f"{r['with_min']:.4f}",
            high=f"{r['with_max']:.4f}"),
        takeaway=N_("Identical tokens without positions share attention equally; with RoPE "
                    "the weights depend on the distance.")),
    Step(
        title=N_("Long-term decay"), page="decay",
        params={**SIDEBAR, "decay_max": "1000000", "decay_axis": "log"},
        figure=_bound, shows="decay_bound_plot",
        alt=N_("Line chart: RoFormer's upper bound on the score against the distance r, on a "
               "log axis out to 10⁶ tokens."),
        look=N_("RoFormer's upper bound on how large a score can be at distance r, on a log "
                "axis out to a million tokens. At r = 0 it is (d/2 + 1)/2 = 32.5. Follow it to "
                "the right edge."),
        prompt=N_("At a distance of 10⁶ tokens, RoFormer's bound is what share of its value at "
                  "r = 0?"),
        choices=(N_("Under 5 %: it decays to about 0"), N_("Between 5 % and 90 %: it levels off"),
                 N_("Over 90 %: it hardly decays")),
        answer=lambda p: tour.far_bound(int(p["dim"]), float(p["base"]), float(p["decay_max"])),
        verdict=lambda r: _bin(r["ratio"], (0.05, 0.9)),
        reveal=lambda r: _("bound(10⁶) = {far}, bound(0) = (d/2 + 1)/2 = {zero}: {share} %. Far "
                           "past the longest wavelength the phases are effectively random and "
                           "the bound scatters around {plateau} instead of reaching 0.").format(
            far=f"{r['far']:.4f}", zero=f"{r['at_zero']:g}", share=f"{100 * r['ratio']:.1f}",
            plateau=f"{r['plateau']:.2f}"),
        takeaway=N_("RoFormer's bound falls at first, then levels off: far away it scatters "
                    "around a plateau instead of reaching 0.")),
    Step(
        title=N_("Where B_m turns negative"), page="long_context",
        params={"base": "10000", "dim": "128", "lc_train": "4096", "lc_bmax": "1048576"},
        figure=_cos_sum, shows="lc_bm_plot",
        alt=N_("Line chart: B_m, the sum of cos(m·θᵢ) over the pairs, against the distance m "
               "up to 2²⁰, its first negative value marked by a dashed line."),
        look=N_("B_m = Σᵢ cos(m·θᵢ) is the score of a query and a key that point the same way, "
                "m tokens apart. The dashed line marks the first m where it drops below 0."),
        prompt=N_("For Llama 2's base 10⁴ and d = 128, where does B_m first turn negative?"),
        choices=(N_("Inside the training context, before 4,096"),
                 N_("Between 4,096 and 65,536"), N_("Beyond 65,536"), N_("Never, up to 10⁶")),
        answer=lambda p: tour.first_negative_sum(int(p["dim"]), float(p["base"]),
                                                 int(p["lc_bmax"])),
        verdict=lambda r: 3 if r["first"] is None else _bin(r["first"], (4096, 65536)),
        reveal=_first_negative,
        takeaway=N_("B_m, the score of two aligned vectors, turns negative at some distance; "
                    "Men et al. 2024 tie the context a base can serve to where it does.")),
    Step(
        title=N_("Positions in bfloat16"), page="precision",
        params={**SIDEBAR, "pr_max": "1000000"},
        figure=_spacing, shows="pr_spacing_plot",
        alt=N_("Step chart, both axes log scale: the spacing between neighbouring positions "
               "that float32, float16 and bfloat16 can hold, against the position."),
        look=N_("The gap between neighbouring positions each dtype can hold, against the "
                "position, both axes logarithmic. A gap of 1 means every integer is held "
                "exactly. Find where bfloat16's staircase first rises above 1."),
        prompt=N_("Up to which position does bfloat16 hold every integer exactly?"),
        choices=("256", "2,048", "65,536", "16,777,216"),
        answer=lambda p: tour.exact_integers("bfloat16", 1001),
        verdict=lambda r: {256: 0, 2048: 1, 65536: 2, 16777216: 3}[r["largest"]],
        reveal=lambda r: _("{largest} = 2⁸: bfloat16 keeps 8 significant bits, so past 256 it "
                           "skips integers; position {position} is held as {held}.").format(
            largest=i18n.integer(r["largest"]), position=i18n.integer(r["position"]),
            held=i18n.integer(r["held"])),
        takeaway=N_("bfloat16 keeps 8 significant bits: past 256 neighbouring positions land "
                    "on the same value.")),
    Step(
        title=N_("Context extension: NTK-aware scaling"), page="context_extension",
        params={**SIDEBAR, "ce_model": "sidebar settings", "ce_L": "4096", "ce_s": "8"},
        figure=_ratios, shows="ce_ratio_plot",
        alt=N_("Line chart, log scale: θ′ᵢ/θᵢ, how much each context-extension method slows "
               "pair i, one line per method."),
        look=N_("How much each context-extension method slows every pair, θ′ᵢ/θᵢ, when a "
                "model with base 10⁴ and d = 128 is stretched from 4,096 tokens by s = 8. A "
                "ratio of 1 keeps the pair; 1/8 slows it eightfold. Find NTK: its static and "
                "dynamic lines lie on top of each other here."),
        prompt=N_("NTK-aware scaling extends L = 4,096 by s = 8 by raising the base. Which pairs "
                  "does it slow down the most?"),
        choices=(N_("The fastest pairs (small i)"), N_("The slowest pairs (large i)"),
                 N_("All pairs equally, by 8×")),
        answer=lambda p: tour.ntk_slowdown(int(p["dim"]), float(p["base"]), float(p["ce_s"])),
        verdict=lambda r: 2 if _same(r["first"], r["last"]) else (
            0 if r["first"] < r["last"] else 1),
        reveal=lambda r: _("θ′/θ = {first} for pair 0 and {last} = 1/s for the last pair: the "
                           "base becomes base·s^(d/(d−2)), so θ′ᵢ/θᵢ = s^(−2i/(d−2)). Local "
                           "order stays sharp while the long wavelengths stretch.").format(
            first=f"{r['first']:.4f}", last=f"{r['last']:.4f}"),
        takeaway=N_("NTK-aware scaling raises the base: the fast pairs, which carry local order, "
                    "stay; the slowest slow down by the full factor s.")),
)
N = len(STEPS)

PARTS: tuple[Part, ...] = (
    Part(N_("Part 1: the basics"),
         N_("Eight steps from attention without positions to RoPE's rotations and what they "
            "do to attention."), 1, 8, ("where_rope_sits", "real_models")),
    Part(N_("Part 2: research level"),
         N_("Four steps on where RoPE breaks: the decay bound, the cosine sum B_m, bfloat16 "
            "and context extension."), 9, N, ("long_context", "context_extension", "serving")),
)


def part_of(number: int) -> int:
    """The index (0, 1) of the part that step ``number`` belongs to."""
    return next(n for n, part in enumerate(PARTS) if part.first <= number <= part.last)


@ui.table
def answer(number: int) -> dict:
    """The live numbers of step ``number`` (1 ... N), from its own settings."""
    step = STEPS[number - 1]
    return step.answer(step.params)


def right_choice(number: int) -> str:
    """The choice (English, a radio value) that the live numbers of step ``number`` make right."""
    step = STEPS[number - 1]
    return step.choices[step.verdict(answer(number))]


def figure(number: int, device: str) -> ui.Frozen:
    """Step ``number``'s picture: its page's figure at the step's settings."""
    step = STEPS[number - 1]
    return step.figure(step.params, device)


def step_link(number: int) -> dict:
    """The arguments of st.page_link for "Open <page> with this step's settings": the one
    place that builds a step's link."""
    step = STEPS[number - 1]
    spec = by_name(step.page)
    return dict(page=spec.file, icon=spec.icon, query_params=tour_query(number, step.params),
                label=_("Open {page} with this step's settings").format(page=_(spec.title)))


def settings_note(number: int) -> str:
    """The link's values as the address carries them: code, the same in both languages."""
    return _("Settings: {values}").format(values=", ".join(
        f"`{k} = {v}`" for k, v in STEPS[number - 1].params.items()))


def where(number: int) -> str:
    """"Step 3 of 12 · Part 1: the basics", for the progress bar."""
    return _("Step {number} of {n}").format(number=number, n=N) + " · " + _(
        PARTS[part_of(number)].title)


def judged(guess: str | None, right: str) -> tuple[str, str]:
    """("success" | "info", the sentence) for a prediction against the live answer."""
    if guess is None:
        return "info", _("No prediction made: try the next one before revealing.")
    if guess == right:
        return "success", _("Your prediction, “{guess}”, was right.").format(guess=say(guess))
    return "info", _("Your prediction was “{guess}”; the live numbers say “{right}”.").format(
        guess=say(guess), right=say(right))


def tally(record: dict, part: int) -> dict:
    """The score of one part from the session's record ({step: the prediction locked in
    when its answer was revealed, None for none}): right, asked (answers revealed), steps."""
    first, last = PARTS[part].first, PARTS[part].last
    done = {n: guess for n, guess in record.items() if first <= n <= last}
    return {"right": sum(guess == right_choice(n) for n, guess in done.items()),
            "asked": len(done), "steps": last - first + 1,
            "blank": sum(guess is None for guess in done.values())}


def score_line(score: dict) -> str:
    """The score in words: right / asked, and what is still open."""
    if not score["asked"]:
        return _("No answer revealed yet in this part.")
    text = ngettext("**{right} of {asked} prediction right** in this part",
                    "**{right} of {asked} predictions right** in this part",
                    score["asked"]).format(right=score["right"], asked=score["asked"])
    notes = []
    if score["blank"]:
        notes.append(ngettext("{n} answer revealed without a prediction",
                              "{n} answers revealed without a prediction",
                              score["blank"]).format(n=score["blank"]))
    open_steps = score["steps"] - score["asked"]
    if open_steps:
        notes.append(ngettext("{n} step not answered yet", "{n} steps not answered yet",
                              open_steps).format(n=open_steps))
    return text + (_(" ({notes}).").format(notes=_(", ").join(notes)) if notes else _("."))


def recap(part: int) -> list[str]:
    """What the part taught: one sentence per step, numbered as the steps."""
    first, last = PARTS[part].first, PARTS[part].last
    return [f"{n}. {say(STEPS[n - 1].takeaway)}" for n in range(first, last + 1)]


def next_links(part: int) -> list[dict]:
    """st.page_link arguments for what to open after the part: the next part's first step,
    then the pages that go further."""
    links = []
    if part + 1 < len(PARTS):
        nxt = PARTS[part + 1]
        spec = by_name("tour")
        links.append(dict(page=spec.file, icon=":material/arrow_forward:",
                          query_params={"tour_step": str(nxt.first)},
                          label=_("Go on with {part}").format(part=_(nxt.title))))
    for name in PARTS[part].next_pages:
        spec = by_name(name)
        links.append(dict(page=spec.file, icon=spec.icon,
                          label=_("{title}: {summary}").format(title=_(spec.title),
                                                               summary=_(spec.summary))))
    return links


def question(number: int) -> str:
    """The question with its choices as boxes to tick, for the printed handout."""
    step = STEPS[number - 1]
    return f"**{say(step.prompt)}**\n\n" + "  \n".join(f"☐ {say(c)}" for c in step.choices)


def handout_title(part: int) -> str:
    return _("RoPE Explorer · guided tour · {part}").format(part=_(PARTS[part].title))


# The slides: the sidebar collapsed (pages/tour.py), text for the back of the room (the
# presentation sheet of ui.css), the main column across the screen, less space above it.
# The picture and the text side by side from 800 px on (the presentation sheet, and the app's
# below 1100 px, stack columns that hold a plot: the same selectors, more specific, win).
_COLUMNS = ('.st-key-tour_slide [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] '
            '[data-testid="stPlotlyChart"])')
SLIDE_CSS = PRESENT_CSS + """
[data-testid="stMainBlockContainer"] { padding-top: 3.5rem; padding-bottom: 2rem; max-width: 100%; }
[data-testid="stMain"] .st-key-tour_screen_only h1 { font-size: 1.3rem; padding: 0; }
[data-testid="stMain"] h2 { font-size: 2.2rem; padding-top: 0.25rem; }
@media (min-width: 800px) {
  COLUMNS { flex-direction: row !important; }
  COLUMNS > [data-testid="stColumn"] { width: auto !important; flex: 3 1 0 !important; }
  COLUMNS > [data-testid="stColumn"]:last-child { flex: 2 1 0 !important; }
}
""".replace("COLUMNS", _COLUMNS)

# The handout: a column as wide as an A4 or Letter page on screen, so that its figures are
# drawn at the width they are printed; in print only the handout itself (no sidebar, header,
# controls or notes for the screen), no figure cut across two sheets.
HANDOUT_CSS = """
@media screen {
  [data-testid="stMainBlockContainer"] { max-width: 760px; }
}
@media print {
  @page { size: auto; margin: 14mm 12mm; }
  [data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
  [data-testid="stHeader"], [data-testid="stToolbar"], [data-testid="stDecoration"],
  [data-testid="stStatusWidget"], .st-key-tour_screen_only, .modebar-container {
    display: none !important;
  }
  [data-testid="stAppViewContainer"], [data-testid="stMain"], .stApp {
    position: static !important; overflow: visible !important; height: auto !important;
  }
  [data-testid="stMainBlockContainer"] { max-width: 100% !important; padding: 0 !important; }
  [class*="st-key-handout_step_"] { break-inside: avoid; page-break-inside: avoid; }
  .st-key-handout_answers { break-before: page; page-break-before: always; }
}
"""
