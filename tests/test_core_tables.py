"""Tidy DataFrames behind the plots (rope_core.teaching.tables)."""

import math

import numpy as np
import pandas as pd
import pytest
import torch

import rope_core as rc

UNIT_COLUMNS = ["theta_i [rad/token]", "wavelength [tokens]"]
PAIR_COLUMNS = ["pair i"] + UNIT_COLUMNS + ["turns within L"]


def test_theta_table_columns_and_values():
    dim, base, L = 8, 10000.0, 4096
    th = rc.theta(dim, base)
    df = rc.theta_table(th, L)
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["dim", "L [tokens]"] + PAIR_COLUMNS + ["full turn within L"]
    assert df["dim"].tolist() == [8] * 4 and df["L [tokens]"].tolist() == [4096] * 4
    assert len(df) == dim // 2  # one row per pair
    for col in UNIT_COLUMNS:  # unit in square brackets
        assert col.endswith("]") and "[" in col
    assert df["pair i"].tolist() == [0, 1, 2, 3]
    thetas = [base ** (-2.0 * i / dim) for i in range(dim // 2)]  # 1, 0.1, 0.01, 0.001
    assert df["theta_i [rad/token]"].tolist() == pytest.approx(thetas, rel=1e-15)
    assert df["wavelength [tokens]"].tolist() == pytest.approx(
        [2 * math.pi / t for t in thetas], rel=1e-14)
    turns = [L * t / (2 * math.pi) for t in thetas]  # 651.9, 65.2, 6.52, 0.652
    assert df["turns within L"].tolist() == pytest.approx(turns, rel=1e-14)
    assert df["full turn within L"].dtype == bool
    assert df["full turn within L"].tolist() == [True, True, True, False]


def test_theta_table_labels_lead():
    th = rc.theta(4)
    df = rc.theta_table(th, 100, base=10000, method="none")
    assert list(df.columns)[:2] == ["base", "method"]
    assert list(df.columns)[2:] == ["dim", "L [tokens]"] + PAIR_COLUMNS + ["full turn within L"]
    assert df["base"].tolist() == [10000, 10000]
    assert df["method"].tolist() == ["none", "none"]
    # tables for several settings concatenate into one tidy table
    both = pd.concat([df, rc.theta_table(rc.theta(4, 500.0), 100, base=500, method="none")],
                     ignore_index=True)
    assert both["base"].tolist() == [10000, 10000, 500, 500]
    assert both["theta_i [rad/token]"].tolist() == pytest.approx(
        [1.0, 0.01, 1.0, 500 ** -0.5], rel=1e-15)


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (4, 4)])
def test_matrix_table_round_trip(shape):
    g = torch.Generator().manual_seed(0)
    M = torch.randn(*shape, generator=g, dtype=torch.float64)
    df = rc.matrix_table(M, "row", "col", "value")
    assert list(df.columns) == ["row", "col", "value"]
    assert len(df) == shape[0] * shape[1]
    rebuilt = np.full(shape, np.nan)
    rebuilt[df["row"].to_numpy(), df["col"].to_numpy()] = df["value"].to_numpy()
    np.testing.assert_array_equal(rebuilt, M.numpy())  # exact, every cell filled once
    assert not df[["row", "col"]].duplicated().any()
    # pivot back: same matrix
    pivot = df.pivot(index="row", columns="col", values="value").to_numpy()
    np.testing.assert_array_equal(pivot, M.numpy())


def test_matrix_table_of_rotation_matrix():
    # R_1 for theta(2) = [[cos 1, -sin 1], [sin 1, cos 1]]
    df = rc.matrix_table(rc.rotation_matrix(1, rc.theta(2)), "r", "c", "v")
    cells = {(r, c): v for r, c, v in zip(df["r"], df["c"], df["v"])}
    expected = {(0, 0): math.cos(1), (0, 1): -math.sin(1), (1, 0): math.sin(1),
                (1, 1): math.cos(1)}
    assert cells.keys() == expected.keys()
    for key, value in expected.items():
        assert cells[key] == pytest.approx(value, rel=1e-15)


def test_to_frame_keeps_float64_exactly():
    # values that float32 would round: 0.1, 1/3, 1 + 2^-52, pi, 1e-300
    values = [0.1, 1 / 3, 1 + 2**-52, math.pi, 1e-300]
    t = torch.tensor(values, dtype=torch.float64)
    df = rc.to_frame({"x [1]": t, "label": "a", "n": torch.arange(5)})
    assert df["x [1]"].dtype == np.float64
    assert df["x [1]"].tolist() == values  # bit-exact
    assert df["label"].tolist() == ["a"] * 5
    assert df["n"].tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("rows", [0, 1, 5, 4096])
def test_to_frame_is_the_frame_pandas_makes(rows):
    """to_frame builds constant settings and string lists itself (faster); the frame
    must be the one pd.DataFrame makes of the same dict: values, dtypes, CSV."""
    from rope_core.support.frames import _plain, to_frame

    columns = {"p": torch.arange(rows), "x": torch.rand(rows, dtype=torch.float64),
               "f": ["sin", "cos"] * (rows // 2) + ["sin"] * (rows % 2),
               "mixed": ["a", 1] * (rows // 2) + ["a"] * (rows % 2),
               "gap": ["a", None] * (rows // 2) + ["a"] * (rows % 2),
               "flag": (torch.arange(rows) % 2 == 0).numpy(), "n": np.int64(3)}
    settings = dict(base=10000.0, ratio=0.5, dim=128, big=2**70, layout="interleaved",
                    causal=True, none=None, nan=float("nan"))
    plain = {name: _plain(v) for name, v in settings.items()}
    plain.update({k: v.numpy() if isinstance(v, torch.Tensor) else v for k, v in columns.items()})
    expected = pd.DataFrame(plain)
    got = to_frame(columns, **settings)
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert got.dtypes.equals(expected.dtypes)
    assert got.to_csv(index=False) == expected.to_csv(index=False)


@pytest.mark.parametrize("names, codes", [(["sin", "cos"], [0, 1] * 5), (["a"], [0]),
                                          (["x", "y", "z"], [2, 2, 0, 1, 0])])
def test_labels_is_the_column_pandas_makes_of_the_strings(names, codes):
    """labels(names, codes) in a frame equals pd.DataFrame of the list of strings."""
    from rope_core.support.frames import labels, to_frame

    strings = [names[c] for c in codes]
    got = to_frame({"f": labels(names, np.array(codes, dtype=np.int64))}, dim=4)
    expected = pd.DataFrame({"dim": [4] * len(codes), "f": strings})
    assert list(got["f"]) == strings
    assert got["f"].dtype == expected["f"].dtype
    assert got.to_csv(index=False) == expected.to_csv(index=False)


def test_to_frame_detaches_grad_tensors():
    t = torch.tensor([1.5, 2.5], dtype=torch.float64, requires_grad=True)
    df = rc.to_frame({"v": t * 2})
    assert df["v"].tolist() == [3.0, 5.0]  # 1.5 * 2, 2.5 * 2 exactly
