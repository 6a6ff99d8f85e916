"""rope_core.teaching.lesson against hand calculations, closed forms and second formulations."""

import cmath
import itertools
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import rope_core as rc
from rope_core.teaching import lesson

FAST = settings(max_examples=40, deadline=None)


def rot2(angle: float) -> np.ndarray:
    return np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])


def dense_interleaved(m: int, thetas) -> np.ndarray:
    """Block-diagonal R_m built block by block (interleaved pairs (2i, 2i+1))."""
    d = 2 * len(thetas)
    out = np.zeros((d, d))
    for i, t in enumerate(thetas):
        out[2 * i:2 * i + 2, 2 * i:2 * i + 2] = rot2(m * t)
    return out


# ------------------------------------------------------------ Why positions ----
def test_embeddings_repeat_a_word_and_follow_a_shuffle():
    x = lesson.toy_embeddings(("the", "cat", "the"), 6, 3)
    assert x.shape == (3, 6) and x.dtype == torch.float64
    assert torch.equal(x[0], x[2]) and not torch.equal(x[0], x[1])
    y = lesson.toy_embeddings(("cat", "the", "the"), 6, 3)  # same words, same vectors
    assert torch.equal(y[0], x[1]) and torch.equal(y[1], x[0])


def test_attention_output_by_hand():
    # 2 tokens, d = 2, identity projections: q = k = v = x
    x = torch.tensor([[1.0, 0.0], [0.0, 2.0]], dtype=torch.float64)
    eye = torch.eye(2, dtype=torch.float64)
    out = lesson.attention_output(x, eye, eye, eye)
    s = 1 / math.sqrt(2)
    # logits row 0: (1*1, 0) / sqrt 2; row 1: (0, 4) / sqrt 2
    w0 = [math.exp(s) / (math.exp(s) + 1), 1 / (math.exp(s) + 1)]
    w1 = [1 / (1 + math.exp(4 * s)), math.exp(4 * s) / (1 + math.exp(4 * s))]
    expected = [[w0[0] * 1, w0[1] * 2], [w1[0] * 1, w1[1] * 2]]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-14)


def test_attention_output_with_rope_rotates_q_and_k_only():
    # d = 2, theta = 1 rad/token, q = k = v = x. Token 1 sits at position 1: its q and k
    # turn by 1 rad, (0, 1) -> (-sin 1, cos 1); its value stays (0, 1).
    x = torch.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=torch.float64)
    eye = torch.eye(2, dtype=torch.float64)
    out = lesson.attention_output(x, eye, eye, eye, rc.theta(2, 10_000.0))
    s = 1 / math.sqrt(2)
    cross = -math.sin(1.0)  # <(1, 0), (-sin 1, cos 1)>
    a, b = math.exp(s), math.exp(cross * s)  # own logit 1, cross logit -sin 1
    expected = [[a / (a + b), b / (a + b)], [b / (a + b), a / (a + b)]]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-14)
    # without RoPE the cross logit is <(1, 0), (0, 1)> = 0
    plain = lesson.attention_output(x, eye, eye, eye)
    c = 1.0
    np.testing.assert_allclose(plain.numpy()[0], [a / (a + c), c / (a + c)], rtol=1e-14)


@FAST
@given(n=st.integers(2, 6), dim=st.sampled_from([2, 4, 8, 16]), seed=st.integers(0, 1000),
       data=st.data())
def test_no_positions_means_permutation_equivariance(n, dim, seed, data):
    words = tuple(f"w{t % 4}" for t in range(n))  # repeated words allowed
    order = data.draw(st.permutations(range(n)))
    x = lesson.toy_embeddings(words, dim, seed)
    w = lesson.toy_projections(dim, seed)
    perm = torch.tensor(order)
    out = lesson.attention_output(x, *w)
    shuffled = lesson.attention_output(x[perm], *w)
    torch.testing.assert_close(shuffled, out[perm], atol=1e-12, rtol=0)


@pytest.mark.parametrize("dim, in_dim", [(2, None), (64, None), (8, 3)])
def test_toy_projections_are_float32_draws_scaled_in_float64(dim, in_dim):
    """The draw is torch's float32 N(0, 1) stream for seed + 1, and each entry is that
    float32 number divided by sqrt(in_dim) in float64."""
    w = lesson.toy_projections(dim, 7, in_dim)
    n = dim if in_dim is None else in_dim
    g = torch.Generator().manual_seed(8)
    draw = torch.randn(3, dim, n, generator=g, dtype=torch.float32)
    for t, ref in zip(w, draw):
        assert t.dtype == torch.float64 and t.shape == (dim, n)
        assert torch.equal(t, ref.double() / math.sqrt(n))
    # the same seed, the same weights; another seed, others
    assert all(torch.equal(a, b) for a, b in zip(w, lesson.toy_projections(dim, 7, in_dim)))
    assert not torch.equal(w[0], lesson.toy_projections(dim, 8, in_dim)[0])


@pytest.mark.parametrize("name", list(lesson.TOY_SENTENCES))
def test_shuffle_tables_equivariant_without_and_not_with_rope(name):
    words, order = lesson.TOY_SENTENCES[name]
    assert sorted(order) == list(range(len(words)))
    tables = lesson.shuffle_tables(words, order, 16, 100.0, "interleaved", 0)
    summary = tables["summary"].set_index("encoding")["max |out(P x) - P out(x)|"]
    assert summary["none"] < 1e-14
    assert summary["rope"] > 1e-3
    out = tables["outputs"]
    assert list(out.columns[:7]) == ["sentence", "shuffled", "base", "dim", "layout", "seed",
                                     "encoding"]
    assert len(out) == 2 * len(words) * 16
    assert out["shuffled"].iloc[0] == " ".join(words[t] for t in order)
    none = out[out["encoding"] == "none"]
    # the gap read back from the long table equals the summary
    gap = (none["out(shuffled x)"] - none["shuffled out(x)"]).abs().max()
    assert gap == summary["none"]
    # each row's word is the sentence's word at its original position
    for _, row in none.iloc[::16].iterrows():
        assert row["word"] == words[row["position in sentence [tokens]"]]
    for name_ in out.columns:
        assert name_.isascii() and "[1]" not in name_


@pytest.mark.parametrize("name", list(lesson.TOY_SENTENCES))
def test_kept_projections_are_the_heads_own_and_give_the_same_tables(name):
    """shuffle_projections is x W_qᵀ, x W_kᵀ, x W_vᵀ of the sentence and of its shuffle
    (a plain matrix product here), and shuffle_tables given them writes the very tables
    it writes from its own, at every base and layout."""
    words, order = lesson.TOY_SENTENCES[name]
    dim, seed = 8, 3
    x = lesson.toy_embeddings(words, dim, seed).numpy()
    w = [t.numpy() for t in lesson.toy_projections(dim, seed)]
    kept = lesson.shuffle_projections(words, order, dim, seed)
    for rows, got in ((x, kept[0]), (x[list(order)], kept[1])):
        for ref, t in zip(w, got):
            assert t.dtype == torch.float64 and t.shape == (len(words), dim)
            np.testing.assert_allclose(t.numpy(), rows @ ref.T, rtol=1e-12, atol=1e-12)
    for base, layout in ((100.0, "interleaved"), (5e5, "half")):
        own = lesson.shuffle_tables(words, order, dim, base, layout, seed)
        given_ = lesson.shuffle_tables(words, order, dim, base, layout, seed, kept)
        for part in ("outputs", "summary"):
            assert own[part].equals(given_[part])


def test_dog_bites_man_swaps_dog_and_man():
    words, order = lesson.TOY_SENTENCES["dog bites man"]
    assert [words[t] for t in order] == ["man", "bites", "dog"]


# --------------------------------------------------------------- Derivation ----
def derivation(dim=4, base=100.0, layout="interleaved", pair=1, m=3, n=1, shift=10, seed=5):
    df = lesson.derivation_checks(dim, base, layout, pair, m, n, shift, seed)
    return df, df.set_index("check")


def test_derivation_values_by_hand():
    df, by = derivation()
    q, k = (t[0].numpy() for t in rc.toy_qk(1, 4, 5))
    theta1 = 100 ** (-2 / 4)  # 0.1 rad/token
    q2, k2 = q[2:4], k[2:4]  # pair 1, interleaved coordinates (2, 3)
    fq, fk = rot2(3 * theta1) @ q2, rot2(1 * theta1) @ k2
    assert math.isclose(by.loc["|f(q, m)| vs |q|", "value"], math.hypot(*fq), rel_tol=1e-14)
    assert math.isclose(by.loc["|f(q, m)| vs |q|", "expected"], math.hypot(*q2), rel_tol=1e-14)
    assert math.isclose(by.loc["psi(m) vs m theta [rad]", "expected"], 0.3, rel_tol=1e-14)
    # the step angle is theta_1 itself
    assert math.isclose(by.loc["psi(m) - psi(m - 1) vs theta [rad]", "value"], 0.1,
                        rel_tol=1e-12)
    score = "Re[f(q, m) conj f(k, n)] vs |q| |k| cos(phi_q - phi_k + (m - n) theta)"
    assert math.isclose(by.loc[score, "value"], float(fq @ fk), rel_tol=1e-13)
    # complex numbers: Re[q e^{3 iota theta} conj(k e^{iota theta})]
    zq, zk = complex(*q2), complex(*k2)
    z = zq * cmath.exp(3j * theta1) * (zk * cmath.exp(1j * theta1)).conjugate()
    assert math.isclose(by.loc[score, "expected"], z.real, rel_tol=1e-13)
    thetas = [1.0, theta1]
    dense = (dense_interleaved(3, thetas) @ q) @ (dense_interleaved(1, thetas) @ k)
    rel = "(R_m q)^T (R_n k) vs q^T R_(n-m) k"
    assert math.isclose(by.loc[rel, "value"], dense, rel_tol=1e-13)
    assert math.isclose(by.loc[rel, "expected"], q @ dense_interleaved(-2, thetas) @ k,
                        rel_tol=1e-13)
    assert math.isclose(by.loc["|R_m q| vs |q|", "expected"], float(np.linalg.norm(q)),
                        rel_tol=1e-14)
    assert df["difference"].max() < 1e-12
    assert list(df["step"]) == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]


def test_derivation_settings_columns_first():
    df, _ = derivation(layout="half")
    assert list(df.columns) == ["base", "dim", "layout", "pair i", "theta_i [rad/token]",
                                "m [tokens]", "n [tokens]", "shift [tokens]", "seed", "step",
                                "check", "value", "expected", "difference"]
    assert df["base"].iloc[0] == 100 and df["layout"].iloc[0] == "half"
    assert math.isclose(df["theta_i [rad/token]"].iloc[0], 0.1, rel_tol=1e-15)


@FAST
@given(dim=st.sampled_from([2, 4, 8, 64, 128]), base=st.sampled_from([10.0, 1e4, 5e5, 1e8]),
       layout=st.sampled_from(rc.LAYOUTS), m=st.integers(-2000, 2000),
       n=st.integers(-2000, 2000), shift=st.integers(-5000, 5000), seed=st.integers(0, 99),
       data=st.data())
def test_every_derivation_step_holds(dim, base, layout, m, n, shift, seed, data):
    pair = data.draw(st.integers(0, dim // 2 - 1))
    df = lesson.derivation_checks(dim, base, layout, pair, m, n, shift, seed)
    assert (df["difference"] < 1e-9).all(), df[["check", "difference"]]


def test_derivation_rejects_out_of_range():
    with pytest.raises(ValueError, match="pair=2"):
        lesson.derivation_checks(4, 100.0, "interleaved", 2, 0, 0, 0, 0)
    with pytest.raises(ValueError, match="m="):
        lesson.derivation_checks(4, 100.0, "interleaved", 0, 10**7, 0, 0, 0)
    with pytest.raises(ValueError, match="layout="):
        lesson.derivation_checks(4, 100.0, "diagonal", 0, 0, 0, 0, 0)


# ----------------------------------------------------------- Where RoPE sits ----
def test_kv_cache_by_hand_in_two_dimensions():
    # d = 2: one pair, theta = 1 rad/token. score(t, n) = q_t^T R((n - t) 1) k_n
    tables = lesson.kv_cache_tables(2, 10_000.0, "interleaved", 4, 3)
    scores = tables["scores"]
    q, k = (t.numpy() for t in rc.toy_qk(4, 2, 3))
    assert len(scores) == 4 * 5 // 2  # n <= t
    for _, row in scores.iterrows():
        t, n = int(row["t [tokens]"]), int(row["n [tokens]"])
        assert n <= t
        expected = q[t] @ rot2(n - t) @ k[n]
        assert math.isclose(row["recomputed"], expected, rel_tol=1e-12, abs_tol=1e-14)
        assert math.isclose(row["from cache"], expected, rel_tol=1e-12, abs_tol=1e-14)
        # rotating the cache again by t: (R_t q)^T R_t R_n k = q^T R_n k
        assert math.isclose(row["cache rotated again"], q[t] @ rot2(n) @ k[n], rel_tol=1e-12,
                            abs_tol=1e-14)
    summary = tables["summary"].set_index("way")["max |score - recomputed|"]
    assert summary["from cache"] < 1e-12 and summary["cache rotated again"] > 1e-2


def test_half_permutation_by_hand():
    assert lesson.half_permutation(8).tolist() == [0, 2, 4, 6, 1, 3, 5, 7]
    assert lesson.half_permutation(2).tolist() == [0, 1]


def test_permute_for_half_moves_rows_as_the_converter_does():
    heads, head_dim, in_dim = 3, 6, 5
    w = torch.arange(heads * head_dim * in_dim, dtype=torch.float64).reshape(-1, in_dim)
    out = lesson.permute_for_half(w, heads)
    for h, c, i in itertools.product(range(heads), range(2), range(head_dim // 2)):
        new_row = h * head_dim + c * head_dim // 2 + i
        old_row = h * head_dim + 2 * i + c
        assert torch.equal(out[new_row], w[old_row])


@FAST
@given(dim=st.sampled_from([2, 4, 8, 32, 128]), base=st.sampled_from([10.0, 1e4, 1e6]),
       seq=st.integers(1, 6), seed=st.integers(0, 10_000))
def test_layouts_agree_once_q_and_k_are_permuted(dim, base, seq, seed):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(seq, dim, generator=g, dtype=torch.float64)
    k = torch.randn(seq, dim, generator=g, dtype=torch.float64)
    p = lesson.half_permutation(dim)
    theta = rc.theta(dim, base)
    pos = range(seq)
    inter = rc.apply_rope(q, pos, theta) @ rc.apply_rope(k, pos, theta).T
    half = rc.apply_rope(q[:, p], pos, theta, layout="half") @ \
        rc.apply_rope(k[:, p], pos, theta, layout="half").T
    torch.testing.assert_close(half, inter, atol=1e-10, rtol=1e-12)
    torch.testing.assert_close(rc.apply_rope(q[:, p], pos, theta, layout="half"),
                               rc.apply_rope(q, pos, theta)[:, p], atol=1e-12, rtol=0)


@FAST
@given(dim=st.sampled_from([2, 4, 8, 16]), heads=st.integers(1, 4), seed=st.integers(0, 500))
def test_converted_weights_give_meta_scores(dim, heads, seed):
    tables = lesson.layout_tables(dim, 10_000.0, heads, 8, 5, seed)
    value = tables["checks"].set_index("check")["value"]
    assert value.iloc[:3].max() < 1e-9
    if dim > 2:  # for d = 2 the two layouts coincide
        assert value.iloc[3] > 1e-6


def test_layout_tables_pairs():
    pairs = lesson.layout_tables(8, 10_000.0, 2, 4, 3, 0)["pairs"]
    assert list(pairs.columns) == ["dim", "coordinate j", "pair i interleaved", "pair i half",
                                   "p_j"]
    assert pairs["pair i interleaved"].tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert pairs["pair i half"].tolist() == [0, 1, 2, 3, 0, 1, 2, 3]
    # the coordinate moved to j belongs, in the interleaved layout, to j's half-layout pair
    assert (pairs["p_j"] // 2).tolist() == pairs["pair i half"].tolist()


def test_argument_errors_name_the_parameter():
    with pytest.raises(ValueError, match="n_heads=0"):
        lesson.permute_for_half(torch.zeros(4, 2), 0)
    with pytest.raises(ValueError, match="w="):
        lesson.permute_for_half(torch.zeros(6, 2), 2)
    with pytest.raises(ValueError, match="order="):
        lesson.shuffle_tables(("a", "b"), (0, 0), 4, 100.0, "half", 0)
    float32 = ((torch.zeros(2, 4),) * 3,) * 2  # the right shapes, not float64
    with pytest.raises(ValueError, match=r"projections=\(\('float32\[2, 4\]'"):
        lesson.shuffle_tables(("a", "b"), (1, 0), 4, 100.0, "half", 0, float32)
    with pytest.raises(ValueError, match="seed=-1"):
        lesson.shuffle_tables(("a", "b"), (1, 0), 4, 100.0, "half", -1,
                              lesson.shuffle_projections(("a", "b"), (1, 0), 4, 0))
    with pytest.raises(ValueError, match="words="):
        lesson.toy_embeddings("dog bites man", 4, 0)
    with pytest.raises(ValueError, match="seq=65"):
        lesson.kv_cache_tables(4, 100.0, "half", 65, 0)


def test_sign_check_by_hand():
    df = lesson.sign_check(4, 100.0, 1, 7, 3, 5)
    value = dict(zip(df["form"], df["value"]))
    q, k = (t[0].numpy() for t in rc.toy_qk(1, 4, 5))
    q2, k2 = q[2:4], k[2:4]
    t = 0.1  # theta_1 = 100^(-2/4)
    score = (rot2(7 * t) @ q2) @ (rot2(3 * t) @ k2)
    # closed form per pair: (q.k) cos(r t) + (q1 k0 - q0 k1) sin(r t), r = n - m = -4
    along, across = q2 @ k2, q2[1] * k2[0] - q2[0] * k2[1]
    closed = along * math.cos(-4 * t) + across * math.sin(-4 * t)
    assert math.isclose(value["(R(m theta) q)^T (R(n theta) k)"], score, rel_tol=1e-13)
    assert math.isclose(value["q^T R((n - m) theta) k"], closed, rel_tol=1e-13)
    flipped = along * math.cos(4 * t) + across * math.sin(4 * t)
    assert math.isclose(value["q^T R((m - n) theta) k"], flipped, rel_tol=1e-13)
    assert list(df.columns[:6]) == ["base", "dim", "pair i", "m [tokens]", "n [tokens]", "seed"]
