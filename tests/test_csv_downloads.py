"""Every CSV download of every page, read as a program reads it (issue 46): at three
settings of the sidebar, each CSV has plain ASCII column names, each named once (a head
dim is "head dim", not the code's head_dim); no
cell holds a number written with a thousands separator ("8,192", alone or inside a text
cell); and every column whose name carries a unit in brackets ("[tokens]") holds numbers,
so that pandas reads it as numbers.

One AppTest run per page and setting (the CSVs are made through the buttons' own recipes,
as a click makes them: apptest_helpers.downloads).
"""

from __future__ import annotations

import io
import re

import pandas as pd
import pytest
from apptest_helpers import downloads, run_page

from ui import read_csv
from ui.navigation import PAGES

# defaults, a corner of the sidebar, its largest head dim with its smallest base
SETTINGS = {"defaults": {}, "corner": {"dim": "64", "base": "500000", "layout": "half"},
            "large": {"dim": "1024", "base": "10"}}
NAME = re.compile(r"[ -~]+")  # printable ASCII
GROUPED = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?![\d])")  # 8,192 or 1,048,576.5
UNIT = re.compile(r"\[[^\]]+\]")
# A column with a unit that holds a label, not a number: the Trained tiny models page's
# bins of positions, store depths and distances from the store ("3-15"), one per row, and
# each arm's ALiBi slopes, one per head ("2 0.125").
LABELS = {"position bin [tokens]", "store depth [tokens]", "distance from the store [tokens]",
          "alibi slopes [logits/token]"}


def test_the_separator_pattern():
    for text in ("8,192", "original_max_position_embeddings: 8,192", "1,048,576", "2,048.5"):
        assert GROUPED.search(text), text
    for text in ("8192", "16, 24, 24", "0.1,0.2", "1,23", "x12,345678", "(1,2)"):
        assert not GROUPED.search(text), text


def problems(name: str, data: bytes) -> list[str]:
    """What a program would trip over in one CSV."""
    found = []
    frame = read_csv(data)
    raw = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
    if len(set(frame.columns)) != len(frame.columns):
        found.append(f"{name}: a column name repeats: {list(frame.columns)}")
    for column in frame.columns:
        if not NAME.fullmatch(column) or column != column.strip():
            found.append(f"{name}: column {column!r} is not plain ASCII")
        if re.search(r"\b(head|rotary)_dim\b", column):  # "head dim", "rotary dims"
            found.append(f"{name}: column {column!r} is named as code, not as the others")
        cells = raw[column]
        grouped = cells[cells.str.contains(GROUPED)]
        if len(grouped):
            found.append(f"{name}: column {column!r} writes a number with a thousands "
                         f"separator: {grouped.iloc[0]!r}")
        if UNIT.search(column) and column not in LABELS and \
                frame[column].dtype.kind not in "iufb":
            found.append(f"{name}: column {column!r} has a unit but holds "
                         f"{frame[column].dropna().iloc[0]!r}")
    return found


@pytest.mark.parametrize("page", [spec.name for spec in PAGES])
def test_every_csv_reads_as_numbers(page):
    found = []
    for setting, query in SETTINGS.items():
        for item in downloads(run_page(page, query)):
            found += [f"{setting}: {p}" for p in problems(item["file_name"], item["bytes"])]
    assert not found, "\n".join(found)
