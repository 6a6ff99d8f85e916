"""Every bad argument raises ValueError naming the parameter and the bad value."""

import math

import pytest
import torch

import rope_core as rc

TH4 = rc.theta(4)
X4 = torch.zeros(2, 4, dtype=torch.float64)


def raises_naming(fn, name, value_text):
    """Call fn, expect ValueError whose message holds the name and the bad value."""
    with pytest.raises(ValueError) as info:
        fn()
    msg = str(info.value)
    assert name in msg, msg
    assert value_text in msg, msg
    return msg


@pytest.mark.parametrize("dim,text", [(3, "3"), (0, "0"), (-4, "-4"), (True, "True"),
                                      (4.0, "4.0"), (5000, "5000"), ("8", "'8'")])
def test_theta_bad_dim(dim, text):
    msg = raises_naming(lambda: rc.theta(dim), "dim", text)
    assert f"dim={text}" in msg


@pytest.mark.parametrize("base,text", [(1, "1"), (1.0, "1.0"), (0.5, "0.5"), (-3.0, "-3.0"),
                                       (math.nan, "nan"), (math.inf, "inf"), ("abc", "abc"),
                                       (True, "True"), (None, "None")])
def test_theta_bad_base(base, text):
    raises_naming(lambda: rc.theta(4, base), "base", text)


def test_bad_dtype():
    raises_naming(lambda: rc.theta(4, dtype=torch.int64), "dtype", "int64")


def test_x_last_dim_mismatch():
    # theta has 2 pairs -> x needs 4 coordinates; 6 given
    x = torch.zeros(2, 6, dtype=torch.float64)
    # apply_rope: 6 coordinates and 2 pairs is partial rotary; fewer than 4 is an error
    raises_naming(lambda: rc.apply_rope(x[:, :2], [0, 1], TH4), "x.shape[-1]", "2")
    raises_naming(lambda: rc.apply_rope(x, [0, 1], TH4, rotary_dim=6), "rotary_dim", "6")
    raises_naming(lambda: rc.apply_rope_complex(x, [0, 1], TH4), "x.shape[-1]", "6")
    raises_naming(lambda: rc.score_vs_distance(x[0], x[0], [0], TH4), "q.shape[-1]", "6")


def test_x_not_a_float_tensor():
    raises_naming(lambda: rc.apply_rope(torch.zeros(2, 4, dtype=torch.int64), [0, 1], TH4),
                  "x", "tensor")
    raises_naming(lambda: rc.apply_rope(torch.zeros(4), [0], TH4), "x", "tensor")


def test_positions_wrong_length():
    raises_naming(lambda: rc.apply_rope(X4, [0, 1, 2], TH4), "positions", "[0, 1, 2]")
    raises_naming(lambda: rc.apply_rope(X4, [0], TH4), "positions", "[0]")


@pytest.mark.parametrize("bad,text", [([0.5, 1.0], "0.5"), ([0.0, math.nan], "nan"),
                                      ([0.0, math.inf], "inf")])
def test_positions_not_integer(bad, text):
    raises_naming(lambda: rc.apply_rope(X4, bad, TH4), "positions", text)
    raises_naming(lambda: rc.angles(bad, TH4), "positions", text)


def test_positions_not_a_sequence():
    raises_naming(lambda: rc.apply_rope(X4, "ab", TH4), "positions", "ab")
    raises_naming(lambda: rc.apply_rope(X4, [[0, 1]], TH4), "positions", "[[0, 1]]")


def test_position_of_rotation_matrix():
    raises_naming(lambda: rc.rotation_matrix(0.5, TH4), "position", "0.5")


def test_unknown_layout():
    raises_naming(lambda: rc.apply_rope(X4, [0, 1], TH4, layout="foo"), "layout", "foo")
    raises_naming(lambda: rc.rotation_matrix(1, TH4, layout="foo"), "layout", "foo")
    raises_naming(lambda: rc.layout_permutation(4, "foo"), "layout", "foo")
    raises_naming(lambda: rc.score_vs_distance(X4[0], X4[0], [0], TH4, layout="foo"),
                  "layout", "foo")


def test_bad_theta_tensor():
    raises_naming(lambda: rc.wavelength([1.0, 0.1]), "theta", "[1.0, 0.1]")
    raises_naming(lambda: rc.wavelength(torch.tensor([1.0, -0.1])), "theta", "-0.1")
    raises_naming(lambda: rc.wavelength(torch.tensor([1.0, math.nan])), "theta", "nan")
    raises_naming(lambda: rc.wavelength(torch.tensor([], dtype=torch.float64)), "theta", "[]")


def test_empty_distances():
    raises_naming(lambda: rc.relative_upper_bound([], TH4), "distances", "[]")
    raises_naming(lambda: rc.score_vs_distance(X4[0], X4[0], [], TH4), "distances", "[]")


@pytest.mark.parametrize("bad,text", [([0.0, math.nan], "nan"), ([1.0, math.inf], "inf"),
                                      ([-math.inf], "-inf")])
def test_non_finite_distances(bad, text):
    raises_naming(lambda: rc.relative_upper_bound(bad, TH4), "distances", text)
    raises_naming(lambda: rc.random_score_stats(bad, TH4, 2, 0), "distances", text)


def test_random_score_stats_bad_trials_and_seed():
    raises_naming(lambda: rc.random_score_stats([0], TH4, 0, 0), "trials", "0")
    raises_naming(lambda: rc.random_score_stats([0], TH4, 2, -1), "seed", "-1")


def test_resolve_device_unknown():
    raises_naming(lambda: rc.resolve_device("tpu"), "device", "tpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="a CUDA GPU is present")
def test_resolve_device_cuda_without_gpu():
    raises_naming(lambda: rc.resolve_device("cuda"), "device", "cuda")


def test_resolve_device_auto_and_cpu():
    expected = "cuda" if torch.cuda.is_available() else "cpu"  # "auto" rule of the docstring
    assert rc.resolve_device("auto").type == expected
    assert rc.resolve_device().type == expected
    assert rc.resolve_device("cpu") == torch.device("cpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="a CUDA GPU is present")
def test_resolve_device_auto_is_cpu_here():
    assert rc.resolve_device("auto") == torch.device("cpu")


def test_sinusoidal_bad_arguments():
    raises_naming(lambda: rc.sinusoidal_pe(0, 4), "num_positions", "0")
    raises_naming(lambda: rc.sinusoidal_pe(-1, 4), "num_positions", "-1")
    raises_naming(lambda: rc.sinusoidal_pe(3, 5), "dim", "5")
    raises_naming(lambda: rc.sinusoidal_dot([0.5], 4), "offsets", "0.5")


@pytest.mark.parametrize("factor,text", [(0.5, "0.5"), (0, "0"), (-2.0, "-2.0"),
                                         (math.nan, "nan"), (2000.0, "2000.0"), ("2", "'2'")])
def test_scaled_theta_bad_factor(factor, text):
    raises_naming(lambda: rc.scaled_theta(8, 10000.0, "linear", factor=factor), "factor", text)


YARN = {"factor": 2.0, "original_max_position_embeddings": 64}


def test_scaled_theta_bad_method_and_context():
    raises_naming(lambda: rc.scaled_theta(8, 10000.0, "bogus"), "method", "bogus")
    raises_naming(lambda: rc.scaled_theta(8, 10000.0, "yarn", factor=2.0,
                                          original_max_position_embeddings=0),
                  "original_max_position_embeddings", "0")
    raises_naming(lambda: rc.scaled_theta(8, 10000.0, "yarn", factor=2.0,
                                          original_max_position_embeddings=10**8),
                  "original_max_position_embeddings", "100000000")
    raises_naming(lambda: rc.scaled_theta(7, 10000.0, "yarn", **YARN), "dim", "7")
    raises_naming(lambda: rc.scaled_theta(8, 1.0, "yarn", **YARN), "base", "1.0")
    raises_naming(lambda: rc.scaled_theta(8, 10000.0, "yarn", seq_len=0, **YARN), "seq_len", "0")
    raises_naming(lambda: rc.scaled_theta(8, 10000.0, "yarn", dtype=torch.int32, **YARN),
                  "dtype", "int32")


def test_scaled_theta_missing_and_unknown_parameters():
    raises_naming(lambda: rc.scaled_theta(8, 10000.0, "yarn", factor=2.0),
                  "original_max_position_embeddings", "missing")
    raises_naming(lambda: rc.scaled_theta(8, 10000.0, "linear", beta_fast=3.0), "beta_fast", "3.0")
    raises_naming(lambda: rc.scaled_theta(8, 10000.0, "none", factor=2.0), "factor", "2.0")


def test_scaled_theta_bad_method_parameters():
    raises_naming(lambda: rc.scaled_theta(8, 1e4, "yarn", beta_fast=1.0, beta_slow=2.0, **YARN),
                  "beta_fast", "1.0")
    raises_naming(lambda: rc.scaled_theta(8, 1e4, "yarn", truncate="yes", **YARN),
                  "truncate", "yes")
    raises_naming(lambda: rc.scaled_theta(8, 1e4, "yarn", attention_factor=0.0, **YARN),
                  "attention_factor", "0.0")
    raises_naming(lambda: rc.scaled_theta(8, 1e4, "yarn", mscale=-1.0, **YARN), "mscale", "-1.0")
    raises_naming(lambda: rc.scaled_theta(8, 1e4, "yarn", max_position_embeddings=32, **YARN),
                  "max_position_embeddings", "32")
    raises_naming(lambda: rc.scaled_theta(8, 1e4, "llama3", low_freq_factor=4.0,
                                          high_freq_factor=1.0, **YARN),
                  "high_freq_factor", "1.0")
    lr = {"original_max_position_embeddings": 64, "long_factor": [1.0] * 4}
    raises_naming(lambda: rc.scaled_theta(8, 1e4, "longrope", short_factor=[1.0] * 3, **lr),
                  "short_factor", "3")
    raises_naming(lambda: rc.scaled_theta(8, 1e4, "longrope", short_factor=[1.0, -1, 1, 1], **lr),
                  "short_factor[1]", "-1")
    raises_naming(lambda: rc.scaled_theta(8, 1e4, "longrope", short_factor="1111", **lr),
                  "short_factor", "1111")


def test_effective_base_and_pair_regime_bad_arguments():
    raises_naming(lambda: rc.effective_base(8, 1e4, 2.0, 100, 0), "seq_len", "0")
    raises_naming(lambda: rc.effective_base(8, 1e4, 2.0, 100, []), "seq_len", "[]")
    raises_naming(lambda: rc.effective_base(8, 1e4, 0.5, 100, 10), "factor", "0.5")
    raises_naming(lambda: rc.pair_regime(8, 1e4, "linear", rtol=-1.0, factor=2.0), "rtol", "-1.0")


def test_toy_qk_bad_arguments():
    raises_naming(lambda: rc.toy_qk(0, 4, 0), "seq", "0")
    raises_naming(lambda: rc.toy_qk(4, 3, 0), "dim", "3")
    raises_naming(lambda: rc.toy_qk(4, 4, -5), "seed", "-5")


def test_attention_shape_mismatch():
    q = torch.zeros(3, 4, dtype=torch.float64)
    k = torch.zeros(2, 4, dtype=torch.float64)
    raises_naming(lambda: rc.attention(q, k, TH4), "k.shape", "(2, 4)")
    raises_naming(lambda: rc.attention(q, q, TH4, layout="foo"), "layout", "foo")


def test_turns_within_bad_context():
    raises_naming(lambda: rc.turns_within(TH4, 0), "context_length", "0")
    raises_naming(lambda: rc.turns_within(TH4, -5.0), "context_length", "-5.0")


def test_messages_say_what_is_allowed():
    # the documented format: "<name>=<value> is not allowed: <name> must be <allowed>."
    with pytest.raises(ValueError) as info:
        rc.theta(3)
    assert str(info.value).startswith("dim=3 is not allowed: dim must be ")


def test_frequency_forms_refuses_a_base_its_dtype_cannot_hold():
    # float16's largest number is 65504 = (2 - 2^-10) * 2^15, so 500000 would become inf
    with pytest.raises(ValueError, match=r"base=500000.0.*65504"):
        rc.frequency_forms(8, 500000.0, dtype=torch.float16)
    assert torch.isfinite(rc.frequency_forms(8, 60000.0, dtype=torch.float16)["pow"]).all()
