"""Why positions: attention alone cannot tell "dog bites man" from "man bites dog"."""


import numpy as np
import streamlit as st

import rope_core.teaching.lesson as lesson
import ui
from ui import i18n
from ui.i18n import N_, _
from ui.navigation import PageSpec, by_name, sections

SENTENCES = list(lesson.TOY_SENTENCES)
# The toy sentences are data (rope_core.teaching.lesson) and link values (?why_sentence=);
# each is also a message whose translation names the same words in the visitor's
# language, one for each English word, so that the shuffle moves the same roles.
# Translators: keep exactly one space-separated word per English word, in the same order.
SENTENCE_MESSAGES = (N_("dog bites man"), N_("the cat chased the mouse"),
                     N_("alice gave bob a book"))
SHOWN = 16  # output coordinates drawn per token
MAX_SEED = 1000


@ui.table
def projections(sentence: str, dim: int, seed: int) -> tuple:
    """q, k, v of the sentence and of its shuffle (lesson.shuffle_projections): the random
    d × d projections drawn once per sentence, head dim and seed, not again when only the
    base or the layout changes (a few hundred kB at d = 1024, where the draw takes
    ~15 ms)."""
    words, order = lesson.TOY_SENTENCES[sentence]
    return lesson.shuffle_projections(words, order, dim, seed)


@ui.table
def shuffle(sentence: str, dim: int, base: float, layout: str, seed: int):
    """Outputs of one head for a sentence and its shuffle (lesson.shuffle_tables)."""
    words, order = lesson.TOY_SENTENCES[sentence]
    return lesson.shuffle_tables(words, order, dim, base, layout, seed,
                                 projections(sentence, dim, seed))


@ui.table
def gaps(sentence: str, dim: int, base: float, layout: str, seed: int) -> dict:
    """max |out(P x) − P out(x)| per encoding (the shuffle's summary), once per setting."""
    summary = shuffle(sentence, dim, base, layout, seed)["summary"]
    return dict(zip(summary["encoding"], summary["max |out(P x) - P out(x)|"]))


def shuffled_words(sentence: str) -> tuple[list[str], list[str]]:
    """The sentence's words, in the run's language, and the same words in its
    shuffle's order."""
    words = i18n.words(sentence)
    order = lesson.TOY_SENTENCES[sentence][1]
    return words, [words[t] for t in order]


@ui.figure
def outputs_figure(sentence: str, dim: int, base: float, layout: str, seed: int) -> ui.Frozen:
    """Four heatmaps: outputs of the sentence and its shuffle, without and with RoPE."""
    out = shuffle(sentence, dim, base, layout, seed)["outputs"]
    words, moved = shuffled_words(sentence)
    seq, shown = len(words), min(SHOWN, dim)
    fig = ui.sketch(rows=2, cols=2, shared_xaxes=True, vertical_spacing=0.24,
                    horizontal_spacing=0.08,
                    subplot_titles=(
                        _("no positions:<br>“{sentence}”").format(sentence=" ".join(words)),
                        _("no positions:<br>“{sentence}”").format(sentence=" ".join(moved)),
                        _("RoPE:<br>“{sentence}”").format(sentence=" ".join(words)),
                        _("RoPE:<br>“{sentence}”").format(sentence=" ".join(moved))))
    hover = _("{token}, coordinate {j}<br>{value}").format(
        token="%{y}", j="%{x}", value="%{z:.4f}") + "<extra></extra>"
    # rows in the table's order: encoding, position after the shuffle, coordinate j
    encodings = out["encoding"].to_numpy().reshape(len(lesson.ENCODINGS), seq * dim)[:, 0]
    traces = []
    for row, encoding in enumerate(lesson.ENCODINGS, start=1):
        start = seq * dim * list(encodings).index(encoding)
        block = slice(start, start + seq * dim)
        for col, (value, position) in enumerate(
                (("shuffled out(x)", "position in sentence [tokens]"),
                 ("out(shuffled x)", "position after shuffle [tokens]")), start=1):
            # the left panels: the sentence's own outputs, row t = word t of the sentence
            values = out[value].to_numpy()[block].reshape(seq, dim)
            order = np.argsort(out[position].to_numpy()[block][::dim], kind="stable")
            labels = [f"{w} @{t}" for t, w in enumerate(words if col == 1 else moved)]
            n = 2 * (row - 1) + col
            traces.append(dict(type="heatmap", z=ui.typed(values[order, :shown]),
                               x=list(range(shown)), y=labels, coloraxis="coloraxis",
                               hovertemplate=hover, xaxis=f"x{n if n > 1 else ''}",
                               yaxis=f"y{n if n > 1 else ''}"))
    # The right column's rows are other words (the shuffle's order): its labels on
    # the right, outside the plot, and the colour bar under it; on the left they ran
    # over the left heatmaps at 390 px.
    ui.relayout(fig, dict(coloraxis=dict(colorscale="RdBu", cmid=0, colorbar=dict(
                    title=dict(text=_("output"), side="right"), orientation="h",
                    x=0.5, xanchor="center", y=0, yref="container", yanchor="bottom",
                    len=200, lenmode="pixels", thickness=12)),
                          yaxis2=dict(side="right"), yaxis4=dict(side="right")),
                yaxes=dict(autorange="reversed"),
                annotations=dict(font=dict(size=13)))  # panel titles: 16 px ran together
    ui.style(fig, title=_("Output rows of one head (first {shown} of d = {dim} coordinates)")
             .format(shown=shown, dim=dim),
             x=_("output coordinate j"), y="", height=260 + 90 * seq)
    ui.relayout(fig, dict(margin=dict(t=fig._layout["margin"]["t"] + 40,  # two-line panel titles
                                      b=130, r=70),  # the colour bar; right tick labels
                          xaxis=dict(title=dict(text="")), xaxis2=dict(title=dict(text="")),
                          xaxis3=dict(title=dict(text=_("output coordinate j"))),
                          xaxis4=dict(title=dict(text=_("output coordinate j")))))
    # the template cut as for a figure without traces: every heatmap draws on the colour
    # axis, never with the template's heatmap defaults (colour scale and bar)
    return ui.Frozen(dict(ui.kept([], fig).spec, data=traces))


def link_label(spec: PageSpec) -> str:
    """A page's title and summary, for its link."""
    return _("{title}: {summary}").format(title=_(spec.title), summary=_(spec.summary))


s = ui.settings()
st.title(_("Why attention needs positions"))
st.markdown(_(
    "An attention head compares every token with every other one, but nothing in the "
    "comparison says *where* a token sits. Give it a sentence, then the same words in "
    "another order, and watch what it does."))
st.latex(r"\operatorname{out}(x) = \operatorname{softmax}\!\big(QK^{\top}/\sqrt{d}\big)\,V")
st.latex(r"Q = xW_q^{\top},\ K = xW_k^{\top},\ V = xW_v^{\top}")
c1, c2 = st.columns([2, 1])
sentence = ui.choice(_("Sentence"), SENTENCES, SENTENCES[0], "why_sentence", container=c1,
                     fmt=lambda text: " ".join(i18n.words(text)),
                     help=_("Each sentence comes with the shuffle that swaps who does what."))
seed = ui.number(_("Random seed (word vectors, W_q, W_k, W_v)"), 0, MAX_SEED, 0, "why_seed",
                 container=c2)

with ui.friendly_errors():
    shuffle(sentence, s.dim, s.base, s.layout, seed)
gap = gaps(sentence, s.dim, s.base, s.layout, seed)
words, moved = shuffled_words(sentence)
shuffled = " ".join(moved)

ui.show(outputs_figure(sentence, s.dim, s.base, s.layout, seed), key="why_outputs",
        alt=_("Four heatmaps: the attention outputs of the sentence and of its shuffled words, "
              "without and with RoPE, one row per word and one column per coordinate. Without RoPE "
              "the shuffled sentence gives the same rows in another order; with RoPE the rows "
              "change."), table=_("output table"))

gaps_row = ui.row()
gaps_row.metric(_("No positions: max |out(P x) − P out(x)|"), f"{gap['none']:.1e}")
gaps_row.metric(_("RoPE: max |out(P x) − P out(x)|"), f"{gap['rope']:.2g}")
st.latex(r"\operatorname{out}(Px) = P\,\operatorname{out}(x)")
st.caption(_("P moves the tokens: (Px)ₜ is the word the shuffle puts at position t."))
first = moved[0]
ui.explain(_(
    "**Without positions, “{first}” gets the same output in both sentences**, only in "
    "another row: shuffling the tokens shuffles the output rows and changes nothing else. "
    "The largest difference between out(P x) and P out(x) here is {none}, "
    "float64 rounding. So to the head “{sentence}” and “{shuffled}” are the same bag of "
    "words. With RoPE on q and k the same comparison differs by up to {rope}: "
    "the outputs now depend on the order. (A causal mask also breaks the symmetry, since "
    "each token then sees only the ones before it, and causal models trained without any "
    "position encoding do learn positions from it: see the Attention page. RoPE puts the "
    "distance into every score directly.)").format(first=first, none=f"{gap['none']:.1e}",
                                     sentence=" ".join(words),
                                     shuffled=shuffled, rope=f"{gap['rope']:.2g}"))
ui.download(shuffle, sentence, s.dim, s.base, s.layout, seed, part="outputs",
            filename=f"why_positions_{sentence.replace(' ', '_')}_dim{s.dim}_base"
                     f"{ui.slug(s.base)}_{s.layout}_seed{seed}.csv",
            label=_("output table"), key="why")

st.header(_("Two answers"))
sin_spec, rot_spec, der_spec = by_name("sinusoidal"), by_name("rotation"), by_name("derivation")
st.markdown(_(
    "**Add a position vector.** The original Transformer adds a sinusoidal vector p_m to the "
    "token at position m before W_q, W_k and W_v, so the scores mix content and absolute "
    "position."))
st.page_link(sin_spec.file, label=link_label(sin_spec), icon=sin_spec.icon)
st.markdown(_(
    "**Rotate q and k.** RoPE turns the query at position m and the key at position n by "
    "angles proportional to their positions, so their dot product depends on n − m alone."))
st.page_link(der_spec.file, label=link_label(der_spec), icon=der_spec.icon)
st.page_link(rot_spec.file, label=link_label(rot_spec), icon=rot_spec.icon)

st.header(_("The lesson"))
for section, specs in sections().items():
    rest = [spec for spec in specs if not spec.default]
    if rest:
        st.markdown(f"**{_(section)}**")
    for spec in rest:
        st.page_link(spec.file, label=link_label(spec), icon=spec.icon)
