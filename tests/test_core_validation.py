"""Every bad argument raises ValueError naming the parameter and the bad value."""

import ast
import functools
import math
import pathlib
import string

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as hst
from i18n_helpers import english_words

import rope_core as rc
from rope_core.limits import breaks
from rope_core.teaching import lesson, tour

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


# ------------------------------------------------ errors are translatable (issue 13) ----
# Every error is a RopeError whose Message renders to str(err) in English, and each
# template in it (nested values included) is a message of the Chinese catalog with a
# translation, so ui.i18n.error_text can show it in Chinese.

CATALOG_PO = pathlib.Path(__file__).resolve().parents[1] / "locale" / "zh" / "LC_MESSAGES" / \
    "messages.po"


@functools.cache
def zh_catalog() -> dict[str, str]:
    from babel.messages.pofile import read_po

    with CATALOG_PO.open("rb") as f:
        return {m.id: m.string for m in read_po(f) if m.id and isinstance(m.id, str)}


def templates(msg: rc.Message) -> list[str]:
    """The message's template and those of the Messages among its values."""
    out = [msg.template]
    for value in msg.params.values():
        if isinstance(value, rc.Message):
            out += templates(value)
    return out


def check_translatable(fn) -> rc.RopeError:
    with pytest.raises(rc.RopeError) as info:
        fn()
    err = info.value
    assert isinstance(err, ValueError)
    assert err.message.render() == str(err)
    catalog = zh_catalog()
    for template in templates(err.message):
        assert template in catalog, f"not in the catalog (run tools/i18n.py): {template!r}"
        assert catalog[template], f"no Chinese translation: {template!r}"
    chinese = err.message.render(lambda t: catalog[t])
    assert chinese != str(err) and not english_words(chinese), chinese
    return err


_CFG = rc.RopeConfig("x", 8, 8, 10000.0)
_HF = {"head_dim": 8, "max_position_embeddings": 10}
BAD_CALLS = {
    "dim": lambda: rc.theta(3),
    "base": lambda: rc.theta(4, 0.5),
    "dtype": lambda: rc.theta(4, dtype=torch.int64),
    "positions length": lambda: rc.apply_rope(X4, [0, 1, 2], TH4),
    "positions tensor": lambda: rc.apply_rope(X4, torch.tensor([0.5, 1.0]), TH4),
    "large tensor": lambda: rc.apply_rope(torch.zeros(20, 4, dtype=torch.int64), range(20), TH4),
    "rotary_dim": lambda: rc.apply_rope(torch.zeros(2, 6, dtype=torch.float64), [0, 1], TH4,
                                        rotary_dim=6),
    "layout": lambda: rc.apply_rope(X4, [0, 1], TH4, layout="foo"),
    "k.shape": lambda: rc.attention(torch.zeros(3, 4, dtype=torch.float64),
                                    torch.zeros(2, 4, dtype=torch.float64), TH4),
    "theta": lambda: rc.angles([0], torch.tensor([-1.0])),
    "distances": lambda: rc.relative_upper_bound([math.nan], TH4),
    "critical_dim": lambda: rc.extrapolation_limit(8, 10000.0, 5),
    "context work": lambda: rc.min_base_for_context(4096, 100000),
    "config name": lambda: rc.RopeConfig("", 8, 8, 10000.0),
    "NoPE layer": lambda: rc.PRESETS["Command R7B"].theta(layer=3),
    "unknown parameter": lambda: rc.RopeConfig("x", 8, 8, 10000.0, method="linear",
                                               params={"foo": 1}),
    "no parameters": lambda: rc.RopeConfig("x", 8, 8, 10000.0, params={"foo": 1}),
    "missing parameter": lambda: rc.scaled_theta(8, 10000.0, "dynamic", factor=2.0),
    "bool parameter": lambda: rc.scaled_theta(8, 10000.0, "yarn", factor=2.0,
                                              original_max_position_embeddings=100, truncate=3),
    "float parameter": lambda: rc.scaled_theta(8, 10000.0, "yarn", factor=2.0,
                                               original_max_position_embeddings=100,
                                               mscale=-1.0),
    "factor list": lambda: rc.scaled_theta(8, 10000.0, "longrope", short_factor=[1.0],
                                           long_factor=[1.0] * 4,
                                           original_max_position_embeddings=10),
    "beta": lambda: rc.scaled_theta(8, 10000.0, "yarn", factor=2.0,
                                    original_max_position_embeddings=100, beta_fast=1.0,
                                    beta_slow=2.0),
    "json syntax": lambda: rc.RopeConfig.from_json("{"),
    "json extra data": lambda: rc.RopeConfig.from_json('{"a": 1} x'),
    "json constant": lambda: rc.RopeConfig.from_json('{"a": Infinity}'),
    "json bytes": lambda: rc.RopeConfig.from_json(b"\xff\xfe"),
    "json size": lambda: rc.RopeConfig.from_json(b" " * 2_000_000),
    "json depth": lambda: rc.RopeConfig.from_json("[" * 100_000),
    "head_dim missing": lambda: rc.RopeConfig.from_hf({}),
    "max_position_embeddings missing": lambda: rc.RopeConfig.from_hf({"head_dim": 8}),
    "rope_type": lambda: rc.RopeConfig.from_hf({**_HF, "rope_scaling": {"rope_type": "zzz"}}),
    "rope_scaling key": lambda: rc.RopeConfig.from_hf(
        {**_HF, "rope_scaling": {"rope_type": "linear", "factor": 2, "zz": 1}}),
    "rope_scaling value": lambda: rc.RopeConfig.from_hf(
        {**_HF, "rope_scaling": {"rope_type": "linear", "factor": 0.5}}),
    "json type": lambda: rc.RopeConfig.from_hf({**_HF, "rope_interleave": 1}),
    "nested config error": lambda: rc.RopeConfig.from_hf({**_HF, "mrope_section": [1]}),
    "dtype name": lambda: rc.resolve_dtype("fp16"),
    "relative_errors": lambda: rc.relative_errors([1.0], [1.0, 2.0]),
    "frequency_forms": lambda: rc.frequency_forms(8, 500000.0, dtype=torch.float16),
    "toy sentence": lambda: tour.shuffle_gaps("zz", 4, 10000.0, "half", 0),
    "words": lambda: lesson.toy_embeddings([], 4, 0),
    "methods": lambda: breaks.ood_angle_table(8, 10000.0, 100, 2.0, ("zz",)),
    "axis": lambda: rc.distance_grid(10, "zz"),
}


@pytest.mark.parametrize("case", sorted(BAD_CALLS))
def test_errors_are_translatable_rope_errors(case):
    check_translatable(BAD_CALLS[case])


@pytest.mark.skipif(torch.cuda.is_available(), reason="a CUDA GPU is present")
def test_cuda_error_is_translatable():
    check_translatable(lambda: rc.resolve_device("cuda"))


def test_unknown_json_problem_is_translatable(monkeypatch):
    from rope_core.models import config

    monkeypatch.setattr(config, "_JSON_PROBLEMS", {})  # e.g. a newer Python's wording
    err = check_translatable(lambda: rc.RopeConfig.from_json("{"))
    assert str(err) == "config is not valid JSON: an error at line 1, column 2."


def test_english_text_of_nested_messages():
    err = check_translatable(lambda: rc.RopeConfig.from_json(b" " * 2_000_000))
    assert str(err) == ("config=<2000000 bytes> is not allowed: config must be at most "
                        "1000000 bytes.")
    err = check_translatable(lambda: rc.apply_rope(X4, torch.tensor([0.5, 1.0]), TH4))
    assert "positions=tensor([0.5, 1.0]) is not allowed" in str(err)


@given(hst.one_of(hst.integers(-10**6, 1), hst.integers(4097, 10**6),
                  hst.integers(1, 2048).map(lambda k: 2 * k + 1)))
def test_any_bad_dim_is_translatable(dim):
    err = check_translatable(lambda: rc.theta(dim))
    assert str(err).startswith(f"dim={dim} is not allowed: dim must be ")


@given(hst.one_of(hst.floats(max_value=1.0), hst.floats(allow_nan=True).filter(math.isnan),
                  hst.text(string.ascii_letters + string.digits + " .-", max_size=5),
                  hst.none()))
def test_any_bad_base_is_translatable(base):
    check_translatable(lambda: rc.theta(4, base))


def test_every_literal_template_is_in_the_catalog():
    """Babel extracts every template of fail() / RopeError / Message / N_ in rope_core
    (a keyword call nested in fail()'s arguments would hide fail's template from it)."""
    catalog = zh_catalog()
    missing = []
    for path in sorted(pathlib.Path(rc.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            index = {"fail": 2, "RopeError": 0, "Message": 0, "N_": 0}.get(
                getattr(node.func, "id", ""))
            if index is None or len(node.args) <= index:
                continue
            arg = node.args[index]
            if isinstance(arg, ast.Constant) and not catalog.get(arg.value):
                missing.append(f"{path.name}:{node.lineno}: {arg.value[:60]!r}")
    assert not missing, missing
