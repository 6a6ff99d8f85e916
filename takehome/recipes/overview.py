"""Why positions (pages/overview.py) as a notebook."""

from . import Figure, Recipe

RECIPE = Recipe(
    tables={"shuffle": "why"},
    figures={"why_outputs": Figure('''
out = why["outputs"]
shown = out[out["coordinate j"] < 16].melt(
    id_vars=["encoding", "word", "coordinate j"],
    value_vars=["shuffled out(x)", "out(shuffled x)"], var_name="output", value_name="value")
fig = px.density_heatmap(shown, x="coordinate j", y="word", z="value", histfunc="sum",
                         facet_row="encoding", facet_col="output", nbinsx=16,
                         color_continuous_scale="RdBu", color_continuous_midpoint=0)''',
        ("shuffle",))})
