"""Where RoPE sits: the KV cache of rotated keys and the layout permutation, checked live."""

import math

from apptest_helpers import assert_frozen_once, csv_frame, figure, metrics, run_page, shown
from lesson_reference import rotate, thetas

import rope_core as rc


def test_defaults_render_diagram_cache_and_layouts():
    at = run_page("where_rope_sits")
    assert at.title[0].value == "Where RoPE sits in a model"
    # three CSVs and the page's notebook
    assert len(at.get("plotly_chart")) == 3 and len(at.get("download_button")) == 4
    labels = [a["text"] for a in figure(at, 0)["layout"]["annotations"] if a.get("text")]
    assert "W_v" in labels and "RoPE: R_m q" in labels and "KV cache<br>R_n k_n, v_n" in labels
    text = " ".join(shown(md.value) for md in at.markdown)
    assert "the value v is never rotated" in text


def test_cache_gaps_against_numpy():
    at = run_page("where_rope_sits")  # d = 128, base 10^4, interleaved, L = 12, seed 0
    q, k = (t.numpy() for t in rc.toy_qk(12, 128, 0))
    th = thetas(128, 10_000.0)
    again_gap = 0.0
    for t in range(12):
        for n in range(t + 1):
            right = q[t] @ rotate(k[n], n - t, th, "interleaved")  # q_t^T R_(n-t) k_n
            again = q[t] @ rotate(k[n], n, th, "interleaved")  # q_t^T R_n k_n
            again_gap = max(again_gap, abs(again - right))
    got = metrics(at)
    assert float(got["Cache of R_n k_n: max |score − recomputed|"]) < 1e-12
    assert got["Cache rotated again: max |score − recomputed|"] == f"{again_gap:.2g}"
    name, df = csv_frame(at, 0)
    assert name == "kv_cache_dim128_base10000_interleaved_L12.csv"
    assert list(df.columns[:5]) == ["base", "dim", "layout", "seed", "L [tokens]"]
    assert len(df) == 12 * 13 // 2
    row = df[(df["t [tokens]"] == 11) & (df["n [tokens]"] == 4)].iloc[0]
    assert math.isclose(row["from cache"], q[11] @ rotate(k[4], -7, th, "interleaved"),
                        rel_tol=1e-12)


def test_permutation_table_and_picture_of_indices():
    at = run_page("where_rope_sits", {"dim": "8"})
    _, pairs = csv_frame(at, 1)
    # p_(c d/2 + i) = 2 i + c, written out for d = 8
    assert pairs["p_j"].tolist() == [0, 2, 4, 6, 1, 3, 5, 7]
    assert list(pairs.columns) == ["dim", "coordinate j", "pair i interleaved", "pair i half",
                                   "p_j"]
    heat = figure(at, 2)["data"][0]
    assert heat["text"][2] == ["0", "2", "4", "6", "1", "3", "5", "7"]
    assert heat["text"][1] == ["0", "1", "2", "3", "0", "1", "2", "3"]


def test_layout_checks_and_a_capped_picture():
    at = run_page("where_rope_sits", {"dim": "128", "layout": "half"})
    got = metrics(at)
    small = [v for label, v in got.items() if "(not converted)" not in label and
             label.startswith("max |") and "Cache" not in label]
    assert len(small) == 3 and all(float(v) < 1e-9 for v in small)
    contrast = next(v for label, v in got.items() if "(not converted)" in label)
    assert float(contrast) > 1e-3
    assert len(figure(at, 2)["data"][0]["x"]) == 32  # capped
    name, checks = csv_frame(at, 2)
    assert name == "layout_checks_dim128_base10000.csv"
    assert list(checks.columns[:6]) == ["base", "dim", "n_heads", "in_dim", "L [tokens]", "seed"]
    for column in checks.columns:
        assert column.isascii()


def test_dim_two_says_the_layouts_coincide():
    at = run_page("where_rope_sits", {"dim": "2"})
    text = " ".join(shown(md.value) for md in at.markdown)
    assert "both layouts pair the same two coordinates" in text


def test_figures_are_built_once_per_setting_and_sent_as_float32(monkeypatch):
    assert_frozen_once(monkeypatch, "where_rope_sits", {"where_seq": "7"},
                       {"where_diagram", "where_cache", "where_layouts"})


def test_other_settings_in_chinese():
    """d = 2 (its own sentence) and a capped picture of indices, in Chinese."""
    from i18n_helpers import untranslated

    for query in ({"dim": "2"}, {"dim": "256", "layout": "half", "where_seq": "30"}):
        at = run_page("where_rope_sits", {"lang": "zh", **query})
        assert untranslated(at) == {}, query


def box_px(text: str, size: float, pad: float) -> float:
    """A diagram box's width in px, generously: a Latin character 0.62 em, a Chinese
    one 1 em (ui.figures.text_width counts it as two), plus padding and border."""
    from ui.figures import text_width

    return max(text_width(line) for line in text.split("<br>")) * 0.62 * size + 2 * pad + 4


def test_diagram_boxes_stay_apart_on_a_phone():
    """Screenshot review: the "one attention layer" boxes overlapped at 390 px."""
    for lang in ("en", "zh"):
        layout = figure(run_page("where_rope_sits", {"lang": lang}), 0)["layout"]
        boxes = [a for a in layout["annotations"] if a.get("text")]
        assert len(boxes) == 9
        # 390 px less Streamlit's padding (1 rem each side) and the figure's margins
        width = 390 - 32 - layout["margin"]["l"] - layout["margin"]["r"]
        x0, x1 = layout["xaxis"]["range"]
        px = width / (x1 - x0)
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                if abs(a["y"] - b["y"]) < 0.9:  # the same row
                    room = abs(a["x"] - b["x"]) * px
                    need = (box_px(a["text"], a["font"]["size"], a["borderpad"]) +
                            box_px(b["text"], b["font"]["size"], b["borderpad"])) / 2
                    assert room >= need, (lang, a["text"], b["text"], room, need)
            # every box inside the figure
            half = box_px(a["text"], a["font"]["size"], a["borderpad"]) / 2 / px
            assert x0 <= a["x"] - half and a["x"] + half <= x1, (lang, a["text"])
