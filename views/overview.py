"""The Why positions page's figure (pages/overview.py) and the cached tables that feed
it: one head's outputs for a toy sentence and its shuffle, without and with RoPE, and the
page links' labels."""

import numpy as np

import rope_core.teaching.lesson as lesson
import ui
from ui import i18n
from ui.i18n import _
from ui.navigation import PageSpec

SHOWN = 16  # output coordinates drawn per token


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
