"""Why positions: attention alone cannot tell "dog bites man" from "man bites dog"."""


import streamlit as st

import rope_core.teaching.lesson as lesson
import ui
from ui import i18n
from ui.i18n import N_, _
from ui.navigation import by_name, sections
from views.overview import (
    PAIR_M,
    PAIR_N,
    SHIFT,
    change_figure,
    gaps,
    link_label,
    moved_word,
    outputs_figure,
    pair_dots,
    shuffle,
    shuffled_words,
    two_minutes_figure,
    written,
)

SENTENCES = list(lesson.TOY_SENTENCES)
# The toy sentences are data (rope_core.teaching.lesson) and link values (?why_sentence=);
# each is also a message whose translation names the same words in the visitor's
# language, one for each English word, so that the shuffle moves the same roles.
# Translators: keep exactly one space-separated word per English word, in the same order.
SENTENCE_MESSAGES = (N_("dog bites man"), N_("the cat chased the mouse"),
                     N_("alice gave bob a book"))
MAX_SEED = 1000


s = ui.settings()
ui.intro(
    _("Why attention needs positions"),
    _("An attention head compares every token with every other one, but nothing in the "
      "comparison says *where* a token sits. Give it a sentence, then the same words in "
      "another order, and watch what it does."))
st.latex(r"\operatorname{out}(x) = \operatorname{softmax}\!\big(QK^{\top}/\sqrt{d}\big)\,V")
st.latex(r"Q = xW_q^{\top},\ K = xW_k^{\top},\ V = xW_v^{\top}")
c1, c2 = st.columns([2, 1])
sentence = ui.choice(_("Sentence"), SENTENCES, SENTENCES[0], "why_sentence", container=c1,
                     fmt=written,
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

ui.show(change_figure(sentence, s.dim, s.base, s.layout, seed), key="why_changes",
        alt=_("Two heatmaps, without positions and with RoPE: how much each word's output "
              "changes when the sentence is shuffled, one row per word, on a colour scale "
              "fitted to the largest change. Without positions nothing changes; with RoPE "
              "every word's output does."), table=_("output table"))
gaps_row = ui.row()
gaps_row.metric(_("No positions: max |out(P x) − P out(x)|"), f"{gap['none']:.1e}")
gaps_row.metric(_("RoPE: max |out(P x) − P out(x)|"), f"{gap['rope']:.2g}")
st.latex(r"\operatorname{out}(Px) = P\,\operatorname{out}(x)")
st.caption(_("P moves the tokens: (Px)ₜ is the word the shuffle puts at position t."))
first = moved_word(sentence)
ui.explain(_(
    "**Without positions, “{first}” gets the same output in both sentences**, only in "
    "another row: the left panel above stays white, every change is at most {none}, "
    "float64 rounding. To the head, “{sentence}” and “{shuffled}” are the same bag of "
    "words. With RoPE on q and k the outputs change by up to {rope}: now the order "
    "matters.").format(first=first, none=f"{gap['none']:.1e}", sentence=written(sentence),
                       shuffled=i18n.sentence(moved), rope=f"{gap['rope']:.2g}"))
with st.expander(_("A causal mask breaks the symmetry too")):
    st.markdown(_(
        "With a causal mask each token sees only the ones before it, so the shuffle changes "
        "what each word can attend to. Causal models trained without any position encoding "
        "do learn positions from it: see the Attention page. RoPE puts the distance into "
        "every score directly."))
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

st.subheader(_("RoPE in two minutes"))
ui.show(two_minutes_figure(), key="why_two_minutes",
        alt=_("Two circles side by side, each with a query arrow q′ and a key arrow k′ of "
              "pair 0: at positions m = {m}, n = {n} and at both moved {shift} tokens on. Both "
              "arrows have turned further, the angle between them is the same, and so is "
              "their dot product.").format(m=PAIR_M, n=PAIR_N, shift=SHIFT))
ui.explain(_(
    "RoPE turns pair i of the query at position m by the angle m·θᵢ, and the key's at "
    "position n by n·θᵢ. Move both tokens {shift} positions on and both arrows turn further "
    "by the same angle: the angle between them stays (n − m)·θᵢ, and so does their dot "
    "product, {dot} in both pictures. So every score sees the distance n − m, never the "
    "positions themselves.").format(shift=SHIFT, dot=f"{pair_dots()[0]:.3f}"))
st.latex(r"q'^{\top}k' = (R_m q)^{\top}(R_n k) = q^{\top} R_{n-m}\, k")
st.caption(_("Pair 0 turns by θ₀ = base⁰ = 1 radian per token for every base. Here q and k "
             "point the same way, so the angle between q′ and k′ is (n − m)·θ₀ itself."))
st.page_link(der_spec.file, label=link_label(der_spec), icon=der_spec.icon)
st.page_link(rot_spec.file, label=link_label(rot_spec), icon=rot_spec.icon)

st.header(_("The lesson"))
for section, specs in sections().items():
    rest = [spec for spec in specs if not spec.default]
    if rest:
        st.markdown(f"**{_(section)}**")
    for spec in rest:
        st.page_link(spec.file, label=link_label(spec), icon=spec.icon)
