"""M-RoPE position ids, the split of pairs among t/h/w, 2D axial RoPE and patch scores
(rope_core.models.mrope).

Expected numbers come from sequences written out by hand, closed forms with
math.cos, the rotation written here as complex numbers, Qwen2-VL's original
docstring example (transformers 4.45), and transformers' own code (5.23.0,
test-only): Qwen2-VL / Qwen2.5-VL ``get_rope_index``, the Qwen2-VL and Qwen3-VL
text rotary embeddings (contiguous and interleaved sections) and the Qwen2-VL
vision rotary embedding (2D axial).
"""

import importlib.util
import math
import re
from types import SimpleNamespace

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import rope_core as rc
from rope_core import RopeError

# ------------------------------------------------------------ hand-derived ids ----


def test_short_mixed_sequence_written_out_by_hand():
    # text 2 | image 1x4x6 (merged 2x3) | text 2 | video 3x4x4 (merged 3x2x2) | text 2
    segments = [("text", 2), ("image", (1, 4, 6)), ("text", 2), ("video", (3, 4, 4)),
                ("text", 2)]
    ids = rc.mrope_position_ids(segments)
    text1 = [[0, 1]] * 3
    image = [[2] * 6, [2, 2, 2, 3, 3, 3], [2, 3, 4, 2, 3, 4]]  # starts at 2
    text2 = [[5, 6]] * 3  # 2 + max(2, 3)
    video = [[7] * 4 + [8] * 4 + [9] * 4, [7, 7, 8, 8] * 3, [7, 8, 7, 8] * 3]
    text3 = [[9, 10]] * 3  # 7 + max(2, 2): transformers' rule
    expected = torch.tensor([sum((block[a] for block in (text1, image, text2, video, text3)),
                                 []) for a in range(3)])
    assert ids.dtype == torch.int64 and ids.shape == (3, 2 + 6 + 2 + 12 + 2)
    assert torch.equal(ids, expected)
    # the original release resumes after the largest id of the video (9): 10, 11
    original = rc.mrope_position_ids(segments, resume="original")
    assert torch.equal(original[:, :-2], expected[:, :-2])
    assert original[:, -2:].tolist() == [[10, 11]] * 3


def test_original_release_docstring_example():
    # transformers 4.45 (Qwen2-VL's release), get_rope_index docstring: a video of 3
    # temporal patches and a 2x2 merged grid, then 5 text tokens; "the text start
    # position_ids as the max vision position_ids plus 1": text ids 3 ... 7.
    segments = [("video", (3, 2, 2)), ("text", 5)]
    ids = rc.mrope_position_ids(segments, spatial_merge_size=1, resume="original")
    assert ids[0].tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 4, 5, 6, 7]
    assert ids[1].tolist() == [0, 0, 1, 1] * 3 + [3, 4, 5, 6, 7]
    assert ids[2].tolist() == [0, 1, 0, 1] * 3 + [3, 4, 5, 6, 7]
    # transformers 5.3+ resumes at start + max(h', w') = 2: the text reuses time id 2
    now = rc.mrope_position_ids(segments, spatial_merge_size=1)
    assert now[:, 12:].tolist() == [[2, 3, 4, 5, 6]] * 3


def test_rules_agree_when_the_grid_side_is_the_largest_id():
    segments = [("text", 3), ("video", (2, 8, 6)), ("text", 3)]  # t' = 2 < max(4, 3)
    assert torch.equal(rc.mrope_position_ids(segments),
                       rc.mrope_position_ids(segments, resume="original"))


def test_absolute_time_spaces_the_frames():
    # Qwen2.5-VL: frame f at start + floor(f * tokens_per_second * second_per_grid_t)
    ids = rc.mrope_position_ids([("text", 1), ("video", (4, 2, 2)), ("text", 1)],
                                tokens_per_second=2, second_per_grid_t=1.0)
    assert ids[0].tolist() == [0, 1, 3, 5, 7, 2]  # frames 1+0, 1+2, 1+4, 1+6; text at 1+1
    assert ids[1].tolist() == [0, 1, 1, 1, 1, 2]
    half = rc.mrope_position_ids([("video", (4, 2, 2))], tokens_per_second=1,
                                 second_per_grid_t=0.5)
    assert half[0].tolist() == [0, 0, 1, 1]  # 0, 0.5, 1, 1.5 truncated
    # an image keeps one id per patch whatever the time scale
    image = rc.mrope_position_ids([("image", (1, 4, 4))], tokens_per_second=4)
    assert image.tolist() == [[0] * 4, [0, 0, 1, 1], [0, 1, 0, 1]]
    original = rc.mrope_position_ids([("video", (4, 2, 2)), ("text", 1)],
                                     tokens_per_second=2, resume="original")
    assert original[:, -1].tolist() == [7, 7, 7]  # after the largest id, 6


def test_blocks_table_says_where_each_block_starts_and_the_text_resumes():
    segments = [("text", 2), ("image", (1, 4, 6)), ("text", 2), ("video", (3, 4, 4)),
                ("text", 2)]
    df = rc.mrope_blocks(segments)
    assert df["kind"].tolist() == ["text", "image", "text", "video", "text"]
    assert df["first token"].tolist() == [0, 2, 8, 10, 22]
    assert df["start id"].tolist() == [0, 2, 5, 7, 9]
    assert df["largest id"].tolist() == [1, 4, 6, 9, 10]
    assert df["next start id"].tolist() == [2, 5, 7, 9, 11]
    assert df["merged h"].tolist()[1] == 2 and df["merged w"].tolist()[3] == 2
    assert all(c.isascii() for c in df.columns)


# -------------------------------------------------------------------- validation ----


@pytest.mark.parametrize("segments, name", [
    ([("image", (1, 5, 4))], "segments[0].h"),
    ([("text", 2), ("video", (2, 4, 6)), ("image", (1, 4, 3))], "segments[2].w"),
    ([("image", (2, 4, 4))], "segments[0].t"),
    ([("image", (1, 0, 4))], "segments[0].h"),
    ([("video", (1, 4))], "segments[0][1]"),
    ([("audio", 3)], "segments[0][0]"),
    ([("text", 0)], "segments[0][1]"),
    ([("text", 2.5)], "segments[0][1]"),
    ([("text",)], "segments[0]"),
    ([], "segments"),
    ("text", "segments"),
])
def test_bad_segments_name_the_field(segments, name):
    with pytest.raises(RopeError, match="^" + re.escape(name) + "="):
        rc.mrope_position_ids(segments)


def test_merge_size_must_divide_and_be_in_range():
    with pytest.raises(RopeError, match=r"segments\[0\]\.w=6 .*multiple of spatial_merge_size = 4"):
        rc.mrope_position_ids([("image", (1, 8, 6))], spatial_merge_size=4)
    with pytest.raises(RopeError, match="^spatial_merge_size=0"):
        rc.mrope_position_ids([("text", 1)], spatial_merge_size=0)
    with pytest.raises(RopeError, match="^resume="):
        rc.mrope_position_ids([("text", 1)], resume="latest")
    with pytest.raises(RopeError, match="^tokens_per_second="):
        rc.mrope_position_ids([("text", 1)], tokens_per_second=-2)
    with pytest.raises(RopeError, match="^segments="):
        rc.mrope_position_ids([("video", (4096, 4096, 4096))], spatial_merge_size=1)


def test_bad_sections_and_dims_name_the_field():
    with pytest.raises(RopeError, match=r"^mrope_section\[1\]=30"):
        rc.mrope_pair_axes((4, 30, 30), interleaved=True)
    with pytest.raises(RopeError, match="^mrope_section="):
        rc.mrope_pair_axes((16, 24))
    with pytest.raises(RopeError, match=r"^mrope_section\[0\]=-1"):
        rc.mrope_pair_axes((-1, 24, 24))
    with pytest.raises(RopeError, match="^dim=6 .*multiple of 4"):
        rc.axial_theta(6, 100.0)
    with pytest.raises(RopeError, match="^row=2"):
        rc.patch_distances(2, 4, 2, 0, "flat")
    with pytest.raises(RopeError, match="^scheme="):
        rc.patch_distances(2, 4, 0, 0, "polar")


# ------------------------------------------------------------------- allocation ----


def test_contiguous_and_interleaved_allocations_by_hand():
    assert rc.mrope_pair_axes((2, 3, 3)).tolist() == [0, 0, 1, 1, 1, 2, 2, 2]
    # Qwen3-VL: h at 1, 4, 7, ... w at 2, 5, 8, ..., t everywhere else
    axes = rc.mrope_pair_axes((24, 20, 20), interleaved=True).tolist()
    assert axes[:6] == [0, 1, 2, 0, 1, 2] and axes[57:] == [0, 1, 2, 0, 0, 0, 0]
    assert [axes.count(a) for a in range(3)] == [24, 20, 20]
    qwen2 = rc.mrope_pair_axes(rc.MROPE_SECTIONS["qwen2_vl"]).tolist()
    assert qwen2 == [0] * 16 + [1] * 24 + [2] * 24


def test_sections_scale_with_the_head_dim():
    assert rc.scaled_mrope_section("qwen2_vl", 128) == (16, 24, 24)
    assert rc.scaled_mrope_section("qwen3_vl", 128) == (24, 20, 20)
    assert rc.scaled_mrope_section("qwen2_vl", 64) == (8, 12, 12)
    assert rc.scaled_mrope_section("qwen3_vl", 256) == (48, 40, 40)
    for dim in range(2, 1025, 2):
        for model in rc.MROPE_SECTIONS:
            section = rc.scaled_mrope_section(model, dim)
            assert sum(section) == dim // 2 and min(section) >= 0
            rc.mrope_pair_axes(section, interleaved=rc.MROPE_INTERLEAVED[model])


def test_axial_frequencies_by_hand():
    theta = rc.axial_theta(8, 100.0)
    assert theta.tolist() == pytest.approx([1.0, 0.1, 1.0, 0.1], rel=1e-15)
    assert rc.axial_pair_axes(8).tolist() == [1, 1, 2, 2]


# ----------------------------------------------------------------------- scores ----


def test_two_by_four_grid_distances_and_scores_by_hand():
    # query at (0, 1) on a 2 x 4 grid: the patch below is 4 tokens away when flattened,
    # one row away in 2D
    flat = rc.patch_distances(2, 4, 0, 1, "flat")
    grid = rc.patch_distances(2, 4, 0, 1, "axial")
    assert flat[..., 0].tolist() == [[-1, 0, 1, 2], [3, 4, 5, 6]]
    assert grid[1, 1].tolist() == [0, 1, 0] and grid[0, 3].tolist() == [0, 0, 2]
    q = torch.ones(8, dtype=torch.float64)  # along_i = 2, across_i = 0 in every pair
    base = 100.0
    flat_scores = rc.patch_scores(q, q, 2, 4, 0, 1, scheme="flat", base=base)
    axial_scores = rc.patch_scores(q, q, 2, 4, 0, 1, scheme="axial", base=base)
    thetas = [base ** (-2 * i / 8) for i in range(4)]
    for r in range(2):
        for c in range(4):
            p = r * 4 + c - 1
            assert flat_scores[r, c] == pytest.approx(2 * sum(math.cos(p * t) for t in thetas),
                                                      rel=1e-12)
            dr, dc = r, c - 1
            expected = 2 * (math.cos(dr) + math.cos(0.1 * dr) + math.cos(dc) + math.cos(0.1 * dc))
            assert axial_scores[r, c] == pytest.approx(expected, rel=1e-12)
    # M-RoPE, Qwen2-VL split at d = 8: (2, 3, 3) pairs; t pairs never turn in an image
    mrope = rc.patch_scores(q, q, 2, 4, 0, 1, scheme="mrope", base=base)
    section_axes = [0, 0, 1, 1, 1, 2, 2, 2]
    for r in range(2):
        for c in range(4):
            shift = [0, r, c - 1]
            expected = 2 * sum(math.cos(shift[a] * t)
                               for a, t in zip(section_axes, [base ** (-2 * i / 16)
                                                              for i in range(8)]))
            qq = torch.ones(16, dtype=torch.float64)
            got = rc.patch_scores(qq, qq, 2, 4, 0, 1, scheme="mrope", base=base)[r, c]
            assert got == pytest.approx(expected, rel=1e-12)
    assert mrope[0, 1] == pytest.approx(8.0)  # the query with itself: |q|^2


def _rotate(x, ids, theta, axes):
    """M-RoPE as complex numbers, half layout: z_i = x_i + i x_(i+d/2) times
    exp(i ids[axis(i)] theta_i)."""
    half = x.shape[-1] // 2
    z = torch.complex(x[:half], x[half:])
    angle = torch.tensor([float(ids[a]) for a in axes.tolist()], dtype=torch.float64) * theta
    z = z * torch.polar(torch.ones_like(angle), angle)
    return torch.cat([z.real, z.imag])


small = st.integers(min_value=-50, max_value=50)
triples = st.tuples(small, small, small)


@given(st.sampled_from([8, 12, 16, 24, 32]), st.sampled_from(list(rc.MROPE_SECTIONS)),
       triples, triples, triples, st.integers(0, 2**31 - 1))
def test_score_depends_only_on_the_id_differences(dim, model, a, b, shift, seed):
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(dim, generator=g, dtype=torch.float64), torch.randn(
        dim, generator=g, dtype=torch.float64)
    theta, axes = rc.scheme_frequencies("mrope", dim, 1000.0, model=model)
    direct = _rotate(q, a, theta, axes) @ _rotate(k, b, theta, axes)
    r = [y - x for x, y in zip(a, b)]
    assert rc.mrope_score(q, k, r, theta, axes) == pytest.approx(float(direct), abs=1e-9)
    moved = [[x + s for x, s in zip(p, shift)] for p in (a, b)]
    again = _rotate(q, moved[0], theta, axes) @ _rotate(k, moved[1], theta, axes)
    assert float(again) == pytest.approx(float(direct), abs=1e-9)
    # apply_mrope agrees with the complex form, in both layouts up to the pair order
    ids = torch.tensor([a, b]).T  # (3, 2)
    rotated = rc.apply_mrope(torch.stack([q, k]), ids, theta, axes)
    assert torch.allclose(rotated[0], _rotate(q, a, theta, axes), atol=1e-12)
    assert float(rotated[0] @ rotated[1]) == pytest.approx(float(direct), abs=1e-9)


@given(st.integers(1, 16).map(lambda n: 4 * n), st.integers(-10**4, 10**4))
def test_text_ids_are_plain_rope(dim, m):
    g = torch.Generator().manual_seed(dim)
    x = torch.randn(1, dim, generator=g, dtype=torch.float64)
    for model in rc.MROPE_SECTIONS:
        theta, axes = rc.scheme_frequencies("mrope", dim, 500.0, model=model)
        for layout in rc.LAYOUTS:
            got = rc.apply_mrope(x, torch.tensor([[m], [m], [m]]), theta, axes, layout=layout)
            plain = rc.apply_rope(x, [m], theta, layout=layout)
            assert torch.allclose(got, plain, atol=1e-9)


def test_patch_below_is_w_away_flattened_and_one_row_in_2d():
    q = torch.ones(16, dtype=torch.float64)
    flat = rc.patch_scores(q, q, 3, 5, 1, 2, scheme="flat", base=10000.0)
    # flattened, the patch below (2, 2) scores like the patch 5 to the right would
    assert flat[2, 2] == pytest.approx(float(rc.mrope_score(
        q, q, [5, 5, 5], rc.theta(16, 10000.0), torch.zeros(8, dtype=torch.int64))))
    axial = rc.patch_scores(q, q, 3, 5, 1, 2, scheme="axial", base=10000.0)
    assert axial[2, 2] == pytest.approx(axial[0, 2])  # up and down alike for q = k = ones
    assert axial[2, 2] == pytest.approx(axial[1, 3])  # one row = one column


def test_score_table_columns_and_nan_axial_column_for_odd_pairs():
    q = torch.ones(6, dtype=torch.float64)
    df = rc.patch_score_table(q, q, 2, 3, 0, 0, base=100.0)
    assert len(df) == 6 and df["score axial 2D"].isna().all()
    assert df["score flat"].iloc[0] == pytest.approx(6.0)
    assert all(c.isascii() for c in df.columns)


def test_coverage_table_counts_pairs_by_hand():
    df = rc.axis_coverage_table(128, 10**6, (8, 16, 16))
    two = df[df["model"] == "qwen2_vl"].set_index("axis")
    assert two["pairs"].tolist() == [16, 24, 24]
    # Qwen2-VL's t pairs are 0 ... 15: fastest wavelength 2 pi, slowest 2 pi 10^(6*30/128)
    assert two.loc["t", "fastest wavelength [ids]"] == pytest.approx(2 * math.pi)
    assert two.loc["t", "slowest wavelength [ids]"] == pytest.approx(
        2 * math.pi * 10 ** (6 * 30 / 128))
    # its h pairs start at pair 16: wavelength 2 pi 10^(6*32/128) = 198.7 > 16 ids
    assert two.loc["h", "fastest wavelength [ids]"] == pytest.approx(
        2 * math.pi * 10 ** (6 * 32 / 128))
    assert two.loc["h", "pairs turning at least once"] == 0
    three = df[df["model"] == "qwen3_vl"].set_index("axis")
    # Qwen3-VL's h pairs are 1, 4, ...: wavelength 2 pi 10^(6*2/128) = 7.8 <= 16
    assert three.loc["h", "fastest wavelength [ids]"] == pytest.approx(
        2 * math.pi * 10 ** (6 * 2 / 128))
    waves = [2 * math.pi * 10 ** (6 * 2 * i / 128) for i in range(1, 60, 3)]
    # 16 rows: the farthest two are 15 apart
    assert three.loc["h", "pairs turning at least once"] == sum(w <= 15 for w in waves)
    assert three.loc["h", "largest distance [ids]"] == 15


def test_coverage_counts_turns_over_the_largest_distance_not_the_span():
    # 15 rows are at most 14 apart. Qwen3-VL's h pair 4 has wavelength
    # 2 pi 10^(6*8/128) = 14.9: over 14 rows it turns 14/14.9 = 0.94 times, not once.
    df = rc.axis_coverage_table(128, 10**6, (8, 15, 15))
    three = df[df["model"] == "qwen3_vl"].set_index("axis")
    assert 14 < 2 * math.pi * 10 ** (6 * 8 / 128) < 15
    assert three.loc["h", "pairs turning at least once"] == 1  # only pair 1, 7.8 ids
    # one time id (t span 1): distance 0, no pair turns at all
    one = rc.axis_coverage_table(16, 10**4, (1, 2, 2)).set_index(["model", "axis"])
    assert one.loc[("qwen2_vl", "t"), "pairs turning at least once"] == 0
    assert one.loc[("qwen2_vl", "t"), "pairs under a quarter turn"] == \
        one.loc[("qwen2_vl", "t"), "pairs"]


# ---------------------------------------------------------- against transformers ----

# Only these tests need transformers (test-only, requirements-dev.txt); without it they
# are skipped and the rest of the module still runs.
needs_transformers = pytest.mark.skipif(
    importlib.util.find_spec("transformers") is None,
    reason="transformers is a test-only dependency (requirements-dev.txt): not installed")


def _rope_index(model_cls, segments, merge, tokens_per_second=None, second=1.0):
    """transformers' get_rope_index on a stand-in model: only the config fields
    and the helper it reads."""
    class StandIn:
        get_vision_position_ids = model_cls.get_vision_position_ids

        def __init__(self):
            self.config = SimpleNamespace(vision_config=SimpleNamespace(
                spatial_merge_size=merge, tokens_per_second=tokens_per_second))

    types, images, videos = [], [], []
    for kind, size in segments:
        if kind == "text":
            types += [0] * size
        else:
            t, h, w = size
            types += [1 if kind == "image" else 2] * (t * (h // merge) * (w // merge))
            (images if kind == "image" else videos).append(size)
    n = len(types)
    kwargs = dict(
        input_ids=torch.zeros(1, n, dtype=torch.long),
        mm_token_type_ids=torch.tensor([types], dtype=torch.int32),
        image_grid_thw=torch.tensor(images) if images else None,
        video_grid_thw=torch.tensor(videos) if videos else None)
    if tokens_per_second is not None:
        kwargs["second_per_grid_ts"] = torch.tensor([second] * max(len(videos), 1))
    ids, _ = model_cls.get_rope_index(StandIn(), **kwargs)
    return ids[:, 0]


@st.composite
def sequences(draw):
    """Text between every two vision blocks (as <|vision_start|> … <|vision_end|>
    are in real prompts); grids up to 8 x 8 merged, videos up to 10 temporal patches."""
    merge = draw(st.sampled_from([1, 2]))
    out = [("text", draw(st.integers(1, 4)))] if draw(st.booleans()) else []
    for _ in range(draw(st.integers(1, 3))):
        if out and out[-1][0] != "text":
            out.append(("text", draw(st.integers(1, 4))))
        h, w = (merge * draw(st.integers(1, 5)) for _ in range(2))
        if draw(st.booleans()):
            out.append(("image", (1, h, w)))
        else:
            out.append(("video", (draw(st.integers(1, 10)), h, w)))
    if draw(st.booleans()):
        out.append(("text", draw(st.integers(1, 4))))
    return out, merge


@needs_transformers
@settings(max_examples=40)
@given(sequences())
def test_ids_equal_qwen2_vl_get_rope_index(case):
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLModel

    segments, merge = case
    expected = _rope_index(Qwen2VLModel, segments, merge)
    assert torch.equal(rc.mrope_position_ids(segments, spatial_merge_size=merge), expected)


@needs_transformers
@settings(max_examples=30)
@given(sequences(), st.sampled_from([1, 2, 4]), st.sampled_from([0.25, 0.5, 1.0, 2.0]))
def test_ids_equal_qwen2_5_vl_get_rope_index(case, tokens_per_second, second):
    from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import Qwen2_5_VLModel

    segments, merge = case
    expected = _rope_index(Qwen2_5_VLModel, segments, merge, tokens_per_second, second)
    got = rc.mrope_position_ids(segments, spatial_merge_size=merge,
                                tokens_per_second=tokens_per_second, second_per_grid_t=second)
    assert torch.equal(got, expected)


def _cos_from_axes(ids, theta, axes):
    angle = ids.to(torch.float64)[axes].T * theta  # (seq, d/2)
    return torch.cat([angle.cos(), angle.cos()], dim=-1), torch.cat([angle.sin(), angle.sin()],
                                                                     dim=-1)


@needs_transformers
@pytest.mark.parametrize("model", ["qwen2_vl", "qwen3_vl"])
def test_allocation_equals_transformers_text_rotary_embedding(model):
    if model == "qwen2_vl":
        from transformers.models.qwen2_vl.configuration_qwen2_vl import (
            Qwen2VLTextConfig as Config,
        )
        from transformers.models.qwen2_vl.modeling_qwen2_vl import (
            Qwen2VLRotaryEmbedding as Embedding,
        )
    else:
        from transformers.models.qwen3_vl.configuration_qwen3_vl import (
            Qwen3VLTextConfig as Config,
        )
        from transformers.models.qwen3_vl.modeling_qwen3_vl import (
            Qwen3VLTextRotaryEmbedding as Embedding,
        )
    section = rc.MROPE_SECTIONS[model]
    params = {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": list(section)}
    if rc.MROPE_INTERLEAVED[model]:
        params["mrope_interleaved"] = True
    config = Config(hidden_size=256, num_attention_heads=2, head_dim=128,
                    rope_parameters=params)
    embedding = Embedding(config)
    ids = rc.mrope_position_ids([("text", 3), ("video", (3, 8, 12)), ("text", 3)])
    cos, sin = embedding(torch.zeros(1), ids[:, None, :])  # (1, seq, 128)
    theta = rc.theta(128, 10000.0)
    axes = rc.mrope_pair_axes(section, interleaved=rc.MROPE_INTERLEAVED[model])
    want_cos, want_sin = _cos_from_axes(ids, theta, axes)
    # transformers forms the angles in float32
    assert torch.allclose(cos[0].double(), want_cos, atol=1e-5)
    assert torch.allclose(sin[0].double(), want_sin, atol=1e-5)
    # and a different split would not match: the allocation matters
    swap = "qwen3_vl" if model == "qwen2_vl" else "qwen2_vl"
    other = rc.mrope_pair_axes(rc.MROPE_SECTIONS[swap], interleaved=rc.MROPE_INTERLEAVED[swap])
    assert not torch.allclose(cos[0].double(), _cos_from_axes(ids, theta, other)[0], atol=1e-3)


@needs_transformers
def test_axial_equals_qwen2_vl_vision_rotary_embedding():
    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLVisionConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLVisionRotaryEmbedding

    config = Qwen2VLVisionConfig(embed_dim=128, num_heads=2)  # head dim 64
    embedding = Qwen2VLVisionRotaryEmbedding(config)
    rows, cols = torch.meshgrid(torch.arange(5), torch.arange(7), indexing="ij")
    hw = torch.stack([rows.flatten(), cols.flatten()], dim=-1)  # (N, 2): h, w
    cos, sin = embedding(torch.zeros(1), hw)  # (N, 64)
    ids = torch.stack([torch.zeros_like(hw[:, 0]), hw[:, 0], hw[:, 1]])  # (3, N)
    want_cos, want_sin = _cos_from_axes(ids, rc.axial_theta(64, 10000.0), rc.axial_pair_axes(64))
    assert torch.allclose(cos.double(), want_cos, atol=1e-5)
    assert torch.allclose(sin.double(), want_sin, atol=1e-5)


def test_adjacent_vision_blocks_are_laid_out_one_after_the_other():
    # image 4x4 (merged 2x2) at 2, resumes at 2 + 2 = 4; image 2x2 (1x1) at 4; text at 5
    ids = rc.mrope_position_ids([("text", 2), ("image", (1, 4, 4)), ("image", (1, 2, 2)),
                                 ("text", 2)])
    assert ids.tolist() == [[0, 1, 2, 2, 2, 2, 4, 5, 6], [0, 1, 2, 2, 3, 3, 4, 5, 6],
                            [0, 1, 2, 3, 2, 3, 4, 5, 6]]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU on this machine")
def test_scores_and_rotation_on_cuda_match_the_cpu():
    g = torch.Generator().manual_seed(3)
    q, k = torch.randn(2, 64, generator=g, dtype=torch.float64)
    theta, axes = rc.scheme_frequencies("mrope", 64, 10**6, model="qwen3_vl")
    distance = rc.patch_distances(6, 9, 2, 7, "mrope")
    cpu = rc.mrope_score(q, k, distance, theta, axes)
    gpu = rc.mrope_score(q.cuda(), k.cuda(), distance.cuda(), theta.cuda(), axes.cuda())
    assert gpu.device.type == "cuda"
    torch.testing.assert_close(gpu.cpu(), cpu, rtol=1e-12, atol=1e-12)
    ids = rc.mrope_position_ids([("text", 3), ("video", (4, 4, 6)), ("text", 2)])
    x = torch.randn(ids.shape[1], 64, generator=g, dtype=torch.float64)
    cpu = rc.apply_mrope(x, ids, theta, axes)
    gpu = rc.apply_mrope(x.cuda(), ids.cuda(), theta.cuda(), axes.cuda())
    assert gpu.device.type == "cuda"
    torch.testing.assert_close(gpu.cpu(), cpu, rtol=1e-12, atol=1e-12)


def test_bad_vectors_name_the_argument():
    q = torch.ones(8, dtype=torch.float64)
    with pytest.raises(RopeError, match=r"^q="):
        rc.patch_score_table([1.0] * 8, q, 2, 2, 0, 0, base=100.0)
    with pytest.raises(RopeError, match=r"^k\.shape\[-1\]=6"):
        rc.patch_scores(q, torch.ones(6, dtype=torch.float64), 2, 2, 0, 0, scheme="flat",
                        base=100.0)
    with pytest.raises(RopeError, match=r"^position_ids\.shape="):
        theta, axes = rc.scheme_frequencies("mrope", 8, 100.0)
        rc.apply_mrope(torch.ones(3, 8, dtype=torch.float64), torch.zeros(2, 3), theta, axes)
    with pytest.raises(RopeError, match=r"^axes="):
        rc.mrope_score(q, q, [0, 0, 0], rc.theta(8, 100.0), torch.tensor([0, 1, 2, 3]))


@needs_transformers
def test_vision_encoder_counts_unmerged_patches_with_base_ten_thousand_and_head_dim_80():
    # The page: Qwen2-VL's vision encoder uses base 1e4 and head dim 80 (1280 / 16): 20
    # frequencies per axis; its row/column ids count patches before the 2 x 2 merge, so one
    # row of M-RoPE (merged tokens) is two rows of the vision encoder.
    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLVisionConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLVisionRotaryEmbedding
    from transformers.vision_utils import get_vision_position_ids

    config = Qwen2VLVisionConfig()
    assert (config.embed_dim, config.num_heads, config.spatial_merge_size) == (1280, 16, 2)
    inv_freq = Qwen2VLVisionRotaryEmbedding(config).inv_freq.double()  # (20,)
    want = torch.tensor([1e4 ** (-j / 20) for j in range(20)], dtype=torch.float64)
    assert inv_freq.shape == (20,) and torch.allclose(inv_freq, want, rtol=1e-6)
    assert torch.allclose(rc.axial_theta(80, 1e4)[:20], want)
    grid = torch.tensor([[1, 4, 6]])  # one image, 4 x 6 patches before merging
    vit = get_vision_position_ids(grid, 2)  # (24, 2): h, w per patch, merge windows in order
    llm = rc.mrope_position_ids([("image", (1, 4, 6))], spatial_merge_size=2)  # (3, 6)
    assert int(vit[:, 0].max()) == 3 and int(llm[1].max()) == 1
    # every 2 x 2 window of the encoder becomes one token: ViT rows 2r, 2r + 1 -> row r
    windows = vit.view(-1, 4, 2)  # (6 tokens, 4 patches, (h, w))
    assert torch.equal(windows[:, :, 0] // 2, llm[1].view(-1, 1).expand(-1, 4))
    assert torch.equal(windows[:, :, 1] // 2, llm[2].view(-1, 1).expand(-1, 4))
