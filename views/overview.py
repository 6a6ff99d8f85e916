"""The Why positions page's figures (pages/overview.py) and the cached tables that feed
them: one head's outputs for a toy sentence and its shuffle, without and with RoPE, what
the shuffle changes in each word's output, RoPE in two minutes (one pair turning), and the
page links' labels."""

import math

import numpy as np
import plotly.colors as pc

import rope_core as rc
import rope_core.teaching.lesson as lesson
import ui
from ui import i18n
from ui.i18n import _
from ui.navigation import PageSpec

SHOWN = 16  # output coordinates drawn per token
# RoPE in two minutes: pair 0, which turns by θ₀ = base⁰ = 1 radian per token whatever the
# base and head dim (so the picture is the same at every setting), a query q and a key k
# pointing the same way (the angle between q′ and k′ is then (n − m)θ₀ itself), at
# positions (m, n) and at both moved SHIFT tokens on.
PAIR_Q, PAIR_K = (1.0, 0.0), (0.8, 0.0)
PAIR_M, PAIR_N, SHIFT = 1, 2, 3
# ColorBrewer's red-blue with a white middle: an unchanged output is blank paper, any change
# shows (Plotly's named "RdBu" is grey in the middle)
CHANGE_SCALE = pc.make_colorscale(pc.diverging.RdBu_r)


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


def moved_word(sentence: str) -> str:
    """The first word that the shuffle moves to another position (in the run's language)."""
    words, order = i18n.words(sentence), lesson.TOY_SENTENCES[sentence][1]
    return next(words[source] for t, source in enumerate(order) if source != t)


def written(sentence: str) -> str:
    """A toy sentence as the run's language writes it ("dog bites man", "狗咬人")."""
    return i18n.sentence(i18n.words(sentence))


@ui.figure
def outputs_figure(sentence: str, dim: int, base: float, layout: str, seed: int) -> ui.Frozen:
    """Four heatmaps: outputs of the sentence and its shuffle, without and with RoPE."""
    out = shuffle(sentence, dim, base, layout, seed)["outputs"]
    words, moved = shuffled_words(sentence)
    seq, shown = len(words), min(SHOWN, dim)
    fig = ui.sketch(rows=2, cols=2, shared_xaxes=True, vertical_spacing=0.24,
                    horizontal_spacing=0.08,
                    subplot_titles=(
                        _("no positions:<br>“{sentence}”").format(sentence=i18n.sentence(words)),
                        _("no positions:<br>“{sentence}”").format(sentence=i18n.sentence(moved)),
                        _("RoPE:<br>“{sentence}”").format(sentence=i18n.sentence(words)),
                        _("RoPE:<br>“{sentence}”").format(sentence=i18n.sentence(moved))))
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


@ui.table
def changes(sentence: str, dim: int, base: float, layout: str, seed: int) -> dict:
    """What the shuffle changes in each word's output: out(P x) − P out(x) per encoding,
    (seq, dim), its rows in the sentence's order (row t: word t of the sentence)."""
    out = shuffle(sentence, dim, base, layout, seed)["outputs"]
    seq = len(lesson.TOY_SENTENCES[sentence][0])
    found = {}
    for encoding in lesson.ENCODINGS:
        block = out[out["encoding"] == encoding]
        change = (block["out(shuffled x)"] - block["shuffled out(x)"]).to_numpy()
        rows = np.argsort(block["position in sentence [tokens]"].to_numpy()[::dim], kind="stable")
        found[encoding] = change.reshape(seq, dim)[rows]
    return found


@ui.figure
def change_figure(sentence: str, dim: int, base: float, layout: str, seed: int) -> ui.Frozen:
    """Two heatmaps, no positions and RoPE: the change of each word's output when the
    sentence is shuffled, on a colour scale fitted to the largest change drawn."""
    found = changes(sentence, dim, base, layout, seed)
    words = i18n.words(sentence)
    shown = min(SHOWN, dim)
    reach = max(float(np.abs(found["rope"][:, :shown]).max()), 1e-12)
    fig = ui.sketch(rows=1, cols=2, horizontal_spacing=0.08,
                    subplot_titles=(_("no positions"), _("RoPE")))
    hover = _("{token}, coordinate {j}<br>{value}").format(
        token="%{y}", j="%{x}", value="%{z:.4f}") + "<extra></extra>"
    traces = [dict(type="heatmap", z=ui.typed(found[encoding][:, :shown]), x=list(range(shown)),
                   y=list(words), coloraxis="coloraxis", hovertemplate=hover,
                   xaxis="x" if n == 0 else "x2", yaxis="y" if n == 0 else "y2")
              for n, encoding in enumerate(lesson.ENCODINGS)]
    ticks = [-reach, 0.0, reach]
    ui.relayout(fig, dict(coloraxis=dict(
        colorscale=CHANGE_SCALE, cmin=-reach, cmax=reach, colorbar=dict(
            title=dict(text=_("change"), side="right"), orientation="h", x=0.5,
            xanchor="center", y=0, yref="container", yanchor="bottom", len=200,
            lenmode="pixels", thickness=12, tickvals=ticks,
            ticktext=[i18n.number(t, "0.0#") for t in ticks])),
        yaxis2=dict(showticklabels=False)),
        yaxes=dict(autorange="reversed"), annotations=dict(font=dict(size=13)))
    ui.style(fig, title=_("What the shuffle changes in each word's output, ±{reach}")
             .format(reach=f"{reach:.2g}"), x=_("output coordinate j"), y="",
             height=200 + 40 * len(words))
    ui.relayout(fig, dict(margin=dict(b=120), xaxis2=dict(title=dict(
        text=_("output coordinate j")))))
    return ui.Frozen(dict(ui.kept([], fig).spec, data=traces))


@ui.table
def turning_pair() -> object:
    """RoPE in two minutes: pair 0's q′ = R(mθ₀)q and k′ = R(nθ₀)k at (m, n) and at
    (m + s, n + s) (rope_core.rotation_frames_table, mode "shift", two frames)."""
    return rc.rotation_frames_table(PAIR_Q, PAIR_K, 0, 128, 10_000.0, "shift", PAIR_M, PAIR_N,
                                    SHIFT, 2)


@ui.table
def pair_dots() -> tuple[float, float]:
    """q′·k′ at (m, n) and at (m + s, n + s), the numbers the page quotes."""
    return tuple(float(v) for v in turning_pair()["dot product q'.k'"])


@ui.figure
def two_minutes_figure() -> ui.Frozen:
    """Two planes side by side: q′ and k′ at (m, n) and at both moved SHIFT tokens on, the
    angle (n − m)θ₀ between them drawn as an arc."""
    frames = turning_pair().to_dict("records")
    Q, K, ARC = ui.COLORS[0], ui.COLORS[1], ui.COLORS[2]
    circle = np.linspace(0.0, 2.0 * math.pi, 121)
    titles = [_("m = {m}, n = {n}: q′·k′ = {dot}").format(
        m=int(row["m [tokens]"]), n=int(row["n [tokens]"]),
        dot="{:.3f}".format(row["dot product q'.k'"])) for row in frames]
    fig = ui.sketch(rows=1, cols=2, horizontal_spacing=0.1, subplot_titles=tuple(titles))
    traces, notes = [], []
    for n, row in enumerate(frames):
        axes = dict(xaxis="x" if n == 0 else "x2", yaxis="y" if n == 0 else "y2")
        start, end = row["angle of q m*theta_i [rad]"], row["angle of k n*theta_i [rad]"]
        arc = np.linspace(start, end, 31)
        traces += [
            dict(type="scatter", x=np.cos(circle), y=np.sin(circle), mode="lines",
                 line=dict(color="#bbbbbb", width=1), hoverinfo="skip", showlegend=False,
                 **axes),
            dict(type="scatter", x=0.45 * np.cos(arc), y=0.45 * np.sin(arc), mode="lines",
                 name=_("angle (n − m)θ₀"), line=dict(color=ARC, width=3), legendgroup="arc",
                 showlegend=n == 0, hoverinfo="skip", **axes)]
        for (x, y), name, color in (((row["q'_x"], row["q'_y"]), _("q′ = R(mθ₀) q"), Q),
                                    ((row["k'_x"], row["k'_y"]), _("k′ = R(nθ₀) k"), K)):
            traces.append(dict(type="scatter", x=[0.0, x], y=[0.0, y], name=name,
                               mode="lines+markers", legendgroup=name, showlegend=n == 0,
                               line=dict(color=color, width=5),
                               marker=dict(symbol=["circle", "arrow"], size=[6, 18],
                                           angleref="previous", color=color),
                               hovertemplate=f"{name}: (%{{x:.3f}}, %{{y:.3f}})<extra></extra>",
                               **axes))
        middle = (start + end) / 2
        notes.append(dict(text=_("{angle} rad").format(angle=f"{end - start:g}"),
                          x=0.62 * math.cos(middle), y=0.62 * math.sin(middle),
                          xref=axes["xaxis"], yref=axes["yaxis"], showarrow=False,
                          font=dict(size=14, color="#1f5f4a")))
    ui.style(fig, title=_("Pair 0 turning: move both tokens {shift} on, the angle stays")
             .format(shift=SHIFT), x="", y="", height=360)
    square = dict(range=[-1.2, 1.2], zeroline=True, zerolinecolor="#cccccc", ticks="",
                  showticklabels=False, showgrid=False, showline=False, title=dict(text=""))
    ui.relayout(fig, dict(xaxis=dict(square, constrain="domain"),
                          xaxis2=dict(square, constrain="domain"),
                          yaxis=dict(square, scaleanchor="x", scaleratio=1, constrain="domain"),
                          yaxis2=dict(square, scaleanchor="x2", scaleratio=1,
                                      constrain="domain"),
                          annotations=fig._layout["annotations"] + notes),
                annotations=dict(font=dict(size=13)))
    return ui.kept(traces, fig)


def link_label(spec: PageSpec) -> str:
    """A page's title and summary, for its link."""
    return _("{title}: {summary}").format(title=_(spec.title), summary=_(spec.summary))
