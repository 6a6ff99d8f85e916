"""The Where RoPE sits page's figures (pages/where_rope_sits.py) and the cached tables,
metrics and sentences that feed them: one attention layer as a diagram, decoding with a
cache of rotated keys, and the two pair layouts with the checkpoint converter's checks."""

import rope_core.teaching.lesson as lesson
import ui
from ui.i18n import N_, _

SEED = 0
N_HEADS = 2  # heads of the toy checkpoint
IN_DIM = 16  # width of the toy model's input x
LAYOUT_SEQ = 6  # tokens of the layout check
DRAWN = 32  # coordinates drawn in the picture of indices
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


def layout_metrics(dim: int, base: float) -> list[tuple[str, str]]:
    """The converter's checks (:func:`layout_checks`) as metrics: (label, value)."""
    value = layout_checks(dim, base)
    return [(_(CHECK_LABELS.get(name, name)), f"{value[name]:.2g}") for name in value]


def converter_note(dim: int, base: float) -> str:
    """The sentence under the converter's checks: converted weights give Meta's scores,
    unconverted ones do not (for d = 2 both layouts pair the same two coordinates)."""
    value = layout_checks(dim, base)
    names = list(value)
    facts = dict(heads=N_HEADS, dim=dim, tokens=LAYOUT_SEQ, converted=f"{value[names[2]]:.1e}",
                 unconverted=f"{value[names[3]]:.2g}")
    if dim == 2:
        return _("On a toy model with {heads} heads of d = {dim} and {tokens} tokens: the "
                 "converted weights give the Meta model's scores up to {converted}, because q "
                 "and k are permuted the same way and a dot product does not care about the "
                 "order of its terms. The half layout on *unconverted* weights differs by up "
                 "to {unconverted} (for d = 2 both layouts pair the same two "
                 "coordinates).").format(**facts)
    return _("On a toy model with {heads} heads of d = {dim} and {tokens} tokens: the converted "
             "weights give the Meta model's scores up to {converted}, because q and k are "
             "permuted the same way and a dot product does not care about the order of its "
             "terms. The half layout on *unconverted* weights differs by up to {unconverted}: "
             "the pairs would mix unrelated coordinates.").format(**facts)
