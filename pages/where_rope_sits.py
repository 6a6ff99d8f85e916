"""Where RoPE sits in a model: after W_q and W_k, keys cached rotated, two layouts."""

import streamlit as st

import rope_core.teaching.lesson as lesson
import ui
from ui import i18n
from ui.i18n import _
from views.where_rope_sits import (
    cache_figure,
    cache_gaps,
    cache_tables,
    converter_note,
    diagram_figure,
    layout_metrics,
    layouts,
    layouts_figure,
)

MAX_SEQ = lesson.MAX_SEQ


s = ui.settings()
ui.intro(
    _("Where RoPE sits in a model"),
    _("In every attention layer, each token's vector x is projected to a query, a key and a "
      "value. RoPE acts **after** the projections W_q and W_k, on q and k only; the value v is "
      "never rotated. No position vector is added to x, and every layer rotates its own q "
      "and k again; position still reaches the residual stream through the attention "
      "outputs, whose weights depend on distance."))
ui.terms("qkv", "score", "kv_cache", "pair", "layout")

ui.show(diagram_figure(), key="where_diagram",
        alt=_("Diagram of one attention layer: x is projected by W_q, W_k and W_v; RoPE rotates "
              "q and k only, then the scores, the softmax and the weighted sum of the values "
              "follow."))

st.header(_("The KV cache stores rotated keys"))
st.markdown(_(
    "When a model generates text, the key of token n is computed once, rotated once at its "
    "own position n, and kept: the cache holds R_n k_n. Later queries are rotated at their "
    "position t and compared with the cache as it is, because"))
st.latex(r"(R_t q_t)^{\top}(R_n k_n) = q_t^{\top} R_{n-t}\, k_n")
seq = ui.slider(_("Tokens generated L [tokens]"), 2, MAX_SEQ, 12, "where_seq")
with ui.friendly_errors():
    cache_tables(s.dim, s.base, s.layout, seq)
gaps, n_scores = cache_gaps(s.dim, s.base, s.layout, seq)
ui.show(cache_figure(s.dim, s.base, s.layout, seq), key="where_cache",
        alt=_("Line chart: the last query's scores with every cached key against the key position "
              "n: recomputed from scratch, from the cache of rotated keys (the same values), and "
              "with the bug of rotating the cache again (different values)."),
        table=_("cache score table"))
gaps_row = ui.row()
gaps_row.metric(_("Cache of R_n k_n: max |score − recomputed|"), f"{gaps['from cache']:.1e}")
gaps_row.metric(_("Cache rotated again: max |score − recomputed|"),
                f"{gaps['cache rotated again']:.2g}")
ui.explain(_(
    "Over all {n} scores of {steps} decoding steps, reading the cache of rotated keys differs "
    "from recomputing everything by at most {cache_gap} (rounding): a key is rotated once, at "
    "its own position, and never again. Rotating the cached keys once more by the current "
    "position t would give qᵀR_n k, which forgets where the query is: that differs by up to "
    "{again_gap}.").format(n=i18n.integer(n_scores), steps=seq,
                           cache_gap=f"{gaps['from cache']:.1e}",
                           again_gap=f"{gaps['cache rotated again']:.2g}"))
ui.download(cache_tables, s.dim, s.base, s.layout, seq, part="scores",
            filename=f"kv_cache_dim{s.dim}_base{ui.slug(s.base)}_{s.layout}_L{seq}.csv",
            label=_("cache score table"), key="where_cache")

st.header(_("Two layouts, one rotation"))
st.markdown(_(
    "Meta's Llama code pairs coordinates (2i, 2i + 1) (`interleaved`); Hugging Face and "
    "GPT-NeoX pair (i, i + d/2) (`half`). They are the same rotation once the coordinates are "
    "permuted: coordinate j of the half layout is coordinate p_j of the interleaved one."))
st.latex(r"p_{c\,d/2 + i} = 2i + c,\qquad c \in \{0, 1\}")
with ui.friendly_errors():
    layouts(s.dim, s.base)
ui.show(layouts_figure(s.dim, s.base), key="where_layouts",
        alt=_("Heatmap with the pair index written in each cell: for each coordinate j, the pair it"
              " belongs to in the interleaved layout and in the half layout, and the permutation "
              "p_j between them."), table=_("permutation table"))
ui.explain(_(
    "Equal colours are one pair. In the interleaved row each pair sits side by side; in the "
    "half row pair i uses coordinates i and i + {half}. The bottom row lists p_j, the "
    "interleaved coordinate moved to j: its colour matches the half row, so after the "
    "permutation the pairs line up.").format(half=s.dim // 2))

st.markdown(_(
    "A checkpoint converter applies this permutation once, to the rows of W_q and W_k of "
    "every head (transformers' `convert_llama_weights_to_hf.py`), so that the half layout "
    "gives the scores Meta's model was trained with. W_v and the output projection stay "
    "as they are."))
st.code("def permute(w, n_heads, dim1, dim2):\n"
        "    return w.view(n_heads, dim1 // n_heads // 2, 2, dim2)"
        ".transpose(1, 2).reshape(dim1, dim2)", language="python",
        wrap_lines=True)  # on a phone a box that scrolls sideways is out of the keyboard's reach
cols = st.columns(2)
for col, (label, value) in zip(cols * 2, layout_metrics(s.dim, s.base)):
    col.metric(label, value)
ui.explain(converter_note(s.dim, s.base))
ui.download(layouts, s.dim, s.base, part="pairs",
            filename=f"layout_permutation_dim{s.dim}.csv", label=_("permutation table"),
            key="where_pairs")
ui.download(layouts, s.dim, s.base, part="checks",
            filename=f"layout_checks_dim{s.dim}_base{ui.slug(s.base)}.csv",
            label=_("layout check table"), key="where_checks")
