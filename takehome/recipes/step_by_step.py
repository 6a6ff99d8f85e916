"""Step by step (pages/step_by_step.py) as a notebook."""

from . import Figure, Recipe

RECIPE = Recipe(
    tables={"steps": "rotated"},
    figures={"step_matrix_plot": Figure('''
fig = px.imshow(rotated["matrix"].pivot(index="row", columns="column", values="R_m entry"),
                text_auto=".3f", color_continuous_scale="RdBu", color_continuous_midpoint=0)''',
        ("steps",))})
