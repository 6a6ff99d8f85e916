"""Tidy tables (pandas DataFrames) behind every plot; they become the CSVs.

Column names carry their unit in square brackets; "[1]" marks a pure number.
"""

from __future__ import annotations

import math

import pandas as pd
import torch

from .frequencies import turns_within, wavelength


def to_frame(columns: dict) -> pd.DataFrame:
    """One row per element; tensors become numpy arrays (float64 stays exact)."""
    return pd.DataFrame({name: (v.detach().cpu().numpy() if isinstance(v, torch.Tensor) else v)
                         for name, v in columns.items()})


def theta_table(theta: torch.Tensor, context_length: float, **labels) -> pd.DataFrame:
    """i, theta_i, wavelength 2 pi/theta_i and turns L theta_i/(2 pi) within L.

    ``labels`` (e.g. base=10000) become constant leading columns, so that
    tables for several settings concatenate into one tidy table.
    """
    i = torch.arange(theta.numel())
    turns = turns_within(theta, context_length)
    cols = {**labels,
            "i [pair]": i,
            "theta_i [rad/token]": theta,
            "wavelength [tokens]": wavelength(theta),
            "turns within L [turns]": turns,
            "full turn within L": (turns >= 1).cpu().numpy()}
    return to_frame(cols)


def matrix_table(matrix: torch.Tensor, row: str, col: str, value: str) -> pd.DataFrame:
    """A 2-D array in long form: one row per (row index, column index, value)."""
    rows, cols = matrix.shape
    r = torch.arange(rows).repeat_interleave(cols)
    c = torch.arange(cols).repeat(rows)
    return to_frame({row: r, col: c, value: matrix.reshape(-1)})


def degrees(radians: torch.Tensor) -> torch.Tensor:
    return radians * (180.0 / math.pi)
