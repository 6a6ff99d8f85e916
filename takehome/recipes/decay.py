"""Long-term decay (pages/decay.py) as a notebook."""

from . import Figure, Recipe

RECIPE = Recipe(
    tables={"score_table": "scores"},
    figures={
        "decay_bound_plot": Figure('''
fig = px.line(bound, x="distance r [tokens]", y="upper bound", color="base", line_dash="dim",
              log_x=axis == "log")''', ("bound_table",)),
        "decay_score_plot": Figure('''
fig = px.line(scores, x="distance r [tokens]", y=["score q=k=1", "mean random score"],
              log_x=axis == "log")''', ("score_table",)),
    })
