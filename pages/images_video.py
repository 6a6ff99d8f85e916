"""Images and video: 2D axial RoPE and M-RoPE (Qwen2-VL, Qwen2.5-VL, Qwen3-VL)."""


import streamlit as st

import rope_core as rc
import ui
from ui import i18n
from ui.i18n import _
from views.images_video import (
    MODELS,
    QK_LABELS,
    RESUME_LABELS,
    TIME_LABELS,
    allocation_figure,
    coverage_notes,
    coverage_table,
    grid_figure,
    grid_notes,
    grid_table,
    ids_figure,
    model_name,
    pair_table,
    sequence_notes,
    sequence_summary,
    sequence_tables,
    wavelength_figure,
)

MAX_SIDE = 16  # patches along a side of the patch grid (256 patches at most)
RESUME_OPTIONS = ["original", "transformers"]  # the rule the models were trained with first
TPS_OPTIONS = [1, 2, 4, 8]
SECOND_OPTIONS = [0.25, 0.5, 1.0, 2.0, 4.0]


@st.fragment
def grid_section(s) -> None:
    st.header(_("A grid of patches"))
    ui.paragraphs(
        _("A ViT cuts an image into patches. Flattened row by row into one sequence, patch "
          "(r, c) of a grid w patches wide gets the single position r·w + c, so the patch "
          "directly below is w tokens away."),
        _("2D axial RoPE gives each patch two positions, its row and its column: half the pairs "
          "turn with the row, half with the column, and the patch below is one row away. M-RoPE "
          "(Qwen2-VL) gives every token three ids, time, row and column, and splits the pairs "
          "among them."))
    # Translators: a LaTeX formula; translate only the words inside \text{…}.
    st.latex(_(r"\text{angle}_i = \text{id}_{\text{axis}(i)}\,\theta_i,\qquad "
               r"\text{score} = \sum_i \text{along}_i \cos(\Delta_{\text{axis}(i)}\,\theta_i)"
               r" + \text{across}_i \sin(\Delta_{\text{axis}(i)}\,\theta_i)"))
    c1, c2, c3 = st.columns(3)
    height = ui.slider(_("Grid height [patches]"), 1, MAX_SIDE, 6, "iv_h", container=c1)
    width = ui.slider(_("Grid width [patches]"), 1, MAX_SIDE, 8, "iv_w", container=c1)
    row_asked = ui.slider(_("Query row"), 0, MAX_SIDE - 1, 2, "iv_row", container=c2)
    col_asked = ui.slider(_("Query column"), 0, MAX_SIDE - 1, 3, "iv_col", container=c2)
    qk = ui.choice(_("Query and key vectors"), list(QK_LABELS), "ones", "iv_qk", container=c3,
                   fmt=lambda v: _(QK_LABELS[v]), horizontal=False)
    model = ui.choice(_("M-RoPE split of the pairs"), list(MODELS), "qwen2_vl", "iv_split",
                      container=c3, fmt=model_name, horizontal=False)
    row, col = min(row_asked, height - 1), min(col_asked, width - 1)
    if (row, col) != (row_asked, col_asked):
        st.info(_("The grid has rows 0 … {last_row} and columns 0 … {last_col}: the query is "
                  "the patch at row {row}, column {col}.").format(
                      last_row=height - 1, last_col=width - 1, row=row, col=col),
                icon=":material/info:")
    with ui.friendly_errors():
        grid_table(s.dim, s.base, s.layout, height, width, row, col, qk, model)
    columns = st.columns(3)
    for column, scheme in zip(columns, rc.SCHEMES):
        with column:
            if scheme == "axial" and s.dim % 4:
                ui.warning(_("2D axial RoPE gives half the pairs to the row and half to the "
                             "column, so it needs a head dim d divisible by 4, and d = {dim} "
                             "is not.").format(dim=s.dim))
                continue
            ui.show(grid_figure(s.dim, s.base, s.layout, height, width, row, col, qk, model,
                                scheme), key=f"iv_grid_{scheme}",
                    alt=_("Heatmap over the image's grid of patches (rows and columns): the score "
                          "of the marked query patch with every patch under this scheme, divided by"
                          " |q||k|, from −1 (opposite) to 1 (aligned). Under it, the colour scale "
                          "the three panels share, with the range of this panel's scores boxed."),
                    table=_("score table"))
    shown, details = grid_notes(s.dim, s.base, s.layout, height, width, row, col, qk, model)
    ui.paragraphs(*shown)
    with st.expander(_("More on these panels: what the colours show, the time pairs, the "
                       "vision encoder")):
        ui.explain(*details)
    ui.download(grid_table, s.dim, s.base, s.layout, height, width, row, col, qk, model,
                filename=f"patch_scores_dim{s.dim}_base{ui.slug(s.base)}_{height}x{width}_"
                         f"r{row}c{col}_{qk}_{model}.csv",
                label=_("score table"), key="iv_grid")


@st.fragment
def sequence_section(s) -> None:
    st.header(_("Position ids of a mixed sequence"))
    ui.paragraphs(
        _("Qwen2-VL's language model reads text, then an image, then text, then a video, then "
          "text again. A text token's three ids are equal; a patch gets the block's start id "
          "plus its temporal patch index, row and column."),
        _("Each vision block is a grid of patches (t, h, w) before merging, where t counts "
          "temporal patches of two video frames each (temporal_patch_size = 2; an image is one "
          "temporal patch); the model merges 2 × 2 patches into one token, so an image of "
          "h × w patches becomes h′ × w′ = h/2 × w/2 tokens."))
    st.caption(_("Qwen3-VL writes the time of each temporal patch as text (a timestamp) "
                 "before it and gives every temporal patch t = 1: transformers' Qwen3-VL "
                 "get_rope_index splits video_grid_thw into one grid per temporal patch and "
                 "applies the same rule to each. The sequence below follows Qwen2-VL and "
                 "Qwen2.5-VL."))
    c1, c2, c3 = st.columns(3)
    text = ui.slider(_("Text tokens between blocks"), 1, 8, 3, "iv_text", container=c1)
    image_h = ui.slider(_("Image height h [patches]"), 2, 32, 8, "iv_img_h", step=2,
                        container=c1)
    image_w = ui.slider(_("Image width w [patches]"), 2, 32, 12, "iv_img_w", step=2,
                        container=c1)
    video_t = ui.slider(_("Video length t [temporal patches]"), 1, 16, 6, "iv_vid_t",
                        container=c2)
    video_h = ui.slider(_("Video height h [patches]"), 2, 16, 4, "iv_vid_h", step=2,
                        container=c2)
    video_w = ui.slider(_("Video width w [patches]"), 2, 16, 6, "iv_vid_w", step=2,
                        container=c2)
    resume = ui.choice(_("Where the text resumes"), RESUME_OPTIONS, "original",
                       "iv_resume", container=c3, fmt=lambda v: _(RESUME_LABELS[v]),
                       horizontal=False,
                       help=_("After a vision block. Qwen2-VL and Qwen2.5-VL were trained with "
                              "their release's rule, after the block's largest id (transformers "
                              "up to 5.2 did the same); transformers 5.3 and later resume at "
                              "the block's start + max(h′, w′)."))
    time = ui.choice(_("Time ids of a video"), list(TIME_LABELS), "qwen2_vl", "iv_time",
                     container=c3, fmt=lambda v: _(TIME_LABELS[v]), horizontal=False)
    absolute = time == "qwen2_5_vl"
    c4, c5 = st.columns(2)
    tps = ui.select_slider(_("tokens_per_second (Qwen2.5-VL's configs: 2)"), TPS_OPTIONS, 2,
                           "iv_tps", container=c4, fmt=str, disabled=not absolute)
    seconds = ui.select_slider(_("Seconds per temporal patch (temporal_patch_size / fps)"),
                               SECOND_OPTIONS, 1.0, "iv_sec", container=c5, fmt=str,
                               disabled=not absolute)
    args = (text, image_h, image_w, video_t, video_h, video_w, resume, time, tps, seconds)
    with ui.friendly_errors():
        summary = sequence_summary(*args)
    ui.show(ids_figure(*args), key="iv_ids",
            alt=_("Line chart: the three position ids t (time), h (row) and w (column) against the "
                  "token index, for text, an image, text, a video and text; the image and video "
                  "blocks are shaded."), table=_("position id table"))

    ids, rules = sequence_notes(*args)
    ui.paragraphs(ids, *rules)
    video = summary["video"]
    vt, vh, vw = int(video["merged t"]), int(video["merged h"]), int(video["merged w"])
    merge_note = _("Sequence: {text} text tokens, an image of {ih} × {iw} patches ({ihm} × "
                   "{iwm} tokens), {text} text tokens, a video of {vt} × {vh0} × {vw0} patches "
                   "({vt} × {vh} × {vw} tokens), {text} text tokens: {n} tokens in all.")
    st.caption(merge_note.format(text=text, ih=image_h, iw=image_w, ihm=image_h // 2,
                                 iwm=image_w // 2, vt=vt, vh0=video_h, vw0=video_w, vh=vh,
                                 vw=vw, n=i18n.integer(summary["tokens"])))
    name = (f"mrope_ids_text{text}_image{image_h}x{image_w}_video{video_t}x{video_h}x{video_w}"
            f"_{resume}_{time}" + (f"_tps{tps}_s{ui.slug(seconds)}" if absolute else ""))
    ui.download(sequence_tables, *args, part="tokens", filename=f"{name}.csv",
                label=_("position id table"), key="iv_tokens")
    ui.download(sequence_tables, *args, part="blocks", filename=f"{name}_blocks.csv",
                label=_("block table"), key="iv_blocks")

    # ----- which pairs read which id
    st.header(_("Which pairs encode which axis"))
    ui.paragraphs(
        _("θᵢ = base^(−2i/d) falls from 1 rad per id (pair 0) to almost nothing (the last "
          "pair). Qwen2-VL's (and Qwen2.5-VL's) mrope_section = [16, 24, 24] gives the time "
          "axis the first 16 pairs, the row the next 24 and the column the last 24: each axis "
          "gets one band of frequencies."),
        _("Qwen3-VL interleaves them, t h w t h w …, so each axis gets fast and slow pairs. For "
          "d other than 128 the shares are kept (rounded down for h and w)."))
    image = summary["image"]
    spans = (summary["t_span"], max(int(image["merged h"]), vh), max(int(image["merged w"]), vw))
    with ui.friendly_errors():
        coverage_table(s.dim, s.base, spans)
    ui.show(allocation_figure(s.dim), key="iv_allocation",
            alt=_("Strip chart: one row per model, one cell per pair index i, coloured by the axis "
                  "the pair reads: t (time), h (row) or w (column)."), table=_("pair table"))
    left, right = st.columns(2)
    for column, model in zip((left, right), MODELS):
        with column:
            ui.show(wavelength_figure(s.dim, s.base, model, spans), key=f"iv_wave_{model}",
                    alt=_("Scatter chart, log scale: each pair's wavelength in ids against the pair"
                          " index i, coloured by its axis (t, h or w), with the largest id distance"
                          " along each axis as a dotted line."), table=_("pair table"))
    lines, models = coverage_notes(s.dim, s.base, spans)
    ui.paragraphs(lines)
    ui.explain(*models)
    ui.download(pair_table, s.dim, s.base,
                filename=f"mrope_pairs_dim{s.dim}_base{ui.slug(s.base)}.csv",
                label=_("pair table"), key="iv_pairs")
    ui.download(coverage_table, s.dim, s.base, spans,
                filename=f"mrope_coverage_dim{s.dim}_base{ui.slug(s.base)}_"
                         f"t{spans[0]}h{spans[1]}w{spans[2]}.csv",
                label=_("coverage table"), key="iv_coverage")


s = ui.settings()
ui.intro(
    _("Images and video"),
    _("Vision-language models carry RoPE into two and three dimensions. This page "
      "follows Qwen2-VL's multimodal RoPE (M-RoPE) and the 2D RoPE of its vision "
      "encoder; the position ids are those of get_rope_index, by default as Qwen2-VL "
      "and Qwen2.5-VL were released and trained, or, as an option, as transformers "
      "{version} lays them out. The sidebar's base, head dim and pair layout apply "
      "throughout.").format(version=rc.TRANSFORMERS_VERSION))
ui.terms("patch", "rope_2d", "mrope", "pair", "theta", "wavelength")
grid_section(s)
sequence_section(s)
