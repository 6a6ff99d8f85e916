"""Rotation (pages/rotation.py) as a notebook."""

from . import Figure, Recipe

RECIPE = Recipe(
    tables={"rotation_frames": "turned"},
    figures={"rot_animation": Figure('''
fig = go.Figure([
    go.Scatter(x=turned["q'_x"], y=turned["q'_y"], mode="lines+markers", name="q' (position m)"),
    go.Scatter(x=turned["k'_x"], y=turned["k'_y"], mode="lines+markers", name="k' (position n)"),
])
fig.update_yaxes(scaleanchor="x", scaleratio=1)''', ("rotation_frames",))})
