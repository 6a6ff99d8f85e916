"""Why positions: attention alone cannot tell "dog bites man" from "man bites dog"."""


import streamlit as st

import rope_core.teaching.lesson as lesson
import ui
from ui import i18n
from ui.i18n import N_, _
from ui.navigation import by_name, sections
from views.overview import gaps, link_label, outputs_figure, shuffle, shuffled_words

SENTENCES = list(lesson.TOY_SENTENCES)
# The toy sentences are data (rope_core.teaching.lesson) and link values (?why_sentence=);
# each is also a message whose translation names the same words in the visitor's
# language, one for each English word, so that the shuffle moves the same roles.
# Translators: keep exactly one space-separated word per English word, in the same order.
SENTENCE_MESSAGES = (N_("dog bites man"), N_("the cat chased the mouse"),
                     N_("alice gave bob a book"))
MAX_SEED = 1000


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
