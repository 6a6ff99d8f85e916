"""The Images and video page's figures (pages/images_video.py) and the cached tables and
sentences that feed them: one query patch's scores over a grid of patches (flattened, 2D
axial RoPE, M-RoPE), the position ids of a mixed sequence of text, an image and a video,
and which pairs each axis reads with their wavelengths."""

import math

import numpy as np
import pandas as pd
import plotly.colors as pc
import torch

import rope_core as rc
import ui
from ui import i18n
from ui.i18n import N_, _, ngettext

SEED = 0  # the random q and k
MERGE = 2  # spatial_merge_size of every Qwen-VL
MODELS = ("qwen2_vl", "qwen3_vl")
MODEL_NAMES = {"qwen2_vl": N_("Qwen2-VL (contiguous)"), "qwen3_vl": N_("Qwen3-VL (interleaved)")}
QK_LABELS = {"ones": N_("q = k = (1, 1, …, 1)"), "random": N_("random q and k")}
SCHEME_TITLES = {"flat": N_("1D: patches flattened row by row"),
                 "axial": N_("2D axial RoPE (a ViT)"),
                 "mrope": N_("M-RoPE, {model}")}
# (the labels are the link values: kept as they were when transformers' rule was the default)
RESUME_LABELS = {"original": N_("Qwen2-VL's release (after the largest id)"),
                 "transformers": N_("transformers (max(h′, w′) after the start)")}
TIME_LABELS = {"qwen2_vl": N_("one id per temporal patch (Qwen2-VL)"),
               "qwen2_5_vl": N_("absolute time (Qwen2.5-VL)")}
AXIS_NAMES = {"t": N_("t (time)"), "h": N_("h (row)"), "w": N_("w (column)")}
AXIS_COLORS = (ui.COLORS[4], ui.COLORS[0], ui.COLORS[2])  # t brown, h blue, w green
KIND_NAMES = {"image": N_("image"), "video": N_("video")}


def model_name(model: str) -> str:
    return _(MODEL_NAMES[model])


# ------------------------------------------------------------- the patch grid ----
def vectors(dim: int, qk: str) -> tuple[torch.Tensor, torch.Tensor]:
    if qk == "ones":
        ones = torch.ones(dim, dtype=torch.float64)
        return ones, ones
    q, k = rc.toy_qk(1, dim, SEED)
    return q[0], k[0]


@ui.table
def grid_table(dim: int, base: float, layout: str, height: int, width: int, row: int,
               col: int, qk: str, model: str) -> pd.DataFrame:
    """The score of the query patch with every patch under the three schemes."""
    q, k = vectors(dim, qk)
    return rc.patch_score_table(q, k, height, width, row, col, base=base, model=model,
                                layout=layout, qk=qk if qk == "ones" else f"random seed {SEED}")


# colorscale="Viridis" as Plotly sends it
VIRIDIS = [[i / (len(pc.sequential.Viridis) - 1), color]
           for i, color in enumerate(pc.sequential.Viridis)]
SCORE_COLUMNS = {"flat": "score flat", "axial": "score axial 2D", "mrope": "score M-RoPE"}


def span_digits(low: float, high: float) -> int:
    """Decimals that tell ``low`` and ``high`` apart (3 to 6): Qwen2-VL's M-RoPE panel
    can span less than 0.001."""
    spread = high - low
    if not spread > 0:
        return 3
    return min(6, max(3, 1 - math.floor(math.log10(spread))))


# Under each panel's heatmap, the colour scale the three panels share, with the range this
# panel's scores take boxed on it: Qwen2-VL's M-RoPE panel, one colour to the eye, is a
# sliver at the scale's end (paper fractions of the plot area: heatmap, strip)
HEATMAP_DOMAIN, STRIP_DOMAIN = [0.36, 1.0], [0.0, 0.08]
STRIP_TITLE_CHARS = 34  # a line of the strip's title in a third of the page at 1400 px


@ui.figure
def grid_figure(dim: int, base: float, layout: str, height: int, width: int, row: int,
                col: int, qk: str, model: str, scheme: str) -> ui.Frozen:
    """One scheme's scores on the grid, divided by |q||k| (1 = aligned, -1 = opposite),
    over the colour scale the three panels share (a strip from the lowest to the highest
    score among them) with this panel's own range boxed. Built as the form Plotly sends
    (``ui.kept_figure``, arrays through ``ui.typed``): Plotly's validation was most of a
    figure's cost."""
    df = grid_table(dim, base, layout, height, width, row, col, qk, model)
    q, k = vectors(dim, qk)
    norm = float(q.norm() * k.norm())
    z = df[SCORE_COLUMNS[scheme]].to_numpy().reshape(height, width) / norm
    every = np.stack([df[c].to_numpy() for c in SCORE_COLUMNS.values()]) / norm  # one scale
    low, high = float(np.nanmin(every)), float(np.nanmax(every))
    top = high if high > low else low + 1e-9
    own_low, own_high = float(np.nanmin(z)), float(np.nanmax(z))
    heatmap = dict(
        type="heatmap", z=ui.typed(z), x=ui.typed(np.arange(width)), y=ui.typed(np.arange(height)),
        colorscale=VIRIDIS, zmin=low, zmax=top, showscale=False,
        hovertemplate=_("row {row}, column {col}<br>score / (|q||k|) = {score}").format(
            row="%{y}", col="%{x}", score="%{z:.3f}") + "<extra></extra>")
    query = dict(type="scatter", x=[col], y=[row], mode="markers", name=_("query patch"),
                 hoverinfo="skip",
                 marker=dict(symbol="x-thin", size=14, line=dict(width=3, color="black")))
    scale = np.linspace(low, top, 129)
    strip = dict(type="heatmap", z=ui.typed(scale[np.newaxis, :]), x=ui.typed(scale),
                 y=[0], colorscale=VIRIDIS, zmin=low, zmax=top, showscale=False,
                 hoverinfo="skip", xaxis="x2", yaxis="y2")
    digits = "0." + "0" * span_digits(own_low, own_high)
    boxed = dict(type="rect", xref="x2", yref="y2", x0=own_low, x1=own_high, y0=-0.5,
                 y1=0.5, line=dict(color="black", width=2.5), fillcolor="rgba(0,0,0,0)")
    title = _(SCHEME_TITLES[scheme]).format(model=model_name(model))
    fig = ui.kept_figure([heatmap, query, strip], title=title, x=_("column [patches]"),
                         y=_("row [patches]"), height=460, shapes=(boxed,), layout=dict(
        xaxis=dict(constrain="domain", anchor="y"),
        yaxis=dict(scaleanchor="x", scaleratio=1, constrain="domain", autorange="reversed",
                   domain=HEATMAP_DOMAIN, anchor="x"),
        xaxis2=dict(anchor="y2", range=[low, top], showline=False, ticks="outside"),
        yaxis2=dict(domain=STRIP_DOMAIN, anchor="x2", range=[-0.5, 0.5], visible=False,
                    fixedrange=True)))
    strip_axis = fig.spec["layout"]["xaxis2"]  # its own title (ui.style gave every x axis x)
    strip_axis["title"]["text"] = ui.figures.wrap_title(
        _("the three panels' colours; boxed: this panel's scores, {low} to {high}").format(
            low=i18n.number(own_low, digits), high=i18n.number(own_high, digits)),
        STRIP_TITLE_CHARS)
    fig.spec["layout"]["yaxis2"]["title"]["text"] = ""
    return fig


@ui.prose
def grid_notes(dim: int, base: float, layout: str, height: int, width: int, row: int,
               col: int, qk: str, model: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The text under the grid, read from the grid tables once per setting and language:
    paragraphs shown at once (where the neighbours sit, a table of their scores, how M-RoPE
    weighs them, the spread of each panel), then the details (what the colours show, the
    time pairs, the vision encoder's own settings)."""
    df = grid_table(dim, base, layout, height, width, row, col, qk, model)
    section = rc.scaled_mrope_section(model, dim)
    sentences = [
        _("The query is the patch at row {row}, column {col} (×). Flattened, the patch below "
          "it is {w} tokens away, as far as the patch {w} places to its right would be, and a "
          "row's last patch sits next to the following row's first. In 2D and in M-RoPE the "
          "patch below is one row away and the patch to the right one column away: the "
          "score depends on the row and column differences only.").format(
              row=row, col=col, w=width)]
    details = []
    q, k = vectors(dim, qk)
    norm = float(q.norm() * k.norm())

    scores = {c: df[c].to_numpy() for c in SCORE_COLUMNS.values()}

    def cell(r: int, c: int) -> dict:  # the table lists the patches row by row
        return {column: values[r * width + c] for column, values in scores.items()}

    def shown(value: float) -> str:
        return "—" if math.isnan(value) else i18n.number(value / norm, "0.000")

    neighbour = row + 1 if row + 1 < height else row - 1
    beside = col + 1 if col + 1 < width else col - 1
    rows = []  # the neighbours' scores / (|q||k|): 1D, 2D, M-RoPE
    if neighbour >= 0:
        vertical = cell(neighbour, col)
        rows.append((_("patch below") if neighbour > row else _("patch above"),
                     *(shown(vertical[c]) for c in ("score flat", "score axial 2D",
                                                    "score M-RoPE"))))
    if beside >= 0:
        horizontal = cell(row, beside)
        rows.append((_("patch to the right") if beside > col else _("patch to the left"),
                     *(shown(horizontal[c]) for c in ("score flat", "score axial 2D",
                                                      "score M-RoPE"))))
    if rows:
        header = (_("neighbour"), _("1D (flattened)"), _("2D"), _("M-RoPE"))
        sentences.append(_("The three panels share one colour scale, from the lowest to the "
                           "highest score among them. The query's neighbours, each score "
                           "divided by |q||k|:") + "\n\n" + "\n".join(
            "| " + " | ".join(cells) + " |"
            for cells in (header, ("---",) * len(header), *rows)))
    else:
        sentences.append(_("The three panels share one colour scale, from the lowest to the "
                           "highest score among them."))
    if qk == "ones" and neighbour >= 0 and beside >= 0 and section[1] and section[2]:
        sentences.append(_("Both neighbours are one id away, and with q = k = (1, 1, …, 1) 2D "
                           "axial RoPE scores them the same, because the row and the column "
                           "turn by the same frequencies. M-RoPE gives the row and the column "
                           "different pairs, so one row down and one column across weigh "
                           "differently: {vertical} against {horizontal}.").format(
                               # six decimals: slow row and column pairs differ far
                               # below the three shown above
                               vertical=i18n.number(vertical["score M-RoPE"] / norm,
                                                    "0.000000"),
                               horizontal=i18n.number(horizontal["score M-RoPE"] / norm,
                                                      "0.000000")))
    if qk == "ones":
        details.append(_("With q = k = (1, 1, …, 1) every pair adds cos(Δ·θᵢ): the colours "
                           "show the distance itself, and the 2D panels are mirror-symmetric about "
                           "the query's row and column (not between rows and columns: M-RoPE "
                           "gives them different pairs)."))
    else:
        details.append(_("With random q and k the pattern is less regular, but it still "
                         "depends only on the differences of the ids."))
    if model == "qwen2_vl" and section[1] and dim % 4 == 0:
        spread = {c: float(np.nanmax(scores[c]) - np.nanmin(scores[c])) / norm
                  for c in ("score axial 2D", "score M-RoPE")}
    if model == "qwen2_vl" and section[1] and dim % 4 == 0 \
            and spread["score M-RoPE"] < spread["score axial 2D"]:
        # only when it is narrower: random q and k with a small base can spread it wider
        every = np.concatenate([scores[c] for c in SCORE_COLUMNS.values()]) / norm
        shared = float(np.nanmax(every) - np.nanmin(every))  # the panels' one colour scale
        interleaved = grid_table(dim, base, layout, height, width, row, col, qk,
                                 "qwen3_vl")["score M-RoPE"].to_numpy() / norm
        numbers = dict(mrope=i18n.number(spread["score M-RoPE"], "0.000"),
                       axial=i18n.number(spread["score axial 2D"], "0.000"),
                       three=i18n.number(float(np.nanmax(interleaved) -
                                               np.nanmin(interleaved)), "0.000"),
                       first=section[0])
        if spread["score M-RoPE"] < 0.05 * shared:  # under a twentieth of the colour scale
            sentences.append(_("Across this grid the M-RoPE scores spread over only {mrope} "
                               "against {axial} in 2D, so the M-RoPE panel is almost one "
                               "colour: Qwen2-VL gives the row and the column only slow pairs "
                               "(from pair {first} on), which barely turn over a few rows or "
                               "columns. That is what Qwen3-VL's interleaving changes: giving "
                               "each axis fast pairs too, its split spreads the same grid over "
                               "{three} (see “Which pairs encode which axis” below).").format(
                                   **numbers))
        else:
            sentences.append(_("Across this grid the M-RoPE scores spread over {mrope} against "
                               "{axial} in 2D: Qwen2-VL gives the row and the column only slow "
                               "pairs (from pair {first} on), while Qwen3-VL's interleaving "
                               "gives each axis fast pairs too and spreads the same grid over "
                               "{three} (see “Which pairs encode which axis” below).").format(
                                   **numbers))
    details.append(_("Inside one image every patch has the same time id, so the {t} time "
                       "pairs of M-RoPE (of {pairs}) turn every patch by the same angle, which "
                       "cancels in the score of two patches: only the {hw} row and column "
                       "pairs tell the patches apart.").format(
                           t=section[0], pairs=dim // 2, hw=section[1] + section[2]))
    details.append(_("The 2D panel uses the sidebar's base and head dim. Qwen2-VL's vision "
                       "encoder itself uses base 10⁴ and head dim 80 (1280 / 16 heads: 20 "
                       "frequencies for the row, the same 20 for the column), and it counts "
                       "the 14-pixel patches before the 2 × 2 merge; the language model's "
                       "M-RoPE counts merged tokens, so one of its rows is two rows of the "
                       "vision encoder."))
    return tuple(sentences), tuple(details)


# --------------------------------------------------------- the mixed sequence ----
def segments_of(text: int, image_h: int, image_w: int, video_t: int, video_h: int,
                video_w: int) -> list:
    return [("text", text), ("image", (1, image_h, image_w)), ("text", text),
            ("video", (video_t, video_h, video_w)), ("text", text)]


@ui.table
def sequence_tables(text: int, image_h: int, image_w: int, video_t: int, video_h: int,
                    video_w: int, resume: str, time: str, tps: int, seconds: float) -> dict:
    """{"tokens": the (t, h, w) ids of every token, "blocks": one row per segment}."""
    segments = segments_of(text, image_h, image_w, video_t, video_h, video_w)
    kwargs = dict(spatial_merge_size=MERGE, resume=resume,
                  tokens_per_second=tps if time == "qwen2_5_vl" else None,
                  second_per_grid_t=seconds)
    ids = rc.mrope_position_ids(segments, **kwargs)
    blocks = rc.mrope_blocks(segments, **kwargs)
    settings = dict(spatial_merge_size=MERGE, resume=resume, time=time,
                    tokens_per_second=tps if time == "qwen2_5_vl" else None,
                    second_per_grid_t=seconds if time == "qwen2_5_vl" else None)
    segment = np.repeat(blocks["segment"].to_numpy(), blocks["tokens"].to_numpy())
    tokens = rc.to_frame({"token": torch.arange(ids.shape[1]), "segment": segment,
                          "kind": blocks["kind"].to_numpy()[segment],
                          "t id": ids[0], "h id": ids[1], "w id": ids[2]}, **settings)
    lead = pd.DataFrame({k: [v] * len(blocks) for k, v in settings.items()})
    return {"tokens": tokens, "blocks": pd.concat([lead, blocks], axis=1)}


@ui.figure
def ids_figure(text: int, image_h: int, image_w: int, video_t: int, video_h: int,
               video_w: int, resume: str, time: str, tps: int, seconds: float) -> ui.Frozen:
    """The t, h and w ids over the tokens, three rows; vision blocks shaded, a dotted
    line where the text resumes, the first generated token marked (×). Built as the form
    Plotly sends."""
    tables = sequence_tables(text, image_h, image_w, video_t, video_h, video_w, resume, time,
                             tps, seconds)
    tokens, blocks = tables["tokens"], tables["blocks"]
    x = tokens["token"].to_numpy()
    mode = "lines+markers" if len(x) <= 400 else "lines"
    axis_of = {"t": "y3", "h": "y2", "w": "y"}
    traces = [dict(type="scatter", x=ui.typed(x), y=ui.typed(tokens[f"{axis} id"].to_numpy()),
                   yaxis=axis_of[axis],
                   mode=mode, name=_(AXIS_NAMES[axis]),
                   line=dict(color=AXIS_COLORS[a], width=2), marker=dict(size=4),
                   hovertemplate=_("token {token}<br>{axis} id = {value}").format(
                       token="%{x}", axis=axis, value="%{y}") + "<extra></extra>")
              for a, axis in enumerate(rc.AXES)]
    # the first generated token: transformers continues from the prompt's largest id + 1
    # (rope_deltas), the same id on all three axes
    generated = int(tokens[["t id", "h id", "w id"]].to_numpy().max()) + 1
    traces += [dict(type="scatter", x=[len(x)], y=[generated], yaxis=axis_of[axis],
                    mode="markers", name=_("first generated token"), legendgroup="generated",
                    showlegend=axis == "t",
                    marker=dict(symbol="x", size=9, color="black"),
                    hovertemplate=_("first generated token<br>{axis} id = {value}").format(
                        axis=axis, value="%{y}") + "<extra></extra>")
               for axis in rc.AXES]
    shapes, notes = [], []
    for first, count, kind, segment in zip(blocks["first token"].tolist(),
                                           blocks["tokens"].tolist(), blocks["kind"].tolist(),
                                           blocks["segment"].tolist()):
        start, end = first - 0.5, first + count - 0.5
        if kind == "text":
            if segment > 0:  # where the text resumes after a vision block
                shapes.append(dict(type="line", x0=start + 0.5, x1=start + 0.5, y0=0, y1=1,
                                   xref="x", yref="paper", line=dict(color="#444", dash="dot")))
            continue
        kind_name = KIND_NAMES[kind]
        shapes.append(dict(type="rect", x0=start, x1=end, y0=0, y1=1, xref="x", yref="paper",
                           fillcolor="#8c8c8c", opacity=0.15, line=dict(width=0),
                           layer="below"))
        notes.append(dict(x=start, y=1, xref="x", yref="paper", xanchor="left",
                          yanchor="bottom", showarrow=False, text=_(kind_name)))
    fig = ui.kept_figure(traces, title=_("Position ids of text, image, text, video, text"),
                         x=_("token index"), y="", height=560, layout=dict(
        yaxis=dict(domain=[0.0, 0.30]), yaxis2=dict(domain=[0.35, 0.65], anchor="x"),
        yaxis3=dict(domain=[0.70, 1.0], anchor="x"), shapes=shapes, annotations=notes))
    for key, title in (("yaxis", _("w id")), ("yaxis2", _("h id")), ("yaxis3", _("t id"))):
        fig.spec["layout"][key]["title"]["text"] = title  # each row's own (style gave "")
    return fig


# --------------------------------------------------------- pairs and wavelengths ----
@ui.table
def pair_table(dim: int, base: float) -> pd.DataFrame:
    return rc.pair_axes_table(dim, base)


@ui.table
def coverage_table(dim: int, base: float, spans: tuple) -> pd.DataFrame:
    return rc.axis_coverage_table(dim, base, spans)


def model_axes(model: str, dim: int) -> torch.Tensor:
    return rc.mrope_pair_axes(rc.scaled_mrope_section(model, dim),
                              interleaved=rc.MROPE_INTERLEAVED[model])


@ui.figure
def allocation_figure(dim: int) -> ui.Frozen:
    """One strip per model over the pair index, coloured by the axis each pair reads."""
    rows = {"qwen2_vl": 1.5, "qwen3_vl": 0.0}
    bars = []
    for model in MODELS:
        axes = model_axes(model, dim).numpy()
        for a, axis in enumerate(rc.AXES):
            pairs = np.flatnonzero(axes == a)
            bars.append(dict(type="bar", x=ui.typed(pairs), y=ui.typed(np.ones(len(pairs))),
                             base=rows[model],
                             width=1.0, marker=dict(color=AXIS_COLORS[a], line=dict(width=0)),
                             name=_(AXIS_NAMES[axis]), legendgroup=axis,
                             showlegend=model == MODELS[0],
                             hovertemplate=_("pair {pair}: {axis}").format(
                                 pair="%{x}", axis=axis) + "<extra></extra>"))
    return ui.kept_figure(
        bars, title=_("Which id each pair reads (d = {dim}: {pairs} pairs)").format(
            dim=dim, pairs=dim // 2), x=_("pair index i (θᵢ falls as i grows)"), y="",
        height=320, layout=dict(
            barmode="overlay", bargap=0, xaxis=dict(range=[-0.5, dim // 2 - 0.5]),
            yaxis=dict(tickvals=[rows[m] + 0.5 for m in MODELS],
                       ticktext=[model_name(m).replace(" (", "<br>(") for m in MODELS],
                       range=[-0.15, 2.65], showgrid=False, zeroline=False)))


@ui.figure
def wavelength_figure(dim: int, base: float, model: str, spans: tuple) -> ui.Frozen:
    """λᵢ = 2π/θᵢ of each pair, coloured by its axis, against the largest id distance
    span - 1 of each axis (dotted lines, none where it is 0; annotations on a log axis
    take log10 of the value)."""
    theta = rc.theta(dim, base)
    wave = (2 * math.pi / theta).numpy()
    axes = model_axes(model, dim).numpy()
    points = []
    for a, axis in enumerate(rc.AXES):
        pairs = np.flatnonzero(axes == a)
        points.append(dict(
            type="scatter", x=ui.typed(pairs), y=ui.typed(wave[pairs]), mode="markers",
            name=_(AXIS_NAMES[axis]),
            marker=dict(color=AXIS_COLORS[a], size=6),
            hovertemplate=_("pair {pair} ({axis}): λ = {value} ids").format(
                pair="%{x}", axis=axis, value="%{y:,.1f}") + "<extra></extra>"))
    far = [span - 1 for span in spans]  # the largest id distance along each axis
    drawn = [a for a in range(3) if far[a] >= 1]  # a log axis has no 0
    lines = [dict(type="line", xref="paper", x0=0, x1=1, yref="y", y0=far[a], y1=far[a],
                  line=dict(color=AXIS_COLORS[a], dash="dot", width=2)) for a in drawn]
    # labels at the lower right, where the wavelengths have long left the lines behind
    labels = [dict(x=0.40 + 0.2 * a, xref="paper", xanchor="left", y=math.log10(far[a]),
                   yanchor="bottom", showarrow=False,
                   text=_("{axis}: {distance} apart").format(axis=rc.AXES[a],
                                                             distance=far[a]),
                   font=dict(size=12)) for a in drawn]  # text colour: green text is 3.4:1
    return ui.kept_figure(
        points, title=_("{model}: wavelength of each pair against the largest "
                        "distance along its axis").format(model=model_name(model)),
        x=_("pair index i"), y=_("wavelength λᵢ [ids] (log scale)"), height=440,
        layout=dict(yaxis=dict(type="log", exponentformat="power")),
        shapes=lines, annotations=labels)


@ui.table
def sequence_summary(text: int, image_h: int, image_w: int, video_t: int, video_h: int,
                     video_w: int, resume: str, time: str, tps: int, seconds: float) -> dict:
    """What the page quotes from the sequence's tables, read once per setting: segments
    1 … 4 (image, text, video, text), each as {column: value}, the number of time ids the
    video spans, the first generated token's id (the prompt's largest id + 1) and the
    number of tokens."""
    tables = sequence_tables(text, image_h, image_w, video_t, video_h, video_w, resume, time,
                             tps, seconds)
    tokens, blocks = tables["tokens"], tables["blocks"]
    # read as lists: a pandas row costs ~50 µs
    column = {c: blocks[c].tolist() for c in ("start id", "merged t", "merged h", "merged w",
                                              "largest id", "first token", "tokens")}
    image, after_image, video, after_video = ({c: v[n] for c, v in column.items()}
                                              for n in range(1, 5))
    time_ids = tokens["t id"].to_numpy()[video["first token"]:
                                         video["first token"] + video["tokens"]]
    return dict(image=image, after_image=after_image, video=video, after_video=after_video,
                t_span=int(time_ids.max() - time_ids.min()) + 1,
                generated=int(tokens[["t id", "h id", "w id"]].to_numpy().max()) + 1,
                tokens=len(tokens))


@ui.prose
def sequence_notes(text: int, image_h: int, image_w: int, video_t: int, video_h: int,
                   video_w: int, resume: str, time: str, tps: int,
                   seconds: float) -> tuple[str, tuple[str, ...]]:
    """The text under the position ids, once per setting and language: where each block
    starts (one paragraph), then where the text resumes under the chosen rule, a paragraph
    each."""
    summary = sequence_summary(text, image_h, image_w, video_t, video_h, video_w, resume,
                               time, tps, seconds)
    image, after_image, video, after_video = (
        summary[n] for n in ("image", "after_image", "video", "after_video"))
    vt, vh, vw = int(video["merged t"]), int(video["merged h"]), int(video["merged w"])
    absolute = time == "qwen2_5_vl"
    step = tps * seconds if absolute else 1
    t_span = summary["t_span"]  # the video's time ids
    ids = [
        _("The image starts at id {start}: its {rows} × {cols} tokens take rows {start} … "
          "{last_row} and columns {start} … {last_col}, all at time {start}. The text after "
          "it resumes at id {next}.").format(
              start=int(image["start id"]), rows=int(image["merged h"]),
              cols=int(image["merged w"]),
              last_row=int(image["start id"]) + int(image["merged h"]) - 1,
              last_col=int(image["start id"]) + int(image["merged w"]) - 1,
              next=int(after_image["start id"])),
        _("The video starts at id {start}; its {frames} temporal patches (two frames each) of "
          "{rows} × {cols} tokens get time ids {start} … {last_t}, and the text after it "
          "resumes at id {next}.").format(
              start=int(video["start id"]), frames=vt, rows=vh, cols=vw,
              last_t=int(video["start id"]) + t_span - 1, next=int(after_video["start id"]))]
    sentences = []
    # where transformers 5.3+ resumes after the video, and where generation continues: every
    # release computes rope_deltas = largest id + 1 − prompt length, so the first generated
    # token gets the prompt's largest id + 1 whatever rule laid out the prompt
    side = int(video["start id"]) + max(vh, vw)
    generated = summary["generated"]
    last_text = int(after_video["start id"]), int(after_video["start id"]) + text - 1
    if resume == "transformers" and t_span > max(vh, vw):
        sentences.append(_("**The two rules differ here.** transformers (5.3 and later) "
                           "resumes at the start plus max(h′, w′) = {side}, but the video's "
                           "time ids run up to {last_t}: the text's ids from {next} on fall "
                           "inside the video's time range, so by its time id the text sits "
                           "among the video's later temporal patches although it follows "
                           "them. Qwen2-VL and Qwen2.5-VL were trained with the other rule "
                           "(after the largest id, at {original}; transformers up to 5.2 did "
                           "the same), which never reuses an id.").format(
                               side=max(vh, vw), last_t=int(video["largest id"]),
                               next=int(after_video["start id"]),
                               original=int(video["largest id"]) + 1))
        if generated > last_text[1] + 1:
            jump = generated - last_text[1] - 1
            sentences.append(ngettext(
                "**A jump when generating.** transformers continues generation from the "
                "prompt's largest id + 1 (`rope_deltas`), not from the last text id: the "
                "prompt's last text ids are {first} … {last}, and the first generated token "
                "gets {generated} (×), {jump} id further than the next one.",
                "**A jump when generating.** transformers continues generation from the "
                "prompt's largest id + 1 (`rope_deltas`), not from the last text id: the "
                "prompt's last text ids are {first} … {last}, and the first generated token "
                "gets {generated} (×), {jump} ids further than the next one.", jump).format(
                    first=last_text[0], last=last_text[1], generated=generated, jump=jump))
    elif resume == "original":
        sentences.append(_("This is the rule Qwen2-VL and Qwen2.5-VL were trained with: after "
                           "a vision block the text resumes after the block's largest id (their "
                           "releases' get_rope_index, `llm_pos_ids_list[-1].max() + 1`; "
                           "transformers up to 5.2 did the same), and generation continues "
                           "from the largest id + 1, here {generated} (×). transformers 5.3 "
                           "and later resume at the start plus max(h′, w′) instead, which "
                           "differs when the time ids run further than the grid's side, as "
                           "they soon do with Qwen2.5-VL's absolute time.").format(
                               generated=generated))
        if t_span > max(vh, vw):
            sentences.append(_("Here the rules differ: after the video transformers 5.3 and "
                               "later would resume at {side} instead of {next}.").format(
                                   side=side, next=int(after_video["start id"])))
    else:
        sentences.append(_("Both rules agree here: the largest id of each block is a row or "
                           "column id. Make the video longer than max(h′, w′) = {side} temporal "
                           "patches to see them differ.").format(side=max(vh, vw)))
    if absolute:
        sentences.append(_("Absolute time: temporal patch f gets time id start + ⌊f × {tps} × "
                           "{seconds}⌋, so the time ids step by {step} per temporal patch and "
                           "one id stands for 1/{tps} s, whatever the frame rate.").format(
                               tps=tps, seconds=i18n.number(seconds),
                               step=i18n.number(step)))
        if not float(step).is_integer():
            offsets = [math.floor(f * step) for f in range(vt)]
            shown_offsets = ", ".join(str(v) for v in offsets[:8]) + (", …" if vt > 8 else "")
            sentences.append(_("The step {step} is not a whole number: rounding down gives the "
                               "temporal patches the time ids start + {offsets}, so some "
                               "neighbours share a time id or the gaps differ.").format(
                                   step=i18n.number(step), offsets=shown_offsets))
    return (" " if i18n.lang() != "zh" else "").join(ids), tuple(sentences)


@ui.prose
def coverage_notes(dim: int, base: float, spans: tuple) -> tuple[str, tuple[str, ...]]:
    """The text under the wavelengths, read from the coverage table once per setting and
    language: what the dotted lines are, then how many of each model's row and time pairs
    turn over the sequence's spans."""
    coverage = coverage_table(dim, base, spans)
    # {model: {axis: {column: value}}} (a filtered, re-indexed frame costs ~1 ms)
    by_model = {m: {a: {} for a in rc.AXES} for m in MODELS}
    for c in ("pairs", "fastest wavelength [ids]", "slowest wavelength [ids]",
              "pairs turning at least once"):
        for m, a, value in zip(coverage["model"].tolist(), coverage["axis"].tolist(),
                               coverage[c].tolist()):
            by_model[m][a][c] = value
    two, three = by_model["qwen2_vl"], by_model["qwen3_vl"]
    lines = _("The dotted lines are the largest id distance each axis must cover in this "
               "sequence: {t} between the first and last time id, {h} rows and {w} columns "
               "(an axis with distance 0 gets no line). A pair whose wavelength is at or "
               "below its line turns at least once over that distance (fine detail, but ids "
               "a wavelength apart look alike); a pair far above it barely turns (coarse, "
               "unambiguous order).").format(t=spans[0] - 1, h=spans[1] - 1, w=spans[2] - 1)
    notes = []
    if two["h"]["pairs"] and two["t"]["pairs"]:
        notes.append(_("With base {base}, Qwen2-VL's row pairs start at a wavelength of {h_fast} "
                       "ids, so {h_turn} of its {h_pairs} row pairs turn even once over "
                       "{h_span} rows, while all {t_pairs} time pairs are fast ones (the "
                       "slowest turns every {t_slow} ids). Qwen3-VL's interleaving gives "
                       "{h3_turn} of its {h3_pairs} row pairs at least one turn.").format(
                           base=ui.fmt_base(base),
                           h_fast=i18n.number(two["h"]["fastest wavelength [ids]"], "#,##0.#"),
                           h_turn=int(two["h"]["pairs turning at least once"]),
                           h_pairs=int(two["h"]["pairs"]), h_span=spans[1] - 1,
                           t_pairs=int(two["t"]["pairs"]),
                           t_slow=i18n.number(two["t"]["slowest wavelength [ids]"],
                                              "#,##0.#"),
                           h3_turn=int(three["h"]["pairs turning at least once"]),
                           h3_pairs=int(three["h"]["pairs"])))
    if dim < 16:
        notes.append(_("With only {pairs} pairs some axes get one pair or none: an axis "
                       "without pairs cannot be told apart at all.").format(pairs=dim // 2))
    notes.append(_("Qwen2-VL and Qwen2.5-VL use base 10⁶, Qwen3-VL 5·10⁶, all with d = 128: "
                   "set them in the sidebar to see the models' own numbers."))
    return lines, tuple(notes)
