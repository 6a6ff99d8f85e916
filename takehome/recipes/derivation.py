"""Derivation (pages/derivation.py) as a notebook."""

from . import Figure, Recipe

RECIPE = Recipe(
    tables={"checks": "derivation_checks", "identity_table": "identity"},
    figures={"derivation_heatmap": Figure('''
fig = px.imshow(identity.pivot(index="m [tokens]", columns="n [tokens]",
                               values="<R_m q, R_n k>"),
                color_continuous_scale="RdBu", color_continuous_midpoint=0)''',
        ("identity_table",))})
