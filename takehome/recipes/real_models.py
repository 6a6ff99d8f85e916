"""Real models (pages/real_models.py) as a notebook."""

from . import Figure, Recipe


def _spectrum(column: str) -> Figure:
    return Figure(f'''
fig = px.line(compared["spectra"], x="pair", y={column!r}, color="series", markers=True,
              log_y=True)''', ("comparison",))


def _decay(column: str) -> Figure:
    return Figure(f'''
fig = px.line(decay["decay"], x="distance [tokens]", y={column!r}, color="series",
              log_x=axis == "log")''', ("decay_table",))


RECIPE = Recipe(
    tables={"comparison": "compared", "decay_table": "decay"},
    figures={
        "rm_stack_plot": Figure('''
fig = px.scatter(compared["layers"], x="layer", y="model", color="kind", symbol="attention")''',
            ("comparison",)),
        "rm_theta_plot": _spectrum("theta [rad/token]"),
        "rm_wave_plot": _spectrum("wavelength [tokens]"),
        "rm_ratio_plot": _spectrum("ratio theta/theta plain"),
        "rm_bound_plot": _decay("upper bound / bound(0)"),
        "rm_score_plot": _decay("score q=k=1 / head_dim"),
    })
