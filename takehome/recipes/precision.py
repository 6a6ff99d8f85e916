"""Precision (pages/precision.py) as a notebook."""

from . import Figure, Recipe

RECIPE = Recipe(
    tables={"spacing": "spacings", "errors": "angle_errors", "relative": "shifted",
            "neox": "issue_1003"},
    figures={
        "pr_spacing_plot": Figure('''
fig = px.line(spacings, x="position m [tokens]", y="spacing [tokens]", color="dtype",
              log_x=True, log_y=True)''', ("spacing",)),
        "pr_angle_plot": Figure('''
fig = px.line(angle_errors, x="position m [tokens]", y="max angle error [rad]", color="dtype",
              line_dash="recipe", log_x=True)''', ("errors",)),
        "pr_cos_plot": Figure('''
fig = px.line(angle_errors, x="position m [tokens]", y="max cos error", color="dtype",
              line_dash="recipe", log_x=True)''', ("errors",)),
        "pr_rel_plot": Figure('''
fig = px.line(shifted.assign(gap=shifted["score difference"].abs()), x="shift D [tokens]",
              y="gap", color="dtype", log_x=True)''', ("relative",)),
    })
