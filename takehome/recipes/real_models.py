"""Real models (pages/real_models.py) as a notebook."""

from functools import partial

from . import Figure, Recipe, line

# the spectra per pair, and the decay against distance, one line per model
spectrum = partial(line, "comparison", 'compared["spectra"]', "pair", color="series",
                   markers="True", log_y="True")
decay = partial(line, "decay_table", 'decay["decay"]', "distance [tokens]", color="series",
                log_x='axis == "log"')

RECIPE = Recipe(
    tables={"comparison": "compared", "decay_table": "decay"},
    figures={
        "rm_stack_plot": Figure('''
fig = px.scatter(compared["layers"], x="layer", y="model", color="kind", symbol="attention")''',
            ("comparison",)),
        "rm_theta_plot": spectrum("theta [rad/token]"),
        "rm_wave_plot": spectrum("wavelength [tokens]"),
        "rm_ratio_plot": spectrum("ratio theta/theta plain"),
        "rm_bound_plot": decay("upper bound / bound(0)"),
        "rm_score_plot": decay("score q=k=1 / head dim"),
    })
