"""Images and video (pages/images_video.py) as a notebook."""

from . import Figure, Recipe


def _grid(column: str) -> Figure:
    return Figure(f'''
fig = px.imshow(grid.pivot(index="row", columns="col", values={column!r}),
                color_continuous_scale="Viridis")''', ("grid_table",))


def _wavelengths(model: str) -> Figure:
    return Figure(f'''
fig = px.scatter(pairs, x="pair i", y="wavelength [ids]", color="axis {model}", log_y=True)''',
                  ("pair_table",))


RECIPE = Recipe(
    tables={"sequence_tables": "sequence", "pair_table": "pairs"},
    figures={
        "iv_grid_flat": _grid("score flat"),
        "iv_grid_axial": _grid("score axial 2D"),
        "iv_grid_mrope": _grid("score M-RoPE"),
        "iv_ids": Figure('''
fig = px.line(sequence["tokens"], x="token", y=["t id", "h id", "w id"], markers=True)''',
            ("sequence_tables",), axes=False),
        "iv_allocation": Figure('''
axes = pairs.melt(id_vars=["pair i"], value_vars=["axis qwen2_vl", "axis qwen3_vl"],
                  var_name="model", value_name="axis")
fig = px.scatter(axes, x="pair i", y="model", color="axis")''', ("pair_table",)),
        "iv_wave_qwen2_vl": _wavelengths("qwen2_vl"),
        "iv_wave_qwen3_vl": _wavelengths("qwen3_vl"),
    })
