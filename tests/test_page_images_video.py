"""Images and video page: patch-grid scores, M-RoPE ids of a mixed sequence, pair split.

Expected numbers are written out by hand (a short sequence, a 2 x 4 grid with
q = k = ones, where every pair adds 2 cos(distance theta_i)).
"""

import math

import pytest
from apptest_helpers import (
    array,
    assert_frozen_once,
    csv_frames,
    figure,
    run_page,
    shown,
    warnings,
)

SMALL = {"iv_text": "1", "iv_img_h": "2", "iv_img_w": "4", "iv_vid_t": "3", "iv_vid_h": "2",
         "iv_vid_w": "2"}


def test_default_page_draws_every_figure_and_offers_five_csvs():
    at = run_page("images_video")
    assert len(at.get("plotly_chart")) == 7  # 3 grids, ids, allocation, 2 wavelength plots
    names = list(csv_frames(at))
    assert names == ["patch_scores_dim128_base10000_6x8_r2c3_ones_qwen2_vl.csv",
                     "mrope_ids_text3_image8x12_video6x4x6_original_qwen2_vl.csv",
                     "mrope_ids_text3_image8x12_video6x4x6_original_qwen2_vl_blocks.csv",
                     "mrope_pairs_dim128_base10000.csv",
                     "mrope_coverage_dim128_base10000_t6h4w6.csv"]
    for df in csv_frames(at).values():
        assert all(column.isascii() for column in df.columns)


def test_short_sequence_ids_by_hand():
    at = run_page("images_video", SMALL)
    frames = csv_frames(at)
    tokens = next(df for name, df in frames.items()
                  if name.startswith("mrope_ids") and not name.endswith("_blocks.csv"))
    # the models' own rule (the default): text [0] | image 1x2 merged at 1, largest id 2 |
    # text at 3 | video 3x1x1 at 4: frames 4, 5, 6 | text after the largest id, at 7
    assert tokens["t id"].tolist() == [0, 1, 1, 3, 4, 5, 6, 7]
    assert tokens["h id"].tolist() == [0, 1, 1, 3, 4, 4, 4, 7]
    assert tokens["w id"].tolist() == [0, 1, 2, 3, 4, 4, 4, 7]
    assert tokens["kind"].tolist() == ["text", "image", "image", "text", "video", "video",
                                       "video", "text"]
    assert list(tokens.columns[:5]) == ["spatial_merge_size", "resume", "time",
                                        "tokens_per_second", "second_per_grid_t"]
    text = " ".join(shown(m.value) for m in at.markdown)
    assert "This is the rule Qwen2-VL and Qwen2.5-VL were trained with" in text
    assert "would resume at 5 instead of 7" in text
    at.radio(key="iv_resume").set_value("transformers").run()
    tokens = next(df for name, df in csv_frames(at).items()
                  if name.startswith("mrope_ids") and "transformers" in name
                  and not name.endswith("_blocks.csv"))
    # transformers 5.3+: the image's text at 1 + max(1, 2) = 3; after the video at
    # 4 + max(1, 1) = 5, inside the video's time ids 4 ... 6
    assert tokens["t id"].tolist() == [0, 1, 1, 3, 4, 5, 6, 5]
    text = " ".join(shown(m.value) for m in at.markdown)
    assert "The two rules differ here." in text
    assert "run up to 6" in text
    assert "trained with the other rule (after the largest id, at 7" in text
    # generation continues from the largest id (6) + 1 = 7, the last text id is 5
    assert "the prompt's last text ids are 5 … 5, and the first generated token gets 7" in text


def test_absolute_time_steps_the_frames():
    at = run_page("images_video", SMALL)
    at.radio(key="iv_time").set_value("qwen2_5_vl").run()
    at.select_slider(key="iv_sec").set_value(0.5).run()  # 2 tokens/s x 0.5 s = 1 id per patch
    tokens = next(df for name, df in csv_frames(at).items()
                  if name.startswith("mrope_ids") and not name.endswith("_blocks.csv"))
    assert tokens["t id"].tolist()[4:7] == [4, 5, 6]
    at.select_slider(key="iv_sec").set_value(2.0).run()  # 4 ids per temporal patch
    frames = csv_frames(at)
    name, tokens = next((n, df) for n, df in frames.items()
                        if n.startswith("mrope_ids") and not n.endswith("_blocks.csv"))
    assert name.endswith("_qwen2_5_vl_tps2_s2.csv")
    assert tokens["t id"].tolist()[4:7] == [4, 8, 12]
    assert set(tokens["tokens_per_second"]) == {2} and set(tokens["second_per_grid_t"]) == {2}
    assert any("step by 4 per temporal patch and one id stands for 1/2 s" in shown(m.value)
               for m in at.markdown)


def test_a_fractional_time_step_rounds_down_and_shares_ids():
    # 1 token/s x 0.25 s per temporal patch: patch f gets start + floor(f / 4)
    at = run_page("images_video", dict(SMALL, iv_vid_t="6"))
    at.radio(key="iv_time").set_value("qwen2_5_vl").run()
    at.select_slider(key="iv_tps").set_value(1).run()
    at.select_slider(key="iv_sec").set_value(0.25).run()
    tokens = next(df for name, df in csv_frames(at).items()
                  if name.startswith("mrope_ids") and not name.endswith("_blocks.csv"))
    video = tokens[tokens["kind"] == "video"]["t id"].tolist()
    assert video == [4 + f // 4 for f in range(6)]  # video starts at 4 (see above)
    text = " ".join(shown(m.value) for m in at.markdown)
    assert "time ids start + 0, 0, 0, 0, 1, 1" in text
    assert "temporal patches (two frames each)" in text


def test_two_by_four_grid_scores_by_hand():
    at = run_page("images_video", {"dim": "8", "base": "100", "iv_h": "2", "iv_w": "4",
                                   "iv_row": "0", "iv_col": "1"})
    df = next(df for name, df in csv_frames(at).items() if name.startswith("patch_scores"))
    assert len(df) == 8
    thetas = [100 ** (-2 * i / 8) for i in range(4)]
    below = df[(df["row"] == 1) & (df["col"] == 1)].iloc[0]
    assert below["distance 1D [tokens]"] == 4 and below["row difference"] == 1
    assert below["score flat"] == pytest.approx(2 * sum(math.cos(4 * t) for t in thetas))
    # 2D axial at d = 8: theta' = (1, 0.1) for the row pairs and for the column pairs
    assert below["score axial 2D"] == pytest.approx(2 * (math.cos(1) + math.cos(0.1) + 2))
    right = df[(df["row"] == 0) & (df["col"] == 2)].iloc[0]
    assert right["score axial 2D"] == pytest.approx(below["score axial 2D"])
    assert right["score flat"] == pytest.approx(2 * sum(math.cos(t) for t in thetas))
    text = " ".join(shown(m.value) for m in at.markdown)
    assert "the patch below it is 4 tokens away" in text
    # normalised by |q||k| = 8: the flat score of the patch below
    expected = 2 * sum(math.cos(4 * t) for t in thetas) / 8
    assert f"| patch below | {expected:.3f} |" in text  # the table of the neighbours: 1D first
    # M-RoPE at d = 8 (Qwen2-VL's shares: pairs t, t, h, w): the row turns with
    # theta_2 = 0.1, the column with theta_3 = 10^-1.5, so below != right
    assert below["score M-RoPE"] == pytest.approx(2 * (3 + math.cos(0.1)))
    assert right["score M-RoPE"] == pytest.approx(2 * (3 + math.cos(10 ** -1.5)))
    assert f"| patch to the right | {2 * sum(math.cos(t) for t in thetas) / 8:.3f} |" in text
    vertical, horizontal = 2 * (3 + math.cos(0.1)) / 8, 2 * (3 + math.cos(10 ** -1.5)) / 8
    assert f"differently: {vertical:.6f} against {horizontal:.6f}" in text
    assert "exactly as far as its neighbour" not in text


def test_query_outside_a_small_grid_is_moved_inside():
    at = run_page("images_video", {"iv_h": "2", "iv_row": "5", "iv_w": "3", "iv_col": "9"})
    assert any("the query is the patch at row 1, column 2" in shown(i.value) for i in at.info)
    df = next(df for name, df in csv_frames(at).items() if name.startswith("patch_scores"))
    assert set(df["query row"]) == {1} and set(df["query col"]) == {2}
    text = " ".join(shown(m.value) for m in at.markdown)
    assert "| patch above |" in text


def test_head_dim_not_divisible_by_four_warns_for_2d_only():
    at = run_page("images_video", {"dim": "6"})
    assert any("d divisible by 4, and d = 6 is not" in w for w in warnings(at))
    assert len(at.get("plotly_chart")) == 6
    df = next(df for name, df in csv_frames(at).items() if name.startswith("patch_scores"))
    assert df["score axial 2D"].isna().all() and df["score M-RoPE"].notna().all()


def test_allocation_bars_follow_the_sections():
    at = run_page("images_video")
    spec = figure(at, 4)  # the allocation strip
    bars = {(t["name"], t["base"]): array(t["x"]).astype(int).tolist() for t in spec["data"]}
    assert bars[("t (time)", 1.5)] == list(range(16))
    assert bars[("h (row)", 1.5)] == list(range(16, 40))
    assert bars[("h (row)", 0)] == list(range(1, 60, 3))
    assert bars[("t (time)", 0)] == list(range(0, 60, 3)) + [60, 61, 62, 63]
    frames = csv_frames(at)
    pairs = frames["mrope_pairs_dim128_base10000.csv"]
    assert pairs["axis qwen2_vl"].tolist() == ["t"] * 16 + ["h"] * 24 + ["w"] * 24


def test_random_vectors_change_the_scores_not_the_distances():
    ones = run_page("images_video")
    rand = run_page("images_video", {"iv_qk": "random q and k"})
    a = next(df for n, df in csv_frames(ones).items() if n.startswith("patch_scores"))
    b = next(df for n, df in csv_frames(rand).items() if n.startswith("patch_scores"))
    assert a["distance 1D [tokens]"].tolist() == b["distance 1D [tokens]"].tolist()
    assert a["score flat"].tolist() != b["score flat"].tolist()
    assert set(b["qk"]) == {"random seed 0"}


def test_figures_are_built_once_per_setting_and_sent_as_float32(monkeypatch):
    assert_frozen_once(monkeypatch, "images_video", None,
                       {"iv_grid_flat", "iv_grid_axial", "iv_grid_mrope", "iv_ids",
                        "iv_allocation", "iv_wave_qwen2_vl", "iv_wave_qwen3_vl"})


def test_chinese_page_reads_the_hand_sequence():
    at = run_page("images_video", dict(SMALL, lang="zh"))
    at.radio(key="iv_resume").set_value("transformers").run()
    text = " ".join(shown(m.value) for m in at.markdown)
    assert "**这里两种规则不同。**" in text and "（在最大编号之后，即 7" in text


def test_spread_sentence_only_when_m_rope_is_narrower():
    # q = k = ones, d = 128, base 1e4 on 6 x 8: the row/column pairs of Qwen2-VL are slow,
    # so M-RoPE spreads less than 2D axial and the page says why
    text = " ".join(shown(m.value) for m in run_page("images_video").markdown)
    assert "Across this grid the M-RoPE scores spread over" in text
    # random q and k, d = 16, base 10, 2 x 2 grid: M-RoPE spreads wider (checked here, not
    # taken from the page), so "only slow pairs" would explain the wrong way round
    import rope_core as rc
    q, k = rc.toy_qk(1, 16, 0)
    df = rc.patch_score_table(q[0], k[0], 2, 2, 1, 1, base=10.0, model="qwen2_vl",
                              layout="half")
    spread = {c: df[c].max() - df[c].min() for c in ("score axial 2D", "score M-RoPE")}
    assert spread["score M-RoPE"] > spread["score axial 2D"]
    at = run_page("images_video", {"dim": "16", "base": "10", "layout": "half",
                                   "iv_qk": "random q and k",
                                   "iv_h": "2", "iv_w": "2", "iv_row": "1", "iv_col": "1"})
    text = " ".join(shown(m.value) for m in at.markdown)
    assert "| patch above |" in text
    assert "Across this grid the M-RoPE scores spread over" not in text


def test_wavelength_lines_sit_at_the_largest_id_distance():
    # default sequence: video 6 temporal patches (t ids start ... start + 5), rows
    # max(8/2, 4/2) = 4, columns max(12/2, 6/2) = 6: the farthest ids are 5, 3 and 5 apart
    at = run_page("images_video")
    spec = figure(at, 5)
    assert [shape["y0"] for shape in spec["layout"]["shapes"]] == [5, 3, 5]
    texts = [note["text"] for note in spec["layout"]["annotations"]]
    assert "h: 3 apart" in texts
    text = " ".join(shown(m.value) for m in at.markdown)
    assert "5 between the first and last time id, 3 rows and 5 columns" in text


def test_default_neighbours_differ_in_the_sixth_decimal_not_the_third():
    # d = 128, base 1e4, q = k = ones: below turns pairs 16 ... 39 by theta_i, right pairs
    # 40 ... 63; each pair adds 2 cos, |q||k| = 128
    thetas = [1e4 ** (-2 * i / 128) for i in range(64)]
    below = (2 * 40 + 2 * sum(math.cos(t) for t in thetas[16:40])) / 128
    right = (2 * 40 + 2 * sum(math.cos(t) for t in thetas[40:64])) / 128
    assert f"{below:.3f}" == f"{right:.3f}" and f"{below:.6f}" != f"{right:.6f}"
    text = " ".join(shown(m.value) for m in run_page("images_video").markdown)
    assert f"differently: {below:.6f} against {right:.6f}" in text


def test_ones_panels_are_mirror_symmetric_about_the_query():
    # q = k = ones: each pair adds 2 cos(r theta), even in each difference, so patches
    # mirrored about the query's row or column score the same (query at row 2, col 3)
    at = run_page("images_video")
    df = next(df for n, df in csv_frames(at).items() if n.startswith("patch_scores"))
    score = df.set_index(["row", "col"])
    for column in ("score axial 2D", "score M-RoPE"):
        assert score.loc[(3, 3), column] == pytest.approx(score.loc[(1, 3), column])
        assert score.loc[(2, 5), column] == pytest.approx(score.loc[(2, 1), column])
        assert score.loc[(4, 6), column] == pytest.approx(score.loc[(0, 0), column])
    text = " ".join(shown(m.value) for m in at.markdown)
    assert "mirror-symmetric about the query's row and column" in text


def test_each_grid_panel_boxes_its_own_range_on_the_shared_colour_scale():
    """Issue 46: the M-RoPE panel read as a uniform square. Under each heatmap, the colour
    scale the three panels share (its axis from the lowest to the highest score among
    them) with this panel's own range boxed: on the 2 x 4 grid at d = 8, base 100, query
    (0, 1), every score written out by hand (q = k = ones, |q||k| = 8)."""
    at = run_page("images_video", {"dim": "8", "base": "100", "iv_h": "2", "iv_w": "4",
                                   "iv_row": "0", "iv_col": "1"})
    t = [100 ** (-i / 4) for i in range(4)]  # theta_i = 100^(-2i/8)
    cells = [(r, c) for r in range(2) for c in range(4)]
    scores = {  # (Δr, Δc) from the query (0, 1); every pair adds 2 cos(angle)
        "flat": [2 * sum(math.cos((4 * r + c - 1) * x) for x in t) / 8 for r, c in cells],
        # 2D axial at d = 8: the row and the column each turn pairs of theta' = (1, 0.1)
        "axial": [2 * (math.cos(r) + math.cos(0.1 * r) + math.cos(c - 1)
                       + math.cos(0.1 * (c - 1))) / 8 for r, c in cells],
        # Qwen2-VL's split at d = 8: pairs t, t, h, w (the time id is the same)
        "mrope": [2 * (2 + math.cos(t[2] * r) + math.cos(t[3] * (c - 1))) / 8
                  for r, c in cells]}
    every = [v for values in scores.values() for v in values]
    for index, scheme in enumerate(("flat", "axial", "mrope")):
        layout = figure(at, index)["layout"]
        assert layout["xaxis2"]["range"] == pytest.approx([min(every), max(every)], abs=1e-12)
        box = layout["shapes"][0]
        assert (box["xref"], box["yref"], box["type"]) == ("x2", "y2", "rect")
        assert [box["x0"], box["x1"]] == pytest.approx(
            [min(scores[scheme]), max(scores[scheme])], abs=1e-12)
        assert "this panel's scores" in layout["xaxis2"]["title"]["text"]
    # the defaults (6 x 8, d = 128): Qwen2-VL's M-RoPE panel spans a sliver of the scale
    layouts = [figure(run_page("images_video"), i)["layout"] for i in range(3)]
    share = [(b["x1"] - b["x0"]) / (a["xaxis2"]["range"][1] - a["xaxis2"]["range"][0])
             for a in layouts for b in [a["shapes"][0]]]
    assert share[0] == pytest.approx(1.0) and share[2] < 0.01 < share[1]
