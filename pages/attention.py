"""Attention: logits and softmax weights of a toy head, without and with RoPE."""

import streamlit as st

import ui
from ui.i18n import _
from views.attention import (
    attention_checks,
    attention_table,
    logits_figure,
    lowest_weight,
    mask_note,
    pattern_notes,
    row_sum_note,
    weights_figure,
)

s = ui.settings()
ui.intro(
    _("Attention with and without RoPE"),
    _("One attention head on a toy sequence: token m has a query qₘ and token n a key kₙ "
      "(entries drawn from N(0, 1); at first the same q and k at every position). The logit "
      "of query m for key n is their scaled dot product; softmax along each row turns the "
      "logits into weights. RoPE rotates qₘ by Rₘ and kₙ by Rₙ before the dot product, and "
      "nothing else changes."))
# Translators: a LaTeX formula; translate only the words inside \text{…}.
mask = _(r"\text{causal mask: } \ell_{mn} = -\infty \ \text{ for } n > m "
         r"\quad\Rightarrow\quad a_{mn} = \frac{e^{-\infty}}{\sum_{n'} "
         r"e^{\ell_{mn'}}} = 0\ \text{ exactly}")
# One formula per line (side by side they ran past the right edge at 800 and 390 px); the
# mask on one line, its consequence on the next (both languages keep the arrow)
mask_line, *consequences = mask.split(r"\quad\Rightarrow\quad")
ui.formulas(r"\ell_{mn} = \frac{(R_m q_m)^{\top}(R_n k_n)}{\sqrt{d}} = "
            r"\frac{q_m^{\top} R_{n-m}\, k_n}{\sqrt{d}}",
            r"a_{mn} = \frac{e^{\ell_{mn}}}{\sum_{n'} e^{\ell_{mn'}}}",
            mask_line, *(r"\Rightarrow\ " + consequence for consequence in consequences))
ui.terms("qkv", "score", "softmax", "causal", "bag", "rope", "nope")

c1, c2, c3, c4 = st.columns([3, 2, 3, 2], vertical_alignment="bottom")
seq = ui.slider(_("Sequence length L [tokens]"), 2, 64, 16, "att_seq", container=c1)
seed = ui.number(_("Random seed"), 0, 1_000_000, 0, "att_seed", container=c2)
same = ui.toggle(_("every token has the same q and k"), True, "att_same", container=c3,
                 help=_("On: one draw of q and of k repeated at every position, the case that "
                        "shows what RoPE and the mask do on their own. Off: a random q and k "
                        "per token."))
causal = ui.toggle(_("causal mask"), True, "att_causal", container=c4,
                   help=_("Query m may only attend to keys n ≤ m."))

args = (seq, seed, same, causal, s.dim, s.base, s.layout, s.device)
with ui.friendly_errors():
    attention_table(*args)
    checks = attention_checks(*args)

lowest = lowest_weight(*args)
ui.show(logits_figure(seq, seed, same, causal, s.dim, s.base, s.layout, s.device),
        key="att_logits",
        alt=_("Two heatmaps side by side, without and with RoPE: the attention logit of every query"
              " position m (rows) with every key position n (columns), on one colour scale centred "
              "on 0. Without RoPE a row's logits do not depend on where the key sits; with RoPE "
              "they change with the distance between m and n."), table=_("attention table"))
ui.show(weights_figure(seq, seed, same, causal, s.dim, s.base, s.layout, s.device),
        key="att_weights",
        alt=_("Two heatmaps side by side, without and with RoPE: the softmax weight of every query "
              "position m (rows) on every key position n (columns), on a log colour scale; each row"
              " sums to 1."), table=_("attention table"))
st.caption(_("The weight colours are on a log scale from {lowest} to 1, so that the rows 1, "
             "1/2, 1/3, … 1/L of equal weights keep distinct colours; hover for the "
             "value.").format(lowest=f"{10 ** lowest:.2g}"))

st.caption(mask_note(checks, causal))
notes, why = pattern_notes(checks, seq, same, causal)
ui.paragraphs(*notes)
if why:
    with st.expander(_("Do equal weights tell a later layer where a token is?")):
        st.markdown(why)
ui.explain(row_sum_note(checks, args))

tag = "sameqk_" if same else ""
ui.download(
    attention_table, seq, seed, same, causal, s.dim, s.base, s.layout, s.device,
    filename=f"attention_seq{seq}_seed{seed}_dim{s.dim}_base{ui.slug(s.base)}_{s.layout}_"
        f"{tag}{'causal' if causal else 'full'}.csv",
    label=_("attention table"), key="attention")
