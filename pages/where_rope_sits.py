"""Where RoPE sits in a model: after W_q and W_k, keys cached rotated, two layouts."""

import streamlit as st

import rope_core.teaching.lesson as lesson
import ui
from ui import i18n
from ui.i18n import N_, _

SEED = 0
N_HEADS = 2  # heads of the toy checkpoint
IN_DIM = 16  # width of the toy model's input x
LAYOUT_SEQ = 6  # tokens of the layout check
DRAWN = 32  # coordinates drawn in the picture of indices
MAX_SEQ = lesson.MAX_SEQ

# the diagram, top to bottom (side by side its boxes overlapped at 390 px; three
# columns one unit apart fit a phone at this font): node -> (x, y, text); edges run
# tail -> head; the texts go through _()
NODES = {
    "x": (0.0, 5.0, N_("x (token)")),
    "wq": (-1.0, 4.0, "W_q"), "wk": (0.0, 4.0, "W_k"), "wv": (1.0, 4.0, "W_v"),
    "rq": (-1.0, 3.0, "RoPE: R_m q"), "rk": (0.0, 3.0, "RoPE: R_n k"),
    "cache": (0.5, 2.0, N_("KV cache<br>R_n k_n, v_n")),
    "att": (-0.25, 1.0, "softmax(qᵀk/√d) v"), "out": (-0.25, 0.0, N_("output")),
}
DIAGRAM_FONT = 13  # px
EDGES = [("x", "wq"), ("x", "wk"), ("x", "wv"), ("wq", "rq"), ("wk", "rk"), ("rk", "cache"),
         ("wv", "cache"), ("rq", "att"), ("cache", "att"), ("att", "out")]
# rope_core.teaching.lesson.layout_tables' checks (the CSV's "check" column, English) as the
# metrics name them, in the run's language
CHECK_LABELS = {
    "max |W_q,half x - (W_q x)[p]| per head": N_("max |W_q,half x - (W_q x)[p]| per head"),
    "max |RoPE_half(q[p]) - RoPE_interleaved(q)[p]|":
        N_("max |RoPE_half(q[p]) - RoPE_interleaved(q)[p]|"),
    "max |scores half (converted) - scores interleaved (Meta)|":
        N_("max |scores half (converted) - scores interleaved (Meta)|"),
    "max |scores half (not converted) - scores interleaved (Meta)|":
        N_("max |scores half (not converted) - scores interleaved (Meta)|"),
}
# the rows of the picture of indices
LAYOUT_ROWS = (N_("pair i, interleaved"), N_("pair i, half"), N_("p_j (moved to j)"))


@ui.table
def cache_tables(dim: int, base: float, layout: str, seq: int):
    """Decoding with a cache of rotated keys (rope_core.teaching.lesson.kv_cache_tables)."""
    return lesson.kv_cache_tables(dim, base, layout, seq, SEED)


@ui.table
def layouts(dim: int, base: float):
    """Pairs per layout, the converter's permutation and its checks (rope_core.teaching.lesson)."""
    return lesson.layout_tables(dim, base, N_HEADS, IN_DIM, LAYOUT_SEQ, SEED)


@ui.table
def cache_gaps(dim: int, base: float, layout: str, seq: int) -> tuple[dict, int]:
    """The largest |score − recomputed| of each way of reading the cache, and how many
    scores there are (cache_tables), once per setting."""
    cache = cache_tables(dim, base, layout, seq)
    summary = cache["summary"]
    return dict(zip(summary["way"], summary["max |score - recomputed|"])), len(cache["scores"])


@ui.table
def layout_checks(dim: int, base: float) -> dict:
    """The converter's checks (layouts) as {check: value}, once per setting."""
    checks = layouts(dim, base)["checks"]
    return dict(zip(checks["check"], checks["value"]))


@ui.figure
def diagram_figure():
    """One attention layer as boxes and arrows; the RoPE boxes in red."""
    # every arrow and box in one list: added one by one, Plotly re-validates the whole
    # list of annotations on each addition (quadratic, most of this page's CPU)
    def half(name: str) -> float:  # half a box's height, in rows
        return 0.36 if "<br>" in NODES[name][2] else 0.26

    arrows = [dict(x=NODES[head][0], y=NODES[head][1] + half(head), ax=NODES[tail][0],
                   ay=NODES[tail][1] - half(tail), xref="x", yref="y", axref="x", ayref="y",
                   showarrow=True, arrowhead=3, arrowwidth=1.6, arrowcolor="#555", text="")
              for tail, head in EDGES]
    boxes = [dict(x=x, y=y, text=_(label), showarrow=False, font=dict(size=DIAGRAM_FONT),
                  bgcolor="#fde0dd" if name in ("rq", "rk") else "#eef3fb",
                  bordercolor=ui.COLORS[1] if name in ("rq", "rk") else ui.COLORS[0],
                  borderwidth=2, borderpad=5)
             for name, (x, y, label) in NODES.items()]
    fig = ui.sketch()
    ui.style(fig, title=_("One attention layer (repeated in every layer): RoPE turns q and k "
                          "only"), x="", y="", height=600)
    ui.relayout(fig, dict(xaxis=dict(visible=False, range=[-1.6, 1.6]),
                          yaxis=dict(visible=False, range=[-0.45, 5.45]),
                          margin=dict(l=10, r=10, b=10)))
    return ui.kept([], fig, annotations=arrows + boxes)


@ui.figure
def cache_figure(dim: int, base: float, layout: str, seq: int):
    """The last query's scores: recomputed, from the cache, and the rotated-again bug."""
    scores = cache_tables(dim, base, layout, seq)["scores"]
    last = scores[scores["t [tokens]"] == seq - 1]
    x = last["n [tokens]"]
    traces = [dict(type="scatter", x=x, y=last["recomputed"], mode="lines",
                   name=_("recomputed from scratch"), line=dict(color=ui.COLORS[0], width=3)),
              dict(type="scatter", x=x, y=last["from cache"], mode="markers",
                   name=_("from the cache of R_n k_n"),
                   marker=dict(color=ui.COLORS[2], size=9, symbol="circle-open")),
              dict(type="scatter", x=x, y=last["cache rotated again"], mode="lines+markers",
                   name=_("bug: cache rotated again by t"),
                   line=dict(color=ui.COLORS[1], dash="dash"))]
    return ui.kept_figure(
        traces, title=_("Scores of the last query (t = {t}) with every cached key").format(
            t=seq - 1),
        x=_("key position n [tokens]"), y=_("score (R_t q_t)ᵀ(R_n k_n)"), height=400)


@ui.figure
def layouts_figure(dim: int, base: float):
    """Which coordinates pair up in each layout, and the permutation p_j."""
    pairs = layouts(dim, base)["pairs"]
    drawn = pairs[pairs["coordinate j"] < DRAWN]
    rows = [_(row) for row in LAYOUT_ROWS]
    z = [drawn["pair i interleaved"].tolist(), drawn["pair i half"].tolist(),
         drawn["pair i half"].tolist()]
    text = [[str(v) for v in drawn["pair i interleaved"]],
            [str(v) for v in drawn["pair i half"]], [str(v) for v in drawn["p_j"]]]
    heatmap = dict(type="heatmap", z=z, x=drawn["coordinate j"].tolist(), y=rows, text=text,
                   texttemplate="%{text}", colorscale=ui.colorscale("Cividis"), xgap=1, ygap=2,
                   colorbar=dict(title=dict(text=_("pair i"))),
                   hovertemplate=_("{row}, coordinate j = {j}: {value}").format(
                       row="%{y}", j="%{x}", value="%{text}") + "<extra></extra>")
    return ui.kept_figure(
        [heatmap], yaxes=dict(autorange="reversed"),
        title=(_("Which coordinates pair up (d = {dim}, first {n} coordinates drawn)")
               if dim > DRAWN else _("Which coordinates pair up (d = {dim})")).format(
                   dim=dim, n=DRAWN),
        x=_("coordinate j"), y="", height=300)


s = ui.settings()
st.title(_("Where RoPE sits in a model"))
st.markdown(_(
    "In every attention layer, each token's vector x is projected to a query, a key and a "
    "value. RoPE acts **after** the projections W_q and W_k, on q and k only; the value v is "
    "never rotated. No position vector is added to x, and every layer rotates its own q "
    "and k again; position still reaches the residual stream through the attention "
    "outputs, whose weights depend on distance."))

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
value = layout_checks(s.dim, s.base)
names = list(value)
cols = st.columns(2)
for col, name in zip(cols * 2, names):
    col.metric(_(CHECK_LABELS.get(name, name)), f"{value[name]:.2g}")
facts = dict(heads=N_HEADS, dim=s.dim, tokens=LAYOUT_SEQ, converted=f"{value[names[2]]:.1e}",
             unconverted=f"{value[names[3]]:.2g}")
ui.explain(
    _("On a toy model with {heads} heads of d = {dim} and {tokens} tokens: the converted "
      "weights give the Meta model's scores up to {converted}, because q and k are permuted "
      "the same way and a dot product does not care about the order of its terms. The half "
      "layout on *unconverted* weights differs by up to {unconverted} (for d = 2 both layouts "
      "pair the same two coordinates).").format(**facts)
    if s.dim == 2 else
    _("On a toy model with {heads} heads of d = {dim} and {tokens} tokens: the converted "
      "weights give the Meta model's scores up to {converted}, because q and k are permuted "
      "the same way and a dot product does not care about the order of its terms. The half "
      "layout on *unconverted* weights differs by up to {unconverted}: the pairs would mix "
      "unrelated coordinates.").format(**facts))
ui.download(layouts, s.dim, s.base, part="pairs",
            filename=f"layout_permutation_dim{s.dim}.csv", label=_("permutation table"),
            key="where_pairs")
ui.download(layouts, s.dim, s.base, part="checks",
            filename=f"layout_checks_dim{s.dim}_base{ui.slug(s.base)}.csv",
            label=_("layout check table"), key="where_checks")
